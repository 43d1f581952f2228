// SPDX-License-Identifier: GPL-2.0
/* Shared library fixture for the symbolizer tests; linked with its first segment at 0x200000 so
 * that ELF addresses differ from file offsets. */
#include <unistd.h>

int fix_add(int a, int b);
int fix_call_getpid(void);
void *fix_local_addr(void);
void *fix_sized_addr(void);

__attribute__((noinline)) int fix_add(int a, int b)
{
	return a * 3 + b;
}

/* Calls through the PLT stub "getpid@plt". */
int fix_call_getpid(void)
{
	return (int)getpid() + 1;
}

__attribute__((noinline, used)) static int fix_local(int x)
{
	return x * 7 + 1;
}

void *fix_local_addr(void)
{
	return (void *)fix_local;
}

/* A one-byte function followed by 63 bytes that belong to no symbol. */
__asm__(".text\n"
        ".p2align 6\n"
        ".globl fix_sized\n"
        ".type fix_sized, @function\n"
        "fix_sized:\n"
        "\tret\n"
        ".size fix_sized, 1\n"
        ".skip 63, 0xcc\n"
        ".globl fix_after\n"
        ".type fix_after, @function\n"
        "fix_after:\n"
        "\tret\n"
        ".size fix_after, 1\n");

extern char fix_sized[];

void *fix_sized_addr(void)
{
	return fix_sized;
}
