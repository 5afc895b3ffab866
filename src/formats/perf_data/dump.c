/* SPDX-License-Identifier: MIT */
/* The perf.data dump: the header, each event's attribute, then every record with its byte
 * offset (records out of a compressed one show the offset of that one, marked `z`): its kind and
 * size, and for the kinds the reader uses, their fields as the reader decodes them. Raw leaves
 * out the callchain's addresses' meaning (context markers are printed as numbers). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/damage.h"
#include "core/output.h"
#include "formats/perf_data/perf_data.h"

static void dump_attr(pk_output *out, size_t index, const pd_attr *a)
{
    char buf[64];
    pk_out_printf(out, "#\tevent %zu: %s, type %u, config 0x%" PRIx64 ", %s %" PRIu64
                       ", sample_type 0x%" PRIx64 ", read_format 0x%" PRIx64
                       ", sample_id_all %d, %zu ids\n",
                  index + 1, pd_attr_default_name(a, buf, sizeof buf), a->type, a->config,
                  a->freq ? "frequency" : "period", a->period, a->sample_type, a->read_format,
                  a->sample_id_all, a->id_count);
}

static const char *context_name(uint64_t ip)
{
    switch (ip) {
    case PD_CONTEXT_HV: return "hv";
    case PD_CONTEXT_KERNEL: return "kernel";
    case PD_CONTEXT_USER: return "user";
    case PD_CONTEXT_GUEST: return "guest";
    case PD_CONTEXT_GUEST_KERNEL: return "guest-kernel";
    case PD_CONTEXT_GUEST_USER: return "guest-user";
    default: return "context";
    }
}

static void dump_sample(pk_output *out, const pd_file *f, const pd_record *rec, bool raw)
{
    const pd_attr *a = pd_attr_of(f, rec);
    if (!a) {
        pk_out_printf(out, " (an event id no attribute has)");
        return;
    }
    pd_sample s;
    const char *why = pd_parse_sample(a, rec->body, rec->body_size, f->header.big, &s);
    if (why) {
        pk_out_printf(out, " (damaged: %s)", why);
        return;
    }
    uint64_t t = a->sample_type;
    if (f->attr_count > 1)
        pk_out_printf(out, " event %zu", (size_t)(a - f->attrs) + 1);
    if (t & PD_SAMPLE_TID)
        pk_out_printf(out, " pid %u tid %u", s.pid, s.tid);
    if (t & PD_SAMPLE_TIME)
        pk_out_printf(out, " time %" PRIu64, s.time);
    if (t & PD_SAMPLE_CPU)
        pk_out_printf(out, " cpu %u", s.cpu);
    if (t & PD_SAMPLE_PERIOD)
        pk_out_printf(out, " period %" PRIu64, s.period);
    if (t & PD_SAMPLE_IP)
        pk_out_printf(out, " ip 0x%" PRIx64, s.ip);
    if (t & PD_SAMPLE_ADDR)
        pk_out_printf(out, " addr 0x%" PRIx64, s.addr);
    if (t & PD_SAMPLE_CALLCHAIN) {
        pk_out_printf(out, " callchain %" PRIu64 ":", s.callchain_nr);
        for (uint64_t i = 0; i < s.callchain_nr; i++) {
            uint64_t ip = pd_u64(s.callchain + 8 * i, f->header.big);
            if (ip >= PD_CONTEXT_MAX && !raw)
                pk_out_printf(out, " [%s]", context_name(ip));
            else
                pk_out_printf(out, " 0x%" PRIx64, ip);
        }
    }
    if (t & PD_SAMPLE_RAW)
        pk_out_printf(out, " raw %u bytes", s.raw_size);
    if (t & PD_SAMPLE_BRANCH_STACK)
        pk_out_printf(out, " branches %" PRIu64, s.branch_nr);
    if (t & PD_SAMPLE_STACK_USER)
        pk_out_printf(out, " user stack %" PRIu64 " bytes", s.stack_user_size);
}

static void dump_other(pk_output *out, const pd_record *rec, bool big)
{
    const uint8_t *b = rec->body;
    size_t n = rec->body_size;
    switch (rec->type) {
    case PD_RECORD_COMM:
        if (n > 8)
            pk_out_printf(out, " pid %u tid %u comm %.*s", pd_u32(b, big), pd_u32(b + 4, big),
                          (int)strnlen((const char *)b + 8, n - 8), (const char *)b + 8);
        break;
    case PD_RECORD_FORK:
    case PD_RECORD_EXIT:
        if (n >= 16)
            pk_out_printf(out, " pid %u ppid %u tid %u ptid %u", pd_u32(b, big),
                          pd_u32(b + 4, big), pd_u32(b + 8, big), pd_u32(b + 12, big));
        break;
    case PD_RECORD_MMAP:
    case PD_RECORD_MMAP2: {
        size_t name_at = rec->type == PD_RECORD_MMAP2 ? 64 : 32;
        if (n > name_at)
            pk_out_printf(out, " pid %d start 0x%" PRIx64 " len 0x%" PRIx64 " pgoff 0x%" PRIx64
                               " %.*s", (int32_t)pd_u32(b, big), pd_u64(b + 8, big),
                          pd_u64(b + 16, big), pd_u64(b + 24, big),
                          (int)strnlen((const char *)b + name_at, n - name_at),
                          (const char *)b + name_at);
        break;
    }
    case PD_RECORD_LOST:
        if (n >= 16)
            pk_out_printf(out, " id %" PRIu64 " lost %" PRIu64, pd_u64(b, big),
                          pd_u64(b + 8, big));
        break;
    case PD_RECORD_HEADER_FEATURE:
        if (n >= 8) {
            const char *name = pd_feature_name((unsigned)pd_u64(b, big));
            pk_out_printf(out, " feature %" PRIu64 " (%s)", pd_u64(b, big),
                          name ? name : "unknown");
        }
        break;
    default:
        break;
    }
}

pk_status pd_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                  pk_error *err)
{
    pd_file f;
    pk_status status = pd_open(in, &f, err);
    if (status != PK_OK) {
        pd_file_free(&f);
        return status;
    }
    const pd_header *h = &f.header;
    pk_out_printf(out, "# perf.data, %s-endian, %s\n", h->big ? "big" : "little",
                  h->pipe ? "pipe layout (attributes and features as records)" : "file layout");
    if (!h->pipe) {
        pk_out_printf(out, "0\theader: %" PRIu64 " bytes, attribute entries of %" PRIu64
                           " bytes\n", h->header_size, h->attr_size);
        pk_out_printf(out, "#\tattributes: %" PRIu64 " bytes at %" PRIu64 "\n", h->attrs.size,
                      h->attrs.offset);
        pk_out_printf(out, "#\tdata: %" PRIu64 " bytes at %" PRIu64 "%s\n", h->data.size,
                      h->data.offset, f.data_size_missing ? " (no size: perf did not finish)"
                                                          : "");
        pk_out_printf(out, "#\tfeatures:");
        for (unsigned bit = 0; bit < PD_FEATURE_BITS; bit++)
            if (pd_has_feature(h, bit))
                pk_out_printf(out, " %s", pd_feature_name(bit) ? pd_feature_name(bit) : "?");
        pk_out_putc(out, '\n');
        for (size_t i = 0; i < f.attr_count; i++)
            dump_attr(out, i, &f.attrs[i]);
    }
    pd_records records;
    pd_records_init(&records, in, h->big, f.data_end);
    pd_record rec;
    pd_step step;
    while ((step = pd_next_record(&records, &rec, err)) == PD_STEP_RECORD &&
           !pk_out_failed(out)) {
        pk_out_printf(out, "%" PRIu64 "%s\t%s size %u misc 0x%x", rec.offset,
                      rec.compressed ? "z" : "", pd_record_name(rec.type), rec.size, rec.misc);
        if (rec.type == PD_RECORD_HEADER_ATTR && h->pipe) {
            status = pd_add_pipe_attr(&f, &rec, err);
            if (status != PK_OK)
                break;
            pk_out_putc(out, '\n');
            dump_attr(out, f.attr_count - 1, &f.attrs[f.attr_count - 1]);
            continue;
        }
        if (rec.type == PD_RECORD_SAMPLE)
            dump_sample(out, &f, &rec, raw);
        else
            dump_other(out, &rec, h->big);
        pk_out_putc(out, '\n');
        if ((rec.type == PD_RECORD_AUXTRACE || rec.type == PD_RECORD_HEADER_TRACING_DATA) &&
            !rec.compressed) {
            uint64_t extra = rec.type == PD_RECORD_AUXTRACE
                                 ? (rec.body_size >= 8 ? pd_u64(rec.body, h->big) : 0)
                                 : (rec.body_size >= 4 ? pd_u32(rec.body, h->big) : 0);
            pk_in_skip_buffered(in, records.pending);
            records.pending = 0;
            pk_in_skip(in, extra);
        }
    }
    if (status == PK_OK) {
        if (step == PD_STEP_DAMAGE)
            status = err->status;
        else if (step == PD_STEP_CUT)
            pk_out_printf(out, "%" PRIu64 "\tend of input inside a record\n", rec.offset);
        else if (step == PD_STEP_END)
            pk_out_printf(out, "%" PRIu64 "\tend of the records\n", rec.offset);
    }
    if (status == PK_ERR_INPUT && pk_salvage_applies(options, status, err))
        status = PK_OK;
    pd_records_free(&records);
    pd_file_free(&f);
    return status;
}
