// SPDX-License-Identifier: GPL-2.0
/* Fixture of program_objects_test: a program that needs libunw.so, found through $ORIGIN. */
#include <stdint.h>

uint64_t unw_caller(uint64_t n);

int main(int argc, char **argv)
{
	(void)argv;
	return (int)unw_caller((uint64_t)argc);
}
