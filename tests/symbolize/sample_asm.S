/* SPDX-License-Identifier: MIT */
/* asm_leaf for sample.c (x86-64 only): calls sample_record("asm"). Assembled with -g, it has
 * line information but no function entry in the debug information. */
#if defined(__x86_64__) && defined(__ELF__)
        .text
        .globl  asm_leaf
        .type   asm_leaf, @function
asm_leaf:
        subq    $8, %rsp
        leaq    asm_label(%rip), %rdi
        call    sample_record           /* at: asm */
        addq    $8, %rsp
        ret
        .size   asm_leaf, .-asm_leaf

        .section .rodata
asm_label:
        .string "asm"
#endif
        .section .note.GNU-stack, "", @progbits
