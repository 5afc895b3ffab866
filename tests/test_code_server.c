/* SPDX-License-Identifier: MIT */
/* The symbolication API of `profkit view` (profkit/code_server.h) without HTTP: each route with
 * a good request and with requests it must refuse, on examples/roku-channel.bsprof with a
 * channel folder or zip made here, and on profiles built in memory: one naming files that
 * climb out of the source or lie on this machine, and one whose library is this test program
 * itself, mapped where /proc/self/maps says, so that /asm/v1 and /symbolicate/v5 read a real
 * binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>
#include <zip.h>

#include "profkit/code_server.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/source_names.h"

/* The function /asm/v1 and /symbolicate/v5 are asked about: not inlined, so that it has an
 * ELF symbol and code of its own. */
__attribute__((noinline)) int code_server_target(int x);
__attribute__((noinline)) int code_server_target(int x)
{
    return x * 3 + 1;
}

/* snprintf into an array, failing the test rather than cutting the text short. */
#define FORMAT(array, ...) \
    assert_true((size_t)snprintf(array, sizeof array, __VA_ARGS__) < sizeof array)

static const char *scratch(const char *name)
{
    static char path[1024];
    const char *dir = getenv("PK_TEST_TMPDIR");
    FORMAT(path, "%s/code_server_%s", dir ? dir : ".", name);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static const char strings_brs[] = "' Strings.brs\nfunction PadLeft(s, n)\n  return s\nend function\n";

/* A channel folder: Strings.brs, and Json.brs as a link to a file outside the channel; the
 * same Strings.brs in a package zip. */
static void make_channel(void)
{
    char command[2048];
    FORMAT(command, "rm -rf '%s' && mkdir -p '%s/source/utils'",
             scratch("chan"), scratch("chan"));
    assert_int_equal(system(command), 0);
    char path[1200];
    FORMAT(path, "%s/manifest", scratch("chan"));
    write_text(path, "title=test\n");
    FORMAT(path, "%s/source/utils/Strings.brs", scratch("chan"));
    write_text(path, strings_brs);
    write_text(scratch("outside.brs"), "secret outside the channel\n");
    FORMAT(path, "%s/source/utils/Json.brs", scratch("chan"));
    char target[1024];
    FORMAT(target, "%s", scratch("outside.brs"));
    if (target[0] != '/') {
        char cwd[512];
        assert_non_null(getcwd(cwd, sizeof cwd));
        FORMAT(target, "%s/%s", cwd, scratch("outside.brs"));
    }
    assert_int_equal(symlink(target, path), 0);

    int error = 0;
    remove(scratch("chan.zip"));
    zip_t *z = zip_open(scratch("chan.zip"), ZIP_CREATE | ZIP_TRUNCATE, &error);
    assert_non_null(z);
    static const struct {
        const char *name, *text;
    } entries[] = {{"manifest", "title=test\n"}, {"source/utils/Strings.brs", strings_brs}};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        zip_source_t *s = zip_source_buffer(z, entries[i].text, strlen(entries[i].text), 0);
        assert_non_null(s);
        assert_true(zip_file_add(z, entries[i].name, s, ZIP_FL_ENC_UTF_8) >= 0);
    }
    assert_int_equal(zip_close(z), 0);
}

static pk_profile *roku_profile(void)
{
    char path[1024];
    FORMAT(path, "%s/examples/roku-channel.bsprof",
             getenv("PK_SOURCE_DIR") ? getenv("PK_SOURCE_DIR") : ".");
    pk_profile *p = NULL;
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_read_file(path, NULL, NULL, &p, &err), PK_OK);
    return p;
}

/* One answer: its status, and its document parsed (NULL when it is not JSON). */
typedef struct answer {
    int status;
    char *text;
    yajl_val doc;
} answer;

static answer ask_bytes(pk_code_server *s, const char *route, const char *request, size_t size)
{
    answer a = {0};
    size_t text_size = 0;
    char *response = NULL;
    a.status = pk_code_server_answer(s, route, request, size, &response, &text_size);
    assert_non_null(response);
    /* The answer is text_size bytes, not a C string: one is made of it, and it holds no NUL. */
    assert_null(memchr(response, '\0', text_size));
    a.text = malloc(text_size + 1);
    assert_non_null(a.text);
    memcpy(a.text, response, text_size);
    a.text[text_size] = '\0';
    free(response);
    char why[256];
    a.doc = yajl_tree_parse(a.text, why, sizeof why);
    assert_non_null(a.doc);
    assert_true(YAJL_IS_OBJECT(a.doc));
    return a;
}

static answer ask(pk_code_server *s, const char *route, const char *request)
{
    return ask_bytes(s, route, request, strlen(request));
}

static void answer_free(answer *a)
{
    yajl_tree_free(a->doc);
    free(a->text);
}

static yajl_val member(yajl_val v, const char *name)
{
    const char *path[] = {name, NULL};
    return yajl_tree_get(v, path, yajl_t_any);
}

static const char *member_string(yajl_val v, const char *name)
{
    yajl_val m = member(v, name);
    return m && YAJL_IS_STRING(m) ? YAJL_GET_STRING(m) : NULL;
}

/* A refusal: the status, and an "error" that contains needle (when not NULL). */
static void expect_refusal(pk_code_server *s, const char *route, const char *request, int status,
                           const char *needle)
{
    answer a = ask(s, route, request);
    if (a.status != status)
        fail_msg("%s %s: status %d, not %d: %s", route, request, a.status, status, a.text);
    const char *error = member_string(a.doc, "error");
    assert_non_null(error);
    if (needle && !strstr(error, needle))
        fail_msg("%s %s: \"%s\" does not say \"%s\"", route, request, error, needle);
    assert_null(strstr(a.text, "secret"));
    answer_free(&a);
}

static char *source_request(const char *file)
{
    static char text[1024];
    FORMAT(text,
             "{\"debugName\":\"chan\",\"debugId\":\"000000000000000000000000000000000\","
             "\"moduleOffset\":\"0x50\",\"file\":\"%s\"}",
             file);
    return text;
}

static pk_code_server *server_for(const pk_profile *p, pk_source *source)
{
    pk_code_server_options options = {.source = source, .symbolize = NULL};
    pk_code_server *s = NULL;
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_code_server_new(p, &options, &s, &err), PK_OK);
    assert_non_null(s);
    return s;
}

/* ---- every route ------------------------------------------------------------------------------ */

static void requests_that_are_not_requests(void **state)
{
    (void)state;
    pk_profile *p = roku_profile();
    pk_code_server *s = server_for(p, NULL);
    static const char *const routes[] = {"/source/v1", "/asm/v1", "/symbolicate/v5"};
    for (size_t i = 0; i < 3; i++) {
        expect_refusal(s, routes[i], "not json", 400, "not a JSON request");
        expect_refusal(s, routes[i], "", 400, "not a JSON request");
        expect_refusal(s, routes[i], "[1, 2]", 400, "not a JSON request");
        expect_refusal(s, routes[i], "\"file\"", 400, "not a JSON request");
        expect_refusal(s, routes[i], "{\"file\": ", 400, "not a JSON request");
        answer a = ask_bytes(s, routes[i], "{\"file\":\"a\0b\"}", 14);
        assert_int_equal(a.status, 400);
        answer_free(&a);
    }
    expect_refusal(s, "/nothing/v1", source_request("pkg:/source/main.brs"), 404,
                   "not a route");
    expect_refusal(s, "/source/v2", source_request("pkg:/source/main.brs"), 404, "/source/v2");
    pk_code_server_free(s);
    pk_code_server_free(NULL);
    pk_profile_free(p);
}

/* ---- /source/v1 ------------------------------------------------------------------------------- */

static void expect_strings_brs(pk_code_server *s)
{
    answer a = ask(s, "/source/v1", source_request("pkg:/source/utils/Strings.brs"));
    assert_int_equal(a.status, 200);
    assert_string_equal(member_string(a.doc, "file"), "pkg:/source/utils/Strings.brs");
    assert_string_equal(member_string(a.doc, "source"), strings_brs);
    assert_true(YAJL_IS_NULL(member(a.doc, "symbolsLastModified")));
    assert_true(YAJL_IS_NULL(member(a.doc, "sourceLastModified")));
    answer_free(&a);
}

static void source_from_a_folder(void **state)
{
    (void)state;
    make_channel();
    pk_profile *p = roku_profile();
    pk_source *source = NULL;
    pk_error err;
    assert_int_equal(pk_source_open(scratch("chan"), &source, &err), PK_OK);
    pk_code_server *s = server_for(p, source);

    expect_strings_brs(s);
    /* Missing or mistyped members. */
    expect_refusal(s, "/source/v1", "{}", 400, "\"file\"");
    expect_refusal(s, "/source/v1", "{\"file\": 3}", 400, "\"file\"");
    expect_refusal(s, "/source/v1", "{\"file\": [\"pkg:/source/utils/Strings.brs\"]}", 400,
                   "\"file\"");
    expect_refusal(s, "/source/v1", "{\"file\": null}", 400, "\"file\"");
    /* Files the profile does not name, on this machine or in the channel. */
    expect_refusal(s, "/source/v1", source_request("/etc/passwd"), 403, "/etc/passwd");
    expect_refusal(s, "/source/v1", source_request("pkg:/source/utils/Nothing.brs"), 403,
                   "not a file this profile names");
    expect_refusal(s, "/source/v1", source_request("pkg:/../outside.brs"), 403, NULL);
    expect_refusal(s, "/source/v1", source_request(""), 403, NULL);
    /* Named, but a link out of the folder: not followed. */
    expect_refusal(s, "/source/v1", source_request("pkg:/source/utils/Json.brs"), 404,
                   "cannot read");
    /* Named, and not in the channel. */
    expect_refusal(s, "/source/v1", source_request("pkg:/source/main.brs"), 404, "cannot read");
    pk_code_server_free(s);
    pk_source_close(source);

    /* Without a source, a channel file cannot be read, and the answer says what is missing. */
    s = server_for(p, NULL);
    expect_refusal(s, "/source/v1", source_request("pkg:/source/utils/Strings.brs"), 404,
                   "--source");
    pk_code_server_free(s);
    /* No options at all is a server without a source. */
    pk_error_clear(&err);
    assert_int_equal(pk_code_server_new(p, NULL, &s, &err), PK_OK);
    expect_refusal(s, "/source/v1", source_request("pkg:/source/utils/Strings.brs"), 404,
                   "--source");
    pk_code_server_free(s);
    pk_profile_free(p);
}

static void source_from_a_zip(void **state)
{
    (void)state;
    make_channel();
    pk_profile *p = roku_profile();
    pk_source *source = NULL;
    pk_error err;
    assert_int_equal(pk_source_open(scratch("chan.zip"), &source, &err), PK_OK);
    pk_code_server *s = server_for(p, source);
    expect_strings_brs(s);
    expect_refusal(s, "/source/v1", source_request("pkg:/source/utils/Json.brs"), 404,
                   "cannot read");
    expect_refusal(s, "/source/v1", source_request("/etc/passwd"), 403, NULL);
    pk_code_server_free(s);
    pk_source_close(source);
    pk_profile_free(p);
}

/* A profile whose functions are in the named files. */
static pk_profile *profile_naming(const char *const *files, size_t count)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    for (size_t i = 0; i < count; i++) {
        char name[32];
        FORMAT(name, "f%zu", i);
        pk_function fn = {.name = pk_intern_cstr(p, name), .file = pk_intern_cstr(p, files[i]),
                          .start_line = 1, .resource = PK_NONE};
        pk_frame fr = {pk_intern_function(p, &fn), 1, 0, PK_NONE, 0};
        int64_t one = 1;
        pk_add_sample(p, thread, pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr)), &one);
    }
    return p;
}

/* Named files that climb out of the source with "..", and files on this machine. */
static void source_paths_out_of_the_source(void **state)
{
    (void)state;
    make_channel();
    char absolute[1200], missing[1200];
    FORMAT(absolute, "%s", scratch("native.c"));
    if (absolute[0] != '/') {
        char cwd[512];
        assert_non_null(getcwd(cwd, sizeof cwd));
        FORMAT(absolute, "%s/%s", cwd, scratch("native.c"));
    }
    write_text(absolute, "int main(void) { return 0; }\n");
    FORMAT(missing, "%s.missing", absolute);
    const char *files[] = {"pkg:/../outside.brs", "../outside.brs", "pkg:/source/../../outside.brs",
                           absolute, missing, "/proc/self"};
    pk_profile *p = profile_naming(files, sizeof files / sizeof files[0]);
    pk_source *source = NULL;
    pk_error err;
    assert_int_equal(pk_source_open(scratch("chan"), &source, &err), PK_OK);
    pk_code_server *s = server_for(p, source);
    for (size_t i = 0; i < 3; i++)
        expect_refusal(s, "/source/v1", source_request(files[i]), 404, "cannot read");

    answer a = ask(s, "/source/v1", source_request(absolute));
    assert_int_equal(a.status, 200);
    assert_string_equal(member_string(a.doc, "file"), absolute);
    assert_string_equal(member_string(a.doc, "source"), "int main(void) { return 0; }\n");
    answer_free(&a);
    expect_refusal(s, "/source/v1", source_request(missing), 404, "cannot read");
    expect_refusal(s, "/source/v1", source_request("/proc/self"), 404, "not a regular file");
    pk_code_server_free(s);
    pk_source_close(source);
    pk_profile_free(p);
}

/* ---- /asm/v1 and /symbolicate/v5 -------------------------------------------------------------- */

/* A profile whose one library is the mapping of this program that holds code_server_target,
 * and that function's library-relative address (the mapping's file offset of it). */
static pk_profile *self_profile(uint64_t *relative)
{
    uint64_t address = (uint64_t)(uintptr_t)&code_server_target;
    FILE *maps = fopen("/proc/self/maps", "r");
    assert_non_null(maps);
    char line[4096];
    unsigned long long start = 0, limit = 0, offset = 0;
    char path[4096] = "";
    bool found = false;
    while (!found && fgets(line, sizeof line, maps)) {
        char perms[8];
        int consumed = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &limit, perms, &offset,
                   &consumed) < 4)
            continue;
        if (address < start || address >= limit)
            continue;
        const char *rest = line + consumed;
        while (*rest == ' ')
            rest++;
        FORMAT(path, "%s", rest);
        path[strcspn(path, "\n")] = '\0';
        found = true;
    }
    fclose(maps);
    assert_true(found);
    assert_int_equal(path[0], '/');
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_resource r = {pk_intern_cstr(p, "self"), pk_intern_cstr(p, path), pk_intern_cstr(p, ""),
                     start, limit, offset};
    uint32_t resource = pk_intern_resource(p, &r);
    pk_function fn = {.name = pk_intern_cstr(p, "0x1"), .resource = resource};
    pk_frame fr = {pk_intern_function(p, &fn), 0, address, resource, 0};
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    int64_t one = 1;
    pk_add_sample(p, thread, pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr)), &one);
    *relative = address - start + offset;
    return p;
}

/* The breakpad ID the Firefox output gives a library without a build id. */
#define NO_BUILD_ID "000000000000000000000000000000000"

static char *asm_request(const char *name, const char *id, uint64_t start, const char *size,
                         bool until_end)
{
    static char text[512];
    FORMAT(text,
             "{\"debugName\":\"%s\",\"debugId\":\"%s\",\"name\":\"self\",\"codeId\":null,"
             "\"startAddress\":\"0x%llx\",\"size\":\"%s\",\"continueUntilFunctionEnd\":%s}",
             name, id, (unsigned long long)start, size, until_end ? "true" : "false");
    return text;
}

static void instructions_of_a_library(void **state)
{
    (void)state;
    uint64_t target;
    pk_profile *p = self_profile(&target);
    pk_code_server *s = server_for(p, NULL);
    /* code_server_target from its start to its end, asked from inside it. */
    /* As the app asks for a library without a build id: its ID of zeros. */
    answer a = ask(s, "/asm/v1", asm_request("self", NO_BUILD_ID, target + 1, "0x1", true));
    if (a.status != 200)
        fail_msg("/asm/v1: %d %s", a.status, a.text);
    char hex[32];
    FORMAT(hex, "0x%llx", (unsigned long long)target);
    assert_string_equal(member_string(a.doc, "startAddress"), hex);
    const char *arch = member_string(a.doc, "arch");
    assert_non_null(arch);
    yajl_val syntax = member(a.doc, "syntax");
    assert_true(YAJL_IS_ARRAY(syntax));
    assert_string_equal(YAJL_GET_STRING(YAJL_GET_ARRAY(syntax)->values[0]), "Intel");
    yajl_val instructions = member(a.doc, "instructions");
    assert_true(YAJL_IS_ARRAY(instructions));
    size_t count = YAJL_GET_ARRAY(instructions)->len;
    assert_true(count >= 2);
    long long previous = -1;
    bool returns = false;
    for (size_t i = 0; i < count; i++) {
        yajl_val pair = YAJL_GET_ARRAY(instructions)->values[i];
        assert_true(YAJL_IS_ARRAY(pair) && YAJL_GET_ARRAY(pair)->len == 2);
        yajl_val offset = YAJL_GET_ARRAY(pair)->values[0];
        yajl_val text = YAJL_GET_ARRAY(pair)->values[1];
        assert_true(YAJL_IS_INTEGER(offset) && YAJL_IS_STRING(text));
        assert_true(YAJL_GET_INTEGER(offset) > previous);
        if (i == 0)
            assert_int_equal(YAJL_GET_INTEGER(offset), 0);
        previous = YAJL_GET_INTEGER(offset);
        const char *instruction = YAJL_GET_STRING(text);
        returns |= instruction && strncmp(instruction, "ret", 3) == 0;
    }
    /* To the function's end: its return is among them on x86, where it is "ret". */
    if (strcmp(arch, "x86_64") == 0 || strcmp(arch, "x86") == 0)
        assert_true(returns);
    const char *size_text = member_string(a.doc, "size");
    assert_non_null(size_text);
    uint64_t size = strtoull(size_text, NULL, 16);
    assert_true(size > (uint64_t)previous);
    answer_free(&a);

    /* Without continueUntilFunctionEnd, only the instructions that begin before the range's
     * end: from the function's start to the one at its first byte. */
    a = ask(s, "/asm/v1", asm_request("self", "", target, "0x1", false));
    assert_int_equal(a.status, 200);
    assert_int_equal(YAJL_GET_ARRAY(member(a.doc, "instructions"))->len, 1);
    answer_free(&a);

    /* Missing members and wrong types. */
    const char *need = "\"startAddress\"";
    expect_refusal(s, "/asm/v1", "{}", 400, need);
    expect_refusal(s, "/asm/v1", "{\"debugName\":\"self\",\"debugId\":\"\",\"size\":\"0x4\"}",
                   400, need);
    expect_refusal(s, "/asm/v1", "{\"debugName\":\"self\",\"startAddress\":\"0x10\",\"size\":\"0x4\"}",
                   400, need);
    expect_refusal(s, "/asm/v1",
                   "{\"debugName\":\"self\",\"debugId\":\"\",\"startAddress\":16,\"size\":\"0x4\"}",
                   400, need);
    expect_refusal(s, "/asm/v1",
                   "{\"debugName\":\"self\",\"debugId\":\"\",\"startAddress\":\"16\",\"size\":\"0x4\"}",
                   400, need);
    expect_refusal(s, "/asm/v1",
                   "{\"debugName\":\"self\",\"debugId\":\"\",\"startAddress\":\"0x\",\"size\":\"0x4\"}",
                   400, need);
    expect_refusal(s, "/asm/v1",
                   "{\"debugName\":\"self\",\"debugId\":\"\",\"startAddress\":\"0x10g\",\"size\":\"0x4\"}",
                   400, need);
    expect_refusal(s, "/asm/v1",
                   "{\"debugName\":\"self\",\"debugId\":\"\",\"startAddress\":\"0x10\",\"size\":4}",
                   400, need);
    expect_refusal(s, "/asm/v1",
                   "{\"debugName\":3,\"debugId\":\"\",\"startAddress\":\"0x10\",\"size\":\"0x4\"}",
                   400, need);
    /* Libraries the profile does not have: another name, another ID. */
    expect_refusal(s, "/asm/v1", asm_request("other", "", target, "0x4", true), 404,
                   "not a library of this profile");
    expect_refusal(s, "/asm/v1", asm_request("self", "0123", target, "0x4", true), 404,
                   "not a library of this profile");
    /* Addresses outside the library's mapping, empty and oversized ranges. */
    expect_refusal(s, "/asm/v1", asm_request("self", "", 0x7fffffffffffull, "0x4", true), 404,
                   "not in the library's mapping");
    expect_refusal(s, "/asm/v1", asm_request("self", "", target, "0x0", true), 413, NULL);
    expect_refusal(s, "/asm/v1", asm_request("self", "", target, "0x10000000", true), 413, NULL);
    expect_refusal(s, "/asm/v1", asm_request("self", "", target, "0xffffffffffffffff", true),
                   413, NULL);
    expect_refusal(s, "/asm/v1", asm_request("self", "", 0xfffffffffffffff0ull, "0x4", true), 413,
                   NULL);
    pk_code_server_free(s);
    pk_profile_free(p);
}

static void symbolicated_addresses(void **state)
{
    (void)state;
    uint64_t target;
    pk_profile *p = self_profile(&target);
    pk_code_server *s = server_for(p, NULL);
    char request[512];
    FORMAT(request,
             "{\"jobs\":[{\"memoryMap\":[[\"self\",\"" NO_BUILD_ID "\"],[\"nope\",\"00\"],7],"
             "\"stacks\":[[[0,%llu],[1,5],[2,5],[9,5],[0,-1],[\"0\",5],3]]}]}",
             (unsigned long long)(target + 1));
    answer a = ask(s, "/symbolicate/v5", request);
    if (a.status != 200)
        fail_msg("/symbolicate/v5: %d %s", a.status, a.text);
    yajl_val results = member(a.doc, "results");
    assert_true(YAJL_IS_ARRAY(results) && YAJL_GET_ARRAY(results)->len == 1);
    yajl_val result = YAJL_GET_ARRAY(results)->values[0];
    yajl_val stacks = member(result, "stacks");
    assert_true(YAJL_IS_ARRAY(stacks) && YAJL_GET_ARRAY(stacks)->len == 1);
    yajl_val frames = YAJL_GET_ARRAY(stacks)->values[0];
    assert_true(YAJL_IS_ARRAY(frames));
    assert_int_equal(YAJL_GET_ARRAY(frames)->len, 7);
    /* The address in this program, named with its offset into the function. */
    yajl_val named = YAJL_GET_ARRAY(frames)->values[0];
    assert_int_equal(YAJL_GET_INTEGER(member(named, "frame")), 0);
    assert_string_equal(member_string(named, "module"), "self");
    char hex[32];
    FORMAT(hex, "0x%llx", (unsigned long long)(target + 1));
    assert_string_equal(member_string(named, "module_offset"), hex);
    assert_non_null(member_string(named, "function"));
    assert_non_null(strstr(member_string(named, "function"), "code_server_target"));
    assert_string_equal(member_string(named, "function_offset"), "0x1");
    /* The others: a library it does not have, a map entry that is no pair, indices and
     * addresses of the wrong kind: the frame alone, without a function. */
    for (size_t i = 1; i < 7; i++) {
        yajl_val frame = YAJL_GET_ARRAY(frames)->values[i];
        assert_true(YAJL_IS_OBJECT(frame));
        assert_int_equal(YAJL_GET_INTEGER(member(frame, "frame")), (long long)i);
        assert_null(member(frame, "function"));
    }
    yajl_val found = member(result, "found_modules");
    assert_true(YAJL_IS_OBJECT(found));
    assert_int_equal(YAJL_GET_OBJECT(found)->len, 2);
    assert_true(YAJL_IS_TRUE(member(found, "self/" NO_BUILD_ID)));
    assert_true(YAJL_IS_FALSE(member(found, "nope/00")));
    answer_free(&a);

    /* One job without "jobs", and an address outside the library. */
    FORMAT(request,
             "{\"memoryMap\":[[\"self\",\"\"]],\"stacks\":[[[0,%llu]],[]]}",
             0x7fffffffffffull);
    a = ask(s, "/symbolicate/v5", request);
    assert_int_equal(a.status, 200);
    result = YAJL_GET_ARRAY(member(a.doc, "results"))->values[0];
    stacks = member(result, "stacks");
    assert_int_equal(YAJL_GET_ARRAY(stacks)->len, 2);
    yajl_val outside = YAJL_GET_ARRAY(YAJL_GET_ARRAY(stacks)->values[0])->values[0];
    assert_string_equal(member_string(outside, "module"), "self");
    assert_null(member(outside, "function"));
    assert_int_equal(YAJL_GET_ARRAY(YAJL_GET_ARRAY(stacks)->values[1])->len, 0);
    answer_free(&a);

    /* Jobs without their members, or with members of the wrong type. */
    const char *need = "\"memoryMap\" and \"stacks\"";
    expect_refusal(s, "/symbolicate/v5", "{}", 400, need);
    expect_refusal(s, "/symbolicate/v5", "{\"jobs\":[{\"memoryMap\":3}]}", 400, need);
    expect_refusal(s, "/symbolicate/v5", "{\"jobs\":[{\"memoryMap\":[],\"stacks\":{}}]}", 400,
                   need);
    expect_refusal(s, "/symbolicate/v5", "{\"jobs\":[{\"memoryMap\":[],\"stacks\":[]},4]}", 400,
                   need);
    expect_refusal(s, "/symbolicate/v5", "{\"stacks\":[]}", 400, need);
    pk_code_server_free(s);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requests_that_are_not_requests),
        cmocka_unit_test(source_from_a_folder),
        cmocka_unit_test(source_from_a_zip),
        cmocka_unit_test(source_paths_out_of_the_source),
        cmocka_unit_test(instructions_of_a_library),
        cmocka_unit_test(symbolicated_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
