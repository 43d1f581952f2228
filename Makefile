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

workloads:
	$(MAKE) -C tests/workloads

unit:
	$(MAKE) -C tests/unit check

kunit:
	tests/kunit/run

vm-check:
	tests/vm/check --kernel stock
	tests/vm/check --kernel debug

# Installs every build and test dependency (Debian packages) when missing.
deps:
	tests/vm/deps

check: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) kunit
	$(MAKE) vm-check
	@echo "check: all stages passed"

demo: deps
	$(MAKE) all
	tests/demo/run

clean:
	rm -rf build
	-[ -n "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(TOP)/kmod clean

.PHONY: all module user workloads unit kunit vm-check deps check demo clean
