# SPDX-License-Identifier: MIT
# Writes to standard output a Chrome trace (Trace Event Format) of one thread's DEPTH nested
# calls: f0 calls f1, which calls f2, and so on (names repeat every 1000 levels), each begun
# 1 us after its caller; then each ends 1 us after the one it called, innermost first.
# Usage: sh nested_trace.sh DEPTH
awk -v depth="$1" 'BEGIN {
    printf "{\"traceEvents\":[\n"
    for (i = 0; i < depth; i++)
        printf "{\"ph\":\"B\",\"name\":\"f%d\",\"pid\":1,\"tid\":1,\"ts\":%d},\n", i % 1000, i
    for (i = 0; i < depth; i++)
        printf "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%d}%s\n", depth + i, i + 1 < depth ? "," : ""
    printf "]}\n"
}'
