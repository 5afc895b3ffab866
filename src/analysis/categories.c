#include "analysis/categories.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "core/path.h"

typedef struct category_entry {
    const char *name;
    const char *colour;
    const char *const *formats;    /* registry names of formats whose code is in this language */
    const char *const *extensions; /* source file extensions, lowercase, with the dot */
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
static const char *const go_extensions[] = {".go", NULL};
static const char *const business_rules_formats[] = {"br", NULL};
static const char *const business_rules_extensions[] = {".br", NULL};

static const category_entry categories[PK_CATEGORY_COUNT] = {
    [PK_CATEGORY_OTHER] = {"Other", "grey", NULL, NULL},
    [PK_CATEGORY_NATIVE] = {"Native", "blue", NULL, native_extensions},
    [PK_CATEGORY_BRIGHTSCRIPT] = {"BrightScript", "purple", brightscript_formats,
                                  brightscript_extensions},
    [PK_CATEGORY_BUSINESS_RULES] = {"Business Rules", "magenta", business_rules_formats,
                                    business_rules_extensions},
    [PK_CATEGORY_JAVASCRIPT] = {"JavaScript", "yellow", NULL, javascript_extensions},
    [PK_CATEGORY_PYTHON] = {"Python", "green", NULL, python_extensions},
    [PK_CATEGORY_JAVA] = {"Java", "orange", NULL, java_extensions},
    [PK_CATEGORY_GO] = {"Go", "lightblue", NULL, go_extensions},
};

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

pk_category pk_frame_category(const pk_profile *p, uint32_t frame, pk_category format_category)
{
    const pk_frame *f = pk_frame_at(p, frame);
    if (f->flags & PK_FRAME_HAS_ADDRESS)
        return PK_CATEGORY_NATIVE;
    if (format_category != PK_CATEGORY_OTHER)
        return format_category;
    return pk_category_of_file(pk_str(p, pk_function_at(p, f->function)->file));
}
