/* Folded (collapsed) stacks: one line per stack, `root;caller;...;leaf COUNT`, the input of
 * flamegraph.pl and inferno. Documented in docs/formats/folded.md.
 *
 * Reader: every non-blank line is a stack of frame names separated by ';' and, after the last
 * run of blanks, a count. Lines are streamed; memory grows with the distinct stacks only. A
 * file whose first line ends in two counts, `stack BASE NEW` (difffolded.pl, inferno-diff-
 * folded), is read as a differential profile (profkit/diff.h).
 * Writer: one line per distinct sequence of function names, weighted by the chosen value; a
 * differential profile gives `stack BASE NEW` lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/differential.h"
#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"
#include "profkit/diff.h"

/* Longest line the reader accepts. */
#define FOLDED_MAX_LINE (PK_INPUT_CHUNK - 1)

static const char *const folded_aliases[] = {"collapsed", NULL};
static const char *const folded_extensions[] = {".folded", ".collapsed", ".collapsedstack.txt",
                                                NULL};

static const pk_option_spec folded_read_options[] = {
    {"folded-threads", NULL,
     "the first frame of every line is a thread name (as written by --with-threads)"},
    {NULL, NULL, NULL},
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* ---- one line ---------------------------------------------------------------------------------- */

typedef struct folded_line {
    const char *stack; /* frames, ';'-separated, up to the last count */
    size_t stack_len;
    int64_t count;
    bool rounded;      /* the count had a fraction */
    /* The stack itself ends in a count: `frames BASE NEW`, a differential line */
    bool two_counts;
    size_t frames_len; /* two_counts: the frames alone, before BASE */
    int64_t base;      /* two_counts: BASE */
    bool base_rounded;
} folded_line;

typedef enum line_kind {
    LINE_BLANK,
    LINE_STACK,
    LINE_BAD
} line_kind;

/* What is wrong with a bad line, and where (offsets within the line). */
typedef struct line_problem {
    const char *what;   /* completes "line N ..." */
    size_t at;          /* offset of the problem */
    size_t token_len;   /* > 0: the bad count token at `at` is quoted in the message */
} line_problem;

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses the count token [s, s + n): digits, optionally a '.' and more digits. Rounds a fraction
 * to the nearest integer. Returns NULL, or what is wrong with the token. */
static const char *parse_count(const char *s, size_t n, int64_t *count, bool *rounded)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && is_digit(s[i])) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return "is too large";
        v = v * 10 + d;
        i++;
    }
    if (i == 0)
        return "is not a count";
    *rounded = false;
    if (i < n && s[i] == '.') {
        i++;
        bool round_up = i < n && s[i] >= '5' && s[i] <= '9';
        bool fraction = false;
        while (i < n && is_digit(s[i])) {
            if (s[i] != '0')
                fraction = true;
            i++;
        }
        if (fraction) {
            *rounded = true;
            if (round_up) {
                if (v == (uint64_t)INT64_MAX)
                    return "is too large";
                v++;
            }
        }
    }
    if (i != n)
        return "is not a count";
    *count = (int64_t)v;
    return NULL;
}

/* Splits a line (without its LF). */
static line_kind parse_line(const char *line, size_t len, folded_line *out, line_problem *problem)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    const char *nul = memchr(line, '\0', len);
    if (nul) {
        *problem = (line_problem){"contains a NUL byte (this is not a text file)",
                                  (size_t)(nul - line), 0};
        return LINE_BAD;
    }
    size_t end = len;
    while (end > 0 && is_blank(line[end - 1]))
        end--;
    if (end == 0)
        return LINE_BLANK;
    size_t count_start = end;
    while (count_start > 0 && !is_blank(line[count_start - 1]))
        count_start--;
    size_t stack_end = count_start;
    while (stack_end > 0 && is_blank(line[stack_end - 1]))
        stack_end--;
    if (count_start == 0) {
        *problem = (line_problem){"has no count: expected 'frame;frame;... COUNT'", end, 0};
        return LINE_BAD;
    }
    if (stack_end == 0) {
        *problem = (line_problem){"has a count but no stack", 0, 0};
        return LINE_BAD;
    }
    const char *bad = parse_count(line + count_start, end - count_start, &out->count,
                                  &out->rounded);
    if (bad) {
        *problem = (line_problem){bad, count_start, end - count_start};
        return LINE_BAD;
    }
    out->stack = line;
    out->stack_len = stack_end;
    /* "a;b 3 4": the token before the count is a count too, with frames before it. */
    size_t base_start = stack_end;
    while (base_start > 0 && !is_blank(line[base_start - 1]))
        base_start--;
    size_t frames_end = base_start;
    while (frames_end > 0 && is_blank(line[frames_end - 1]))
        frames_end--;
    out->two_counts = base_start > 0 && frames_end > 0 &&
                      parse_count(line + base_start, stack_end - base_start, &out->base,
                                  &out->base_rounded) == NULL;
    out->frames_len = out->two_counts ? frames_end : stack_end;
    return LINE_STACK;
}

/* ---- probe ------------------------------------------------------------------------------------- */

/* Plausible folded text: no control bytes, the first stack line well formed and most others
 * too (a damaged file is still recognised, so that --salvage can work on it). */
static int folded_probe(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t stacks = 0, bad = 0, with_callers = 0, pos = 0;
    /* The window may end inside a line: only lines with their LF count, unless the whole
     * input is shown (shorter than the window). */
    bool whole = size < PK_PROBE_BYTES;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = data[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return PK_PROBE_NO;
    }
    while (pos < size) {
        const char *lf = memchr(text + pos, '\n', size - pos);
        if (!lf && !whole)
            break;
        size_t len = lf ? (size_t)(lf - (text + pos)) : size - pos;
        folded_line line;
        line_problem problem;
        line_kind kind = parse_line(text + pos, len, &line, &problem);
        if (kind == LINE_BAD) {
            if (stacks == 0)
                return PK_PROBE_NO;
            bad++;
        } else if (kind == LINE_STACK) {
            stacks++;
            if (memchr(line.stack, ';', line.stack_len))
                with_callers++;
        }
        pos += len + 1;
    }
    if (stacks == 0 || bad * 2 > stacks)
        return PK_PROBE_NO;
    return with_callers > 0 && bad == 0 ? PK_PROBE_LIKELY : PK_PROBE_WEAK;
}

/* ---- reader ------------------------------------------------------------------------------------ */

/* A frame of the previous line: where its name ends in the copy of that line, and its stack. */
typedef struct prev_frame {
    uint32_t end;
    uint32_t stack;
} prev_frame;

typedef struct folded_reader {
    pk_profile *p;
    bool thread_roots;
    uint32_t thread;   /* the one thread, without thread_roots */
    pk_u64map threads; /* thread name string -> thread, with thread_roots */
    /* The previous line's frames: sorted input shares prefixes, whose stacks are reused. */
    char *prev_text;
    size_t prev_text_cap;
    prev_frame *prev;
    size_t prev_depth, prev_cap;
    uint32_t prev_thread;
    bool values_declared;
    bool differential; /* the first line has two counts: every line has */
    uint64_t rounded, two_counts;
} folded_reader;

static void reader_free(folded_reader *r)
{
    pk_u64map_free(&r->threads);
    free(r->prev_text);
    free(r->prev);
}

static uint32_t intern_frame_named(pk_profile *p, const char *name, size_t len)
{
    uint32_t s = pk_intern(p, name, len);
    if (s == PK_NONE)
        return PK_NONE;
    pk_function f = {.name = s, .file = 0, .start_line = 0, .resource = PK_NONE};
    uint32_t fn = pk_intern_function(p, &f);
    if (fn == PK_NONE)
        return PK_NONE;
    pk_frame fr = {.function = fn, .line = 0, .address = 0, .resource = PK_NONE, .flags = 0};
    return pk_intern_frame(p, &fr);
}

static uint32_t thread_named(folded_reader *r, const char *name, size_t len)
{
    uint32_t s = pk_intern(r->p, name, len);
    if (s == PK_NONE)
        return PK_NONE;
    uint32_t *known = pk_u64map_find(&r->threads, s);
    if (known)
        return *known;
    uint32_t t = pk_add_thread(r->p, s, -1, -1);
    uint32_t *slot;
    bool inserted;
    if (t == PK_NONE || !pk_u64map_put(&r->threads, s, t, &slot, &inserted))
        return PK_NONE;
    return t;
}

/* Adds one parsed line to the profile. Returns false when memory runs out. */
static bool add_line(folded_reader *r, const folded_line *line)
{
    const char *s = line->stack;
    size_t n = line->stack_len, first = 0;
    uint32_t thread = r->thread;
    if (r->thread_roots) {
        size_t end = r->differential ? line->frames_len : n;
        const char *semi = memchr(s, ';', end);
        size_t len = semi ? (size_t)(semi - s) : end;
        thread = thread_named(r, s, len);
        if (thread == PK_NONE)
            return false;
        first = semi ? len + 1 : end;
    }
    const char *frames = s + first;
    size_t frames_len = (r->differential ? line->frames_len : n) - first;
    /* Frames equal to the previous line's, from the root on, keep their stacks. */
    bool same = thread == r->prev_thread;
    size_t depth = 0;
    uint32_t stack = PK_NONE;
    for (size_t pos = 0; frames_len > 0;) {
        const char *semi = memchr(frames + pos, ';', frames_len - pos);
        size_t end = semi ? (size_t)(semi - frames) : frames_len;
        if (same && depth < r->prev_depth && r->prev[depth].end == end &&
            memcmp(r->prev_text + pos, frames + pos, end - pos) == 0) {
            stack = r->prev[depth].stack;
        } else {
            same = false;
            uint32_t frame = intern_frame_named(r->p, frames + pos, end - pos);
            if (frame == PK_NONE)
                return false;
            stack = pk_intern_stack(r->p, stack, frame);
            if (stack == PK_NONE)
                return false;
        }
        if (!PK_ARRAY_RESERVE(r->prev, r->prev_cap, depth + 1))
            return false;
        r->prev[depth++] = (prev_frame){.end = (uint32_t)end, .stack = stack};
        if (!semi)
            break;
        pos = end + 1;
    }
    if (!PK_ARRAY_RESERVE(r->prev_text, r->prev_text_cap, frames_len + 1))
        return false;
    memcpy(r->prev_text, frames, frames_len);
    r->prev_depth = depth;
    r->prev_thread = thread;
    r->rounded += line->rounded;
    if (!r->differential) {
        r->two_counts += line->two_counts;
        return pk_add_sample_value(r->p, thread, stack, 0, line->count) == PK_OK;
    }
    r->rounded += line->base_rounded;
    int64_t values[2] = {[PK_DIFF_BASE] = line->base, [PK_DIFF_NEW] = line->count};
    return pk_add_sample(r->p, thread, stack, values) == PK_OK;
}

/* The value types, known from the first stack line: one count, or base and new of a
 * differential file (whose default is new, as for a profile made by pk_diff_profiles). */
static bool declare_values(folded_reader *r, bool differential)
{
    r->values_declared = true;
    r->differential = differential;
    if (!differential)
        return pk_add_value_type(r->p, "samples", "count") != PK_NONE;
    if (pk_add_value_type(r->p, "base", "count") != PK_DIFF_BASE ||
        pk_add_value_type(r->p, "new", "count") != PK_DIFF_NEW)
        return false;
    pk_set_default_value(r->p, PK_DIFF_NEW);
    pk_metadata_of(r->p)->differential = true;
    return true;
}

static void reader_warnings(folded_reader *r)
{
    if (r->rounded)
        pk_warn(r->p, "%llu count%s had a fractional part and %s rounded to whole samples",
                (unsigned long long)r->rounded, r->rounded == 1 ? "" : "s",
                r->rounded == 1 ? "was" : "were");
    if (r->two_counts)
        pk_warn(r->p,
                "%llu line%s end%s in two numbers while the first line has one: the last "
                "number was taken as the count, the other one stays in the leaf frame's name",
                (unsigned long long)r->two_counts, r->two_counts == 1 ? "" : "s",
                r->two_counts == 1 ? "s" : "");
}

/* Records a bad line as an error or, when salvaging, as a warning that ends the reading. */
static pk_status bad_line(pk_profile *p, const pk_read_options *options, uint64_t line_number,
                          uint64_t line_offset, const char *text, const line_problem *problem,
                          pk_error *err)
{
    char what[200];
    if (problem->token_len > 0) {
        /* A long token is cut so that the message stays readable. */
        int shown = (int)(problem->token_len > 40 ? 40 : problem->token_len);
        snprintf(what, sizeof what, "ends in \"%.*s%s\", which %s", shown, text + problem->at,
                 problem->token_len > (size_t)shown ? "..." : "", problem->what);
    } else {
        snprintf(what, sizeof what, "%s", problem->what);
    }
    if (options && options->salvage) {
        pk_warn(p, "line %llu %s; it and the rest of the input (from byte %llu) were skipped",
                (unsigned long long)line_number, what, (unsigned long long)line_offset);
        return PK_OK;
    }
    return pk_error_set(err, PK_ERR_INPUT, (int64_t)(line_offset + problem->at), "line %llu %s",
                        (unsigned long long)line_number, what);
}

static pk_status folded_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                             pk_error *err)
{
    folded_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.thread_roots = options && pk_option_get(&options->extra, "folded-threads") != NULL;
    r.prev_thread = PK_NONE;
    r.thread = PK_NONE;
    pk_u64map_init(&r.threads);

    pk_status status = PK_OK;
    if (!r.thread_roots) {
        uint32_t name = pk_intern_cstr(p, "all");
        r.thread = name == PK_NONE ? PK_NONE : pk_add_thread(p, name, -1, -1);
        if (r.thread == PK_NONE)
            goto nomem;
    }

    uint64_t line_number = 0, stacks = 0;
    for (;;) {
        uint64_t line_offset = pk_in_offset(in);
        const char *text = NULL;
        int64_t len = pk_in_line(in, &text, FOLDED_MAX_LINE);
        if (len == -1)
            break;
        line_number++;
        folded_line line;
        line_problem problem;
        line_kind kind;
        if (len == -2) {
            kind = LINE_BAD;
            problem = (line_problem){"is longer than 1048575 bytes", 0, 0};
        } else {
            kind = parse_line(text, (size_t)len, &line, &problem);
        }
        if (kind == LINE_BLANK)
            continue;
        if (kind == LINE_STACK && !r.values_declared && !declare_values(&r, line.two_counts))
            goto nomem;
        if (kind == LINE_STACK && r.differential && !line.two_counts) {
            size_t count_at = line.stack_len;
            while (is_blank(text[count_at]))
                count_at++;
            kind = LINE_BAD;
            problem = (line_problem){"has one count where the first line has two: expected "
                                     "'frame;frame;... BASE NEW'",
                                     count_at, 0};
        }
        if (kind == LINE_BAD) {
            if (pk_in_error(in))
                break;
            status = bad_line(p, options, line_number, line_offset, text, &problem, err);
            if (status != PK_OK)
                goto done;
            reader_warnings(&r);
            goto done;
        }
        if (!add_line(&r, &line))
            goto nomem;
        stacks++;
    }
    if (pk_in_error(in)) {
        status = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "read failed");
        goto done;
    }
    if (stacks == 0) {
        if (options && options->salvage)
            pk_warn(p, "no stack lines were found");
        else
            status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                                  "no stack lines found: expected 'frame;frame;... COUNT' lines");
    }
    reader_warnings(&r);
done:
    /* Without a stack line the kind of file is unknown: it has the plain count. */
    if (!r.values_declared && !declare_values(&r, false) && status == PK_OK)
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    reader_free(&r);
    return status;
nomem:
    reader_free(&r);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* ---- writer ------------------------------------------------------------------------------------ */

/* Names are written with ';', LF and CR replaced by '_', and an empty name as "_", so that each
 * frame reads back as one name. So are the blanks before a number that ends a name ("sp ace
 * 42" is written "sp ace_42"): a line ending in it would read as a differential line with two
 * counts. Two names that look alike after that are one name in the output: the writer merges
 * stacks by their written text. */
static bool needs_underscore(char c)
{
    return c == ';' || c == '\n' || c == '\r';
}

/* The written form of a name: its bytes, and the blanks before a final number. */
typedef struct written_name {
    const char *s;
    size_t len;
    size_t blanks_from, blanks_to; /* written as '_'; empty when the name ends otherwise */
} written_name;

static written_name written_form(const char *s, size_t len)
{
    if (len == 0)
        return (written_name){"_", 1, 0, 0};
    written_name w = {s, len, 0, 0};
    /* A number as the reader takes a count: digits, optionally a '.' and more digits. */
    size_t t = len;
    while (t > 0 && is_digit(s[t - 1]))
        t--;
    if (t > 0 && s[t - 1] == '.') {
        t--;
        size_t whole = t;
        while (t > 0 && is_digit(s[t - 1]))
            t--;
        if (t == whole)
            return w;
    } else if (t == len) {
        return w;
    }
    size_t b = t;
    while (b > 0 && is_blank(s[b - 1]))
        b--;
    if (b < t) {
        w.blanks_from = b;
        w.blanks_to = t;
    }
    return w;
}

static char written_char(const written_name *w, size_t i)
{
    char c = w->s[i];
    return needs_underscore(c) || (i >= w->blanks_from && i < w->blanks_to) ? '_' : c;
}

static bool written_names_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    written_name wa = written_form(a, alen), wb = written_form(b, blen);
    if (wa.len != wb.len)
        return false;
    for (size_t i = 0; i < wa.len; i++)
        if (written_char(&wa, i) != written_char(&wb, i))
            return false;
    return true;
}

/* Hash of the written text of a name, taken in chunks so that no allocation is needed. */
static uint64_t written_name_hash(const char *s, size_t len)
{
    written_name w = written_form(s, len);
    uint64_t h = w.len;
    char chunk[256];
    for (size_t start = 0; start < w.len; start += sizeof chunk) {
        size_t n = w.len - start < sizeof chunk ? w.len - start : sizeof chunk;
        for (size_t i = 0; i < n; i++)
            chunk[i] = written_char(&w, start + i);
        h = pk_hash_u64(h ^ pk_hash_bytes(chunk, n));
    }
    return h;
}

/* Writes n bytes of s with ';', LF and CR as '_'. */
static void write_separated(pk_output *out, const char *s, size_t n)
{
    while (n > 0) {
        size_t plain = strcspn(s, ";\n\r");
        if (plain >= n) {
            pk_out_write(out, s, n);
            return;
        }
        pk_out_write(out, s, plain);
        pk_out_putc(out, '_');
        s += plain + 1;
        n -= plain + 1;
    }
}

/* Writes a name (NUL-terminated, len bytes) as folded output spells it. */
static void write_name(pk_output *out, const char *s, size_t len)
{
    written_name w = written_form(s, len);
    if (w.blanks_from == w.blanks_to) {
        write_separated(out, w.s, w.len);
        return;
    }
    write_separated(out, w.s, w.blanks_from);
    for (size_t i = w.blanks_from; i < w.blanks_to; i++)
        pk_out_putc(out, '_');
    pk_out_write(out, w.s + w.blanks_to, w.len - w.blanks_to);
}

/* The lines to write: one per distinct sequence of written names (after the thread's name
 * with --with-threads), with the summed value of the rows that write it, in order of first
 * appearance. A line is found by a hash of its canonical names; it keeps one of its rows to
 * spell it and to compare candidates with, so memory grows with the distinct lines, never with
 * the distinct prefixes of deep stacks. Names are canonical string ids: the first string seen
 * with a given written text. */
typedef struct output_line {
    uint64_t hash;
    uint32_t row;   /* a row that writes this line */
    int64_t value;  /* of a differential profile, the new value */
    int64_t base;   /* of a differential profile only */
} output_line;

typedef struct folded_writer {
    const pk_profile *p;
    bool with_threads;
    output_line *lines;
    size_t count, cap;
    uint32_t *slots;       /* line + 1, 0 = empty; open addressing by hash */
    size_t slot_mask;
    pk_u64map canonical;   /* string id -> canonical string id */
    pk_index written;      /* written text -> canonical string id (through canon_ids) */
    uint32_t *canon_ids;
    size_t canon_count, canon_cap;
    uint32_t *function_canon; /* function -> canonical id of its name, PK_NONE until known */
    uint32_t *frame_canon;    /* frame -> the same through its function, PK_NONE until known:
                               * one lookup per frame instead of the frame's and function's */
    uint8_t *name_form;       /* string id -> NAME_UNKNOWN, NAME_PLAIN or NAME_REWRITTEN */
    uint32_t *names, *other; /* scratch: the canonical names of a row, and of a candidate */
    size_t names_cap, other_cap;
} folded_writer;

static bool canon_equal(const void *context, uint32_t entry, const void *key)
{
    const folded_writer *w = context;
    const uint32_t *id = key;
    const char *a = pk_str(w->p, w->canon_ids[entry]);
    const char *b = pk_str(w->p, *id);
    return written_names_equal(a, pk_str_len(w->p, w->canon_ids[entry]), b,
                               pk_str_len(w->p, *id));
}

/* The canonical string id of name, or PK_NONE when out of memory. */
static uint32_t canonical_name(folded_writer *w, uint32_t name)
{
    uint32_t *known = pk_u64map_find(&w->canonical, name);
    if (known)
        return *known;
    const char *s = pk_str(w->p, name);
    uint64_t h = written_name_hash(s, pk_str_len(w->p, name));
    uint32_t entry = pk_index_find(&w->written, h, canon_equal, w, &name);
    uint32_t canon;
    if (entry != UINT32_MAX) {
        canon = w->canon_ids[entry];
    } else {
        if (!PK_ARRAY_RESERVE(w->canon_ids, w->canon_cap, w->canon_count + 1))
            return PK_NONE;
        w->canon_ids[w->canon_count] = name;
        if (!pk_index_insert(&w->written, h, (uint32_t)w->canon_count))
            return PK_NONE;
        w->canon_count++;
        canon = name;
    }
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&w->canonical, name, canon, &slot, &inserted))
        return PK_NONE;
    return canon;
}

/* The canonical names a row writes into *names (the thread's first with --with-threads);
 * returns how many, or SIZE_MAX when memory runs out. */
static size_t row_names(folded_writer *w, size_t row, uint32_t **names, size_t *cap)
{
    const pk_profile *p = w->p;
    uint32_t stack = pk_sample_stack(p, row);
    size_t depth = pk_stack_depth(p, stack), n = 0;
    if (!PK_ARRAY_RESERVE(*names, *cap, depth + 1))
        return SIZE_MAX;
    if (w->with_threads) {
        const pk_thread *t = pk_thread_at(p, pk_sample_thread(p, row));
        uint32_t name = canonical_name(w, t ? t->name : 0);
        if (name == PK_NONE)
            return SIZE_MAX;
        (*names)[n++] = name;
    }
    pk_stack_frames(p, stack, *names + n, depth);
    for (size_t i = n; i < n + depth; i++) {
        uint32_t frame = (*names)[i];
        uint32_t canon = w->frame_canon[frame];
        if (canon == PK_NONE) {
            uint32_t function = pk_frame_at(p, frame)->function;
            canon = w->function_canon[function];
            if (canon == PK_NONE) {
                canon = canonical_name(w, pk_function_at(p, function)->name);
                if (canon == PK_NONE)
                    return SIZE_MAX;
                w->function_canon[function] = canon;
            }
            w->frame_canon[frame] = canon;
        }
        (*names)[i] = canon;
    }
    return n + depth;
}

static bool grow_line_slots(folded_writer *w)
{
    size_t size = w->slots ? (w->slot_mask + 1) * 2 : 1024;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < w->count; i++) {
        size_t h = (size_t)w->lines[i].hash & (size - 1);
        while (slots[h])
            h = (h + 1) & (size - 1);
        slots[h] = (uint32_t)i + 1;
    }
    free(w->slots);
    w->slots = slots;
    w->slot_mask = size - 1;
    return true;
}

/* The line that row writes, added when new; PK_NONE when memory runs out. */
static uint32_t line_of_row(folded_writer *w, size_t row)
{
    size_t n = row_names(w, row, &w->names, &w->names_cap);
    if (n == SIZE_MAX)
        return PK_NONE;
    uint64_t hash = pk_hash_bytes(w->names, n * sizeof *w->names) ^ n;
    if ((!w->slots || (w->count + 1) * 2 > w->slot_mask + 1) && !grow_line_slots(w))
        return PK_NONE;
    size_t i = (size_t)hash & w->slot_mask;
    for (; w->slots[i]; i = (i + 1) & w->slot_mask) {
        output_line *line = &w->lines[w->slots[i] - 1];
        if (line->hash != hash)
            continue;
        size_t m = row_names(w, line->row, &w->other, &w->other_cap);
        if (m == SIZE_MAX)
            return PK_NONE;
        if (m == n && memcmp(w->other, w->names, n * sizeof *w->names) == 0)
            return w->slots[i] - 1;
    }
    if (w->count >= UINT32_MAX - 1 || !PK_ARRAY_RESERVE(w->lines, w->cap, w->count + 1))
        return PK_NONE;
    w->lines[w->count] = (output_line){hash, (uint32_t)row, 0, 0};
    w->slots[i] = (uint32_t)w->count + 1;
    return (uint32_t)w->count++;
}

/* Writes a canonical name. Most names are written as they are: which ones is decided once per
 * name, not once per line that names it. */
enum { NAME_UNKNOWN, NAME_PLAIN, NAME_REWRITTEN };

static void write_canonical_name(folded_writer *w, pk_output *out, uint32_t name)
{
    const char *s = pk_str(w->p, name);
    size_t len = pk_str_len(w->p, name);
    uint8_t *form = &w->name_form[name];
    if (*form == NAME_UNKNOWN) {
        written_name wn = written_form(s, len);
        bool plain = wn.s == s && wn.blanks_from == wn.blanks_to && strcspn(s, ";\n\r") >= len;
        *form = plain ? NAME_PLAIN : NAME_REWRITTEN;
    }
    if (*form == NAME_PLAIN)
        pk_out_write(out, s, len);
    else
        write_name(out, s, len);
}

static void writer_free(folded_writer *w)
{
    free(w->lines);
    free(w->slots);
    pk_u64map_free(&w->canonical);
    pk_index_free(&w->written);
    free(w->canon_ids);
    free(w->function_canon);
    free(w->frame_canon);
    free(w->name_form);
    free(w->names);
    free(w->other);
}

typedef struct line_order {
    uint32_t depth, stack, line; /* stack + 1: 0 for the empty stack */
} line_order;

static int compare_line_order(const void *a, const void *b)
{
    const line_order *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->stack != y->stack)
        return x->stack < y->stack ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* The value a writer weighs by: options->value, else the profile's default. */
static pk_status chosen_value(const pk_profile *p, const pk_write_options *options,
                              uint32_t *value, pk_error *err)
{
    size_t values = pk_value_type_count(p);
    if (values == 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the profile has no values to weigh stacks by");
    uint32_t v = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (v >= values)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "value %u does not exist", v);
    *value = v;
    return PK_OK;
}

static pk_status folded_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                              pk_error *err)
{
    uint32_t value = PK_NONE;
    pk_status status = chosen_value(p, options, &value, err);
    if (status != PK_OK)
        return status;
    bool with_threads = options && options->with_threads;
    /* A differential profile is written as "stack BASE NEW", whichever value was chosen. */
    bool differential = pk_is_differential(p);
    if (differential)
        value = PK_DIFF_NEW;

    folded_writer w;
    memset(&w, 0, sizeof w);
    line_order *order = NULL;
    w.p = p;
    w.with_threads = with_threads;
    pk_u64map_init(&w.canonical);
    pk_index_init(&w.written);
    size_t functions = pk_function_count(p);
    w.function_canon = malloc((functions ? functions : 1) * sizeof *w.function_canon);
    if (!w.function_canon)
        goto nomem;
    memset(w.function_canon, 0xff, (functions ? functions : 1) * sizeof *w.function_canon);
    size_t frames = pk_frame_count(p), strings = pk_string_count(p);
    w.frame_canon = malloc((frames ? frames : 1) * sizeof *w.frame_canon);
    w.name_form = calloc(strings ? strings : 1, 1);
    if (!w.frame_canon || !w.name_form)
        goto nomem;
    memset(w.frame_canon, 0xff, (frames ? frames : 1) * sizeof *w.frame_canon);

    size_t rows = pk_sample_count(p);
    for (size_t row = 0; row < rows; row++) {
        int64_t v = pk_sample_values(p, row)[value];
        int64_t base = differential ? pk_sample_values(p, row)[PK_DIFF_BASE] : 0;
        if (v == 0 && base == 0)
            continue;
        /* An empty stack has no name to write (but for its thread's, with --with-threads). */
        if (!with_threads && pk_sample_stack(p, row) == PK_NONE)
            continue;
        uint32_t line = line_of_row(&w, row);
        if (line == PK_NONE)
            goto nomem;
        w.lines[line].value = pk_add_saturating(w.lines[line].value, v);
        w.lines[line].base = pk_add_saturating(w.lines[line].base, base);
    }

    /* Lines come shallow before deep (so a caller's own line precedes its callees'), then in
     * the order of their stacks in the model, then of first appearance: deterministic for a
     * given input whatever the reader, without comparing names. */
    order = malloc((w.count ? w.count : 1) * sizeof *order);
    if (!order)
        goto nomem;
    for (size_t i = 0; i < w.count; i++) {
        uint32_t stack = pk_sample_stack(p, w.lines[i].row);
        order[i] = (line_order){pk_stack_depth(p, stack), stack + 1u, (uint32_t)i};
    }
    qsort(order, w.count, sizeof *order, compare_line_order);
    for (size_t i = 0; i < w.count; i++) {
        const output_line *line = &w.lines[order[i].line];
        if (differential ? line->value == 0 && line->base == 0 : line->value <= 0)
            continue;
        size_t n = row_names(&w, line->row, &w.names, &w.names_cap);
        if (n == SIZE_MAX)
            goto nomem;
        for (size_t k = 0; k < n; k++) {
            write_canonical_name(&w, out, w.names[k]);
            pk_out_putc(out, k + 1 < n ? ';' : ' ');
        }
        if (differential) {
            pk_out_i64(out, line->base);
            pk_out_putc(out, ' ');
        }
        pk_out_i64(out, line->value);
        pk_out_putc(out, '\n');
        if ((i & 0xffff) == 0 && pk_out_failed(out))
            break;
    }
    free(order);
    writer_free(&w);
    return PK_OK;
nomem:
    free(order);
    writer_free(&w);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

const pk_format pk_format_folded = {
    .name = "folded",
    .aliases = folded_aliases,
    .extensions = folded_extensions,
    .description = "folded stacks: 'root;...;leaf COUNT' lines (flamegraph.pl, inferno)",
    .probe = folded_probe,
    .read = folded_read,
    .write = folded_write,
    .dump = NULL,
    .read_options = folded_read_options,
    .write_options = NULL,
};
