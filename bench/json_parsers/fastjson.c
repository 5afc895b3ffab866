/* SPDX-License-Identifier: MIT */
/* libfastjson (libfastjson-dev), rsyslog's fork of json-c: the same program as json_c.c,
 * through the json-c names libfastjson's headers define, and the few they leave out. */
#include <libfastjson/json.h>

#define json_tokener_get_error fjson_tokener_get_error
#define json_tokener_success fjson_tokener_success
#define json_tokener_get_parse_end(tokener) ((size_t)(tokener)->char_offset)

#define JP_JSON_C_FORK
#define JP_JSON_C_NAME "fastjson"
#include "json_c.c"
