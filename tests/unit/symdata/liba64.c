// SPDX-License-Identifier: GPL-2.0
/*
 * An arm64 library for the unwind tables and the leaf rule of arm64 code (sym_a64_test.c), built
 * with pointer authentication and frame pointers: a leaf without a frame (its return address in
 * x30 throughout), a function with a frame record at the bottom of its frame (stp x29, x30 with
 * the locals above), and one without a frame pointer that saves x30 alone.
 */
extern void a64_ext(long *buf);

__attribute__((noinline)) long a64_leaf(long n)
{
	long x = n;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005L + i;
	return x;
}

__attribute__((noinline)) long a64_framed(long n)
{
	long buf[4] = {n, n + 1, n + 2, n + 3};

	a64_ext(buf);
	return buf[0] + buf[3];
}

__attribute__((noinline, optimize("omit-frame-pointer"))) long a64_omitfp(long n)
{
	long buf[2] = {n, n};

	a64_ext(buf);
	return buf[1] + 1;
}
