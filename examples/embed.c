/* SPDX-License-Identifier: MIT */
/* Using libprofkit from a program: read any profile profkit knows, print the total of its
 * default value per thread, and write it as folded stacks.
 *
 *   cc embed.c $(pkg-config --cflags --libs profkit) -o embed
 *   ./embed roku-channel.bsprof out.folded
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <profkit/format.h>
#include <profkit/profile.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT OUTPUT.folded\n", argv[0]);
        return 2;
    }
    pk_profile *profile = NULL;
    pk_error err;
    if (pk_read_file(argv[1], NULL, NULL, &profile, &err) != PK_OK) {
        fprintf(stderr, "%s: byte %" PRId64 ": %s\n", argv[1], err.offset, err.message);
        return 1;
    }
    uint32_t value = pk_default_value(profile);
    const pk_value_type *type = pk_value_type_at(profile, value);
    int64_t *per_thread = calloc(pk_thread_count(profile) + 1, sizeof *per_thread);
    for (size_t row = 0; per_thread && row < pk_sample_count(profile); row++)
        per_thread[pk_sample_thread(profile, row)] += pk_sample_values(profile, row)[value];
    for (uint32_t t = 0; per_thread && t < pk_thread_count(profile); t++)
        printf("%-24s %" PRId64 " %s\n", pk_str(profile, pk_thread_at(profile, t)->name),
               per_thread[t], pk_str(profile, type->unit));
    free(per_thread);

    pk_status status = pk_write_file(profile, argv[2], pk_format_by_name("folded"), NULL,
                                     argv[1], &err);
    if (status != PK_OK)
        fprintf(stderr, "%s\n", err.message);
    pk_profile_free(profile);
    return status == PK_OK ? 0 : 1;
}
