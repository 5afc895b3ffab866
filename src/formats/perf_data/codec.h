/* SPDX-License-Identifier: MIT */
/* The perf.data layout (Linux `perf record`), decoded for the reader (read.c) and the dump
 * (dump.c): the file header and its sections, the event attributes, the records of the data
 * section (inside PERF_RECORD_COMPRESSED too) and the fields of a sample.
 *
 * The layout is the kernel's: tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h. A file is in the byte order of the machine that wrote it,
 * told by how its magic "PERFILE2" reads; every field is read through pd_u16/32/64.
 */
#ifndef PK_FORMATS_PERF_DATA_CODEC_H
#define PK_FORMATS_PERF_DATA_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "profkit/format.h"

/* ---- constants of the format ------------------------------------------------------------------ */

#define PD_MAGIC "PERFILE2"
#define PD_FILE_HEADER_SIZE 104 /* magic, size, attr_size, 3 sections, 256 feature bits */
#define PD_PIPE_HEADER_SIZE 16  /* magic, size */
#define PD_RECORD_HEADER_SIZE 8 /* type u32, misc u16, size u16 */
#define PD_ATTR_SIZE_VER0 64    /* the smallest perf_event_attr there is */
#define PD_FEATURE_BITS 256

enum pd_record_type {
    PD_RECORD_MMAP = 1,
    PD_RECORD_LOST = 2,
    PD_RECORD_COMM = 3,
    PD_RECORD_EXIT = 4,
    PD_RECORD_THROTTLE = 5,
    PD_RECORD_UNTHROTTLE = 6,
    PD_RECORD_FORK = 7,
    PD_RECORD_READ = 8,
    PD_RECORD_SAMPLE = 9,
    PD_RECORD_MMAP2 = 10,
    PD_RECORD_LOST_SAMPLES = 13,
    /* Records perf itself writes (above any kernel type). */
    PD_RECORD_HEADER_ATTR = 64,
    PD_RECORD_HEADER_EVENT_TYPE = 65,
    PD_RECORD_HEADER_TRACING_DATA = 66,
    PD_RECORD_HEADER_BUILD_ID = 67,
    PD_RECORD_FINISHED_ROUND = 68,
    PD_RECORD_AUXTRACE = 71,
    PD_RECORD_HEADER_FEATURE = 80,
    PD_RECORD_COMPRESSED = 81,
    PD_RECORD_FINISHED_INIT = 82,
};

enum pd_sample_bits {
    PD_SAMPLE_IP = 1u << 0,
    PD_SAMPLE_TID = 1u << 1,
    PD_SAMPLE_TIME = 1u << 2,
    PD_SAMPLE_ADDR = 1u << 3,
    PD_SAMPLE_READ = 1u << 4,
    PD_SAMPLE_CALLCHAIN = 1u << 5,
    PD_SAMPLE_ID = 1u << 6,
    PD_SAMPLE_CPU = 1u << 7,
    PD_SAMPLE_PERIOD = 1u << 8,
    PD_SAMPLE_STREAM_ID = 1u << 9,
    PD_SAMPLE_RAW = 1u << 10,
    PD_SAMPLE_BRANCH_STACK = 1u << 11,
    PD_SAMPLE_REGS_USER = 1u << 12,
    PD_SAMPLE_STACK_USER = 1u << 13,
    PD_SAMPLE_WEIGHT = 1u << 14,
    PD_SAMPLE_DATA_SRC = 1u << 15,
    PD_SAMPLE_IDENTIFIER = 1u << 16,
    PD_SAMPLE_TRANSACTION = 1u << 17,
    PD_SAMPLE_REGS_INTR = 1u << 18,
    PD_SAMPLE_PHYS_ADDR = 1u << 19,
    PD_SAMPLE_AUX = 1u << 20,
    PD_SAMPLE_CGROUP = 1u << 21,
    PD_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
    PD_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
    PD_SAMPLE_WEIGHT_STRUCT = 1u << 24,
    PD_SAMPLE_KNOWN = (1u << 25) - 1,
};

enum pd_read_format_bits {
    PD_FORMAT_TOTAL_TIME_ENABLED = 1u << 0,
    PD_FORMAT_TOTAL_TIME_RUNNING = 1u << 1,
    PD_FORMAT_ID = 1u << 2,
    PD_FORMAT_GROUP = 1u << 3,
    PD_FORMAT_LOST = 1u << 4,
};

/* Callchain entries at or above this are context markers (PERF_CONTEXT_*), not addresses. */
#define PD_CONTEXT_MAX ((uint64_t)-4095)
#define PD_CONTEXT_HV ((uint64_t)-32)
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)
#define PD_CONTEXT_GUEST ((uint64_t)-2048)
#define PD_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PD_CONTEXT_GUEST_USER ((uint64_t)-2560)

#define PD_MISC_CPUMODE_MASK 7u
#define PD_MISC_KERNEL 1u
#define PD_MISC_USER 2u
#define PD_MISC_COMM_EXEC (1u << 13)
#define PD_MISC_MMAP_BUILD_ID (1u << 14)
#define PD_BRANCH_HW_INDEX (1u << 17) /* in branch_sample_type */
#define PD_BRANCH_CALL_STACK (1u << 11) /* in branch_sample_type: LBR as a call stack */

/* Feature sections (HEADER_* bits of the file header). */
enum pd_feature {
    PD_FEAT_TRACING_DATA = 1,
    PD_FEAT_BUILD_ID = 2,
    PD_FEAT_HOSTNAME = 3,
    PD_FEAT_OSRELEASE = 4,
    PD_FEAT_VERSION = 5,
    PD_FEAT_ARCH = 6,
    PD_FEAT_NRCPUS = 7,
    PD_FEAT_CPUDESC = 8,
    PD_FEAT_CPUID = 9,
    PD_FEAT_TOTAL_MEM = 10,
    PD_FEAT_CMDLINE = 11,
    PD_FEAT_EVENT_DESC = 12,
    PD_FEAT_SAMPLE_TIME = 21,
    PD_FEAT_COMPRESSED = 27,
};

/* ---- byte order ---------------------------------------------------------------------------- */

static inline uint16_t pd_u16(const uint8_t *p, bool big)
{
    return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t pd_u32(const uint8_t *p, bool big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t pd_u64(const uint8_t *p, bool big)
{
    uint64_t hi = pd_u32(p + (big ? 0 : 4), big), lo = pd_u32(p + (big ? 4 : 0), big);
    return hi << 32 | lo;
}

/* ---- the header and the attributes ---------------------------------------------------------- */

typedef struct pd_section {
    uint64_t offset, size;
} pd_section;

typedef struct pd_header {
    bool big;  /* big-endian fields */
    bool pipe; /* `perf record -o -`: records only, attributes and features among them */
    uint64_t header_size, attr_size;
    pd_section attrs, data, event_types;
    uint8_t features[PD_FEATURE_BITS / 8];
} pd_header;

/* An event: the fields of its perf_event_attr the reading needs, its sample ids, its name. */
typedef struct pd_attr {
    uint32_t type, size;
    uint64_t config;
    uint64_t period;        /* sample_period, or sample_freq when freq */
    uint64_t sample_type, read_format, flags;
    uint64_t branch_sample_type, regs_user, regs_intr;
    uint32_t stack_user;
    bool freq, sample_id_all;
    uint64_t *ids;
    size_t id_count;
    char *name; /* from the event descriptions, NULL until known */
} pd_attr;

/* What the 104 (file) or 16 (pipe) bytes of a header say; an error (PK_ERR_INPUT at the field's
 * offset) when they are no perf.data header. size is how many bytes there are. */
pk_status pd_decode_header(const uint8_t *data, size_t size, pd_header *h, pk_error *err);
bool pd_has_feature(const pd_header *h, unsigned bit);
/* Decodes the perf_event_attr of attr_size bytes at data (attr_size >= PD_ATTR_SIZE_VER0); the
 * fields of a newer, larger attribute past what is known are left. */
void pd_decode_attr(const uint8_t *data, size_t attr_size, bool big, pd_attr *a);
void pd_attr_free(pd_attr *a);
/* The event's name as perf names it without modifiers: `cpu-clock`, `cycles`, or for an event
 * of a type without names `TYPE:0xCONFIG` (written into buf). */
const char *pd_attr_default_name(const pd_attr *a, char *buf, size_t size);
/* Why samples of this attribute cannot be parsed (an unknown sample_type bit), NULL when they
 * can. */
const char *pd_attr_unsupported(const pd_attr *a);

/* ---- records ------------------------------------------------------------------------------- */

typedef struct pd_record {
    uint32_t type;
    uint16_t misc;
    uint16_t size;         /* whole record, header included */
    const uint8_t *body;   /* size - 8 bytes after the header */
    size_t body_size;
    uint64_t offset;       /* of the record; inside a compressed record, of that record */
    bool compressed;       /* came out of a PERF_RECORD_COMPRESSED */
} pd_record;

typedef enum pd_step {
    PD_STEP_RECORD,
    PD_STEP_END,    /* the data section (or the input) ended between records */
    PD_STEP_CUT,    /* the input ended inside a record: what came before is whole */
    PD_STEP_DAMAGE, /* err says what and where */
} pd_step;

/* The records of the data section, in order, with those inside compressed records taken out in
 * their place (the compressed record itself is not given). */
typedef struct pd_records {
    pk_input *in;
    bool big;
    uint64_t end;     /* offset where the data section ends; UINT64_MAX: at the input's end */
    size_t pending;   /* bytes of the last record given, to consume before the next */
    /* Decompression of PERF_RECORD_COMPRESSED (zstd), one stream for the whole file. */
    void *zstd;
    bool in_compressed;           /* a compressed record's payload is being decompressed */
    const uint8_t *packed;        /* its payload (in the input's buffer) */
    size_t packed_size, packed_pos, packed_record_size;
    uint64_t packed_offset;
    uint8_t *plain;               /* decompressed bytes not yet given out */
    size_t plain_len, plain_pos, plain_cap;
    uint64_t compressed_records;
} pd_records;

void pd_records_init(pd_records *r, pk_input *in, bool big, uint64_t end);
void pd_records_free(pd_records *r);
/* The next record. rec->offset says where the cut or the damage is. */
pd_step pd_next_record(pd_records *r, pd_record *rec, pk_error *err);

/* ---- samples ------------------------------------------------------------------------------- */

/* The fields of a PERF_RECORD_SAMPLE (what its attribute's sample_type says it has). */
typedef struct pd_sample {
    uint64_t identifier, ip, time, addr, id, stream_id, period;
    uint32_t pid, tid, cpu;
    uint64_t read_values;           /* values in the read group */
    const uint8_t *callchain;       /* callchain_nr 64-bit entries, leaf first */
    uint64_t callchain_nr;
    uint32_t raw_size;
    uint64_t branch_nr;
    const uint8_t *branches;       /* branch_nr entries of from, to and flags (64 bits each),
                                    * the most recent first */
    uint64_t regs_user_abi, regs_intr_abi;
    const uint8_t *regs_user;      /* the attribute's regs_user registers, in bit order, when
                                    * regs_user_abi is not 0 */
    const uint8_t *stack_user;     /* stack_user_size bytes copied from the user stack pointer
                                    * up, of which stack_user_dyn_size are the stack's */
    uint64_t stack_user_size, stack_user_dyn_size;
    uint64_t weight, data_src, transaction, phys_addr, cgroup;
    uint64_t data_page_size, code_page_size, aux_size;
} pd_sample;

/* Parses a sample's body as attribute a says; NULL when it is whole, else why not (a count or
 * a size that runs past the record). */
const char *pd_parse_sample(const pd_attr *a, const uint8_t *body, size_t n, bool big,
                            pd_sample *s);
/* Where and when of a non-sample record, from the fields sample_id_all adds at its end (those
 * present only); false when the record is too short for them. */
bool pd_parse_sample_id(const pd_attr *a, const uint8_t *body, size_t n, bool big, pd_sample *s);
/* The byte position in a sample's body of the id that tells the event, for files of several
 * events; SIZE_MAX when the samples carry none. For other records, from the end. */
size_t pd_sample_id_position(const pd_attr *a);
size_t pd_other_id_position_from_end(const pd_attr *a);

/* A perf string (u32 length, then that many bytes padded with NULs) at data[*pos] of n: the
 * text up to its first NUL in *text, *len. False when it runs past n. */
bool pd_string(const uint8_t *data, size_t n, size_t *pos, bool big, const char **text,
               size_t *len);

/* The name of a record type, "unknown" for others. */
const char *pd_record_name(uint32_t type);
/* The name of a feature bit, NULL for unknown ones. */
const char *pd_feature_name(unsigned bit);

#endif
