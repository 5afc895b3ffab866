/* Reads `perf script` text into the model, streaming: memory grows with the distinct frame
 * lines, stacks and threads, never with the samples.
 *
 * - A thread per pid/tid, named by its latest command name (a process that execs is first
 *   `perf-exec`, then its program).
 * - The root frame of every stack is the command name, as stackcollapse-perf.pl makes it
 *   (`--perf-pid`, `--perf-tid` add the ids, `--perf-no-root` leaves it out).
 * - A frame's function is its symbol without the `+0xOFF`, its resource the DSO, its address
 *   the one printed. An unknown symbol is named by its DSO, `[libc.so.6]`, as the FlameGraph
 *   tools name it; an `(inlined)` frame and the pieces of a Java `a->b` chain after the first
 *   are inlined into their caller. Folded output tidies names as FlameGraph does (see
 *   folded.c), so the model keeps perf's.
 * - Each event (`cpu-clock`, `cycles:u`, ...) is two values: its period summed (nanoseconds
 *   for the clock events, else events) and its samples counted; the first event's period is
 *   the default, as stackcollapse-perf.pl keeps the first event.
 * - The `--header` block becomes properties; its capture date and the samples' first and last
 *   times give the run's start and end.
 *
 * Frame lines repeat: each distinct line is parsed once and its frames found again by the
 * line's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/array.h"
#include "core/buffer.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/path.h"
#include "core/text_lines.h"
#include "formats/perf_script/perf_script.h"

/* perf's lines are short; a tracepoint's fields or a deep C++ name may make one long. */
#define PERF_MAX_LINE ((size_t)16 << 20)
#define PERF_MAX_LINE_TEXT "16 MiB"
/* Each event takes two of the model's PK_MAX_VALUES values. */
#define PERF_MAX_EVENTS (PK_MAX_VALUES / 2)

typedef enum perf_root { ROOT_COMM, ROOT_PID, ROOT_TID, ROOT_NONE } perf_root;

typedef struct perf_event_values {
    uint32_t event;  /* string: the event as printed, `cycles:u` */
    uint32_t period; /* value index of the summed periods */
    uint32_t count;  /* value index of the sample count */
} perf_event_values;

/* A distinct frame line (its text from the address on) and the frames it makes. */
typedef struct frame_line {
    size_t text, text_len; /* in reader.texts */
    size_t run, run_len;   /* in reader.runs */
} frame_line;

typedef struct perf_reader {
    pk_profile *p;
    pk_text_lines *lines;
    perf_root root;
    bool annotate_kernel, annotate_jit;

    perf_event_values events[PERF_MAX_EVENTS];
    size_t event_count;
    uint64_t dropped_events; /* samples of events past PERF_MAX_EVENTS */
    uint32_t dropped_event;  /* string: the first such event */

    /* Threads by (pid, tid); the last one found is kept. */
    pk_u64map threads;
    uint64_t last_thread_key;
    uint32_t last_thread;
    /* Root stacks by root name string. */
    pk_u64map roots;

    /* Distinct frame lines. */
    pk_buffer texts;
    frame_line *frame_lines;
    size_t frame_line_count, frame_line_cap;
    uint32_t *runs;
    size_t run_count, run_cap;
    pk_index frame_index;

    /* The sample being read. */
    bool in_sample;
    bool sample_skipped; /* a record that is not a sample, or of a dropped event */
    bool callchain_less; /* its header carried its frame */
    bool has_frame_lines;
    uint32_t thread;
    uint32_t root_stack;
    size_t event;
    int64_t period;
    uint32_t *frames; /* leaf first */
    size_t frame_count, frame_cap;
    uint32_t *ordered; /* root first, for interning */
    size_t ordered_cap;
    size_t last_run, last_run_len; /* the frames of the last frame line, for its srcline */

    /* What the file showed so far, to tell a cut line from a complete one. */
    bool frames_have_dso;
    bool headers_have_event;

    uint64_t samples;
    bool have_time;
    uint64_t first_ns, last_ns;
    bool in_header_block; /* before the first sample */
    int64_t captured_on;  /* ns since the epoch, PK_TIME_UNKNOWN */
    size_t event_properties;
    int64_t values[PK_MAX_VALUES];
} perf_reader;

static void reader_free(perf_reader *r)
{
    pk_u64map_free(&r->threads);
    pk_u64map_free(&r->roots);
    pk_buffer_free(&r->texts);
    free(r->frame_lines);
    free(r->runs);
    pk_index_free(&r->frame_index);
    free(r->frames);
    free(r->ordered);
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool contains(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, needle, k) == 0)
            return true;
    return false;
}

/* ---- events and values --------------------------------------------------------------------- */

/* The event's name without modifiers: `cycles:u` -> `cycles`, `cpu-clock:ppp` -> `cpu-clock`;
 * a tracepoint `sched:sched_switch` keeps its colon (its last part is no modifier list). */
static size_t event_base_len(const char *e, size_t n)
{
    size_t colon = n;
    while (colon > 0 && e[colon - 1] != ':')
        colon--;
    if (colon == 0 || colon == n)
        return n;
    for (size_t i = colon; i < n; i++)
        if (!strchr("ukhIGHpPSDWebR", e[i]))
            return n;
    return colon - 1;
}

static bool event_is_clock(const char *e, size_t n)
{
    return (n == 9 && memcmp(e, "cpu-clock", 9) == 0) ||
           (n == 10 && memcmp(e, "task-clock", 10) == 0);
}

/* The index of event's values, declared when new; SIZE_MAX for an event past the ones the model
 * has room for, SIZE_MAX - 1 when memory runs out. */
static size_t event_index(perf_reader *r, const char *e, size_t n)
{
    uint32_t name = pk_intern(r->p, e, n);
    if (name == PK_NONE)
        return SIZE_MAX - 1;
    for (size_t i = 0; i < r->event_count; i++)
        if (r->events[i].event == name)
            return i;
    if (r->event_count == PERF_MAX_EVENTS) {
        if (r->dropped_events++ == 0)
            r->dropped_event = name;
        return SIZE_MAX;
    }
    /* The value is named by the bare event, unless another event of that name (other
     * modifiers) took it. */
    size_t base = event_base_len(e, n);
    char value_name[256];
    snprintf(value_name, sizeof value_name, "%.*s", (int)(base < 200 ? base : 200), e);
    if (pk_value_find(r->p, value_name) != PK_NONE)
        snprintf(value_name, sizeof value_name, "%.*s", (int)(n < 200 ? n : 200), e);
    char count_name[272];
    snprintf(count_name, sizeof count_name, "%s-samples", value_name);
    bool clock = event_is_clock(e, base);
    perf_event_values *v = &r->events[r->event_count];
    v->event = name;
    v->period = pk_add_value_type(r->p, value_name, clock ? "nanoseconds" : "events");
    v->count = pk_add_value_type(r->p, count_name, "count");
    if (v->period == PK_NONE || v->count == PK_NONE)
        return SIZE_MAX - 1;
    if (r->event_count == 0) {
        pk_set_default_value(r->p, v->period);
        pk_metadata *md = pk_metadata_of(r->p);
        md->period_type = pk_intern_cstr(r->p, value_name);
        md->period_unit = pk_intern_cstr(r->p, clock ? "nanoseconds" : "events");
    }
    return r->event_count++;
}

/* ---- threads and roots --------------------------------------------------------------------- */

static uint32_t thread_of(perf_reader *r, const perf_header *h)
{
    uint32_t comm = pk_intern(r->p, h->comm, h->comm_len);
    if (comm == PK_NONE)
        return PK_NONE;
    uint64_t key = pk_hash_u64(((uint64_t)h->pid << 32) ^ (uint64_t)h->tid ^
                               ((uint64_t)h->pid >> 32));
    uint32_t t;
    if (r->last_thread != PK_NONE && key == r->last_thread_key) {
        t = r->last_thread;
    } else {
        uint32_t *known = pk_u64map_find(&r->threads, key);
        if (known && pk_thread_at(r->p, *known)->pid == h->pid &&
            pk_thread_at(r->p, *known)->tid == h->tid) {
            t = *known;
        } else {
            t = pk_add_thread(r->p, comm, h->pid, h->tid);
            uint32_t *slot;
            bool inserted;
            if (t == PK_NONE || !pk_u64map_put(&r->threads, key, t, &slot, &inserted))
                return PK_NONE;
            *slot = t;
        }
        r->last_thread_key = key;
        r->last_thread = t;
    }
    if (pk_thread_at(r->p, t)->name != comm)
        pk_thread_rename(r->p, t, comm);
    return t;
}

static uint32_t named_frame(pk_profile *p, uint32_t name, uint32_t resource, uint64_t address,
                            uint32_t flags, uint32_t file, uint32_t line)
{
    pk_function f = {.name = name, .file = file, .start_line = 0, .resource = resource};
    uint32_t fn = pk_intern_function(p, &f);
    if (fn == PK_NONE)
        return PK_NONE;
    pk_frame fr = {.function = fn, .line = line, .address = address, .resource = resource,
                   .flags = flags};
    return pk_intern_frame(p, &fr);
}

/* The stack of the root frame alone: the command name, with the ids as asked, blanks made '_'
 * (stackcollapse-perf.pl's process name). PK_NONE without a root, or *nomem. */
static uint32_t root_stack_of(perf_reader *r, const perf_header *h, bool *nomem)
{
    *nomem = false;
    if (r->root == ROOT_NONE)
        return PK_NONE;
    char ids[48] = "";
    char pid[24] = "?";
    if (h->pid >= 0)
        snprintf(pid, sizeof pid, "%lld", (long long)h->pid);
    if (r->root == ROOT_PID)
        snprintf(ids, sizeof ids, "-%s", pid);
    else if (r->root == ROOT_TID)
        snprintf(ids, sizeof ids, "-%s/%lld", pid, (long long)h->tid);
    uint32_t name = pk_intern_printf(r->p, "%.*s%s", (int)h->comm_len, h->comm, ids);
    if (name == PK_NONE) {
        *nomem = true;
        return PK_NONE;
    }
    uint32_t *known = pk_u64map_find(&r->roots, name);
    if (known)
        return *known;
    uint32_t tidy = name;
    if (strchr(pk_str(r->p, name), ' ')) {
        size_t len = pk_str_len(r->p, name);
        char *copy = malloc(len + 1);
        if (!copy) {
            *nomem = true;
            return PK_NONE;
        }
        memcpy(copy, pk_str(r->p, name), len);
        for (size_t i = 0; i < len; i++)
            if (copy[i] == ' ')
                copy[i] = '_';
        tidy = pk_intern(r->p, copy, len);
        free(copy);
    }
    uint32_t frame = tidy == PK_NONE ? PK_NONE : named_frame(r->p, tidy, PK_NONE, 0, 0, 0, 0);
    uint32_t stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(r->p, PK_NONE, frame);
    uint32_t *slot;
    bool inserted;
    if (stack == PK_NONE || !pk_u64map_put(&r->roots, name, stack, &slot, &inserted)) {
        *nomem = true;
        return PK_NONE;
    }
    return stack;
}

/* ---- frames -------------------------------------------------------------------------------- */

/* The resource of a DSO; PK_NONE for none, `[unknown]` and `inlined`; *nomem on failure. */
static uint32_t resource_of(perf_reader *r, const perf_frame *f, bool *nomem)
{
    *nomem = false;
    if (!f->dso || f->dso_len == 0 || f->inlined ||
        (f->dso_len == 9 && memcmp(f->dso, "[unknown]", 9) == 0))
        return PK_NONE;
    size_t base = pk_path_basename_offset(f->dso, f->dso_len);
    pk_resource res = {0};
    res.name = pk_intern(r->p, f->dso + base, f->dso_len - base);
    res.path = pk_intern(r->p, f->dso, f->dso_len);
    uint32_t id = res.name == PK_NONE || res.path == PK_NONE ? PK_NONE
                                                             : pk_intern_resource(r->p, &res);
    *nomem = id == PK_NONE;
    return id;
}

/* The annotation stackcollapse-perf.pl's --kernel and --jit add for a frame of this DSO. */
static const char *annotation(const perf_reader *r, const perf_frame *f)
{
    if (!f->dso)
        return "";
    if (r->annotate_kernel && (has_prefix(f->dso, f->dso_len, "[") ||
                               has_suffix(f->dso, f->dso_len, "vmlinux")) &&
        !contains(f->dso, f->dso_len, "unknown"))
        return "_[k]";
    if (r->annotate_jit) {
        /* /tmp/perf-PID.map anywhere in the DSO */
        for (size_t i = 0; i + 10 <= f->dso_len; i++) {
            if (memcmp(f->dso + i, "/tmp/perf-", 10) != 0)
                continue;
            size_t k = i + 10;
            while (k < f->dso_len && f->dso[k] >= '0' && f->dso[k] <= '9')
                k++;
            if (k > i + 10 && has_prefix(f->dso + k, f->dso_len - k, ".map"))
                return "_[j]";
        }
    }
    return "";
}

/* Appends the frames of a parsed frame line to reader.runs (one per piece of a Java `a->b`
 * chain, outermost first). Returns how many, or SIZE_MAX when memory runs out. */
static size_t make_frames(perf_reader *r, const perf_frame *f, uint32_t file, uint32_t line)
{
    bool nomem;
    uint32_t resource = resource_of(r, f, &nomem);
    if (nomem)
        return SIZE_MAX;
    const char *note = annotation(r, f);
    size_t made = 0;
    const char *s = f->symbol;
    size_t n = f->symbol_len;
    for (size_t piece = 0;; piece++) {
        size_t len = n;
        for (size_t i = 0; i + 1 < n; i++) {
            if (s[i] == '-' && s[i + 1] == '>') {
                len = i;
                break;
            }
        }
        uint32_t name;
        bool unknown = (len == 9 && memcmp(s, "[unknown]", 9) == 0) || (len == 0 && n == 0);
        if (unknown && f->dso && f->dso_len > 0 &&
            !(f->dso_len == 9 && memcmp(f->dso, "[unknown]", 9) == 0)) {
            /* Named by the DSO's base name, in brackets. */
            size_t slash = f->dso_len;
            while (slash > 0 && f->dso[slash - 1] != '/')
                slash--;
            name = pk_intern_printf(r->p, "[%.*s]%s", (int)(f->dso_len - slash), f->dso + slash,
                                    piece > 0 ? "_[i]" : note);
        } else if (unknown) {
            name = pk_intern_printf(r->p, "[unknown]%s", piece > 0 ? "_[i]" : note);
        } else if (piece > 0) {
            bool marked = contains(s, len, "_[i]");
            name = pk_intern_printf(r->p, "%.*s%s", (int)len, s, marked ? "" : "_[i]");
        } else if (*note) {
            name = pk_intern_printf(r->p, "%.*s%s", (int)len, s, note);
        } else {
            name = pk_intern(r->p, s, len);
        }
        if (name == PK_NONE)
            return SIZE_MAX;
        uint32_t flags = PK_FRAME_HAS_ADDRESS;
        if (piece > 0 || f->inlined)
            flags |= PK_FRAME_INLINED;
        uint32_t frame = named_frame(r->p, name, resource, f->address, flags, file, line);
        if (frame == PK_NONE || !PK_ARRAY_RESERVE(r->runs, r->run_cap, r->run_count + 1))
            return SIZE_MAX;
        r->runs[r->run_count++] = frame;
        made++;
        if (len == n)
            break;
        s += len + 2;
        n -= len + 2;
    }
    return made;
}

typedef struct frame_key {
    const char *text;
    size_t len;
} frame_key;

static bool frame_line_equal(const void *context, uint32_t entry, const void *key)
{
    const perf_reader *r = context;
    const frame_key *k = key;
    const frame_line *l = &r->frame_lines[entry];
    return l->text_len == k->len && memcmp(r->texts.data + l->text, k->text, k->len) == 0;
}

static bool push_frames(perf_reader *r, size_t run, size_t run_len)
{
    if (!PK_ARRAY_RESERVE(r->frames, r->frame_cap, r->frame_count + run_len))
        return false;
    /* Leaf first: the run is outermost first, so it goes in reversed. */
    for (size_t i = run_len; i-- > 0;)
        r->frames[r->frame_count++] = r->runs[run + i];
    r->last_run = run;
    r->last_run_len = run_len;
    return true;
}

/* Adds a frame line (text from its address on) to the sample. False when memory runs out. */
static bool add_frame_line(perf_reader *r, const char *text, size_t len, const perf_frame *f)
{
    frame_key key = {text, len};
    uint64_t hash = pk_hash_bytes(text, len);
    uint32_t entry = pk_index_find(&r->frame_index, hash, frame_line_equal, r, &key);
    if (entry == UINT32_MAX) {
        size_t run = r->run_count;
        size_t made = make_frames(r, f, 0, 0);
        if (made == SIZE_MAX || r->frame_line_count >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(r->frame_lines, r->frame_line_cap, r->frame_line_count + 1))
            return false;
        size_t at = r->texts.len;
        pk_buffer_append(&r->texts, text, len);
        if (r->texts.failed)
            return false;
        r->frame_lines[r->frame_line_count] = (frame_line){at, len, run, made};
        if (!pk_index_insert(&r->frame_index, hash, (uint32_t)r->frame_line_count))
            return false;
        entry = (uint32_t)r->frame_line_count++;
    }
    const frame_line *l = &r->frame_lines[entry];
    return push_frames(r, l->run, l->run_len);
}

/* A `-F +srcline` line: the last frame line's frames again, with the file and line. */
static bool add_srcline(perf_reader *r, const char *file, size_t file_len, uint32_t line)
{
    if (r->last_run_len == 0 || r->frame_count < r->last_run_len)
        return true;
    uint32_t file_id = pk_intern(r->p, file, file_len);
    if (file_id == PK_NONE)
        return false;
    for (size_t i = 0; i < r->last_run_len; i++) {
        uint32_t *slot = &r->frames[r->frame_count - 1 - i];
        const pk_frame *old = pk_frame_at(r->p, *slot);
        const pk_function *fn = pk_function_at(r->p, old->function);
        uint32_t frame =
            named_frame(r->p, fn->name, fn->resource, old->address, old->flags, file_id, line);
        if (frame == PK_NONE)
            return false;
        *slot = frame;
    }
    r->last_run_len = 0;
    return true;
}

/* ---- samples ------------------------------------------------------------------------------- */

/* Adds the sample read so far to the model. False when memory runs out. */
static bool end_sample(perf_reader *r)
{
    if (!r->in_sample)
        return true;
    r->in_sample = false;
    if (r->sample_skipped)
        return true;
    size_t n = r->frame_count;
    if (!PK_ARRAY_RESERVE(r->ordered, r->ordered_cap, n ? n : 1))
        return false;
    for (size_t i = 0; i < n; i++)
        r->ordered[i] = r->frames[n - 1 - i];
    uint32_t stack = r->root_stack;
    if (n > 0) {
        stack = pk_intern_stack_frames(r->p, r->root_stack, r->ordered, n);
        if (stack == PK_NONE)
            return false;
    }
    const perf_event_values *e = &r->events[r->event];
    r->values[e->period] = r->period;
    r->values[e->count] = 1;
    pk_status s = pk_add_sample(r->p, r->thread, stack, r->values);
    r->values[e->period] = 0;
    r->values[e->count] = 0;
    r->samples++;
    return s == PK_OK;
}

/* Starts the sample of a header line. Returns PK_OK, or PK_ERR_NOMEM. */
static pk_status start_sample(perf_reader *r, const perf_header *h)
{
    r->in_sample = true;
    r->sample_skipped = false;
    r->frame_count = 0;
    r->last_run_len = 0;
    r->callchain_less = false;
    r->has_frame_lines = false;
    if (h->event) {
        r->headers_have_event = true;
        /* Side-band records (--show-mmap-events, ...) are no samples. */
        if (has_prefix(h->event, h->event_len, "PERF_RECORD_")) {
            r->sample_skipped = true;
            return PK_OK;
        }
    }
    size_t e = h->event ? event_index(r, h->event, h->event_len) : event_index(r, "event", 5);
    if (e == SIZE_MAX - 1)
        return PK_ERR_NOMEM;
    if (e == SIZE_MAX) {
        r->sample_skipped = true;
        return PK_OK;
    }
    r->event = e;
    /* No period, or 0, counts 1 (as stackcollapse-perf.pl counts it). */
    r->period = h->has_period && h->period > 0 && h->period <= INT64_MAX ? (int64_t)h->period : 1;
    r->thread = thread_of(r, h);
    if (r->thread == PK_NONE)
        return PK_ERR_NOMEM;
    bool nomem;
    r->root_stack = root_stack_of(r, h, &nomem);
    if (nomem)
        return PK_ERR_NOMEM;
    if (h->has_time) {
        if (!r->have_time || h->time_ns < r->first_ns)
            r->first_ns = h->time_ns;
        if (!r->have_time || h->time_ns > r->last_ns)
            r->last_ns = h->time_ns;
        r->have_time = true;
    }
    if (r->in_header_block) {
        r->in_header_block = false;
        pk_metadata *md = pk_metadata_of(r->p);
        if (md->product == 0 || md->product == PK_NONE)
            md->product = pk_thread_at(r->p, r->thread)->name;
    }
    /* Without call graphs the frame follows the event on the same line. */
    perf_frame f;
    if (h->rest_len > 0 && perf_parse_frame(h->rest, h->rest_len, &f) && f.dso) {
        r->callchain_less = true;
        if (!add_frame_line(r, h->rest, h->rest_len, &f))
            return PK_ERR_NOMEM;
    }
    return PK_OK;
}

/* ---- the header block ---------------------------------------------------------------------- */

static int month_of(const char *m)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (int i = 0; i < 12; i++)
        if (memcmp(m, months[i], 3) == 0)
            return i;
    return -1;
}

/* `Wed Nov 25 19:04:12 2026` (ctime's form, the file's modification time, taken as UTC) in ns
 * since the epoch; PK_TIME_UNKNOWN when it does not read. */
static int64_t parse_captured_on(const char *v)
{
    char wday[4], mon[4];
    int day, hour, min, sec, year;
    if (sscanf(v, "%3s %3s %d %d:%d:%d %d", wday, mon, &day, &hour, &min, &sec, &year) != 7)
        return PK_TIME_UNKNOWN;
    int m = month_of(mon) + 1;
    if (m < 1 || year < 1970 || year > 2200 || day < 1 || day > 31 || hour > 23 || min > 59 ||
        sec > 60 || hour < 0 || min < 0 || sec < 0)
        return PK_TIME_UNKNOWN;
    /* Days from the civil date (Howard Hinnant's algorithm), without the C library's time
     * zone. */
    int y = year - (m <= 2);
    int era = y / 400;
    int yoe = y - era * 400;
    int mp = (m + 9) % 12;
    int doy = (153 * mp + 2) / 5 + day - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = (int64_t)era * 146097 + doe - 719468;
    return ((days * 86400) + hour * 3600 + min * 60 + sec) * 1000000000LL;
}

/* A `# key : value` line of the --header block: a property. False when memory runs out. */
static bool header_comment(perf_reader *r, const char *text, size_t len)
{
    size_t i = 1;
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    const char *colon = memchr(text + i, ':', len - i);
    if (!colon || text[i] == '=')
        return true;
    size_t key_end = (size_t)(colon - text);
    size_t value = key_end + 1;
    while (key_end > i && (text[key_end - 1] == ' ' || text[key_end - 1] == '\t'))
        key_end--;
    while (value < len && (text[value] == ' ' || text[value] == '\t'))
        value++;
    if (key_end == i)
        return true;
    char key[96];
    int n = snprintf(key, sizeof key, "%.*s", (int)(key_end - i < 80 ? key_end - i : 80),
                     text + i);
    /* Several `# event :` lines, one per event: numbered after the first. */
    if (strcmp(key, "event") == 0 && r->event_properties++ > 0)
        snprintf(key + n, sizeof key - (size_t)n, " %zu", r->event_properties);
    char *v = malloc(len - value + 1);
    if (!v)
        return false;
    memcpy(v, text + value, len - value);
    v[len - value] = '\0';
    /* A NUL byte ends the property early; the reader refuses such lines before. */
    pk_status s = pk_property_set(r->p, key, v);
    if (strcmp(key, "captured on") == 0)
        r->captured_on = parse_captured_on(v);
    free(v);
    return s == PK_OK;
}

/* ---- the reader ---------------------------------------------------------------------------- */

static bool is_blank_line(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t')
            return false;
    return true;
}

static void finish_metadata(perf_reader *r)
{
    pk_metadata *md = pk_metadata_of(r->p);
    if (r->have_time) {
        char t[32];
        snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(r->first_ns / 1000000000u),
                 (unsigned long long)(r->first_ns % 1000000000u / 1000u));
        if (!pk_property_get(r->p, "time of first sample"))
            pk_property_set(r->p, "time of first sample", t);
        snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(r->last_ns / 1000000000u),
                 (unsigned long long)(r->last_ns % 1000000000u / 1000u));
        if (!pk_property_get(r->p, "time of last sample"))
            pk_property_set(r->p, "time of last sample", t);
        /* The capture date is when the file was last written, at the end of the run. */
        if (r->captured_on != PK_TIME_UNKNOWN && r->last_ns - r->first_ns < (uint64_t)INT64_MAX &&
            r->captured_on >= (int64_t)(r->last_ns - r->first_ns)) {
            md->end_time = r->captured_on;
            md->start_time = r->captured_on - (int64_t)(r->last_ns - r->first_ns);
        }
    }
    if (r->dropped_events)
        pk_warn(r->p,
                "%llu sample%s of event %s and later ones %s left out: the model holds %d "
                "events (a value of summed periods and one of samples each)",
                (unsigned long long)r->dropped_events, r->dropped_events == 1 ? "" : "s",
                pk_str(r->p, r->dropped_event), r->dropped_events == 1 ? "was" : "were",
                PERF_MAX_EVENTS);
}

pk_status pk_perf_script_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                              pk_error *err)
{
    perf_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.last_thread = PK_NONE;
    r.in_header_block = true;
    r.captured_on = PK_TIME_UNKNOWN;
    const pk_option_list *extra = options ? &options->extra : NULL;
    if (extra && pk_option_get(extra, "perf-pid"))
        r.root = ROOT_PID;
    if (extra && pk_option_get(extra, "perf-tid"))
        r.root = ROOT_TID;
    if (extra && pk_option_get(extra, "perf-no-root"))
        r.root = ROOT_NONE;
    bool all = extra && pk_option_get(extra, "perf-all");
    r.annotate_kernel = all || (extra && pk_option_get(extra, "perf-kernel"));
    r.annotate_jit = all || (extra && pk_option_get(extra, "perf-jit"));
    pk_u64map_init(&r.threads);
    pk_u64map_init(&r.roots);
    pk_index_init(&r.frame_index);
    pk_text_lines lines;
    pk_text_lines_init(&lines, in, PERF_MAX_LINE);
    r.lines = &lines;
    /* Folded output names frames as FlameGraph's collapsers tidy them (folded.c). */
    if (pk_property_set(p, "folded names", "flamegraph") != PK_OK)
        goto nomem;

    pk_status status = PK_OK;
    for (;;) {
        const char *text = NULL;
        size_t len = 0;
        pk_text_line_result got = pk_text_lines_next(&lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM)
            goto nomem;
        if (got == PK_TEXT_TOO_LONG) {
            status = pk_damage(err, lines.offset, "line %llu is longer than " PERF_MAX_LINE_TEXT,
                               (unsigned long long)lines.number);
            break;
        }
        const char *nul = memchr(text, '\0', len);
        if (nul) {
            status = pk_damage(err, lines.offset + (uint64_t)(nul - text),
                               "line %llu holds a NUL byte: this is not text",
                               (unsigned long long)lines.number);
            break;
        }
        if (is_blank_line(text, len)) {
            if (!end_sample(&r))
                goto nomem;
            continue;
        }
        if (text[0] == '#') {
            if (r.in_header_block && !header_comment(&r, text, len))
                goto nomem;
            continue;
        }
        bool indented = text[0] == ' ' || text[0] == '\t';
        perf_frame f;
        perf_header h;
        const char *file;
        size_t file_len;
        uint32_t number;
        /* Inside a sample, an indented line is a frame or its source line; a line of a file
         * without call graphs is a header even when its command is a hexadecimal word. */
        if (r.in_sample && indented && !r.callchain_less && perf_parse_frame(text, len, &f)) {
            bool cut = lines.unterminated && r.frames_have_dso && !f.dso;
            if (!cut) {
                if (f.dso)
                    r.frames_have_dso = true;
                r.has_frame_lines = true;
                if (r.sample_skipped)
                    continue;
                size_t start = 0;
                while (text[start] == ' ' || text[start] == '\t')
                    start++;
                if (!add_frame_line(&r, text + start, len - start, &f))
                    goto nomem;
                continue;
            }
        } else if (perf_parse_header(text, len, &h) &&
                   !(lines.unterminated && r.headers_have_event && !h.event)) {
            if (!end_sample(&r))
                goto nomem;
            if (start_sample(&r, &h) != PK_OK)
                goto nomem;
            continue;
        } else if (r.in_sample && indented && r.has_frame_lines && !lines.unterminated) {
            /* Under a frame, `-F +srcline` prints its source line, `FILE:LINE`, or what perf
             * knows instead (`[kernel.kallsyms][ADDRESS]`, `??:0`), which names nothing. */
            if (!r.sample_skipped && perf_parse_srcline(text, len, &file, &file_len, &number) &&
                !add_srcline(&r, file, file_len, number))
                goto nomem;
            continue;
        }
        /* The sample being read is incomplete: it is dropped. */
        r.in_sample = false;
        if (lines.unterminated)
            status = pk_damage(err, lines.offset,
                               "line %llu is cut short: the input ends inside it",
                               (unsigned long long)lines.number);
        else
            status = pk_damage(err, lines.offset,
                               "line %llu is not perf script output: expected a sample header "
                               "('COMM PID/TID [CPU] TIME: PERIOD EVENT:'), a frame "
                               "('ADDRESS SYMBOL (DSO)') or an empty line",
                               (unsigned long long)lines.number);
        break;
    }
    if (status == PK_OK && !end_sample(&r))
        goto nomem;
    if (status == PK_OK && !pk_in_error(in) && r.samples == 0)
        status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                              "no samples: expected perf script output, a sample header "
                              "('COMM PID/TID [CPU] TIME: PERIOD EVENT:') and its frames");
    finish_metadata(&r);
    pk_text_lines_free(&lines);
    reader_free(&r);
    return status;
nomem:
    pk_text_lines_free(&lines);
    reader_free(&r);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}
