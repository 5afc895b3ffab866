/* SPDX-License-Identifier: MIT */
/* Linux `perf script` text: what `perf record` sampled, as `perf script` prints it
 * (docs/formats/perf-script.md).
 *
 * A sample is a header line, `COMM [PID/]TID [CPU] SECS.USECS: [PERIOD] EVENT: [FIELDS]`, then
 * with call graphs one line per frame, leaf first, `ADDRESS SYMBOL[+0xOFF] (DSO)`, and an empty
 * line; without call graphs one line per sample, which may carry its frame after the event.
 * A `--header` block of `# key : value` lines may come first.
 *
 * The folder, by role: parse.c parses one header line and one frame line (for the probe and
 * the reader alike), split.c cuts the input into lines and runs of frame lines (on a thread of
 * its own when there is a second processor), read.c builds the model from them, format.c probes and
 * registers the format.
 */
#ifndef PK_FORMATS_PERF_SCRIPT_PERF_SCRIPT_H
#define PK_FORMATS_PERF_SCRIPT_PERF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"

/* A sample header line, its parts pointing into the line. */
typedef struct perf_header {
    const char *comm; /* the command name, trimmed; may hold spaces; empty without comm */
    size_t comm_len;
    int64_t pid;      /* -1 when the line shows the tid alone */
    int64_t tid;
    bool has_time;
    uint64_t time_ns; /* since perf's clock started (boot, for the default clock) */
    bool has_period;
    uint64_t period;
    const char *event; /* without the ':' that ends it; NULL when the line shows none */
    size_t event_len;
    const char *rest; /* what follows the event (tracepoint fields, or the sample's frame
                       * without call graphs), trimmed; may be empty */
    size_t rest_len;
    size_t ids_end;   /* where the pid/tid word ends in the line */
} perf_header;

/* A frame line, its parts pointing into the line. */
typedef struct perf_frame {
    uint64_t address;
    const char *symbol; /* without a trailing +0xOFF; may be empty (`-F ip,dso`) */
    size_t symbol_len;
    const char *dso; /* inside the parentheses; NULL when the line shows none */
    size_t dso_len;
    bool inlined; /* `SYMBOL (inlined)`: inlined into the caller on the next line */
} perf_frame;

/* Parses a sample header; false when the line is not one (it needs a pid/tid word after the
 * command and a time or an event). */
bool perf_parse_header(const char *line, size_t len, perf_header *h);
/* The same from the end of the pid/tid word on, for a line whose command and ids are known
 * (h->comm, comm_len, pid, tid and ids_end set): the fields after them are parsed and the rest
 * of h is set. */
bool perf_parse_header_after_ids(const char *line, size_t len, perf_header *h);
/* Parses a frame line: blanks, a hexadecimal address, then the symbol and `(dso)`. False when
 * the line does not start that way. */
bool perf_parse_frame(const char *line, size_t len, perf_frame *f);
/* The frame a header line carries after its event without call graphs (`ADDRESS SYMBOL (DSO)`,
 * or `ADDRESS SYMBOL` under `-F ...,ip,sym`): true with f parsed. */
bool perf_event_line_frame(const perf_header *h, perf_frame *f);
/* A `-F +srcline` line under a frame: `  FILE:LINE`. False when the line is not one. */
bool perf_parse_srcline(const char *line, size_t len, const char **file, size_t *file_len,
                        uint32_t *number);

/* The probe (format.c) and the reader (read.c). */
int pk_perf_script_probe(const uint8_t *data, size_t size);
pk_status pk_perf_script_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                              pk_error *err);

/* Text looked up in a table of texts kept elsewhere (distinct frame lines, distinct runs of
 * them): the key the tables' equality callbacks receive. */
typedef struct perf_text_key {
    const char *text;
    size_t len;
} perf_text_key;

/* True when the line holds only blanks (it ends a sample). */
static inline bool perf_blank_line(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t')
            return false;
    return true;
}

#endif
