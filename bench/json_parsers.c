/* SPDX-License-Identifier: MIT */
/* Debian's C JSON parsers side by side on one file, each doing the least a reader needs: visit
 * every value and key and count them (docs/performance.md, "Choosing the JSON parser").
 * Streaming parsers read the file in 1 MiB chunks, as profkit's input layer does; whole-document
 * parsers build their tree from the text read into memory first (json-c and fastjson from the
 * chunks), and the tree is walked and freed, all within the time measured. Each parser is a module, json_parsers.d/NAME.so beside this program,
 * built only when its library was found (bench/CMakeLists.txt), and only the one asked for is
 * loaded: the libraries export clashing names (json-c, jansson and JSON-GLib each have a
 * json_object_iter_next), so no two can share a process.
 *
 *   json_parsers                  lists the parsers this build has
 *   json_parsers PARSER FILE      parses FILE; prints one line of key=value fields: the parser,
 *                                 the bytes, the CPU seconds of the whole run and of each
 *                                 phase, and the counts; exits 1 if the parser fails on FILE */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_parsers/parser.h"

static const char *parser_name = "?", *file_name = "?";

int jp_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "json_parsers: %s: %s: ", parser_name, file_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

enum { MAX_PHASES = 8 };
typedef struct {
    const char *name;
    double seconds;
} phase;
static phase phases[MAX_PHASES];
static int phase_count;
static double phase_start;

void jp_phase(const char *name)
{
    double now = cpu_seconds();
    if (phase_count < MAX_PHASES)
        phases[phase_count++] = (phase){name, now - phase_start};
    phase_start = now;
}

int jp_read_chunks(const char *path, int (*feed)(void *ctx, const char *data, size_t size),
                   void *ctx)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return jp_fail("cannot open: %s", strerror(errno));
    static char chunk[1 << 20];
    size_t n;
    int status = 0;
    while (status == 0 && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        status = feed(ctx, chunk, n);
    if (status == 0 && ferror(f))
        status = jp_fail("read error");
    fclose(f);
    return status;
}

char *jp_read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        jp_fail("cannot open: %s", strerror(errno));
        return NULL;
    }
    char *text = NULL;
    long length = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (length = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        text = malloc((size_t)length + 1);
    if (!text || fread(text, 1, (size_t)length, f) != (size_t)length) {
        jp_fail("cannot read the whole file");
        free(text);
        fclose(f);
        return NULL;
    }
    fclose(f);
    text[length] = '\0';
    *size = (size_t)length;
    return text;
}

typedef struct {
    const jp_tree *tree;
    jp_tally *tally;
} walker;

static void walk_value(const jp_tree *tree, const void *value, jp_tally *tally);

static void visit(void *ctx, const char *key, size_t key_length, const void *child)
{
    walker *w = ctx;
    if (key)
        jp_count(w->tally, JP_KEY, key_length);
    walk_value(w->tree, child, w->tally);
}

static void walk_value(const jp_tree *tree, const void *value, jp_tally *tally)
{
    jp_kind kind = tree->kind(value);
    jp_count(tally, kind, kind == JP_STRING ? tree->string_length(value) : 0);
    if (kind == JP_OBJECT || kind == JP_ARRAY)
        tree->each(value, visit, &(walker){tree, tally});
}

/* A whole-document parser: its tree built, walked and freed, each a phase. */
static int parse_tree(const jp_tree *tree, const char *path, jp_tally *tally)
{
    char *text = NULL;
    size_t size = 0;
    if (!tree->takes_chunks) {
        if (!(text = jp_read_whole(path, &size)))
            return 1;
        jp_phase("read");
    }
    jp_document document = {NULL, NULL};
    int status = tree->load(path, text, size, &document);
    jp_phase("parse");
    if (status == 0) {
        walk_value(tree, document.root, tally);
        jp_phase("walk");
    }
    if (document.tree)
        tree->release(document.tree);
    free(text);
    jp_phase("free");
    return status;
}

/* The directory of the modules: json_parsers.d beside this program. */
static int module_directory(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0)
        return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    const char *sub = "/json_parsers.d";
    if (!slash || (size_t)(slash - dir) + strlen(sub) >= size)
        return -1;
    strcpy(slash, sub);
    return 0;
}

static const jp_parser *load(const char *dir, const char *name)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s.so", dir, name) >= sizeof path)
        return NULL;
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    return module ? dlsym(module, "jp_module") : NULL;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the modules there are, each loaded on its own to tell what it does. */
static int list(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "json_parsers: no modules in %s\n", dir);
        return 2;
    }
    char *names[64] = {NULL};
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL && count < sizeof names / sizeof names[0]) {
        size_t length = strlen(entry->d_name);
        if (length > 3 && strcmp(entry->d_name + length - 3, ".so") == 0 &&
            (names[count] = strndup(entry->d_name, length - 3)) != NULL)
            count++;
    }
    closedir(d);
    qsort(names, count, sizeof names[0], compare_names);
    for (size_t i = 0; i < count; i++) {
        const jp_parser *parser = load(dir, names[i]);
        printf("%-12s %s\n", names[i], parser ? parser->how : dlerror());
        free(names[i]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    char dir[PATH_MAX];
    if (module_directory(dir, sizeof dir) != 0) {
        fprintf(stderr, "json_parsers: cannot tell where this program is\n");
        return 2;
    }
    if (argc == 1)
        return list(dir);
    if (argc != 3) {
        fprintf(stderr, "usage: json_parsers [PARSER FILE]\n");
        return 2;
    }
    const jp_parser *parser = strchr(argv[1], '/') ? NULL : load(dir, argv[1]);
    if (!parser) {
        fprintf(stderr, "json_parsers: %s is not a parser of this build (json_parsers lists "
                        "them)\n", argv[1]);
        return 2;
    }
    parser_name = parser->name;
    file_name = argv[2];

    jp_tally tally = {0};
    double start = phase_start = cpu_seconds();
    if ((parser->tree ? parse_tree(parser->tree, argv[2], &tally)
                      : parser->parse(argv[2], &tally)) != 0)
        return 1;
    double total = cpu_seconds() - start;

    FILE *f = fopen(argv[2], "rb");
    long bytes = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (f)
        fclose(f);
    printf("parser=%s bytes=%ld cpu_s=%.3f", parser->name, bytes, total);
    for (int i = 0; i < phase_count; i++)
        printf(" %s_s=%.3f", phases[i].name, phases[i].seconds);
    printf(" objects=%llu arrays=%llu keys=%llu strings=%llu numbers=%llu literals=%llu "
           "text_bytes=%llu\n",
           (unsigned long long)tally.objects, (unsigned long long)tally.arrays,
           (unsigned long long)tally.keys, (unsigned long long)tally.strings,
           (unsigned long long)tally.numbers, (unsigned long long)tally.literals,
           (unsigned long long)tally.text_bytes);
    return 0;
}
