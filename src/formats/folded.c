/* SPDX-License-Identifier: MIT */
/* Folded (collapsed) stacks: one line per stack, `root;caller;...;leaf COUNT`, the input of
 * flamegraph.pl and inferno. Documented in docs/formats/folded.md.
 *
 * Reader: every non-blank line is a stack of frame names separated by ';' and, after the last
 * run of blanks, a count; lines that start with '#' and a blank are comments (`# key: value`
 * ones kept as properties; austin's say what its counts are). A file most of whose first lines
 * are not stacks of names is refused, unless the format was given. Lines are streamed; memory
 * grows with the distinct stacks only. A
 * file whose first line ends in two counts, `stack BASE NEW` (difffolded.pl, inferno-diff-
 * folded), is read as a differential profile (profkit/diff.h).
 * Writer: one line per distinct sequence of function names, weighted by the chosen value; a
 * differential profile gives `stack BASE NEW` lines.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/differential.h"
#include "core/arith.h"
#include "core/damage.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "core/text_lines.h"
#include "formats/formats.h"
#include "profkit/diff.h"
#include "profkit/thread_names.h"

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

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex_digit(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ---- one line ---------------------------------------------------------------------------------- */

/* A count as flamegraph.pl's pattern takes it, \d+(\.\d*)?: whole, or with a fraction that
 * is dropped (as inferno truncates it; the model holds whole numbers). */
typedef struct folded_count {
    int64_t whole;
    uint32_t billionths; /* the first nine digits of the fraction */
    bool fraction;       /* a digit of the fraction is not 0 */
} folded_count;

typedef struct folded_line {
    const char *stack; /* frames, ';'-separated, without the counts */
    size_t stack_len;
    folded_count count; /* the last count */
    bool two_counts;    /* `frames BASE NEW`, a differential line */
    folded_count base;  /* two_counts: BASE */
} folded_line;

typedef enum line_kind {
    LINE_BLANK,   /* only blanks: nothing */
    LINE_COMMENT, /* '#' and a blank, as austin writes its header: skipped, as inferno skips it */
    LINE_STACK,   /* frames and one or two counts */
    LINE_SKIPPED, /* text that is not a stack line: skipped, as the peers skip it */
    LINE_BINARY   /* holds a NUL byte: not text at all */
} line_kind;

/* Parses the token [s, s + n). False when it is not a count or exceeds the model's int64. */
static bool parse_count(const char *s, size_t n, folded_count *count)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && is_digit(s[i])) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
        i++;
    }
    if (i == 0)
        return false;
    *count = (folded_count){(int64_t)v, 0, false};
    if (i < n && s[i] == '.') {
        i++;
        uint32_t scale = 100000000;
        while (i < n && is_digit(s[i])) {
            count->billionths += (uint32_t)(s[i] - '0') * scale;
            scale /= 10;
            count->fraction |= s[i] != '0';
            i++;
        }
    }
    return i == n;
}

/* The start of the last blank-separated token of [line, line + end), end > 0 and line[end - 1]
 * not blank. */
static size_t token_start(const char *line, size_t end)
{
    while (end > 0 && !is_blank(line[end - 1]))
        end--;
    return end;
}

static size_t trim_blanks(const char *line, size_t end)
{
    while (end > 0 && is_blank(line[end - 1]))
        end--;
    return end;
}

/* A comment: '#' then a blank. austin starts its output with `# austin: 3.3.0`,
 * `# interval: 100`, `# mode: wall` and ends it with `# duration: 23873`; inferno skips such
 * lines (flamegraph.pl reads `# interval: 100` as a stack). */
static bool is_comment(const char *line, size_t len)
{
    return len >= 2 && line[0] == '#' && is_blank(line[1]);
}

/* Classifies one line (without its line end). For a skipped line, *why completes "line N ..."
 * and *why_at is where in the line the problem is. */
static line_kind parse_line(const char *line, size_t len, folded_line *out, const char **why,
                            size_t *why_at)
{
    const char *nul = memchr(line, '\0', len);
    if (nul) {
        *why = "holds a NUL byte";
        *why_at = (size_t)(nul - line);
        return LINE_BINARY;
    }
    if (is_comment(line, len))
        return LINE_COMMENT;
    size_t end = trim_blanks(line, len);
    if (end == 0)
        return LINE_BLANK;
    size_t count_start = token_start(line, end);
    size_t stack_end = trim_blanks(line, count_start);
    *why_at = count_start;
    if (count_start == 0) {
        *why = "has no blank before a count";
        return LINE_SKIPPED;
    }
    if (!parse_count(line + count_start, end - count_start, &out->count)) {
        *why = "does not end in a count (digits, optionally a '.' and more digits, at most "
               "2^63 - 1)";
        return LINE_SKIPPED;
    }
    if (stack_end == 0) {
        *why = "has a count but no stack";
        *why_at = 0;
        return LINE_SKIPPED;
    }
    /* "a;b 3 4": the token before the count is a count too, with frames before it. */
    size_t base_start = token_start(line, stack_end);
    size_t frames_end = trim_blanks(line, base_start);
    out->two_counts = base_start > 0 && frames_end > 0 &&
                      parse_count(line + base_start, stack_end - base_start, &out->base);
    out->stack = line;
    out->stack_len = out->two_counts ? frames_end : stack_end;
    return LINE_STACK;
}

/* ---- whether a file is folded stacks --------------------------------------------------------- */

/* A token of numbers: digits with an optional sign, `0x` and hex digits, or `*`. */
static bool is_number_token(const char *s, size_t n)
{
    if (n == 1 && s[0] == '*')
        return true;
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    bool hex = n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    if (hex)
        i += 2;
    if (i == n)
        return false;
    for (; i < n; i++)
        if (hex ? !is_hex_digit(s[i]) : !is_digit(s[i]))
            return false;
    return true;
}

/* Whether a stack line is a row of numbers rather than frames with names: a stack made only of
 * number tokens separated by blanks, as in callgrind's cost lines (`16 3`, `+1 2`,
 * `0x4011d6 16 3`) and other tables of numbers. */
static bool numbers_only(const folded_line *line)
{
    const char *s = line->stack;
    size_t n = line->stack_len, i = 0;
    while (i < n) {
        while (i < n && is_blank(s[i]))
            i++;
        size_t start = i;
        while (i < n && !is_blank(s[i]))
            i++;
        if (i > start && !is_number_token(s + start, i - start))
            return false;
    }
    return true;
}

/* Whether a line, neither blank nor a comment, counts as a stack when judging whether a file is
 * folded stacks at all: a stack line that is not a row of numbers. */
static bool judged_a_stack(line_kind kind, const folded_line *line)
{
    return kind == LINE_STACK && !numbers_only(line);
}

/* Plausible folded text: no control bytes, a first line that is a stack or a comment ('#',
 * "//": the headers some profilers write) and a stack line among the complete lines shown.
 * Where most of those lines are not stacks (odd lines the reader skips, rows of numbers; comment
 * lines, '#' and a blank, count as neither), the text may still be folded stacks among other
 * lines, but is claimed no more strongly than by a file name: a format with a signature wins,
 * and otherwise the reader judges the file (and refuses it, unless the format is given). A first
 * line longer than the window is judged by its start: frames separated by ';' (deep Java stacks
 * pass 4 KB easily). */
static int folded_probe(const uint8_t *data, size_t size)
{
    /* The window may end inside a line: only lines with their end count, unless the whole
     * input is shown (shorter than the window). */
    bool whole = size < PK_PROBE_BYTES;
    if (pk_text_has_utf8_bom(data, size)) {
        data += 3;
        size -= 3;
    }
    const char *text = (const char *)data;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = data[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return PK_PROBE_NO;
    }
    size_t stacks = 0, others = 0, with_callers = 0, pos = 0;
    while (pos < size) {
        size_t len = 0;
        while (pos + len < size && text[pos + len] != '\n' && text[pos + len] != '\r')
            len++;
        if (pos + len == size && !whole) {
            if (pos == 0 && memchr(text, ';', len))
                return PK_PROBE_WEAK; /* the start of a long first line */
            break;
        }
        folded_line line;
        const char *why;
        size_t why_at;
        line_kind kind = parse_line(text + pos, len, &line, &why, &why_at);
        if (judged_a_stack(kind, &line)) {
            stacks++;
            if (memchr(line.stack, ';', line.stack_len))
                with_callers++;
        } else if (kind == LINE_SKIPPED || kind == LINE_STACK) {
            bool comment = text[pos] == '#' || (len >= 2 && memcmp(text + pos, "//", 2) == 0);
            if (stacks == 0 && others == 0 && !comment)
                return PK_PROBE_NO;
            others++;
        }
        pos += len + 1;
    }
    if (stacks == 0)
        return PK_PROBE_NO;
    if (others > stacks)
        return PK_PROBE_EXTENSION;
    return with_callers > 0 && others == 0 ? PK_PROBE_LIKELY : PK_PROBE_WEAK;
}

/* ---- reader ------------------------------------------------------------------------------------ */

/* Longest line read and written: deep stacks of long C++ or Java names make lines of megabytes;
 * a line is gathered in memory whole, so its length is bounded. */
#define FOLDED_MAX_LINE ((size_t)64 << 20)
#define FOLDED_MAX_LINE_TEXT "64 MiB"

/* Whether a file is folded stacks at all is judged by its first lines that are neither blank nor
 * comments, this many (all of them in a shorter file): when more than half of them are not
 * stacks of names, the file is refused unless the format was given. Deciding there keeps the
 * reader streaming, and a file that is not folded stacks is not read to its end. */
#define FOLDED_JUDGED_LINES 1000

/* Skipped lines are listed by number in the warning, up to this many. */
#define SKIPPED_LISTED 5

/* Comments of the form `# key: value` kept as properties: at most this many, with keys and
 * values up to these lengths, so that comments cannot make memory grow with the file. */
#define COMMENT_PROPERTIES 64
#define COMMENT_KEY_MAX 64
#define COMMENT_VALUE_MAX 1024

/* What austin's header says its counts are (`# mode: ...`): microseconds of wall-clock or CPU
 * time, or bytes of memory allocated. */
typedef enum austin_mode {
    AUSTIN_MODE_UNKNOWN,
    AUSTIN_MODE_WALL,
    AUSTIN_MODE_CPU,
    AUSTIN_MODE_MEMORY
} austin_mode;

/* A frame of the previous line: where its name ends in the copy of that line, and its stack. */
typedef struct prev_frame {
    size_t end;
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
    bool differential; /* the first stack line has two counts */
    uint64_t stacks;
    /* What the warnings tell. */
    uint64_t skipped, skipped_lines[SKIPPED_LISTED];
    uint64_t fractions, dropped_whole, dropped_billionths;
    uint64_t one_count_lines;  /* in a differential file */
    uint64_t two_count_lines;  /* in a file whose first stack line has one count */
    /* The first skipped line, for the error when no line is a stack. */
    uint64_t first_skipped_offset;
    char first_skipped_why[160];
    /* Judging whether the file is folded stacks (FOLDED_JUDGED_LINES): the lines judged, those
     * that are not stacks of names, and the first of them. */
    bool judging;
    uint64_t judged, not_stacks;
    uint64_t first_not_stack_offset;
    char first_not_stack[160];
    /* Comment lines, and what austin's header said before the first stack line. */
    uint64_t comments, comment_properties;
    bool austin;
    austin_mode mode;
    int64_t interval; /* austin's sampling interval in microseconds, 0 when not given */
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

/* Counts a dropped fraction for the warning. */
static int64_t whole_samples(folded_reader *r, const folded_count *c)
{
    if (c->fraction) {
        r->fractions++;
        r->dropped_billionths += c->billionths;
        r->dropped_whole += r->dropped_billionths / 1000000000u;
        r->dropped_billionths %= 1000000000u;
    }
    return c->whole;
}

/* The stack of a line's frames (after the thread name with thread_roots), reusing the stacks of
 * the previous line's equal leading frames. PK_NONE with *nomem when memory runs out. */
static uint32_t line_stack(folded_reader *r, uint32_t thread, const char *frames,
                           size_t frames_len, bool *nomem)
{
    *nomem = true;
    bool same = thread == r->prev_thread;
    size_t depth = 0;
    uint32_t stack = PK_NONE;
    for (size_t pos = 0;;) {
        const char *semi = memchr(frames + pos, ';', frames_len - pos);
        size_t end = semi ? (size_t)(semi - frames) : frames_len;
        if (same && depth < r->prev_depth && r->prev[depth].end == end &&
            memcmp(r->prev_text + pos, frames + pos, end - pos) == 0) {
            stack = r->prev[depth].stack;
        } else {
            same = false;
            uint32_t frame = intern_frame_named(r->p, frames + pos, end - pos);
            if (frame == PK_NONE)
                return PK_NONE;
            stack = pk_intern_stack(r->p, stack, frame);
            if (stack == PK_NONE)
                return PK_NONE;
        }
        if (!PK_ARRAY_RESERVE(r->prev, r->prev_cap, depth + 1))
            return PK_NONE;
        r->prev[depth++] = (prev_frame){.end = end, .stack = stack};
        if (!semi)
            break;
        pos = end + 1;
    }
    if (!PK_ARRAY_RESERVE(r->prev_text, r->prev_text_cap, frames_len + 1))
        return PK_NONE;
    memcpy(r->prev_text, frames, frames_len);
    r->prev_depth = depth;
    r->prev_thread = thread;
    *nomem = false;
    return stack;
}

/* Adds one stack line to the profile. Returns false when memory runs out. */
static bool add_line(folded_reader *r, const folded_line *line)
{
    const char *frames = line->stack;
    size_t frames_len = line->stack_len;
    uint32_t thread = r->thread;
    if (r->thread_roots) {
        const char *semi = memchr(frames, ';', frames_len);
        size_t len = semi ? (size_t)(semi - frames) : frames_len;
        thread = thread_named(r, frames, len);
        if (thread == PK_NONE)
            return false;
        frames += semi ? len + 1 : len;
        frames_len -= semi ? len + 1 : len;
    }
    uint32_t stack = PK_NONE;
    if (frames_len > 0 || !r->thread_roots) {
        bool nomem;
        stack = line_stack(r, thread, frames, frames_len, &nomem);
        if (nomem)
            return false;
    }
    r->stacks++;
    int64_t count = whole_samples(r, &line->count);
    if (!r->differential) {
        /* A differential line in a plain file: its last count is the weight, as the peers
         * take it; the base has no value to go to. */
        r->two_count_lines += line->two_counts;
        return pk_add_sample_value(r->p, thread, stack, 0, count) == PK_OK;
    }
    int64_t base = count;
    if (line->two_counts)
        base = whole_samples(r, &line->base);
    else
        r->one_count_lines++;
    int64_t values[2] = {[PK_DIFF_BASE] = base, [PK_DIFF_NEW] = count};
    return pk_add_sample(r->p, thread, stack, values) == PK_OK;
}

/* The value of a plain file: a count of samples, unless austin's header said what its counts
 * are; then austin's interval is the sampling period. */
static bool declare_plain_value(folded_reader *r)
{
    static const char *const names[] = {"samples", "wall", "cpu", "memory"};
    static const char *const units[] = {"count", "microseconds", "microseconds", "bytes"};
    austin_mode mode = r->austin ? r->mode : AUSTIN_MODE_UNKNOWN;
    if (pk_add_value_type(r->p, names[mode], units[mode]) == PK_NONE)
        return false;
    if (r->austin && r->interval > 0) {
        pk_metadata *meta = pk_metadata_of(r->p);
        meta->period = r->interval;
        meta->period_unit = pk_intern_cstr(r->p, "microseconds");
        /* what is sampled at that interval: the time of the mode, else wall-clock time */
        meta->period_type = pk_intern_cstr(r->p, mode == AUSTIN_MODE_CPU ? "cpu" : "wall");
        if (meta->period_unit == PK_NONE || meta->period_type == PK_NONE)
            return false;
    }
    return true;
}

/* The value types, known from the first stack line: one count, or base and new of a
 * differential file (whose default is new, as for a profile made by pk_diff_profiles). */
static bool declare_values(folded_reader *r, bool differential)
{
    r->values_declared = true;
    r->differential = differential;
    if (!differential)
        return declare_plain_value(r);
    if (pk_add_value_type(r->p, "base", "count") != PK_DIFF_BASE ||
        pk_add_value_type(r->p, "new", "count") != PK_DIFF_NEW)
        return false;
    pk_set_default_value(r->p, PK_DIFF_NEW);
    pk_metadata_of(r->p)->differential = true;
    return true;
}

/* "line N ("its start") WHY", the line cut so that the message stays readable. */
static void describe_line(char *out, size_t size, const pk_text_lines *lines, const char *text,
                          size_t len, const char *why)
{
    size_t shown = len < 40 ? len : 40;
    snprintf(out, size, "line %llu (\"%.*s%s\") %s", (unsigned long long)lines->number, (int)shown,
             text, len > shown ? "..." : "", why);
}

static void note_skipped(folded_reader *r, const pk_text_lines *lines, const char *text,
                         size_t len, const char *why, size_t why_at)
{
    if (r->skipped < SKIPPED_LISTED)
        r->skipped_lines[r->skipped] = lines->number;
    if (r->skipped++ == 0) {
        r->first_skipped_offset = lines->offset + why_at;
        describe_line(r->first_skipped_why, sizeof r->first_skipped_why, lines, text, len, why);
    }
}

/* Counts a line, neither blank nor a comment, towards the judgement. */
static void judge_line(folded_reader *r, const pk_text_lines *lines, const char *text, size_t len,
                       line_kind kind, const folded_line *line, const char *why)
{
    r->judged++;
    if (judged_a_stack(kind, line))
        return;
    if (r->not_stacks++ == 0) {
        r->first_not_stack_offset = lines->offset;
        describe_line(r->first_not_stack, sizeof r->first_not_stack, lines, text, len,
                      kind == LINE_STACK ? "is a row of numbers, not a stack of names" : why);
    }
}

/* Whether most of the judged lines are not stacks of names. */
static bool refused(const folded_reader *r)
{
    return r->not_stacks * 2 > r->judged;
}

/* The error that refuses such a file. */
static pk_status refusal(const folded_reader *r, pk_error *err)
{
    return pk_error_set(err, PK_ERR_INPUT, (int64_t)r->first_not_stack_offset,
                        "not folded stacks: %llu of the %s%llu lines that are neither blank nor "
                        "comments are not stacks of names ('frame;frame;... COUNT'); the first: "
                        "%s; --from folded reads the stack lines among them",
                        (unsigned long long)r->not_stacks,
                        r->judged == FOLDED_JUDGED_LINES ? "first " : "",
                        (unsigned long long)r->judged, r->first_not_stack);
}

/* Parses the digits of [s, s + n) as a positive number; 0 when they are not one. */
static int64_t comment_number(const char *s, size_t n)
{
    folded_count c;
    return parse_count(s, n, &c) && !c.fraction ? c.whole : 0;
}

/* A comment line: counted, and `# key: value` kept as the property key (the first
 * COMMENT_PROPERTIES of them). austin's keys also say what its counts are. Returns false when
 * memory runs out. */
static bool note_comment(folded_reader *r, const char *text, size_t len)
{
    r->comments++;
    size_t i = 1;
    while (i < len && is_blank(text[i]))
        i++;
    size_t key_start = i;
    while (i < len && text[i] != ':' && !is_blank(text[i]))
        i++;
    size_t key_len = i - key_start;
    if (key_len == 0 || key_len > COMMENT_KEY_MAX || i == len || text[i] != ':')
        return true;
    i++;
    while (i < len && is_blank(text[i]))
        i++;
    size_t end = trim_blanks(text, len);
    size_t value_len = end > i ? end - i : 0;
    if (value_len > COMMENT_VALUE_MAX || r->comment_properties == COMMENT_PROPERTIES)
        return true;
    char key[COMMENT_KEY_MAX + 1], value[COMMENT_VALUE_MAX + 1];
    memcpy(key, text + key_start, key_len);
    key[key_len] = '\0';
    memcpy(value, text + i, value_len);
    value[value_len] = '\0';
    r->comment_properties++;
    if (!r->values_declared) {
        if (strcmp(key, "austin") == 0)
            r->austin = true;
        else if (strcmp(key, "interval") == 0)
            r->interval = comment_number(value, value_len);
        else if (strcmp(key, "mode") == 0)
            r->mode = strcmp(value, "wall") == 0     ? AUSTIN_MODE_WALL
                      : strcmp(value, "cpu") == 0    ? AUSTIN_MODE_CPU
                      : strcmp(value, "memory") == 0 ? AUSTIN_MODE_MEMORY
                                                     : AUSTIN_MODE_UNKNOWN;
    }
    return pk_property_set(r->p, key, value) == PK_OK;
}

static void reader_warnings(folded_reader *r)
{
    if (r->comments)
        pk_warn(r->p,
                "%llu comment line%s ('#' and a blank) %s skipped, as inferno skips them; %llu "
                "of the form '# key: value' %s kept as properties",
                (unsigned long long)r->comments, r->comments == 1 ? "" : "s",
                r->comments == 1 ? "was" : "were", (unsigned long long)r->comment_properties,
                r->comment_properties == 1 ? "is" : "are");
    if (r->skipped && r->stacks) {
        char listed[128] = "";
        size_t n = 0;
        uint64_t shown = r->skipped < SKIPPED_LISTED ? r->skipped : SKIPPED_LISTED;
        for (uint64_t i = 0; i < shown && n < sizeof listed; i++)
            n += (size_t)snprintf(listed + n, sizeof listed - n, "%s%llu", i ? ", " : "",
                                  (unsigned long long)r->skipped_lines[i]);
        pk_warn(r->p,
                "%llu line%s that %s not a stack %s skipped (line%s %s%s), as flamegraph.pl and "
                "inferno skip them: a stack line ends in a blank and a count",
                (unsigned long long)r->skipped, r->skipped == 1 ? "" : "s",
                r->skipped == 1 ? "is" : "are", r->skipped == 1 ? "was" : "were",
                r->skipped == 1 ? "" : "s", listed, r->skipped > shown ? ", ..." : "");
    }
    if (r->fractions) {
        char dropped[48];
        int n = snprintf(dropped, sizeof dropped, "%llu.%09llu",
                         (unsigned long long)r->dropped_whole,
                         (unsigned long long)r->dropped_billionths);
        while (n > 0 && dropped[n - 1] == '0')
            dropped[--n] = '\0';
        pk_warn(r->p,
                "%llu count%s had a fractional part, which was dropped as inferno drops it "
                "(%s samples in all)",
                (unsigned long long)r->fractions, r->fractions == 1 ? "" : "s", dropped);
    }
    if (r->one_count_lines)
        pk_warn(r->p,
                "%llu line%s of this differential file ha%s one count: read as unchanged, the "
                "count as both base and new (flamegraph.pl and inferno draw such lines without "
                "a difference)",
                (unsigned long long)r->one_count_lines, r->one_count_lines == 1 ? "" : "s",
                r->one_count_lines == 1 ? "s" : "ve");
    if (r->two_count_lines)
        pk_warn(r->p,
                "%llu line%s end%s in two counts while the first stack line has one: the last "
                "count was taken as the weight (as flamegraph.pl and inferno take it) and the "
                "one before it dropped",
                (unsigned long long)r->two_count_lines, r->two_count_lines == 1 ? "" : "s",
                r->two_count_lines == 1 ? "s" : "");
}

static pk_status folded_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                             pk_error *err)
{
    folded_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.thread_roots = options && pk_option_get(&options->extra, "folded-threads") != NULL;
    r.judging = !(options && options->format_given);
    r.prev_thread = PK_NONE;
    r.thread = PK_NONE;
    pk_u64map_init(&r.threads);
    pk_text_lines lines;
    pk_text_lines_init(&lines, in, FOLDED_MAX_LINE);

    pk_status status = PK_OK;
    if (!r.thread_roots) {
        uint32_t name = pk_intern_cstr(p, "all");
        r.thread = name == PK_NONE ? PK_NONE : pk_add_thread(p, name, -1, -1);
        if (r.thread == PK_NONE)
            goto nomem;
    }

    for (;;) {
        const char *text = NULL;
        size_t len = 0;
        pk_text_line_result got = pk_text_lines_next(&lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM)
            goto nomem;
        if (got == PK_TEXT_TOO_LONG) {
            status = pk_damage(err, lines.offset, "line %llu is longer than " FOLDED_MAX_LINE_TEXT,
                               (unsigned long long)lines.number);
            break;
        }
        folded_line line;
        const char *why = NULL;
        size_t why_at = 0;
        line_kind kind = parse_line(text, len, &line, &why, &why_at);
        if (kind == LINE_BLANK)
            continue;
        if (kind == LINE_COMMENT) {
            if (!note_comment(&r, text, len))
                goto nomem;
            continue;
        }
        if (kind == LINE_BINARY) {
            status = pk_damage(err, lines.offset + why_at,
                               "line %llu holds a NUL byte: this is not text",
                               (unsigned long long)lines.number);
            break;
        }
        if (r.judging) {
            judge_line(&r, &lines, text, len, kind, &line, why);
            if (r.judged == FOLDED_JUDGED_LINES) {
                r.judging = false;
                if (refused(&r)) {
                    status = refusal(&r, err);
                    break;
                }
            }
        }
        if (kind == LINE_SKIPPED) {
            note_skipped(&r, &lines, text, len, why, why_at);
            continue;
        }
        if (!r.values_declared && !declare_values(&r, line.two_counts))
            goto nomem;
        if (!add_line(&r, &line))
            goto nomem;
    }
    if (status == PK_OK && !pk_in_error(in) && r.stacks == 0) {
        if (r.skipped)
            status = pk_error_set(err, PK_ERR_INPUT, (int64_t)r.first_skipped_offset,
                                  "no line is a stack: expected 'frame;frame;... COUNT' lines; "
                                  "%s",
                                  r.first_skipped_why);
        else
            status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                                  "no stack lines, only %s: expected 'frame;frame;... COUNT' "
                                  "lines",
                                  r.comments ? "comments and blank lines" : "blank ones");
    } else if (r.judging && !pk_in_error(in) && refused(&r)) {
        status = refusal(&r, err); /* not folded stacks: that outweighs damage in what was read */
    }
    reader_warnings(&r);
    /* Without a stack line the kind of file is unknown: it has the plain count. */
    if (!r.values_declared && !declare_values(&r, false) && status == PK_OK)
        goto nomem;
    pk_text_lines_free(&lines);
    reader_free(&r);
    return status;
nomem:
    pk_text_lines_free(&lines);
    reader_free(&r);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* ---- writer ------------------------------------------------------------------------------------ */

/* Names are written with ';', LF, CR and NUL replaced by '_', so that each frame reads back as
 * one name (a NUL byte makes a line unreadable). So are the blanks before a number that ends a
 * name ("sp ace 42" is written "sp ace_42"): a line ending in it would read as a differential
 * line with two counts. An empty name stays empty ("a;;b", "a;b;"), as the reader keeps it,
 * except as the only name of a line, which is written "_". Two names that look alike after that are one name in the output: the writer merges
 * stacks by their written text. */
static bool needs_underscore(char c)
{
    return c == ';' || c == '\n' || c == '\r' || c == '\0';
}

/* The written form of a name: its bytes, and the blanks before a final number. */
typedef struct written_name {
    const char *s;
    size_t len;
    size_t blanks_from, blanks_to; /* written as '_'; empty when the name ends otherwise */
} written_name;

static written_name written_form(const char *s, size_t len)
{
    written_name w = {s, len, 0, 0};
    if (len == 0)
        return w;
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

/* The lines to write: one per distinct sequence of written names (after the thread's name
 * with --with-threads), with the summed value of the rows that write it, in order of first
 * appearance. A line is found by a hash of its canonical names; it keeps one of its rows to
 * spell it and to compare candidates with, so memory grows with the distinct lines, never with
 * the distinct prefixes of deep stacks. Names are canonical ids, one per distinct written
 * text, numbered in order of first appearance. */
typedef struct output_line {
    union {
        uint64_t hash; /* while lines are found */
        /* Once all are: the stack's frames when they are one run (a reader that had whole
         * call chains), NULL otherwise, so that writing the line needs no stack lookup. */
        const uint32_t *frames;
    } key;
    uint32_t row;   /* a row that writes this line */
    int64_t value;  /* of a differential profile, the new value */
    int64_t base;   /* of a differential profile only */
} output_line;

/* A line in the table that finds lines: most mismatches end at its hash bits, without reading
 * the line. */
typedef struct line_slot {
    uint32_t line;      /* line + 1, 0 = empty */
    uint32_t hash_bits; /* the high half of the line's hash */
} line_slot;

/* Where the written text of a name is kept, followed by a ';'. */
typedef struct spelling {
    size_t offset; /* in folded_writer.spelled */
    size_t length; /* without the ';' */
} spelling;

/* Bytes kept readable after the last spelling, and free after a line in the output, so that a
 * short name is copied with one fixed-size move (what it copies too many is overwritten by the
 * next name, or left beyond the end of what is written). */
#define SPELLING_SLACK 32

typedef struct folded_writer {
    const pk_profile *p;
    /* Lines start with a root per thread: its display name with --with-threads, else the
     * command-name root a reader asked for (the property "folded roots"). */
    bool with_threads;
    bool thread_roots;
    uint32_t *thread_root;  /* thread -> its root (an index into root_spellings) */
    bool *thread_java;      /* thread -> a Java process's, its names tidied (tidy only) */
    output_line *lines;
    size_t count, cap;
    line_slot *slots;      /* open addressing by hash */
    size_t slot_mask;
    pk_u64map canonical;   /* string id -> canonical id */
    pk_index written;      /* written text -> canonical id */
    uint32_t *canon_ids;   /* canonical id -> the first string seen with its written text */
    size_t canon_count, canon_cap;
    uint32_t *function_canon; /* function -> canonical id of its name, PK_NONE until known */
    uint32_t *frame_canon;    /* frame -> the same through its function, PK_NONE until known:
                               * one lookup per frame instead of the frame's and function's */
    /* Every canonical name's written text once, then a ';' (and with --with-threads every
     * thread's display name the same way): a line is copied together from here, one copy a
     * name, without looking at its bytes again. SPELLING_SLACK bytes past the end are kept
     * zeroed. */
    pk_buffer spelled;
    spelling *spellings;        /* canonical id -> its text in spelled */
    size_t spellings_cap;
    spelling *root_spellings; /* with thread roots: root -> its text in spelled */
    uint32_t *names, *other; /* scratch: the canonical names of a row, and of a candidate */
    size_t names_cap, other_cap;
    /* FlameGraph's tidying (see flamegraph_tidy): canonical ids are then indexes of tidied
     * texts kept here, deduplicated by their written form; stacks whose root is a Java process
     * have their own ids per function and frame. */
    bool tidy;
    pk_buffer tidy_text;
    size_t *tidy_off;
    size_t tidy_count, tidy_cap;
    pk_index tidy_index;
    char *tidy_scratch;
    size_t tidy_scratch_cap;
    uint32_t *function_canon_java, *frame_canon_java;
} folded_writer;

/* The canonical id of a frame that tidied names leave out. */
#define TIDY_SKIPPED (PK_NONE - 1)

/* The text of a canonical name. */
static const char *canon_text(const folded_writer *w, uint32_t id, size_t *len)
{
    if (!w->tidy) {
        *len = pk_str_len(w->p, w->canon_ids[id]);
        return pk_str(w->p, w->canon_ids[id]);
    }
    *len = w->tidy_off[id + 1] - w->tidy_off[id];
    /* Empty names only: nothing was stored. */
    return w->tidy_text.data ? (const char *)w->tidy_text.data + w->tidy_off[id] : "";
}

/* Appends the written text of a name (len bytes of s) and a ';' to w->spelled, keeping the
 * slack after them; *at receives where. False when memory runs out. */
static bool spell(folded_writer *w, const char *s, size_t len, spelling *at)
{
    pk_buffer *b = &w->spelled;
    if (len > SIZE_MAX - 1 - SPELLING_SLACK || !pk_buffer_reserve(b, len + 1 + SPELLING_SLACK))
        return false;
    written_name form = written_form(s, len);
    char *d = (char *)b->data + b->len;
    for (size_t i = 0; i < len; i++)
        d[i] = written_char(&form, i);
    d[len] = ';';
    memset(d + len + 1, 0, SPELLING_SLACK);
    *at = (spelling){b->len, len};
    b->len += len + 1;
    return true;
}

/* Spells the canonical name id, len bytes of s. */
static bool spell_canonical(folded_writer *w, size_t id, const char *s, size_t len)
{
    return PK_ARRAY_RESERVE(w->spellings, w->spellings_cap, id + 1) &&
           spell(w, s, len, &w->spellings[id]);
}

/* The command-name root stackcollapse-perf.pl gives a thread's stacks ("folded roots":
 * "command", "command-pid" or "command-tid"): the name with blanks made '_', and the ids. */
static bool command_root(const pk_profile *p, uint32_t t, const char *roots, pk_buffer *out)
{
    /* write_folded asks for command-name roots only when the profile names them. */
    assert(roots != NULL);
    const pk_thread *thread = pk_thread_at(p, t);
    const char *name = pk_str(p, thread->name);
    size_t len = pk_str_len(p, thread->name);
    out->len = 0;
    if (!pk_buffer_reserve(out, len + 48))
        return false;
    char *d = (char *)out->data;
    for (size_t i = 0; i < len; i++)
        d[i] = name[i] == ' ' ? '_' : name[i];
    size_t n = len;
    char pid[24] = "?";
    if (thread->pid >= 0)
        snprintf(pid, sizeof pid, "%lld", (long long)thread->pid);
    if (strcmp(roots, "command-pid") == 0)
        n += (size_t)snprintf(d + n, 48, "-%s", pid);
    else if (strcmp(roots, "command-tid") == 0)
        n += (size_t)snprintf(d + n, 48, "-%s/%lld", pid, (long long)thread->tid);
    out->len = n;
    return true;
}

typedef struct root_key {
    const char *text;
    size_t len;
} root_key;

static bool root_equal(const void *context, uint32_t entry, const void *key)
{
    const folded_writer *w = context;
    const root_key *k = key;
    const spelling *s = &w->root_spellings[entry];
    /* Roots are spelled as they are when they need no '_' (written_form): compare the
     * spelled text, which a root made of the same bytes has too. */
    return s->length == k->len && memcmp((const char *)w->spelled.data + s->offset, k->text,
                                         k->len) == 0;
}

/* With FlameGraph's tidying: which threads are Java processes. The collapsers tidy Java names
 * for a process named "java" exactly, as their process name is: so not when it carries the pid
 * or tid (roots "command-pid", "command-tid"). */
static bool mark_java_threads(folded_writer *w, const char *roots)
{
    size_t threads = pk_thread_count(w->p);
    w->thread_java = calloc(threads ? threads : 1, sizeof *w->thread_java);
    if (!w->thread_java)
        return false;
    bool with_ids = roots && strcmp(roots, "command") != 0;
    for (uint32_t t = 0; t < threads; t++)
        w->thread_java[t] =
            !with_ids && strcmp(pk_str(w->p, pk_thread_at(w->p, t)->name), "java") == 0;
    return true;
}

/* Every thread's root is spelled once, before the rows: with --with-threads its display name
 * (one root a thread, so that threads of one name stay apart), else its command-name root,
 * threads of one root sharing it. */
static bool spell_roots(folded_writer *w, const char *roots)
{
    size_t threads = pk_thread_count(w->p);
    w->thread_root = malloc((threads ? threads : 1) * sizeof *w->thread_root);
    w->root_spellings = malloc((threads ? threads : 1) * sizeof *w->root_spellings);
    bool ok = w->thread_root && w->root_spellings;
    if (ok && w->with_threads) {
        pk_thread_names *names = pk_thread_names_new(w->p);
        ok = names != NULL;
        for (uint32_t t = 0; t < threads && ok; t++) {
            const char *name = pk_thread_display_name(names, t);
            w->thread_root[t] = t;
            ok = spell(w, name, strlen(name), &w->root_spellings[t]);
        }
        pk_thread_names_free(names);
        return ok;
    }
    pk_buffer text = PK_BUFFER_INIT, spelled = PK_BUFFER_INIT;
    pk_index found;
    pk_index_init(&found);
    uint32_t count = 0;
    for (uint32_t t = 0; t < threads && ok; t++) {
        ok = command_root(w->p, t, roots, &text);
        if (!ok)
            break;
        /* Compared by the text spell writes: the root as a line would show it. */
        written_name form = written_form((const char *)text.data, text.len);
        spelled.len = 0;
        ok = pk_buffer_reserve(&spelled, text.len + 1);
        if (!ok)
            break;
        for (size_t i = 0; i < text.len; i++)
            ((char *)spelled.data)[i] = written_char(&form, i);
        root_key key = {(const char *)spelled.data, text.len};
        uint64_t h = pk_hash_bytes(key.text, key.len);
        uint32_t root = pk_index_find(&found, h, root_equal, w, &key);
        if (root == UINT32_MAX) {
            root = count++;
            ok = spell(w, (const char *)text.data, text.len, &w->root_spellings[root]) &&
                 pk_index_insert(&found, h, root);
        }
        w->thread_root[t] = root;
    }
    pk_buffer_free(&text);
    pk_buffer_free(&spelled);
    pk_index_free(&found);
    return ok;
}

/* What FlameGraph's collapsers make of a name (stackcollapse-perf.pl's tidy_generic and
 * tidy_java), for profiles whose reader asks for it (the property "folded names" is
 * "flamegraph"): ';' becomes ':'; everything from the first '(' that does not open
 * "(anonymous namespace)" is cut, unless the name looks like a Go method (".(" ... ")."); quotes
 * are removed; in a Java process (root frame "java") a leading 'L' goes from a name with a
 * '/'. out has room for len bytes; returns the tidied length. */
static size_t flamegraph_tidy(const char *s, size_t len, bool java, char *out)
{
    /* The annotations of stackcollapse-perf.pl's options (inlined, kernel, JIT), which a reader
     * appended to the name, come after the tidying. */
    size_t note = 0;
    if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
        strchr("ikj", s[len - 2]))
        note = 4;
    len -= note;
    size_t cut = len;
    const char *go = NULL;
    for (size_t i = 0; i + 1 < len && !go; i++)
        if (s[i] == '.' && s[i + 1] == '(')
            go = s + i;
    bool go_method = false;
    for (size_t i = go ? (size_t)(go - s) + 2 : len; i + 1 < len; i++)
        if (s[i] == ')' && s[i + 1] == '.')
            go_method = true;
    if (!go_method) {
        static const char anon[] = "anonymous namespace)";
        for (size_t i = 0; i < len; i++) {
            if (s[i] != '(')
                continue;
            if (len - i - 1 >= sizeof anon - 1 && memcmp(s + i + 1, anon, sizeof anon - 1) == 0)
                continue;
            cut = i;
            break;
        }
    }
    size_t n = 0;
    bool slash = false;
    for (size_t i = 0; i < cut; i++) {
        char c = s[i];
        if (c == '"' || c == '\'')
            continue;
        slash |= c == '/';
        out[n++] = c == ';' ? ':' : c;
    }
    if (java && slash && n > 0 && out[0] == 'L') {
        memmove(out, out + 1, n - 1);
        n--;
    }
    memcpy(out + n, s + len, note);
    return n + note;
}

static bool tidy_equal(const void *context, uint32_t entry, const void *key)
{
    const folded_writer *w = context;
    const written_name *k = key;
    size_t len;
    const char *text = canon_text(w, entry, &len);
    return written_names_equal(text, len, k->s, k->len);
}

/* The canonical id of a name tidied, or PK_NONE when out of memory. */
static uint32_t tidy_canonical_name(folded_writer *w, uint32_t name, bool java)
{
    size_t len = pk_str_len(w->p, name);
    if (!PK_ARRAY_RESERVE(w->tidy_scratch, w->tidy_scratch_cap, len + 1))
        return PK_NONE;
    size_t n = flamegraph_tidy(pk_str(w->p, name), len, java, w->tidy_scratch);
    written_name key = {w->tidy_scratch, n, 0, 0};
    uint64_t h = written_name_hash(w->tidy_scratch, n);
    uint32_t entry = pk_index_find(&w->tidy_index, h, tidy_equal, w, &key);
    if (entry != UINT32_MAX)
        return entry;
    if (w->tidy_count >= UINT32_MAX - 2 ||
        !PK_ARRAY_RESERVE(w->tidy_off, w->tidy_cap, w->tidy_count + 2))
        return PK_NONE;
    if (w->tidy_count == 0)
        w->tidy_off[0] = 0;
    pk_buffer_append(&w->tidy_text, w->tidy_scratch, n);
    if (w->tidy_text.failed || !pk_index_insert(&w->tidy_index, h, (uint32_t)w->tidy_count) ||
        !spell_canonical(w, w->tidy_count, w->tidy_scratch, n))
        return PK_NONE;
    w->tidy_off[w->tidy_count + 1] = w->tidy_text.len;
    return (uint32_t)w->tidy_count++;
}

static bool canon_equal(const void *context, uint32_t entry, const void *key)
{
    const folded_writer *w = context;
    const uint32_t *id = key;
    const char *a = pk_str(w->p, w->canon_ids[entry]);
    const char *b = pk_str(w->p, *id);
    return written_names_equal(a, pk_str_len(w->p, w->canon_ids[entry]), b,
                               pk_str_len(w->p, *id));
}

/* The canonical id of the string name, or PK_NONE when out of memory. */
static uint32_t canonical_name(folded_writer *w, uint32_t name)
{
    uint32_t *known = pk_u64map_find(&w->canonical, name);
    if (known)
        return *known;
    const char *s = pk_str(w->p, name);
    size_t len = pk_str_len(w->p, name);
    uint64_t h = written_name_hash(s, len);
    uint32_t canon = pk_index_find(&w->written, h, canon_equal, w, &name);
    if (canon == UINT32_MAX) {
        if (w->canon_count >= UINT32_MAX - 2 ||
            !PK_ARRAY_RESERVE(w->canon_ids, w->canon_cap, w->canon_count + 1))
            return PK_NONE;
        w->canon_ids[w->canon_count] = name;
        if (!pk_index_insert(&w->written, h, (uint32_t)w->canon_count) ||
            !spell_canonical(w, w->canon_count, s, len))
            return PK_NONE;
        canon = (uint32_t)w->canon_count++;
    }
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&w->canonical, name, canon, &slot, &inserted))
        return PK_NONE;
    return canon;
}

/* The canonical names that the frames of a stack, frames[0, depth), write into names (room
 * for depth + 1); with thread roots the first is the thread's root (spell_roots). frames may be names + 1, or names
 * without threads: each name goes where its frame was or before. Returns how many, or SIZE_MAX
 * when memory runs out. */
static size_t frames_names(folded_writer *w, uint32_t thread, const uint32_t *frames,
                           size_t depth, uint32_t *names)
{
    const pk_profile *p = w->p;
    size_t kept = 0;
    if (w->thread_roots)
        names[kept++] = w->thread_root[thread];
    bool java = w->tidy && w->thread_java[thread];
    uint32_t *frame_canon = java ? w->frame_canon_java : w->frame_canon;
    uint32_t *function_canon = java ? w->function_canon_java : w->function_canon;
    for (size_t i = 0; i < depth; i++) {
        uint32_t frame = frames[i];
        uint32_t canon = frame_canon[frame];
        if (canon == TIDY_SKIPPED)
            continue;
        if (canon == PK_NONE) {
            uint32_t function = pk_frame_at(p, frame)->function;
            canon = function_canon[function];
            if (canon == PK_NONE) {
                uint32_t name = pk_function_at(p, function)->name;
                canon = w->tidy ? tidy_canonical_name(w, name, java) : canonical_name(w, name);
                if (canon == PK_NONE)
                    return SIZE_MAX;
                function_canon[function] = canon;
            }
            /* FlameGraph's collapsers drop code frames named "(...": perf printed process
             * names so once. Frames without an address (a root named by the process) stay. */
            if (w->tidy && pk_frame_name(p, frame)[0] == '(' &&
                (pk_frame_at(p, frame)->flags & PK_FRAME_HAS_ADDRESS))
                canon = TIDY_SKIPPED;
            frame_canon[frame] = canon;
            if (canon == TIDY_SKIPPED)
                continue;
        }
        names[kept++] = canon;
    }
    return kept;
}

/* The same for a stack, into *names (grown as needed). */
static size_t stack_names(folded_writer *w, uint32_t thread, uint32_t stack, uint32_t **names,
                          size_t *cap)
{
    size_t depth = pk_stack_depth(w->p, stack);
    if (!PK_ARRAY_RESERVE(*names, *cap, depth + 1))
        return SIZE_MAX;
    uint32_t *frames = *names + (w->thread_roots ? 1 : 0);
    pk_stack_frames(w->p, stack, frames, depth);
    return frames_names(w, thread, frames, depth, *names);
}

/* The same for a row. */
static size_t row_names(folded_writer *w, size_t row, uint32_t **names, size_t *cap)
{
    uint32_t thread = w->thread_roots || w->tidy ? pk_sample_thread(w->p, row) : 0;
    return stack_names(w, thread, pk_sample_stack(w->p, row), names, cap);
}

static bool grow_line_slots(folded_writer *w)
{
    size_t size = w->slots ? (w->slot_mask + 1) * 2 : 1024;
    line_slot *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < w->count; i++) {
        uint64_t hash = w->lines[i].key.hash;
        size_t h = (size_t)hash & (size - 1);
        while (slots[h].line)
            h = (h + 1) & (size - 1);
        slots[h] = (line_slot){(uint32_t)i + 1, (uint32_t)(hash >> 32)};
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
    uint32_t bits = (uint32_t)(hash >> 32);
    for (; w->slots[i].line; i = (i + 1) & w->slot_mask) {
        if (w->slots[i].hash_bits != bits)
            continue;
        output_line *line = &w->lines[w->slots[i].line - 1];
        if (line->key.hash != hash)
            continue;
        size_t m = row_names(w, line->row, &w->other, &w->other_cap);
        if (m == SIZE_MAX)
            return PK_NONE;
        if (m == n && memcmp(w->other, w->names, n * sizeof *w->names) == 0)
            return w->slots[i].line - 1;
    }
    if (w->count >= UINT32_MAX - 1 || !PK_ARRAY_RESERVE(w->lines, w->cap, w->count + 1))
        return PK_NONE;
    w->lines[w->count] = (output_line){{hash}, (uint32_t)row, 0, 0};
    w->slots[i] = (line_slot){(uint32_t)w->count + 1, bits};
    return (uint32_t)w->count++;
}

/* The spelling of names[k] of a line. */
static const spelling *spelling_of(const folded_writer *w, const uint32_t *names, size_t k)
{
    return k == 0 && w->thread_roots ? &w->root_spellings[names[0]] : &w->spellings[names[k]];
}

/* Copies a spelled name and its ';' to d and returns the end; both sides have SPELLING_SLACK
 * bytes to spare after it. */
static char *copy_spelling(char *d, const char *text, const spelling *s)
{
    size_t n = s->length + 1;
    if (n <= SPELLING_SLACK)
        memcpy(d, text + s->offset, SPELLING_SLACK);
    else
        memcpy(d, text + s->offset, n);
    return d + n;
}

/* Writes the n names of a line, a ';' after each but the last and a blank after that: total
 * bytes (their spellings' lengths plus n). */
static void write_names(const folded_writer *w, pk_output *out, const uint32_t *names, size_t n,
                        size_t total)
{
    if (n == 0)
        return;
    const char *text = (const char *)w->spelled.data;
    assert(text); /* the names of a line have been spelled */
    char *start = pk_out_reserve(out, total + SPELLING_SLACK);
    if (!start) {
        /* A line longer than the output's buffer. */
        for (size_t k = 0; k < n; k++) {
            const spelling *s = spelling_of(w, names, k);
            pk_out_write(out, text + s->offset, s->length);
            pk_out_putc(out, k + 1 < n ? ';' : ' ');
        }
        return;
    }
    char *d = start;
    size_t k = 0;
    if (w->thread_roots)
        d = copy_spelling(d, text, &w->root_spellings[names[k++]]);
    for (; k < n; k++)
        d = copy_spelling(d, text, &w->spellings[names[k]]);
    d[-1] = ' ';
    pk_out_advance(out, total);
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
    pk_buffer_free(&w->spelled);
    free(w->spellings);
    free(w->root_spellings);
    free(w->thread_root);
    free(w->thread_java);
    free(w->names);
    free(w->other);
    pk_buffer_free(&w->tidy_text);
    free(w->tidy_off);
    pk_index_free(&w->tidy_index);
    free(w->tidy_scratch);
    free(w->function_canon_java);
    free(w->frame_canon_java);
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

/* Sorts order[0, count) as compare_line_order does. Lines are found in the order of the rows,
 * which most readers add in the order of their stacks: then a stable counting sort by depth is
 * all it takes. False when memory runs out. */
static bool sort_line_order(line_order **order, size_t count)
{
    uint32_t max_depth = 0;
    bool by_stack = true;
    for (size_t i = 0; i < count; i++) {
        const line_order *o = &(*order)[i];
        if (o->depth > max_depth)
            max_depth = o->depth;
        if (i > 0 && o->stack < o[-1].stack)
            by_stack = false;
    }
    /* The counts take no more memory than the lines. */
    if (!by_stack || max_depth >= count) {
        qsort(*order, count, sizeof **order, compare_line_order);
        return true;
    }
    size_t *start = calloc((size_t)max_depth + 1, sizeof *start);
    /* Zeroed, though the scatter below fills every element: an analyzer cannot count that. */
    line_order *sorted = calloc(count ? count : 1, sizeof *sorted);
    if (!start || !sorted) {
        free(start);
        free(sorted);
        return false;
    }
    for (size_t i = 0; i < count; i++)
        start[(*order)[i].depth]++;
    for (size_t d = 0, at = 0; d <= max_depth; d++) {
        size_t n = start[d];
        start[d] = at;
        at += n;
    }
    for (size_t i = 0; i < count; i++)
        sorted[start[(*order)[i].depth]++] = (*order)[i];
    free(start);
    free(*order);
    *order = sorted;
    return true;
}

/* Lines are written in an order unrelated to where their stacks' frames lie (shallow first):
 * the lines and the frames a little ahead are fetched while one is written. */
#define PREFETCH_AHEAD 8

static void prefetch_lines(const folded_writer *w, const line_order *order, size_t i)
{
    if (i + 2 * PREFETCH_AHEAD < w->count)
        __builtin_prefetch(&w->lines[order[i + 2 * PREFETCH_AHEAD].line]);
    if (i + PREFETCH_AHEAD >= w->count)
        return;
    const line_order *o = &order[i + PREFETCH_AHEAD];
    const char *from = (const char *)w->lines[o->line].key.frames;
    if (!from)
        return;
    const char *to = from + (size_t)o->depth * sizeof(uint32_t);
    for (int k = 0; k < 8 && from < to; k++, from += 64)
        __builtin_prefetch(from);
}

/* The names of a line, into w->names. */
static size_t line_names(folded_writer *w, const output_line *line, const line_order *o)
{
    uint32_t thread = w->thread_roots || w->tidy ? pk_sample_thread(w->p, line->row) : 0;
    if (!line->key.frames)
        return stack_names(w, thread, o->stack - 1, &w->names, &w->names_cap);
    if (!PK_ARRAY_RESERVE(w->names, w->names_cap, (size_t)o->depth + 1))
        return SIZE_MAX;
    return frames_names(w, thread, line->key.frames, o->depth, w->names);
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
    /* A reader's command-name roots (perf script's, as stackcollapse-perf.pl writes them);
     * --with-threads writes the threads' own names instead. */
    const char *roots = pk_property_get(p, "folded roots");
    if (roots && strcmp(roots, "command") != 0 && strcmp(roots, "command-pid") != 0 &&
        strcmp(roots, "command-tid") != 0)
        roots = NULL;
    w.thread_roots = with_threads || roots;
    pk_u64map_init(&w.canonical);
    pk_index_init(&w.written);
    pk_index_init(&w.tidy_index);
    size_t functions = pk_function_count(p);
    w.function_canon = malloc((functions ? functions : 1) * sizeof *w.function_canon);
    if (!w.function_canon || (w.thread_roots && !spell_roots(&w, roots)))
        goto nomem;
    memset(w.function_canon, 0xff, (functions ? functions : 1) * sizeof *w.function_canon);
    size_t frames = pk_frame_count(p);
    const char *names = pk_property_get(p, "folded names");
    w.tidy = names && strcmp(names, "flamegraph") == 0;
    w.frame_canon = malloc((frames ? frames : 1) * sizeof *w.frame_canon);
    if (!w.frame_canon)
        goto nomem;
    memset(w.frame_canon, 0xff, (frames ? frames : 1) * sizeof *w.frame_canon);
    if (w.tidy) {
        w.function_canon_java = malloc((functions ? functions : 1) * sizeof(uint32_t));
        w.frame_canon_java = malloc((frames ? frames : 1) * sizeof(uint32_t));
        if (!w.function_canon_java || !w.frame_canon_java || !mark_java_threads(&w, roots))
            goto nomem;
        memset(w.function_canon_java, 0xff, (functions ? functions : 1) * sizeof(uint32_t));
        memset(w.frame_canon_java, 0xff, (frames ? frames : 1) * sizeof(uint32_t));
    }

    size_t rows = pk_sample_count(p);
    for (size_t row = 0; row < rows; row++) {
        int64_t v = pk_sample_values(p, row)[value];
        int64_t base = differential ? pk_sample_values(p, row)[PK_DIFF_BASE] : 0;
        if (v == 0 && base == 0)
            continue;
        /* An empty stack has no name to write (but for its thread's root). */
        if (!w.thread_roots && pk_sample_stack(p, row) == PK_NONE)
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
        uint32_t stack = pk_sample_stack(p, w.lines[i].row), prefix;
        const uint32_t *run;
        size_t length = pk_stack_run(p, stack, &prefix, &run);
        w.lines[i].key.frames = prefix == PK_NONE && length > 0 ? run : NULL;
        order[i] = (line_order){pk_stack_depth(p, stack), stack + 1u, (uint32_t)i};
    }
    if (!sort_line_order(&order, w.count))
        goto nomem;
    for (size_t i = 0; i < w.count; i++) {
        prefetch_lines(&w, order, i);
        const output_line *line = &w.lines[order[i].line];
        if (differential ? line->value == 0 && line->base == 0 : line->value <= 0)
            continue;
        size_t n = line_names(&w, line, &order[i]);
        if (n == SIZE_MAX)
            goto nomem;
        /* What profkit writes it reads: no line longer than the reader takes. The counts
         * need at most 2 x 20 digits and their blanks. */
        size_t total = 0;
        for (size_t k = 0; k < n; k++)
            total += spelling_of(&w, w.names, k)->length + 1;
        if (total + 42 > FOLDED_MAX_LINE) {
            free(order);
            writer_free(&w);
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "a stack of %zu frames makes a folded line of %zu bytes, more "
                                "than the " FOLDED_MAX_LINE_TEXT " profkit's folded reader takes",
                                n, total);
        }
        if (n == 1 && !w.thread_roots && w.spellings[w.names[0]].length == 0)
            pk_out_putc(out, '_'); /* " 3" would read as a count without a stack */
        write_names(&w, out, w.names, n, total);
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
    /* Nothing to write (no samples, or none weighing anything) is no line at all: folded
     * stacks of an empty profile, as a stack collapser writes for one. The command warns. */
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
    .flags = PK_FORMAT_TEXT | PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = folded_probe,
    .read = folded_read,
    .write = folded_write,
    .dump = NULL,
    .read_options = folded_read_options,
    .write_options = NULL,
};
