/* SPDX-License-Identifier: MIT */
/* Decoding of the perf.data layout (codec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "core/damage.h"
#include "formats/perf_data/codec.h"

/* ---- the header ----------------------------------------------------------------------------- */

pk_status pd_decode_header(const uint8_t *data, size_t size, pd_header *h, pk_error *err)
{
    memset(h, 0, sizeof *h);
    if (size < 8 || memcmp(data, PD_MAGIC, 8) != 0) {
        /* Written on a machine of the other byte order, the 64-bit magic reads reversed. */
        static const char reversed[8] = {'2', 'E', 'L', 'I', 'F', 'R', 'E', 'P'};
        if (size < 8 || memcmp(data, reversed, 8) != 0)
            return pk_error_set(err, PK_ERR_INPUT, 0, "not a perf.data file: no PERFILE2 magic");
        h->big = true;
    }
    /* The magic is a 64-bit number written in the writer's order: "PERFILE2" read as a
     * little-endian word. When the bytes are "PERFILE2", the writer was little-endian. */
    if (size < 16)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)size,
                            "the perf.data header is cut short (%zu of 16 bytes)", size);
    h->header_size = pd_u64(data + 8, h->big);
    if (h->header_size == PD_PIPE_HEADER_SIZE) {
        h->pipe = true;
        return PK_OK;
    }
    if (h->header_size < PD_FILE_HEADER_SIZE)
        return pk_error_set(err, PK_ERR_INPUT, 8,
                            "header size %llu: neither a file header (%d bytes or more) nor a "
                            "pipe header (%d)", (unsigned long long)h->header_size,
                            PD_FILE_HEADER_SIZE, PD_PIPE_HEADER_SIZE);
    if (size < PD_FILE_HEADER_SIZE)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)size,
                            "the perf.data header is cut short (%zu of %d bytes)", size,
                            PD_FILE_HEADER_SIZE);
    h->attr_size = pd_u64(data + 16, h->big);
    pd_section *sections[3] = {&h->attrs, &h->data, &h->event_types};
    for (size_t i = 0; i < 3; i++) {
        sections[i]->offset = pd_u64(data + 24 + 16 * i, h->big);
        sections[i]->size = pd_u64(data + 32 + 16 * i, h->big);
    }
    /* The feature bits are an array of 64-bit words (bit n of the set is bit n % 64 of word
     * n / 64 in the writer's order). */
    for (size_t w = 0; w < PD_FEATURE_BITS / 64; w++) {
        uint64_t word = pd_u64(data + 72 + 8 * w, h->big);
        for (unsigned b = 0; b < 64; b++)
            if (word >> b & 1)
                h->features[(w * 64 + b) / 8] |= (uint8_t)(1u << (b % 8));
    }
    if (h->attr_size < PD_ATTR_SIZE_VER0 + 16 || h->attr_size > 4096)
        return pk_error_set(err, PK_ERR_INPUT, 16,
                            "attribute entry size %llu: an attribute (64 bytes or more) and its "
                            "ids section take 80 to 4096 bytes",
                            (unsigned long long)h->attr_size);
    return PK_OK;
}

bool pd_has_feature(const pd_header *h, unsigned bit)
{
    return bit < PD_FEATURE_BITS && (h->features[bit / 8] >> (bit % 8) & 1);
}

/* ---- attributes ----------------------------------------------------------------------------- */

void pd_decode_attr(const uint8_t *d, size_t attr_size, bool big, pd_attr *a)
{
    memset(a, 0, sizeof *a);
    a->type = pd_u32(d, big);
    a->size = pd_u32(d + 4, big);
    a->config = pd_u64(d + 8, big);
    a->period = pd_u64(d + 16, big);
    a->sample_type = pd_u64(d + 24, big);
    a->read_format = pd_u64(d + 32, big);
    a->flags = pd_u64(d + 40, big);
    /* The flags are bit fields: a little-endian ABI allocates them from the least significant
     * bit, a big-endian one from the most significant, so a big-endian writer's field k is bit
     * 63 - k (perf reverses the bits of each byte when it reads the other order). */
    if (big) {
        uint64_t reversed = 0;
        for (unsigned bit = 0; bit < 64; bit++)
            reversed |= (a->flags >> bit & 1) << (63 - bit);
        a->flags = reversed;
    }
    a->freq = a->flags >> 10 & 1;
    a->sample_id_all = a->flags >> 18 & 1;
    if (attr_size >= 80)
        a->branch_sample_type = pd_u64(d + 72, big);
    if (attr_size >= 96) {
        a->regs_user = pd_u64(d + 80, big);
        a->stack_user = pd_u32(d + 88, big);
    }
    if (attr_size >= 104)
        a->regs_intr = pd_u64(d + 96, big);
}

void pd_attr_free(pd_attr *a)
{
    free(a->ids);
    free(a->name);
    a->ids = NULL;
    a->name = NULL;
}

const char *pd_attr_default_name(const pd_attr *a, char *buf, size_t size)
{
    static const char *const hardware[] = {
        "cycles", "instructions", "cache-references", "cache-misses", "branch-instructions",
        "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
        "ref-cycles"};
    static const char *const software[] = {
        "cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
        "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
        "bpf-output", "cgroup-switches"};
    /* The low 32 bits of a hardware event's config are the event; the high ones a PMU. */
    uint64_t event = a->config & 0xffffffffu;
    if (a->type == 0 && event < sizeof hardware / sizeof *hardware)
        return hardware[event];
    if (a->type == 1 && a->config < sizeof software / sizeof *software)
        return software[a->config];
    static const char *const types[] = {"hardware", "software", "tracepoint", "hw-cache", "raw",
                                        "breakpoint"};
    if (a->type < sizeof types / sizeof *types)
        snprintf(buf, size, "%s:0x%llx", types[a->type], (unsigned long long)a->config);
    else
        snprintf(buf, size, "pmu%u:0x%llx", a->type, (unsigned long long)a->config);
    return buf;
}

const char *pd_attr_unsupported(const pd_attr *a)
{
    if (a->sample_type & ~(uint64_t)PD_SAMPLE_KNOWN)
        return "its sample_type has bits this reader does not know the layout of";
    return NULL;
}

/* ---- records -------------------------------------------------------------------------------- */

/* Decompressed bytes kept at most: a whole record (64 KiB) always fits after what is left. */
#define PD_PLAIN_CAP ((size_t)1 << 18)

void pd_records_init(pd_records *r, pk_input *in, bool big, uint64_t end)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->big = big;
    r->end = end;
}

void pd_records_free(pd_records *r)
{
    if (r->zstd)
        ZSTD_freeDStream(r->zstd);
    free(r->plain);
    r->zstd = NULL;
    r->plain = NULL;
}

/* The next whole record in the decompressed bytes, decompressing more as needed. Returns
 * PD_STEP_RECORD, PD_STEP_END when the compressed record is used up (a part of a record may
 * stay for the next one), or damage. */
static pd_step next_plain(pd_records *r, pd_record *rec, pk_error *err)
{
    for (;;) {
        size_t have = r->plain_len - r->plain_pos;
        if (have >= PD_RECORD_HEADER_SIZE) {
            const uint8_t *h = r->plain + r->plain_pos;
            uint16_t size = pd_u16(h + 6, r->big);
            if (size < PD_RECORD_HEADER_SIZE) {
                pk_damage(err, r->packed_offset,
                          "a record of %u bytes (less than its 8-byte header) inside the "
                          "compressed record at byte %llu", size,
                          (unsigned long long)r->packed_offset);
                return PD_STEP_DAMAGE;
            }
            if (have >= size) {
                rec->type = pd_u32(h, r->big);
                rec->misc = pd_u16(h + 4, r->big);
                rec->size = size;
                rec->body = h + PD_RECORD_HEADER_SIZE;
                rec->body_size = size - PD_RECORD_HEADER_SIZE;
                rec->offset = r->packed_offset;
                rec->compressed = true;
                r->plain_pos += size;
                return PD_STEP_RECORD;
            }
        }
        if (r->packed_pos >= r->packed_size)
            return PD_STEP_END;
        /* Keep the part of a record left, then decompress after it. */
        memmove(r->plain, r->plain + r->plain_pos, have);
        r->plain_len = have;
        r->plain_pos = 0;
        ZSTD_outBuffer out = {r->plain, r->plain_cap, r->plain_len};
        ZSTD_inBuffer in = {r->packed, r->packed_size, r->packed_pos};
        size_t ret = ZSTD_decompressStream(r->zstd, &out, &in);
        if (ZSTD_isError(ret)) {
            pk_damage(err, r->packed_offset, "the compressed record at byte %llu does not "
                      "decompress (zstd: %s)", (unsigned long long)r->packed_offset,
                      ZSTD_getErrorName(ret));
            return PD_STEP_DAMAGE;
        }
        if (out.pos == r->plain_len && in.pos == r->packed_pos) {
            /* No progress: the frame wants more input than the record holds. */
            r->packed_pos = r->packed_size;
            continue;
        }
        r->plain_len = out.pos;
        r->packed_pos = in.pos;
    }
}

/* Starts decompressing the payload of a compressed record at the input's position. */
static bool start_compressed(pd_records *r, const uint8_t *record, uint16_t size,
                             uint64_t offset, pk_error *err)
{
    if (!r->zstd) {
        r->zstd = ZSTD_createDStream();
        r->plain = malloc(PD_PLAIN_CAP);
        r->plain_cap = PD_PLAIN_CAP;
        if (!r->zstd || !r->plain || ZSTD_isError(ZSTD_initDStream(r->zstd))) {
            pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            return false;
        }
    }
    r->in_compressed = true;
    r->packed = record + PD_RECORD_HEADER_SIZE;
    r->packed_size = (size_t)size - PD_RECORD_HEADER_SIZE;
    r->packed_pos = 0;
    r->packed_record_size = size;
    r->packed_offset = offset;
    r->compressed_records++;
    return true;
}

pd_step pd_next_record(pd_records *r, pd_record *rec, pk_error *err)
{
    memset(rec, 0, sizeof *rec);
    for (;;) {
        if (r->in_compressed) {
            pd_step step = next_plain(r, rec, err);
            if (step != PD_STEP_END)
                return step;
            r->in_compressed = false;
            pk_in_skip_buffered(r->in, r->packed_record_size);
        }
        if (r->pending) {
            pk_in_skip_buffered(r->in, r->pending);
            r->pending = 0;
        }
        uint64_t offset = pk_in_offset(r->in);
        rec->offset = offset;
        bool leftover = r->plain_len > r->plain_pos;
        if (offset >= r->end) {
            if (leftover)
                goto cut_in_compressed;
            return PD_STEP_END;
        }
        const uint8_t *h;
        size_t got = pk_in_peek(r->in, PD_RECORD_HEADER_SIZE, &h);
        if (got == 0 && !leftover)
            return PD_STEP_END;
        if (got < PD_RECORD_HEADER_SIZE)
            return PD_STEP_CUT;
        uint16_t size = pd_u16(h + 6, r->big);
        if (size < PD_RECORD_HEADER_SIZE) {
            pk_damage(err, offset, "a record of %u bytes: less than its 8-byte header", size);
            return PD_STEP_DAMAGE;
        }
        if (r->end != UINT64_MAX && size > r->end - offset) {
            pk_damage(err, offset, "a record of %u bytes runs past the end of the data "
                      "section (byte %llu)", size, (unsigned long long)r->end);
            return PD_STEP_DAMAGE;
        }
        got = pk_in_peek(r->in, size, &h);
        if (got < size)
            return PD_STEP_CUT;
        uint32_t type = pd_u32(h, r->big);
        if (type == PD_RECORD_COMPRESSED) {
            if (!start_compressed(r, h, size, offset, err))
                return PD_STEP_DAMAGE;
            continue;
        }
        if (leftover)
            goto cut_in_compressed;
        rec->type = type;
        rec->misc = pd_u16(h + 4, r->big);
        rec->size = size;
        rec->body = h + PD_RECORD_HEADER_SIZE;
        rec->body_size = size - PD_RECORD_HEADER_SIZE;
        r->pending = size;
        return PD_STEP_RECORD;
    }
cut_in_compressed:
    pk_damage(err, r->packed_offset, "the records of the compressed record at byte %llu end "
              "inside a record (%zu bytes of it)", (unsigned long long)r->packed_offset,
              r->plain_len - r->plain_pos);
    r->plain_pos = r->plain_len;
    return PD_STEP_DAMAGE;
}

/* ---- samples -------------------------------------------------------------------------------- */

typedef struct pd_cursor {
    const uint8_t *data;
    size_t n, pos;
    bool big, short_;
} pd_cursor;

static uint64_t take64(pd_cursor *c)
{
    if (c->n - c->pos < 8) {
        c->short_ = true;
        c->pos = c->n;
        return 0;
    }
    uint64_t v = pd_u64(c->data + c->pos, c->big);
    c->pos += 8;
    return v;
}

/* Two 32-bit fields of one 64-bit slot (pid and tid, cpu and its padding). */
static void take32x2(pd_cursor *c, uint32_t *first, uint32_t *second)
{
    if (c->n - c->pos < 8) {
        c->short_ = true;
        c->pos = c->n;
        return;
    }
    *first = pd_u32(c->data + c->pos, c->big);
    if (second)
        *second = pd_u32(c->data + c->pos + 4, c->big);
    c->pos += 8;
}

/* Skips count items of item bytes; false when they run past the record. */
static bool skip_items(pd_cursor *c, uint64_t count, uint64_t item)
{
    if (item && count > (c->n - c->pos) / item) {
        c->short_ = true;
        c->pos = c->n;
        return false;
    }
    c->pos += (size_t)(count * item);
    return true;
}

static unsigned popcount64(uint64_t v)
{
    return (unsigned)__builtin_popcountll(v);
}

const char *pd_parse_sample(const pd_attr *a, const uint8_t *body, size_t n, bool big,
                            pd_sample *s)
{
    memset(s, 0, sizeof *s);
    pd_cursor c = {body, n, 0, big, false};
    uint64_t t = a->sample_type;
    s->period = a->period;
    if (t & PD_SAMPLE_IDENTIFIER)
        s->identifier = take64(&c);
    if (t & PD_SAMPLE_IP)
        s->ip = take64(&c);
    if (t & PD_SAMPLE_TID)
        take32x2(&c, &s->pid, &s->tid);
    if (t & PD_SAMPLE_TIME)
        s->time = take64(&c);
    if (t & PD_SAMPLE_ADDR)
        s->addr = take64(&c);
    if (t & PD_SAMPLE_ID)
        s->id = take64(&c);
    if (t & PD_SAMPLE_STREAM_ID)
        s->stream_id = take64(&c);
    if (t & PD_SAMPLE_CPU)
        take32x2(&c, &s->cpu, NULL);
    if (t & PD_SAMPLE_PERIOD)
        s->period = take64(&c);
    if (c.short_)
        return "the sample is shorter than its fixed fields";
    if (t & PD_SAMPLE_READ) {
        uint64_t f = a->read_format;
        uint64_t per_value = 1 + !!(f & PD_FORMAT_ID) + !!(f & PD_FORMAT_LOST);
        uint64_t times = !!(f & PD_FORMAT_TOTAL_TIME_ENABLED) +
                         !!(f & PD_FORMAT_TOTAL_TIME_RUNNING);
        if (f & PD_FORMAT_GROUP) {
            /* nr, the times, then nr of {value, id, lost}. */
            s->read_values = take64(&c);
            if (!c.short_ && skip_items(&c, times, 8) &&
                !skip_items(&c, s->read_values, per_value * 8))
                return "the read group's values run past the sample";
        } else {
            /* value, the times, id, lost. */
            s->read_values = 1;
            skip_items(&c, per_value + times, 8);
        }
        if (c.short_)
            return "the read values run past the sample";
    }
    if (t & PD_SAMPLE_CALLCHAIN) {
        s->callchain_nr = take64(&c);
        s->callchain = c.data + c.pos;
        if (c.short_ || !skip_items(&c, s->callchain_nr, 8))
            return "the callchain's count runs past the sample";
    }
    if (t & PD_SAMPLE_RAW) {
        /* A u32 size, then the data: the pair is padded to 64 bits (size + 4 is). */
        if (n - c.pos < 4)
            return "the raw data's size runs past the sample";
        s->raw_size = pd_u32(c.data + c.pos, big);
        c.pos += 4;
        if (!skip_items(&c, s->raw_size, 1))
            return "the raw data runs past the sample";
    }
    if (t & PD_SAMPLE_BRANCH_STACK) {
        s->branch_nr = take64(&c);
        if (a->branch_sample_type & PD_BRANCH_HW_INDEX)
            take64(&c);
        s->branches = c.data + c.pos;
        if (c.short_ || !skip_items(&c, s->branch_nr, 24))
            return "the branch stack runs past the sample";
    }
    if (t & PD_SAMPLE_REGS_USER) {
        s->regs_user_abi = take64(&c);
        s->regs_user = c.data + c.pos;
        if (s->regs_user_abi && !skip_items(&c, popcount64(a->regs_user), 8))
            return "the user registers run past the sample";
    }
    if (t & PD_SAMPLE_STACK_USER) {
        s->stack_user_size = take64(&c);
        s->stack_user = c.data + c.pos;
        if (c.short_ || !skip_items(&c, s->stack_user_size, 1))
            return "the user stack runs past the sample";
        if (s->stack_user_size)
            s->stack_user_dyn_size = take64(&c);
    }
    if (t & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
        s->weight = take64(&c);
    if (t & PD_SAMPLE_DATA_SRC)
        s->data_src = take64(&c);
    if (t & PD_SAMPLE_TRANSACTION)
        s->transaction = take64(&c);
    if (t & PD_SAMPLE_REGS_INTR) {
        s->regs_intr_abi = take64(&c);
        if (s->regs_intr_abi && !skip_items(&c, popcount64(a->regs_intr), 8))
            return "the interrupt registers run past the sample";
    }
    if (t & PD_SAMPLE_PHYS_ADDR)
        s->phys_addr = take64(&c);
    if (t & PD_SAMPLE_CGROUP)
        s->cgroup = take64(&c);
    if (t & PD_SAMPLE_DATA_PAGE_SIZE)
        s->data_page_size = take64(&c);
    if (t & PD_SAMPLE_CODE_PAGE_SIZE)
        s->code_page_size = take64(&c);
    if (t & PD_SAMPLE_AUX) {
        s->aux_size = take64(&c);
        if (!c.short_)
            skip_items(&c, s->aux_size, 1);
    }
    if (c.short_)
        return "the sample's fields run past its size";
    return NULL;
}

bool pd_parse_sample_id(const pd_attr *a, const uint8_t *body, size_t n, bool big, pd_sample *s)
{
    memset(s, 0, sizeof *s);
    if (!a->sample_id_all)
        return true;
    uint64_t t = a->sample_type;
    size_t need = 8 * (size_t)(!!(t & PD_SAMPLE_TID) + !!(t & PD_SAMPLE_TIME) +
                               !!(t & PD_SAMPLE_ID) + !!(t & PD_SAMPLE_STREAM_ID) +
                               !!(t & PD_SAMPLE_CPU) + !!(t & PD_SAMPLE_IDENTIFIER));
    if (need > n)
        return false;
    pd_cursor c = {body, n, n - need, big, false};
    if (t & PD_SAMPLE_TID)
        take32x2(&c, &s->pid, &s->tid);
    if (t & PD_SAMPLE_TIME)
        s->time = take64(&c);
    if (t & PD_SAMPLE_ID)
        s->id = take64(&c);
    if (t & PD_SAMPLE_STREAM_ID)
        s->stream_id = take64(&c);
    if (t & PD_SAMPLE_CPU)
        take32x2(&c, &s->cpu, NULL);
    if (t & PD_SAMPLE_IDENTIFIER)
        s->identifier = take64(&c);
    return true;
}

size_t pd_sample_id_position(const pd_attr *a)
{
    uint64_t t = a->sample_type;
    if (t & PD_SAMPLE_IDENTIFIER)
        return 0;
    if (!(t & PD_SAMPLE_ID))
        return SIZE_MAX;
    return 8 * (size_t)(!!(t & PD_SAMPLE_IP) + !!(t & PD_SAMPLE_TID) + !!(t & PD_SAMPLE_TIME) +
                        !!(t & PD_SAMPLE_ADDR));
}

size_t pd_other_id_position_from_end(const pd_attr *a)
{
    uint64_t t = a->sample_type;
    if (!a->sample_id_all)
        return SIZE_MAX;
    if (t & PD_SAMPLE_IDENTIFIER)
        return 8;
    if (!(t & PD_SAMPLE_ID))
        return SIZE_MAX;
    return 8 * (size_t)(1 + !!(t & PD_SAMPLE_STREAM_ID) + !!(t & PD_SAMPLE_CPU));
}

bool pd_string(const uint8_t *data, size_t n, size_t *pos, bool big, const char **text,
               size_t *len)
{
    if (n - *pos < 4)
        return false;
    uint32_t size = pd_u32(data + *pos, big);
    if (size > n - *pos - 4)
        return false;
    const char *s = (const char *)data + *pos + 4;
    const char *nul = memchr(s, '\0', size);
    *text = s;
    *len = nul ? (size_t)(nul - s) : size;
    *pos += 4 + (size_t)size;
    return true;
}

const char *pd_record_name(uint32_t type)
{
    static const char *const kernel[] = {
        NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK", "READ",
        "SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH", "SWITCH_CPU_WIDE",
        "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE", "AUX_OUTPUT_HW_ID"};
    static const char *const user[] = {
        "HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
        "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
        "THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
        "TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT"};
    if (type < sizeof kernel / sizeof *kernel && kernel[type])
        return kernel[type];
    if (type >= 64 && type - 64 < sizeof user / sizeof *user)
        return user[type - 64];
    return "unknown";
}

const char *pd_feature_name(unsigned bit)
{
    static const char *const names[] = {
        "reserved", "tracing data", "build id", "hostname", "os release", "perf version",
        "arch", "nrcpus", "cpudesc", "cpuid", "total memory", "cmdline", "event desc",
        "cpu topology", "numa topology", "branch stack", "pmu mappings", "group desc",
        "auxtrace", "stat", "cache", "sample time", "mem topology", "clockid", "dir format",
        "bpf prog info", "bpf btf", "compressed", "cpu pmu caps", "clock data",
        "hybrid topology", "pmu caps"};
    return bit < sizeof names / sizeof *names ? names[bit] : NULL;
}
