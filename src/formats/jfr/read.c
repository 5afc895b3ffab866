/* SPDX-License-Identifier: MIT */
/* The JFR reader: chunk by chunk, a loader (on a second processor when there is one) holds the
 * chunk's bytes, reads its metadata and indexes its constant pools (codec.c), decodes the events
 * it knows and resolves their stack traces (known.c); the reader then turns the events into
 * timed samples. A thread, method or frame type of a chunk's pools is resolved once and
 * remembered by its key for the rest of the chunk; threads are known across chunks by their Java
 * thread id, stacks by their frames' bytes. Memory grows with two chunks' bytes and pools and
 * the distinct stacks, never with the events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/batch_ring.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/memory_values.h"
#include "formats/jfr/jfr.h"
#include "formats/jfr/reader.h"
#include "profkit/timeline.h"

/* The events read, each one value type. */
typedef enum jfr_weight {
    WEIGHT_COUNT,      /* one per event */
    WEIGHT_FIELD,      /* a field's number */
    WEIGHT_DURATION    /* the event's duration, ticks to nanoseconds */
} jfr_weight;

typedef struct jfr_event_kind {
    const char *type;      /* the JFR event type */
    const char *thread;    /* the field that names the thread */
    const char *value;     /* the profile's value type */
    const char *unit;
    jfr_weight weight;
    const char *weight_field;
    bool class_leaf;       /* the allocated class as the leaf frame */
    bool second_is_count;  /* also counts objects in the next kind's value */
} jfr_event_kind;

/* The TLAB events measure every allocation: alloc_space and alloc_objects of the memory
 * vocabulary (core/memory_values.h). jdk.ObjectAllocationSample's weight is a throttled
 * sampler's estimate of the bytes allocated since the thread's last sample, kept apart as
 * alloc-sampled-bytes: a recording may hold both kinds, which summed together would count the
 * same allocations twice. */
static const jfr_event_kind jfr_kinds[] = {
    {"jdk.ExecutionSample", "sampledThread", "cpu-samples", "count", WEIGHT_COUNT, NULL, false, false},
    {"jdk.NativeMethodSample", "sampledThread", "native-samples", "count", WEIGHT_COUNT, NULL, false, false},
    {"jdk.ObjectAllocationSample", "eventThread", "alloc-sampled-bytes", "bytes", WEIGHT_FIELD, "weight", true, false},
    {"jdk.ObjectAllocationInNewTLAB", "eventThread", PK_MEMORY_ALLOC_SPACE, PK_MEMORY_SPACE_UNIT, WEIGHT_FIELD, "allocationSize", true, true},
    {"jdk.ObjectAllocationOutsideTLAB", "eventThread", PK_MEMORY_ALLOC_SPACE, PK_MEMORY_SPACE_UNIT, WEIGHT_FIELD, "allocationSize", true, true},
    {"jdk.JavaMonitorEnter", "eventThread", "lock-wait", "nanoseconds", WEIGHT_DURATION, NULL, false, false},
    {"jdk.ThreadPark", "eventThread", "park", "nanoseconds", WEIGHT_DURATION, NULL, false, false},
};
_Static_assert(sizeof jfr_kinds / sizeof jfr_kinds[0] == JFR_KIND_COUNT, "JFR_KIND_COUNT");

/* The label that keeps a sample's thread state ("STATE_RUNNABLE", ...), as pprof labels are
 * kept (profkit/label_select.h selects and groups by it). */
#define JFR_LABEL_THREAD_STATE "thread_state"

static void layout_chunk(jfr_layout *l, const jfr_chunk *c)
{
    l->thread = jfr_type_named(c, "java.lang.Thread");
    l->stack = jfr_type_named(c, "jdk.types.StackTrace");
    l->frame = jfr_type_named(c, "jdk.types.StackFrame");
    l->method = jfr_type_named(c, "jdk.types.Method");
    l->klass = jfr_type_named(c, "java.lang.Class");
    l->symbol = jfr_type_named(c, "jdk.types.Symbol");
    l->frame_type = jfr_type_named(c, "jdk.types.FrameType");
    l->thread_state = jfr_type_named(c, "jdk.types.ThreadState");
    l->thread_state_name = jfr_field_named(c, l->thread_state, "name");
    l->thread_os_name = jfr_field_named(c, l->thread, "osName");
    l->thread_os_id = jfr_field_named(c, l->thread, "osThreadId");
    l->thread_java_name = jfr_field_named(c, l->thread, "javaName");
    l->thread_java_id = jfr_field_named(c, l->thread, "javaThreadId");
    l->stack_frames = jfr_field_named(c, l->stack, "frames");
    l->frame_method = jfr_field_named(c, l->frame, "method");
    l->frame_line = jfr_field_named(c, l->frame, "lineNumber");
    l->frame_type_ref = jfr_field_named(c, l->frame, "type");
    l->method_class = jfr_field_named(c, l->method, "type");
    l->method_name = jfr_field_named(c, l->method, "name");
    l->class_name = jfr_field_named(c, l->klass, "name");
    l->symbol_string = jfr_field_named(c, l->symbol, "string");
    l->frame_type_description = jfr_field_named(c, l->frame_type, "description");
    for (size_t k = 0; k < JFR_KIND_COUNT; k++) {
        uint32_t t = jfr_type_named(c, jfr_kinds[k].type);
        l->event_type[k] = t;
        l->start[k] = jfr_field_named(c, t, "startTime");
        l->duration[k] = jfr_field_named(c, t, "duration");
        l->thread_field[k] = jfr_field_named(c, t, jfr_kinds[k].thread);
        l->stack_field[k] = jfr_field_named(c, t, "stackTrace");
        l->weight[k] = jfr_kinds[k].weight_field ? jfr_field_named(c, t, jfr_kinds[k].weight_field) : -1;
        l->object_class[k] = jfr_field_named(c, t, "objectClass");
        l->state[k] = jfr_field_named(c, t, "state");
    }
}

/* async-profiler names a native symbol's library as its "class" ("libc.so.6", or "" when it
 * does not know): a shared object's name, where a Java class has none. */
static bool is_library(const char *name, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (memcmp(name + i, ".so", 3) == 0 && (i + 3 == n || name[i + 3] == '.'))
            return true;
    return (n > 6 && memcmp(name + n - 6, ".dylib", 6) == 0) ||
           (n > 4 && memcmp(name + n - 4, ".dll", 4) == 0);
}

/* The function of a method named name ("Class.method", len bytes, the class class_len of them)
 * in a frame of kind: Java code (script); a Java native method is script-relevant; native code
 * outside Java (a frame kind of it, or a native frame whose class is a library or nothing) is
 * the symbol alone, its library the function's resource, a kernel symbol marked "_[k]" as
 * folded stacks mark them (analysis/categories.c). */
static pk_status intern_method(jfr_reader *r, const char *name, size_t len, size_t class_len,
                               uint32_t kind, uint32_t *out)
{
    bool native_code =
        kind >= JFR_FRAME_NATIVE_CODE ||
        (kind == JFR_FRAME_NATIVE_METHOD && (!class_len || is_library(name, class_len)));
    uint32_t flags = native_code                             ? 0
                     : kind == JFR_FRAME_NATIVE_METHOD ? PK_FUNCTION_SCRIPT_RELEVANT
                                                             : PK_FUNCTION_SCRIPT;
    pk_function f = {PK_NONE, 0, 0, PK_NONE, 0, flags};
    if (native_code) {
        if (class_len) {
            pk_resource library = {pk_intern(r->p, name, class_len), 0, 0, 0, 0, 0};
            if (library.name == PK_NONE ||
                (f.resource = pk_intern_resource(r->p, &library)) == PK_NONE)
                return jfr_nomem(r);
        }
        const char *symbol = name + class_len + 1;
        size_t symbol_len = len - class_len - 1;
        if (kind == JFR_FRAME_KERNEL) {
            if (!jfr_text_reserve(&r->text, &r->text_cap, symbol_len + 5))
                return jfr_nomem(r);
            memmove(r->text, symbol, symbol_len);
            memcpy(r->text + symbol_len, "_[k]", 5);
            symbol = r->text;
            symbol_len += 4;
        }
        f.name = pk_intern(r->p, symbol, symbol_len);
    } else {
        f.name = pk_intern(r->p, name, len);
    }
    if (f.name == PK_NONE || (*out = pk_intern_function(r->p, &f)) == PK_NONE)
        return jfr_nomem(r);
    return PK_OK;
}

/* The function of Method key, remembered for the chunk with the kind of its first frame. */
static pk_status method_function(jfr_reader *r, uint64_t key, uint32_t kind, uint32_t *out)
{
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.method].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    size_t len = 0, class_len = 0;
    pk_status s = jfr_method_text(r, key, &len, &class_len);
    if (s == PK_OK)
        s = intern_method(r, r->name, len, class_len, kind, out);
    if (s != PK_OK)
        return s;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->c->types[r->l.method].resolved, key, *out, &slot, &inserted))
        return jfr_nomem(r);
    return PK_OK;
}

/* The flags of a frame of kind: inlined or not. */
static uint32_t frame_flags(uint32_t kind)
{
    return kind == JFR_FRAME_INLINED ? PK_FRAME_INLINED : 0;
}

/* The label set of ThreadState key: its name as the label thread_state (PK_NONE for key 0, a
 * chunk without the type, or a state without a name). */
static pk_status thread_state_labels(jfr_reader *r, uint64_t key, uint32_t *out)
{
    *out = PK_NONE;
    if (key == 0 || r->l.thread_state == UINT32_MAX || r->l.thread_state_name < 0)
        return PK_OK;
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.thread_state].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    pk_status s = jfr_read_entry(r, r->l.thread_state, key, "thread state", r->entry_values);
    if (s != PK_OK)
        return s;
    if (jfr_field_text(r, r->l.thread_state, r->l.thread_state_name, r->entry_values, &r->text,
                       &r->text_cap) &&
        r->text[0]) {
        pk_label label = {pk_intern_cstr(r->p, JFR_LABEL_THREAD_STATE),
                          pk_intern_cstr(r->p, r->text), 0, 0};
        if (label.key == PK_NONE || label.str == PK_NONE ||
            (*out = pk_intern_label_set(r->p, &label, 1)) == PK_NONE)
            return jfr_nomem(r);
    }
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->c->types[r->l.thread_state].resolved, key, *out, &slot, &inserted))
        return jfr_nomem(r);
    return PK_OK;
}

/* The model stack of StackTrace key (PK_NONE for key 0, no stack). */
static pk_status stack_of(jfr_reader *r, uint64_t key, uint32_t *out)
{
    *out = PK_NONE;
    if (key == 0)
        return PK_OK;
    if (r->l.stack == UINT32_MAX || r->l.stack_frames < 0 || r->l.frame == UINT32_MAX ||
        r->l.frame_method < 0 || r->l.method == UINT32_MAX)
        return jfr_dangling(r, "stack trace", key);
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.stack].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    size_t frames_at;
    if (!jfr_pool_entry(r->c, r->l.stack, key, &frames_at)) {
        /* The JVM writes an event near a chunk's end now and then whose stack trace went to
         * another chunk's pool: the JDK reads its stack as null, and so does the reader, at the
         * thread's root (counted, and said once the recording is read). */
        r->stacks_elsewhere++;
        return PK_OK;
    }
    pk_status s = jfr_read_entry_before(r, r->l.stack, key, "stack trace", r->l.stack_frames,
                                        r->entry_values, &frames_at);
    if (s != PK_OK)
        return s;
    jfr_cursor cur = {r->c, frames_at, r->c->size};
    uint64_t count;
    if (!jfr_read_u64(&cur, &count) || count > r->c->size - cur.pos)
        return jfr_malformed(r, "stack trace");
    if (count > r->frame_cap) {
        uint32_t *f = realloc(r->frames, (size_t)count * sizeof *f);
        if (!f)
            return jfr_nomem(r);
        r->frames = f;
        r->frame_cap = (size_t)count;
    }
    uint64_t *frame = r->values + r->c->max_fields; /* past the event's own values */
    for (uint64_t i = 0; i < count; i++) {
        if (!jfr_read_struct(&cur, r->l.frame, frame))
            return jfr_malformed(r, "stack frame");
        uint32_t type = JFR_FRAME_JAVA, function = PK_NONE;
        if (r->l.frame_type_ref >= 0 &&
            (s = jfr_frame_type(r, frame[r->l.frame_type_ref], &type)) != PK_OK)
            return s;
        uint64_t line = r->l.frame_line >= 0 ? frame[r->l.frame_line] : 0;
        s = method_function(r, frame[r->l.frame_method], type, &function);
        if (s != PK_OK)
            return s;
        pk_frame f = {function, jfr_frame_line(line), 0, PK_NONE, frame_flags(type)};
        /* leaf first in the file, root first in the model */
        if ((r->frames[count - 1 - i] = pk_intern_frame(r->p, &f)) == PK_NONE)
            return jfr_nomem(r);
    }
    *out = pk_intern_stack_frames(r->p, PK_NONE, r->frames, (size_t)count);
    uint32_t *slot;
    bool inserted;
    if ((count && *out == PK_NONE) ||
        !pk_u64map_put(&r->c->types[r->l.stack].resolved, key, *out, &slot, &inserted))
        return jfr_nomem(r);
    return PK_OK;
}

/* The function of known method index for a frame of the given kind: interned once per kind
 * from its name in this chunk's ahead; *named false when its name is not there (it then comes
 * from the reader's own resolution). */
static pk_status known_function(jfr_reader *r, uint32_t index, uint32_t type, uint32_t *out,
                                bool *named)
{
    size_t at = (size_t)index * JFR_FRAME_KINDS + type;
    *named = true;
    if (r->known_function[at]) {
        *out = r->known_function[at] - 1;
        return PK_OK;
    }
    if (!r->method_name[index]) {
        *named = false;
        return PK_OK;
    }
    const jfr_ahead_method *m = &r->ahead->methods[r->method_name[index] - 1];
    pk_status s = intern_method(r, r->ahead->names + m->name, m->len, m->class_len, type, out);
    if (s == PK_OK)
        r->known_function[at] = *out + 1;
    return s;
}

/* The model stack of the chunk's stack index (in r->ahead): a known stack interned once, its
 * frames as stack_of would intern them, or the key resolved by stack_of. */
static pk_status stack_ahead(jfr_reader *r, uint32_t index, uint32_t *out)
{
    const jfr_ahead_stack *st = &r->ahead->stacks[index];
    if (st->known == UINT32_MAX)
        return stack_of(r, st->key, out);
    if (r->known_stack[st->known]) {
        *out = r->known_stack[st->known] - 1;
        return PK_OK;
    }
    if (!st->fresh)
        return stack_of(r, st->key, out);
    if (st->count > r->frame_cap) {
        uint32_t *f = realloc(r->frames, (size_t)st->count * sizeof *f);
        if (!f)
            return jfr_nomem(r);
        r->frames = f;
        r->frame_cap = st->count;
    }
    for (uint32_t i = 0; i < st->count; i++) {
        const jfr_ahead_frame *f = &r->ahead->frames[st->first + i];
        uint32_t function;
        bool named;
        pk_status s = known_function(r, f->method, f->type, &function, &named);
        if (s != PK_OK)
            return s;
        if (!named)
            return stack_of(r, st->key, out);
        pk_frame fr = {function, f->line, 0, PK_NONE, frame_flags(f->type)};
        /* leaf first in the file, root first in the model */
        if ((r->frames[st->count - 1 - i] = pk_intern_frame(r->p, &fr)) == PK_NONE)
            return jfr_nomem(r);
    }
    *out = pk_intern_stack_frames(r->p, PK_NONE, r->frames, st->count);
    if (st->count && *out == PK_NONE)
        return jfr_nomem(r);
    r->known_stack[st->known] = *out + 1;
    return PK_OK;
}

/* The model thread of Thread key, by its Java thread id across chunks. */
static pk_status thread_of(jfr_reader *r, uint64_t key, uint32_t *out)
{
    if (r->l.thread != UINT32_MAX) {
        uint32_t *known = pk_u64map_find(&r->c->types[r->l.thread].resolved, key);
        if (known) {
            *out = *known;
            return PK_OK;
        }
    }
    uint64_t *v = r->entry_values;
    pk_status s = jfr_read_entry(r, r->l.thread, key, "thread", v);
    if (s != PK_OK)
        return s;
    uint64_t java_id = r->l.thread_java_id >= 0 ? v[r->l.thread_java_id] : 0;
    int64_t os_id = r->l.thread_os_id >= 0 ? (int64_t)v[r->l.thread_os_id] : -1;
    uint64_t identity = java_id ? java_id : (1ull << 63) | (uint64_t)os_id;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->threads, identity, 0, &slot, &inserted))
        return jfr_nomem(r);
    if (inserted) {
        if (!jfr_field_text(r, r->l.thread, r->l.thread_java_name, v, &r->text, &r->text_cap) ||
            !r->text[0])
            if (!jfr_field_text(r, r->l.thread, r->l.thread_os_name, v, &r->text, &r->text_cap))
                if (!jfr_text_reserve(&r->text, &r->text_cap, 1) || !(r->text[0] = '\0', true))
                    return jfr_nomem(r);
        uint32_t name = pk_intern_cstr(r->p, r->text);
        uint32_t thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->p, name, -1, os_id);
        if (thread == PK_NONE)
            return jfr_nomem(r);
        slot = pk_u64map_find(&r->threads, identity);
        *slot = thread;
    }
    *out = *slot;
    if (!pk_u64map_put(&r->c->types[r->l.thread].resolved, key, *out, &slot, &inserted))
        return jfr_nomem(r);
    return PK_OK;
}

/* Ticks since the chunk's start to nanoseconds since the epoch; any ticks (the file's, not
 * trusted) saturate rather than overflow. */
static int64_t ticks_to_ns(const jfr_chunk *c, int64_t ticks)
{
    double ns = (double)c->start_nanos +
                ((double)ticks - (double)c->start_ticks) * 1e9 / (double)c->ticks_per_second;
    if (ns <= -9e18 || ns >= 9e18)
        return ns < 0 ? INT64_MIN : INT64_MAX;
    if (c->ticks_per_second != 1000000000)
        return (int64_t)ns;
    /* nanosecond ticks: exact, no rounding through a double (within range, as checked) */
    return (int64_t)((uint64_t)c->start_nanos + ((uint64_t)ticks - (uint64_t)c->start_ticks));
}

static int64_t ticks_span_ns(const jfr_chunk *c, uint64_t ticks)
{
    double ns = (double)ticks * 1e9 / (double)c->ticks_per_second;
    return ns < 0 || ns > 9e18 ? 0 : (int64_t)ns;
}

static uint32_t value_of(jfr_reader *r, size_t k)
{
    if (r->value_index[k] == PK_NONE) {
        /* the TLAB events share one value */
        for (size_t j = 0; j < JFR_KIND_COUNT; j++)
            if (j != k && r->value_index[j] != PK_NONE &&
                strcmp(jfr_kinds[j].value, jfr_kinds[k].value) == 0)
                return r->value_index[k] = r->value_index[j];
        r->value_index[k] = pk_add_value_type(r->p, jfr_kinds[k].value, jfr_kinds[k].unit);
        if (r->value_index[k] != PK_NONE && k == 0)
            pk_set_default_value(r->p, r->value_index[k]);
    }
    return r->value_index[k];
}

/* The leaf frame of an allocated class (Class key), named as Java source writes it; resolved
 * once a chunk, as allocation events name the same few classes again and again. */
static pk_status class_frame(jfr_reader *r, uint64_t key, uint32_t *out)
{
    uint32_t *known =
        r->l.klass != UINT32_MAX ? pk_u64map_find(&r->c->types[r->l.klass].resolved, key) : NULL;
    if (known) {
        *out = *known;
        return PK_OK;
    }
    pk_status s = jfr_class_text(r, key, &r->text, &r->text_cap);
    if (s != PK_OK)
        return s;
    /* an array class as Java source writes it: "[[I" is int[][], "[Lx.Y;" is x.Y[] */
    static const char *const primitive[] = {"B", "byte", "C", "char", "D", "double",
                                            "F", "float", "I", "int", "J", "long",
                                            "S", "short", "Z", "boolean"};
    size_t dims = strspn(r->text, "[");
    const char *base = r->text + dims;
    size_t base_len = strlen(base);
    if (dims && base[0] == 'L' && base_len > 1 && base[base_len - 1] == ';') {
        base++;
        base_len -= 2;
    } else if (dims && base_len == 1) {
        for (size_t i = 0; i < sizeof primitive / sizeof primitive[0]; i += 2)
            if (base[0] == primitive[i][0]) {
                base = primitive[i + 1];
                base_len = strlen(base);
            }
    }
    if (!jfr_text_reserve(&r->name, &r->name_cap, base_len + dims * 2 + 1))
        return jfr_nomem(r);
    memmove(r->name, base, base_len);
    for (size_t i = 0; i < dims; i++)
        memcpy(r->name + base_len + 2 * i, "[]", 2);
    pk_function f = {pk_intern(r->p, r->name, base_len + dims * 2), 0, 0, PK_NONE, 0, 0};
    uint32_t fn = f.name == PK_NONE ? PK_NONE : pk_intern_function(r->p, &f);
    pk_frame fr = {fn, 0, 0, PK_NONE, 0};
    *out = fn == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
    if (*out == PK_NONE)
        return jfr_nomem(r);
    uint32_t *slot;
    bool inserted;
    /* class_text found the entry, so the type is described */
    if (!pk_u64map_put(&r->c->types[r->l.klass].resolved, key, *out, &slot, &inserted))
        return jfr_nomem(r);
    return PK_OK;
}

/* An event of a kind the reader knows, as decode_event reads it: the fields the reader uses
 * (0 where its type has no such field: the layout says which it has). */
typedef struct jfr_event {
    uint64_t offset; /* of the event, from its chunk's first byte (for errors) */
    uint64_t thread, stack, klass, state, start, duration, weight;
    uint32_t kind;   /* index into jfr_kinds */
    uint32_t stack_slot; /* its stack decoded ahead (jfr_ahead), UINT32_MAX: resolved by key */
} jfr_event;

/* Reads the event of kind k at cur into *e (values: room for the most fields of any type);
 * false when its bytes do not hold its type. An event without a thread or time field is read
 * and left out: *wanted false. */
static bool decode_event(const jfr_layout *l, size_t k, jfr_cursor *cur, uint64_t *v,
                         jfr_event *e, bool *wanted)
{
    *wanted = false;
    if (!jfr_read_struct(cur, l->event_type[k], v))
        return false;
    if (l->thread_field[k] < 0 || l->start[k] < 0)
        return true;
    *wanted = true;
    e->kind = (uint32_t)k;
    e->thread = v[l->thread_field[k]];
    e->start = v[l->start[k]];
    e->stack = l->stack_field[k] >= 0 ? v[l->stack_field[k]] : 0;
    e->stack_slot = UINT32_MAX;
    e->klass = l->object_class[k] >= 0 ? v[l->object_class[k]] : 0;
    e->state = l->state[k] >= 0 ? v[l->state[k]] : 0;
    e->duration = l->duration[k] >= 0 ? v[l->duration[k]] : 0;
    e->weight = l->weight[k] >= 0 ? v[l->weight[k]] : 0;
    return true;
}

/* The model stack of an event that ends in its allocated class: the event's stack with the
 * class's frame as its leaf, remembered by (stack, frame) across chunks, as allocation events
 * repeat the same few pairs. */
static pk_status class_leaf_stack(jfr_reader *r, uint32_t stack, uint64_t class_key, uint32_t *out)
{
    uint32_t frame = PK_NONE;
    pk_status s = class_frame(r, class_key, &frame);
    if (s != PK_OK)
        return s;
    uint64_t pair = (uint64_t)stack << 32 | frame;
    uint32_t *known = pk_u64map_find(&r->leaf_stacks, pair);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    uint32_t *slot;
    bool inserted;
    if ((*out = pk_intern_stack(r->p, stack, frame)) == PK_NONE ||
        !pk_u64map_put(&r->leaf_stacks, pair, *out, &slot, &inserted))
        return jfr_nomem(r);
    return PK_OK;
}

/* Adds the event to the profile: its thread's row and timeline. */
static pk_status apply_event(jfr_reader *r, const jfr_event *e)
{
    const jfr_layout *l = &r->l;
    size_t k = e->kind;
    r->event_offset = r->c->file_offset + e->offset;
    uint32_t thread = PK_NONE, stack = PK_NONE;
    pk_status s = thread_of(r, e->thread, &thread);
    if (s == PK_OK && l->stack_field[k] >= 0)
        s = e->stack_slot != UINT32_MAX ? stack_ahead(r, e->stack_slot, &stack)
                                        : stack_of(r, e->stack, &stack);
    if (s != PK_OK)
        return s;
    if (jfr_kinds[k].class_leaf && l->object_class[k] >= 0 && e->klass &&
        (s = class_leaf_stack(r, stack, e->klass, &stack)) != PK_OK)
        return s;
    uint32_t value = value_of(r, k);
    if (value == PK_NONE)
        return jfr_nomem(r);
    if (jfr_kinds[k].second_is_count && r->objects_value == PK_NONE &&
        (r->objects_value = pk_add_value_type(r->p, PK_MEMORY_ALLOC_OBJECTS, PK_MEMORY_OBJECTS_UNIT)) == PK_NONE)
        return jfr_nomem(r);
    int64_t values[PK_MAX_VALUES] = {0};
    int64_t duration = 0;
    if (l->duration[k] >= 0)
        duration = ticks_span_ns(r->c, e->duration);
    switch (jfr_kinds[k].weight) {
    case WEIGHT_COUNT:
        values[value] = 1;
        break;
    case WEIGHT_FIELD:
        values[value] = l->weight[k] >= 0 && (int64_t)e->weight > 0 ? (int64_t)e->weight : 0;
        break;
    case WEIGHT_DURATION:
        values[value] = duration;
        break;
    }
    if (jfr_kinds[k].second_is_count)
        values[r->objects_value] = 1;
    uint32_t labels = PK_NONE;
    if (l->state[k] >= 0 && (s = thread_state_labels(r, e->state, &labels)) != PK_OK)
        return s;
    int64_t time = ticks_to_ns(r->c, (int64_t)e->start);
    if (labels != PK_NONE) {
        /* the labelled row gets the values, the thread's timeline the sample */
        size_t row = pk_sample_row_labeled(r->p, thread, stack, labels);
        if (row == SIZE_MAX)
            return jfr_nomem(r);
        for (uint32_t i = 0; i < pk_value_type_count(r->p); i++)
            if (values[i])
                pk_sample_row_add(r->p, row, i, values[i]);
    } else if (pk_add_sample(r->p, thread, stack, values) != PK_OK) {
        return jfr_nomem(r);
    }
    /* An event without a stack counts at the thread's root, and so it sits on the timeline;
     * one whose time or span is beyond the clock is in the rows alone, so the thread has no
     * timeline (it would leave that event out). */
    pk_status status = pk_timeline_append(r->p, thread, stack, time, duration, values);
    if (status == PK_ERR_USAGE)
        status = pk_timeline_drop(r->p, thread);
    if (status == PK_ERR_IO)
        return pk_error_set(r->err, PK_ERR_IO, -1,
                            "cannot write the sample times to a temporary file");
    return status == PK_OK ? PK_OK : jfr_nomem(r);
}

/* The kind of an event of type id type in the chunk laid out as l, JFR_KIND_COUNT for none
 * the reader knows (and for the metadata and checkpoint events). */
static size_t kind_of_event(jfr_reader *r, uint64_t type)
{
    if (type < sizeof r->kind_of_type && r->kind_of_type[type])
        return r->kind_of_type[type] - 1u;
    size_t kind = JFR_KIND_COUNT;
    const uint32_t *index = type == JFR_TYPE_METADATA || type == JFR_TYPE_CHECKPOINT
                                ? NULL
                                : pk_u64map_find(&r->c->type_by_id, type);
    for (size_t k = 0; index && k < JFR_KIND_COUNT; k++)
        if (r->l.event_type[k] == *index) {
            kind = k;
            break;
        }
    if (type < sizeof r->kind_of_type)
        r->kind_of_type[type] = (uint8_t)(kind + 1);
    return kind;
}

/* Forgets what the last chunk's type ids and keys meant. */
static void forget_small_keys(jfr_reader *r)
{
    memset(r->kind_of_type, 0, sizeof r->kind_of_type);
    memset(r->frame_type_of_key, 0, sizeof r->frame_type_of_key);
}

/* The event at cur (the chunk's walk of events, whose sizes jfr_chunk_load checked): where it
 * starts, a cursor over its body after its type, and its type; cur then stands after it. False
 * at the chunk's end. */
static bool next_event(jfr_cursor *cur, size_t *at, jfr_cursor *event, uint64_t *type)
{
    if (cur->pos >= cur->chunk->size)
        return false;
    uint64_t size;
    *at = cur->pos;
    jfr_read_u64(cur, &size);
    *event = (jfr_cursor){cur->chunk, cur->pos, *at + (size_t)size};
    jfr_read_u64(event, type);
    cur->pos = *at + (size_t)size;
    return true;
}

/* Decodes the events of known kinds of d's chunk from the one at *resume into events (at most
 * cap), with their stack traces into ahead, as far as they decode (loader's side); *resume is
 * then where decoding stopped: the chunk's size when every event is decoded, else the first
 * event left (past cap, or one that does not decode, whose error the reader's own walk then
 * reports). */
static size_t decode_events(jfr_reader *d, jfr_known *known, jfr_ahead *ahead,
                            jfr_event *events, size_t cap, size_t *resume)
{
    const jfr_chunk *c = d->c;
    size_t n = 0, at;
    jfr_cursor cur = {c, *resume, c->size}, event;
    uint64_t type;
    while (next_event(&cur, &at, &event, &type)) {
        size_t k = kind_of_event(d, type);
        if (k < JFR_KIND_COUNT) {
            bool wanted;
            if (n == cap) {
                *resume = at;
                return n;
            }
            jfr_event *e = &events[n];
            if (!decode_event(&d->l, k, &event, d->values, e, &wanted)) {
                *resume = at;
                return n;
            }
            if (wanted) {
                e->offset = at;
                if (d->l.stack_field[k] >= 0 && e->stack)
                    e->stack_slot = jfr_ahead_stack_slot(d, known, ahead, e->stack);
                n++;
            }
        }
    }
    *resume = c->size;
    return n;
}

/* Room in r for a struct of r->c's types: an event's values, then a stack frame's, and a pool
 * entry's; false when memory runs out. */
static bool reader_buffers(jfr_reader *r)
{
    free(r->values);
    free(r->entry_values);
    r->values = calloc((size_t)r->c->max_fields * 2 + 1, sizeof *r->values);
    r->entry_values = calloc((size_t)r->c->max_fields + 1, sizeof *r->entry_values);
    return r->values && r->entry_values;
}

/* Sets the reader up for its chunk r->c, laid out as l, whose stacks the loader resolved into
 * ahead. */
static pk_status begin_chunk(jfr_reader *r, const jfr_layout *l, const jfr_ahead *ahead)
{
    r->l = *l;
    r->ahead = ahead;
    forget_small_keys(r);
    bool buffers = reader_buffers(r);
    if (ahead->generation != r->generation) {
        /* the known stacks and methods were forgotten: so is what they resolved to */
        r->generation = ahead->generation;
        r->known_stack_len = r->known_function_len = 0;
    }
    size_t functions = ahead->known_methods * JFR_FRAME_KINDS; /* a function per frame kind */
    if (!buffers || !PK_ARRAY_RESERVE(r->known_stack, r->known_stack_cap, ahead->known_stacks) ||
        !PK_ARRAY_RESERVE(r->known_function, r->known_function_cap, functions) ||
        !PK_ARRAY_RESERVE(r->method_name, r->method_name_cap, ahead->known_methods))
        return jfr_nomem(r);
    if (ahead->known_stacks > r->known_stack_len) {
        memset(r->known_stack + r->known_stack_len, 0,
               (ahead->known_stacks - r->known_stack_len) * sizeof *r->known_stack);
        r->known_stack_len = ahead->known_stacks;
    }
    if (functions > r->known_function_len) {
        memset(r->known_function + r->known_function_len, 0,
               (functions - r->known_function_len) * sizeof *r->known_function);
        r->known_function_len = functions;
    }
    if (ahead->known_methods)
        memset(r->method_name, 0, ahead->known_methods * sizeof *r->method_name);
    for (size_t i = 0; i < ahead->method_count; i++)
        r->method_name[ahead->methods[i].known] = (uint32_t)i + 1;
    return PK_OK;
}

/* Adds the decoded events, then reads the chunk's events from resume on. */
static pk_status read_events(jfr_reader *r, const jfr_event *events, size_t count, size_t resume)
{
    jfr_chunk *c = r->c;
    for (size_t i = 0; i < count; i++) {
        pk_status s = apply_event(r, &events[i]);
        if (s != PK_OK)
            return s;
    }
    jfr_cursor cur = {c, resume, c->size}, event;
    size_t at;
    uint64_t type;
    while (next_event(&cur, &at, &event, &type)) {
        size_t k = kind_of_event(r, type);
        if (k == JFR_KIND_COUNT)
            continue;
        r->event_offset = c->file_offset + at;
        jfr_event e;
        bool wanted;
        if (!decode_event(&r->l, k, &event, r->values, &e, &wanted))
            return jfr_malformed(r, jfr_kinds[k].type);
        e.offset = at;
        pk_status s = wanted ? apply_event(r, &e) : PK_OK;
        if (s != PK_OK)
            return s;
    }
    return PK_OK;
}

/* A chunk loaded for the reader: its bytes, metadata and pools' index (jfr_chunk_load), or why
 * none follows. Loading runs on a worker thread when there is a second processor
 * (core/batch_ring.h), so that the next chunk is read and indexed while this one's events are:
 * two chunks are held at a time. What the loader finds wrong is handed over, not reported: only
 * the reader's thread touches the profile. */
typedef struct jfr_loaded {
    jfr_chunk c;
    uint8_t *buffer; /* the chunk's bytes, reused by the next chunk loaded into this slot */
    size_t buffer_cap;
    bool loaded;        /* c holds a whole chunk to read */
    pk_status status;   /* not PK_OK: err says why the recording cannot be read on */
    pk_error err;
    char warning[192];  /* the recording ends cut short here, after the chunks before */
    jfr_reader decoder; /* c's decoder (no profile): its layout, buffers and errors */
    pk_error decoder_err;
    jfr_ahead ahead;    /* c's stack traces that its events use, decoded */
    jfr_event *events;  /* c's events decoded, up to JFR_DECODED_EVENTS */
    size_t event_count, event_cap;
    size_t resume;      /* where the reader's own walk of c's events starts */
} jfr_loaded;

typedef struct jfr_loader {
    pk_input *in;
    uint64_t offset, chunks;
    jfr_known known; /* the stacks known across chunks */
} jfr_loader;

/* Chunks this size and larger are loaded on a worker thread: below it a thread costs more than
 * the overlap gives (and the fuzzer's inputs stay on one thread). */
#define JFR_THREADED_CHUNK_BYTES (64u << 10)

/* The most events decoded ahead of a chunk's reading (72 bytes each): the rest of a larger
 * chunk's events are decoded by the reader as it goes. */
#define JFR_DECODED_EVENTS (1u << 16)

static void decoder_free(jfr_reader *d)
{
    free(d->values);
    free(d->entry_values);
    free(d->text);
    free(d->name);
    d->values = d->entry_values = NULL;
}

/* Decodes b's chunk's events into b->events (growing them up to JFR_DECODED_EVENTS) and the
 * stack traces they use into b->ahead; what is not decoded here the reader decodes. */
static void decode_ahead(jfr_loader *ld, jfr_loaded *b)
{
    jfr_reader *d = &b->decoder;
    d->c = &b->c;
    d->err = &b->decoder_err;
    layout_chunk(&d->l, &b->c);
    forget_small_keys(d);
    jfr_ahead_clear(&b->ahead);
    b->event_count = 0;
    b->resume = JFR_HEADER_SIZE;
    if (!reader_buffers(d))
        return; /* the reader decodes them all */
    jfr_known_begin_chunk(d, &ld->known, &b->ahead);
    if (!b->event_cap && (b->events = malloc(1024 * sizeof *b->events)))
        b->event_cap = 1024;
    /* decoding goes on where it stopped when the events outgrow their array */
    size_t n = 0;
    while (b->events) {
        n += decode_events(d, &ld->known, &b->ahead, b->events + n, b->event_cap - n, &b->resume);
        if (b->resume == b->c.size || n < b->event_cap || b->event_cap >= JFR_DECODED_EVENTS)
            break;
        jfr_event *grown = realloc(b->events, b->event_cap * 2 * sizeof *grown);
        if (!grown)
            break;
        b->events = grown;
        b->event_cap *= 2;
    }
    b->event_count = n;
    b->ahead.known_methods = ld->known.method_count;
    b->ahead.known_stacks = ld->known.stack_count;
}

/* Loads the next chunk into batch (a jfr_loaded); false when none follows it. */
static bool load_chunk(void *context, void *batch)
{
    jfr_loader *ld = context;
    jfr_loaded *b = batch;
    pk_input *in = ld->in;
    jfr_chunk_release(&b->c);
    b->loaded = false;
    b->status = PK_OK;
    b->warning[0] = '\0';
    uint8_t header[JFR_HEADER_SIZE];
    size_t got = pk_in_read(in, header, sizeof header);
    if (got == 0 && ld->chunks > 0 && !pk_in_error(in))
        return false;
    uint64_t size = 0;
    bool finished = false;
    if (got < sizeof header) {
        if (pk_in_error(in))
            b->status = pk_in_fail(in, &b->err);
        else if (ld->chunks == 0)
            b->status = pk_error_set(&b->err, PK_ERR_INPUT, (int64_t)ld->offset,
                                     "JFR recording cut short in its first chunk header");
        else
            snprintf(b->warning, sizeof b->warning,
                     "JFR recording cut at offset %llu, in a chunk header: read the %llu whole "
                     "chunks before it", (unsigned long long)(ld->offset + got),
                     (unsigned long long)ld->chunks);
        return false;
    }
    b->status = jfr_chunk_header(&b->c, header, ld->offset, &size, &finished, &b->err);
    if (b->status != PK_OK)
        return false;
    /* the chunk's bytes come in as they arrive, never sized by the header alone */
    size_t have = JFR_HEADER_SIZE;
    if (b->buffer_cap < JFR_HEADER_SIZE) {
        if (!(b->buffer = malloc(1 << 16))) {
            b->status = pk_error_set(&b->err, PK_ERR_NOMEM, -1, "out of memory");
            return false;
        }
        b->buffer_cap = 1 << 16;
    }
    memcpy(b->buffer, header, JFR_HEADER_SIZE);
    while (have < size) {
        if (have == b->buffer_cap) {
            /* doubling as the bytes come, never past the size the header claims */
            size_t n = b->buffer_cap * 2 < size ? b->buffer_cap * 2 : (size_t)size;
            uint8_t *grown = realloc(b->buffer, n);
            if (!grown) {
                b->status = pk_error_set(&b->err, PK_ERR_NOMEM, -1, "out of memory");
                return false;
            }
            b->buffer = grown;
            b->buffer_cap = n;
        }
        size_t want = b->buffer_cap - have;
        if (want > size - have)
            want = (size_t)(size - have);
        size_t n = pk_in_read(in, b->buffer + have, want);
        if (n == 0)
            break;
        have += n;
    }
    if (have < size || !finished || b->c.metadata_offset == 0) {
        if (pk_in_error(in))
            b->status = pk_in_fail(in, &b->err);
        else if (ld->chunks == 0)
            b->status = pk_damage(&b->err, ld->offset + have,
                                  "JFR recording cut at offset %llu in its first chunk (which "
                                  "claims %llu bytes from offset %llu): nothing whole to read",
                                  (unsigned long long)(ld->offset + have),
                                  (unsigned long long)size, (unsigned long long)ld->offset);
        else
            snprintf(b->warning, sizeof b->warning,
                     "JFR recording cut at offset %llu, in the chunk that starts at offset "
                     "%llu: read the %llu whole chunks before it",
                     (unsigned long long)(ld->offset + have), (unsigned long long)ld->offset,
                     (unsigned long long)ld->chunks);
        return false;
    }
    b->c.data = b->buffer;
    b->c.size = (size_t)size;
    b->status = jfr_chunk_load(&b->c, &b->err);
    if (b->status != PK_OK)
        return false;
    decode_ahead(ld, b);
    b->loaded = true;
    ld->offset += size;
    ld->chunks++;
    return true;
}

/* The size the first chunk's header claims, 0 when its header is not at hand. */
static uint64_t first_chunk_size(pk_input *in)
{
    const uint8_t *header;
    if (pk_in_peek(in, JFR_HEADER_SIZE, &header) < JFR_HEADER_SIZE)
        return 0;
    uint64_t size = 0;
    for (int i = 8; i < 16; i++)
        size = size << 8 | header[i];
    return size;
}

pk_status jfr_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    jfr_reader r = {.p = p, .err = err, .objects_value = PK_NONE};
    for (size_t k = 0; k <= JFR_KIND_COUNT; k++)
        r.value_index[k] = PK_NONE;
    pk_u64map_init(&r.threads);
    pk_u64map_init(&r.leaf_stacks);
    jfr_loader loader = {.in = in};
    jfr_known_init(&loader.known);
    jfr_loaded loaded[2];
    memset(loaded, 0, sizeof loaded);
    void *slots[2] = {&loaded[0], &loaded[1]};
    pk_batch_ring ring;
    pk_batch_ring_start(&ring, slots, 2, load_chunk, &loader,
                        first_chunk_size(in) >= JFR_THREADED_CHUNK_BYTES);
    pk_status status = PK_OK;
    uint64_t chunks = 0;
    for (jfr_loaded *b; status == PK_OK && (b = pk_batch_ring_next(&ring));) {
        if (b->status != PK_OK) {
            *err = b->err;
            status = b->status;
            break;
        }
        if (b->warning[0])
            pk_warn(p, "%s", b->warning);
        if (!b->loaded)
            break;
        if (chunks++ == 0 || b->c.start_nanos < pk_metadata_of(p)->start_time)
            pk_metadata_of(p)->start_time = b->c.start_nanos;
        r.c = &b->c;
        status = begin_chunk(&r, &b->decoder.l, &b->ahead);
        if (status == PK_OK)
            status = read_events(&r, b->events, b->event_count, b->resume);
        r.c = NULL;
    }
    pk_batch_ring_finish(&ring);
    if (status == PK_OK && r.stacks_elsewhere)
        pk_warn(p, "%llu JFR events refer to a stack trace that no constant pool of their chunk "
                   "holds (the JVM wrote it with another chunk): they are counted without their "
                   "stacks, at their thread's root, as the JDK reads them",
                (unsigned long long)r.stacks_elsewhere);
    for (size_t i = 0; i < 2; i++) {
        jfr_chunk_release(&loaded[i].c);
        free(loaded[i].buffer);
        decoder_free(&loaded[i].decoder);
        jfr_ahead_free(&loaded[i].ahead);
        free(loaded[i].events);
    }
    free(r.values);
    free(r.entry_values);
    free(r.frames);
    free(r.known_stack);
    free(r.known_function);
    free(r.method_name);
    jfr_known_free(&loader.known);
    free(r.text);
    free(r.name);
    pk_u64map_free(&r.threads);
    pk_u64map_free(&r.leaf_stacks);
    return status;
}
