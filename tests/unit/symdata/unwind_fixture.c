// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture of sym_unwind_test (unwind tables), built by gcc -O2 with and without frame pointers,
 * with its CFI in .debug_frame only, and as a program.  The functions in assembly have CFI of a
 * known shape, one per kind of rule the table distinguishes.
 */
#include <stdint.h>

volatile uint64_t unw_sink;

/* Frameless without frame pointers: CFA = rsp + 8 all through. */
__attribute__((noinline)) uint64_t unw_leaf(uint64_t n)
{
	uint64_t x = 0;

	for (uint64_t i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

/* Calls: with frame pointers, CFA = rbp + 16 in its body. */
__attribute__((noinline)) uint64_t unw_caller(uint64_t n)
{
	uint64_t r = unw_leaf(n);

	unw_sink = r;
	return unw_leaf(r) + 1;
}

/* Room for locals: sub $200,%rsp (48 81 ec c8 00 00 00), CFA = rsp + 208, then rsp + 8. */
__asm__(".text\n"
        ".globl unw_locals\n"
        ".type unw_locals, @function\n"
        "unw_locals:\n"
        "\t.cfi_startproc\n"
        "\tsubq $200, %rsp\n"
        "\t.cfi_adjust_cfa_offset 200\n"
        "\tmovq %rdi, (%rsp)\n"
        "\tmovq (%rsp), %rax\n"
        "\taddq $200, %rsp\n"
        "\t.cfi_adjust_cfa_offset -200\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_locals, .-unw_locals\n");

/* A CFA given by an expression (as in PLT stubs) after the push: NONE there. */
__asm__(".text\n"
        ".globl unw_expr\n"
        ".type unw_expr, @function\n"
        "unw_expr:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbx\n"
        "\t.cfi_escape 0x0f, 0x03, 0x77, 0x10, 0x06\n"
        "\tmovq %rdi, %rax\n"
        "\tpopq %rbx\n"
        "\t.cfi_def_cfa %rsp, 8\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_expr, .-unw_expr\n");

/* rbp kept in rbx after the first instruction: NONE there. */
__asm__(".text\n"
        ".globl unw_reg\n"
        ".type unw_reg, @function\n"
        "unw_reg:\n"
        "\t.cfi_startproc\n"
        "\tmovq %rbp, %rbx\n"
        "\t.cfi_register %rbp, %rbx\n"
        "\tmovq %rbx, %rbp\n"
        "\t.cfi_restore %rbp\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_reg, .-unw_reg\n");

/* A signal frame (as the kernel's sigreturn trampoline is described): NONE throughout. */
__asm__(".text\n"
        ".globl unw_sig\n"
        ".type unw_sig, @function\n"
        "unw_sig:\n"
        "\t.cfi_startproc\n"
        "\t.cfi_signal_frame\n"
        "\tnop\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_sig, .-unw_sig\n");

/* The caller's rbp is unknown. */
__asm__(".text\n"
        ".globl unw_bpundef\n"
        ".type unw_bpundef, @function\n"
        "unw_bpundef:\n"
        "\t.cfi_startproc\n"
        "\t.cfi_undefined %rbp\n"
        "\txorl %ebp, %ebp\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_bpundef, .-unw_bpundef\n");

/* A thread's first function: the return address is undefined. */
__asm__(".text\n"
        ".globl unw_outer\n"
        ".type unw_outer, @function\n"
        "unw_outer:\n"
        "\t.cfi_startproc\n"
        "\t.cfi_undefined %rip\n"
        "\tnop\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_outer, .-unw_outer\n");

/* No CFI at all. */
__asm__(".text\n"
        ".globl unw_nocfi\n"
        ".type unw_nocfi, @function\n"
        "unw_nocfi:\n"
        "\tmovq %rdi, %rax\n"
        "\tret\n"
        ".size unw_nocfi, .-unw_nocfi\n");

#ifdef UNW_MAIN
int main(int argc, char **argv)
{
	(void)argv;
	return (int)unw_caller((uint64_t)argc);
}
#endif
