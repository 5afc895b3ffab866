/* SPDX-License-Identifier: MIT */
/* The JFR reader: chunk by chunk, it holds the chunk's bytes, reads its metadata and indexes its
 * constant pools (codec.c), then turns the events it knows into timed samples. A thread, stack
 * trace, method or frame type of the chunk's pools is resolved once and remembered by its key
 * for the rest of the chunk; threads are known across chunks by their Java thread id. Memory
 * grows with one chunk's bytes and pools and the distinct stacks, never with the events. */
#include <stdlib.h>
#include <string.h>

#include "core/damage.h"
#include "core/input.h"
#include "core/memory_values.h"
#include "formats/jfr/jfr.h"
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
#define JFR_KIND_COUNT (sizeof jfr_kinds / sizeof jfr_kinds[0])

/* Where the fields the reader needs are in this chunk's types (-1: not described). */
typedef struct jfr_layout {
    uint32_t thread, stack, frame, method, klass, symbol, frame_type, thread_state;
    int thread_os_name, thread_os_id, thread_java_name, thread_java_id;
    int stack_frames, frame_method, frame_line, frame_type_ref;
    int method_class, method_name, class_name, symbol_string, frame_type_description;
    int thread_state_name;
    /* per event kind */
    uint32_t event_type[JFR_KIND_COUNT];
    int start[JFR_KIND_COUNT], duration[JFR_KIND_COUNT], thread_field[JFR_KIND_COUNT];
    int stack_field[JFR_KIND_COUNT], weight[JFR_KIND_COUNT], object_class[JFR_KIND_COUNT];
    int state[JFR_KIND_COUNT]; /* the sampled thread's state (execution and native samples) */
} jfr_layout;

/* The label that keeps a sample's thread state ("STATE_RUNNABLE", ...), as pprof labels are
 * kept (profkit/label_select.h selects and groups by it). */
#define JFR_LABEL_THREAD_STATE "thread_state"

typedef struct jfr_reader {
    pk_profile *p;
    pk_error *err;
    jfr_chunk *c;
    jfr_layout l;
    uint32_t value_index[JFR_KIND_COUNT + 1]; /* + objects */
    uint32_t objects_value;
    pk_u64map threads; /* Java thread id -> model thread, across chunks */
    char *text, *name;
    size_t text_cap, name_cap;
    uint64_t *values, *entry_values;
    uint32_t *frames;
    size_t frame_cap;
    uint64_t event_offset; /* of the event being read, for errors */
} jfr_reader;

static pk_status nomem(jfr_reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, -1, "out of memory");
}

static pk_status dangling(jfr_reader *r, const char *what, uint64_t key)
{
    return pk_error_set(r->err, PK_ERR_INPUT, (int64_t)r->event_offset,
                        "JFR event refers to %s %llu, which no constant pool of its chunk holds",
                        what, (unsigned long long)key);
}

static pk_status malformed(jfr_reader *r, const char *what)
{
    return pk_error_set(r->err, PK_ERR_INPUT, (int64_t)r->event_offset,
                        "JFR event: %s is cut short or malformed", what);
}

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

/* Reads the pool entry key of type into values; false with an error when there is none. */
static pk_status read_entry(jfr_reader *r, uint32_t type, uint64_t key, const char *what,
                            uint64_t *values)
{
    size_t at;
    if (type == UINT32_MAX || !jfr_pool_entry(r->c, type, key, &at))
        return dangling(r, what, key);
    jfr_cursor cur = {r->c, at, r->c->size};
    if (!jfr_read_struct(&cur, type, values))
        return malformed(r, what);
    return PK_OK;
}

/* The text of a string field of a struct read into values (field index i of type). */
static bool field_text(jfr_reader *r, uint32_t type, int i, const uint64_t *values, char **text,
                       size_t *cap)
{
    if (i < 0)
        return false;
    const jfr_field *f = &r->c->types[type].fields[i];
    if (f->array || r->c->types[f->type].kind != JFR_KIND_STRING)
        return false;
    /* a constant-pool string field holds a key: decode it from where it was read */
    if (f->constant_pool) {
        size_t at;
        if (r->c->string_type == UINT32_MAX || !jfr_pool_entry(r->c, r->c->string_type, values[i], &at))
            return false;
        return jfr_string_at(r->c, at, false, text, cap);
    }
    return jfr_string_at(r->c, (size_t)values[i], false, text, cap);
}

/* The text of a Symbol key into *text, class names with dots as the JDK shows them. */
static pk_status symbol_text(jfr_reader *r, uint64_t key, char **text, size_t *cap)
{
    uint64_t *v = r->entry_values;
    pk_status s = read_entry(r, r->l.symbol, key, "symbol", v);
    if (s != PK_OK)
        return s;
    if (!field_text(r, r->l.symbol, r->l.symbol_string, v, text, cap))
        return malformed(r, "symbol");
    return PK_OK;
}

static pk_status class_text(jfr_reader *r, uint64_t key, char **text, size_t *cap)
{
    uint64_t *v = r->entry_values;
    pk_status s = read_entry(r, r->l.klass, key, "class", v);
    if (s != PK_OK)
        return s;
    if (r->l.class_name < 0)
        return malformed(r, "class");
    s = symbol_text(r, v[r->l.class_name], text, cap);
    if (s == PK_OK)
        for (char *t = *text; *t; t++)
            if (*t == '/')
                *t = '.';
    return s;
}

/* Frame types (jdk.types.FrameType descriptions, frame_type below): Java code ("Interpreted",
 * "JIT compiled", async-profiler's "C1 compiled"), inlined Java code, a Java native method
 * ("Native"), native code outside Java (async-profiler's "C++"), the kernel's ("Kernel"). */
enum { FRAME_JAVA, FRAME_INLINED, FRAME_NATIVE_METHOD, FRAME_NATIVE_CODE, FRAME_KERNEL };

/* async-profiler names a native symbol's library as its "class" ("libc.so.6", or "" when it
 * does not know): a shared object's name, where a Java class has none. */
static bool is_library(const char *name)
{
    size_t n = strlen(name);
    const char *so = strstr(name, ".so");
    return (so && (so[3] == '\0' || so[3] == '.')) ||
           (n > 6 && strcmp(name + n - 6, ".dylib") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".dll") == 0);
}

/* The function of Method key: "package.Class.method", Java code (script); a Java native method
 * is script-relevant; native code outside Java (a frame type of it, or a native frame whose
 * class is a library or nothing) is the symbol alone, its library the function's resource, a
 * kernel symbol marked "_[k]" as folded stacks mark them (analysis/categories.c). */
static pk_status method_function(jfr_reader *r, uint64_t key, uint32_t frame_kind, uint32_t *out)
{
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.method].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    uint64_t method_class, method_name;
    pk_status s = read_entry(r, r->l.method, key, "method", r->entry_values);
    if (s != PK_OK)
        return s;
    if (r->l.method_class < 0 || r->l.method_name < 0)
        return malformed(r, "method");
    method_class = r->entry_values[r->l.method_class];
    method_name = r->entry_values[r->l.method_name];
    if ((s = class_text(r, method_class, &r->name, &r->name_cap)) != PK_OK ||
        (s = symbol_text(r, method_name, &r->text, &r->text_cap)) != PK_OK)
        return s;
    size_t class_len = strlen(r->name), method_len = strlen(r->text);
    bool native_code = frame_kind >= FRAME_NATIVE_CODE ||
                       (frame_kind == FRAME_NATIVE_METHOD && (!class_len || is_library(r->name)));
    uint32_t flags = native_code                           ? 0
                     : frame_kind == FRAME_NATIVE_METHOD ? PK_FUNCTION_SCRIPT_RELEVANT
                                                           : PK_FUNCTION_SCRIPT;
    pk_function f = {PK_NONE, 0, 0, PK_NONE, 0, flags};
    if (native_code) {
        if (class_len) {
            pk_resource library = {pk_intern(r->p, r->name, class_len), 0, 0, 0, 0, 0};
            if (library.name == PK_NONE ||
                (f.resource = pk_intern_resource(r->p, &library)) == PK_NONE)
                return nomem(r);
        }
        if (frame_kind == FRAME_KERNEL) {
            if (!jfr_text_reserve(&r->text, &r->text_cap, method_len + 5))
                return nomem(r);
            memcpy(r->text + method_len, "_[k]", 5);
            method_len += 4;
        }
        f.name = pk_intern(r->p, r->text, method_len);
    } else {
        if (!jfr_text_reserve(&r->name, &r->name_cap, class_len + method_len + 2))
            return nomem(r);
        r->name[class_len] = '.';
        memcpy(r->name + class_len + 1, r->text, method_len + 1);
        f.name = pk_intern(r->p, r->name, class_len + 1 + method_len);
    }
    if (f.name == PK_NONE || (*out = pk_intern_function(r->p, &f)) == PK_NONE)
        return nomem(r);
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->c->types[r->l.method].resolved, key, *out, &slot, &inserted))
        return nomem(r);
    return PK_OK;
}

/* The frame kind (FRAME_JAVA, ...) of FrameType key, from its description. */
static pk_status frame_type(jfr_reader *r, uint64_t key, uint32_t *out)
{
    *out = 0;
    if (r->l.frame_type == UINT32_MAX)
        return PK_OK;
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.frame_type].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    pk_status s = read_entry(r, r->l.frame_type, key, "frame type", r->entry_values);
    if (s != PK_OK)
        return s;
    if (field_text(r, r->l.frame_type, r->l.frame_type_description, r->entry_values, &r->text,
                   &r->text_cap))
        *out = strcmp(r->text, "Inlined") == 0  ? FRAME_INLINED
               : strcmp(r->text, "Native") == 0 ? FRAME_NATIVE_METHOD
               : strcmp(r->text, "C++") == 0    ? FRAME_NATIVE_CODE
               : strcmp(r->text, "Kernel") == 0 ? FRAME_KERNEL
                                                : FRAME_JAVA;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->c->types[r->l.frame_type].resolved, key, *out, &slot, &inserted))
        return nomem(r);
    return PK_OK;
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
    pk_status s = read_entry(r, r->l.thread_state, key, "thread state", r->entry_values);
    if (s != PK_OK)
        return s;
    if (field_text(r, r->l.thread_state, r->l.thread_state_name, r->entry_values, &r->text,
                   &r->text_cap) &&
        r->text[0]) {
        pk_label label = {pk_intern_cstr(r->p, JFR_LABEL_THREAD_STATE),
                          pk_intern_cstr(r->p, r->text), 0, 0};
        if (label.key == PK_NONE || label.str == PK_NONE ||
            (*out = pk_intern_label_set(r->p, &label, 1)) == PK_NONE)
            return nomem(r);
    }
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->c->types[r->l.thread_state].resolved, key, *out, &slot, &inserted))
        return nomem(r);
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
        return dangling(r, "stack trace", key);
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.stack].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    uint64_t *v = r->entry_values;
    pk_status s = read_entry(r, r->l.stack, key, "stack trace", v);
    if (s != PK_OK)
        return s;
    jfr_cursor cur = {r->c, (size_t)v[r->l.stack_frames], r->c->size};
    uint64_t count;
    if (!jfr_read_u64(&cur, &count) || count > r->c->size - cur.pos)
        return malformed(r, "stack trace");
    if (count > r->frame_cap) {
        uint32_t *f = realloc(r->frames, (size_t)count * sizeof *f);
        if (!f)
            return nomem(r);
        r->frames = f;
        r->frame_cap = (size_t)count;
    }
    uint64_t *frame = r->values + r->c->max_fields; /* past the event's own values */
    for (uint64_t i = 0; i < count; i++) {
        if (!jfr_read_struct(&cur, r->l.frame, frame))
            return malformed(r, "stack frame");
        uint32_t type = FRAME_JAVA, function = PK_NONE;
        if (r->l.frame_type_ref >= 0 && (s = frame_type(r, frame[r->l.frame_type_ref], &type)) != PK_OK)
            return s;
        uint64_t line = r->l.frame_line >= 0 ? frame[r->l.frame_line] : 0;
        s = method_function(r, frame[r->l.frame_method], type, &function);
        if (s != PK_OK)
            return s;
        pk_frame f = {function, (int64_t)line > 0 && line < UINT32_MAX ? (uint32_t)line : 0, 0,
                      PK_NONE, type == FRAME_INLINED ? PK_FRAME_INLINED : 0};
        /* leaf first in the file, root first in the model */
        if ((r->frames[count - 1 - i] = pk_intern_frame(r->p, &f)) == PK_NONE)
            return nomem(r);
    }
    *out = pk_intern_stack_frames(r->p, PK_NONE, r->frames, (size_t)count);
    uint32_t *slot;
    bool inserted;
    if ((count && *out == PK_NONE) ||
        !pk_u64map_put(&r->c->types[r->l.stack].resolved, key, *out, &slot, &inserted))
        return nomem(r);
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
    pk_status s = read_entry(r, r->l.thread, key, "thread", v);
    if (s != PK_OK)
        return s;
    uint64_t java_id = r->l.thread_java_id >= 0 ? v[r->l.thread_java_id] : 0;
    int64_t os_id = r->l.thread_os_id >= 0 ? (int64_t)v[r->l.thread_os_id] : -1;
    uint64_t identity = java_id ? java_id : (1ull << 63) | (uint64_t)os_id;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->threads, identity, 0, &slot, &inserted))
        return nomem(r);
    if (inserted) {
        if (!field_text(r, r->l.thread, r->l.thread_java_name, v, &r->text, &r->text_cap) ||
            !r->text[0])
            if (!field_text(r, r->l.thread, r->l.thread_os_name, v, &r->text, &r->text_cap))
                if (!jfr_text_reserve(&r->text, &r->text_cap, 1) || !(r->text[0] = '\0', true))
                    return nomem(r);
        uint32_t name = pk_intern_cstr(r->p, r->text);
        uint32_t thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->p, name, -1, os_id);
        if (thread == PK_NONE)
            return nomem(r);
        slot = pk_u64map_find(&r->threads, identity);
        *slot = thread;
    }
    *out = *slot;
    if (!pk_u64map_put(&r->c->types[r->l.thread].resolved, key, *out, &slot, &inserted))
        return nomem(r);
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
    pk_status s = class_text(r, key, &r->text, &r->text_cap);
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
        return nomem(r);
    memmove(r->name, base, base_len);
    for (size_t i = 0; i < dims; i++)
        memcpy(r->name + base_len + 2 * i, "[]", 2);
    pk_function f = {pk_intern(r->p, r->name, base_len + dims * 2), 0, 0, PK_NONE, 0, 0};
    uint32_t fn = f.name == PK_NONE ? PK_NONE : pk_intern_function(r->p, &f);
    pk_frame fr = {fn, 0, 0, PK_NONE, 0};
    *out = fn == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
    if (*out == PK_NONE)
        return nomem(r);
    uint32_t *slot;
    bool inserted;
    /* class_text found the entry, so the type is described */
    if (!pk_u64map_put(&r->c->types[r->l.klass].resolved, key, *out, &slot, &inserted))
        return nomem(r);
    return PK_OK;
}

static pk_status read_event(jfr_reader *r, size_t k, jfr_cursor *cur)
{
    const jfr_layout *l = &r->l;
    uint64_t *v = r->values;
    if (!jfr_read_struct(cur, l->event_type[k], v))
        return malformed(r, jfr_kinds[k].type);
    if (l->thread_field[k] < 0 || l->start[k] < 0)
        return PK_OK;
    uint32_t thread = PK_NONE, stack = PK_NONE;
    pk_status s = thread_of(r, v[l->thread_field[k]], &thread);
    if (s == PK_OK && l->stack_field[k] >= 0)
        s = stack_of(r, v[l->stack_field[k]], &stack);
    else
        stack = PK_NONE;
    if (s != PK_OK)
        return s;
    if (jfr_kinds[k].class_leaf && l->object_class[k] >= 0 && v[l->object_class[k]]) {
        uint32_t frame = PK_NONE;
        s = class_frame(r, v[l->object_class[k]], &frame);
        if (s != PK_OK)
            return s;
        if ((stack = pk_intern_stack(r->p, stack, frame)) == PK_NONE)
            return nomem(r);
    }
    uint32_t value = value_of(r, k);
    if (value == PK_NONE)
        return nomem(r);
    if (jfr_kinds[k].second_is_count && r->objects_value == PK_NONE &&
        (r->objects_value = pk_add_value_type(r->p, PK_MEMORY_ALLOC_OBJECTS, PK_MEMORY_OBJECTS_UNIT)) == PK_NONE)
        return nomem(r);
    int64_t values[PK_MAX_VALUES] = {0};
    int64_t duration = 0;
    if (l->duration[k] >= 0)
        duration = ticks_span_ns(r->c, v[l->duration[k]]);
    switch (jfr_kinds[k].weight) {
    case WEIGHT_COUNT:
        values[value] = 1;
        break;
    case WEIGHT_FIELD:
        values[value] = l->weight[k] >= 0 && (int64_t)v[l->weight[k]] > 0 ? (int64_t)v[l->weight[k]] : 0;
        break;
    case WEIGHT_DURATION:
        values[value] = duration;
        break;
    }
    if (jfr_kinds[k].second_is_count)
        values[r->objects_value] = 1;
    uint32_t labels = PK_NONE;
    if (l->state[k] >= 0 && (s = thread_state_labels(r, v[l->state[k]], &labels)) != PK_OK)
        return s;
    int64_t time = ticks_to_ns(r->c, (int64_t)v[l->start[k]]);
    if (labels != PK_NONE) {
        /* the labelled row gets the values, the thread's timeline the sample */
        size_t row = pk_sample_row_labeled(r->p, thread, stack, labels);
        if (row == SIZE_MAX)
            return nomem(r);
        for (uint32_t i = 0; i < pk_value_type_count(r->p); i++)
            if (values[i])
                pk_sample_row_add(r->p, row, i, values[i]);
        if (stack != PK_NONE)
            (void)pk_timeline_append(r->p, thread, stack, time, duration, values);
        return PK_OK;
    }
    if (stack == PK_NONE) /* an event without a stack still counts, at the thread's root */
        return pk_add_sample(r->p, thread, PK_NONE, values) == PK_OK ? PK_OK : nomem(r);
    if (pk_add_timed_sample(r->p, thread, stack, time, duration, values) != PK_OK)
        return pk_add_sample(r->p, thread, stack, values) == PK_OK ? PK_OK : nomem(r);
    return PK_OK;
}

static pk_status read_events(jfr_reader *r)
{
    jfr_chunk *c = r->c;
    layout_chunk(&r->l, c);
    free(r->values);
    free(r->entry_values);
    /* an event's values, then a stack frame's */
    r->values = calloc((size_t)c->max_fields * 2 + 1, sizeof *r->values);
    r->entry_values = calloc((size_t)c->max_fields + 1, sizeof *r->entry_values);
    if (!r->values || !r->entry_values)
        return nomem(r);
    jfr_cursor cur = {c, JFR_HEADER_SIZE, c->size};
    while (cur.pos < c->size) {
        size_t at = cur.pos;
        uint64_t size, type;
        jfr_read_u64(&cur, &size); /* checked by jfr_chunk_load */
        jfr_cursor event = {c, cur.pos, at + (size_t)size};
        jfr_read_u64(&event, &type);
        cur.pos = at + (size_t)size;
        if (type == JFR_TYPE_METADATA || type == JFR_TYPE_CHECKPOINT)
            continue;
        const uint32_t *index = pk_u64map_find(&c->type_by_id, type);
        for (size_t k = 0; index && k < JFR_KIND_COUNT; k++)
            if (r->l.event_type[k] == *index) {
                r->event_offset = c->file_offset + at;
                pk_status s = read_event(r, k, &event);
                if (s != PK_OK)
                    return s;
            }
    }
    return PK_OK;
}

pk_status jfr_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    jfr_reader r = {.p = p, .err = err, .objects_value = PK_NONE};
    for (size_t k = 0; k <= JFR_KIND_COUNT; k++)
        r.value_index[k] = PK_NONE;
    pk_u64map_init(&r.threads);
    uint8_t *buffer = NULL;
    size_t buffer_cap = 0;
    uint64_t offset = 0, chunks = 0;
    pk_status status = PK_OK;
    while (status == PK_OK) {
        uint8_t header[JFR_HEADER_SIZE];
        size_t got = pk_in_read(in, header, sizeof header);
        if (got == 0 && chunks > 0 && !pk_in_error(in))
            break;
        jfr_chunk c = {0};
        uint64_t size = 0;
        bool finished = false;
        if (got < sizeof header) {
            if (pk_in_error(in)) {
                status = pk_in_fail(in, err);
                break;
            }
            if (chunks == 0) {
                status = pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                      "JFR recording cut short in its first chunk header");
                break;
            }
            pk_warn(p, "JFR recording cut at offset %llu, in a chunk header: read the %llu whole "
                       "chunks before it", (unsigned long long)(offset + got),
                    (unsigned long long)chunks);
            break;
        }
        status = jfr_chunk_header(&c, header, offset, &size, &finished, err);
        if (status != PK_OK)
            break;
        /* the chunk's bytes come in as they arrive, never sized by the header alone */
        size_t have = JFR_HEADER_SIZE;
        if (buffer_cap < JFR_HEADER_SIZE) {
            buffer = malloc(1 << 16);
            if (!buffer) {
                status = nomem(&r);
                break;
            }
            buffer_cap = 1 << 16;
        }
        memcpy(buffer, header, JFR_HEADER_SIZE);
        while (have < size) {
            if (have == buffer_cap) {
                size_t n = buffer_cap * 2;
                uint8_t *b = realloc(buffer, n);
                if (!b) {
                    status = nomem(&r);
                    break;
                }
                buffer = b;
                buffer_cap = n;
            }
            size_t want = buffer_cap - have;
            if (want > size - have)
                want = (size_t)(size - have);
            size_t n = pk_in_read(in, buffer + have, want);
            if (n == 0)
                break;
            have += n;
        }
        if (status != PK_OK)
            break;
        if (have < size || !finished || c.metadata_offset == 0) {
            if (pk_in_error(in)) {
                status = pk_in_fail(in, err);
                break;
            }
            if (chunks == 0) {
                status = pk_damage(err, offset + have,
                                   "JFR recording cut at offset %llu in its first chunk (which "
                                   "claims %llu bytes from offset %llu): nothing whole to read",
                                   (unsigned long long)(offset + have), (unsigned long long)size,
                                   (unsigned long long)offset);
                break;
            }
            pk_warn(p, "JFR recording cut at offset %llu, in the chunk that starts at offset %llu: "
                       "read the %llu whole chunks before it",
                    (unsigned long long)(offset + have), (unsigned long long)offset,
                    (unsigned long long)chunks);
            break;
        }
        c.data = buffer;
        c.size = (size_t)size;
        status = jfr_chunk_load(&c, err);
        if (status == PK_OK) {
            if (chunks == 0 || c.start_nanos < pk_metadata_of(p)->start_time)
                pk_metadata_of(p)->start_time = c.start_nanos;
            r.c = &c;
            status = read_events(&r);
        }
        jfr_chunk_release(&c);
        offset += size;
        chunks++;
    }
    free(buffer);
    free(r.values);
    free(r.entry_values);
    free(r.frames);
    free(r.text);
    free(r.name);
    pk_u64map_free(&r.threads);
    return status;
}
