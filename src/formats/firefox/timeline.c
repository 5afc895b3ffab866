/* SPDX-License-Identifier: MIT */
/* Where samples and memory events sit in time, for threads without times.
 *
 * Threads whose input gave times are written from their timelines (timed.c). For the others,
 * the model keeps the sum of all samples of one (thread, stack), a row, which remembers only
 * where in the stream it first appeared. So their timeline is laid out: the rows of all such
 * threads, in stream order, each occupy a span proportional to the magnitude of their weight,
 * one after another, from time 0 (also the earliest timed sample's, when some threads are
 * timed). A unit of weight lasts
 *   - the run's length divided by the total weight, when the run's start and end are known
 *     (.bsprof): the samples fill the whole run;
 *   - else its own time, when the value is a time (cpu nanoseconds);
 *   - else the sampling period, when the value counts samples and the period is known
 *     (gperftools: 314 samples at 10 ms span 3.14 s);
 *   - else, for counts that are not a time (callgrind's instructions, a count of events) and
 *     for sizes, what makes each written sample span 1 ms: the quantum of weight a sample
 *     holds grows with the total, so the track spans at most FX_MAX_SAMPLES ms (100 s), and
 *     a billion instructions never read as hours.
 * A row is written as several samples, one per quantum of weight (a sampling period's worth,
 * or one sample), so that the activity graph shows it over its whole span; the quantum grows when
 * the profile would otherwise need more than FX_MAX_SAMPLES samples (or the fewer the option
 * max-samples asks for: the same weights in coarser samples). A memory event sits at
 * the place of its stream position between the rows around it.
 */
#include <math.h>
#include <stdlib.h>

#include "core/units.h"
#include "formats/firefox/writer.h"

static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

int fx_compare_ordered_rows(const void *a, const void *b)
{
    const fx_ordered_row *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The length of the run in ns when the metadata knows it, else 0. */
static double run_ns(const pk_profile *p)
{
    const pk_metadata *md = pk_metadata_get(p);
    if (md->start_time != PK_TIME_UNKNOWN && md->end_time != PK_TIME_UNKNOWN &&
        md->end_time > md->start_time)
        return (double)(md->end_time - md->start_time);
    return 0;
}

/* The sampling period in ns when the metadata gives it in a unit of time, else 0. */
static double period_ns(const pk_profile *p)
{
    const pk_metadata *md = pk_metadata_get(p);
    int64_t unit_ns = pk_unit_ns(pk_str(p, md->period_unit));
    return md->period > 0 && unit_ns > 0 ? (double)md->period * (double)unit_ns : 0;
}

bool fx_timeline_place(fx_writer *w)
{
    const pk_profile *p = w->p;
    size_t rows = pk_sample_count(p), count = 0;
    fx_ordered_row *ordered = malloc((rows ? rows : 1) * sizeof *ordered);
    w->ordered_rows = malloc((rows ? rows : 1) * sizeof *w->ordered_rows);
    w->row_start_ns = malloc((rows ? rows : 1) * sizeof *w->row_start_ns);
    if (!ordered || !w->ordered_rows || !w->row_start_ns) {
        free(ordered);
        return false;
    }
    double total = 0; /* in units of the value; a double never overflows */
    for (size_t row = 0; row < rows; row++) {
        int64_t weight = fx_row_weight(w, row);
        if (weight == 0 || w->thread_timed[pk_sample_thread(p, row)])
            continue;
        total += (double)magnitude(weight);
        ordered[count++] = (fx_ordered_row){pk_sample_order(p, row), (uint32_t)row};
    }
    qsort(ordered, count, sizeof *ordered, fx_compare_ordered_rows);

    double run = run_ns(p), period = period_ns(p);
    double sample_ns = period > 0 ? period : 1e6; /* what a written sample spans at most */
    double quantum = 1;
    if (run > 0 && total > 0) {
        w->unit_ns = run / total;
    } else if (w->weight_kind == FX_WEIGHT_MS) {
        w->unit_ns = (double)w->weight_scale;
        quantum = fmax(1, floor(sample_ns / (double)w->weight_scale));
    } else if (w->weight_kind == FX_WEIGHT_SAMPLES && period > 0) {
        w->unit_ns = period;
    } else if (w->weight_kind == FX_WEIGHT_SAMPLES) {
        /* Not a time: each written sample spans 1 ms, however much it holds. */
        quantum = fmax(1, ceil(total / w->max_samples));
        w->unit_ns = 1e6 / quantum;
    } else if (count > 0) {
        /* Sizes have no time of their own: a row of average weight spans one sample. */
        quantum = fmax(1, ceil(total / (double)count));
        if (total / quantum > w->max_samples)
            quantum = ceil(total / w->max_samples);
        w->unit_ns = sample_ns / quantum;
    } else {
        w->unit_ns = sample_ns;
    }
    if (total / quantum > w->max_samples)
        quantum = ceil(total / w->max_samples);
    w->quantum = quantum > 9e18 ? INT64_MAX : (int64_t)quantum;

    double at = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t row = ordered[i].row;
        w->ordered_rows[i] = row;
        w->row_start_ns[row] = at;
        at += (double)magnitude(fx_row_weight(w, row)) * w->unit_ns;
    }
    w->ordered_row_count = count;
    w->timeline_ns = run > 0 ? run : at;
    if ((double)w->timed_ns > w->timeline_ns)
        w->timeline_ns = (double)w->timed_ns;
    free(ordered);
    return true;
}

uint64_t fx_row_samples(const fx_writer *w, size_t row)
{
    uint64_t m = magnitude(fx_row_weight(w, row)), q = (uint64_t)w->quantum;
    return m / q + (m % q != 0);
}

int64_t fx_row_sample_weight(const fx_writer *w, size_t row, uint64_t i)
{
    int64_t weight = fx_row_weight(w, row);
    uint64_t m = magnitude(weight), q = (uint64_t)w->quantum;
    uint64_t piece = i + 1 < fx_row_samples(w, row) ? q : m - i * q;
    return weight < 0 ? -(int64_t)piece : (int64_t)piece;
}

static int64_t ns_of(double ns)
{
    return ns < 9e18 ? (int64_t)(ns + 0.5) : INT64_MAX;
}

int64_t fx_row_sample_time(const fx_writer *w, size_t row, uint64_t i)
{
    return ns_of(w->row_start_ns[row] + (double)i * (double)w->quantum * w->unit_ns);
}

int64_t fx_event_time(const fx_writer *w, uint64_t order)
{
    const pk_profile *p = w->p;
    size_t lo = 0, hi = w->ordered_row_count;
    if (hi == 0) /* no samples: events evenly over the stream */
        return ns_of((double)order * (w->timeline_ns > 0 ? w->timeline_ns /
                                                               (double)pk_event_order_count(p)
                                                         : 1e6));
    /* The last row that appeared at or before the event. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pk_sample_order(p, w->ordered_rows[mid]) <= order)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    uint32_t row = w->ordered_rows[lo - 1];
    double start = w->row_start_ns[row];
    double span = (double)magnitude(fx_row_weight(w, row)) * w->unit_ns;
    uint64_t from = pk_sample_order(p, row);
    uint64_t to = lo < w->ordered_row_count ? pk_sample_order(p, w->ordered_rows[lo])
                                            : pk_event_order_count(p);
    double fraction = to > from ? (double)(order - from) / (double)(to - from) : 0;
    return ns_of(start + fraction * span);
}
