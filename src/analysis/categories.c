/* SPDX-License-Identifier: MIT */
#include "analysis/categories.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "core/path.h"

typedef struct category_entry {
    const char *name;
    const char *colour;
    pk_category_fill fill;
    const char *const *formats;    /* registry names of formats whose code is in this language */
    const char *const *extensions; /* source file extensions, lowercase, with the dot */
    /* formats of mixed code whose script code (PK_FUNCTION_SCRIPT) is in this language */
    const char *const *script_formats;
} category_entry;

static const char *const brightscript_formats[] = {"bsprof", NULL};
static const char *const brightscript_extensions[] = {".brs", ".bs", NULL};
static const char *const native_extensions[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".h",
                                                ".hh", ".hpp", ".hxx", ".rs", ".m", ".mm",
                                                ".s", ".asm", ".zig", ".swift", ".d", ".f90",
                                                NULL};
static const char *const javascript_extensions[] = {".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx",
                                                    NULL};
static const char *const python_extensions[] = {".py", ".pyx", NULL};
static const char *const java_extensions[] = {".java", ".kt", ".scala", ".clj", NULL};
static const char *const java_formats[] = {"jfr", "art-trace", NULL};
/* simpleperf samples native and Java code alike; its Java frames are script code */
static const char *const java_script_formats[] = {"simpleperf", NULL};
static const char *const go_extensions[] = {".go", NULL};
static const char *const business_rules_formats[] = {"br", NULL};
static const char *const business_rules_extensions[] = {".br", NULL};

static const category_entry categories[PK_CATEGORY_COUNT] = {
    [PK_CATEGORY_OTHER] = {"Other", "grey", {{175, 175, 175}, {205, 205, 205}}, NULL, NULL,
                           NULL},
    [PK_CATEGORY_NATIVE] = {"Native", "blue", {{100, 150, 230}, {150, 195, 255}}, NULL,
                            native_extensions, NULL},
    [PK_CATEGORY_BRIGHTSCRIPT] = {"BrightScript", "purple", {{165, 105, 205}, {205, 145, 250}},
                                  brightscript_formats, brightscript_extensions, NULL},
    [PK_CATEGORY_BUSINESS_RULES] = {"Business Rules", "magenta",
                                    {{220, 100, 200}, {250, 150, 240}}, business_rules_formats,
                                    business_rules_extensions, NULL},
    [PK_CATEGORY_JAVASCRIPT] = {"JavaScript", "yellow", {{225, 205, 50}, {250, 235, 110}}, NULL,
                                javascript_extensions, NULL},
    [PK_CATEGORY_PYTHON] = {"Python", "green", {{90, 190, 90}, {140, 230, 130}}, NULL,
                            python_extensions, NULL},
    [PK_CATEGORY_JAVA] = {"Java", "orange", {{235, 145, 40}, {255, 190, 90}}, java_formats,
                          java_extensions, java_script_formats},
    [PK_CATEGORY_GO] = {"Go", "lightblue", {{110, 200, 230}, {160, 230, 250}}, NULL,
                        go_extensions, NULL},
    [PK_CATEGORY_KERNEL] = {"Kernel", "red", {{215, 80, 60}, {250, 125, 100}}, NULL, NULL,
                          NULL},
    [PK_CATEGORY_JIT] = {"JIT", "brown", {{170, 120, 70}, {210, 160, 110}}, NULL, NULL,
                       NULL},
};

/* Folded stacks mark kernel and JIT frames with a suffix on the name. */
static const char kernel_suffix[] = "_[k]";
static const char jit_suffix[] = "_[j]";

/* The longest extension worth comparing: longer ones match nothing in the table. */
#define LONGEST_EXTENSION 8

const char *pk_category_name(pk_category category)
{
    return categories[category < PK_CATEGORY_COUNT ? category : PK_CATEGORY_OTHER].name;
}

const char *pk_category_colour(pk_category category)
{
    return categories[category < PK_CATEGORY_COUNT ? category : PK_CATEGORY_OTHER].colour;
}

const pk_category_fill *pk_category_fill_of(pk_category category)
{
    return &categories[category < PK_CATEGORY_COUNT ? category : PK_CATEGORY_OTHER].fill;
}

static bool name_in(const char *name, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(name, *list) == 0)
            return true;
    return false;
}

pk_category pk_category_of_format(const char *format)
{
    for (unsigned c = 1; c < PK_CATEGORY_COUNT; c++)
        if (name_in(format, categories[c].formats))
            return (pk_category)c;
    return PK_CATEGORY_OTHER;
}

pk_category pk_category_of_file(const char *path)
{
    const char *dot = strrchr(pk_path_basename(path), '.');
    if (!dot || strlen(dot) > LONGEST_EXTENSION)
        return PK_CATEGORY_OTHER;
    char extension[LONGEST_EXTENSION + 1];
    size_t n = 0;
    for (; dot[n]; n++)
        extension[n] = (char)tolower((unsigned char)dot[n]);
    extension[n] = '\0';
    for (unsigned c = 1; c < PK_CATEGORY_COUNT; c++)
        if (name_in(extension, categories[c].extensions))
            return (pk_category)c;
    return PK_CATEGORY_OTHER;
}

pk_category pk_profile_category(const pk_profile *p)
{
    return pk_category_of_format(pk_str(p, pk_metadata_get(p)->source_format));
}

static bool ends_with(const char *s, size_t len, const char *suffix, size_t suffix_len)
{
    return len >= suffix_len && memcmp(s + len - suffix_len, suffix, suffix_len) == 0;
}

pk_category pk_function_category(const pk_profile *p, uint32_t function, bool has_address,
                                 pk_category format_category)
{
    const pk_function *fn = pk_function_at(p, function);
    const char *name = pk_str(p, fn->name);
    size_t len = pk_str_len(p, fn->name);
    if (ends_with(name, len, kernel_suffix, sizeof kernel_suffix - 1))
        return PK_CATEGORY_KERNEL;
    if (ends_with(name, len, jit_suffix, sizeof jit_suffix - 1))
        return PK_CATEGORY_JIT;
    if (has_address)
        return PK_CATEGORY_NATIVE;
    /* a JVM profile's code outside Java (async-profiler's C++ and native library frames in a
     * JFR recording) is neither script nor script-relevant, and comes from a library */
    if (format_category == PK_CATEGORY_JAVA && fn->resource != PK_NONE &&
        !(fn->flags & (PK_FUNCTION_SCRIPT | PK_FUNCTION_SCRIPT_RELEVANT)))
        return PK_CATEGORY_NATIVE;
    if (format_category != PK_CATEGORY_OTHER)
        return format_category;
    pk_category by_file = pk_category_of_file(pk_str(p, fn->file));
    /* Script code of a format of no one language is JavaScript, wherever its source is: V8
     * names a page's scripts by their URL (page.html, a bundle without extension, none for
     * eval'd code), and BrightScript and BR come from formats that say so above; unless the
     * format says which language its script code is in (simpleperf's Java). */
    if (by_file == PK_CATEGORY_OTHER && (fn->flags & PK_FUNCTION_SCRIPT)) {
        const char *format = pk_str(p, pk_metadata_get(p)->source_format);
        for (unsigned c = 1; c < PK_CATEGORY_COUNT; c++)
            if (name_in(format, categories[c].script_formats))
                return (pk_category)c;
        return PK_CATEGORY_JAVASCRIPT;
    }
    return by_file;
}

pk_category pk_frame_category(const pk_profile *p, uint32_t frame, pk_category format_category)
{
    const pk_frame *f = pk_frame_at(p, frame);
    return pk_function_category(p, f->function, (f->flags & PK_FRAME_HAS_ADDRESS) != 0,
                                format_category);
}
