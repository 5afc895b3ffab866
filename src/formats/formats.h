/* Declarations of the formats registered in table.c. */
#ifndef PK_FORMATS_FORMATS_H
#define PK_FORMATS_FORMATS_H

#include "profkit/format.h"

/* formats:begin */
/* formats:end */

#endif
