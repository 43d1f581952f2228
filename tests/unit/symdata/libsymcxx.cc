// SPDX-License-Identifier: GPL-2.0
// C++ fixture: mangled names that the symbolizer must demangle.
namespace lfrtest
{
struct Widget {
	static int make(long n);
};

__attribute__((noinline)) int Widget::make(long n)
{
	return (int)(n * 11);
}

template <typename T> __attribute__((noinline)) T triple(T v)
{
	return v * 3;
}
template int triple<int>(int);
} // namespace lfrtest

extern "C" void *cxx_make_addr(void)
{
	return (void *)&lfrtest::Widget::make;
}

extern "C" void *cxx_triple_addr(void)
{
	return (void *)&lfrtest::triple<int>;
}

extern "C" __attribute__((noinline)) int cxx_plain_c(int x)
{
	return x + 2;
}
