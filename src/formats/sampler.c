/* Apple Sampler's "@supersamplerV1.0" file, as reverse-engineered by Kevin Reid (2008):
 *
 *   "@supersamplerV1.0" LF "@symboltableV1.1" LF
 *   (TAB u32 id TAB u32 unknown TAB symbol TAB library-path TAB library-path LF)*
 *   "@end" LF
 *   ("@threadV1.0" TAB 4 hex digits (thread id) LF
 *     (TAB u32 1 u32 0 u32 1 u32 n u32 frame[n] LF)*)*
 *   "@end" LF
 *
 * u32 = four big-endian bytes, which may be TAB or LF, so everything is parsed by position.
 * A frame is the id of a symbol. A thread id is also a symbol id whose entry is "Thread_" and
 * the id (name and both paths).
 *
 * Model: one sample per row (the 1 0 1 words are kept opaque; other values are counted in a
 * warning). A symbol is a function in the resource of its first library path. A thread is
 * named by its symbol entry when that starts with "Thread_", else "Thread_" and the hex digits
 * of its block header. An unknown frame id becomes a function "0x%08x".
 * Frame order inside a row is not documented. Unless --sampler-order says, it is detected from
 * the first 4096 rows (kept until then; the rest stream straight into the model):
 *   1. rows that start with their own thread's id are root first (this writer's files), rows
 *      that end with it leaf first; the majority decides;
 *   2. else the end with fewer distinct ids over rows of two or more frames is the root (real
 *      stacks share their thread-start frames);
 *   3. else the end whose most frequent id carries more samples is the root;
 *   4. else root first.
 * The decision is kept as the property sampler.frame-order. A thread's own id at the root end
 * of its rows is dropped: it is the thread, not a function.
 *
 * Writer: the grammar exactly. Thread ids are the profile's thread ids when they are distinct
 * and fit 16 bits, else 1, 2, ...; each gets a "Thread_XXXX" entry (four upper-case hex digits, as
 * in its block header). Symbol ids are 0x00010000 plus the function's index, unknown 0, both
 * paths the function's resource path (or name); TAB and LF in text become spaces. Rows are root
 * first and start with the thread's own id, so the detection above reads them back exactly.
 * The constants 1 0 1 are written as they are, and a row of weight w is written w times, for
 * the value chosen (a count value by default); more than 50 million rows is refused.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"

static const char sm_magic[] = "@supersamplerV1.0\n";
static const char sm_symbols[] = "@symboltableV1.1\n";
static const char sm_thread[] = "@threadV1.0\t";
static const char sm_end[] = "@end";

/* Longest text field read (symbols and paths). */
#define SM_MAX_FIELD ((size_t)PK_INPUT_CHUNK - 1)
#define SM_MAX_WRITTEN_ROWS 50000000u
#define SM_FIRST_SYMBOL_ID 0x00010000u

static uint32_t sm_be32(const uint8_t *d)
{
    return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

static int sm_probe(const uint8_t *data, size_t size)
{
    size_t n = sizeof sm_magic - 1;
    if (size >= n && memcmp(data, sm_magic, n) == 0)
        return PK_PROBE_CERTAIN;
    /* A file cut inside its first line still starts like one. */
    if (size >= 12 && size < n && memcmp(data, sm_magic, size) == 0)
        return PK_PROBE_LIKELY;
    return PK_PROBE_NO;
}

static const char *const sm_extensions[] = {".sample", NULL};

static const pk_option_spec sm_read_option_specs[] = {
    {"sampler-order", "leaf-first|root-first",
     "frame order in sample rows (default: detected)"},
    {NULL, NULL, NULL},
};

/* ---- parser (shared by the reader and the dump) ---------------------------------------------- */

typedef struct sm_symbol {
    uint32_t name;     /* string */
    uint32_t path;     /* string: first library path */
    uint32_t frame;    /* model frame, PK_NONE until used */
} sm_symbol;

typedef enum sm_order { SM_ORDER_DETECT, SM_ORDER_ROOT_FIRST, SM_ORDER_LEAF_FIRST } sm_order;

/* Rows kept while the frame order is not decided yet, and how many of them decide it. */
#define SM_DETECT_ROWS 4096
#define SM_DETECT_WORDS ((size_t)1 << 22)

typedef struct sm_parser {
    pk_profile *p; /* the profile read, or a scratch one that holds names for the dump */
    const pk_read_options *options;
    pk_error *err;
    pk_output *dump; /* dump mode when not NULL */
    bool raw;

    sm_symbol *symbols;
    size_t symbol_count, symbol_capacity;
    pk_u64map symbol_by_id;

    pk_u64map thread_by_id; /* thread id -> model thread */
    uint32_t *thread_ids;   /* model thread -> thread id */
    size_t thread_capacity;
    uint32_t thread;        /* model thread of the open block */
    uint32_t thread_id;

    sm_order order;
    const char *order_reason;
    uint32_t value;       /* samples */
    uint32_t *row;        /* frame ids of the row being read */
    size_t row_capacity;
    uint32_t *previous_ids, *previous_stacks; /* the last row, root first, and its stacks */
    size_t previous_depth, previous_capacity;
    uint32_t previous_thread, previous_stack; /* and its sample row */
    size_t previous_row;
    /* Until the order is decided: (model thread, n, n frame ids) per row. */
    uint32_t *pending;
    size_t pending_words, pending_capacity, pending_rows;

    uint64_t sample_rows;
    uint64_t odd_words;
    uint64_t duplicate_ids;
    uint64_t two_paths;
    uint64_t unknown_frames;
} sm_parser;

static pk_status sm_nomem(sm_parser *s)
{
    return pk_error_set(s->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static bool sm_grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return true;
    size_t cap = *capacity ? *capacity * 2 : 64;
    void *grown = realloc(*items, cap * size);
    if (!grown)
        return false;
    *items = grown;
    *capacity = cap;
    return true;
}

/* Damage: an error, or with salvage a warning (the caller then stops and keeps what it has).
 * Returns PK_OK only when salvaging. */
static pk_status sm_damage(sm_parser *s, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static pk_status sm_damage(sm_parser *s, uint64_t offset, const char *fmt, ...)
{
    char message[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (s->dump || !s->options || !s->options->salvage)
        return pk_error_set(s->err, PK_ERR_INPUT, (int64_t)offset, "%s", message);
    pk_warn(s->p, "damaged at byte %" PRIu64 ": %s; kept the %" PRIu64 " sample rows before it",
            offset, message, s->sample_rows);
    return PK_OK;
}

/* Marks the end of a parse that stopped at damage when salvaging. */
#define SM_STOP 1000

static pk_status sm_stop_or(pk_status st)
{
    return st == PK_OK ? (pk_status)SM_STOP : st;
}

static pk_status sm_io(sm_parser *s, pk_input *in)
{
    return pk_in_fail(in, s->err);
}

/* Consumes the literal text, or fails naming what was expected. */
static pk_status sm_expect(sm_parser *s, pk_input *in, const char *text, const char *what)
{
    size_t n = strlen(text);
    const uint8_t *d;
    uint64_t offset = pk_in_offset(in);
    size_t have = pk_in_peek(in, n, &d);
    if (have < n && pk_in_error(in))
        return sm_io(s, in);
    if (have < n || memcmp(d, text, n) != 0) {
        if (have < n && memcmp(d, text, have) == 0)
            return sm_stop_or(sm_damage(s, offset, "the file ends inside %s", what));
        return sm_stop_or(sm_damage(s, offset, "expected %s", what));
    }
    pk_in_skip_buffered(in, n);
    return PK_OK;
}

/* Reads a text field ended by delim (TAB or LF; the other one may not occur in it). *text is
 * valid until the next read from in. */
static pk_status sm_text(sm_parser *s, pk_input *in, char delim, const char *what,
                         const char **text, size_t *len)
{
    uint64_t offset = pk_in_offset(in);
    size_t want = 256;
    for (;;) {
        const uint8_t *d;
        size_t have = pk_in_peek(in, want, &d);
        for (size_t i = 0; i < have; i++) {
            if (d[i] == '\t' || d[i] == '\n') {
                if (d[i] != delim)
                    return sm_stop_or(sm_damage(s, offset + i, "%s ends with a %s, not a %s", what,
                                                d[i] == '\t' ? "TAB" : "line feed",
                                                delim == '\t' ? "TAB" : "line feed"));
                *text = (const char *)d;
                *len = i;
                pk_in_skip_buffered(in, i + 1);
                return PK_OK;
            }
        }
        if (have < want) {
            if (pk_in_error(in))
                return sm_io(s, in);
            return sm_stop_or(sm_damage(s, offset, "the file ends inside %s", what));
        }
        if (want > SM_MAX_FIELD)
            return sm_stop_or(sm_damage(s, offset, "%s is longer than %zu bytes", what, SM_MAX_FIELD));
        want = want * 2 > SM_MAX_FIELD + 1 ? SM_MAX_FIELD + 1 : want * 2;
    }
}

static void sm_dump_text(pk_output *out, const char *s, size_t n)
{
    pk_out_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            pk_out_printf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            pk_out_printf(out, "\\x%02x", c);
        else
            pk_out_putc(out, (char)c);
    }
    pk_out_putc(out, '"');
}

static void sm_dump_offset(sm_parser *s, uint64_t offset)
{
    pk_out_printf(s->dump, "%6" PRIu64 "  ", offset);
}

static pk_status sm_add_symbol(sm_parser *s, uint32_t id, const char *name, size_t name_len,
                               const char *path, size_t path_len)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&s->symbol_by_id, id, (uint32_t)s->symbol_count, &slot, &inserted))
        return sm_nomem(s);
    if (!inserted) {
        s->duplicate_ids++;
        return PK_OK;
    }
    if (!sm_grow((void **)&s->symbols, &s->symbol_capacity, s->symbol_count, sizeof *s->symbols))
        return sm_nomem(s);
    sm_symbol *sym = &s->symbols[s->symbol_count++];
    sym->name = pk_intern(s->p, name, name_len);
    sym->path = pk_intern(s->p, path, path_len);
    sym->frame = PK_NONE;
    if (sym->name == PK_NONE || sym->path == PK_NONE)
        return sm_nomem(s);
    return PK_OK;
}

static pk_status sm_symbol_row(sm_parser *s, pk_input *in)
{
    uint64_t offset = pk_in_offset(in);
    const uint8_t *d;
    size_t have = pk_in_peek(in, 11, &d);
    if (have < 11) {
        if (pk_in_error(in))
            return sm_io(s, in);
        return sm_stop_or(sm_damage(s, offset, "the file ends inside a symbol row"));
    }
    if (d[5] != '\t' || d[10] != '\t')
        return sm_stop_or(sm_damage(s, offset + (d[5] != '\t' ? 5 : 10),
                                    "expected a TAB after the %s of a symbol row",
                                    d[5] != '\t' ? "id" : "unknown integer"));
    uint32_t id = sm_be32(d + 1), unknown = sm_be32(d + 6);
    pk_in_skip_buffered(in, 11);

    /* The text fields move the buffer: intern (or copy) each one before the next. */
    const char *text;
    size_t len;
    pk_status st = sm_text(s, in, '\t', "a symbol name", &text, &len);
    if (st != PK_OK)
        return st;
    uint32_t name = pk_intern(s->p, text, len);
    if (name == PK_NONE)
        return sm_nomem(s);
    st = sm_text(s, in, '\t', "a library path", &text, &len);
    if (st != PK_OK)
        return st;
    uint32_t path = pk_intern(s->p, text, len);
    if (path == PK_NONE)
        return sm_nomem(s);
    st = sm_text(s, in, '\n', "the second library path", &text, &len);
    if (st != PK_OK)
        return st;
    bool same_paths = len == pk_str_len(s->p, path) && memcmp(text, pk_str(s->p, path), len) == 0;

    if (s->dump) {
        sm_dump_offset(s, offset);
        if (s->raw) {
            pk_out_printf(s->dump, "symbol id=0x%08" PRIx32 " unknown=0x%08" PRIx32 " symbol=", id,
                          unknown);
            sm_dump_text(s->dump, pk_str(s->p, name), pk_str_len(s->p, name));
            pk_out_puts(s->dump, " library=");
            sm_dump_text(s->dump, pk_str(s->p, path), pk_str_len(s->p, path));
            pk_out_puts(s->dump, " library2=");
            sm_dump_text(s->dump, text, len);
        } else {
            pk_out_printf(s->dump, "symbol 0x%08" PRIx32 " ", id);
            sm_dump_text(s->dump, pk_str(s->p, name), pk_str_len(s->p, name));
            pk_out_puts(s->dump, " in ");
            sm_dump_text(s->dump, pk_str(s->p, path), pk_str_len(s->p, path));
            if (!same_paths) {
                pk_out_puts(s->dump, " and ");
                sm_dump_text(s->dump, text, len);
            }
            if (unknown)
                pk_out_printf(s->dump, " (unknown=%" PRIu32 ")", unknown);
        }
        pk_out_putc(s->dump, '\n');
    } else if (!same_paths) {
        s->two_paths++;
    }
    return sm_add_symbol(s, id, pk_str(s->p, name), pk_str_len(s->p, name), pk_str(s->p, path),
                         pk_str_len(s->p, path));
}

static pk_status sm_begin_thread(sm_parser *s, pk_input *in)
{
    uint64_t offset = pk_in_offset(in);
    pk_status st = sm_expect(s, in, sm_thread, "@threadV1.0 and a TAB");
    if (st != PK_OK)
        return st;
    const char *text;
    size_t len;
    st = sm_text(s, in, '\n', "a thread id", &text, &len);
    if (st != PK_OK)
        return st;
    uint32_t id = 0;
    char digits[9];
    if (len == 0 || len > 8)
        return sm_stop_or(sm_damage(s, offset + sizeof sm_thread - 1,
                                    "a thread id has 1 to 8 hex digits, not %zu bytes", len));
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        unsigned v;
        if (c >= '0' && c <= '9')
            v = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = (unsigned)(c - 'A' + 10);
        else
            return sm_stop_or(sm_damage(s, offset + sizeof sm_thread - 1 + i,
                                        "a thread id is not hexadecimal"));
        id = id << 4 | v;
        digits[i] = c;
    }
    digits[len] = '\0';

    /* The thread's name: its symbol entry when it has one. */
    uint32_t name = PK_NONE;
    uint32_t *sym = pk_u64map_find(&s->symbol_by_id, id);
    if (sym) {
        const char *sym_name = pk_str(s->p, s->symbols[*sym].name);
        if (strncmp(sym_name, "Thread_", 7) == 0)
            name = s->symbols[*sym].name;
    }
    if (s->dump) {
        sm_dump_offset(s, offset);
        if (s->raw)
            pk_out_printf(s->dump, "thread id=%s\n", digits);
        else if (name != PK_NONE)
            pk_out_printf(s->dump, "thread %s (%s)\n", digits, pk_str(s->p, name));
        else
            pk_out_printf(s->dump, "thread %s\n", digits);
        return PK_OK;
    }

    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&s->thread_by_id, id, 0, &slot, &inserted))
        return sm_nomem(s);
    if (inserted) {
        if (name == PK_NONE)
            name = pk_intern_printf(s->p, "Thread_%s", digits);
        uint32_t thread = name == PK_NONE ? PK_NONE : pk_add_thread(s->p, name, -1, id);
        if (thread == PK_NONE)
            return sm_nomem(s);
        if (!sm_grow((void **)&s->thread_ids, &s->thread_capacity, thread, sizeof *s->thread_ids))
            return sm_nomem(s);
        s->thread_ids[thread] = id;
        slot = pk_u64map_find(&s->thread_by_id, id);
        *slot = thread;
    }
    s->thread = *slot;
    s->thread_id = id;
    return PK_OK;
}

static uint32_t sm_frame_of(sm_parser *s, uint32_t id);
static pk_status sm_decide(sm_parser *s);

/* The model stack of a row given root first or leaf first; the thread's own id at the root end
 * is the thread, not a function, and is left out. Neighbouring samples mostly share their root
 * part, so the stacks of the previous row's common prefix are reused without hashing. */
static pk_status sm_stack_of(sm_parser *s, uint32_t own, const uint32_t *ids, size_t n,
                             bool leaf_first, uint32_t *stack)
{
    *stack = PK_NONE;
    size_t skip = n > 0 && ids[leaf_first ? n - 1 : 0] == own;
    size_t depth = n - skip;
    if (depth > s->previous_capacity) {
        size_t cap = depth < 64 ? 64 : depth;
        uint32_t *ids_grown = realloc(s->previous_ids, cap * sizeof *ids_grown);
        if (ids_grown)
            s->previous_ids = ids_grown;
        uint32_t *stacks_grown = realloc(s->previous_stacks, cap * sizeof *stacks_grown);
        if (stacks_grown)
            s->previous_stacks = stacks_grown;
        if (!ids_grown || !stacks_grown)
            return sm_nomem(s);
        s->previous_capacity = cap;
    }
    bool same = true;
    for (size_t k = 0; k < depth; k++) {
        uint32_t id = ids[leaf_first ? n - 1 - skip - k : skip + k];
        if (same && k < s->previous_depth && s->previous_ids[k] == id) {
            *stack = s->previous_stacks[k];
            continue;
        }
        same = false;
        uint32_t frame = sm_frame_of(s, id);
        *stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(s->p, *stack, frame);
        if (*stack == PK_NONE) {
            s->previous_depth = 0;
            return sm_nomem(s);
        }
        s->previous_ids[k] = id;
        s->previous_stacks[k] = *stack;
    }
    s->previous_depth = depth;
    return PK_OK;
}

static pk_status sm_add_row(sm_parser *s, uint32_t thread, uint32_t stack)
{
    if (thread != s->previous_thread || stack != s->previous_stack) {
        s->previous_row = pk_sample_row(s->p, thread, stack);
        if (s->previous_row == SIZE_MAX)
            return sm_nomem(s);
        s->previous_thread = thread;
        s->previous_stack = stack;
    }
    pk_sample_row_add(s->p, s->previous_row, s->value, 1);
    s->sample_rows++;
    return PK_OK;
}

/* Keeps a row until the order is decided; decides once enough rows are in. */
static pk_status sm_keep_row(sm_parser *s, size_t n)
{
    if (s->pending_capacity - s->pending_words < n + 2) {
        size_t cap = s->pending_capacity ? s->pending_capacity : 1024;
        while (cap - s->pending_words < n + 2)
            cap *= 2;
        uint32_t *grown = realloc(s->pending, cap * sizeof *grown);
        if (!grown)
            return sm_nomem(s);
        s->pending = grown;
        s->pending_capacity = cap;
    }
    uint32_t *w = s->pending + s->pending_words;
    w[0] = s->thread;
    w[1] = (uint32_t)n;
    memcpy(w + 2, s->row, n * sizeof *w);
    s->pending_words += n + 2;
    s->pending_rows++;
    if (s->pending_rows >= SM_DETECT_ROWS || s->pending_words >= SM_DETECT_WORDS)
        return sm_decide(s);
    return PK_OK;
}

static void sm_dump_frame(sm_parser *s, uint32_t id)
{
    uint32_t *sym = pk_u64map_find(&s->symbol_by_id, id);
    if (s->raw || !sym)
        pk_out_printf(s->dump, "0x%08" PRIx32, id);
    else
        pk_out_puts(s->dump, pk_str(s->p, s->symbols[*sym].name));
}

static pk_status sm_sample_row(sm_parser *s, pk_input *in)
{
    uint64_t offset = pk_in_offset(in);
    const uint8_t *d;
    size_t have = pk_in_peek(in, 17, &d);
    if (have < 17) {
        if (pk_in_error(in))
            return sm_io(s, in);
        return sm_stop_or(sm_damage(s, offset, "the file ends inside a sample row"));
    }
    uint32_t words[3] = {sm_be32(d + 1), sm_be32(d + 5), sm_be32(d + 9)};
    uint32_t n = sm_be32(d + 13);
    pk_in_skip_buffered(in, 17);
    if (in->size_hint && (uint64_t)n * 4 + 1 > in->size_hint - (offset + 17 < in->size_hint
                                                                     ? offset + 17
                                                                     : in->size_hint))
        return sm_stop_or(sm_damage(s, offset + 13,
                                    "a sample row claims %" PRIu32 " frames, more than the bytes "
                                    "left can hold",
                                    n));
    if (words[0] != 1 || words[1] != 0 || words[2] != 1)
        s->odd_words++;
    if (s->dump) {
        sm_dump_offset(s, offset);
        if (s->raw)
            pk_out_printf(s->dump, "sample %" PRIu32 " %" PRIu32 " %" PRIu32 " n=%" PRIu32 ":",
                          words[0], words[1], words[2], n);
        else if (words[0] != 1 || words[1] != 0 || words[2] != 1)
            pk_out_printf(s->dump, "sample (%" PRIu32 " %" PRIu32 " %" PRIu32 ") %" PRIu32 " frames:",
                          words[0], words[1], words[2], n);
        else
            pk_out_printf(s->dump, "sample %" PRIu32 " frames:", n);
    }
    uint32_t stack = PK_NONE;
    uint32_t own = s->dump ? 0 : s->thread_ids[s->thread];
    if (!s->dump && n > s->row_capacity) {
        /* Grows with the frames actually read, never with the count alone. */
        size_t cap = s->row_capacity ? s->row_capacity : 64;
        while (cap < n && cap < 16384)
            cap *= 2;
        if (cap > s->row_capacity) {
            uint32_t *grown = realloc(s->row, cap * sizeof *grown);
            if (!grown)
                return sm_nomem(s);
            s->row = grown;
            s->row_capacity = cap;
        }
    }
    for (uint32_t done = 0; done < n;) {
        uint32_t chunk = n - done < 16384 ? n - done : 16384;
        have = pk_in_peek(in, (size_t)chunk * 4, &d);
        if (have < (size_t)chunk * 4) {
            if (s->dump)
                pk_out_putc(s->dump, '\n');
            if (pk_in_error(in))
                return sm_io(s, in);
            return sm_stop_or(sm_damage(s, offset,
                                        "a sample row of %" PRIu32 " frames runs past the end of "
                                        "the input",
                                        n));
        }
        for (uint32_t i = 0; i < chunk; i++) {
            uint32_t id = sm_be32(d + 4 * i);
            if (s->dump) {
                pk_out_puts(s->dump, s->raw || done + i == 0 ? " " : "; ");
                sm_dump_frame(s, id);
            } else {
                if (done + i >= s->row_capacity) {
                    uint32_t *grown = realloc(s->row, 2 * s->row_capacity * sizeof *grown);
                    if (!grown)
                        return sm_nomem(s);
                    s->row = grown;
                    s->row_capacity *= 2;
                }
                s->row[done + i] = id;
            }
        }
        pk_in_skip_buffered(in, (size_t)chunk * 4);
        done += chunk;
    }
    if (s->dump)
        pk_out_putc(s->dump, '\n');
    int c = pk_in_peekc(in);
    if (c != '\n') {
        if (c < 0 && pk_in_error(in))
            return sm_io(s, in);
        return sm_stop_or(sm_damage(s, pk_in_offset(in),
                                    c < 0 ? "the file ends before the line feed of a sample row"
                                          : "a sample row does not end with a line feed after "
                                            "its frames"));
    }
    pk_in_getc(in);
    if (s->dump)
        return PK_OK;
    if (s->order == SM_ORDER_DETECT)
        return sm_keep_row(s, n);
    pk_status st = sm_stack_of(s, own, s->row, n, s->order == SM_ORDER_LEAF_FIRST, &stack);
    return st == PK_OK ? sm_add_row(s, s->thread, stack) : st;
}

/* Parses the whole file; returns PK_OK, an error, or SM_STOP after damage when salvaging. */
static pk_status sm_parse(sm_parser *s, pk_input *in)
{
    pk_status st = sm_expect(s, in, sm_magic, "@supersamplerV1.0 and a line feed");
    if (st != PK_OK)
        return st;
    if (s->dump) {
        sm_dump_offset(s, 0);
        pk_out_puts(s->dump, "@supersamplerV1.0\n");
    }
    uint64_t offset = pk_in_offset(in);
    st = sm_expect(s, in, sm_symbols, "@symboltableV1.1 and a line feed");
    if (st != PK_OK)
        return st;
    if (s->dump) {
        sm_dump_offset(s, offset);
        pk_out_puts(s->dump, "@symboltableV1.1\n");
    }
    for (;;) {
        offset = pk_in_offset(in);
        int c = pk_in_peekc(in);
        if (c == '\t') {
            st = sm_symbol_row(s, in);
        } else if (c == '@') {
            st = sm_expect(s, in, "@end\n", "@end and a line feed");
            if (st == PK_OK && s->dump) {
                sm_dump_offset(s, offset);
                pk_out_printf(s->dump, "@end (%zu symbols)\n", s->symbol_count);
            }
            break;
        } else if (c < 0) {
            if (pk_in_error(in))
                return sm_io(s, in);
            return sm_stop_or(sm_damage(s, offset, "the file ends inside the symbol table"));
        } else {
            return sm_stop_or(sm_damage(s, offset, "expected a symbol row (TAB) or @end"));
        }
        if (st != PK_OK || (s->dump && pk_out_failed(s->dump)))
            return st;
    }
    if (st != PK_OK)
        return st;

    bool in_thread = false;
    for (;;) {
        offset = pk_in_offset(in);
        int c = pk_in_peekc(in);
        if (c == '\t' && in_thread) {
            st = sm_sample_row(s, in);
        } else if (c == '@') {
            const uint8_t *d;
            size_t have = pk_in_peek(in, sizeof sm_end - 1, &d);
            if (have == sizeof sm_end - 1 && memcmp(d, sm_end, have) == 0) {
                pk_in_skip_buffered(in, have);
                c = pk_in_getc(in);
                if (c != '\n' && c >= 0)
                    return sm_stop_or(sm_damage(s, offset + 4, "expected a line feed after @end"));
                if (s->dump) {
                    sm_dump_offset(s, offset);
                    pk_out_puts(s->dump, "@end\n");
                }
                break;
            }
            st = sm_begin_thread(s, in);
            in_thread = st == PK_OK;
        } else if (c < 0) {
            if (pk_in_error(in))
                return sm_io(s, in);
            return sm_stop_or(sm_damage(s, offset, "the file ends before the final @end"));
        } else {
            return sm_stop_or(sm_damage(s, offset,
                                        in_thread ? "expected a sample row (TAB), @threadV1.0 or @end"
                                                  : "expected @threadV1.0 or @end"));
        }
        if (st != PK_OK || (s->dump && pk_out_failed(s->dump)))
            return st;
    }
    offset = pk_in_offset(in);
    if (!pk_in_at_end(in)) {
        if (s->dump) {
            sm_dump_offset(s, offset);
            pk_out_puts(s->dump, "(bytes after the final @end)\n");
        } else {
            pk_warn(s->p, "bytes after the final @end at byte %" PRIu64 " are ignored", offset);
        }
    }
    return PK_OK;
}

static void sm_parser_free(sm_parser *s)
{
    free(s->symbols);
    free(s->thread_ids);
    free(s->row);
    free(s->pending);
    free(s->previous_ids);
    free(s->previous_stacks);
    pk_u64map_free(&s->symbol_by_id);
    pk_u64map_free(&s->thread_by_id);
}

static void sm_parser_init(sm_parser *s, pk_profile *p, const pk_read_options *options,
                           pk_error *err)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->options = options;
    s->err = err;
    pk_u64map_init(&s->symbol_by_id);
    pk_u64map_init(&s->thread_by_id);
    s->previous_thread = PK_NONE;
}

/* ---- reader: the frame order -------------------------------------------------------------- */

/* Sample weight per distinct id at one end of the rows. */
typedef struct sm_tally {
    pk_u64map index; /* id -> weight */
    size_t count;
    uint32_t top;
} sm_tally;

static bool sm_tally_add(sm_tally *t, uint32_t id)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&t->index, id, 0, &slot, &inserted))
        return false;
    t->count += inserted;
    if (++*slot > t->top)
        t->top = *slot;
    return true;
}

/* Decides the order from the rows kept so far (see the top of the file), then adds them. */
static pk_status sm_decide(sm_parser *s)
{
    uint64_t own_first = 0, own_last = 0;
    sm_tally first = {0}, last = {0};
    pk_u64map_init(&first.index);
    pk_u64map_init(&last.index);
    bool ok = true;
    for (size_t w = 0; w < s->pending_words && ok; w += 2 + s->pending[w + 1]) {
        uint32_t own = s->thread_ids[s->pending[w]], n = s->pending[w + 1];
        const uint32_t *ids = s->pending + w + 2;
        if (n < 2)
            continue;
        own_first += ids[0] == own;
        own_last += ids[n - 1] == own;
        ok = sm_tally_add(&first, ids[0]) && sm_tally_add(&last, ids[n - 1]);
    }
    pk_u64map_free(&first.index);
    pk_u64map_free(&last.index);
    if (!ok)
        return sm_nomem(s);
    if (own_first != own_last) {
        s->order = own_first > own_last ? SM_ORDER_ROOT_FIRST : SM_ORDER_LEAF_FIRST;
        s->order_reason = "thread id at the root end";
    } else if (first.count != last.count) {
        s->order = first.count < last.count ? SM_ORDER_ROOT_FIRST : SM_ORDER_LEAF_FIRST;
        s->order_reason = "fewer distinct frames at the root end";
    } else if (first.top != last.top) {
        s->order = first.top > last.top ? SM_ORDER_ROOT_FIRST : SM_ORDER_LEAF_FIRST;
        s->order_reason = "most frequent frame at the root end";
    } else {
        s->order = SM_ORDER_ROOT_FIRST;
        s->order_reason = "no evidence, the default";
    }
    pk_status st = PK_OK;
    for (size_t w = 0; w < s->pending_words && st == PK_OK; w += 2 + s->pending[w + 1]) {
        uint32_t thread = s->pending[w], n = s->pending[w + 1];
        uint32_t stack;
        st = sm_stack_of(s, s->thread_ids[thread], s->pending + w + 2, n,
                         s->order == SM_ORDER_LEAF_FIRST, &stack);
        if (st == PK_OK)
            st = sm_add_row(s, thread, stack);
    }
    free(s->pending);
    s->pending = NULL;
    s->pending_words = s->pending_capacity = s->pending_rows = 0;
    return st;
}

static uint32_t sm_frame_of(sm_parser *s, uint32_t id)
{
    uint32_t *slot = pk_u64map_find(&s->symbol_by_id, id);
    if (!slot) {
        char name[16];
        snprintf(name, sizeof name, "0x%08" PRIx32, id);
        s->unknown_frames++;
        if (sm_add_symbol(s, id, name, strlen(name), "", 0) != PK_OK)
            return PK_NONE;
        slot = pk_u64map_find(&s->symbol_by_id, id);
    }
    sm_symbol *sym = &s->symbols[*slot];
    if (sym->frame != PK_NONE)
        return sym->frame;
    uint32_t resource = PK_NONE;
    size_t path_len = pk_str_len(s->p, sym->path);
    if (path_len) {
        const char *path = pk_str(s->p, sym->path);
        const char *base = strrchr(path, '/');
        pk_resource res = {.name = base && base[1] ? pk_intern_cstr(s->p, base + 1) : sym->path,
                           .path = sym->path};
        resource = res.name == PK_NONE ? PK_NONE : pk_intern_resource(s->p, &res);
        if (resource == PK_NONE)
            return PK_NONE;
    }
    pk_function fn = {.name = sym->name, .resource = resource};
    uint32_t function = pk_intern_function(s->p, &fn);
    if (function == PK_NONE)
        return PK_NONE;
    pk_frame frame = {.function = function, .resource = resource};
    sym->frame = pk_intern_frame(s->p, &frame);
    return sym->frame;
}

/* Adds the rows still kept, records the order and the oddities. */
static pk_status sm_finish(sm_parser *s)
{
    if (s->order == SM_ORDER_DETECT) {
        pk_status st = sm_decide(s);
        if (st != PK_OK)
            return st;
    }
    char property[96];
    snprintf(property, sizeof property, "%s (%s)",
             s->order == SM_ORDER_ROOT_FIRST ? "root-first" : "leaf-first", s->order_reason);
    if (pk_property_set(s->p, "sampler.frame-order", property) != PK_OK)
        return sm_nomem(s);
    if (s->odd_words)
        pk_warn(s->p,
                "%" PRIu64 " sample rows start with other words than 1 0 1; each still counts once",
                s->odd_words);
    if (s->duplicate_ids)
        pk_warn(s->p, "%" PRIu64 " symbol rows repeat an id; the first row of each id is used",
                s->duplicate_ids);
    if (s->two_paths)
        pk_warn(s->p, "%" PRIu64 " symbols have two different library paths; the first is used",
                s->two_paths);
    if (s->unknown_frames)
        pk_warn(s->p, "%" PRIu64 " frame ids are not in the symbol table", s->unknown_frames);
    return PK_OK;
}

static pk_status sm_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                         pk_error *err)
{
    const char *order = options ? pk_option_get(&options->extra, "sampler-order") : NULL;
    if (order && strcmp(order, "root-first") != 0 && strcmp(order, "leaf-first") != 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "--sampler-order takes leaf-first or root-first, not '%s'", order);
    sm_parser s;
    sm_parser_init(&s, p, options, err);
    s.order = !order ? SM_ORDER_DETECT
              : strcmp(order, "root-first") == 0 ? SM_ORDER_ROOT_FIRST
                                                 : SM_ORDER_LEAF_FIRST;
    s.order_reason = "--sampler-order";
    s.value = pk_add_value_type(p, "samples", "count");
    pk_status st = s.value == PK_NONE ? sm_nomem(&s) : sm_parse(&s, in);
    if (st == (pk_status)SM_STOP)
        st = PK_OK;
    if (st == PK_OK)
        st = sm_finish(&s);
    sm_parser_free(&s);
    return st;
}

static pk_status sm_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                         pk_error *err)
{
    pk_profile *names = pk_profile_new();
    if (!names)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    sm_parser s;
    sm_parser_init(&s, names, options, err);
    s.dump = out;
    s.raw = raw;
    pk_out_puts(out, "offset  record\n");
    pk_status st = sm_parse(&s, in);
    if (st == (pk_status)SM_STOP)
        st = PK_OK;
    sm_parser_free(&s);
    pk_profile_free(names);
    return st;
}

/* ---- writer -------------------------------------------------------------------------------- */

static void sm_put_be32(pk_output *out, uint32_t v)
{
    char d[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    pk_out_write(out, d, 4);
}

/* Text without the TAB and LF that delimit it. */
static void sm_put_text(pk_output *out, const char *s)
{
    for (const char *c = s; *c; c++)
        pk_out_putc(out, *c == '\t' || *c == '\n' ? ' ' : *c);
}

static void sm_put_symbol(pk_output *out, uint32_t id, const char *name, const char *path)
{
    pk_out_putc(out, '\t');
    sm_put_be32(out, id);
    pk_out_putc(out, '\t');
    sm_put_be32(out, 0);
    pk_out_putc(out, '\t');
    sm_put_text(out, name);
    pk_out_putc(out, '\t');
    sm_put_text(out, path);
    pk_out_putc(out, '\t');
    sm_put_text(out, path);
    pk_out_putc(out, '\n');
}

static bool sm_is_count(const pk_profile *p, uint32_t v)
{
    const pk_value_type *t = pk_value_type_at(p, v);
    const char *unit = pk_str(p, t->unit);
    return strcmp(pk_str(p, t->name), "samples") == 0 || strcmp(unit, "count") == 0 ||
           strcmp(unit, "samples") == 0 || unit[0] == '\0';
}

/* The value asked for when it is a count, else the first count value, else the one asked for. */
static uint32_t sm_choose_value(const pk_profile *p, const pk_write_options *options)
{
    size_t n = pk_value_type_count(p);
    uint32_t chosen = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (chosen < n && sm_is_count(p, chosen))
        return chosen;
    for (uint32_t v = 0; v < n; v++)
        if (sm_is_count(p, v))
            return v;
    return chosen;
}

static pk_status sm_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    size_t thread_count = pk_thread_count(p);
    size_t function_count = pk_function_count(p);
    size_t rows = pk_value_type_count(p) ? pk_sample_count(p) : 0;
    uint32_t value = rows ? sm_choose_value(p, options) : PK_NONE;
    if (rows && value >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value type %" PRIu32, value);
    if (thread_count > 0x10000)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "a Sampler file holds at most 65536 threads, not %zu", thread_count);
    if (function_count > UINT32_MAX - SM_FIRST_SYMBOL_ID)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET, "too many functions");
    uint64_t total = 0;
    for (size_t row = 0; row < rows; row++) {
        int64_t w = pk_sample_values(p, row)[value];
        if (w < 0)
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "a Sampler file cannot hold negative sample counts");
        total += (uint64_t)w;
        if (total > SM_MAX_WRITTEN_ROWS)
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "the value '%s' would need more than %u sample rows; choose a "
                                "count value",
                                pk_str(p, pk_value_type_at(p, value)->name), SM_MAX_WRITTEN_ROWS);
    }

    /* Thread ids: the profile's when distinct and 16-bit, else 1, 2, ... */
    uint32_t *ids = malloc((thread_count + 1) * sizeof *ids);
    size_t *order = malloc((rows + 1) * sizeof *order);
    size_t *starts = calloc(thread_count + 2, sizeof *starts);
    uint32_t *frames = NULL;
    pk_u64map seen;
    pk_u64map_init(&seen);
    pk_status st = PK_OK;
    if (!ids || !order || !starts) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    bool own_ids = true;
    for (size_t t = 0; t < thread_count && own_ids; t++) {
        int64_t tid = pk_thread_at(p, (uint32_t)t)->tid;
        uint32_t *slot;
        bool inserted;
        if (tid < 0 || tid > 0xffff) {
            own_ids = false;
        } else if (!pk_u64map_put(&seen, (uint64_t)tid, 0, &slot, &inserted)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            goto done;
        } else if (!inserted) {
            own_ids = false;
        }
        ids[t] = (uint32_t)tid;
    }
    if (!own_ids)
        for (size_t t = 0; t < thread_count; t++)
            ids[t] = (uint32_t)(t + 1 > 0xffff ? 0 : t + 1);

    /* Rows grouped by thread, in their order within each thread. */
    for (size_t row = 0; row < rows; row++)
        starts[pk_sample_thread(p, row) + 1]++;
    for (size_t t = 0; t < thread_count; t++)
        starts[t + 1] += starts[t];
    for (size_t row = 0; row < rows; row++)
        order[starts[pk_sample_thread(p, row)]++] = row;
    for (size_t t = thread_count; t > 0; t--)
        starts[t] = starts[t - 1];
    starts[0] = 0;

    pk_out_puts(out, sm_magic);
    pk_out_puts(out, sm_symbols);
    char thread_name[16];
    for (size_t t = 0; t < thread_count; t++) {
        snprintf(thread_name, sizeof thread_name, "Thread_%04" PRIX32, ids[t]);
        sm_put_symbol(out, ids[t], thread_name, thread_name);
    }
    for (size_t f = 0; f < function_count; f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        const char *path = "";
        if (fn->resource != PK_NONE && fn->resource < pk_resource_count(p)) {
            const pk_resource *res = pk_resource_at(p, fn->resource);
            path = pk_str(p, res->path && pk_str_len(p, res->path) ? res->path : res->name);
        }
        sm_put_symbol(out, SM_FIRST_SYMBOL_ID + (uint32_t)f, pk_str(p, fn->name), path);
    }
    pk_out_puts(out, "@end\n");

    size_t capacity = 0;
    for (size_t t = 0; t < thread_count && !pk_out_failed(out); t++) {
        pk_out_printf(out, "%s%04" PRIX32 "\n", sm_thread, ids[t]);
        for (size_t k = starts[t]; k < starts[t + 1]; k++) {
            size_t row = order[k];
            int64_t weight = pk_sample_values(p, row)[value];
            if (weight <= 0)
                continue;
            uint32_t stack = pk_sample_stack(p, row);
            size_t depth = stack == PK_NONE ? 0 : pk_stack_depth(p, stack);
            if (depth > capacity) {
                uint32_t *grown = realloc(frames, depth * sizeof *frames);
                if (!grown) {
                    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                    goto done;
                }
                frames = grown;
                capacity = depth;
            }
            if (depth)
                pk_stack_frames(p, stack, frames, capacity);
            for (int64_t w = 0; w < weight; w++) {
                pk_out_putc(out, '\t');
                sm_put_be32(out, 1);
                sm_put_be32(out, 0);
                sm_put_be32(out, 1);
                sm_put_be32(out, (uint32_t)depth + 1);
                sm_put_be32(out, ids[t]);
                for (size_t i = 0; i < depth; i++)
                    sm_put_be32(out, SM_FIRST_SYMBOL_ID + pk_frame_at(p, frames[i])->function);
                pk_out_putc(out, '\n');
            }
        }
    }
    pk_out_puts(out, "@end\n");
done:
    pk_u64map_free(&seen);
    free(ids);
    free(order);
    free(starts);
    free(frames);
    return st;
}

const pk_format pk_format_sampler = {
    .name = "sampler",
    .aliases = NULL,
    .extensions = sm_extensions,
    .description = "Apple Sampler @supersamplerV1.0 file",
    .probe = sm_probe,
    .read = sm_read,
    .write = sm_write,
    .dump = sm_dump,
    .read_options = sm_read_option_specs,
    .write_options = NULL,
};
