// SPDX-License-Identifier: GPL-2.0
/* Executable fixture (built as PIE and as ET_EXEC): prints the addresses of its functions, then
 * waits until stdin closes so that the test can read its mappings. */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int prog_leaf(int x)
{
	return x * 13;
}

__attribute__((noinline)) static int prog_static(int x)
{
	return prog_leaf(x) + 1;
}

int main(void)
{
	char c;

	printf("prog_leaf=%p prog_static=%p main=%p\n", (void *)prog_leaf, (void *)prog_static,
	       (void *)main);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return prog_static(1) == 14 ? 0 : 1;
}
