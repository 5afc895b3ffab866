/* SPDX-License-Identifier: MIT */
/* Writes a deterministic, realistic .bsprof file: a Roku channel with a main module and
 * SceneGraph component modules (a home scene, task threads, a video player, several row list
 * item instances), realistic BrightScript function names and pkg:/ files, line data, memory
 * operations (allocations, frees, reallocs, a few leaks) and incremental CPU and call-count
 * entries, streamed as a device would: each string, module and path element is defined just
 * before its first use.
 *
 * usage: gen_bsprof [--size SIZE] [--seed N] [--no-lines] [--no-memory] [--max-memory-ops N]
 *                   [--alloc-percent N] [--realloc-percent N] [--cpu-max N] OUTPUT
 * SIZE is a byte count with an optional K, M or G suffix (default 1M); the file ends with the
 * first complete entry past it. --max-memory-ops caps the memory operations, so that larger
 * files only add CPU and call-count entries. --alloc-percent is the share of memory activities
 * that are plain allocations (default 45), --realloc-percent the share of reallocs (default
 * 10), frees take the rest: with more allocations than frees the live allocations pile up, as
 * in a process that caches or leaks (62 and 10 leave about half of all allocations live at the
 * end). --cpu-max is the largest CPU increment of one entry (default 4000, at least 100; wall
 * increments follow it): larger ones make longer varints, as on a device that counts finer.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PROGRAM "gen_bsprof"
#include "gen_output.h"

/* ---- output ---------------------------------------------------------------------------------- */

static void put_f32le(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint8_t b[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                    (uint8_t)(bits >> 24)};
    put_bytes(b, 4);
}

/* ---- deterministic randomness (SplitMix64) ---------------------------------------------------- */

static bool rng_chance(double p)
{
    return (double)(rng_next() >> 11) * 0x1.0p-53 < p;
}

/* A skewed amount: mostly small, sometimes large (roughly log-uniform in [1, max]). */
static uint32_t rng_skewed(uint32_t max)
{
    uint32_t bits = 1 + rng_below(32 - (uint32_t)__builtin_clz(max));
    uint32_t limit = bits >= 32 ? max : ((1u << bits) - 1);
    if (limit > max)
        limit = max;
    return 1 + rng_below(limit);
}

/* ---- the channel's code ----------------------------------------------------------------------- */

typedef struct function_def {
    const char *name;
    const char *file;
    uint32_t line;   /* where the function starts */
    uint32_t length; /* lines in its body */
    const char *callees[4];
} function_def;

#define MAIN_BRS "pkg:/source/main.brs"
#define HOME_BRS "pkg:/components/HomeScene/HomeScene.brs"
#define CONTENT_BRS "pkg:/components/tasks/ContentTask.brs"
#define PLAYER_BRS "pkg:/components/VideoPlayer/VideoPlayer.brs"
#define ROWITEM_BRS "pkg:/components/RowListItem/RowListItem.brs"
#define ANALYTICS_BRS "pkg:/components/tasks/AnalyticsTask.brs"
#define IMAGES_BRS "pkg:/components/tasks/ImageLoaderTask.brs"
#define UTIL(name) "pkg:/source/utils/" name ".brs"

/* Component functions are looked up in their own file first, then in the shared utilities. */
static const function_def functions[] = {
    {"Main", MAIN_BRS, 1, 40, {"InitGlobals", "ShowHomeScene", "RunEventLoop"}},
    {"InitGlobals", MAIN_BRS, 45, 30, {"ReadManifest", "GetDeviceInfo", "LoadRegistry"}},
    {"ShowHomeScene", MAIN_BRS, 80, 25, {"LoadRegistry"}},
    {"RunEventLoop", MAIN_BRS, 110, 60, {"HandleRoUrlEvent", "HandleInputEvent", "LogEvent"}},
    {"HandleRoUrlEvent", MAIN_BRS, 175, 30, {"ParseJsonSafe", "LogEvent"}},
    {"HandleInputEvent", MAIN_BRS, 210, 40, {"HandleDeepLink", "LogEvent"}},
    {"HandleDeepLink", MAIN_BRS, 255, 35, {"ParseJsonSafe", "GetConfig"}},

    {"ReadManifest", UTIL("Registry"), 1, 20, {"StringSplit"}},
    {"LoadRegistry", UTIL("Registry"), 25, 30, {"ParseJsonSafe"}},
    {"SaveRegistry", UTIL("Registry"), 60, 25, {"FormatJson"}},
    {"GetDeviceInfo", UTIL("Device"), 1, 40, {"StringReplace"}},
    {"ParseJsonSafe", UTIL("Json"), 1, 15, {0}},
    {"FormatJson", UTIL("Json"), 20, 12, {0}},
    {"StringReplace", UTIL("Strings"), 1, 18, {0}},
    {"StringSplit", UTIL("Strings"), 22, 16, {0}},
    {"ArrayJoin", UTIL("Strings"), 40, 12, {0}},
    {"FormatDuration", UTIL("Strings"), 55, 20, {"PadLeft"}},
    {"PadLeft", UTIL("Strings"), 80, 9, {0}},
    {"LogEvent", UTIL("Log"), 1, 25, {"FormatJson", "LogPrint"}},
    {"LogPrint", UTIL("Log"), 30, 10, {0}},
    {"GetConfig", UTIL("Config"), 1, 20, {"ParseJsonSafe"}},

    {"init", HOME_BRS, 1, 45, {"SetupRowList", "StartContentTask", "GetConfig"}},
    {"onKeyEvent", HOME_BRS, 50, 70, {"FocusRow", "ShowDetails", "LogEvent"}},
    {"onContentLoaded", HOME_BRS, 125, 40, {"BuildRows", "UpdateHero"}},
    {"BuildRows", HOME_BRS, 170, 45, {"BuildRow", "$anon_4e1", "ArrayJoin"}},
    {"$anon_4e1", HOME_BRS, 216, 8, {"PadLeft"}},
    {"BuildRow", HOME_BRS, 235, 35, {"CreateContentNode", "FormatDuration"}},
    {"CreateContentNode", HOME_BRS, 275, 25, {"StringReplace"}},
    {"UpdateHero", HOME_BRS, 305, 30, {"FormatDuration", "StringSplit"}},
    {"FocusRow", HOME_BRS, 340, 20, {"UpdateHero"}},
    {"ShowDetails", HOME_BRS, 365, 40, {"FormatDuration", "SaveRegistry"}},
    {"SetupRowList", HOME_BRS, 410, 25, {0}},
    {"StartContentTask", HOME_BRS, 440, 15, {0}},

    {"init", CONTENT_BRS, 1, 10, {0}},
    {"fetchContent", CONTENT_BRS, 15, 50, {"RequestUrl", "ParseFeed", "LogEvent"}},
    {"RequestUrl", CONTENT_BRS, 70, 60, {"BuildHeaders", "WaitForResponse"}},
    {"BuildHeaders", CONTENT_BRS, 135, 20, {"GetConfig"}},
    {"WaitForResponse", CONTENT_BRS, 160, 30, {0}},
    {"ParseFeed", CONTENT_BRS, 195, 70, {"ParseJsonSafe", "ParseItem"}},
    {"ParseItem", CONTENT_BRS, 270, 45, {"ParseImages", "StringReplace", "FormatDuration"}},
    {"ParseImages", CONTENT_BRS, 320, 25, {"StringSplit"}},

    {"init", PLAYER_BRS, 1, 30, {"ConfigureBuffering"}},
    {"onStateChange", PLAYER_BRS, 35, 50, {"ReportPlayback", "LogEvent"}},
    {"onPositionChange", PLAYER_BRS, 90, 25, {"UpdateProgressBar", "ReportPlayback"}},
    {"UpdateProgressBar", PLAYER_BRS, 120, 20, {"FormatDuration"}},
    {"ReportPlayback", PLAYER_BRS, 145, 40, {"FormatJson", "SendBeacon"}},
    {"SendBeacon", PLAYER_BRS, 190, 20, {0}},
    {"ConfigureBuffering", PLAYER_BRS, 215, 15, {0}},

    {"init", ROWITEM_BRS, 1, 12, {0}},
    {"onItemContentChanged", ROWITEM_BRS, 15, 30, {"UpdateLayout", "FormatDuration"}},
    {"onFocusPercentChanged", ROWITEM_BRS, 50, 20, {"UpdateLayout"}},
    {"UpdateLayout", ROWITEM_BRS, 75, 35, {"PadLeft"}},

    {"init", ANALYTICS_BRS, 1, 10, {0}},
    {"runLoop", ANALYTICS_BRS, 15, 40, {"FlushQueue", "$anon_9c2"}},
    {"$anon_9c2", ANALYTICS_BRS, 55, 4, {0}},
    {"FlushQueue", ANALYTICS_BRS, 60, 35, {"FormatJson", "PostBatch"}},
    {"PostBatch", ANALYTICS_BRS, 100, 30, {"FormatJson", "LogPrint"}},

    {"init", IMAGES_BRS, 1, 8, {0}},
    {"loadImages", IMAGES_BRS, 12, 45, {"DownloadImage", "ResizePoster"}},
    {"DownloadImage", IMAGES_BRS, 60, 30, {"StringReplace"}},
    {"ResizePoster", IMAGES_BRS, 95, 25, {0}},
};
#define FUNCTION_COUNT (sizeof functions / sizeof functions[0])

typedef struct module_def {
    const char *name;
    const char *file;  /* the component's own script */
    const char *roots[3];
    uint32_t weight;   /* share of the activity */
} module_def;

static const module_def modules[] = {
    {"main", MAIN_BRS, {"Main"}, 8},
    {"HomeScene", HOME_BRS, {"init", "onKeyEvent", "onContentLoaded"}, 22},
    {"ContentTask", CONTENT_BRS, {"init", "fetchContent"}, 18},
    {"VideoPlayer", PLAYER_BRS, {"init", "onStateChange", "onPositionChange"}, 24},
    {"RowListItem", ROWITEM_BRS, {"init", "onItemContentChanged", "onFocusPercentChanged"}, 2},
    {"RowListItem", ROWITEM_BRS, {"init", "onItemContentChanged", "onFocusPercentChanged"}, 2},
    {"RowListItem", ROWITEM_BRS, {"init", "onItemContentChanged", "onFocusPercentChanged"}, 2},
    {"RowListItem", ROWITEM_BRS, {"init", "onItemContentChanged", "onFocusPercentChanged"}, 2},
    {"RowListItem", ROWITEM_BRS, {"init", "onItemContentChanged", "onFocusPercentChanged"}, 2},
    {"RowListItem", ROWITEM_BRS, {"init", "onItemContentChanged", "onFocusPercentChanged"}, 2},
    {"AnalyticsTask", ANALYTICS_BRS, {"init", "runLoop"}, 6},
    {"ImageLoaderTask", IMAGES_BRS, {"init", "loadImages"}, 10},
};
#define MODULE_COUNT (sizeof modules / sizeof modules[0])
#define MAX_DEPTH 9

/* The function called `name` from code of a module: its own file first, then any file. */
static int find_function(const char *name, const char *file)
{
    int any = -1;
    for (size_t i = 0; i < FUNCTION_COUNT; i++) {
        if (strcmp(functions[i].name, name) != 0)
            continue;
        if (strcmp(functions[i].file, file) == 0)
            return (int)i;
        if (any < 0)
            any = (int)i;
    }
    if (any < 0) {
        fprintf(stderr, "gen_bsprof: no function %s\n", name);
        exit(2);
    }
    return any;
}

/* ---- what has been defined in the stream -------------------------------------------------------- */

/* String IDs by text (a handful of strings: a linear table is enough). */
static const char *string_texts[256];
static uint32_t string_count;

static uint32_t string_id(const char *text)
{
    for (uint32_t i = 0; i < string_count; i++)
        if (strcmp(string_texts[i], text) == 0)
            return i + 1;
    if (string_count == 256) {
        fprintf(stderr, "gen_bsprof: string table full\n");
        exit(2);
    }
    string_texts[string_count++] = text;
    put_varint((uint64_t)string_count << 3 | 0);
    put_cstring(text);
    return string_count;
}

static bool module_defined[MODULE_COUNT];

/* Path elements by (caller path, function): a small open-addressing table. */
typedef struct path_slot {
    uint32_t caller;   /* caller path ID, or 0x80000000 | module for a root */
    int function;
    uint32_t id;       /* 0 = empty */
} path_slot;

#define PATH_TABLE_SIZE (1u << 16)
static path_slot path_table[PATH_TABLE_SIZE];
static uint32_t path_count;
static int path_function[PATH_TABLE_SIZE]; /* by path ID */

static bool line_data = true;

/* Line offset of the call site of callee inside caller: one fixed site per pair. */
static uint32_t call_site(int caller, int callee)
{
    uint32_t h = (uint32_t)(caller * 2654435761u) ^ (uint32_t)(callee * 40503u);
    return 1 + h % functions[caller].length;
}

static uint32_t path_id(uint32_t module, uint32_t caller_path, int function)
{
    uint32_t key = caller_path ? caller_path : (0x80000000u | module);
    uint32_t h = (key * 2654435761u ^ (uint32_t)function * 97u) & (PATH_TABLE_SIZE - 1);
    while (path_table[h].id) {
        if (path_table[h].caller == key && path_table[h].function == function)
            return path_table[h].id;
        h = (h + 1) & (PATH_TABLE_SIZE - 1);
    }
    if (path_count + 1 >= PATH_TABLE_SIZE / 2) {
        fprintf(stderr, "gen_bsprof: path table full\n");
        exit(2);
    }
    const function_def *f = &functions[function];
    uint32_t file = string_id(f->file);
    uint32_t name = string_id(f->name);
    if (!caller_path && !module_defined[module]) {
        uint32_t module_name = string_id(modules[module].name);
        put_varint((uint64_t)(module + 1) << 3 | 1);
        put_varint(module_name);
        module_defined[module] = true;
    }
    uint32_t id = ++path_count;
    path_table[h] = (path_slot){key, function, id};
    path_function[id] = function;
    put_varint((uint64_t)id << 3 | 2);
    put_varint(caller_path);
    if (!caller_path)
        put_varint(module + 1);
    else if (line_data)
        put_varint(call_site(path_function[caller_path], function));
    put_varint(file);
    put_varint(f->line);
    put_varint(name);
    return id;
}

/* ---- memory ---------------------------------------------------------------------------------- */

typedef struct block {
    uint32_t address;
    uint32_t size;
} block;

static block *live;
static size_t live_count, live_cap;
static uint32_t *free_addresses; /* addresses freed and ready for reuse */
static size_t free_count, free_cap;
static uint32_t next_address = 0x10000000u;
static bool memory_ops = true;
static uint64_t memory_ops_left = UINT64_MAX;
static uint32_t alloc_percent = 45, realloc_percent = 10;

static void push_block(block b)
{
    if (live_count == live_cap) {
        live_cap = live_cap ? live_cap * 2 : 1024;
        live = realloc(live, live_cap * sizeof *live);
        if (!live)
            abort();
    }
    live[live_count++] = b;
}

static void push_free_address(uint32_t address)
{
    if (free_count == free_cap) {
        free_cap = free_cap ? free_cap * 2 : 1024;
        free_addresses = realloc(free_addresses, free_cap * sizeof *free_addresses);
        if (!free_addresses)
            abort();
    }
    free_addresses[free_count++] = address;
}

static uint32_t take_address(uint32_t size)
{
    if (free_count > 64 && rng_chance(0.7)) {
        uint32_t i = rng_below((uint32_t)free_count);
        uint32_t a = free_addresses[i];
        free_addresses[i] = free_addresses[--free_count];
        return a;
    }
    uint32_t a = next_address;
    next_address += (size + 15) & ~15u;
    if (next_address < 0x10000000u) /* wrapped: start over above the low range */
        next_address = 0x10000000u;
    return a;
}

static void memory_entry(uint32_t path, uint32_t op, uint32_t offset, uint32_t address,
                         uint32_t size)
{
    put_varint((uint64_t)path << 5 | (uint64_t)op << 3 | 3);
    if (line_data)
        put_varint(offset);
    put_varint(address);
    if (op == 0)
        put_varint(size);
    memory_ops_left--;
}

static void memory_activity(uint32_t path, uint32_t length)
{
    uint32_t offset = 1 + rng_below(length);
    uint32_t roll = rng_below(100);
    if (roll < alloc_percent || live_count < 16) {
        uint32_t size = rng_skewed(16384);
        uint32_t address = take_address(size);
        memory_entry(path, 0, offset, address, size);
        /* A few allocations are never freed: the leaks the memory views should find. */
        if (!rng_chance(0.02))
            push_block((block){address, size});
    } else if (roll < 100 - realloc_percent) {
        uint32_t i = rng_below((uint32_t)live_count);
        block b = live[i];
        live[i] = live[--live_count];
        memory_entry(path, 1, offset, b.address, 0);
        push_free_address(b.address);
    } else {
        /* realloc: the free half, then the alloc of the new size */
        uint32_t i = rng_below((uint32_t)live_count);
        block b = live[i];
        live[i] = live[--live_count];
        memory_entry(path, 2, offset, b.address, 0);
        push_free_address(b.address);
        uint32_t size = b.size + rng_skewed(4096);
        uint32_t address = take_address(size);
        memory_entry(path, 0, offset, address, size);
        push_block((block){address, size});
    }
}

/* ---- execution ------------------------------------------------------------------------------- */

static uint64_t target_size = 1u << 20;
static uint32_t cpu_max = 4000;
static uint64_t entry_count;
static uint64_t wall_total;

static void cpu_entry(uint32_t path, uint32_t length)
{
    uint32_t cpu = rng_skewed(cpu_max);
    uint32_t wall = cpu / 8 + rng_skewed((uint32_t)((uint64_t)cpu_max * 3 / 40));
    put_varint((uint64_t)path << 3 | 4);
    if (line_data)
        put_varint(1 + rng_below(length));
    put_varint(cpu);
    put_varint(wall);
    wall_total += wall;
}

/* One visit of a function: some work, some calls, some memory traffic. */
static void run(uint32_t module, uint32_t caller_path, int function, unsigned depth)
{
    const function_def *f = &functions[function];
    uint32_t path = path_id(module, caller_path, function);
    put_varint((uint64_t)path << 3 | 5);
    put_varint(1 + (rng_chance(0.1) ? rng_below(40) : 0));
    entry_count++;
    unsigned steps = 1 + rng_below(4);
    for (unsigned s = 0; s < steps && out_bytes < target_size; s++) {
        cpu_entry(path, f->length);
        entry_count++;
        if (memory_ops && memory_ops_left > 2 && rng_chance(0.12)) {
            memory_activity(path, f->length);
            entry_count++;
        }
        unsigned ncallees = 0;
        while (ncallees < 4 && f->callees[ncallees])
            ncallees++;
        if (ncallees && depth < MAX_DEPTH && rng_chance(0.75 - depth * 0.07)) {
            const char *callee = f->callees[rng_below(ncallees)];
            run(module, path, find_function(callee, modules[module].file), depth + 1);
        }
    }
}

static uint64_t parse_size(const char *text)
{
    char *end;
    uint64_t v = strtoull(text, &end, 10);
    const char *suffixes = "KMG";
    const char *suffix = *end ? strchr(suffixes, *end & ~0x20) : NULL;
    if (suffix) {
        v <<= 10 * (1 + (suffix - suffixes));
        end++;
    }
    if (*end || end == text) {
        fprintf(stderr, "gen_bsprof: bad size %s\n", text);
        exit(2);
    }
    return v;
}

static void write_header(void)
{
    static const char *const texts[6] = {
        "Streamline TV", "", "2.4.1", "Roku", "4802X", "12.5.0.4178"};
    /* A device pads its header; write the fields, then zeros up to a multiple of 32 bytes. */
    put_bytes("bsprof\0\0", 8);
    put_varint(1);
    put_varint(0);
    put_varint(0);
    uint64_t fields = 8 + 3 + 2 + 8 + 2 + 6 /* start ms */;
    for (int i = 0; i < 6; i++)
        fields += strlen(texts[i]) + 1;
    uint64_t size = (fields + 31) & ~(uint64_t)31;
    put_varint(size);
    put_f32le(1.0f);
    put_f32le(1.0f);
    put_varint(line_data);
    put_varint(memory_ops);
    put_varint(1731400000000ULL);
    for (int i = 0; i < 6; i++)
        put_cstring(texts[i]);
    while (out_bytes < size)
        put_bytes("", 1);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    uint64_t seed = 20241112;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            target_size = parse_size(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--no-lines") == 0)
            line_data = false;
        else if (strcmp(argv[i], "--no-memory") == 0)
            memory_ops = false;
        else if (strcmp(argv[i], "--max-memory-ops") == 0 && i + 1 < argc)
            memory_ops_left = parse_size(argv[++i]);
        else if (strcmp(argv[i], "--alloc-percent") == 0 && i + 1 < argc &&
                 (alloc_percent = (uint32_t)strtoul(argv[++i], NULL, 10)) <= 100)
            ;
        else if (strcmp(argv[i], "--realloc-percent") == 0 && i + 1 < argc &&
                 (realloc_percent = (uint32_t)strtoul(argv[++i], NULL, 10)) <= 100)
            ;
        else if (strcmp(argv[i], "--cpu-max") == 0 && i + 1 < argc &&
                 (cpu_max = (uint32_t)strtoul(argv[++i], NULL, 10)) >= 100)
            ;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr,
                    "usage: gen_bsprof [--size SIZE] [--seed N] [--no-lines] [--no-memory]\n"
                    "                  [--max-memory-ops N] [--alloc-percent N]\n"
                    "                  [--realloc-percent N] [--cpu-max N] OUTPUT\n");
            return 2;
        }
    }
    if (alloc_percent + realloc_percent > 100) {
        fprintf(stderr, "gen_bsprof: allocations and reallocs above 100%%\n");
        return 2;
    }
    if (!path) {
        fprintf(stderr, "gen_bsprof: no output file\n");
        return 2;
    }
    rng_state = seed;
    out_file = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!out_file) {
        perror(path);
        return 1;
    }
    static char buffer[1 << 20];
    setvbuf(out_file, buffer, _IOFBF, sizeof buffer);

    write_header();
    uint32_t total_weight = 0;
    for (size_t m = 0; m < MODULE_COUNT; m++)
        total_weight += modules[m].weight;
    /* Every module starts with its init (or Main), then events arrive in random modules. */
    for (uint32_t m = 0; m < MODULE_COUNT && out_bytes < target_size; m++)
        run(m, 0, find_function(modules[m].roots[0], modules[m].file), 0);
    while (out_bytes < target_size) {
        uint32_t pick = rng_below(total_weight), m = 0;
        while (pick >= modules[m].weight)
            pick -= modules[m++].weight;
        unsigned nroots = 0;
        while (nroots < 3 && modules[m].roots[nroots])
            nroots++;
        const char *root = modules[m].roots[nroots > 1 ? 1 + rng_below(nroots - 1) : 0];
        run(m, 0, find_function(root, modules[m].file), 0);
    }
    put_varint(0); /* end of entries */
    /* Run end: about 2 ms of session per 1000 wall units, at least a minute. */
    put_varint(1731400000000ULL + 60000 + wall_total / 500);
    if (fclose(out_file) != 0) {
        perror(path);
        return 1;
    }
    fprintf(stderr,
            "gen_bsprof: %s: %" PRIu64 " bytes, %" PRIu64 " entries, %" PRIu32
            " path elements, %" PRIu32 " strings\n",
            path, out_bytes, entry_count, path_count, string_count);
    return 0;
}
