/* SPDX-License-Identifier: MIT */
#include "gunzip.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/gzip.h"
#include "core/input.h"

void tb_assert_gunzips_to(const void *compressed, size_t compressed_size, const void *text,
                          size_t size)
{
    pk_input source, in;
    pk_error err;
    pk_input_init_memory(&source, compressed, compressed_size);
    assert_int_equal(pk_input_init_gzip(&in, &source, &err), PK_OK);
    char *back = malloc(size + 1);
    assert_non_null(back);
    assert_int_equal(pk_in_read(&in, back, size + 1), size);
    assert_memory_equal(back, text, size);
    pk_input_release(&in);
    free(back);
}
