/* Declarations of the formats registered in table.c. */
#ifndef PK_FORMATS_FORMATS_H
#define PK_FORMATS_FORMATS_H

#include "profkit/format.h"

/* formats:begin */
extern const pk_format pk_format_pprof;
/* formats:end */

#endif
