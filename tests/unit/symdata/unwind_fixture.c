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

/*
 * Every kind of CFA instruction the one-pass reading of an FDE follows (user/sym/cfi_program.h),
 * in one function: saved and restored states, registers restored to the CIE's rule, kept in
 * another register or as a value, a CFA by expression and back, the signed and the two-byte
 * forms.  Not called: its rows are compared with libdw's.
 */
__asm__(".text\n"
        ".globl unw_rules\n"
        ".type unw_rules, @function\n"
        "unw_rules:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbp\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_rel_offset %rbp, 0\n"
        "\tmovq %rsp, %rbp\n"
        "\t.cfi_def_cfa_register %rbp\n"
        "\tpushq %rbx\n"
        "\t.cfi_offset %rbx, -24\n"
        "\t.cfi_remember_state\n"
        "\t.cfi_undefined %r12\n"
        "\t.cfi_same_value %r13\n"
        "\t.cfi_register %r14, %r15\n"
        "\t.cfi_escape 0x14, 0x0f, 0x02\n"       /* DW_CFA_val_offset r15, 2 */
        "\t.cfi_escape 0x2e, 0x10\n"             /* DW_CFA_GNU_args_size 16 */
        "\tnop\n"
        "\t.cfi_escape 0x16, 0x0c, 0x02, 0x77, 0x08\n" /* DW_CFA_val_expression r12 */
        "\t.cfi_escape 0x10, 0x0d, 0x02, 0x77, 0x10\n" /* DW_CFA_expression r13 */
        "\tnop\n"
        "\t.fill 300, 1, 0x90\n"                  /* an advance_loc2 */
        "\tpopq %rbx\n"
        "\t.cfi_restore %rbx\n"
        "\tpopq %rbp\n"
        "\t.cfi_def_cfa %rsp, 8\n"
        "\t.cfi_restore %rbp\n"
        "\tret\n"
        "\t.cfi_restore_state\n"
        "\tnop\n"
        "\t.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06\n" /* DW_CFA_def_cfa_expression */
        "\tnop\n"
        "\t.cfi_escape 0x12, 0x07, 0x7e\n"             /* DW_CFA_def_cfa_sf rsp, -2 * -8 */
        "\t.cfi_escape 0x11, 0x06, 0x7e\n"             /* DW_CFA_offset_extended_sf rbp, -16 */
        "\tnop\n"
        "\t.cfi_escape 0x13, 0x7f\n"                   /* DW_CFA_def_cfa_offset_sf 8 */
        "\t.cfi_escape 0x06, 0x06\n"                   /* DW_CFA_restore_extended rbp */
        "\tnop\n"
        "\t.cfi_undefined %rip\n"
        "\tnop\n"
        "\t.cfi_same_value %rbp\n"
        "\t.cfi_offset %rip, -8\n"
        "\t.cfi_register %rbp, %rax\n"
        "\tnop\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_rules, .-unw_rules\n");

/* The frame pointer saved by an expression: an FDE left to libdw, a row at a time. */
__asm__(".text\n"
        ".globl unw_rules_libdw\n"
        ".type unw_rules_libdw, @function\n"
        "unw_rules_libdw:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbp\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_escape 0x10, 0x06, 0x02, 0x91, 0x70\n" /* DW_CFA_expression rbp: fbreg -16 */
        "\tnop\n"
        "\tpopq %rbp\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %rbp\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size unw_rules_libdw, .-unw_rules_libdw\n");

#ifdef UNW_MAIN
int main(int argc, char **argv)
{
	(void)argv;
	return (int)unw_caller((uint64_t)argc);
}
#endif
