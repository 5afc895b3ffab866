/* SPDX-License-Identifier: MIT */
/* The JFR reader's parts (internal to src/formats/jfr/): the reader and the loader share one
 * decoder of a chunk's pool entries (pools.c), the loader knows stack traces across chunks
 * (known.c), the reader turns events into the model (read.c). A jfr_reader without a profile
 * decodes and never interns: the loader's, which runs on a second processor when there is one,
 * while the reader's thread alone touches the profile. */
#ifndef PK_FORMATS_JFR_READER_H
#define PK_FORMATS_JFR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "formats/jfr/jfr.h"
#include "profkit/profile.h"

/* The events read (read.c's table of kinds). */
#define JFR_KIND_COUNT 7

/* Frame kinds, from jdk.types.FrameType descriptions (jfr_frame_type): Java code
 * ("Interpreted", "JIT compiled", async-profiler's "C1 compiled"), inlined Java code, a Java
 * native method ("Native"), native code outside Java (async-profiler's "C++"), the kernel's
 * ("Kernel"). */
enum {
    JFR_FRAME_JAVA,
    JFR_FRAME_INLINED,
    JFR_FRAME_NATIVE_METHOD,
    JFR_FRAME_NATIVE_CODE,
    JFR_FRAME_KERNEL,
    JFR_FRAME_KINDS
};

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

/* Stack traces are decoded on the loader's side (a second processor when there is one) and
 * known across chunks by their bytes. A stack trace's frames are its method keys, lines,
 * bytecode indexes and frame type keys; read under the same StackFrame layout, the same bytes
 * are the same stack once the methods and frame types those keys name in this chunk are the
 * ones they named when the stack was first decoded. The JVM keeps a method's key for its life,
 * so the stacks of a recording's later chunks are found by their bytes without being decoded
 * again, and the reader interns each once. A key named differently, another layout, or more
 * frames known than JFR_KNOWN_FRAMES: everything known is forgotten (a new generation). */

/* A method known to the loader: its key, its name (in jfr_known.names) and the last chunk whose
 * pool holds it under that name. */
typedef struct jfr_known_method {
    uint64_t key, chunk;
    size_t name, len, class_len;
} jfr_known_method;

/* A stack trace known by its frames' bytes (in jfr_known.bytes; none when it is not to be
 * found by them) with its frames' methods and frame type keys (in jfr_known.frames). */
typedef struct jfr_known_stack {
    size_t bytes, len, first;
    uint32_t count;
} jfr_known_stack;

typedef struct jfr_known_frame {
    uint32_t method;  /* index into the known methods */
    uint8_t type_key; /* its FrameType key (< JFR_SMALL_KEYS), JFR_NO_TYPE_KEY for none */
} jfr_known_frame;

#define JFR_SMALL_KEYS 64
#define JFR_NO_TYPE_KEY 0xff

typedef struct jfr_known {
    uint32_t generation;
    uint64_t chunk;          /* serial of the chunk being decoded, from 1 */
    bool by_bytes;           /* this chunk's stacks are found by their bytes */
    int layout[4];           /* the StackFrame layout the known stacks' bytes were read under */
    pk_u64map method_by_key; /* Method key -> index into methods */
    jfr_known_method *methods;
    size_t method_count, method_cap;
    char *names;
    size_t names_len, names_cap;
    uint8_t frame_type[JFR_SMALL_KEYS];         /* FrameType key -> its type + 1 */
    uint64_t frame_type_chunk[JFR_SMALL_KEYS];  /* the last chunk whose pool holds it */
    pk_index stack_by_bytes; /* entries: indexes into stacks */
    jfr_known_stack *stacks;
    size_t stack_count, stack_cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
    jfr_known_frame *frames;
    size_t frame_count, frame_cap;
} jfr_known;

/* What the loader hands the reader with a chunk: each stack trace key its events use, as a
 * known stack (with its frames when it became known in this chunk, which the reader has not
 * interned yet) or to be resolved by its key; the names of the methods of the chunk's pool. */
typedef struct jfr_ahead_stack {
    uint64_t key;
    uint32_t known;  /* index among the known stacks, UINT32_MAX: the reader resolves the key */
    bool fresh;      /* known from this chunk on: its frames are in jfr_ahead.frames */
    uint32_t first, count;
} jfr_ahead_stack;

typedef struct jfr_ahead_frame {
    uint32_t method, line, type; /* type: its frame kind (JFR_FRAME_JAVA, ...) */
} jfr_ahead_frame;

typedef struct jfr_ahead_method {
    uint32_t known;              /* index among the known methods */
    size_t name, len, class_len; /* in jfr_ahead.names: "Class.method", the class's length */
} jfr_ahead_method;

typedef struct jfr_ahead {
    uint32_t generation;
    size_t known_methods, known_stacks; /* how many are known once this chunk is decoded */
    pk_u64map stack_slots;              /* StackTrace key -> index into stacks */
    jfr_ahead_stack *stacks;
    jfr_ahead_frame *frames;
    jfr_ahead_method *methods;
    char *names;
    size_t stack_count, stack_cap, frame_count, frame_cap, method_count, method_cap;
    size_t names_len, names_cap;
} jfr_ahead;

typedef struct jfr_reader {
    pk_profile *p; /* NULL on the loader's side, which decodes and never interns */
    pk_error *err;
    jfr_chunk *c;
    jfr_layout l;
    uint32_t value_index[JFR_KIND_COUNT + 1]; /* + objects */
    uint32_t objects_value;
    pk_u64map threads; /* Java thread id -> model thread, across chunks */
    pk_u64map leaf_stacks; /* (model stack, class frame) -> the stack with that leaf */
    char *text, *name;
    size_t text_cap, name_cap;
    uint64_t *values, *entry_values;
    uint32_t *frames;
    size_t frame_cap;
    uint64_t event_offset; /* of the event being read, for errors */
    uint64_t stacks_elsewhere; /* events whose stack trace no pool of their chunk holds */
    /* the chunk's small type ids' event kinds and small FrameType keys' types (+1; 0: not yet),
     * which every event and frame asks for */
    uint8_t kind_of_type[1024], frame_type_of_key[64];
    /* the chunk's stacks as the loader hands them; what each known stack and each known method
     * (in each frame kind) resolved to, +1 (0: not yet), in the generation of known stacks the
     * reader is in; where each known method's name is in the chunk's ahead */
    const jfr_ahead *ahead;
    uint32_t generation;
    uint32_t *known_stack, *known_function, *method_name;
    size_t known_stack_cap, known_function_cap, method_name_cap, known_stack_len,
        known_function_len;
} jfr_reader;


/* ---- pools.c: a chunk's pool entries decoded (errors name r->event_offset) -------------- */

pk_status jfr_nomem(jfr_reader *r);
/* A reference to a key no pool of the chunk holds. */
pk_status jfr_dangling(jfr_reader *r, const char *what, uint64_t key);
pk_status jfr_malformed(jfr_reader *r, const char *what);
/* Reads the pool entry key of type into values; an error when there is none. */
pk_status jfr_read_entry(jfr_reader *r, uint32_t type, uint64_t key, const char *what,
                         uint64_t *values);
/* Reads the fields of the pool entry key of type that come before field `before` into values,
 * and where that field starts into *at (the frames of a stack trace, read where they are). */
pk_status jfr_read_entry_before(jfr_reader *r, uint32_t type, uint64_t key, const char *what,
                                int before, uint64_t *values, size_t *at);
/* The text of string field i of a struct of type read into values; false when it is not one. */
bool jfr_field_text(jfr_reader *r, uint32_t type, int i, const uint64_t *values, char **text,
                    size_t *cap);
/* The name of Class key into *text, with dots as the JDK shows class names. */
pk_status jfr_class_text(jfr_reader *r, uint64_t key, char **text, size_t *cap);
/* The name of Method key into r->name: "package.Class.method" (its length in *len, the class's
 * in *class_len). */
pk_status jfr_method_text(jfr_reader *r, uint64_t key, size_t *len, size_t *class_len);
/* The frame kind (JFR_FRAME_JAVA, ...) of FrameType key. */
pk_status jfr_frame_type(jfr_reader *r, uint64_t key, uint32_t *out);
/* A frame's line as the model keeps it: 0 for none or one out of range. */
uint32_t jfr_frame_line(uint64_t line);

/* ---- known.c: stack traces known across chunks (the loader's) ------------------------------ */

void jfr_known_init(jfr_known *k);
void jfr_known_free(jfr_known *k);
/* Starts decoding a chunk's stacks (d holds the chunk and its layout) into a. */
void jfr_known_begin_chunk(jfr_reader *d, jfr_known *k, jfr_ahead *a);
/* The index of StackTrace key among the chunk's stacks in a, resolved on first use; UINT32_MAX
 * when there is no room, so that the reader resolves it by its key. */
uint32_t jfr_ahead_stack_slot(jfr_reader *d, jfr_known *k, jfr_ahead *a, uint64_t key);
void jfr_ahead_clear(jfr_ahead *a);
void jfr_ahead_free(jfr_ahead *a);

#endif
