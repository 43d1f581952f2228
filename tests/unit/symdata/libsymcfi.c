// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture of sym_cfi_test, built with gcc -O2 -fno-omit-frame-pointer: gcc gives leaves without
 * stack slots no frame, so their CFI says CFA = rsp + k, and gives every other function the
 * push %rbp; mov %rsp,%rbp frame (CFA = rbp + 16 in its body).
 */
#include <stdint.h>

volatile uint64_t cfi_sink;

/* A leaf without a frame: CFA = rsp + 8 everywhere in it. */
__attribute__((noinline)) uint64_t cfi_leaf(uint64_t n)
{
	uint64_t x = 0;

	for (uint64_t i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

/*
 * A leaf with more live values than scratch registers: gcc spills one to a stack slot, and then
 * sets up a frame (push %rbp; ... mov %rsp,%rbp): between the two, CFA = rsp + 16 with rbp
 * saved but still the caller's.
 */
__attribute__((noinline)) uint64_t cfi_busy(const uint64_t *v, uint64_t n)
{
	uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, k = 9, l = 10, m = 11;

	for (uint64_t i = 0; i < n; i++) {
		a += v[i] * b;
		b ^= v[i] + c;
		c += a * d;
		d ^= b + e;
		e += c * f;
		f ^= d + g;
		g += e * h;
		h ^= f + k;
		k += g * l;
		l ^= h + m;
		m += k * a;
	}
	return a + b + c + d + e + f + g + h + k + l + m;
}

/* A function with a frame: entry, after push %rbp, the body (rbp-based), after pop %rbp. */
__attribute__((noinline)) uint64_t cfi_framed(uint64_t n)
{
	uint64_t r = cfi_leaf(n);

	cfi_sink = r;
	return r + 1;
}

/*
 * Code as libc's (built without frame pointers) looks: a frameless function that saves
 * callee-saved registers, rbp among them, and has locals.  Rows: CFA = rsp + 8, 16, 24, 64, 24,
 * 16, 8.
 */
__asm__(".text\n"
        ".globl cfi_saves\n"
        ".type cfi_saves, @function\n"
        "cfi_saves:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbx\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_offset %rbx, -16\n"
        "\tpushq %rbp\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\t.cfi_offset %rbp, -24\n"
        "\tsubq $40, %rsp\n"
        "\t.cfi_adjust_cfa_offset 40\n"
        "\tmovq %rdi, (%rsp)\n"
        "\tmovq (%rsp), %rax\n"
        "\taddq $40, %rsp\n"
        "\t.cfi_adjust_cfa_offset -40\n"
        "\tpopq %rbp\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %rbp\n"
        "\tpopq %rbx\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_restore %rbx\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size cfi_saves, .-cfi_saves\n");

/*
 * Rules the leaf rule does not handle: rbp kept in another register, then a CFA based on rbp
 * with an offset the frame-pointer walk does not assume.  Rows: entry, rbp in rbx, CFA = rbp + 24.
 */
__asm__(".text\n"
        ".globl cfi_odd\n"
        ".type cfi_odd, @function\n"
        "cfi_odd:\n"
        "\t.cfi_startproc\n"
        "\tmovq %rbp, %rbx\n"
        "\t.cfi_register %rbp, %rbx\n"
        "\tmovq %rsp, %rbp\n"
        "\t.cfi_restore %rbp\n"
        "\t.cfi_def_cfa %rbp, 24\n"
        "\tmovq %rbx, %rbp\n"
        "\t.cfi_def_cfa %rsp, 8\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size cfi_odd, .-cfi_odd\n");

/* Code without any CFI: no row covers it. */
__asm__(".text\n"
        ".globl cfi_nocfi\n"
        ".type cfi_nocfi, @function\n"
        "cfi_nocfi:\n"
        "\tmovq %rdi, %rax\n"
        "\tret\n"
        ".size cfi_nocfi, .-cfi_nocfi\n");
