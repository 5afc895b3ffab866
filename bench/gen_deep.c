/* SPDX-License-Identifier: MIT */
/* Writes one deep recursion to standard output: DEPTH nested calls of a recursive-descent
 * parser's functions (parse_expression -> parse_term -> parse_factor -> parse_primary -> ...,
 * round and round, so every function recurses), each call with one microsecond of its own time
 * before it calls the next and one after it returns. Every level is a distinct stack with a
 * value of its own: the input that finds what is quadratic in the stack depth.
 * Usage: gen_deep trace|speedscope DEPTH
 *   trace       Trace Event JSON, one B and one E event per call
 *   speedscope  a speedscope file with one evented profile, one O and one C event per call */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const functions[] = {"parse_expression", "parse_term", "parse_factor",
                                        "parse_primary", "parse_call", "parse_arguments"};
#define FUNCTIONS (sizeof functions / sizeof functions[0])

static void write_trace(unsigned long depth)
{
    printf("{\"traceEvents\":[\n");
    printf("{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\","
           "\"args\":{\"name\":\"main\"}}");
    for (unsigned long i = 0; i < depth; i++)
        printf(",\n{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":%lu,\"name\":\"%s\"}", i,
               functions[i % FUNCTIONS]);
    for (unsigned long i = depth; i-- > 0;)
        printf(",\n{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%lu}", 2 * depth - i);
    printf("\n]}\n");
}

static void write_speedscope(unsigned long depth)
{
    printf("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
           "\"shared\":{\"frames\":[");
    for (size_t f = 0; f < FUNCTIONS; f++)
        printf("%s{\"name\":\"%s\"}", f ? "," : "", functions[f]);
    printf("]},\n\"profiles\":[{\"type\":\"evented\",\"name\":\"main\","
           "\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":%lu,\"events\":[",
           2 * depth);
    for (unsigned long i = 0; i < depth; i++)
        printf("%s\n{\"type\":\"O\",\"frame\":%zu,\"at\":%lu}", i ? "," : "", i % FUNCTIONS,
               i);
    for (unsigned long i = depth; i-- > 0;)
        printf(",\n{\"type\":\"C\",\"frame\":%zu,\"at\":%lu}", i % FUNCTIONS, 2 * depth - i);
    printf("\n]}]}\n");
}

int main(int argc, char **argv)
{
    char *end;
    unsigned long depth = argc == 3 ? strtoul(argv[2], &end, 10) : 0;
    if (argc != 3 || *end || depth == 0 || depth > 100000000) {
        fprintf(stderr, "usage: gen_deep trace|speedscope DEPTH\n");
        return 2;
    }
    if (strcmp(argv[1], "trace") == 0)
        write_trace(depth);
    else if (strcmp(argv[1], "speedscope") == 0)
        write_speedscope(depth);
    else {
        fprintf(stderr, "gen_deep: unknown format %s\n", argv[1]);
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
