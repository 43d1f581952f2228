// SPDX-License-Identifier: GPL-2.0
/* Stripped-library fixture: STRIP_PREFIX names the functions so that two copies (found by
 * build-id and by debuglink) do not share names.  The hidden function is only in .symtab. */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(x) CAT(STRIP_PREFIX, x)

int NAME(_api)(int x);
void *NAME(_hidden_addr)(void);

__attribute__((noinline)) static int NAME(_hidden)(int x)
{
	return x * 5 + 3;
}

__attribute__((noinline)) int NAME(_api)(int x)
{
	return NAME(_hidden)(x) + 1;
}

void *NAME(_hidden_addr)(void)
{
	return (void *)NAME(_hidden);
}
