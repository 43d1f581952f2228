#!/bin/sh
# Builds the ELF fixtures of the symbolizer tests into $1 (from tests/unit/Makefile).
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=$1
CC=${CC:-cc}
CXX=${CXX:-c++}
rm -rf "$out"
mkdir -p "$out/debug" "$out/nodebug" "$out/.debug"
cd "$out"
cflags="-O1 -g -fno-inline -fno-omit-frame-pointer"

# A shared library whose ELF addresses are not file offsets.
$CC $cflags -shared -fPIC -Wl,-Ttext-segment=0x200000 -o libsymfix.so "$src/libsymfix.c"
# ELF addresses of getpid@plt (as binutils names PLT stubs) and of fix_add, for the PLT test.
plt=$(objdump -d -j .plt libsymfix.so | sed -n 's/^0*\([0-9a-f]*\) <getpid@plt>:$/\1/p')
add=$(nm libsymfix.so | sed -n 's/^0*\([0-9a-f]*\) T fix_add$/\1/p')
[ -n "$plt" ] && [ -n "$add" ]
echo "$plt $add" > libsymfix.plt

# The same program as a PIE and as a fixed-address executable.
$CC $cflags -fPIE -pie -o symfix_pie "$src/symfix_prog.c"
$CC $cflags -fno-pie -no-pie -o symfix_nopie "$src/symfix_prog.c"

# Stripped library whose symbols live in a debug file found by build-id; its ELF addresses are
# not file offsets either, since its debug file alone must still translate them.
$CC $cflags -shared -fPIC -Wl,--build-id=sha1 -Wl,-Ttext-segment=0x400000 -DSTRIP_PREFIX=bid -o libsymbid.full.so \
	"$src/libsymstrip.c"
bid=$(readelf -n libsymbid.full.so | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$bid" ]
dir=debug/.build-id/$(echo "$bid" | cut -c1-2)
mkdir -p "$dir"
objcopy --only-keep-debug libsymbid.full.so "$dir/$(echo "$bid" | cut -c3-).debug"
strip --strip-all -o libsymbid.so libsymbid.full.so
rm libsymbid.full.so

# Stripped library without build-id whose symbols live in a debug file named by .gnu_debuglink.
$CC $cflags -shared -fPIC -Wl,--build-id=none -DSTRIP_PREFIX=dl -o libsymdl.full.so \
	"$src/libsymstrip.c"
objcopy --only-keep-debug libsymdl.full.so .debug/libsymdl.so.debug
strip --strip-all -o libsymdl.so libsymdl.full.so
(cd .debug && objcopy --add-gnu-debuglink=libsymdl.so.debug ../libsymdl.so)
rm libsymdl.full.so

# Same, but its debug file was replaced by another build: the CRC must reject it.
$CC $cflags -shared -fPIC -Wl,--build-id=none -DSTRIP_PREFIX=crc -o libsymcrc.full.so \
	"$src/libsymstrip.c"
objcopy --only-keep-debug libsymcrc.full.so .debug/libsymcrc.so.debug
strip --strip-all -o libsymcrc.so libsymcrc.full.so
(cd .debug && objcopy --add-gnu-debuglink=libsymcrc.so.debug ../libsymcrc.so)
$CC $cflags -O2 -shared -fPIC -Wl,--build-id=none -DSTRIP_PREFIX=crc -o libsymcrc.other.so \
	"$src/libsymstrip.c"
objcopy --only-keep-debug libsymcrc.other.so .debug/libsymcrc.so.debug
rm libsymcrc.full.so libsymcrc.other.so

# C++.
$CXX $cflags -shared -fPIC -o libsymcxx.so "$src/libsymcxx.cc"

# The leaf rule's fixtures, by gcc (whose leaves have no frame even with -fno-omit-frame-pointer):
# CFI in .eh_frame; in .debug_frame only; in the .debug_frame of a debug file found by build-id.
GCC=${GCC:-gcc}
cfiflags="-O2 -fno-omit-frame-pointer -shared -fPIC"
$GCC $cfiflags -o libsymcfi.so "$src/libsymcfi.c"
$GCC $cfiflags -fno-asynchronous-unwind-tables -g -o libsymcfi_df.so "$src/libsymcfi.c"
$GCC $cfiflags -fno-asynchronous-unwind-tables -g -Wl,--build-id=sha1 -o libsymcfi_dbg.full.so \
	"$src/libsymcfi.c"
bid=$(readelf -n libsymcfi_dbg.full.so | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$bid" ]
# A debug root of its own: sym_debug_test expects one build-id under debug/.
dir=cfidebug/.build-id/$(echo "$bid" | cut -c1-2)
mkdir -p "$dir"
objcopy --only-keep-debug libsymcfi_dbg.full.so "$dir/$(echo "$bid" | cut -c3-).debug"
echo "$dir/$(echo "$bid" | cut -c3-).debug" >libsymcfi_dbg.debug_path
strip --strip-all -o libsymcfi_dbg.so libsymcfi_dbg.full.so
rm libsymcfi_dbg.full.so
# Without .eh_frame_hdr (as Debian's static busybox): the leaf rule reads the unwind table instead.
$GCC $cfiflags -Wl,--no-eh-frame-hdr -o libsymcfi_nohdr.so "$src/libsymcfi.c"

# The unwind tables' fixtures: without frame pointers, with them, CFI in .debug_frame only (its
# .eh_frame is the C runtime's empty one), and a program (whose _start is the outermost frame).
uflags="-O2 -fomit-frame-pointer"
$GCC $uflags -shared -fPIC -o libunw.so "$src/unwind_fixture.c"
$GCC -O2 -fno-omit-frame-pointer -shared -fPIC -o libunw_fp.so "$src/unwind_fixture.c"
$GCC $uflags -fno-asynchronous-unwind-tables -g -shared -fPIC -o libunw_df.so \
	"$src/unwind_fixture.c"
$GCC $uflags -DUNW_MAIN -o unw_prog "$src/unwind_fixture.c"
# A program that needs libunw.so from its own directory (DT_RUNPATH $ORIGIN).
$GCC -O2 -o unw_needs "$src/unw_main.c" -L. -lunw -Wl,-rpath,'$ORIGIN'

# arm64 code, cross-built with pointer authentication (sym_a64_test.c; without the cross compiler,
# which tests/vm/deps-arm64 installs, that test says so and fails).
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	aarch64-linux-gnu-gcc -O2 -g -fPIC -shared -fno-omit-frame-pointer -mbranch-protection=standard \
		-o liba64.so "$src/liba64.c"
	aarch64-linux-gnu-gcc -O2 -g -fPIC -shared -fno-omit-frame-pointer -mbranch-protection=standard \
		-Wl,--no-eh-frame-hdr -o liba64_nohdr.so "$src/liba64.c"
fi

# A library with the thread context variable (general-dynamic TLS, a DTV slot), and one whose
# thread-local storage is something else (sym_tls_var_test).
$CC $cflags -shared -fPIC -mtls-dialect=gnu -o libtlsvar.so "$src/libtlsvar.c"
$CC $cflags -shared -fPIC -DOTHER_TLS -o libtlsother.so "$src/libtlsvar.c"
