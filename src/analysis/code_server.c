/* SPDX-License-Identifier: MIT */
/* The Firefox Profiler's symbolication API over one profile (profkit/code_server.h): source
 * files the profile names, and instructions of its libraries. */
#include "profkit/code_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <yajl/yajl_tree.h>

#include "analysis/source_tree.h"
#include "core/buffer.h"
#include "core/debuginfod.h"
#include "core/symbolize.h"
#include "formats/firefox/writer.h"

/* A request body larger than this is no request of the API. */
#define REQUEST_MAX (1u << 20)
/* The most instructions' bytes disassembled in one answer: far more than any function. */
#define ASM_RANGE_MAX (1u << 20)
/* Bytes read past the range, so that its last instruction is decoded whole. */
#define ASM_TAIL 16

struct pk_code_server {
    const pk_profile *p;
    pk_source *source;
    const char **files; /* the files the profile names, sorted, distinct (pk_str of p) */
    size_t file_count;
    /* The binaries, read by the core symbolizer into a profile of its own (the server's
     * profile is only read): each library asked about is copied there once. */
    pk_profile *scratch;
    pk_symbolizer *symbolizer;
    uint32_t *scratch_resource; /* resource of p -> resource of scratch, PK_NONE until asked */
    pk_debuginfod *debuginfod;  /* made at the first source not on the machine, when servers
                                 * are named (DEBUGINFOD_URLS) */
    bool debuginfod_tried;
};

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

pk_status pk_code_server_new(const pk_profile *p, const pk_code_server_options *options,
                             pk_code_server **out, pk_error *err)
{
    *out = NULL;
    pk_code_server *s = calloc(1, sizeof *s);
    size_t functions = pk_function_count(p);
    if (s)
        s->files = malloc((functions ? functions : 1) * sizeof *s->files);
    if (!s || !s->files) {
        if (s)
            free(s);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    s->p = p;
    s->source = options ? options->source : NULL;
    size_t resources = pk_resource_count(p);
    s->scratch = pk_profile_new();
    s->symbolizer = s->scratch ? pk_symbolizer_new(s->scratch, options ? options->symbolize : NULL)
                               : NULL;
    s->scratch_resource = malloc((resources ? resources : 1) * sizeof *s->scratch_resource);
    if (!s->symbolizer || !s->scratch_resource) {
        pk_code_server_free(s);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; i < resources; i++)
        s->scratch_resource[i] = PK_NONE;
    for (size_t i = 0; i < functions; i++) {
        uint32_t file = pk_function_at(p, (uint32_t)i)->file;
        /* A name with a NUL byte inside could not be asked for whole. */
        if (file && pk_str_len(p, file) && strlen(pk_str(p, file)) == pk_str_len(p, file))
            s->files[s->file_count++] = pk_str(p, file);
    }
    qsort(s->files, s->file_count, sizeof *s->files, compare_strings);
    size_t kept = 0;
    for (size_t i = 0; i < s->file_count; i++)
        if (kept == 0 || strcmp(s->files[kept - 1], s->files[i]) != 0)
            s->files[kept++] = s->files[i];
    s->file_count = kept;
    *out = s;
    return PK_OK;
}

void pk_code_server_free(pk_code_server *server)
{
    if (!server)
        return;
    free(server->files);
    pk_symbolizer_free(server->symbolizer);
    pk_debuginfod_free(server->debuginfod);
    pk_profile_free(server->scratch);
    free(server->scratch_resource);
    free(server);
}

/* JSON text into a buffer. */
static void put(pk_buffer *b, const char *s)
{
    pk_buffer_append(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when it is not one. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
    size_t length = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3
                                    : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (length == 0 || length > n || (length == 2 && s[0] < 0xC2))
        return 0;
    for (size_t i = 1; i < length; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (length == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0;
    if (length == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || s[0] > 0xF4 ||
                        (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return length;
}

/* A JSON string of n bytes: escaped, and bytes that are not UTF-8 (a Latin-1 source file)
 * replaced by U+FFFD rather than making the document invalid. */
static void put_string(pk_buffer *b, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    pk_buffer_byte(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            pk_buffer_byte(b, '\\');
            pk_buffer_byte(b, c);
            i++;
        } else if (c < 0x20) {
            char escape[8];
            snprintf(escape, sizeof escape, "\\u%04x", c);
            put(b, escape);
            i++;
        } else {
            size_t length = utf8_length(s + i, n - i);
            if (length == 0) {
                put(b, "\\ufffd");
                i++;
            } else {
                pk_buffer_append(b, s + i, length);
                i += length;
            }
        }
    }
    pk_buffer_byte(b, '"');
}

static void put_hex(pk_buffer *b, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "\"0x%llx\"", (unsigned long long)v);
    put(b, text);
}

/* Ends an answer: the buffer's bytes become the response, or NULL when memory ran out. */
static int finish(pk_buffer *b, int status, char **response, size_t *response_size)
{
    pk_buffer_byte(b, '\n');
    if (b->failed) {
        pk_buffer_free(b);
        *response = NULL;
        *response_size = 0;
        return 0;
    }
    *response = (char *)b->data;
    *response_size = b->len;
    return status;
}

static int refuse(int status, const char *what, const char *detail, char **response,
                  size_t *response_size)
{
    pk_buffer b = {0};
    char message[512];
    snprintf(message, sizeof message, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
    put(&b, "{\"error\":");
    put_string(&b, message, strlen(message));
    put(&b, "}");
    return finish(&b, status, response, response_size);
}

/* A JSON array's length and items; a value that is not an array reads as an empty one (so the
 * callers need no separate null check the analyzers could lose track of). */
static size_t array_length(yajl_val v)
{
    return YAJL_IS_ARRAY(v) ? v->u.array.len : 0;
}

static yajl_val array_item(yajl_val v, size_t i)
{
    return YAJL_IS_ARRAY(v) && i < v->u.array.len ? v->u.array.values[i] : NULL;
}

static const char *member_string(yajl_val request, const char *name)
{
    const char *path[] = {name, NULL};
    yajl_val v = yajl_tree_get(request, path, yajl_t_string);
    return v ? YAJL_GET_STRING(v) : NULL;
}

/* A "0x..." member as a number; false when it is missing or not such a number. */
static bool member_hex(yajl_val request, const char *name, uint64_t *value)
{
    const char *text = member_string(request, name);
    if (!text || strncasecmp(text, "0x", 2) != 0 || !text[2])
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text + 2, &end, 16);
    if (*end || errno)
        return false;
    *value = v;
    return true;
}

static bool names_file(const pk_code_server *s, const char *file)
{
    return bsearch(&file, s->files, s->file_count, sizeof *s->files, compare_strings) != NULL;
}

/* Reads the file at an absolute path named by the profile (a native source file). */
static bool read_machine_file(const char *path, char **data, size_t *size, char *why,
                              size_t why_size)
{
    /* O_NONBLOCK: a FIFO named like a source file must not hold the server. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > PK_SOURCE_FILE_MAX) {
        snprintf(why, why_size, "%s", fd < 0 ? strerror(errno)
                                      : !S_ISREG(st.st_mode) ? "not a regular file"
                                                             : "too large for a source file");
        if (fd >= 0)
            close(fd);
        return false;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t len = 0;
    while (buf && len < (size_t)st.st_size) {
        ssize_t got = read(fd, buf + len, (size_t)st.st_size - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (!buf) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    *data = buf;
    *size = len;
    return true;
}

static uint32_t find_library(const pk_profile *p, const char *debug_name, const char *debug_id);

/* A native source file that is not on the machine, from the debuginfod servers the
 * environment names, by the build id of the library the request names: its path in their
 * cache (the caller frees it), or NULL. */
static char *source_from_servers(pk_code_server *s, yajl_val request, const char *file)
{
    const char *debug_name = member_string(request, "debugName");
    const char *debug_id = member_string(request, "debugId");
    uint32_t lib = debug_name && debug_id ? find_library(s->p, debug_name, debug_id) : PK_NONE;
    if (lib == PK_NONE)
        return NULL;
    const char *build_id = pk_str(s->p, pk_resource_at(s->p, lib)->build_id);
    if (!*build_id)
        return NULL;
    if (!s->debuginfod_tried) {
        s->debuginfod_tried = true;
        s->debuginfod = pk_debuginfod_new();
    }
    return pk_debuginfod_source(s->debuginfod, build_id, file);
}

static int answer_source(pk_code_server *s, yajl_val request, char **response,
                         size_t *response_size)
{
    const char *file = member_string(request, "file");
    if (!file)
        return refuse(400, "a /source/v1 request names its \"file\"", NULL, response,
                      response_size);
    if (!names_file(s, file))
        return refuse(403, "not a file this profile names", file, response, response_size);
    char *data = NULL;
    size_t size = 0;
    if (file[0] == '/') {
        char why[256];
        bool read = read_machine_file(file, &data, &size, why, sizeof why);
        if (!read) {
            char *fetched = source_from_servers(s, request, file);
            char fetch_why[256];
            read = fetched && read_machine_file(fetched, &data, &size, fetch_why, sizeof fetch_why);
            free(fetched);
        }
        if (!read) {
            char detail[600];
            snprintf(detail, sizeof detail, "%s: %s", file, why);
            return refuse(404, "cannot read the source file", detail, response, response_size);
        }
    } else {
        if (!s->source)
            return refuse(404, "no channel source was given (--source DIR|ZIP)", file, response,
                          response_size);
        pk_error err;
        pk_error_clear(&err);
        if (pk_source_read(s->source, file, &data, &size, &err) != PK_OK)
            return refuse(404, "cannot read the source file", err.message, response,
                          response_size);
    }
    pk_buffer b = {0};
    put(&b, "{\"symbolsLastModified\":null,\"sourceLastModified\":null,\"file\":");
    put_string(&b, file, strlen(file));
    put(&b, ",\"source\":");
    put_string(&b, data, size);
    put(&b, "}");
    free(data);
    return finish(&b, 200, response, response_size);
}

/* The resource of p that is the library debug_name/debug_id as the firefox writer names it. */
static uint32_t find_library(const pk_profile *p, const char *debug_name, const char *debug_id)
{
    for (size_t i = 0; i < pk_resource_count(p); i++) {
        const pk_resource *r = pk_resource_at(p, (uint32_t)i);
        if (!r->path || !pk_str_len(p, r->path) ||
            strcmp(fx_library_name(p, r), debug_name) != 0)
            continue;
        char breakpad[34];
        fx_breakpad_id(pk_str(p, r->build_id), breakpad);
        /* A library without a build id has the ID of zeros (the app's form), or none at all
         * (what the Firefox output of profkit 0.1 gave it). */
        if (strcasecmp(breakpad, debug_id) == 0 ||
            (!*debug_id && strcmp(breakpad, FX_NO_BUILD_ID) == 0))
            return (uint32_t)i;
    }
    return PK_NONE;
}

/* Capstone's architecture for an ELF file's header, with the name the profiler knows it by. */
static bool elf_architecture(const unsigned char *header, size_t size, cs_arch *arch,
                             cs_mode *mode, const char **name)
{
    if (size < 20 || memcmp(header, "\177ELF", 4) != 0)
        return false;
    bool little = header[5] == 1;
    unsigned machine = little ? (unsigned)(header[18] | header[19] << 8)
                              : (unsigned)(header[18] << 8 | header[19]);
    cs_mode endian = little ? CS_MODE_LITTLE_ENDIAN : CS_MODE_BIG_ENDIAN;
    switch (machine) {
    case 62: /* EM_X86_64 */
        *arch = CS_ARCH_X86, *mode = CS_MODE_64, *name = "x86_64";
        return true;
    case 3: /* EM_386 */
        *arch = CS_ARCH_X86, *mode = CS_MODE_32, *name = "x86";
        return true;
    case 183: /* EM_AARCH64 */
        *arch = CS_ARCH_ARM64, *mode = endian, *name = "aarch64";
        return true;
    case 40: /* EM_ARM */
        *arch = CS_ARCH_ARM, *mode = (cs_mode)(CS_MODE_ARM | endian), *name = "arm";
        return true;
    default:
        return false;
    }
}

/* The resource of the scratch profile that stands for resource r of p; PK_NONE when memory
 * runs out. */
static uint32_t scratch_resource(pk_code_server *s, uint32_t r)
{
    if (s->scratch_resource[r] != PK_NONE)
        return s->scratch_resource[r];
    const pk_resource *from = pk_resource_at(s->p, r);
    pk_resource copy = *from;
    copy.name = pk_intern_cstr(s->scratch, pk_str(s->p, from->name));
    copy.path = pk_intern_cstr(s->scratch, pk_str(s->p, from->path));
    copy.build_id = pk_intern_cstr(s->scratch, pk_str(s->p, from->build_id));
    if (copy.name == PK_NONE || copy.path == PK_NONE || copy.build_id == PK_NONE)
        return PK_NONE;
    s->scratch_resource[r] = pk_intern_resource(s->scratch, &copy);
    return s->scratch_resource[r];
}

/* The profile's address of a library-relative address (the firefox writer's: the mapping's
 * file offset of the address), false when it is not in the library's mapping. */
static bool absolute_address(const pk_resource *r, uint64_t relative, uint64_t *address)
{
    if (r->start == 0 && r->limit == 0) {
        *address = relative;
        return true;
    }
    if (relative < r->offset || relative - r->offset >= r->limit - r->start)
        return false;
    *address = r->start + (relative - r->offset);
    return true;
}

static int answer_asm(pk_code_server *s, yajl_val request, char **response,
                      size_t *response_size)
{
    const char *debug_name = member_string(request, "debugName");
    const char *debug_id = member_string(request, "debugId");
    uint64_t start, size;
    if (!debug_name || !debug_id || !member_hex(request, "startAddress", &start) ||
        !member_hex(request, "size", &size))
        return refuse(400, "an /asm/v1 request names \"debugName\", \"debugId\", "
                           "\"startAddress\" and \"size\"",
                      NULL, response, response_size);
    const char *until_end_path[] = {"continueUntilFunctionEnd", NULL};
    bool until_end = yajl_tree_get(request, until_end_path, yajl_t_true) != NULL;
    uint32_t r = find_library(s->p, debug_name, debug_id);
    if (r == PK_NONE)
        return refuse(404, "not a library of this profile", debug_name, response, response_size);
    if (size == 0 || size > ASM_RANGE_MAX || start > INT64_MAX - ASM_RANGE_MAX)
        return refuse(413, "the range is empty or larger than a function can be", NULL, response,
                      response_size);
    const pk_resource *library = pk_resource_at(s->p, r);
    uint64_t address;
    if (!absolute_address(library, start, &address))
        return refuse(404, "the range is not in the library's mapping", debug_name, response,
                      response_size);
    uint32_t scratch = scratch_resource(s, r);
    if (scratch == PK_NONE)
        return 0;
    pk_symbolizer_code code;
    if (!pk_symbolizer_code_at(s->symbolizer, scratch, address, &code))
        return refuse(404, "the library's binary is not on this machine",
                      pk_str(s->p, library->path), response, response_size);
    /* The app asks from the lowest address it saw in the function (a caller's is a return
     * address - 1, inside a call instruction) for as far as it saw: decoding starts at the
     * function's first instruction, and goes on to its end when the app does not know it. */
    uint64_t end = start + size;
    if (code.symbol && code.symbol_size && code.symbol_start <= address &&
        address - code.symbol_start < ASM_RANGE_MAX) {
        uint64_t back = address - code.symbol_start;
        if (until_end && code.symbol_start + code.symbol_size > address &&
            code.symbol_start + code.symbol_size - address > size)
            end = start + (code.symbol_start + code.symbol_size - address);
        start -= back;
        address = code.symbol_start;
        if (!pk_symbolizer_code_at(s->symbolizer, scratch, address, &code))
            return refuse(404, "the library's binary is not on this machine",
                          pk_str(s->p, library->path), response, response_size);
    }
    size = end - start;
    if (size > ASM_RANGE_MAX)
        return refuse(413, "the range is larger than a function can be", NULL, response,
                      response_size);
    if (!code.has_file_offset)
        return refuse(404, "the range is not in the library's binary", code.binary, response,
                      response_size);
    const char *path = code.binary;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return refuse(404, "the library's binary is not on this machine", path, response,
                      response_size);
    }
    unsigned char header[64];
    ssize_t header_size = pread(fd, header, sizeof header, 0);
    cs_arch arch;
    cs_mode mode;
    const char *arch_name;
    if (header_size <= 0 || !elf_architecture(header, (size_t)header_size, &arch, &mode,
                                              &arch_name)) {
        close(fd);
        return refuse(404, "not an ELF binary of an architecture profkit disassembles", path,
                      response, response_size);
    }
    size_t want = (size_t)size + ASM_TAIL;
    unsigned char *code_bytes = malloc(want);
    ssize_t got = code_bytes && code.file_offset <= INT64_MAX
                      ? pread(fd, code_bytes, want, (off_t)code.file_offset)
                      : -1;
    close(fd);
    csh handle;
    if (got <= 0 || cs_open(arch, mode, &handle) != CS_ERR_OK) {
        free(code_bytes);
        return refuse(404, "the range is not in the library's binary", path, response,
                      response_size);
    }
    if (arch == CS_ARCH_X86)
        cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
    pk_buffer b = {0};
    put(&b, "{\"startAddress\":");
    put_hex(&b, start);
    put(&b, ",\"size\":");
    put_hex(&b, size);
    put(&b, ",\"arch\":");
    put_string(&b, arch_name, strlen(arch_name));
    put(&b, ",\"syntax\":[\"Intel\"],\"instructions\":[");
    cs_insn *insn = cs_malloc(handle);
    const uint8_t *at = code_bytes;
    size_t left = (size_t)got;
    uint64_t pc = start;
    bool first = true;
    /* Instructions that begin inside the range; the one that begins last may end past it. */
    while (insn && pc < start + size && cs_disasm_iter(handle, &at, &left, &pc, insn)) {
        char text[256];
        snprintf(text, sizeof text, "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "",
                 insn->op_str);
        char offset[32];
        snprintf(offset, sizeof offset, "%s[%llu,", first ? "" : ",",
                 (unsigned long long)(insn->address - start));
        put(&b, offset);
        put_string(&b, text, strlen(text));
        put(&b, "]");
        first = false;
    }
    put(&b, "]}");
    if (insn)
        cs_free(insn, 1);
    cs_close(&handle);
    free(code_bytes);
    return finish(&b, 200, response, response_size);
}

/* A hex member of a frame's answer. */
static void put_hex_member(pk_buffer *b, const char *name, uint64_t v)
{
    put(b, ",\"");
    put(b, name);
    put(b, "\":");
    put_hex(b, v);
}

/* A function's name and file members ("function", "file"), and "line" when known. */
static void put_function(pk_buffer *b, const pk_profile *scratch, uint32_t frame, bool comma)
{
    const pk_frame *f = pk_frame_at(scratch, frame);
    const pk_function *fn = pk_function_at(scratch, f->function);
    put(b, comma ? ",\"function\":" : "\"function\":");
    put_string(b, pk_str(scratch, fn->name), pk_str_len(scratch, fn->name));
    if (fn->file && pk_str_len(scratch, fn->file)) {
        put(b, ",\"file\":");
        put_string(b, pk_str(scratch, fn->file), pk_str_len(scratch, fn->file));
    }
    if (f->line) {
        char line[32];
        snprintf(line, sizeof line, ",\"line\":%u", (unsigned)f->line);
        put(b, line);
    }
}

/* One address of a job: {"frame", "module_offset", "module", and when named "function",
 * "function_offset", "function_size", "file", "line", "inlines" (innermost first)}. */
static bool put_symbolicated(pk_code_server *s, pk_buffer *b, size_t index, const char *module,
                             uint32_t r, uint64_t relative)
{
    char head[64];
    snprintf(head, sizeof head, "{\"frame\":%zu", index);
    put(b, head);
    put(b, ",\"module_offset\":");
    put_hex(b, relative);
    put(b, ",\"module\":");
    put_string(b, module, strlen(module));
    uint64_t address;
    uint32_t scratch = r == PK_NONE ? PK_NONE : scratch_resource(s, r);
    if (r != PK_NONE && scratch == PK_NONE)
        return false;
    pk_symbolizer_code code;
    if (scratch != PK_NONE && absolute_address(pk_resource_at(s->p, r), relative, &address) &&
        pk_symbolizer_code_at(s->symbolizer, scratch, address, &code)) {
        const uint32_t *frames;
        size_t n = pk_symbolizer_frames(s->symbolizer, scratch, address, &frames);
        if (n == 0)
            return false;
        if (!pk_frame_is_unresolved(s->scratch, frames[0]) || code.symbol) {
            if (pk_frame_is_unresolved(s->scratch, frames[0])) {
                put(b, ",\"function\":");
                put_string(b, code.symbol, strlen(code.symbol));
            } else {
                put_function(b, s->scratch, frames[0], true);
            }
            put_hex_member(b, "function_offset", code.symbol ? address - code.symbol_start : 0);
            if (code.symbol && code.symbol_size)
                put_hex_member(b, "function_size", code.symbol_size);
            if (n > 1) {
                put(b, ",\"inlines\":[");
                for (size_t i = n - 1; i >= 1; i--) {
                    put(b, i == n - 1 ? "{" : ",{");
                    put_function(b, s->scratch, frames[i], false);
                    put(b, "}");
                }
                put(b, "]");
            }
        }
    }
    put(b, "}");
    return true;
}

/* {"jobs": [{"memoryMap": [[debugName, breakpadId], ...], "stacks": [[[lib, address], ...],
 * ...]}]} (or one job without "jobs") -> {"results": [{"stacks": [[frame, ...]],
 * "found_modules": {"name/id": bool}}]}. */
static int answer_symbolicate(pk_code_server *s, yajl_val request, char **response,
                              size_t *response_size)
{
    const char *jobs_path[] = {"jobs", NULL};
    yajl_val jobs = yajl_tree_get(request, jobs_path, yajl_t_array);
    size_t job_count = jobs ? array_length(jobs) : 1;
    const char *map_path[] = {"memoryMap", NULL}, *stacks_path[] = {"stacks", NULL};
    for (size_t j = 0; j < job_count; j++) {
        yajl_val job = jobs ? array_item(jobs, j) : request;
        if (!yajl_tree_get(job, map_path, yajl_t_array) ||
            !yajl_tree_get(job, stacks_path, yajl_t_array))
            return refuse(400, "a /symbolicate/v5 job has a \"memoryMap\" and \"stacks\"", NULL,
                          response, response_size);
    }
    pk_buffer b = {0};
    bool ok = true;
    put(&b, "{\"results\":[");
    for (size_t j = 0; j < job_count && ok; j++) {
        yajl_val job = jobs ? array_item(jobs, j) : request;
        yajl_val map = yajl_tree_get(job, map_path, yajl_t_array);
        yajl_val stacks = yajl_tree_get(job, stacks_path, yajl_t_array);
        size_t modules = array_length(map);
        uint32_t *libs = malloc((modules ? modules : 1) * sizeof *libs);
        const char **names = malloc((modules ? modules : 1) * sizeof *names);
        if (!libs || !names) {
            free(libs);
            free(names);
            ok = false;
            break;
        }
        for (size_t m = 0; m < modules; m++) {
            yajl_val entry = array_item(map, m);
            yajl_val name = array_length(entry) >= 2 ? array_item(entry, 0) : NULL;
            yajl_val id = name ? array_item(entry, 1) : NULL;
            bool named = name && YAJL_IS_STRING(name) && YAJL_IS_STRING(id);
            names[m] = named ? YAJL_GET_STRING(name) : "";
            libs[m] = named ? find_library(s->p, YAJL_GET_STRING(name), YAJL_GET_STRING(id))
                            : PK_NONE;
        }
        put(&b, j ? ",{\"stacks\":[" : "{\"stacks\":[");
        for (size_t k = 0; k < array_length(stacks) && ok; k++) {
            yajl_val stack = array_item(stacks, k);
            put(&b, k ? ",[" : "[");
            size_t frames = array_length(stack);
            for (size_t f = 0; f < frames && ok; f++) {
                yajl_val pair = array_item(stack, f);
                yajl_val lib = array_length(pair) >= 2 ? array_item(pair, 0) : NULL;
                yajl_val at = lib ? array_item(pair, 1) : NULL;
                long long m = lib && YAJL_IS_INTEGER(lib) ? YAJL_GET_INTEGER(lib) : -1;
                long long relative = at && YAJL_IS_INTEGER(at) ? YAJL_GET_INTEGER(at) : -1;
                if (f)
                    put(&b, ",");
                if (m < 0 || (size_t)m >= modules || relative < 0) {
                    char text[64];
                    snprintf(text, sizeof text, "{\"frame\":%zu}", f);
                    put(&b, text);
                    continue;
                }
                ok = put_symbolicated(s, &b, f, names[m], libs[m], (uint64_t)relative);
            }
            put(&b, "]");
        }
        put(&b, "],\"found_modules\":{");
        for (size_t m = 0; m < modules; m++) {
            yajl_val entry = array_item(map, m);
            if (!names[m][0])
                continue;
            char key[600];
            snprintf(key, sizeof key, "%s/%s", names[m],
                     YAJL_GET_STRING(array_item(entry, 1)));
            bool found = false;
            if (libs[m] != PK_NONE) {
                uint32_t scratch = scratch_resource(s, libs[m]);
                pk_symbolizer_code code;
                const pk_resource *r = pk_resource_at(s->p, libs[m]);
                found = scratch != PK_NONE &&
                        pk_symbolizer_code_at(s->symbolizer, scratch, r->start, &code);
            }
            put(&b, m ? "," : "");
            put_string(&b, key, strlen(key));
            put(&b, found ? ":true" : ":false");
        }
        put(&b, "}}");
        free(libs);
        free(names);
    }
    put(&b, "]}");
    if (!ok) {
        pk_buffer_free(&b);
        return 0;
    }
    return finish(&b, 200, response, response_size);
}

int pk_code_server_answer(pk_code_server *server, const char *route, const char *request,
                          size_t size, char **response, size_t *response_size)
{
    *response = NULL;
    *response_size = 0;
    bool source = strcmp(route, "/source/v1") == 0, assembly = strcmp(route, "/asm/v1") == 0;
    bool symbolicate = strcmp(route, "/symbolicate/v5") == 0;
    if (!source && !assembly && !symbolicate)
        return refuse(404, "not a route of this server", route, response, response_size);
    if (size > REQUEST_MAX || memchr(request, '\0', size))
        return refuse(400, "not a JSON request", NULL, response, response_size);
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, request, size);
    text[size] = '\0';
    char why[256];
    yajl_val tree = yajl_tree_parse(text, why, sizeof why);
    free(text);
    if (!tree || !YAJL_IS_OBJECT(tree)) {
        yajl_tree_free(tree);
        return refuse(400, "not a JSON request", NULL, response, response_size);
    }
    int status = source     ? answer_source(server, tree, response, response_size)
                 : assembly ? answer_asm(server, tree, response, response_size)
                            : answer_symbolicate(server, tree, response, response_size);
    yajl_tree_free(tree);
    return status;
}
