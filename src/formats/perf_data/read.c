/* SPDX-License-Identifier: MIT */
/* Reads perf.data into the model, streaming the records: memory grows with threads, mappings,
 * distinct addresses and stacks, never with the samples.
 *
 * The model is the one the perf script reader makes of `perf script` text (formats/
 * perf_script/), so that a file converts the same whichever way it is read:
 * - a thread per pid/tid, named by its latest command name (COMM, inherited at FORK);
 * - each stack's root frame is the command name at the sample (blanks made '_');
 * - each event is two values, its summed periods (named by the event) and its sample count
 *   (`EVENT-samples`), declared in the order events first have samples; the first is the
 *   default;
 * - frames: a user address in a mapping of its process (MMAP, MMAP2) is left for the
 *   symbolization pass (profkit/symbolize.h) with the mapping as resource; a kernel address is
 *   named from /proc/kallsyms when the file's kernel is the running one; an address nothing
 *   names is named as perf script names it (`[unknown]`, `[DSO]`);
 * - every timed sample goes to its thread's timeline.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/path.h"
#include "core/perf_map.h"
#include "core/symbolize.h"
#include "formats/perf_data/chains.h"
#include "formats/perf_data/order.h"
#include "formats/perf_data/perf_data.h"
#include "formats/perf_data/unwind.h"
#include "formats/perf_events/perf_events.h"
#include "profkit/symbolize.h"
#include "profkit/timeline.h"

/* User frames unwound at most (perf's default --max-stack). */
#define PD_UNWIND_MAX 127

/* MAP_HUGETLB in an MMAP2 record's flags (Linux's value). */
#define PD_MAP_HUGETLB 0x40000u

/* Each event takes two of the model's values. */
#define PD_MAX_EVENTS (PK_MAX_VALUES / 2)

/* A mapping of a process: [start, end) of the file at pgoff. */
typedef struct pd_map {
    uint64_t start, end, pgoff;
    uint32_t path;     /* string */
    uint32_t build_id; /* string, 0 for none */
    uint32_t resource; /* PK_NONE until an address in it is seen */
} pd_map;

typedef struct pd_process {
    pd_map *maps; /* sorted by start, not overlapping */
    size_t count, cap;
    uint64_t version; /* changes with the mappings (for the unwinder) */
} pd_process;

typedef struct pd_thread {
    uint32_t pid, tid;
    uint32_t comm;        /* string; 0 until known */
    uint32_t model;       /* model thread, PK_NONE until its first sample */
    uint32_t root_comm;   /* the comm root_stack was made for */
    uint32_t root_stack;
} pd_thread;

typedef struct pd_event {
    const pd_attr *attr;
    uint32_t period, count; /* value indexes, PK_NONE until its first sample */
} pd_event;

typedef struct pd_symbol {
    uint64_t address;
    uint32_t name, len; /* in pd_reader.symbol_names; interned when a frame needs it */
} pd_symbol;

typedef struct pd_reader {
    pk_profile *p;
    pd_file file;
    bool big;

    pd_thread *threads;
    size_t thread_count, thread_cap;
    pk_u64map thread_index; /* tid -> thread */
    pd_process *processes;
    size_t process_count, process_cap;
    pk_u64map process_index; /* pid -> process; the kernel's is pid -1 */

    pd_event events[PD_MAX_EVENTS];
    size_t event_count;
    uint64_t dropped_samples;

    pk_u64map frame_cache; /* hash of (address, resource) -> frame, checked */
    pd_chains chains;      /* callchains seen -> stacks, cleared when mappings change */
    pk_u64map roots;       /* comm string -> root stack */
    uint32_t *frames, *ordered;
    size_t frames_cap, ordered_cap;

    /* DWARF unwinding of user stacks (unwind.h). */
    int unwind_state; /* 0 not tried, 1 unwinding, -1 not possible */
    pd_unwinder *unwinder;
    bool unwind_other_arch;
    uint64_t unwound, unwind_failed;

    /* The kernel's symbols, when this machine's kallsyms is the file's kernel. */
    int kallsyms_state; /* 0 not tried, 1 loaded, -1 not usable */
    pd_symbol *symbols;
    size_t symbol_count, symbol_cap;
    char *symbol_names;
    size_t symbol_names_len, symbol_names_cap;
    uint64_t kernel_text; /* where the file says the kernel's text is mapped, 0 unknown */
    uint32_t kernel_resource;

    /* Build ids by path (pipe files carry them before the records). */
    pk_u64map build_ids; /* path string -> build id string */

    uint64_t samples, lost, lost_samples, throttles, unthrottles, unknown_id_samples;
    uint64_t skipped_kinds[128];
    uint64_t other_records;
    bool have_time;
    uint64_t first_ns, last_ns;
    size_t event_properties;
    bool timeline_io_failed;
    bool cut; /* the input ended inside the data section */
    uint64_t late_records; /* delivered after a later record had been (order.h) */
    uint64_t fork_versions;
} pd_reader;

static pk_status nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* ---- threads and processes ------------------------------------------------------------------ */

static pd_thread *thread_of(pd_reader *r, uint32_t pid, uint32_t tid)
{
    uint32_t *known = pk_u64map_find(&r->thread_index, tid);
    if (known) {
        pd_thread *t = &r->threads[*known];
        if (t->pid == pid)
            return t;
    }
    if (!PK_ARRAY_RESERVE(r->threads, r->thread_cap, r->thread_count + 1))
        return NULL;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->thread_index, tid, (uint32_t)r->thread_count, &slot, &inserted))
        return NULL;
    *slot = (uint32_t)r->thread_count;
    pd_thread *t = &r->threads[r->thread_count++];
    *t = (pd_thread){pid, tid, 0, PK_NONE, 0, PK_NONE};
    return t;
}

static pd_process *process_of(pd_reader *r, uint32_t pid, bool create)
{
    uint32_t *known = pk_u64map_find(&r->process_index, pid);
    if (known)
        return &r->processes[*known];
    if (!create || !PK_ARRAY_RESERVE(r->processes, r->process_cap, r->process_count + 1))
        return NULL;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->process_index, pid, (uint32_t)r->process_count, &slot, &inserted))
        return NULL;
    *slot = (uint32_t)r->process_count;
    pd_process *proc = &r->processes[r->process_count++];
    memset(proc, 0, sizeof *proc);
    return proc;
}

/* Index of the first mapping that ends after address. */
static size_t map_lower_bound(const pd_process *proc, uint64_t address)
{
    size_t lo = 0, hi = proc->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (proc->maps[mid].end <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const pd_map *map_find(const pd_process *proc, uint64_t address)
{
    if (!proc)
        return NULL;
    size_t i = map_lower_bound(proc, address);
    return i < proc->count && proc->maps[i].start <= address ? &proc->maps[i] : NULL;
}

/* Adds a mapping; the parts of older ones it covers are gone, as in the process. */
static bool map_insert(pd_process *proc, pd_map m)
{
    if (m.end <= m.start)
        return true;
    /* Room for the new one and a split old one. */
    if (!PK_ARRAY_RESERVE(proc->maps, proc->cap, proc->count + 2))
        return false;
    size_t i = map_lower_bound(proc, m.start);
    if (i < proc->count && proc->maps[i].start < m.start && proc->maps[i].end > m.end) {
        /* Inside an older one: split it in two around the new one. */
        pd_map tail = proc->maps[i];
        tail.pgoff += m.end - tail.start;
        tail.start = m.end;
        proc->maps[i].end = m.start;
        memmove(&proc->maps[i + 2], &proc->maps[i + 1],
                (proc->count - i - 1) * sizeof *proc->maps);
        proc->maps[i + 1] = m;
        proc->maps[i + 2] = tail;
        proc->count += 2;
        return true;
    }
    if (i < proc->count && proc->maps[i].start < m.start) {
        proc->maps[i].end = m.start; /* its head stays */
        i++;
    }
    size_t j = i;
    while (j < proc->count && proc->maps[j].end <= m.end)
        j++; /* wholly covered */
    if (j < proc->count && proc->maps[j].start < m.end) {
        proc->maps[j].pgoff += m.end - proc->maps[j].start;
        proc->maps[j].start = m.end; /* its tail stays */
    }
    /* Replace [i, j) by m. */
    if (j == i) {
        memmove(&proc->maps[i + 1], &proc->maps[i], (proc->count - i) * sizeof *proc->maps);
        proc->count++;
    } else if (j > i + 1) {
        memmove(&proc->maps[i + 1], &proc->maps[j], (proc->count - j) * sizeof *proc->maps);
        proc->count -= j - i - 1;
    }
    proc->maps[i] = m;
    return true;
}

/* ---- kernel symbols ------------------------------------------------------------------------- */

static int symbol_order(const void *a, const void *b)
{
    uint64_t x = ((const pd_symbol *)a)->address, y = ((const pd_symbol *)b)->address;
    return x < y ? -1 : x > y;
}

/* Loads this machine's kernel text symbols when its kernel text is where the file's was (the
 * same kernel, booted at the same place): otherwise they would name the wrong code. */
static void load_kallsyms(pd_reader *r)
{
    r->kallsyms_state = -1;
    if (!r->kernel_text)
        return;
    FILE *f = fopen("/proc/kallsyms", "r");
    if (!f)
        return;
    char line[512];
    bool text_matches = false;
    while (fgets(line, sizeof line, f)) {
        char *end;
        unsigned long long address = strtoull(line, &end, 16);
        if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
            continue;
        char type = end[1];
        char *name = end + 3;
        size_t len = strcspn(name, "\t\n");
        if (len == 5 && memcmp(name, "_text", 5) == 0)
            text_matches = address == r->kernel_text;
        if (address == 0 || !strchr("tTwW", type))
            continue;
        if (len > 1024 || r->symbol_names_len > UINT32_MAX - 2048 ||
            !PK_ARRAY_RESERVE(r->symbol_names, r->symbol_names_cap, r->symbol_names_len + len) ||
            !PK_ARRAY_RESERVE(r->symbols, r->symbol_cap, r->symbol_count + 1))
            break;
        memcpy(r->symbol_names + r->symbol_names_len, name, len);
        r->symbols[r->symbol_count++] =
            (pd_symbol){address, (uint32_t)r->symbol_names_len, (uint32_t)len};
        r->symbol_names_len += len;
    }
    fclose(f);
    if (!text_matches || r->symbol_count == 0) {
        free(r->symbols);
        free(r->symbol_names);
        r->symbols = NULL;
        r->symbol_names = NULL;
        r->symbol_count = r->symbol_cap = r->symbol_names_len = r->symbol_names_cap = 0;
        return;
    }
    qsort(r->symbols, r->symbol_count, sizeof *r->symbols, symbol_order);
    r->kallsyms_state = 1;
}

static uint32_t kernel_symbol(pd_reader *r, uint64_t address)
{
    if (r->kallsyms_state == 0)
        load_kallsyms(r);
    if (r->kallsyms_state != 1)
        return PK_NONE;
    /* load_kallsyms keeps the table (state 1) only when it holds a symbol. */
    assert(r->symbols != NULL && r->symbol_count > 0);
    if (address < r->symbols[0].address)
        return PK_NONE;
    size_t lo = 0, hi = r->symbol_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->symbols[mid].address <= address)
            lo = mid;
        else
            hi = mid;
    }
    return pk_intern(r->p, r->symbol_names + r->symbols[lo].name, r->symbols[lo].len);
}

/* ---- frames --------------------------------------------------------------------------------- */

static uint32_t named_frame(pk_profile *p, uint32_t name, uint32_t resource, uint64_t address,
                            uint32_t flags)
{
    pk_function fn = {.name = name, .resource = resource};
    uint32_t function = name == PK_NONE ? PK_NONE : pk_intern_function(p, &fn);
    if (function == PK_NONE)
        return PK_NONE;
    pk_frame frame = {function, 0, address, resource, flags};
    return pk_intern_frame(p, &frame);
}

/* The resource of a mapping, made at its first address. */
static uint32_t map_resource(pd_reader *r, pd_map *m)
{
    if (m->resource != PK_NONE)
        return m->resource;
    const char *path = pk_str(r->p, m->path);
    uint32_t build_id = m->build_id;
    if (!build_id) {
        uint32_t *known = pk_u64map_find(&r->build_ids, m->path);
        build_id = known ? *known : 0;
    }
    pk_resource res = {pk_intern_cstr(r->p, pk_path_basename(path)), m->path, build_id,
                       m->start, m->end, m->pgoff};
    m->resource = res.name == PK_NONE ? PK_NONE : pk_intern_resource(r->p, &res);
    return m->resource;
}

static uint32_t kernel_resource(pd_reader *r)
{
    if (r->kernel_resource == PK_NONE) {
        uint32_t name = pk_intern_cstr(r->p, "[kernel.kallsyms]");
        pk_resource res = {name, name, 0, 0, 0, 0};
        r->kernel_resource = name == PK_NONE ? PK_NONE : pk_intern_resource(r->p, &res);
    }
    return r->kernel_resource;
}

/* A frame perf script would show as `[unknown] (DSO)`: named `[DSO's base name]`, or
 * `[unknown]` without a DSO, as the perf script reader names it. */
static uint32_t unknown_frame(pd_reader *r, uint32_t resource, uint64_t address)
{
    uint32_t name;
    if (resource == PK_NONE) {
        name = pk_intern_cstr(r->p, "[unknown]");
    } else {
        const char *path = pk_str(r->p, pk_resource_at(r->p, resource)->path);
        name = pk_intern_printf(r->p, "[%s]", pk_path_basename(path));
    }
    return named_frame(r->p, name, resource, address, PK_FRAME_HAS_ADDRESS);
}

/* The frame of an address of process proc (NULL: none known), kernel or user. */
static uint32_t frame_of(pd_reader *r, pd_process *proc, uint64_t address, bool kernel)
{
    pd_map *m = NULL;
    uint32_t resource = PK_NONE;
    if (kernel) {
        resource = kernel_resource(r);
    } else {
        m = (pd_map *)map_find(proc, address);
        if (m) {
            resource = map_resource(r, m);
            if (resource == PK_NONE)
                return PK_NONE;
        }
    }
    uint64_t key = pk_hash_u64(address ^ ((uint64_t)resource << 40) ^ resource);
    uint32_t *known = pk_u64map_find(&r->frame_cache, key);
    if (known) {
        const pk_frame *f = pk_frame_at(r->p, *known);
        if (f->address == address && f->resource == resource)
            return *known;
    }
    uint32_t frame;
    if (kernel) {
        uint32_t symbol = kernel_symbol(r, address);
        frame = symbol != PK_NONE ? named_frame(r->p, symbol, resource, address,
                                                PK_FRAME_HAS_ADDRESS)
                                  : unknown_frame(r, resource, address);
    } else if (!m) {
        frame = unknown_frame(r, PK_NONE, address);
    } else {
        const char *path = pk_str(r->p, m->path);
        if (path[0] != '/' || path[1] == '/') {
            /* [vdso], [vsyscall], //anon data: no file to read symbols from. */
            frame = unknown_frame(r, resource, address);
        } else {
            /* Named by the symbolization pass from the binary. */
            frame = named_frame(r->p, pk_address_name(r->p, address), resource, address,
                                PK_FRAME_HAS_ADDRESS);
        }
    }
    uint32_t *slot;
    bool inserted;
    if (frame != PK_NONE && pk_u64map_put(&r->frame_cache, key, frame, &slot, &inserted))
        *slot = frame;
    return frame;
}

/* The stack of the root frame alone: the command name, blanks made '_'. */
static uint32_t root_stack(pd_reader *r, pd_thread *t)
{
    if (t->root_stack != PK_NONE && t->root_comm == t->comm)
        return t->root_stack;
    uint32_t comm = t->comm;
    if (!comm) {
        /* perf names a thread it saw no command of by its id. */
        comm = pk_intern_printf(r->p, ":%u", t->tid);
        if (comm == PK_NONE)
            return PK_NONE;
    }
    uint32_t *known = pk_u64map_find(&r->roots, comm);
    uint32_t stack;
    if (known) {
        stack = *known;
    } else {
        const char *name = pk_str(r->p, comm);
        size_t len = pk_str_len(r->p, comm);
        char *tidy = malloc(len + 1);
        if (!tidy)
            return PK_NONE;
        for (size_t i = 0; i < len; i++)
            tidy[i] = name[i] == ' ' ? '_' : name[i];
        uint32_t frame = named_frame(r->p, pk_intern(r->p, tidy, len), PK_NONE, 0, 0);
        free(tidy);
        stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(r->p, PK_NONE, frame);
        uint32_t *slot;
        bool inserted;
        if (stack == PK_NONE || !pk_u64map_put(&r->roots, comm, stack, &slot, &inserted))
            return PK_NONE;
    }
    t->root_comm = t->comm;
    t->root_stack = stack;
    return stack;
}

static uint32_t model_thread(pd_reader *r, pd_thread *t)
{
    uint32_t comm = t->comm ? t->comm : pk_intern_printf(r->p, ":%u", t->tid);
    if (comm == PK_NONE)
        return PK_NONE;
    if (t->model == PK_NONE)
        t->model = pk_add_thread(r->p, comm, (int32_t)t->pid, (int32_t)t->tid);
    else if (pk_thread_at(r->p, t->model)->name != comm)
        pk_thread_rename(r->p, t->model, comm);
    return t->model;
}

/* ---- events --------------------------------------------------------------------------------- */

/* The event of an attribute, its values declared at its first sample; NULL past the events the
 * model holds, and *failed when memory runs out. */
static pd_event *event_of(pd_reader *r, const pd_attr *a, bool *failed)
{
    *failed = false;
    for (size_t i = 0; i < r->event_count; i++)
        if (r->events[i].attr == a)
            return &r->events[i];
    if (r->event_count == PD_MAX_EVENTS)
        return NULL;
    char buf[64];
    const char *full = a->name ? a->name : pd_attr_default_name(a, buf, sizeof buf);
    char value_name[PERF_VALUE_NAME_SIZE];
    perf_event_value_name(r->p, full, strlen(full), value_name);
    pd_event *e = &r->events[r->event_count];
    e->attr = a;
    if (!perf_event_declare_values(r->p, value_name,
                                   perf_event_is_clock(value_name, strlen(value_name)),
                                   r->event_count == 0, &e->period, &e->count)) {
        *failed = true;
        return NULL;
    }
    r->event_count++;
    return e;
}

/* ---- DWARF unwinding (unwind.h) ------------------------------------------------------------ */

/* Whether a sample's user stack is to be unwound: it has the user registers and a stack copy,
 * and its callchain no user part (perf record --call-graph dwarf asks the kernel for none). */
static bool wants_unwinding(pd_reader *r, const pd_attr *a, const pd_sample *s)
{
    if (r->unwind_other_arch || !(a->sample_type & PD_SAMPLE_REGS_USER) ||
        !(a->sample_type & PD_SAMPLE_STACK_USER) || s->regs_user_abi == 0 ||
        s->stack_user_size == 0)
        return false;
    if (a->sample_type & PD_SAMPLE_CALLCHAIN) {
        bool user = false;
        for (uint64_t i = 0; i < s->callchain_nr; i++) {
            uint64_t ip = pd_u64(s->callchain + 8 * i, r->big);
            if (ip >= PD_CONTEXT_MAX)
                user = ip == PD_CONTEXT_USER;
            else if (user)
                return false;
        }
    }
    if (r->unwind_state == 0) {
        /* x86-64's registers only (abi 2: 64-bit). */
        const char *arch = pk_property_get(r->p, "arch");
        if (s->regs_user_abi != 2 || (arch && strcmp(arch, "x86_64") != 0)) {
            r->unwind_state = -1;
            r->unwind_other_arch = true;
            return false;
        }
        r->unwinder = pd_unwinder_new();
        r->unwind_state = r->unwinder ? 1 : -1;
    }
    /* Not unwound (--no-unwind): the user instruction pointer, as the callchain lacks it. */
    return true;
}

/* How many of the callchain's entries come before its user part. */
static uint64_t kernel_part(pd_reader *r, const pd_sample *s)
{
    for (uint64_t i = 0; i < s->callchain_nr; i++)
        if (pd_u64(s->callchain + 8 * i, r->big) == PD_CONTEXT_USER)
            return i;
    return s->callchain_nr;
}

/* The user frames of a sample, innermost first, into frames (room for PD_UNWIND_MAX); SIZE_MAX
 * when memory runs out. When nothing unwinds, the user instruction pointer alone. */
static size_t unwind_user_stack(pd_reader *r, pd_process *proc, const pd_attr *a,
                                const pd_sample *s, uint32_t *frames)
{
    uint64_t regs[PD_UNWIND_REGS];
    if (!pd_unwind_registers(a->regs_user, s->regs_user, r->big, regs))
        return 0;
    if (r->unwind_state != 1) {
        frames[0] = frame_of(r, proc, regs[PD_UNWIND_REGS - 1], false);
        return frames[0] == PK_NONE ? SIZE_MAX : 1;
    }
    uint64_t version = proc ? proc->version : 0;
    if (!pd_unwinder_knows(r->unwinder, s->pid, version)) {
        pd_unwind_module *modules = proc && proc->count ? malloc(proc->count * sizeof *modules)
                                                        : NULL;
        size_t count = 0;
        if (proc && proc->count && !modules)
            return SIZE_MAX;
        for (size_t i = 0; proc && i < proc->count; i++) {
            const pd_map *m = &proc->maps[i];
            const char *path = pk_str(r->p, m->path);
            if (path[0] != '/' || path[1] == '/' || pk_perf_map_is_name(pk_path_basename(path)))
                continue;
            uint32_t build_id = m->build_id;
            if (!build_id) {
                uint32_t *known = pk_u64map_find(&r->build_ids, m->path);
                build_id = known ? *known : 0;
            }
            modules[count++] = (pd_unwind_module){path, pk_str(r->p, build_id), m->start, m->end,
                                                  m->pgoff};
        }
        bool ok = pd_unwinder_set_process(r->unwinder, s->pid, version, modules, count);
        free(modules);
        if (!ok)
            return SIZE_MAX;
    }
    size_t stack_size = (size_t)s->stack_user_size;
    if (s->stack_user_dyn_size && s->stack_user_dyn_size < stack_size)
        stack_size = (size_t)s->stack_user_dyn_size;
    uint64_t pcs[PD_UNWIND_MAX];
    size_t n = pd_unwind(r->unwinder, s->pid, regs, s->stack_user, stack_size, r->big, pcs,
                         PD_UNWIND_MAX);
    if (n == 0) {
        pcs[n++] = regs[PD_UNWIND_REGS - 1];
        r->unwind_failed++;
    } else {
        r->unwound++;
    }
    for (size_t i = 0; i < n; i++) {
        frames[i] = frame_of(r, proc, pcs[i], false);
        if (frames[i] == PK_NONE)
            return SIZE_MAX;
    }
    return n;
}

/* ---- last-branch records ------------------------------------------------------------------- */

/* Whether a sample's user frames are in its last-branch record used as a call stack (`perf
 * record --call-graph lbr`): the branch stack holds the calls that led to the sample, the most
 * recent first, and the callchain its kernel part with a user part perf does not use. */
static bool lbr_call_stack(pd_reader *r, const pd_attr *a, const pd_sample *s)
{
    return (a->sample_type & PD_SAMPLE_CALLCHAIN) && (a->sample_type & PD_SAMPLE_BRANCH_STACK) &&
           (a->branch_sample_type & PD_BRANCH_CALL_STACK) && s->branch_nr > 0 &&
           kernel_part(r, s) < s->callchain_nr;
}

/* The user frames of such a sample, innermost first, into frames (room for branch_nr + 1), as
 * perf resolves them: the most recent call's target (the function the sample is in), then the
 * call sites, the most recent first; SIZE_MAX when memory runs out. */
static size_t lbr_user_stack(pd_reader *r, pd_process *proc, const pd_sample *s, uint32_t *frames)
{
    size_t n = 0;
    frames[n++] = frame_of(r, proc, pd_u64(s->branches + 8, r->big), false);
    for (uint64_t i = 0; i < s->branch_nr && frames[n - 1] != PK_NONE; i++)
        frames[n++] = frame_of(r, proc, pd_u64(s->branches + 24 * i, r->big), false);
    return frames[n - 1] == PK_NONE ? SIZE_MAX : n;
}

/* ---- records -------------------------------------------------------------------------------- */

/* The stack of a sample: its root, then its frames root first; PK_NONE when memory runs out. */
static uint32_t stack_of(pd_reader *r, const pd_attr *a, const pd_record *rec,
                         const pd_sample *s, uint32_t root)
{
    /* The addresses, leaf first: the callchain (context markers say kernel or user), or the
     * sample's address alone; with a user stack copy and no user part in the callchain
     * (--call-graph dwarf), the callchain's kernel part, then the user stack unwound. */
    size_t n = 0;
    bool unwinding = wants_unwinding(r, a, s);
    bool lbr = !unwinding && lbr_call_stack(r, a, s);
    bool has_chain = (a->sample_type & PD_SAMPLE_CALLCHAIN) != 0;
    uint64_t count = has_chain ? s->callchain_nr : 1;
    unsigned mode = rec->misc & PD_MISC_CPUMODE_MASK;
    /* A callchain seen before is one lookup (chains.h); not an unwound one, whose stack copy
     * decides its stack, nor one whose branch record does. */
    uint8_t ip_bytes[8];
    memcpy(ip_bytes, &s->ip, sizeof ip_bytes);
    pd_chain_key key = {0};
    bool cached = !unwinding && !lbr;
    if (cached) {
        key = pd_chain_key_of(has_chain ? s->callchain : ip_bytes, 8 * (size_t)count, s->pid,
                              mode, root);
        uint32_t known = pd_chains_find(&r->chains, &key);
        if (known != PK_NONE)
            return known;
    }
    pd_process *proc = process_of(r, s->pid, false);
    if (unwinding || lbr)
        count = kernel_part(r, s);
    size_t user_room = lbr ? (size_t)s->branch_nr + 1 : PD_UNWIND_MAX;
    if (!PK_ARRAY_RESERVE(r->frames, r->frames_cap, (size_t)count + user_room + 1) ||
        !PK_ARRAY_RESERVE(r->ordered, r->ordered_cap, (size_t)count + user_room + 1))
        return PK_NONE;
    bool kernel = mode == PD_MISC_KERNEL;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t ip = has_chain ? pd_u64(s->callchain + 8 * i, r->big) : s->ip;
        if (ip >= PD_CONTEXT_MAX) {
            kernel = ip == PD_CONTEXT_KERNEL || ip == PD_CONTEXT_GUEST_KERNEL;
            continue;
        }
        uint32_t frame = frame_of(r, proc, ip, kernel);
        if (frame == PK_NONE)
            return PK_NONE;
        r->frames[n++] = frame;
    }
    if (unwinding || lbr) {
        size_t user = unwinding ? unwind_user_stack(r, proc, a, s, r->frames + n)
                                : lbr_user_stack(r, proc, s, r->frames + n);
        if (user == SIZE_MAX)
            return PK_NONE;
        n += user;
    }
    for (size_t i = 0; i < n; i++)
        r->ordered[i] = r->frames[n - 1 - i];
    uint32_t stack = n ? pk_intern_stack_frames(r->p, root, r->ordered, n) : root;
    if (stack == PK_NONE || (cached && !pd_chains_add(&r->chains, &key, stack)))
        return PK_NONE;
    return stack;
}

static pk_status take_sample(pd_reader *r, const pd_record *rec, pk_error *err)
{
    const pd_attr *a = pd_attr_of(&r->file, rec);
    if (!a) {
        r->unknown_id_samples++;
        return PK_OK;
    }
    pd_sample s;
    const char *why = pd_parse_sample(a, rec->body, rec->body_size, r->big, &s);
    if (why)
        return pk_damage(err, rec->offset, "sample: %s", why);
    bool failed;
    pd_event *e = event_of(r, a, &failed);
    if (failed)
        return nomem(err);
    if (!e) {
        r->dropped_samples++;
        return PK_OK;
    }
    pd_thread *t = thread_of(r, s.pid, s.tid);
    if (!t)
        return nomem(err);
    uint32_t thread = model_thread(r, t);
    uint32_t root = root_stack(r, t);
    if (thread == PK_NONE || root == PK_NONE)
        return nomem(err);
    uint32_t stack = stack_of(r, a, rec, &s, root);
    if (stack == PK_NONE)
        return nomem(err);
    /* No period, or 0, counts 1, as the perf script reader counts it. */
    int64_t period = s.period > 0 && s.period <= INT64_MAX ? (int64_t)s.period : 1;
    size_t row = pk_sample_row(r->p, thread, stack);
    if (row == SIZE_MAX)
        return nomem(err);
    pk_sample_row_add(r->p, row, e->period, period);
    pk_sample_row_add(r->p, row, e->count, 1);
    r->samples++;
    if ((a->sample_type & PD_SAMPLE_TIME) && s.time <= INT64_MAX) {
        int64_t values[PK_MAX_VALUES];
        memset(values, 0, pk_value_type_count(r->p) * sizeof *values);
        values[e->period] = period;
        values[e->count] = 1;
        pk_status status = pk_timeline_append(r->p, thread, stack, (int64_t)s.time, 0, values);
        if (status != PK_OK) {
            r->timeline_io_failed = status == PK_ERR_IO;
            return nomem(err);
        }
        if (!r->have_time || s.time < r->first_ns)
            r->first_ns = s.time;
        if (!r->have_time || s.time > r->last_ns)
            r->last_ns = s.time;
        r->have_time = true;
    } else if (pk_timeline_drop(r->p, thread) != PK_OK) {
        return nomem(err); /* a sample without a time: in the rows, so not in a timeline */
    }
    return PK_OK;
}

/* A NUL-terminated name at body[pos] within the record, or NULL. */
static const char *record_string(const pd_record *rec, size_t pos, size_t *len)
{
    if (pos >= rec->body_size)
        return NULL;
    const char *s = (const char *)rec->body + pos;
    const char *nul = memchr(s, '\0', rec->body_size - pos);
    if (!nul)
        return NULL;
    *len = (size_t)(nul - s);
    return s;
}

static pk_status take_comm(pd_reader *r, const pd_record *rec, pk_error *err)
{
    size_t len;
    const char *name = rec->body_size >= 8 ? record_string(rec, 8, &len) : NULL;
    if (!name)
        return pk_damage(err, rec->offset, "COMM record without a NUL-terminated name");
    pd_thread *t = thread_of(r, pd_u32(rec->body, r->big), pd_u32(rec->body + 4, r->big));
    uint32_t comm = t ? pk_intern(r->p, name, len) : PK_NONE;
    if (comm == PK_NONE)
        return nomem(err);
    t->comm = comm;
    return PK_OK;
}

static pk_status take_fork(pd_reader *r, const pd_record *rec, pk_error *err)
{
    if (rec->body_size < 16)
        return pk_damage(err, rec->offset, "FORK record of %u bytes: shorter than its ids",
                         rec->size);
    uint32_t pid = pd_u32(rec->body, r->big), ppid = pd_u32(rec->body + 4, r->big);
    uint32_t tid = pd_u32(rec->body + 8, r->big), ptid = pd_u32(rec->body + 12, r->big);
    uint32_t *parent_index = pk_u64map_find(&r->thread_index, ptid);
    uint32_t comm = parent_index ? r->threads[*parent_index].comm : 0;
    pd_thread *t = thread_of(r, pid, tid);
    if (!t)
        return nomem(err);
    if (comm && t->model == PK_NONE)
        t->comm = comm;
    if (pid != ppid) {
        /* A new process starts with its parent's mappings. */
        pd_process *parent = process_of(r, ppid, false);
        if (parent && parent->count && !process_of(r, pid, false)) {
            size_t parent_at = (size_t)(parent - r->processes);
            pd_process *child = process_of(r, pid, true);
            if (!child)
                return nomem(err);
            parent = &r->processes[parent_at];
            child->maps = malloc(parent->count * sizeof *child->maps);
            if (!child->maps)
                return nomem(err);
            memcpy(child->maps, parent->maps, parent->count * sizeof *child->maps);
            child->count = child->cap = parent->count;
            child->version = ++r->fork_versions << 32; /* not a version the pid had before */
            pd_chains_clear(&r->chains); /* a pid seen before may be a new process */
        }
    }
    return PK_OK;
}

/* Memory perf takes for a JIT's when it is executable: anonymous (`//anon`, `/dev/zero`,
 * huge pages) or without a file (`[heap]`, `[stack]`, System V shared memory). */
static bool jit_memory(const char *path, size_t len)
{
    static const char *const prefixes[] = {"/dev/zero", "/anon_hugepage", "[stack", "/SYSV"};
    if ((len == 6 && memcmp(path, "//anon", 6) == 0) || (len == 6 && memcmp(path, "[heap]", 6) == 0))
        return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static pk_status take_mmap(pd_reader *r, const pd_record *rec, pk_error *err)
{
    bool two = rec->type == PD_RECORD_MMAP2;
    size_t name_at = two ? 64 : 32;
    size_t len;
    const char *path = rec->body_size >= name_at ? record_string(rec, name_at, &len) : NULL;
    if (!path)
        return pk_damage(err, rec->offset, "%s record without a NUL-terminated file name",
                         two ? "MMAP2" : "MMAP");
    uint32_t pid = pd_u32(rec->body, r->big);
    pd_map m = {pd_u64(rec->body + 8, r->big), 0, pd_u64(rec->body + 24, r->big), 0, 0, PK_NONE};
    uint64_t size = pd_u64(rec->body + 16, r->big);
    m.end = size > UINT64_MAX - m.start ? UINT64_MAX : m.start + size;
    if (two) {
        uint32_t prot = pd_u32(rec->body + 56, r->big);
        if (!(prot & 4)) /* PROT_EXEC: data mappings hold no code */
            return PK_OK;
        if ((rec->misc & PD_MISC_MMAP_BUILD_ID) && rec->body[32] > 0 && rec->body[32] <= 20) {
            char hex[41];
            for (unsigned i = 0; i < rec->body[32]; i++)
                snprintf(hex + 2 * i, 3, "%02x", rec->body[36 + i]);
            m.build_id = pk_intern_cstr(r->p, hex);
        }
    } else if (rec->misc & (1u << 13)) { /* PERF_RECORD_MISC_MMAP_DATA */
        return PK_OK;
    }
    /* Anonymous executable memory is JIT code: perf names it from the process's JIT map, and
     * so does the symbolization pass (core/perf_map.h), looking it up where perf does. */
    char jit_map[40];
    uint32_t flags = two ? pd_u32(rec->body + 60, r->big) : 0;
    if (pid != UINT32_MAX && (jit_memory(path, len) || (flags & PD_MAP_HUGETLB))) {
        snprintf(jit_map, sizeof jit_map, "/tmp/perf-%u.map", pid);
        path = jit_map;
        len = strlen(jit_map);
    }
    m.path = pk_intern(r->p, path, len);
    if (m.path == PK_NONE || m.build_id == PK_NONE)
        return nomem(err);
    if (pid == UINT32_MAX && len >= 17 && memcmp(path, "[kernel.kallsyms]", 17) == 0 &&
        !r->kernel_text)
        r->kernel_text = m.start;
    pd_process *proc = process_of(r, pid, true);
    if (!proc || !map_insert(proc, m))
        return nomem(err);
    proc->version++;
    pd_chains_clear(&r->chains); /* its addresses may be other frames now */
    return PK_OK;
}

/* ---- features ------------------------------------------------------------------------------- */

static bool set_property(pd_reader *r, const char *key, const char *text, size_t len)
{
    char *v = malloc(len + 1);
    if (!v)
        return false;
    memcpy(v, text, len);
    v[len] = '\0';
    bool ok = pk_property_set(r->p, key, v) == PK_OK;
    free(v);
    return ok;
}

static void take_build_ids(pd_reader *r, const uint8_t *d, size_t n)
{
    size_t count = 0;
    for (size_t pos = 0; n - pos >= 36;) {
        uint16_t size = pd_u16(d + pos + 6, r->big);
        if (size < 36 || size > n - pos)
            break;
        /* header, pid, 20 bytes of id (its length at byte 20 when misc says so), padding,
         * then the file name. */
        uint16_t misc = pd_u16(d + pos + 4, r->big);
        size_t id_len = (misc & (1u << 15)) && d[pos + 12 + 20] <= 20 ? d[pos + 12 + 20] : 20;
        const char *name = (const char *)d + pos + 36;
        size_t name_len = strnlen(name, size - 36u);
        char hex[41];
        for (size_t i = 0; i < id_len; i++)
            snprintf(hex + 2 * i, 3, "%02x", d[pos + 12 + i]);
        hex[2 * id_len] = '\0';
        uint32_t path = pk_intern(r->p, name, name_len), id = pk_intern_cstr(r->p, hex);
        uint32_t *slot;
        bool inserted;
        if (path != PK_NONE && id != PK_NONE &&
            pk_u64map_put(&r->build_ids, path, id, &slot, &inserted))
            *slot = id;
        count++;
        pos += size;
    }
    char text[32];
    snprintf(text, sizeof text, "%zu", count);
    pk_property_set(r->p, "build ids", text);
}

/* One feature section's bytes into properties (the keys perf script --header shows). */
static void take_feature(pd_reader *r, unsigned bit, const uint8_t *d, size_t n)
{
    static const char *const string_keys[] = {
        [PD_FEAT_HOSTNAME] = "hostname", [PD_FEAT_OSRELEASE] = "os release",
        [PD_FEAT_VERSION] = "perf version", [PD_FEAT_ARCH] = "arch",
        [PD_FEAT_CPUDESC] = "cpudesc", [PD_FEAT_CPUID] = "cpuid"};
    size_t pos = 0;
    const char *text;
    size_t len;
    char buf[64];
    if (bit < sizeof string_keys / sizeof *string_keys && string_keys[bit]) {
        if (pd_string(d, n, &pos, r->big, &text, &len))
            set_property(r, string_keys[bit], text, len);
    } else if (bit == PD_FEAT_NRCPUS && n >= 8) {
        snprintf(buf, sizeof buf, "%u", pd_u32(d + 4, r->big));
        pk_property_set(r->p, "nrcpus online", buf);
        snprintf(buf, sizeof buf, "%u", pd_u32(d, r->big));
        pk_property_set(r->p, "nrcpus avail", buf);
    } else if (bit == PD_FEAT_TOTAL_MEM && n >= 8) {
        snprintf(buf, sizeof buf, "%llu kB", (unsigned long long)pd_u64(d, r->big));
        pk_property_set(r->p, "total memory", buf);
    } else if (bit == PD_FEAT_CMDLINE && n >= 4) {
        uint32_t count = pd_u32(d, r->big);
        pos = 4;
        char line[4096];
        size_t used = 0;
        line[0] = '\0';
        for (uint32_t i = 0; i < count && pd_string(d, n, &pos, r->big, &text, &len); i++) {
            int w = snprintf(line + used, sizeof line - used, "%s%.*s", i ? " " : "", (int)len,
                             text);
            if (w < 0 || (size_t)w >= sizeof line - used)
                break;
            used += (size_t)w;
        }
        pk_property_set(r->p, "cmdline", line);
    } else if (bit == PD_FEAT_EVENT_DESC && n >= 8) {
        uint32_t count = pd_u32(d, r->big), attr_size = pd_u32(d + 4, r->big);
        pos = 8;
        for (uint32_t i = 0; i < count && attr_size >= PD_ATTR_SIZE_VER0; i++) {
            if (n - pos < (size_t)attr_size + 4)
                break;
            pd_attr a;
            pd_decode_attr(d + pos, attr_size, r->big, &a);
            pos += attr_size;
            uint32_t ids = pd_u32(d + pos, r->big);
            pos += 4;
            if (!pd_string(d, n, &pos, r->big, &text, &len) || ids > (n - pos) / 8)
                break;
            uint64_t first_id = ids ? pd_u64(d + pos, r->big) : 0;
            pos += (size_t)ids * 8;
            /* The attribute it describes: by its first id, else in the same place. */
            pd_attr *named = NULL;
            for (size_t k = 0; k < r->file.attr_count && !named; k++)
                for (size_t j = 0; j < r->file.attrs[k].id_count && ids; j++)
                    if (r->file.attrs[k].ids[j] == first_id)
                        named = &r->file.attrs[k];
            if (!named && i < r->file.attr_count)
                named = &r->file.attrs[i];
            if (named && !named->name) {
                named->name = malloc(len + 1);
                if (named->name) {
                    memcpy(named->name, text, len);
                    named->name[len] = '\0';
                }
            }
            char key[32] = "event";
            if (++r->event_properties > 1)
                snprintf(key, sizeof key, "event %zu", r->event_properties);
            char value[512];
            snprintf(value, sizeof value, "name = %.*s, type = %u, config = 0x%llx, %s = %llu, "
                     "sample_type = 0x%llx, read_format = 0x%llx", (int)(len < 200 ? len : 200),
                     text, a.type, (unsigned long long)a.config, a.freq ? "sample_freq"
                                                                         : "sample_period",
                     (unsigned long long)a.period, (unsigned long long)a.sample_type,
                     (unsigned long long)a.read_format);
            pk_property_set(r->p, key, value);
        }
    } else if (bit == PD_FEAT_BUILD_ID) {
        take_build_ids(r, d, n);
    } else if (bit == PD_FEAT_COMPRESSED && n >= 20) {
        snprintf(buf, sizeof buf, "%s, level %u",
                 pd_u32(d + 4, r->big) == 1 ? "zstd" : "unknown", pd_u32(d + 8, r->big));
        pk_property_set(r->p, "compressed", buf);
    }
}

/* The feature sections after a file's data: a table of sections, one per feature bit set. */
static void take_file_features(pd_reader *r, pk_input *in)
{
    uint8_t *data;
    size_t size;
    uint64_t base;
    const char *why;
    if (!pd_read_features(in, &r->file, &data, &size, &base, &why)) {
        if (why)
            pk_warn(r->p, "feature sections not read: %s", why);
        return;
    }
    size_t table = 0;
    for (unsigned bit = 0; bit < PD_FEATURE_BITS; bit++) {
        if (!pd_has_feature(&r->file.header, bit))
            continue;
        if (size - table < 16) {
            pk_warn(r->p, "the feature table is cut short at byte %llu",
                    (unsigned long long)(base + table));
            break;
        }
        uint64_t offset = pd_u64(data + table, r->big), length = pd_u64(data + table + 8, r->big);
        table += 16;
        if (offset < base || offset - base > size || length > size - (offset - base)) {
            pk_warn(r->p, "feature %u (%s): its %llu bytes at byte %llu are not in the file",
                    bit, pd_feature_name(bit) ? pd_feature_name(bit) : "unknown",
                    (unsigned long long)length, (unsigned long long)offset);
            continue;
        }
        take_feature(r, bit, data + (offset - base), (size_t)length);
    }
    free(data);
}

/* ---- the reader ----------------------------------------------------------------------------- */

static pk_status take_record(pd_reader *r, pk_input *in, pd_records *records,
                             const pd_record *rec, pk_error *err)
{
    switch (rec->type) {
    case PD_RECORD_SAMPLE:
        return take_sample(r, rec, err);
    case PD_RECORD_COMM:
        return take_comm(r, rec, err);
    case PD_RECORD_FORK:
        return take_fork(r, rec, err);
    case PD_RECORD_MMAP:
    case PD_RECORD_MMAP2:
        return take_mmap(r, rec, err);
    case PD_RECORD_LOST:
        if (rec->body_size >= 16)
            r->lost += pd_u64(rec->body + 8, r->big);
        return PK_OK;
    case PD_RECORD_LOST_SAMPLES:
        if (rec->body_size >= 8)
            r->lost_samples += pd_u64(rec->body, r->big);
        return PK_OK;
    case PD_RECORD_THROTTLE:
        r->throttles++;
        return PK_OK;
    case PD_RECORD_UNTHROTTLE:
        r->unthrottles++;
        return PK_OK;
    case PD_RECORD_EXIT:
    case PD_RECORD_FINISHED_ROUND:
    case PD_RECORD_FINISHED_INIT:
        return PK_OK;
    case PD_RECORD_HEADER_ATTR:
        if (!r->file.header.pipe)
            break;
        return pd_add_pipe_attr(&r->file, rec, err);
    case PD_RECORD_HEADER_FEATURE:
        if (rec->body_size >= 8 && r->file.header.pipe)
            take_feature(r, (unsigned)pd_u64(rec->body, r->big), rec->body + 8,
                         rec->body_size - 8);
        return PK_OK;
    case PD_RECORD_HEADER_BUILD_ID:
        /* The record is one entry of the build id feature, header included. */
        take_build_ids(r, rec->body - PD_RECORD_HEADER_SIZE, rec->size);
        return PK_OK;
    case PD_RECORD_HEADER_TRACING_DATA:
    case PD_RECORD_AUXTRACE: {
        /* Their payload follows the record, its size in the record. */
        uint64_t extra = rec->body_size >= (rec->type == PD_RECORD_AUXTRACE ? 8u : 4u)
                             ? (rec->type == PD_RECORD_AUXTRACE ? pd_u64(rec->body, r->big)
                                                                : pd_u32(rec->body, r->big))
                             : 0;
        if (rec->compressed)
            return pk_damage(err, rec->offset, "a %s record inside a compressed one",
                             pd_record_name(rec->type));
        pk_in_skip_buffered(in, records->pending);
        records->pending = 0;
        if (pk_in_skip(in, extra) < extra)
            return pk_damage(err, rec->offset, "the %llu bytes after the %s record run past "
                             "the end of the input", (unsigned long long)extra,
                             pd_record_name(rec->type));
        r->skipped_kinds[rec->type]++;
        return PK_OK;
    }
    default:
        break;
    }
    if (rec->type < sizeof r->skipped_kinds / sizeof *r->skipped_kinds)
        r->skipped_kinds[rec->type]++;
    else
        r->other_records++;
    return PK_OK;
}

static pk_status deliver_record(void *context, const pd_record *rec, pk_error *err)
{
    return take_record(context, NULL, NULL, rec, err);
}

/* The time of a kernel's record, 0 when it has none (perf takes those at once). */
static uint64_t record_time(pd_reader *r, const pd_record *rec)
{
    const pd_attr *a = pd_attr_of(&r->file, rec);
    if (!a || !(a->sample_type & PD_SAMPLE_TIME))
        return 0;
    if (rec->type == PD_RECORD_SAMPLE) {
        /* identifier, ip, pid/tid, then the time */
        uint64_t t = a->sample_type;
        size_t at = 8 * (size_t)(!!(t & PD_SAMPLE_IDENTIFIER) + !!(t & PD_SAMPLE_IP) +
                                 !!(t & PD_SAMPLE_TID));
        return rec->body_size >= at + 8 ? pd_u64(rec->body + at, r->big) : 0;
    }
    pd_sample s;
    if (!a->sample_id_all || !pd_parse_sample_id(a, rec->body, rec->body_size, r->big, &s))
        return 0;
    return s.time;
}

/* One record from the file: a kernel's record with a time waits for its turn (order.h). */
static pk_status route_record(pd_reader *r, pk_input *in, pd_records *records, pd_order *order,
                              const pd_record *rec, pk_error *err)
{
    if (rec->type == PD_RECORD_FINISHED_ROUND)
        return pd_order_round(order, deliver_record, r, err);
    if (rec->type < PD_RECORD_HEADER_ATTR) {
        uint64_t time = record_time(r, rec);
        if (time != 0 && time != UINT64_MAX)
            return pd_order_push(order, rec, time, deliver_record, r, err);
    }
    return take_record(r, in, records, rec, err);
}

static pk_status read_records(pd_reader *r, pk_input *in, pk_error *err)
{
    pd_records records;
    pd_records_init(&records, in, r->big, r->file.data_end);
    pd_order order;
    pd_order_init(&order, r->big);
    pk_status status = PK_OK;
    for (;;) {
        pd_record rec;
        pd_step step = pd_next_record(&records, &rec, err);
        if (step == PD_STEP_RECORD) {
            status = route_record(r, in, &records, &order, &rec, err);
            if (status == PK_OK)
                continue;
            if (status == PK_ERR_INPUT && err->salvageable) {
                pk_error ignored;
                pd_order_finish(&order, deliver_record, r, &ignored);
            }
            break;
        }
        /* What was queued is whole and before the end or the damage. */
        pk_error late_err;
        pk_status late = pd_order_finish(&order, deliver_record, r, &late_err);
        if (step == PD_STEP_DAMAGE) {
            status = err->status;
        } else if (late != PK_OK) {
            status = late;
            *err = late_err;
            break;
        } else if (step == PD_STEP_CUT || (r->file.data_end != UINT64_MAX &&
                                           pk_in_offset(in) < r->file.data_end)) {
            pk_status failed = pk_in_fail(in, err);
            if (failed != PK_OK)
                status = failed;
            else
                r->cut = true;
            if (failed == PK_OK)
                pk_warn(r->p, "the records are cut short at byte %llu (the file ends inside "
                              "the data section): the whole records before were read",
                        (unsigned long long)rec.offset);
        }
        break;
    }
    r->late_records = order.late;
    pd_order_free(&order);
    if (records.compressed_records) {
        char text[32];
        snprintf(text, sizeof text, "%llu", (unsigned long long)records.compressed_records);
        pk_property_set(r->p, "compressed records", text);
    }
    if (records.pending)
        pk_in_skip_buffered(in, records.pending);
    records.pending = 0;
    pd_records_free(&records);
    return status;
}

static void finish(pd_reader *r)
{
    pk_profile *p = r->p;
    if (r->file.data_size_missing)
        pk_warn(p, "the header gives no data size (perf did not finish writing the file): the "
                   "records were read to the end of the file and the feature sections are "
                   "missing");
    if (r->lost)
        pk_warn(p, "%llu events lost (PERF_RECORD_LOST): the kernel's buffer was full",
                (unsigned long long)r->lost);
    if (r->lost_samples)
        pk_warn(p, "%llu samples lost (PERF_RECORD_LOST_SAMPLES)",
                (unsigned long long)r->lost_samples);
    if (r->throttles)
        pk_warn(p, "sampling was throttled %llu times (PERF_RECORD_THROTTLE)",
                (unsigned long long)r->throttles);
    if (r->late_records)
        pk_warn(p, "%llu records came after a round of later ones had been taken (perf script "
                   "warns of them too): they were taken late",
                (unsigned long long)r->late_records);
    if (r->unwind_other_arch)
        pk_warn(p, "user stacks (--call-graph dwarf) are unwound for x86-64 recordings only: "
                   "their samples keep the callchain's kernel frames only");
    if (r->unwound || r->unwind_failed) {
        char text[64];
        snprintf(text, sizeof text, "%llu, %llu not", (unsigned long long)r->unwound,
                 (unsigned long long)r->unwind_failed);
        pk_property_set(p, "user stacks unwound", text);
    }
    if (r->unknown_id_samples)
        pk_warn(p, "%llu samples of an event id no attribute has were left out",
                (unsigned long long)r->unknown_id_samples);
    if (r->dropped_samples)
        pk_warn(p, "%llu samples of events past the first %d were left out: the model holds %d "
                   "events (a value of summed periods and one of samples each)",
                (unsigned long long)r->dropped_samples, PD_MAX_EVENTS, PD_MAX_EVENTS);
    /* Record kinds not used: counted, as `info` shows them. */
    char skipped[1024];
    size_t used = 0;
    skipped[0] = '\0';
    for (size_t t = 0; t < sizeof r->skipped_kinds / sizeof *r->skipped_kinds; t++) {
        if (!r->skipped_kinds[t])
            continue;
        int w = snprintf(skipped + used, sizeof skipped - used, "%s%s %llu", used ? ", " : "",
                         pd_record_name((uint32_t)t), (unsigned long long)r->skipped_kinds[t]);
        if (w < 0 || (size_t)w >= sizeof skipped - used)
            break;
        used += (size_t)w;
    }
    if (r->other_records && used < sizeof skipped - 40)
        snprintf(skipped + used, sizeof skipped - used, "%sother %llu", used ? ", " : "",
                 (unsigned long long)r->other_records);
    if (skipped[0])
        pk_property_set(p, "records not used", skipped);
    if (r->have_time) {
        char t[32];
        snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(r->first_ns / 1000000000u),
                 (unsigned long long)(r->first_ns % 1000000000u / 1000u));
        pk_property_set(p, "time of first sample", t);
        snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(r->last_ns / 1000000000u),
                 (unsigned long long)(r->last_ns % 1000000000u / 1000u));
        pk_property_set(p, "time of last sample", t);
    }
    pk_property_set(p, "perf.data byte order", r->big ? "big" : "little");
    pk_property_set(p, "perf.data layout", r->file.header.pipe ? "pipe" : "file");
    pk_metadata *md = pk_metadata_of(p);
    if ((md->product == 0 || md->product == PK_NONE) && pk_thread_count(p) > 0)
        md->product = pk_thread_at(p, 0)->name;
}

static void reader_free(pd_reader *r)
{
    pd_file_free(&r->file);
    free(r->threads);
    pk_u64map_free(&r->thread_index);
    for (size_t i = 0; i < r->process_count; i++)
        free(r->processes[i].maps);
    free(r->processes);
    pk_u64map_free(&r->process_index);
    pk_u64map_free(&r->frame_cache);
    pd_chains_free(&r->chains);
    pk_u64map_free(&r->roots);
    pk_u64map_free(&r->build_ids);
    free(r->frames);
    free(r->ordered);
    free(r->symbols);
    free(r->symbol_names);
    pd_unwinder_free(r->unwinder);
}

pk_status pd_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    pd_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    if (options && pk_option_get(&options->extra, "no-kallsyms"))
        r.kallsyms_state = -1;
    if (options && pk_option_get(&options->extra, "no-unwind"))
        r.unwind_state = -1;
    r.kernel_resource = PK_NONE;
    pk_u64map_init(&r.thread_index);
    pk_u64map_init(&r.process_index);
    pk_u64map_init(&r.frame_cache);
    pd_chains_init(&r.chains);
    pk_u64map_init(&r.roots);
    pk_u64map_init(&r.build_ids);
    pk_status status = pd_open(in, &r.file, err);
    if (status == PK_OK) {
        r.big = r.file.header.big;
        /* Folded output names frames as FlameGraph's collapsers tidy them, as for perf
         * script. */
        if (pk_property_set(p, "folded names", "flamegraph") != PK_OK ||
            pk_property_set(p, PK_UNNAMED_ADDRESSES, "perf") != PK_OK)
            status = nomem(err);
    }
    /* A seekable file's feature sections first, so that the build ids and the event names
     * are known when the records need them; a stream's after its records, as are those of a
     * file cut inside its records (which has none to read, and says so once, at the cut). */
    bool features_first = status == PK_OK && pk_in_seekable(in) && !r.file.header.pipe &&
                          !r.file.data_size_missing && in->size_hint >= r.file.data_end;
    if (features_first)
        take_file_features(&r, in);
    if (status == PK_OK)
        status = read_records(&r, in, err);
    bool damaged = status == PK_ERR_INPUT && err->salvageable;
    if (status == PK_OK && !r.cut && !features_first)
        take_file_features(&r, in);
    if (status == PK_OK && r.samples == 0 && r.file.attr_count == 0)
        status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                              "no event attributes: a perf.data pipe without its header "
                              "records");
    if (status == PK_ERR_NOMEM && r.timeline_io_failed)
        status = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                              "cannot write the sample times to a temporary file");
    if (status == PK_OK || damaged)
        finish(&r);
    reader_free(&r);
    return status;
}
