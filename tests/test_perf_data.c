/* SPDX-License-Identifier: MIT */
/* perf.data read from bytes made here: the records are taken in time order, round by round, as
 * perf takes them (formats/perf_data/order.h); addresses seen again; JIT memory; LBR call
 * stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/formats.h"
#include "formats/perf_data/unwind.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/symbolize.h"
#include "profkit/timeline.h"

/* A pipe-layout perf.data being made, little-endian unless big (as a big-endian machine
 * writes it: every field in its order, the attribute's bit fields from the top bit). */
typedef struct maker {
    uint8_t bytes[4096];
    size_t len;
    bool big;
} maker;

static void put(maker *m, const void *data, size_t n)
{
    assert_true(m->len + n <= sizeof m->bytes);
    memcpy(m->bytes + m->len, data, n);
    m->len += n;
}

static void put_u16(maker *m, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    if (m->big) {
        uint8_t t = b[0];
        b[0] = b[1];
        b[1] = t;
    }
    put(m, b, 2);
}

static void put_u32(maker *m, uint32_t v)
{
    put_u16(m, (uint16_t)(m->big ? v >> 16 : v));
    put_u16(m, (uint16_t)(m->big ? v : v >> 16));
}

static void put_u64(maker *m, uint64_t v)
{
    put_u32(m, (uint32_t)(m->big ? v >> 32 : v));
    put_u32(m, (uint32_t)(m->big ? v : v >> 32));
}

/* The attribute's flags word with the bit fields at the bits given in little-endian numbering. */
static uint64_t attr_flags(const maker *m, uint64_t little)
{
    if (!m->big)
        return little;
    uint64_t reversed = 0;
    for (unsigned bit = 0; bit < 64; bit++)
        reversed |= (little >> bit & 1) << (63 - bit);
    return reversed;
}

static void record_header(maker *m, uint32_t type, uint16_t misc, uint16_t size)
{
    put_u32(m, type);
    put_u16(m, misc);
    put_u16(m, size);
}

enum { IP = 1, TID = 2, TIME = 4, PERIOD = 256 };

static void start(maker *m)
{
    m->len = 0;
    put(m, m->big ? "2ELIFREP" : "PERFILE2", 8);
    put_u64(m, 16);
    /* HEADER_ATTR: a cpu-clock attribute with its one id. */
    record_header(m, 64, 0, 8 + 64 + 8);
    put_u32(m, 1);  /* PERF_TYPE_SOFTWARE */
    put_u32(m, 64); /* attribute size */
    put_u64(m, 0);  /* cpu-clock */
    put_u64(m, 1);  /* period */
    put_u64(m, IP | TID | TIME | PERIOD);
    put_u64(m, 0);                          /* read_format */
    put_u64(m, attr_flags(m, 1u << 18));    /* sample_id_all */
    put_u64(m, 0);         /* wakeup, bp_type */
    put_u64(m, 0);         /* bp_addr */
    put_u64(m, 1);         /* id */
}

/* The sample_id_all fields of a non-sample record: pid/tid, time. */
static void sample_id(maker *m, uint32_t pid, uint64_t time)
{
    put_u32(m, pid);
    put_u32(m, pid);
    put_u64(m, time);
}

static void comm(maker *m, uint32_t pid, const char *name, uint64_t time)
{
    record_header(m, 3, 0, 8 + 8 + 8 + 16);
    put_u32(m, pid);
    put_u32(m, pid);
    char padded[8] = {0};
    memcpy(padded, name, strnlen(name, 7));
    put(m, padded, 8);
    sample_id(m, pid, time);
}

/* An MMAP record of a page at start_address of name (at most 7 bytes). */
static void mmap_named(maker *m, uint32_t pid, uint64_t start_address, const char *name,
                       uint64_t time)
{
    record_header(m, 1, 2, 8 + 32 + 8 + 16);
    put_u32(m, pid);
    put_u32(m, pid);
    put_u64(m, start_address);
    put_u64(m, 0x1000);
    put_u64(m, 0);
    char padded[8] = {0};
    memcpy(padded, name, strnlen(name, 7));
    put(m, padded, 8);
    sample_id(m, pid, time);
}

static void mmap_vdso(maker *m, uint32_t pid, uint64_t start_address, uint64_t time)
{
    mmap_named(m, pid, start_address, "[vdso]", time);
}

static void sample(maker *m, uint32_t pid, uint64_t ip, uint64_t time)
{
    record_header(m, 9, 2 /* user */, 8 + 32);
    put_u64(m, ip);
    put_u32(m, pid);
    put_u32(m, pid);
    put_u64(m, time);
    put_u64(m, 1);
}

static void finished_round(maker *m)
{
    record_header(m, 68, 0, 8);
}

static pk_profile *read_made(const maker *m)
{
    pk_profile *p = NULL;
    pk_error err;
    pk_read_options options = {0};
    pk_option no_kallsyms = {"no-kallsyms", "1"};
    options.extra.items = &no_kallsyms;
    options.extra.count = 1;
    if (pk_read_memory(m->bytes, m->len, &pk_format_perf_data, &options, &p, &err) != PK_OK)
        fail_msg("read failed: %s", err.message);
    return p;
}

/* The name of the resource of the frame at address, "" for none. */
static const char *resource_at(const pk_profile *p, uint64_t address)
{
    for (size_t i = 0; i < pk_frame_count(p); i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        if (f->address == address)
            return f->resource == PK_NONE ? "" : pk_str(p, pk_resource_at(p, f->resource)->name);
    }
    fail_msg("no frame at 0x%llx", (unsigned long long)address);
    return NULL;
}

/* A sample written before the mapping of its code, which is earlier: perf takes the mapping
 * first, so the frame is in it. Here the mapping is even in the next round: a round delivers
 * only what is no later than the previous round's latest time. */
static void test_mapping_written_after_its_sample(void **state)
{
    (void)state;
    maker m = {.big = false};
    start(&m);
    comm(&m, 7, "prog", 10);
    sample(&m, 7, 0x5100, 200);
    finished_round(&m);
    mmap_vdso(&m, 7, 0x5000, 100);
    finished_round(&m);
    pk_profile *p = read_made(&m);
    assert_string_equal(resource_at(p, 0x5100), "[vdso]");
    pk_profile_free(p);
}

/* A mapping later than a sample stays out of it, wherever it is written; and the same records
 * written by a big-endian machine read as the little-endian ones: the thread, the times of the
 * non-sample records (in their sample_id_all fields, which a bit field of the attribute
 * announces), the samples' times. */
static void test_mapping_after_the_sample_in_time(void **state)
{
    (void)state;
    pk_profile *read[2];
    for (int big = 0; big < 2; big++) {
        maker m = {.big = big == 1};
        start(&m);
        comm(&m, 7, "prog", 10);
        mmap_vdso(&m, 7, 0x5000, 300);
        sample(&m, 7, 0x5100, 200);
        finished_round(&m);
        sample(&m, 7, 0x5200, 400);
        read[big] = read_made(&m);
    }
    for (int big = 0; big < 2; big++) {
        pk_profile *p = read[big];
        assert_string_equal(resource_at(p, 0x5100), "");
        assert_string_equal(resource_at(p, 0x5200), "[vdso]");
        assert_int_equal(pk_thread_count(p), 1);
        assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "prog");
        assert_int_equal(pk_sample_count(p), 2);
        int64_t first, last;
        assert_true(pk_timeline_bounds(p, &first, &last));
        assert_true(first == 200 && last == 400);
    }
    pk_profile_free(read[0]);
    pk_profile_free(read[1]);
}

/* Records with no time (0: perf's synthesized ones) are taken at once, before queued ones. */
static void test_untimed_records_at_once(void **state)
{
    (void)state;
    maker m = {.big = false};
    start(&m);
    sample(&m, 7, 0x5100, 200);
    mmap_vdso(&m, 7, 0x5000, 0);
    comm(&m, 7, "prog", 0);
    pk_profile *p = read_made(&m);
    assert_string_equal(resource_at(p, 0x5100), "[vdso]");
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "prog");
    pk_profile_free(p);
}

/* The frames at address, and how many of them are in a resource named name ("" for none). */
static size_t frames_at(const pk_profile *p, uint64_t address, const char *name, size_t *named)
{
    size_t n = 0;
    *named = 0;
    for (size_t i = 0; i < pk_frame_count(p); i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        if (f->address != address)
            continue;
        n++;
        const char *r = f->resource == PK_NONE ? "" : pk_str(p, pk_resource_at(p, f->resource)->name);
        *named += strcmp(r, name) == 0;
    }
    return n;
}

/* An address seen again after its process's mappings changed is resolved again, and a sample
 * after its thread's command changed gets the new command as root. */
static void test_repeated_callchain_after_changes(void **state)
{
    (void)state;
    maker m = {.big = false};
    start(&m);
    comm(&m, 7, "prog", 10);
    sample(&m, 7, 0x5100, 100);
    sample(&m, 7, 0x5100, 110);
    mmap_vdso(&m, 7, 0x5000, 150);
    sample(&m, 7, 0x5100, 200);
    comm(&m, 7, "renamed", 250);
    sample(&m, 7, 0x5100, 300);
    pk_profile *p = read_made(&m);
    size_t named;
    assert_int_equal(frames_at(p, 0x5100, "[vdso]", &named), 2);
    assert_int_equal(named, 1);
    /* Roots prog and renamed, each with the leaf under it: four stacks. */
    assert_int_equal(pk_stack_count(p), 5);
    pk_profile_free(p);
}

/* Executable anonymous memory and memory without a file are the process's JIT map, as perf
 * maps them: the frames' resource is /tmp/perf-PID.map, left for the symbolization pass. */
static void test_anonymous_code_is_jit_code(void **state)
{
    (void)state;
    const char *const names[] = {"//anon", "[heap]", "[stack]", "/SYSV1"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        maker m = {.big = false};
        start(&m);
        comm(&m, 7, "node", 10);
        mmap_named(&m, 7, 0x7000, names[i], 20);
        sample(&m, 7, 0x7010, 100);
        pk_profile *p = read_made(&m);
        size_t named;
        assert_int_equal(frames_at(p, 0x7010, "perf-7.map", &named), 1);
        if (named != 1)
            fail_msg("%s: not the JIT map", names[i]);
        for (size_t f = 0; f < pk_frame_count(p); f++)
            if (pk_frame_at(p, (uint32_t)f)->address == 0x7010)
                assert_string_equal(pk_str(p, pk_resource_at(p, pk_frame_at(p, (uint32_t)f)->resource)->path),
                                    "/tmp/perf-7.map");
        assert_true(pk_profile_has_unresolved_frames(p));
        const char *unnamed = pk_property_get(p, PK_UNNAMED_ADDRESSES);
        assert_non_null(unnamed);
        assert_string_equal(unnamed, "perf");
        pk_profile_free(p);
    }
}

/* perf record --call-graph lbr's attribute (no LBR on this machine's processors: written from
 * the perf_event_attr and perf's callchain resolution, tools/perf/util/machine.c): callchains
 * and the branch stack as a call stack of user code. */
static void start_lbr(maker *m)
{
    m->len = 0;
    put(m, "PERFILE2", 8);
    put_u64(m, 16);
    record_header(m, 64, 0, 8 + 80 + 8);
    put_u32(m, 1);  /* PERF_TYPE_SOFTWARE */
    put_u32(m, 80); /* attribute size: up to branch_sample_type */
    put_u64(m, 0);  /* cpu-clock */
    put_u64(m, 1);
    put_u64(m, IP | TID | TIME | PERIOD | (1u << 5) /* CALLCHAIN */ | (1u << 11) /* BRANCH_STACK */);
    put_u64(m, 0);
    put_u64(m, 1u << 18);
    put_u64(m, 0);
    put_u64(m, 0);
    put_u64(m, 0);                      /* config2 */
    put_u64(m, (1u << 0) | (1u << 11)); /* branch_sample_type: USER | CALL_STACK */
    put_u64(m, 1);                      /* id */
}

/* A sample whose callchain is `chain` (count entries, context markers included) and whose
 * branch stack holds `branches` (from, to pairs, the most recent first). */
static void sample_lbr(maker *m, uint32_t pid, uint64_t time, const uint64_t *chain, size_t count,
                       const uint64_t (*branches)[2], size_t branch_count)
{
    record_header(m, 9, 2, (uint16_t)(8 + 32 + 8 + 8 * count + 8 + 24 * branch_count));
    put_u64(m, chain[count - 1]);
    put_u32(m, pid);
    put_u32(m, pid);
    put_u64(m, time);
    put_u64(m, 1);
    put_u64(m, count);
    for (size_t i = 0; i < count; i++)
        put_u64(m, chain[i]);
    put_u64(m, branch_count);
    for (size_t i = 0; i < branch_count; i++) {
        put_u64(m, branches[i][0]);
        put_u64(m, branches[i][1]);
        put_u64(m, 0); /* flags */
    }
}

/* The addresses of the only sample's stack, leaf first. */
static size_t sample_addresses(const pk_profile *p, uint64_t *out, size_t cap)
{
    assert_int_equal(pk_sample_count(p), 1);
    uint32_t frames[32];
    uint32_t stack = pk_sample_stack(p, 0);
    size_t depth = pk_stack_depth(p, stack);
    assert_true(depth <= 32);
    pk_stack_frames(p, stack, frames, 32);
    size_t n = 0;
    for (size_t i = depth; i-- > 0;) {
        const pk_frame *f = pk_frame_at(p, frames[i]);
        if ((f->flags & PK_FRAME_HAS_ADDRESS) && n < cap)
            out[n++] = f->address;
    }
    return n;
}

/* An LBR call stack gives the user frames as perf resolves them: the most recent call's target,
 * then every call site, the most recent first, after the callchain's kernel part; the user
 * instruction pointer of the callchain is not one of them. Without the call-stack mode, or
 * without branches, the callchain is the stack. */
static void test_lbr_call_stack(void **state)
{
    (void)state;
    const uint64_t kernel = (uint64_t)-128, user = (uint64_t)-512;
    const uint64_t chain[] = {kernel, 0xffffffff81000010u, user, 0x5120};
    const uint64_t branches[][2] = {{0x5240, 0x5100}, {0x5330, 0x5200}, {0x5410, 0x5300}};
    maker m = {.big = false};
    start_lbr(&m);
    comm(&m, 7, "prog", 10);
    mmap_named(&m, 7, 0x5000, "prog", 20);
    sample_lbr(&m, 7, 100, chain, 4, branches, 3);
    pk_profile *p = read_made(&m);
    uint64_t got[8];
    size_t n = sample_addresses(p, got, 8);
    const uint64_t want[] = {0xffffffff81000010u, 0x5100, 0x5240, 0x5330, 0x5410};
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("frame %zu: 0x%llx, want 0x%llx", i, (unsigned long long)got[i],
                     (unsigned long long)want[i]);
    pk_profile_free(p);

    /* No branches: the callchain itself. */
    start_lbr(&m);
    comm(&m, 7, "prog", 10);
    mmap_named(&m, 7, 0x5000, "prog", 20);
    sample_lbr(&m, 7, 100, chain, 4, branches, 0);
    p = read_made(&m);
    n = sample_addresses(p, got, 8);
    assert_int_equal(n, 2);
    assert_true(got[0] == 0xffffffff81000010u && got[1] == 0x5120);
    pk_profile_free(p);
}

/* perf's user registers (x86: AX BX CX DX SI DI BP SP IP FLAGS CS SS, R8-R15 by bit) in DWARF's
 * order for the unwinder; without the stack or instruction pointer there is nothing to unwind. */
static void test_unwind_registers(void **state)
{
    (void)state;
    /* perf record --call-graph dwarf's mask on x86-64: bits 0-11 and 16-23. */
    uint64_t mask = 0xff0fff;
    uint8_t values[20 * 8];
    for (unsigned i = 0; i < 20; i++)
        for (unsigned b = 0; b < 8; b++)
            values[8 * i + b] = b == 0 ? (uint8_t)(100 + i) : 0;
    uint64_t regs[PD_UNWIND_REGS];
    assert_true(pd_unwind_registers(mask, values, false, regs));
    /* rax rdx rcx rbx rsi rdi rbp rsp: perf's 0 3 2 1 4 5 6 7, at positions 0 3 2 1 4 5 6 7. */
    const uint64_t want[PD_UNWIND_REGS] = {100, 103, 102, 101, 104, 105, 106, 107, /* r8-r15 at 12-19 */
                                           112, 113, 114, 115, 116, 117, 118, 119, /* rip */ 108};
    for (size_t i = 0; i < PD_UNWIND_REGS; i++)
        if (regs[i] != want[i])
            fail_msg("DWARF register %zu: %llu, want %llu", i, (unsigned long long)regs[i],
                     (unsigned long long)want[i]);
    /* Only SP and IP: the others are 0. */
    uint8_t two[16] = {7, 0, 0, 0, 0, 0, 0, 0, 8};
    assert_true(pd_unwind_registers((1u << 7) | (1u << 8), two, false, regs));
    assert_int_equal(regs[7], 7);
    assert_int_equal(regs[16], 8);
    assert_int_equal(regs[0], 0);
    assert_false(pd_unwind_registers(1u << 8, two, false, regs));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping_written_after_its_sample),
        cmocka_unit_test(test_mapping_after_the_sample_in_time),
        cmocka_unit_test(test_untimed_records_at_once),
        cmocka_unit_test(test_repeated_callchain_after_changes),
        cmocka_unit_test(test_anonymous_code_is_jit_code),
        cmocka_unit_test(test_unwind_registers),
        cmocka_unit_test(test_lbr_call_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
