/* SPDX-License-Identifier: MIT */
/* DWARF unwinding of `perf record --call-graph dwarf` samples: the user stack is rebuilt from
 * the sample's user registers and the copy of its user stack, with elfutils' unwinder (libdwfl:
 * dwfl_attach_state, dwfl_getthread_frames), reading the call frame information (.eh_frame,
 * .debug_frame) of the process's mapped binaries, as perf's own libdw unwinding does.
 *
 * One Dwfl a process holds its binaries, reported where they were mapped; it is made again when
 * the process's mappings change (their version), and only the last few processes' are kept
 * (each holds its binaries open). Registers are x86-64's (perf's PERF_REG_X86_* numbering in
 * the sample); other architectures are not unwound.
 */
#ifndef PK_FORMATS_PERF_DATA_UNWIND_H
#define PK_FORMATS_PERF_DATA_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The registers DWARF numbers for x86-64 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15),
 * then the return address column: the instruction pointer. */
#define PD_UNWIND_REGS 17

typedef struct pd_unwinder pd_unwinder;

/* A file mapped executable into a process. */
typedef struct pd_unwind_module {
    const char *path;
    const char *build_id; /* lower-case hex, "" when unknown */
    uint64_t start, end, pgoff;
} pd_unwind_module;

/* NULL when memory runs out. */
pd_unwinder *pd_unwinder_new(void);
void pd_unwinder_free(pd_unwinder *u);

/* True when the unwinder holds process pid's binaries as of mapping version `version`. */
bool pd_unwinder_knows(const pd_unwinder *u, uint32_t pid, uint64_t version);
/* Gives the unwinder process pid's mapped files as of `version` (files that cannot be read
 * are left out). False when memory runs out. */
bool pd_unwinder_set_process(pd_unwinder *u, uint32_t pid, uint64_t version,
                             const pd_unwind_module *modules, size_t count);

/* The user registers of a sample in DWARF order (PD_UNWIND_REGS) from perf's: `mask` the
 * attribute's sample_regs_user, `values` the sample's, in bit order. False when the
 * instruction or stack pointer is missing. */
bool pd_unwind_registers(uint64_t mask, const uint8_t *values, bool big, uint64_t *regs);

/* Unwinds a sample of process pid (whose binaries the unwinder knows): regs in DWARF order,
 * stack the bytes copied from the stack pointer up. Writes at most max code addresses to pcs,
 * innermost first (callers' return addresses less one, inside their call instruction, as perf
 * gives them) and returns their count; 0 when nothing could be unwound, not even the
 * instruction pointer's frame. */
size_t pd_unwind(pd_unwinder *u, uint32_t pid, const uint64_t *regs, const uint8_t *stack,
                 size_t stack_size, bool big, uint64_t *pcs, size_t max);

#endif
