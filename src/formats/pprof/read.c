/* SPDX-License-Identifier: MIT */
/* The pprof reader: the Profile message walked field by field.
 *
 * libprotobuf-c unpacks the sub-messages (sample, location, function, mapping, value type);
 * the Profile message itself is walked here, because unpacking it whole would hold every
 * sample of the file in memory at once. Each field is handled as it streams past (reader.h
 * says into what); build.c makes the model at the end.
 *
 * Byte offsets in errors are offsets into the protobuf message (for a compressed file, the
 * core says they count decompressed bytes).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/damage.h"
#include "core/position.h"
#include "core/varint.h"
#include "formats/pprof/pprof.h"
#include "formats/pprof/pprof.pb-c.h"
#include "formats/pprof/reader.h"

pk_status pprof_damage(pprof_reader *r, uint64_t at, const char *fmt, ...)
{
    char message[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return pk_damage(r->err, at, "%s", message);
}

pk_status pprof_nomem(pprof_reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

bool pprof_label_sets_start(pprof_reader *r)
{
    if (r->label_set_count > 0)
        return true;
    if (!PK_ARRAY_RESERVE(r->label_sets, r->label_set_capacity, 1))
        return false;
    r->label_sets[0] = (label_set){0, 0, 0, PK_NONE, PK_NONE};
    r->label_set_count = 1;
    return true;
}

pk_status pprof_limit(pprof_reader *r, uint64_t at, const char *what)
{
    return pk_error_set(r->err, PK_ERR_LIMIT, at > INT64_MAX ? INT64_MAX : (int64_t)at,
                        "too many %s", what);
}

static void reader_init(pprof_reader *r, pk_input *in, pk_profile *p, pk_error *err)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->err = err;
    pb_stream_init(&r->stream, in, pprof_field_name);
    pprof_arena_init(&r->arena);
    pk_u64map_init(&r->mapping_ids);
    pk_u64map_init(&r->function_ids);
    pk_u64map_init(&r->location_ids);
    pk_index_init(&r->row_index);
    pk_index_init(&r->label_index);
}

static void reader_release(pprof_reader *r)
{
    pb_stream_release(&r->stream);
    pprof_arena_release(&r->arena);
    free(r->strings);
    free(r->sample_types);
    free(r->mappings);
    pk_u64map_free(&r->mapping_ids);
    free(r->functions);
    pk_u64map_free(&r->function_ids);
    free(r->locations);
    pk_u64map_free(&r->location_ids);
    free(r->lines);
    free(r->label_values);
    free(r->label_sets);
    pk_index_free(&r->label_index);
    free(r->row_keys);
    free(r->row_key_start);
    free(r->row_at);
    free(r->row_values);
    pk_index_free(&r->row_index);
    free(r->comments);
}

/* ---- handling of each Profile field ----------------------------------------------------------- */

static pk_status read_sample_type(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__ValueType *vt =
        perftools__profiles__value_type__unpack(&r->arena.allocator, len, data);
    if (!vt)
        return pprof_damage(r, at, "malformed sample_type");
    if (!PK_ARRAY_RESERVE(r->sample_types, r->sample_type_capacity, r->sample_type_count + 1))
        return pprof_nomem(r);
    r->sample_types[r->sample_type_count++] = (sample_type_entry){vt->type, vt->unit, at};
    return PK_OK;
}

static pk_status read_period_type(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__ValueType *vt =
        perftools__profiles__value_type__unpack(&r->arena.allocator, len, data);
    if (!vt)
        return pprof_damage(r, at, "malformed period_type");
    r->period_type_name = (deferred_string){vt->type, at};
    r->period_type_unit = (deferred_string){vt->unit, at};
    return PK_OK;
}

static bool label_set_equal(const void *context, uint32_t entry, const void *key)
{
    const pprof_reader *r = context;
    const int64_t *const *k = key;
    const label_set *set = &r->label_sets[entry];
    size_t count = (size_t)(k[1] - k[0]) / 4;
    return set->count == count &&
           memcmp(r->label_values + (size_t)set->first * 4, k[0], count * 4 * sizeof(int64_t)) == 0;
}

/* The label set of a sample: its labels as appended at the end of label_values. Returns the
 * set's index (0 when there are no labels) and drops the appended copy when it is known. */
static pk_status intern_label_set(pprof_reader *r, size_t first_value, uint64_t at,
                                  uint32_t *out)
{
    size_t count = (r->label_value_count - first_value) / 4;
    if (count == 0) {
        *out = 0;
        return PK_OK;
    }
    if (!pprof_label_sets_start(r))
        return pprof_nomem(r);
    const int64_t *key[2] = {r->label_values + first_value, r->label_values + r->label_value_count};
    uint64_t hash = pk_hash_bytes(key[0], count * 4 * sizeof(int64_t));
    uint32_t found = pk_index_find(&r->label_index, hash, label_set_equal, r, key);
    if (found != UINT32_MAX) {
        r->label_value_count = first_value;
        *out = found;
        return PK_OK;
    }
    if (r->label_set_count >= UINT32_MAX - 1 || first_value / 4 > UINT32_MAX)
        return pprof_limit(r, at, "distinct label sets");
    if (!PK_ARRAY_RESERVE(r->label_sets, r->label_set_capacity, r->label_set_count + 1))
        return pprof_nomem(r);
    uint32_t index = (uint32_t)r->label_set_count;
    if (!pk_index_insert(&r->label_index, hash, index))
        return pprof_nomem(r);
    r->label_sets[r->label_set_count++] =
        (label_set){(uint32_t)(first_value / 4), (uint32_t)count, at, PK_NONE, PK_NONE};
    *out = index;
    return PK_OK;
}

/* Compares row entry with the candidate key at the end of row_keys (key = its start). */
static bool row_key_equal(const void *context, uint32_t entry, const void *key)
{
    const pprof_reader *r = context;
    size_t start = *(const size_t *)key;
    size_t len = r->row_keys_len - start;
    size_t entry_start = r->row_key_start[entry];
    return r->row_key_start[entry + 1] - entry_start == len &&
           memcmp(r->row_keys + entry_start, r->row_keys + start, len) == 0;
}

static pk_status read_sample(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Sample *s =
        perftools__profiles__sample__unpack(&r->arena.allocator, len, data);
    if (!s)
        return pprof_damage(r, at, "malformed sample");
    if (!r->values_fixed) {
        r->values_fixed = true;
        r->values_fixed_at = at;
        r->values_per_sample = s->n_value;
        r->stored_values = s->n_value < PK_MAX_VALUES ? s->n_value : PK_MAX_VALUES;
        if (r->sample_type_count && s->n_value != r->sample_type_count)
            return pprof_damage(r, at, "sample has %zu values but the profile has %zu sample types",
                                s->n_value, r->sample_type_count);
    } else if (s->n_value != r->values_per_sample) {
        return pprof_damage(r, at, "sample has %zu values, earlier samples have %zu", s->n_value,
                            r->values_per_sample);
    }

    size_t first_value = r->label_value_count;
    for (size_t i = 0; i < s->n_label; i++) {
        const Perftools__Profiles__Label *label = s->label[i];
        if (label->key == 0)
            continue;
        if (!PK_ARRAY_RESERVE(r->label_values, r->label_value_capacity, r->label_value_count + 4))
            return pprof_nomem(r);
        int64_t *v = r->label_values + r->label_value_count;
        v[0] = label->key;
        v[1] = label->str;
        v[2] = label->num;
        v[3] = label->num_unit;
        r->label_value_count += 4;
    }
    uint32_t labels = 0;
    pk_status st = intern_label_set(r, first_value, at, &labels);
    if (st != PK_OK)
        return st;

    /* the key goes at the end of row_keys; it stays there only if it is new */
    size_t start = r->row_keys_len;
    if (s->n_location_id > (SIZE_MAX - start) / PK_VARINT_MAX_BYTES - 1 ||
        !PK_ARRAY_RESERVE(r->row_keys, r->row_keys_capacity,
                          start + PK_VARINT_MAX_BYTES * (s->n_location_id + 1)))
        return pprof_nomem(r);
    size_t key_len = pk_varint_encode(r->row_keys + start, labels);
    for (size_t i = 0; i < s->n_location_id; i++)
        key_len += pk_varint_encode(r->row_keys + start + key_len, s->location_id[i]);
    r->row_keys_len = start + key_len;
    uint64_t hash = pk_hash_bytes(r->row_keys + start, key_len);
    uint32_t row = pk_index_find(&r->row_index, hash, row_key_equal, r, &start);
    size_t nv = r->stored_values;
    if (row != UINT32_MAX) {
        r->row_keys_len = start;
    } else {
        if (r->row_count >= UINT32_MAX - 1)
            return pprof_limit(r, at, "distinct samples");
        if (!PK_ARRAY_RESERVE(r->row_key_start, r->row_capacity_start, r->row_count + 2) ||
            !PK_ARRAY_RESERVE(r->row_at, r->row_capacity_at, r->row_count + 1) ||
            !PK_ARRAY_RESERVE(r->row_values, r->row_capacity_values,
                              (r->row_count + 1) * (nv ? nv : 1)))
            return pprof_nomem(r);
        row = (uint32_t)r->row_count;
        if (!pk_index_insert(&r->row_index, hash, row))
            return pprof_nomem(r);
        r->row_key_start[row] = start;
        r->row_key_start[row + 1] = r->row_keys_len;
        r->row_at[row] = at;
        memset(r->row_values + (size_t)row * nv, 0, nv * sizeof(int64_t));
        r->row_count++;
    }
    int64_t *values = r->row_values + (size_t)row * nv;
    for (size_t k = 0; k < nv; k++)
        values[k] = pk_add_saturating(values[k], s->value[k]);
    return PK_OK;
}

/* Registers an entry's ID (mapping, function, location) as the next index of its table:
 * 0 and IDs seen before are damage. */
static pk_status register_id(pprof_reader *r, pk_u64map *ids, uint64_t id, size_t index,
                             const char *what, uint64_t at)
{
    if (id == 0)
        return pprof_damage(r, at, "%s with the reserved id 0", what);
    if (index >= UINT32_MAX - 1)
        return pprof_limit(r, at, what);
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(ids, id, (uint32_t)index, &slot, &inserted))
        return pprof_nomem(r);
    if (!inserted)
        return pprof_damage(r, at, "duplicate %s id %" PRIu64, what, id);
    return PK_OK;
}

static pk_status read_mapping(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Mapping *m =
        perftools__profiles__mapping__unpack(&r->arena.allocator, len, data);
    if (!m)
        return pprof_damage(r, at, "malformed mapping");
    pk_status st = register_id(r, &r->mapping_ids, m->id, r->mapping_count, "mapping", at);
    if (st != PK_OK)
        return st;
    if (!PK_ARRAY_RESERVE(r->mappings, r->mapping_capacity, r->mapping_count + 1))
        return pprof_nomem(r);
    r->mappings[r->mapping_count++] = (mapping_entry){
        m->id, m->memory_start, m->memory_limit, m->file_offset, m->filename, m->build_id, at,
        PK_NONE};
    return PK_OK;
}

static pk_status read_function(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Function *f =
        perftools__profiles__function__unpack(&r->arena.allocator, len, data);
    if (!f)
        return pprof_damage(r, at, "malformed function");
    pk_status st = register_id(r, &r->function_ids, f->id, r->function_count, "function", at);
    if (st != PK_OK)
        return st;
    if (!PK_ARRAY_RESERVE(r->functions, r->function_capacity, r->function_count + 1))
        return pprof_nomem(r);
    r->functions[r->function_count++] = (function_entry){
        f->id, f->name, f->system_name, f->filename, f->start_line, at, 0, 0};
    return PK_OK;
}

static pk_status read_location(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Location *l =
        perftools__profiles__location__unpack(&r->arena.allocator, len, data);
    if (!l)
        return pprof_damage(r, at, "malformed location");
    pk_status st = register_id(r, &r->location_ids, l->id, r->location_count, "location", at);
    if (st != PK_OK)
        return st;
    if (r->line_count + l->n_line >= UINT32_MAX)
        return pprof_limit(r, at, "lines");
    if (!PK_ARRAY_RESERVE(r->locations, r->location_capacity, r->location_count + 1) ||
        !PK_ARRAY_RESERVE(r->lines, r->line_capacity, r->line_count + l->n_line))
        return pprof_nomem(r);
    location_entry *loc = &r->locations[r->location_count++];
    memset(loc, 0, sizeof *loc);
    loc->id = l->id;
    loc->mapping_id = l->mapping_id;
    loc->address = l->address;
    loc->first_line = (uint32_t)r->line_count;
    loc->line_count = (uint32_t)l->n_line;
    for (size_t i = 0; i < l->n_line; i++)
        r->lines[r->line_count++] =
            (line_entry){l->line[i]->function_id, pk_position(l->line[i]->line)};
    return PK_OK;
}

static pk_status read_string(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    if (r->string_count == 0 && len != 0)
        return pprof_damage(r, at, "string_table[0] must be empty");
    if (r->string_count >= UINT32_MAX)
        return pprof_limit(r, at, "strings");
    if (!PK_ARRAY_RESERVE(r->strings, r->string_capacity, r->string_count + 1))
        return pprof_nomem(r);
    uint32_t id = pk_intern(r->p, (const char *)data, len);
    if (id == PK_NONE)
        return pprof_nomem(r);
    r->strings[r->string_count++] = id;
    return PK_OK;
}

static pk_status add_comment(pprof_reader *r, uint64_t index, uint64_t at)
{
    if (!PK_ARRAY_RESERVE(r->comments, r->comment_capacity, r->comment_count + 1))
        return pprof_nomem(r);
    r->comments[r->comment_count++] = (deferred_string){(int64_t)index, at};
    return PK_OK;
}

/* Comments written packed: varints one after another. */
static pk_status read_comments(pprof_reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    const uint8_t *p = data, *end = data + len;
    while (p < end) {
        uint64_t v;
        if (pk_varint_decode(&p, end, &v) != PK_VARINT_OK)
            return pprof_damage(r, at, "malformed packed comment");
        pk_status st = add_comment(r, v, at);
        if (st != PK_OK)
            return st;
    }
    return PK_OK;
}

static pk_status read_scalar(pprof_reader *r, uint32_t field, uint64_t v, uint64_t at)
{
    deferred_string ref = {(int64_t)v, at};
    switch (field) {
    case PROFILE_DROP_FRAMES: r->drop_frames = ref; break;
    case PROFILE_KEEP_FRAMES: r->keep_frames = ref; break;
    case PROFILE_DEFAULT_SAMPLE_TYPE: r->default_sample_type = ref; break;
    case PROFILE_DOC_URL: r->doc_url = ref; break;
    case PROFILE_TIME_NANOS:
        if (r->has_time)
            return pprof_damage(r, at,
                                "a second time_nanos: concatenated profiles are not supported");
        r->has_time = true;
        r->time_nanos = (int64_t)v;
        break;
    case PROFILE_DURATION_NANOS: r->duration_nanos = (int64_t)v; break;
    case PROFILE_PERIOD: r->period = (int64_t)v; break;
    case PROFILE_COMMENT: return add_comment(r, v, at);
    default: break;
    }
    return PK_OK;
}

static pk_status read_message_field(pprof_reader *r, uint32_t field, const uint8_t *data,
                                    size_t len, uint64_t at)
{
    pk_status st;
    switch (field) {
    case PROFILE_SAMPLE_TYPE: st = read_sample_type(r, data, len, at); break;
    case PROFILE_SAMPLE: st = read_sample(r, data, len, at); break;
    case PROFILE_MAPPING: st = read_mapping(r, data, len, at); break;
    case PROFILE_LOCATION: st = read_location(r, data, len, at); break;
    case PROFILE_FUNCTION: st = read_function(r, data, len, at); break;
    case PROFILE_STRING_TABLE: st = read_string(r, data, len, at); break;
    case PROFILE_PERIOD_TYPE: st = read_period_type(r, data, len, at); break;
    case PROFILE_COMMENT: st = read_comments(r, data, len, at); break;
    default: st = PK_OK; break;
    }
    pprof_arena_reset(&r->arena);
    return st;
}

/* Walks the Profile message to its end, or to damage. */
static pk_status read_fields(pprof_reader *r)
{
    pb_stream *s = &r->stream;
    for (;;) {
        pb_field f;
        pk_status st = pb_stream_next(s, &f, r->err);
        if (st != PK_OK || f.number == 0)
            return st;
        bool known = f.number <= PROFILE_FIELD_MAX;
        if (known && !pprof_field_wire_fits(f.number, f.wire))
            return pprof_damage(r, f.offset, "%s has wire type %u, expected %u",
                                pprof_field_name(f.number), f.wire,
                                pprof_field_wire_type(f.number));
        if (f.wire == PB_WIRE_VARINT && known) {
            st = read_scalar(r, f.number, f.value, f.offset);
        } else if (f.wire == PB_WIRE_BYTES && !known) {
            st = pb_stream_skip(s, &f, r->err);
        } else if (f.wire == PB_WIRE_BYTES) {
            const uint8_t *data;
            st = pb_stream_bytes(s, &f, PPROF_MAX_MESSAGE_BYTES, &data, r->err);
            if (st == PK_OK)
                st = read_message_field(r, f.number, data, (size_t)f.value, f.offset);
        }
        if (st != PK_OK)
            return st;
    }
}

pk_status pprof_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                     pk_error *err)
{
    if (pk_in_peekc(in) < 0 && !pk_in_error(in))
        return pk_error_set(err, PK_ERR_INPUT, 0, "empty input");
    pprof_reader r;
    reader_init(&r, in, p, err);
    pk_status st = read_fields(&r);
    /* What comes before damage is whole: the profile is made of it, and references to what
     * the damage cut off are dropped. The core keeps that profile with --salvage. */
    bool damaged = st == PK_ERR_INPUT && err->salvageable;
    r.lenient = damaged || (options && options->salvage);
    if (st == PK_OK || damaged) {
        pk_error damage = *err;
        pk_status built = pprof_build_model(&r);
        if (built == PK_OK && r.missing_strings)
            pk_warn(p, "%zu references to strings beyond the string table were read as empty",
                    r.missing_strings);
        if (built != PK_OK)
            st = built;
        else if (damaged)
            *err = damage;
    }
    reader_release(&r);
    return st;
}
