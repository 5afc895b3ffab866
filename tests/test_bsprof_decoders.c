/* SPDX-License-Identifier: MIT */
/* The .bsprof reader's two decoders for CPU and call-count entries read every input alike: the
 * wide one (x86-64 with a fast pext, where the other tests run it) and the byte-wise loop (every
 * other processor, forced here with pk_bsprof_force_bytewise). Each input is read both ways,
 * strictly and with salvage, and the outcomes compared: status, error offset and message, and
 * the whole model (profile_diff.h). Inputs: every .bsprof under tests/data, the fuzz corpus,
 * files of every gen_bsprof shape; each whole, cut at every byte (at evenly spread bytes for the
 * larger ones) and with bytes changed. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "bsprof_decoders.h"
#include "fixtures.h"
#include "strfmt.h"

/* How an input is cut and changed: at every byte when it is short, else at evenly spread bytes
 * and at every byte of a stretch in its middle (every place of the input's end relative to the
 * entries there, where the decoders hand over to each other); bytes changed at random places. */
typedef struct variations {
    size_t every_cut_bytes;
    size_t spread_cuts;
    size_t stretch;
    int changes;
} variations;

static size_t reads_compared;

static void expect_same(const char *name, const uint8_t *data, size_t size, const char *how)
{
    for (int salvage = 0; salvage < 2; salvage++) {
        const char *difference = tb_bsprof_decoders_difference(data, size, salvage == 1);
        if (difference)
            fail_msg("%s, %s (%zu bytes)%s: the wide decoder and the byte-wise loop differ: %s",
                     name, how, size, salvage ? " with salvage" : "", difference);
        reads_compared += 2;
    }
}

/* SplitMix64: the same changed bytes on every run. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void check_input(const char *name, const uint8_t *data, size_t size, const variations *v)
{
    expect_same(name, data, size, "whole");

    char how[64];
    size_t step = size <= v->every_cut_bytes || size < v->spread_cuts ? 1 : size / v->spread_cuts;
    for (size_t cut = 0; cut < size; cut += step) {
        snprintf(how, sizeof how, "cut at byte %zu", cut);
        expect_same(name, data, cut, how);
    }
    if (size > v->every_cut_bytes && size > v->stretch) {
        for (size_t cut = (size - v->stretch) / 2; cut < (size + v->stretch) / 2; cut++) {
            snprintf(how, sizeof how, "cut at byte %zu", cut);
            expect_same(name, data, cut, how);
        }
    }

    if (size == 0)
        return;
    uint8_t *changed = malloc(size);
    assert_non_null(changed);
    uint64_t state = size;
    for (int i = 0; i < v->changes; i++) {
        uint64_t r = next_random(&state);
        size_t at = (size_t)(r % size);
        uint8_t to = (uint8_t)(r >> 56);
        memcpy(changed, data, size);
        changed[at] = to == changed[at] ? (uint8_t)~to : to;
        snprintf(how, sizeof how, "byte %zu set to %u", at, (unsigned)changed[at]);
        expect_same(name, changed, size, how);
    }
    free(changed);
}

/* The sanitizer build runs each read several times slower (about 40 s of CPU for the whole
 * set, over 300 s of wall time on a loaded machine), so there each input is cut and changed at
 * fewer places, the same on every run: a quarter of them in the short files, an eighth in the
 * generated ones (whose 48 KiB reads cost the most). Every input and every shape is still read,
 * and the stretch of cuts still spans several entries. The whole set runs in the other builds
 * (docs/reliability.md, test times). */
#if PK_TEST_SANITIZED
#define VARIATIONS_SHARE 4
#define GENERATED_SHARE 8
#else
#define VARIATIONS_SHARE 1
#define GENERATED_SHARE 1
#endif

/* Files of tests/data and the fuzz corpus: many, mostly short. */
static const variations file_variations = {.every_cut_bytes = 256 / VARIATIONS_SHARE,
                                           .spread_cuts = 32 / VARIATIONS_SHARE,
                                           .stretch = 64 / VARIATIONS_SHARE,
                                           .changes = 16 / VARIATIONS_SHARE};
/* Generated files: few, long, of CPU and call-count entries mostly. */
static const variations generated_variations = {.every_cut_bytes = 0,
                                                .spread_cuts = 64 / GENERATED_SHARE,
                                                .stretch = 128 / GENERATED_SHARE,
                                                .changes = 32 / GENERATED_SHARE};
/* A generated file six times as long: fewer variations, for the same time. */
static const variations long_variations = {.every_cut_bytes = 0,
                                           .spread_cuts = 8,
                                           .stretch = 16,
                                           .changes = 4};

static void check_file(const char *path)
{
    size_t size;
    char *data = tb_read_whole_file(path, &size);
    check_input(path, (const uint8_t *)data, size, &file_variations);
    free(data);
}

/* Every regular file under dir, recursively, whose name ends in suffix ("" for all). Returns
 * how many. */
static size_t check_tree(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char *path = tb_strfmt("%s/%s", dir, e->d_name);
        struct stat st;
        size_t len = strlen(e->d_name), suffix_len = strlen(suffix);
        if (stat(path, &st) != 0) {
            fail_msg("cannot stat %s", path);
        } else if (S_ISDIR(st.st_mode)) {
            files += check_tree(path, suffix);
        } else if (S_ISREG(st.st_mode) && len >= suffix_len &&
                   strcmp(e->d_name + len - suffix_len, suffix) == 0) {
            check_file(path);
            files++;
        }
        free(path);
    }
    closedir(d);
    return files;
}

static const char *source_dir(void)
{
    const char *source = getenv("PK_SOURCE_DIR");
    return source ? source : ".";
}

static void test_data_files(void **state)
{
    (void)state;
    char *dir = tb_strfmt("%s/tests/data", source_dir());
    size_t files = check_tree(dir, ".bsprof");
    free(dir);
    printf("# tests/data: %zu .bsprof files\n", files);
}

static void test_fuzz_corpus(void **state)
{
    (void)state;
    char *dir = tb_strfmt("%s/fuzz/corpus/bsprof", source_dir());
    size_t files = check_tree(dir, "");
    free(dir);
    assert_true(files > 0);
    printf("# fuzz/corpus/bsprof: %zu files\n", files);
}

/* A file of a shape of the generator named by the environment variable (PK_GEN_BSPROF or
 * PK_GEN_BSPROF_SPREAD), of the size given (a gen_bsprof size), made in the scratch directory. */
static void check_generated_sized(const char *variable, const char *size_text, size_t least,
                                  const variations *v, const char *options)
{
    const char *generator = getenv(variable);
    const char *scratch = getenv("PK_TEST_TMPDIR");
    assert_non_null(generator);
    char *path = tb_strfmt("%s/decoders.bsprof", scratch ? scratch : ".");
    char *command = tb_strfmt("'%s' --size %s %s '%s'", generator, size_text, options, path);
    assert_int_equal(system(command), 0);
    char *name = tb_strfmt("%s %s", variable, options);
    size_t size;
    char *data = tb_read_whole_file(path, &size);
    assert_true(size >= least);
    check_input(name, (const uint8_t *)data, size, v);
    free(data);
    remove(path);
    free(name);
    free(command);
    free(path);
}

static void check_generated_by(const char *variable, const char *options)
{
    check_generated_sized(variable, "48K", 48 * 1024, &generated_variations, options);
}

static void check_generated(const char *options)
{
    check_generated_by("PK_GEN_BSPROF", options);
}

static void test_generated_shapes(void **state)
{
    (void)state;
    /* Line data and memory operations, then without each, then with long CPU and wall
     * increments (varints of up to five bytes), then a seed of its own. */
    check_generated("");
    check_generated("--no-lines");
    check_generated("--no-memory");
    check_generated("--no-lines --no-memory");
    check_generated("--cpu-max 2000000000");
    check_generated("--no-lines --no-memory --cpu-max 2000000000");
    check_generated("--seed 7 --alloc-percent 62");
    /* Other recorders' shape: many path elements and line offsets, so that cells are made
     * (and an ID's cells moved to a larger array) between the windows the wide decoder has
     * decoded and the entries it has added. */
    check_generated_by("PK_GEN_BSPROF_SPREAD", "--paths 500");
    check_generated_by("PK_GEN_BSPROF_SPREAD", "--paths 3000 --max-offset 200 --seed 3");
    check_generated_by("PK_GEN_BSPROF_SPREAD", "--paths 40 --calls-percent 90 --cpu-max 300");
    /* Cells past the wide decoder's 1 MiB (3,000 path elements of 16 cells or more) early in
     * the file: from there it fetches cells a window ahead (a 48K file of this shape holds
     * mostly definitions and too few cells for that). */
    check_generated_sized("PK_GEN_BSPROF_SPREAD", "300K", 300 * 1024, &long_variations,
                          "--paths 3000 --seed 5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_files),
        cmocka_unit_test(test_fuzz_corpus),
        cmocka_unit_test(test_generated_shapes),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    printf("# %zu reads compared%s\n", reads_compared,
           PK_TEST_SANITIZED ? " (the sanitizer build's share)" : "");
    /* A subset that shrank to nothing would pass while checking nothing. */
    if (!failed && reads_compared < 1000) {
        printf("# too few reads compared\n");
        failed = 1;
    }
    return failed;
}
