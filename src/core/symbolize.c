/* SPDX-License-Identifier: MIT */
/* Symbolization with elfutils: see symbolize.h.
 *
 * Per binary, CUs are found through a table of CU address ranges built once (so binaries
 * without .debug_aranges work), and each CU touched gets an index of its functions and
 * inlined instances with their address ranges, built by one walk of its DIEs. An address is
 * then a binary search for the function plus a scan of that function's inlined instances,
 * instead of a DIE walk per address.
 *
 * With split DWARF (-gsplit-dwarf) the binary holds skeleton units (ranges and the line table)
 * and each unit's functions are in a .dwo file that libdw finds and links to its skeleton: the
 * functions are walked in the split unit, the lines read in the skeleton.
 */
#include "core/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/debuginfod.h"
#include "core/hashmap.h"
#include "core/perf_map.h"

/* Inlining deeper than this keeps the outermost function and the innermost calls. */
#define SYM_MAX_CHAIN 64
/* DIE nesting followed when indexing a CU. */
#define SYM_MAX_DIE_DEPTH 256
/* Frame indexes per storage block of chains. */
#define SYM_BLOCK_FRAMES 65536u
/* Split units' DIE offsets are keyed above this bit (debug information is smaller than 2^40
 * bytes). */
#define SYM_SPLIT_KEY_SHIFT 40
/* A mapping may start this far before its segment's file offset (page rounding). */
#define SYM_MAX_PAGE 0x10000u

/* ---- small helpers -------------------------------------------------------------------------- */

static char *sym_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    size_t n = la;
    if (n == 0 || s[n - 1] != '/')
        s[n++] = '/';
    while (*b == '/')
        b++, lb--;
    memcpy(s + n, b, lb + 1);
    return s;
}

static const char *sym_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool sym_is_hex(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

/* ---- the model side ---------------------------------------------------------------------------- */

uint32_t pk_address_name(pk_profile *p, uint64_t address)
{
    return pk_intern_printf(p, "0x%" PRIx64, address);
}

bool pk_frame_is_unresolved(const pk_profile *p, uint32_t frame)
{
    const pk_frame *f = pk_frame_at(p, frame);
    if (!f || !(f->flags & PK_FRAME_HAS_ADDRESS) || (f->flags & PK_FRAME_INLINED))
        return false;
    const char *name = pk_frame_name(p, frame);
    if (!name || !*name)
        return true;
    return name[0] == '0' && name[1] == 'x' && sym_is_hex(name + 2);
}

bool pk_profile_has_unresolved_frames(const pk_profile *p)
{
    for (size_t i = 0; i < pk_frame_count(p); i++)
        if (pk_frame_is_unresolved(p, (uint32_t)i))
            return true;
    return false;
}

/* ---- per-binary structures ------------------------------------------------------------------- */

/* A function or inlined instance with code. */
typedef struct sym_scope {
    Dwarf_Off die;
    uint32_t parent;    /* enclosing function or instance; PK_NONE for a function */
    uint32_t depth;     /* 0 for a function */
    uint32_t inl_begin; /* functions: their inlined instances' ranges are inl[begin, end) */
    uint32_t inl_end;
} sym_scope;

typedef struct sym_range {
    uint64_t low, high;
    uint32_t scope; /* or CU index */
} sym_range;

typedef struct sym_cu {
    Dwarf_Die die;  /* the unit in the binary: its ranges and lines */
    Dwarf_Die code; /* the unit whose DIEs are its functions: die, or its split unit */
    Dwarf *dwarf;   /* where code's DIE offsets are: the binary's, or the .dwo's */
    uint64_t key_base; /* added to DIE offsets to key functions (by_die): a .dwo's offsets
                        * start again at 0, so split units get one of their own */
    bool indexed;
    sym_scope *scopes;
    size_t scope_count, scope_cap;
    sym_range *functions; /* sorted by low after indexing */
    size_t function_count, function_cap;
    sym_range *inlined;
    size_t inlined_count, inlined_cap;
    /* The unit's line table (libdw's) and its rows' addresses in an array of their own, as
     * offsets from the first row's: a binary search over 4-byte offsets touches a twelfth of
     * the memory that one over libdw's rows does, which for a unit of hundreds of thousands of
     * rows is most of a lookup's time. */
    bool lines_loaded;
    Dwarf_Lines *lines;
    size_t line_count;
    uint64_t line_base;        /* the first row's address (rows are sorted by address) */
    uint32_t *line_offsets;    /* NULL: lookups go through dwarf_getsrc_die */
} sym_cu;

typedef struct sym_load {
    uint64_t offset, vaddr, filesz, memsz;
    bool exec;
} sym_load;

typedef enum sym_state {
    SYM_OK = 0,
    SYM_NOT_FOUND,
    SYM_NOT_ELF,
    SYM_BUILD_ID_DIFFERS,
    SYM_NO_SEGMENT,
    SYM_NO_JIT_MAP
} sym_state;

typedef struct sym_binary {
    char *path;
    sym_state state;
    Dwfl *dwfl;
    Dwfl_Module *module;
    GElf_Addr module_bias; /* module address = ELF virtual address + module_bias */
    char *build_id;        /* lower-case hex, NULL when the file has none */
    sym_load *loads;
    size_t load_count;
    bool cus_listed;
    Dwarf *dwarf;
    Dwarf_Addr dwarf_bias; /* DWARF address = module address - dwarf_bias */
    sym_cu *cus;
    size_t cu_count, cu_cap;
    sym_range *cu_ranges; /* sorted by low */
    size_t cu_range_count, cu_range_cap;
} sym_binary;

/* What the symbolizer knows about one resource of the profile. */
/* A JIT symbol map (perf-PID.map), read once. */
typedef struct sym_jit {
    char *path;
    pk_perf_map *map; /* NULL when it could not be read */
} sym_jit;

typedef struct sym_resource {
    bool prepared;
    sym_binary *binary; /* NULL when no usable binary */
    const pk_perf_map *jit; /* the JIT map naming its addresses, NULL for none */
    uint64_t bias;      /* ELF virtual address = address - bias */
    uint32_t problem;   /* PK_NONE when none */
    pk_u64map addresses; /* address -> chain */
    pk_u64map by_die;    /* DIE offset (+ its unit's key_base) -> function */
    pk_u64map by_symbol; /* symbol value -> function */
} sym_resource;

typedef struct sym_problem {
    char *file;
    sym_state state;
    uint64_t addresses;
} sym_problem;

typedef struct sym_chain {
    const uint32_t *frames;
    uint32_t count;
} sym_chain;

struct pk_symbolizer {
    pk_profile *dst;
    char **search_dirs;
    size_t search_count, search_cap;
    char **debug_dirs;
    size_t debug_count;
    char *debuginfo_path;
    Dwfl_Callbacks callbacks;
    sym_binary **binaries;
    size_t binary_count, binary_cap;
    sym_jit *jits;
    size_t jit_count, jit_cap;
    sym_resource *resources; /* indexed by resource */
    size_t resource_count;
    sym_resource outside; /* addresses in no mapping */
    sym_problem *problems;
    size_t problem_count, problem_cap;
    sym_chain *chains;
    size_t chain_count, chain_cap;
    uint32_t **blocks;
    size_t block_count, block_cap;
    size_t block_used;
    size_t lookups, resolved;
    pk_debuginfod *debuginfod; /* made at the first binary not found, when servers are named */
    bool debuginfod_tried;
};

/* ---- binaries ---------------------------------------------------------------------------------- */

static void sym_cu_free(sym_cu *cu)
{
    free(cu->scopes);
    free(cu->functions);
    free(cu->inlined);
    free(cu->line_offsets);
}

static void sym_binary_free(sym_binary *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->cu_count; i++)
        sym_cu_free(&b->cus[i]);
    free(b->cus);
    free(b->cu_ranges);
    free(b->loads);
    free(b->build_id);
    if (b->dwfl)
        dwfl_end(b->dwfl);
    free(b->path);
    free(b);
}

static bool sym_binary_read_loads(sym_binary *b, Elf *elf)
{
    size_t count;
    if (elf_getphdrnum(elf, &count) != 0)
        return false;
    size_t cap = 0;
    for (size_t i = 0; i < count; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (!PK_ARRAY_RESERVE(b->loads, cap, b->load_count + 1))
            return false;
        b->loads[b->load_count++] = (sym_load){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz,
                                               (ph.p_flags & PF_X) != 0};
    }
    return true;
}

/* Opens path once; later calls return the same entry (which may be unusable). */
static sym_binary *sym_binary_open(pk_symbolizer *s, const char *path)
{
    for (size_t i = 0; i < s->binary_count; i++)
        if (strcmp(s->binaries[i]->path, path) == 0)
            return s->binaries[i];
    if (!PK_ARRAY_RESERVE(s->binaries, s->binary_cap, s->binary_count + 1))
        return NULL;
    sym_binary *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->path = strdup(path);
    if (!b->path) {
        free(b);
        return NULL;
    }
    s->binaries[s->binary_count++] = b;

    b->state = SYM_NOT_FOUND;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return b;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return b;
    }
    b->state = SYM_NOT_ELF;
    b->dwfl = dwfl_begin(&s->callbacks);
    if (!b->dwfl) {
        close(fd);
        return b;
    }
    dwfl_report_begin(b->dwfl);
    b->module = dwfl_report_elf(b->dwfl, sym_basename(path), path, fd, 0, true);
    if (!b->module) {
        close(fd);
        return b;
    }
    dwfl_report_end(b->dwfl, NULL, NULL);
    Elf *elf = dwfl_module_getelf(b->module, &b->module_bias);
    if (!elf || !sym_binary_read_loads(b, elf))
        return b;
    const unsigned char *bits;
    GElf_Addr id_vaddr;
    int id_len = dwfl_module_build_id(b->module, &bits, &id_vaddr);
    if (id_len > 0) {
        b->build_id = malloc((size_t)id_len * 2 + 1);
        if (b->build_id)
            for (int i = 0; i < id_len; i++)
                snprintf(b->build_id + 2 * i, 3, "%02x", bits[i]);
    }
    b->state = SYM_OK;
    return b;
}

/* The bias of a mapping [start, limit) at file offset `offset` onto the binary: the loadable
 * segment (executable preferred) whose file range the mapping starts in. */
static bool sym_mapping_bias(const sym_binary *b, const pk_resource *r, uint64_t *bias)
{
    if (r->start == 0 && r->limit == 0) {
        *bias = 0;
        return true;
    }
    uint64_t highest_end = 0;
    for (size_t i = 0; i < b->load_count; i++)
        if (b->loads[i].vaddr + b->loads[i].memsz > highest_end)
            highest_end = b->loads[i].vaddr + b->loads[i].memsz;
    /* Executable segments first; then a mapping that starts where another segment does (the
     * whole file mapped from offset 0, as some pprof producers record it). */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < b->load_count; i++) {
            const sym_load *l = &b->loads[i];
            if (pass == 0 && !l->exec)
                continue;
            /* The mapping starts at the segment's offset rounded down to a page (4, 16 or
             * 64 KiB), or inside the segment. */
            bool starts_here = false;
            if (r->offset <= l->offset) {
                for (uint64_t page = 0x1000; page <= SYM_MAX_PAGE && !starts_here; page <<= 2)
                    starts_here = r->offset % page == 0 && l->offset - r->offset < page;
            } else if (pass == 0) {
                starts_here = r->offset - l->offset < (l->filesz ? l->filesz : 1);
            }
            if (!starts_here)
                continue;
            uint64_t vaddr_at_start = l->vaddr - l->offset + r->offset;
            /* A mapping longer than the whole image is another file's. */
            if (r->limit > r->start &&
                r->limit - r->start > highest_end - vaddr_at_start + SYM_MAX_PAGE)
                continue;
            *bias = r->start - vaddr_at_start;
            return true;
        }
    }
    return false;
}

/* ---- the index of a CU ------------------------------------------------------------------------ */

static bool sym_cu_add_range(sym_range **items, size_t *count, size_t *cap, uint64_t low,
                             uint64_t high, uint32_t scope)
{
    if (!pk_array_reserve((void **)items, cap, sizeof **items, *count + 1))
        return false;
    (*items)[(*count)++] = (sym_range){low, high, scope};
    return true;
}

static bool sym_cu_walk(sym_cu *cu, Dwarf_Die *parent, uint32_t scope, unsigned level)
{
    if (level > SYM_MAX_DIE_DEPTH)
        return true;
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0)
        return true;
    do {
        int tag = dwarf_tag(&child);
        switch (tag) {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine: {
            bool function = tag == DW_TAG_subprogram || scope == PK_NONE;
            if (!PK_ARRAY_RESERVE(cu->scopes, cu->scope_cap, cu->scope_count + 1))
                return false;
            uint32_t id = (uint32_t)cu->scope_count;
            cu->scopes[id] = (sym_scope){dwarf_dieoffset(&child), function ? PK_NONE : scope,
                                         function ? 0 : cu->scopes[scope].depth + 1,
                                         (uint32_t)cu->inlined_count, (uint32_t)cu->inlined_count};
            bool has_code = false;
            Dwarf_Addr base, low, high;
            ptrdiff_t offset = 0;
            while ((offset = dwarf_ranges(&child, offset, &base, &low, &high)) > 0) {
                if (high <= low)
                    continue;
                has_code = true;
                bool ok = function ? sym_cu_add_range(&cu->functions, &cu->function_count,
                                                      &cu->function_cap, low, high, id)
                                   : sym_cu_add_range(&cu->inlined, &cu->inlined_count,
                                                      &cu->inlined_cap, low, high, id);
                if (!ok)
                    return false;
            }
            if (!has_code) {
                /* Declarations and abstract instances: no code, nothing inside to find. */
                cu->scope_count = id;
                break;
            }
            cu->scope_count = id + 1u;
            if (dwarf_haschildren(&child) && !sym_cu_walk(cu, &child, id, level + 1))
                return false;
            if (function)
                cu->scopes[id].inl_end = (uint32_t)cu->inlined_count;
            break;
        }
        case DW_TAG_lexical_block:
        case DW_TAG_namespace:
        case DW_TAG_module:
        case DW_TAG_try_block:
        case DW_TAG_catch_block:
            if (dwarf_haschildren(&child) && !sym_cu_walk(cu, &child, scope, level + 1))
                return false;
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return true;
}

static int sym_range_cmp(const void *a, const void *b)
{
    const sym_range *x = a, *y = b;
    if (x->low != y->low)
        return x->low < y->low ? -1 : 1;
    /* Enclosing ranges before the ones they contain. */
    if (x->high != y->high)
        return x->high > y->high ? -1 : 1;
    return 0;
}

static bool sym_cu_index(sym_cu *cu)
{
    if (cu->indexed)
        return true;
    cu->indexed = true;
    if (!sym_cu_walk(cu, &cu->code, PK_NONE, 0))
        return false;
    if (cu->function_count > 1)
        qsort(cu->functions, cu->function_count, sizeof *cu->functions, sym_range_cmp);
    return true;
}

/* Fills offsets (one per row of the unit's line table) with the rows' addresses from the first
 * row's; false for a unit spanning 4 GiB or more, or with rows out of order, which libdw's own
 * search then serves. */
static bool sym_cu_line_offsets(sym_cu *cu, uint32_t *offsets)
{
    for (size_t i = 0; i < cu->line_count; i++) {
        Dwarf_Line *line = dwarf_onesrcline(cu->lines, i);
        Dwarf_Addr a;
        if (!line || dwarf_lineaddr(line, &a) != 0)
            return false;
        if (i == 0)
            cu->line_base = a;
        if (a < cu->line_base || a - cu->line_base > UINT32_MAX ||
            (i > 0 && a - cu->line_base < offsets[i - 1]))
            return false;
        offsets[i] = (uint32_t)(a - cu->line_base);
    }
    return true;
}

/* The line row of address in the unit, as dwarf_getsrc_die finds it: the last row at or below
 * the address (the last of several at the same address), unless that row ends a sequence;
 * NULL when none. */
static Dwarf_Line *sym_cu_line(sym_cu *cu, Dwarf_Addr address)
{
    if (!cu->lines_loaded) {
        cu->lines_loaded = true;
        uint32_t *offsets = NULL;
        if (dwarf_getsrclines(&cu->die, &cu->lines, &cu->line_count) == 0 && cu->line_count > 0)
            offsets = malloc(cu->line_count * sizeof *offsets);
        if (offsets && !sym_cu_line_offsets(cu, offsets)) {
            free(offsets);
            offsets = NULL;
        }
        cu->line_offsets = offsets;
    }
    if (!cu->line_offsets)
        return dwarf_getsrc_die(&cu->die, address);
    if (address < cu->line_base)
        return NULL; /* below the first row, where dwarf_getsrc_die finds none either */
    uint64_t offset = address - cu->line_base;
    const uint32_t *at = cu->line_offsets;
    size_t lo = 0, hi = cu->line_count - 1;
    while (lo < hi) {
        size_t mid = hi - (hi - lo) / 2;
        if (offset < at[mid])
            hi = mid - 1;
        else
            lo = mid;
    }
    Dwarf_Line *line = dwarf_onesrcline(cu->lines, lo);
    bool ends_sequence;
    if (!line || dwarf_lineendsequence(line, &ends_sequence) != 0 || ends_sequence)
        return NULL;
    return line;
}

/* Fills scopes[] outermost first with the function containing address and the instances
 * inlined into it there; returns how many (0 when no function contains it). */
static size_t sym_cu_lookup(const sym_cu *cu, uint64_t address, uint32_t *scopes)
{
    size_t lo = 0, hi = cu->function_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cu->functions[mid].low <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t function = PK_NONE;
    /* Nested functions start inside their parent; the latest start that contains the address
     * is the innermost. A few steps back cover overlaps. */
    for (size_t i = lo, steps = 0; i-- > 0 && steps < 16; steps++) {
        if (address < cu->functions[i].high) {
            function = cu->functions[i].scope;
            break;
        }
    }
    if (function == PK_NONE)
        return 0;
    const sym_scope *f = &cu->scopes[function];
    uint32_t innermost = function, innermost_depth = 0;
    for (uint32_t i = f->inl_begin; i < f->inl_end; i++) {
        const sym_range *r = &cu->inlined[i];
        if (r->low <= address && address < r->high && cu->scopes[r->scope].depth > innermost_depth) {
            innermost = r->scope;
            innermost_depth = cu->scopes[r->scope].depth;
        }
    }
    uint32_t chain[SYM_MAX_DIE_DEPTH + 1];
    size_t n = 0;
    /* innermost is a scope, so the chain holds at least it. */
    uint32_t at = innermost;
    do {
        chain[n++] = at;
        at = cu->scopes[at].parent;
    } while (at != PK_NONE && n < SYM_MAX_DIE_DEPTH + 1);
    /* chain is innermost first; keep the outermost and the innermost SYM_MAX_CHAIN - 1. */
    size_t keep = n <= SYM_MAX_CHAIN ? n : SYM_MAX_CHAIN;
    size_t out = 0;
    scopes[out++] = chain[n - 1];
    for (size_t i = keep - 1; i-- > 0;)
        scopes[out++] = chain[i];
    return out;
}

/* The table of CU ranges of a binary, built on first use. */
static bool sym_binary_list_cus(sym_binary *b)
{
    if (b->cus_listed)
        return true;
    b->cus_listed = true;
    b->dwarf = dwfl_module_getdwarf(b->module, &b->dwarf_bias);
    if (!b->dwarf)
        return true;
    Dwarf_Addr bias;
    Dwarf_Die *cu = NULL;
    while ((cu = dwfl_module_nextcu(b->module, cu, &bias)) != NULL) {
        int tag = dwarf_tag(cu);
        if (tag != DW_TAG_compile_unit && tag != DW_TAG_skeleton_unit)
            continue;
        uint32_t index = (uint32_t)b->cu_count;
        bool any = false;
        Dwarf_Addr base, low, high;
        ptrdiff_t offset = 0;
        while ((offset = dwarf_ranges(cu, offset, &base, &low, &high)) > 0) {
            if (high <= low)
                continue;
            if (!sym_cu_add_range(&b->cu_ranges, &b->cu_range_count, &b->cu_range_cap, low, high,
                                  index))
                return false;
            any = true;
        }
        if (!any)
            continue;
        if (!PK_ARRAY_RESERVE(b->cus, b->cu_cap, b->cu_count + 1))
            return false;
        sym_cu *added = &b->cus[b->cu_count++];
        *added = (sym_cu){.die = *cu, .code = *cu, .dwarf = b->dwarf};
        /* A skeleton (DWARF 5, or GNU's DWARF 4 form) whose split unit libdw found; without
         * it, only the line table and the symbols name the unit's code. */
        uint8_t unit_type;
        Dwarf_Die split;
        if (dwarf_cu_info(cu->cu, NULL, &unit_type, NULL, &split, NULL, NULL, NULL) == 0 &&
            unit_type == DW_UT_skeleton && split.cu) {
            added->code = split;
            added->dwarf = dwarf_cu_getdwarf(split.cu);
            added->key_base = (uint64_t)(index + 1) << SYM_SPLIT_KEY_SHIFT;
        }
    }
    if (b->cu_range_count > 1)
        qsort(b->cu_ranges, b->cu_range_count, sizeof *b->cu_ranges, sym_range_cmp);
    return true;
}

static sym_cu *sym_binary_find_cu(sym_binary *b, uint64_t dwarf_address)
{
    size_t lo = 0, hi = b->cu_range_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->cu_ranges[mid].low <= dwarf_address)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, steps = 0; i-- > 0 && steps < 16; steps++)
        if (dwarf_address < b->cu_ranges[i].high)
            return &b->cus[b->cu_ranges[i].scope];
    return NULL;
}

/* ---- names ---------------------------------------------------------------------------------- */

static uint32_t sym_intern_name(pk_profile *p, const char *name)
{
    if (name[0] == '_' && name[1] == 'Z') {
        char *demangled = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
        if (demangled) {
            uint32_t id = pk_intern_cstr(p, demangled);
            free(demangled);
            return id;
        }
    }
    return pk_intern_cstr(p, name);
}

static const char *sym_die_string(Dwarf_Die *die, unsigned attribute)
{
    Dwarf_Attribute attr;
    if (!dwarf_attr_integrate(die, attribute, &attr))
        return NULL;
    return dwarf_formstring(&attr);
}

static uint32_t sym_die_call_line(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word line;
    if (!dwarf_attr(die, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &line) != 0)
        return 0;
    return line > UINT32_MAX ? 0 : (uint32_t)line;
}

/* ---- resources -------------------------------------------------------------------------------- */

static void sym_resource_free(sym_resource *r)
{
    pk_u64map_free(&r->addresses);
    pk_u64map_free(&r->by_die);
    pk_u64map_free(&r->by_symbol);
}

static sym_resource *sym_resource_get(pk_symbolizer *s, uint32_t resource)
{
    if (resource == PK_NONE || resource >= pk_resource_count(s->dst))
        return &s->outside;
    if (resource >= s->resource_count) {
        size_t count = pk_resource_count(s->dst);
        sym_resource *grown = realloc(s->resources, count * sizeof *grown);
        if (!grown)
            return NULL;
        for (size_t i = s->resource_count; i < count; i++) {
            memset(&grown[i], 0, sizeof grown[i]);
            grown[i].problem = PK_NONE;
            pk_u64map_init(&grown[i].addresses);
            pk_u64map_init(&grown[i].by_die);
            pk_u64map_init(&grown[i].by_symbol);
        }
        s->resources = grown;
        s->resource_count = count;
    }
    return &s->resources[resource];
}

static uint32_t sym_problem_note(pk_symbolizer *s, const char *file, sym_state state)
{
    for (size_t i = 0; i < s->problem_count; i++)
        if (strcmp(s->problems[i].file, file) == 0)
            return (uint32_t)i;
    if (!PK_ARRAY_RESERVE(s->problems, s->problem_cap, s->problem_count + 1))
        return PK_NONE;
    char *copy = strdup(file);
    if (!copy)
        return PK_NONE;
    s->problems[s->problem_count] = (sym_problem){copy, state, 0};
    return (uint32_t)s->problem_count++;
}

/* Tries one candidate file for resource r; true when it is usable. *worst keeps the most
 * telling reason a candidate was rejected. */
static bool sym_try_candidate(pk_symbolizer *s, sym_resource *r, const pk_resource *pr,
                              const char *path, sym_state *worst)
{
    if (!path)
        return false;
    sym_binary *b = sym_binary_open(s, path);
    if (!b)
        return false;
    sym_state state = b->state;
    uint64_t bias = 0;
    if (state == SYM_OK) {
        const char *want = pk_str(s->dst, pr->build_id);
        if (*want && b->build_id && strcasecmp(want, b->build_id) != 0)
            state = SYM_BUILD_ID_DIFFERS;
        else if (!sym_mapping_bias(b, pr, &bias))
            state = SYM_NO_SEGMENT;
    }
    if (state == SYM_OK) {
        r->binary = b;
        r->bias = bias;
        return true;
    }
    if (state > *worst)
        *worst = state;
    return false;
}

static bool sym_try_build_id(pk_symbolizer *s, sym_resource *r, const pk_resource *pr,
                             const char *dir, const char *build_id, sym_state *worst)
{
    char rel[300];
    int n = snprintf(rel, sizeof rel, ".build-id/%.2s/%s", build_id, build_id + 2);
    if (n < 0 || (size_t)n >= sizeof rel - 8)
        return false;
    char *path = sym_join(dir, rel);
    bool ok = sym_try_candidate(s, r, pr, path, worst);
    free(path);
    if (ok)
        return true;
    memcpy(rel + n, ".debug", 7);
    path = sym_join(dir, rel);
    ok = sym_try_candidate(s, r, pr, path, worst);
    free(path);
    if (ok)
        return true;
    /* perf's cache (~/.debug): the build id names a directory holding the binary as `elf`. */
    memcpy(rel + n, "/elf", 5);
    path = sym_join(dir, rel);
    ok = sym_try_candidate(s, r, pr, path, worst);
    free(path);
    return ok;
}

/* The JIT map at path, read once; NULL when it cannot be read (or memory runs out). */
static const pk_perf_map *sym_jit_open(pk_symbolizer *s, const char *path)
{
    if (!path)
        return NULL;
    for (size_t i = 0; i < s->jit_count; i++)
        if (strcmp(s->jits[i].path, path) == 0)
            return s->jits[i].map;
    if (!PK_ARRAY_RESERVE(s->jits, s->jit_cap, s->jit_count + 1))
        return NULL;
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    s->jits[s->jit_count++] = (sym_jit){copy, pk_perf_map_read(path)};
    return s->jits[s->jit_count - 1].map;
}

/* A JIT map (perf-PID.map) for r: under each search directory (by base name, then by the whole
 * path), then at its path, as perf looks in /tmp. */
static void sym_jit_prepare(pk_symbolizer *s, sym_resource *r, const char *path)
{
    for (size_t i = 0; i < s->search_count && !r->jit; i++) {
        char *candidate = sym_join(s->search_dirs[i], sym_basename(path));
        r->jit = sym_jit_open(s, candidate);
        free(candidate);
        if (!r->jit) {
            candidate = sym_join(s->search_dirs[i], path);
            r->jit = sym_jit_open(s, candidate);
            free(candidate);
        }
    }
    if (!r->jit)
        r->jit = sym_jit_open(s, path);
    if (!r->jit)
        r->problem = sym_problem_note(s, path, SYM_NO_JIT_MAP);
}

/* Finds the binary (or the JIT map) of resource pr (whose strings are dst's) for r. */
static void sym_resource_prepare(pk_symbolizer *s, const pk_resource *pr, sym_resource *r)
{
    r->prepared = true;
    if (r == &s->outside)
        return;
    const char *path = pk_str(s->dst, pr->path);
    if (!*path)
        path = pk_str(s->dst, pr->name);
    if (pk_perf_map_is_name(sym_basename(path))) {
        sym_jit_prepare(s, r, path);
        return;
    }
    const char *build_id = pk_str(s->dst, pr->build_id);
    bool id_usable = strlen(build_id) > 2 && strlen(build_id) < 256 && sym_is_hex(build_id);
    if ((!*path || path[0] == '[') && !id_usable)
        return; /* [vdso], [stack], anonymous memory: no file to read */
    if (path[0] == '[')
        path = "";

    sym_state worst = SYM_NOT_FOUND;
    for (size_t i = 0; i < s->search_count; i++) {
        const char *dir = s->search_dirs[i];
        if (*path) {
            char *candidate = sym_join(dir, sym_basename(path));
            bool ok = sym_try_candidate(s, r, pr, candidate, &worst);
            free(candidate);
            if (ok)
                return;
            if (strchr(path, '/')) {
                candidate = sym_join(dir, path);
                ok = sym_try_candidate(s, r, pr, candidate, &worst);
                free(candidate);
                if (ok)
                    return;
            }
        }
        if (id_usable && sym_try_build_id(s, r, pr, dir, build_id, &worst))
            return;
    }
    if (*path && sym_try_candidate(s, r, pr, path, &worst))
        return;
    if (id_usable)
        for (size_t i = 0; i < s->debug_count; i++)
            if (sym_try_build_id(s, r, pr, s->debug_dirs[i], build_id, &worst))
                return;
    /* Last, the debuginfod servers the environment names: nothing on the machine is it. */
    if (id_usable && !s->debuginfod_tried) {
        s->debuginfod_tried = true;
        s->debuginfod = pk_debuginfod_new();
    }
    if (id_usable && s->debuginfod) {
        char *fetched = pk_debuginfod_executable(s->debuginfod, build_id);
        bool ok = sym_try_candidate(s, r, pr, fetched, &worst);
        free(fetched);
        if (ok)
            return;
    }
    r->problem = sym_problem_note(s, *path ? path : build_id, worst);
}

/* ---- chains ---------------------------------------------------------------------------------- */

static bool sym_chain_store(pk_symbolizer *s, const uint32_t *frames, size_t count,
                            uint32_t *index)
{
    if (!s->block_count || s->block_used + count > SYM_BLOCK_FRAMES) {
        if (!PK_ARRAY_RESERVE(s->blocks, s->block_cap, s->block_count + 1))
            return false;
        uint32_t *block = malloc(SYM_BLOCK_FRAMES * sizeof *block);
        if (!block)
            return false;
        s->blocks[s->block_count++] = block;
        s->block_used = 0;
    }
    if (!PK_ARRAY_RESERVE(s->chains, s->chain_cap, s->chain_count + 1))
        return false;
    uint32_t *stored = s->blocks[s->block_count - 1] + s->block_used;
    memcpy(stored, frames, count * sizeof *frames);
    s->block_used += count;
    s->chains[s->chain_count] = (sym_chain){stored, (uint32_t)count};
    *index = (uint32_t)s->chain_count++;
    return true;
}

static size_t sym_placeholder(pk_symbolizer *s, uint32_t resource, uint64_t address,
                              uint32_t *frames)
{
    uint32_t name = pk_address_name(s->dst, address);
    if (name == PK_NONE)
        return 0;
    pk_function fn = {.name = name, .resource = resource};
    uint32_t function = pk_intern_function(s->dst, &fn);
    if (function == PK_NONE)
        return 0;
    pk_frame frame = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
    frames[0] = pk_intern_frame(s->dst, &frame);
    return frames[0] == PK_NONE ? 0 : 1;
}

/* The file a DIE is declared in (DW_AT_decl_file, its own or its origin's), from the file
 * table of the unit the attribute is in; NULL when unknown. This is what dwarf_decl_file
 * does, which libdw 0.188 cannot do for split units (it asserts). */
static const char *sym_decl_file(Dwarf_Die *die, Dwarf_Die *unit)
{
    Dwarf_Attribute attr;
    Dwarf_Word index;
    Dwarf_Files *files;
    size_t count;
    if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr) || dwarf_formudata(&attr, &index) != 0 ||
        !attr.cu || !dwarf_cu_die(attr.cu, unit, NULL, NULL, NULL, NULL, NULL, NULL) ||
        dwarf_getsrcfiles(unit, &files, &count) != 0 || index >= count)
        return NULL;
    return dwarf_filesrc(files, index, NULL, NULL);
}

/* Interns a source file as unit's DWARF names it, made absolute against the unit's
 * compilation directory: compilers name a file as they were given it (`gcc -c foo.c` in the
 * source folder), and only the whole path names one file on the machine, which the source view
 * reads and debuginfod servers know. PK_NONE when memory runs out. */
static uint32_t sym_intern_path(pk_profile *p, Dwarf_Die *unit, const char *file)
{
    const char *dir = file[0] == '/' || !unit ? NULL : sym_die_string(unit, DW_AT_comp_dir);
    if (!dir || dir[0] != '/')
        return pk_intern_cstr(p, file);
    char *joined = sym_join(dir, file);
    uint32_t interned = joined ? pk_intern_cstr(p, joined) : PK_NONE;
    free(joined);
    return interned;
}

/* The file of a DIE declared in its CU's primary source file: DWARF 5 numbers that file 0,
 * which some libdw versions do not resolve (clang emits it). NULL otherwise; malloc'ed. The
 * file does not depend on which address of the function was looked up first. */
static char *sym_primary_file(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word index;
    if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr) || dwarf_formudata(&attr, &index) != 0 ||
        index != 0)
        return NULL;
    Dwarf_Die cu;
    Dwarf_Half version;
    if (!die->cu || !dwarf_cu_die(die->cu, &cu, &version, NULL, NULL, NULL, NULL, NULL) ||
        version < 5)
        return NULL;
    const char *name = dwarf_diename(&cu);
    if (!name)
        return NULL;
    const char *dir = sym_die_string(&cu, DW_AT_comp_dir);
    if (name[0] == '/' || !dir)
        return strdup(name);
    return sym_join(dir, name);
}

/* The function of a DIE of cu. */
static uint32_t sym_function_from_die(pk_symbolizer *s, sym_resource *r, uint32_t resource,
                                      sym_cu *cu, Dwarf_Die *die, const char *fallback_file)
{
    uint64_t key = cu->key_base + dwarf_dieoffset(die);
    uint32_t *known = pk_u64map_find(&r->by_die, key);
    if (known)
        return *known;
    /* A mangled linkage name demangles to the qualified name with parameters; a C one is
     * often an internal alias (glibc's __GI___qsort_r for qsort_r): the source name is better. */
    const char *name = sym_die_string(die, DW_AT_linkage_name);
    if (!name)
        name = sym_die_string(die, DW_AT_MIPS_linkage_name);
    if (!name || name[0] != '_' || name[1] != 'Z') {
        const char *plain = sym_die_string(die, DW_AT_name);
        if (plain)
            name = plain;
    }
    pk_function fn = {.resource = resource};
    fn.name = name ? sym_intern_name(s->dst, name) : pk_intern_cstr(s->dst, "??");
    Dwarf_Die decl_unit;
    const char *file = sym_decl_file(die, &decl_unit);
    Dwarf_Die *unit = &decl_unit;
    char *primary = file ? NULL : sym_primary_file(die);
    if (primary)
        file = primary;
    if (!file) {
        file = fallback_file;
        unit = &cu->die;
    }
    if (file)
        fn.file = sym_intern_path(s->dst, unit, file);
    free(primary);
    int line;
    if (dwarf_decl_line(die, &line) == 0 && line > 0)
        fn.start_line = (uint32_t)line;
    if (fn.name == PK_NONE || fn.file == PK_NONE)
        return PK_NONE;
    uint32_t function = pk_intern_function(s->dst, &fn);
    uint32_t *slot;
    bool inserted;
    if (function != PK_NONE && !pk_u64map_put(&r->by_die, key, function, &slot, &inserted))
        return PK_NONE;
    return function;
}

/* The frame of an address a JIT map names; 0 when it names none. */
static size_t sym_resolve_jit(pk_symbolizer *s, sym_resource *r, uint32_t resource,
                              uint64_t address, uint32_t *frames, bool *failed)
{
    size_t len;
    const char *name = pk_perf_map_find(r->jit, address, &len);
    if (!name)
        return 0;
    pk_function fn = {.name = pk_intern(s->dst, name, len), .resource = resource};
    uint32_t function = fn.name == PK_NONE ? PK_NONE : pk_intern_function(s->dst, &fn);
    pk_frame frame = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
    frames[0] = function == PK_NONE ? PK_NONE : pk_intern_frame(s->dst, &frame);
    if (frames[0] == PK_NONE) {
        *failed = true;
        return 0;
    }
    return 1;
}

/* The chain of frames for an address of a usable binary; 0 when nothing names it. */
static size_t sym_resolve(pk_symbolizer *s, sym_resource *r, uint32_t resource, uint64_t address,
                          uint32_t *frames, bool *failed)
{
    sym_binary *b = r->binary;
    uint64_t module_address = address - r->bias + b->module_bias;
    if (!sym_binary_list_cus(b)) {
        *failed = true;
        return 0;
    }
    sym_cu *cu = NULL;
    Dwarf_Addr dwarf_address = module_address - b->dwarf_bias;
    if (b->dwarf)
        cu = sym_binary_find_cu(b, dwarf_address);
    Dwarf_Line *line = NULL;
    const char *line_file = NULL;
    int line_number = 0;
    if (cu) {
        if (!sym_cu_index(cu)) {
            *failed = true;
            return 0;
        }
        line = sym_cu_line(cu, dwarf_address);
        if (line) {
            line_file = dwarf_linesrc(line, NULL, NULL);
            if (dwarf_lineno(line, &line_number) != 0 || line_number < 0)
                line_number = 0;
        }
        uint32_t scopes[SYM_MAX_CHAIN];
        size_t n = sym_cu_lookup(cu, dwarf_address, scopes);
        if (n > 0) {
            Dwarf_Die dies[SYM_MAX_CHAIN];
            for (size_t i = 0; i < n; i++)
                if (!dwarf_offdie(cu->dwarf, cu->scopes[scopes[i]].die, &dies[i]))
                    return 0;
            for (size_t i = 0; i < n; i++) {
                uint32_t function =
                    sym_function_from_die(s, r, resource, cu, &dies[i],
                                          i + 1 == n ? line_file : NULL);
                if (function == PK_NONE) {
                    *failed = true;
                    return 0;
                }
                pk_frame frame = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
                if (i + 1 < n)
                    frame.line = sym_die_call_line(&dies[i + 1]);
                else
                    frame.line = (uint32_t)line_number;
                if (i > 0)
                    frame.flags |= PK_FRAME_INLINED;
                frames[i] = pk_intern_frame(s->dst, &frame);
                if (frames[i] == PK_NONE) {
                    *failed = true;
                    return 0;
                }
            }
            return n;
        }
    }
    /* No debug information for it: the symbol table. */
    GElf_Off offset;
    GElf_Sym sym;
    const char *name =
        dwfl_module_addrinfo(b->module, module_address, &offset, &sym, NULL, NULL, NULL);
    if (!name || !*name)
        return 0;
    uint32_t *known = pk_u64map_find(&r->by_symbol, sym.st_value);
    uint32_t function;
    if (known) {
        function = *known;
    } else {
        pk_function fn = {.name = sym_intern_name(s->dst, name), .resource = resource};
        if (line_file)
            fn.file = sym_intern_path(s->dst, &cu->die, line_file);
        function = fn.name == PK_NONE || fn.file == PK_NONE ? PK_NONE
                                                             : pk_intern_function(s->dst, &fn);
        uint32_t *slot;
        bool inserted;
        if (function == PK_NONE ||
            !pk_u64map_put(&r->by_symbol, sym.st_value, function, &slot, &inserted)) {
            *failed = true;
            return 0;
        }
    }
    pk_frame frame = {function, (uint32_t)line_number, address, resource, PK_FRAME_HAS_ADDRESS};
    frames[0] = pk_intern_frame(s->dst, &frame);
    if (frames[0] == PK_NONE) {
        *failed = true;
        return 0;
    }
    return 1;
}

size_t pk_symbolizer_frames(pk_symbolizer *s, uint32_t resource, uint64_t address,
                            const uint32_t **frames)
{
    sym_resource *r = sym_resource_get(s, resource);
    if (!r)
        return 0;
    if (r == &s->outside)
        resource = PK_NONE;
    uint32_t *known = pk_u64map_find(&r->addresses, address);
    if (known) {
        *frames = s->chains[*known].frames;
        return s->chains[*known].count;
    }
    if (!r->prepared)
        sym_resource_prepare(s, r == &s->outside ? NULL : pk_resource_at(s->dst, resource), r);
    s->lookups++;
    uint32_t chain[SYM_MAX_CHAIN];
    size_t n = 0;
    bool failed = false;
    if (r->binary)
        n = sym_resolve(s, r, resource, address, chain, &failed);
    else if (r->jit)
        n = sym_resolve_jit(s, r, resource, address, chain, &failed);
    if (failed)
        return 0;
    if (n > 0) {
        s->resolved++;
    } else {
        if (r->problem != PK_NONE)
            s->problems[r->problem].addresses++;
        n = sym_placeholder(s, resource, address, chain);
        if (n == 0)
            return 0;
    }
    uint32_t index, *slot;
    bool inserted;
    if (!sym_chain_store(s, chain, n, &index) ||
        !pk_u64map_put(&r->addresses, address, index, &slot, &inserted))
        return 0;
    *frames = s->chains[index].frames;
    return n;
}

bool pk_symbolizer_code_at(pk_symbolizer *s, uint32_t resource, uint64_t address,
                           pk_symbolizer_code *code)
{
    memset(code, 0, sizeof *code);
    sym_resource *r = sym_resource_get(s, resource);
    if (!r || r == &s->outside)
        return false;
    if (!r->prepared)
        sym_resource_prepare(s, pk_resource_at(s->dst, resource), r);
    sym_binary *b = r->binary;
    if (!b)
        return false;
    code->binary = b->path;
    uint64_t vaddr = address - r->bias;
    /* The file offset from the segment holding the address: a segment's p_vaddr and p_offset
     * differ (by a page or more with lld, or in a non-PIE executable), so a virtual address is
     * not a file offset. */
    for (size_t i = 0; i < b->load_count; i++) {
        const sym_load *l = &b->loads[i];
        if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
            code->has_file_offset = true;
            code->file_offset = vaddr - l->vaddr + l->offset;
            break;
        }
    }
    GElf_Off offset;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(b->module, vaddr + b->module_bias, &offset, &sym,
                                            NULL, NULL, NULL);
    if (name && *name) {
        code->symbol = name;
        code->symbol_start = address - offset;
        code->symbol_size = sym.st_size;
    }
    return true;
}

size_t pk_symbolizer_lookups(const pk_symbolizer *s)
{
    return s->lookups;
}

size_t pk_symbolizer_resolved(const pk_symbolizer *s)
{
    return s->resolved;
}

/* ---- lifetime ---------------------------------------------------------------------------------- */

static bool sym_push_dir(char ***dirs, size_t *count, size_t *cap, const char *dir)
{
    if (!pk_array_reserve((void **)dirs, cap, sizeof **dirs, *count + 1))
        return false;
    char *copy = realpath(dir, NULL);
    if (!copy)
        copy = strdup(dir);
    if (!copy)
        return false;
    (*dirs)[(*count)++] = copy;
    return true;
}

/* The path elfutils searches for separate debug files: next to the binary, in .debug/, in the
 * debug directories and in the search directories. */
static bool sym_update_debuginfo_path(pk_symbolizer *s)
{
    size_t len = strlen(":.debug") + 1;
    for (size_t i = 0; i < s->debug_count; i++)
        len += strlen(s->debug_dirs[i]) + 1;
    for (size_t i = 0; i < s->search_count; i++)
        len += strlen(s->search_dirs[i]) + 1;
    char *path = malloc(len);
    if (!path)
        return false;
    char *at = path;
    at += sprintf(at, ":.debug");
    for (size_t i = 0; i < s->search_count; i++)
        at += sprintf(at, ":%s", s->search_dirs[i]);
    for (size_t i = 0; i < s->debug_count; i++)
        at += sprintf(at, ":%s", s->debug_dirs[i]);
    free(s->debuginfo_path);
    s->debuginfo_path = path;
    return true;
}

static bool sym_set_debug_dirs(pk_symbolizer *s, const char *const *dirs, size_t count);

pk_symbolizer *pk_symbolizer_new(pk_profile *dst, const pk_symbolize_options *options)
{
    pk_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dst = dst;
    s->outside.problem = PK_NONE;
    pk_u64map_init(&s->outside.addresses);
    pk_u64map_init(&s->outside.by_die);
    pk_u64map_init(&s->outside.by_symbol);
    s->callbacks.find_elf = dwfl_build_id_find_elf;
    s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    s->callbacks.section_address = dwfl_offline_section_address;
    s->callbacks.debuginfo_path = &s->debuginfo_path;
    /* The distribution's debug files, and the binaries perf record keeps by build id. */
    const char *home = getenv("HOME");
    char *perf_cache = home && *home ? sym_join(home, ".debug") : NULL;
    const char *default_debug_dirs[] = {"/usr/lib/debug", perf_cache};
    const char *const *debug_dirs = default_debug_dirs;
    size_t debug_count = perf_cache ? 2 : 1;
    if (options && options->debug_dirs) {
        debug_dirs = options->debug_dirs;
        debug_count = options->debug_dir_count;
    }
    bool ok = sym_set_debug_dirs(s, debug_dirs, debug_count);
    free(perf_cache);
    for (size_t i = 0; ok && options && i < options->search_dir_count; i++)
        ok = sym_push_dir(&s->search_dirs, &s->search_count, &s->search_cap,
                          options->search_dirs[i]);
    if (!ok || !sym_update_debuginfo_path(s)) {
        pk_symbolizer_free(s);
        return NULL;
    }
    return s;
}

static bool sym_set_debug_dirs(pk_symbolizer *s, const char *const *dirs, size_t count)
{
    for (size_t i = 0; i < s->debug_count; i++)
        free(s->debug_dirs[i]);
    free(s->debug_dirs);
    s->debug_dirs = NULL;
    s->debug_count = 0;
    size_t cap = 0;
    for (size_t i = 0; i < count; i++)
        if (!sym_push_dir(&s->debug_dirs, &s->debug_count, &cap, dirs[i]))
            return false;
    return sym_update_debuginfo_path(s);
}

static const char *sym_state_text(sym_state state)
{
    switch (state) {
    case SYM_NOT_ELF:
        return "not a readable ELF file";
    case SYM_BUILD_ID_DIFFERS:
        return "the binary found has another build ID";
    case SYM_NO_SEGMENT:
        return "the binary found does not match the mapping (another build?)";
    case SYM_NO_JIT_MAP:
        return "JIT symbol map not found (see --symbol-path)";
    default:
        return "binary not found (see --symbol-path)";
    }
}

const char *pk_symbolizer_build_id(pk_symbolizer *s, const pk_resource *r)
{
    sym_resource probe;
    memset(&probe, 0, sizeof probe);
    probe.problem = PK_NONE;
    pk_u64map_init(&probe.addresses);
    pk_u64map_init(&probe.by_die);
    pk_u64map_init(&probe.by_symbol);
    sym_resource_prepare(s, r, &probe);
    /* The binary stays open among the symbolizer's, for the lookups to come. */
    const char *build_id = probe.binary ? probe.binary->build_id : NULL;
    sym_resource_free(&probe);
    return build_id;
}

void pk_symbolizer_free(pk_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->problem_count; i++) {
        const sym_problem *p = &s->problems[i];
        if (p->addresses > 0)
            pk_warn(s->dst, "%s: %s; %" PRIu64 " address%s left unnamed", p->file,
                    sym_state_text(p->state), p->addresses, p->addresses == 1 ? "" : "es");
        free(p->file);
    }
    free(s->problems);
    for (size_t i = 0; i < s->resource_count; i++)
        sym_resource_free(&s->resources[i]);
    free(s->resources);
    sym_resource_free(&s->outside);
    for (size_t i = 0; i < s->binary_count; i++)
        sym_binary_free(s->binaries[i]);
    free(s->binaries);
    for (size_t i = 0; i < s->jit_count; i++) {
        free(s->jits[i].path);
        pk_perf_map_free(s->jits[i].map);
    }
    free(s->jits);
    for (size_t i = 0; i < s->search_count; i++)
        free(s->search_dirs[i]);
    free(s->search_dirs);
    for (size_t i = 0; i < s->debug_count; i++)
        free(s->debug_dirs[i]);
    free(s->debug_dirs);
    free(s->debuginfo_path);
    pk_debuginfod_free(s->debuginfod);
    for (size_t i = 0; i < s->block_count; i++)
        free(s->blocks[i]);
    free(s->blocks);
    free(s->chains);
    free(s);
}
