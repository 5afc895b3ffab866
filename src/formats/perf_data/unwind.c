/* SPDX-License-Identifier: MIT */
/* DWARF unwinding of perf samples with libdwfl: see unwind.h. */
#include "formats/perf_data/unwind.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/perf_data/codec.h"

/* Processes whose binaries stay reported (and open) at once. */
#define PD_UNWIND_PROCESSES 8

typedef struct unwind_process {
    bool used;
    uint32_t pid;
    uint64_t version;
    Dwfl *dwfl; /* NULL when none of its binaries could be used */
} unwind_process;

struct pd_unwinder {
    unwind_process processes[PD_UNWIND_PROCESSES];
    size_t next_evicted;
    Dwfl_Callbacks callbacks;
    char *debuginfo_path;
    /* The sample being unwound, for the callbacks. */
    const uint64_t *regs;
    const uint8_t *stack;
    size_t stack_size;
    bool big;
    uint64_t *pcs;
    size_t count, max;
};

pd_unwinder *pd_unwinder_new(void)
{
    pd_unwinder *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->callbacks.find_elf = dwfl_build_id_find_elf;
    u->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    u->callbacks.debuginfo_path = &u->debuginfo_path;
    return u;
}

static void process_clear(unwind_process *p)
{
    if (p->dwfl)
        dwfl_end(p->dwfl);
    memset(p, 0, sizeof *p);
}

void pd_unwinder_free(pd_unwinder *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < PD_UNWIND_PROCESSES; i++)
        process_clear(&u->processes[i]);
    free(u);
}

static unwind_process *process_find(const pd_unwinder *u, uint32_t pid)
{
    for (size_t i = 0; i < PD_UNWIND_PROCESSES; i++)
        if (u->processes[i].used && u->processes[i].pid == pid)
            return (unwind_process *)&u->processes[i];
    return NULL;
}

bool pd_unwinder_knows(const pd_unwinder *u, uint32_t pid, uint64_t version)
{
    const unwind_process *p = process_find(u, pid);
    return p && p->version == version;
}

/* ---- libdwfl's thread callbacks: one thread, the sample's --------------------------------- */

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
    if (*thread_argp)
        return 0;
    *thread_argp = dwfl_arg;
    return dwfl_pid(dwfl);
}

/* Words of the stack copy; nothing else of the process's memory is known. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
    (void)dwfl;
    const pd_unwinder *u = dwfl_arg;
    uint64_t sp = u->regs[7];
    if (addr < sp || u->stack_size < 8 || addr - sp > u->stack_size - 8)
        return false;
    *result = pd_u64(u->stack + (addr - sp), u->big);
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const pd_unwinder *u = thread_arg;
    Dwarf_Word regs[PD_UNWIND_REGS];
    for (size_t i = 0; i < PD_UNWIND_REGS; i++)
        regs[i] = u->regs[i];
    return dwfl_thread_state_registers(thread, 0, PD_UNWIND_REGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* ---- processes ------------------------------------------------------------------------------ */

static bool readable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The file to read for a module: perf's copy in its build id cache (~/.debug), then the path. */
static bool module_file(const pd_unwind_module *m, char *out, size_t size)
{
    const char *home = getenv("HOME");
    size_t id_len = strlen(m->build_id);
    if (home && *home && id_len > 2 && id_len <= 40) {
        int n = snprintf(out, size, "%s/.debug/.build-id/%.2s/%s/elf", home, m->build_id,
                         m->build_id + 2);
        if (n > 0 && (size_t)n < size && readable_file(out))
            return true;
    }
    if (m->path[0] != '/' || strlen(m->path) >= size || !readable_file(m->path))
        return false;
    memcpy(out, m->path, strlen(m->path) + 1);
    return true;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool pd_unwinder_set_process(pd_unwinder *u, uint32_t pid, uint64_t version,
                             const pd_unwind_module *modules, size_t count)
{
    unwind_process *p = process_find(u, pid);
    if (!p) {
        p = &u->processes[u->next_evicted];
        u->next_evicted = (u->next_evicted + 1) % PD_UNWIND_PROCESSES;
    }
    process_clear(p);
    p->used = true;
    p->pid = pid;
    p->version = version;
    Dwfl *dwfl = dwfl_begin(&u->callbacks);
    if (!dwfl)
        return false;
    dwfl_report_begin(dwfl);
    size_t reported = 0;
    char path[4096];
    for (size_t i = 0; i < count; i++) {
        const pd_unwind_module *m = &modules[i];
        if (m->pgoff > m->start || !module_file(m, path, sizeof path))
            continue;
        /* Where perf reports it: the mapping's start less its file offset. */
        if (dwfl_report_elf(dwfl, base_name(m->path), path, -1, m->start - m->pgoff, false))
            reported++;
    }
    dwfl_report_end(dwfl, NULL, NULL);
    if (reported == 0 || !dwfl_attach_state(dwfl, NULL, (pid_t)pid, &thread_callbacks, u)) {
        dwfl_end(dwfl);
        return true; /* nothing to unwind with: its samples keep their instruction pointer */
    }
    p->dwfl = dwfl;
    return true;
}

/* ---- unwinding ------------------------------------------------------------------------------ */

bool pd_unwind_registers(uint64_t mask, const uint8_t *values, bool big, uint64_t *regs)
{
    /* perf's x86 register numbers, in DWARF's order. */
    static const unsigned perf_numbers[PD_UNWIND_REGS] = {
        0 /* AX */, 3 /* DX */, 2 /* CX */, 1 /* BX */, 4 /* SI */, 5 /* DI */, 6 /* BP */,
        7 /* SP */, 16, 17, 18, 19, 20, 21, 22, 23 /* R8-R15 */, 8 /* IP */};
    for (size_t i = 0; i < PD_UNWIND_REGS; i++) {
        unsigned bit = perf_numbers[i];
        if (!(mask & (1ull << bit))) {
            regs[i] = 0;
            continue;
        }
        unsigned index = (unsigned)__builtin_popcountll(mask & ((1ull << bit) - 1));
        regs[i] = pd_u64(values + 8 * (size_t)index, big);
    }
    return (mask & (1ull << 7)) && (mask & (1ull << 8));
}

static int take_frame(Dwfl_Frame *state, void *arg)
{
    pd_unwinder *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    /* A caller's frame holds its return address: the call is the instruction before. */
    u->pcs[u->count++] = activation || pc == 0 ? pc : pc - 1;
    return u->count < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t pd_unwind(pd_unwinder *u, uint32_t pid, const uint64_t *regs, const uint8_t *stack,
                 size_t stack_size, bool big, uint64_t *pcs, size_t max)
{
    unwind_process *p = process_find(u, pid);
    if (!p || !p->dwfl || max == 0)
        return 0;
    u->regs = regs;
    u->stack = stack;
    u->stack_size = stack_size;
    u->big = big;
    u->pcs = pcs;
    u->count = 0;
    u->max = max;
    /* An error ends the frames (the stack copy ends, no CFI for a frame): those before stay. */
    dwfl_getthread_frames(p->dwfl, (pid_t)pid, take_frame, u);
    return u->count;
}
