# lfr — top-level build.  `make` builds lfr.ko and the user tools; `make check` runs every test.
VERSION := $(shell cat VERSION)
TOP     := $(CURDIR)

# The module is built against the running kernel's headers when it has them, else against the
# newest Debian headers installed (this is the case on machines whose own kernel cannot load modules).
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

all: module user workloads

module:
	@if [ -z "$(KDIR)" ]; then \
		echo "no kernel headers found: install linux-headers-$$(uname -r) or pass KDIR=/path/to/kernel/build"; \
		exit 2; fi
	$(MAKE) -C $(KDIR) M=$(TOP)/kmod LFR_VERSION=$(VERSION) W=1 modules

user:
	$(MAKE) -C user

# arm64, cross-built on this machine (tests/vm/deps-arm64 installs the cross compiler, the arm64 -dev
# packages and unpacks Debian's arm64 kernel headers): the module against the stock arm64 kernel's
# headers (KDIR_ARM64 to name another tree) in build/arm64/kmod/lfr.ko, and the tools and workloads
# in build/arm64/ (Documentation/install.md, "arm64").
ARM64_CACHE := $(or $(LFR_CACHE),/var/cache/lfr)/arm64
ARM64_KVER   = $(shell cat $(ARM64_CACHE)/stock 2>/dev/null)
KDIR_ARM64  ?= $(ARM64_CACHE)/$(ARM64_KVER)/usr/src/linux-headers-$(ARM64_KVER)
ARM64_MAKE  := ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
ARM64_USER  := CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar \
	PKG_CONFIG="env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config"

arm64: module-arm64 user-arm64 workloads-arm64

module-arm64:
	@[ -d "$(KDIR_ARM64)" ] || { echo "no arm64 kernel headers: run tests/vm/deps-arm64 as root, or pass KDIR_ARM64=/path/to/headers"; exit 2; }
	mkdir -p build/arm64
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' --exclude='.*.cmd' \
		kmod include VERSION build/arm64/
	$(MAKE) -C $(KDIR_ARM64) M=$(TOP)/build/arm64/kmod $(ARM64_MAKE) LFR_VERSION=$(VERSION) W=1 modules

user-arm64:
	$(MAKE) -C user VARIANT=arm64 $(ARM64_USER)

workloads-arm64:
	$(MAKE) -C tests/workloads B=$(TOP)/build/arm64/workloads CC=aarch64-linux-gnu-gcc \
		GCC=aarch64-linux-gnu-gcc CLANG="clang --target=aarch64-linux-gnu" \
		XCFLAGS=-mbranch-protection=standard
	$(MAKE) -C tests/nlclient B=$(TOP)/build/arm64/nlclient CC=aarch64-linux-gnu-gcc \
		PKG_CONFIG="env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config"

workloads:
	$(MAKE) -C tests/workloads

unit:
	$(MAKE) -C tests/unit check

kunit:
	tests/kunit/run

# The JDK as referee for the JFR writer, and the report views (text, folded, HTML in Chromium).
jdk-check: user
	tests/jdk/run

report-check: user
	tests/report/run

dkms-check:
	tests/dkms/run

vm-check:
	tests/vm/check --kernel stock
	tests/vm/check --kernel debug

# Installs every build and test dependency (Debian packages) when missing.
deps:
	tests/vm/deps

check: deps
	$(MAKE) all
	$(if $(KERNELS),KERNELS="$(KERNELS)") tests/check

demo: deps
	$(MAKE) all
	tests/demo/run

# lfr against perf record in one VM boot, and the drainer natively; then the truth of the samples,
# both profilers on a workload that knows its CPU split; then the cost per delivered stack, medians
# of alternating runs, what the recorder's own threads take while the workload runs, and how much
# of the host's CPU the emulator spends delivering the samples' interrupts
# (Documentation/benchmarks.md).
bench: deps
	$(MAKE) all
	bench/run
	bench/truth
	bench/cost
	bench/offcpu-cost
	bench/offcpu-truth
	bench/recorder-cpu
	bench/always-on
	bench/export-cost
	bench/unwind
	bench/hostcost

# Installing: the user tools and man page (PREFIX, DESTDIR honoured), and the module through DKMS.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DKMS_SRC := $(DESTDIR)/usr/src/lfr-$(VERSION)
# The kernel DKMS builds for: the running one when it has headers, else the newest installed headers.
DKMS_KVER ?= $(if $(wildcard /lib/modules/$(shell uname -r)/build),$(shell uname -r),$(patsubst /usr/src/linux-headers-%,%,$(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))))

# The always-on recorder: lfr.service (not enabled: systemctl enable --now lfr) and its settings,
# /etc/lfr/lfr.conf, which an existing one is never replaced by.
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system

install: user
	install -D -m 0755 build/release/lfr $(DESTDIR)$(BINDIR)/lfr
	install -D -m 0644 Documentation/lfr.1 $(DESTDIR)$(MANDIR)/man1/lfr.1
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' user/service/lfr.service.in \
		>$(DESTDIR)$(UNITDIR)/lfr.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/lfr/lfr.conf ] || \
		install -D -m 0644 user/service/lfr.conf $(DESTDIR)$(SYSCONFDIR)/lfr/lfr.conf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lfr $(DESTDIR)$(MANDIR)/man1/lfr.1 $(DESTDIR)$(UNITDIR)/lfr.service

dkms-src:
	@grep -qx 'PACKAGE_VERSION="$(VERSION)"' dkms.conf || \
		{ echo 'dkms.conf: PACKAGE_VERSION differs from VERSION ($(VERSION))' >&2; exit 1; }
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	cp -r Kbuild VERSION kmod include $(DKMS_SRC)/
	find $(DKMS_SRC)/kmod \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name Module.symvers -o -name modules.order \) -delete
	cp dkms.conf $(DKMS_SRC)/

dkms-install: dkms-src
	dkms add lfr/$(VERSION)
	dkms build lfr/$(VERSION) -k $(DKMS_KVER)
	dkms install lfr/$(VERSION) -k $(DKMS_KVER)

dkms-uninstall:
	-dkms remove lfr/$(VERSION) --all
	rm -rf /usr/src/lfr-$(VERSION)

clean:
	rm -rf build
	-[ -n "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(TOP)/kmod clean

.PHONY: all module user workloads arm64 module-arm64 user-arm64 workloads-arm64 unit jdk-check report-check kunit dkms-check vm-check deps check demo bench clean install uninstall \
	dkms-src dkms-install dkms-uninstall
