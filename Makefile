# SPDX-License-Identifier: GPL-2.0
#
# powerpin: `make` builds the module, the userspace binaries and the tests;
# `make demo`, `make check` and `make bench` install what they need first;
# `make android` builds static powerpin and powerpind for Android phones
# (scripts/android).
#
#   KVER=<abi>   kernel ABI to build the module for (default: the guest
#                GUEST=6.12 GUEST_ARCH=x86_64 of the matrix, scripts/lib.sh;
#                for make install, the running kernel's)
#   KDIR=<dir>   kernel build tree (default: the cache's tree of KVER, else
#                /lib/modules/$(KVER)/build); an ARM tree is cross-built
#   POWERPIN_ARCH=arm64|armhf   build userspace and tests for that guest
#                architecture into build/ARCH/ (default: the host's, build/)
#   W=1, C=1     passed to Kbuild (extra warnings, sparse)
#   FUZZ_SECONDS=<n>  how long `make fuzz` runs each fuzzer (default 60)
#   MODULE=no    make install: userspace only (the module comes from DKMS)

TOP     := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
B       := $(TOP)/build
CACHE   ?= $(or $(POWERPIN_CACHE),/var/cache/powerpin)
GUEST   ?= 6.12
GUEST_ARCH ?= x86_64
# A KDIR given alone names its own kernel: take KVER from the tree, so the
# module lands in build/<that kernel>/ and never over a guest kernel's.
ifneq ($(KDIR),)
KVER    ?= $(or $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null),unknown)
endif
# make install builds for the kernel it installs into: the running one
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
KVER    ?= $(shell uname -r)
endif
KVER    ?= $(shell $(TOP)/scripts/kver $(GUEST) $(GUEST_ARCH))
KDIR    ?= $(if $(wildcard $(CACHE)/kernel-$(KVER)/build/Makefile),$(CACHE)/kernel-$(KVER)/build,/lib/modules/$(KVER)/build)
# A tree made by a newer compiler than the host's is built in its build root,
# with the tree's own compiler; any other with ARCH=, CROSS_COMPILE= and CC=
# for the host (an ARM tree is cross-built)
KROOT   := $(if $(wildcard $(CACHE)/kernel-$(KVER)/buildroot/usr/src/linux-headers-$(KVER)/Makefile),$(CACHE)/kernel-$(KVER)/buildroot)
KBUILD_ARGS := $(if $(KROOT),,$(shell CROSS_COMPILE=$(CROSS_COMPILE) ARCH=$(ARCH) $(TOP)/scripts/kbuild-args $(KDIR)))
KMAKE   := $(if $(KROOT),$(TOP)/scripts/in-root $(KROOT) $(TOP) make -C /usr/src/linux-headers-$(KVER),$(MAKE) -C $(KDIR))
KSRC    := $(CACHE)/ksrc
KSELFTEST := $(KSRC)/tools/testing/selftests

# One version for everything (scripts/version): binaries, module, packages.
VERSION := $(shell $(TOP)/scripts/version)

PKGS    := libnl-genl-3.0 libnl-3.0 libtracefs libtraceevent libtracecmd minizip zlib \
	   libprotobuf-c
CC      ?= gcc
PKG_CONFIG ?= pkg-config
# A guest architecture the host cannot run: its cross compiler, with the
# guest's root from the cache (Debian's -dev packages unpacked) as sysroot.
POWERPIN_ARCH ?=
ifneq ($(filter-out x86_64,$(POWERPIN_ARCH)),)
TRIPLET := $(or $(if $(filter arm64,$(POWERPIN_ARCH)),aarch64-linux-gnu),$(if $(filter armhf,$(POWERPIN_ARCH)),arm-linux-gnueabihf),$(error POWERPIN_ARCH=$(POWERPIN_ARCH): x86_64, arm64 or armhf))
SYSROOT := $(CACHE)/root-$(POWERPIN_ARCH)
B       := $(TOP)/build/$(POWERPIN_ARCH)
CC      := $(TRIPLET)-gcc --sysroot=$(SYSROOT)
AR      := $(TRIPLET)-ar
PKG_CONFIG := PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(TRIPLET)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig pkg-config
endif
# POWERPIN_ANDROID=DIR (scripts/android, `make android`): fully static
# executables for Android into build/android/{arm,arm64}/obj/, from the
# root's static archives and the ones scripts/android made in DIR
# (libtracecmd, libzstd; their compressions are linked in).  There is no
# RTLD_NEXT in a static link: --wrap puts trace_input_dat.c's guards in
# front of libtraceevent's parsers (-u makes sure they are linked).
ifneq ($(POWERPIN_ANDROID),)
B       := $(TOP)/build/android/$(if $(filter armhf,$(POWERPIN_ARCH)),arm,$(POWERPIN_ARCH))/obj
PKG_CONFIG += --static
LDFLAGS += -static -L$(POWERPIN_ANDROID)/lib \
	   -Wl,--wrap=tep_parse_event,--wrap=tep_parse_printk_formats \
	   -Wl,-u,__wrap_tep_parse_event,-u,__wrap_tep_parse_printk_formats
ANDROID_CFLAGS := -DPOWERPIN_STATIC
endif
CFLAGS  ?= -O2 -g
# CPPFLAGS (dpkg-buildflags' -D_FORTIFY_SOURCE=2) goes to every compile
CPPFLAGS ?=
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow \
	   -Wformat=2 -Wmissing-prototypes -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	   -fstack-protector-strong $(ANDROID_CFLAGS) \
	   -I$(TOP)/uapi -I$(TOP)/daemon/lib -I$(B)/gen \
	   $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm -lpthread
# libtracecmd's own libraries, which its .pc leaves out
LDLIBS  += $(if $(POWERPIN_ANDROID),-lzstd -lz)
# kselftest_harness.h keeps the pid of its fork in a plain local across
# setjmp() in every TEST_F wrapper (-Wclobbered warns about the harness
# there, not about the tests: off).  Optimised, an ASSERT's longjmp() brings
# back the value from before the fork and the test's process skips
# FIXTURE_TEARDOWN, so a failed test would leave what it changed to the
# tests after it: the tests are built -O0, where that local lives in
# memory (harness_teardown_test checks it).  The benches stay optimised.
BENCH_CFLAGS := $(filter-out -Wmissing-prototypes -Wshadow,$(CFLAGS)) -Wno-clobbered -I$(KSELFTEST)
TEST_CFLAGS := $(filter-out -O%,$(BENCH_CFLAGS)) -O0

# daemon/lib/ in rooms (daemon/lib/README.md), each in its own folder
LIB_SRC := $(sort $(wildcard daemon/lib/*/*.c))
LIB_HDRS := $(wildcard daemon/lib/*/*.h)
# Perfetto's trace messages, encoded by protobuf-c from the project's .proto
GEN_PROTO := $(B)/gen/perfetto_trace.pb-c.c
GEN_HDRS  := $(GEN_PROTO:.c=.h) $(B)/gen/report_html_js.h
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/perfetto_trace.pb-c.o
CLI_SRC := $(sort $(wildcard daemon/cmd_*.c)) daemon/powerpin.c
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
HOST_TESTS  := $(patsubst selftests/host/%.c,$(B)/tests/host/%,$(wildcard selftests/host/*.c))
GUEST_TESTS := $(patsubst selftests/guest/%.c,$(B)/tests/guest/%,$(wildcard selftests/guest/*.c))
BENCHES     := $(patsubst selftests/bench/%.c,$(B)/bench/%,$(wildcard selftests/bench/*.c))
BINS    := $(B)/bin/powerpin $(B)/bin/powerpind
FUZZERS := $(patsubst selftests/fuzz/%.c,$(B)/fuzz/bin/%,$(wildcard selftests/fuzz/fuzz_*.c))

# The JVMTI agent needs jvmti.h/jni.h: a JDK's include/ (the same API on
# every architecture; jni_md.h only sizes jint and jlong by the data model).
JAVAC   ?= $(shell command -v javac 2>/dev/null)
JAVA_HOME ?= $(if $(JAVAC),$(patsubst %/bin/javac,%,$(realpath $(JAVAC))))
JNI_CFLAGS := -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux
AGENT_SRC := $(sort $(wildcard daemon/agent/*.c))
AGENT_OBJ := $(AGENT_SRC:daemon/agent/%.c=$(B)/agent/%.o)
AGENT   := $(B)/lib/libpowerpin_agent.so
JAVA_CLASSES := $(if $(JAVAC),$(patsubst selftests/java/%.java,$(B)/java/%.class,$(wildcard selftests/java/*.java)))

.PHONY: android all modules userspace binaries tests fuzzers fuzz version dist deb deps check demo fresh-check bench clean install uninstall static kmi-check FORCE

all: modules userspace tests

deps:
	@$(TOP)/scripts/deps

# ---- kernel modules ---------------------------------------------------------
# Kbuild writes objects next to the sources, so each kernel gets a shadow tree
# of symlinks under build/ and the two kernels never share an object file.
KBUILD_DIR ?= $(TOP)/build/kmod-$(KVER)
# relative to where make runs, not to the kernel tree Kbuild runs in
override KBUILD_DIR := $(abspath $(KBUILD_DIR))
# where the guests load the modules from (scripts/static-checks' builds go
# elsewhere); each is renamed into place, since a guest may be loading it
KO_DIR ?= $(TOP)/build/$(KVER)
override KO_DIR := $(abspath $(KO_DIR))
modules:
	@test -f $(KDIR)/Makefile || { echo "powerpin: no kernel headers for $(KVER) at $(KDIR): install linux-headers-$(KVER), set KVER= or KDIR=, or make install MODULE=no for userspace only" >&2; exit 1; }
	@$(TOP)/scripts/shadow-tree $(TOP) $(KBUILD_DIR)
	+$(KMAKE) M=$(KBUILD_DIR) $(KBUILD_ARGS) CONFIG_POWERPIN_SELFTESTS=m POWERPIN_VERSION=$(VERSION) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules
	@mkdir -p $(KO_DIR) && for ko in $(KBUILD_DIR)/kmod/powerpin.ko $(KBUILD_DIR)/selftests/gauge/*.ko; do \
		n=$(KO_DIR)/$$(basename $$ko); cp $$ko $$n.new && mv -f $$n.new $$n || exit 1; done

# ---- userspace --------------------------------------------------------------
userspace: $(BINS) $(AGENT)
# powerpin and powerpind alone (what make demo runs; no JDK needed)
binaries: $(BINS)

# rewritten only when the version changes, so nothing else is rebuilt
$(B)/gen/powerpin_version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define POWERPIN_VERSION "$(VERSION)"' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(B)/daemon/lib/base/version.o $(B)/fuzz/obj/daemon/lib/base/version.o: $(B)/gen/powerpin_version.h

$(B)/%.o: %.c $(LIB_HDRS) uapi/linux/powerpin.h $(GEN_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/gen/%.pb-c.c $(B)/gen/%.pb-c.h: daemon/lib/report/%.proto
	@mkdir -p $(dir $@)
	protoc-c --proto_path=daemon/lib/report --c_out=$(B)/gen $<

# the HTML report's script, as a C string with its Content-Security-Policy hash
$(B)/gen/report_html_js.h: daemon/lib/report/report_html.js scripts/embed-js
	@mkdir -p $(dir $@)
	python3 scripts/embed-js $< $@

# generated code: the project's warning flags are not its author's
$(B)/gen/%.pb-c.o: $(B)/gen/%.pb-c.c $(GEN_HDRS)
	$(CC) $(CPPFLAGS) $(filter-out -Wmissing-prototypes -Wshadow,$(CFLAGS)) -c -o $@ $<

$(B)/libpowerpin.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/bin/powerpin: $(CLI_OBJ) $(B)/libpowerpin.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/bin/powerpind: $(B)/daemon/powerpind.o $(B)/libpowerpin.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# ---- the JVMTI agent -------------------------------------------------------
$(B)/agent/%.o: daemon/agent/%.c daemon/agent/agent.h
	@test -f $(JAVA_HOME)/include/jvmti.h || { echo "powerpin: no jvmti.h under JAVA_HOME=$(JAVA_HOME) (run make deps, or set JAVA_HOME=)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(JNI_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(AGENT): $(AGENT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -fPIC -Wl,-z,defs -Wl,-z,now -o $@ $^ -lpthread

# ---- tests ------------------------------------------------------------------
tests: $(HOST_TESTS) $(GUEST_TESTS) $(BENCHES) $(B)/tests/bin/powerpin-other-version \
	$(B)/tests/bin/teardown_probe $(JAVA_CLASSES)

# A fixture whose test fails, built as the tests are (harness_teardown_test).
$(B)/tests/bin/teardown_probe: selftests/probe/teardown_probe.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $<

# The CLI built as another version, to test what status says of a module
# that does not match.
$(B)/tests/bin/powerpin-other-version: $(CLI_OBJ) $(B)/libpowerpin.a daemon/lib/base/version.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DPOWERPIN_VERSION='"0.0.0-other"' -o $@ daemon/lib/base/version.c $(CLI_OBJ) $(B)/libpowerpin.a $(LDLIBS)

$(B)/java/%.class: selftests/java/%.java
	@mkdir -p $(dir $@)
	$(JAVAC) -d $(B)/java $<

$(B)/bench/%: selftests/bench/%.c $(B)/libpowerpin.a
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -I$(TOP)/selftests -o $@ $< $(B)/libpowerpin.a $(LDLIBS)

$(B)/tests/%: selftests/%.c $(B)/libpowerpin.a $(wildcard selftests/*.h)
	@test -f $(KSELFTEST)/kselftest_harness.h || { echo "powerpin: kselftest harness missing (run make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -I$(TOP)/selftests -o $@ $< $(B)/libpowerpin.a $(LDLIBS)

# ---- fuzzers ----------------------------------------------------------------
# libFuzzer harnesses (selftests/fuzz/) over the library built a second time
# with clang, ASan and UBSan; any undefined behaviour aborts.
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := $(filter-out -O2 -fstack-protector-strong,$(CFLAGS)) -O1 \
	       -fno-omit-frame-pointer $(FUZZ_SAN)
FUZZ_OBJ    := $(LIB_SRC:%.c=$(B)/fuzz/obj/%.o) $(B)/fuzz/obj/gen/perfetto_trace.pb-c.o

fuzzers: $(FUZZERS)

$(B)/fuzz/obj/%.o: %.c $(LIB_HDRS) uapi/linux/powerpin.h $(GEN_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(B)/fuzz/obj/gen/%.pb-c.o: $(B)/gen/%.pb-c.c $(GEN_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out -Wmissing-prototypes -Wshadow,$(FUZZ_CFLAGS)) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(B)/fuzz/libpowerpin.a: $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/fuzz/bin/%: selftests/fuzz/%.c selftests/fuzz/fuzz.h $(B)/fuzz/libpowerpin.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(B)/fuzz/libpowerpin.a $(LDLIBS)

# ---- the front door ---------------------------------------------------------
check:
	@$(TOP)/scripts/deps
	@$(TOP)/scripts/check

demo:
	@$(TOP)/scripts/deps demo
	@$(TOP)/scripts/demo

bench:
	@$(TOP)/scripts/deps
	@$(TOP)/scripts/bench

static:
	@$(TOP)/scripts/static-checks

# the module's symbols that the GKI KMI lists KMI (space-separated) do not
# export: make kmi-check KMI=../shared/kmi/android14-6.1.txt [KO=path.ko]
KO ?= $(KO_DIR)/powerpin.ko
kmi-check:
	@test -n "$(KMI)" || { echo "make kmi-check: name the KMI lists: KMI=\"LIST...\" (e.g. ../shared/kmi/android14-6.1.txt)" >&2; exit 2; }
	@$(TOP)/scripts/kmi-check $(foreach l,$(KMI),--kmi $(l)) $(KO)

# make demo, make check and make deb in pristine Debian 12 roots
fresh-check:
	@$(TOP)/scripts/fresh-check

# static powerpin and powerpind for Android phones: build/android/{arm,arm64}/
android:
	@$(TOP)/scripts/android

version:
	@echo $(VERSION)

# build/powerpin-VERSION.tar.xz, which keeps its version without .git
dist:
	@mkdir -p $(B)
	@$(TOP)/scripts/dist

# Debian packages powerpin and powerpin-dkms, into build/deb/
deb:
	@$(TOP)/scripts/deb

FUZZ_SECONDS ?= 60
fuzz:
	@$(TOP)/scripts/deps
	@$(TOP)/scripts/fuzz run $(FUZZ_SECONDS)

# ---- install ----------------------------------------------------------------
# Binaries, module, uapi header, man pages, completion, unit, config
# example and docs; nothing the tests need is built.
DESTDIR ?=
PREFIX  ?= /usr/local
MODULE  ?= yes
INSTALL_KVER = $(if $(filter no,$(MODULE)),none,$(KVER))
install: userspace $(if $(filter no,$(MODULE)),,modules)
	POWERPIN_KO_DIR="$(KO_DIR)" $(TOP)/scripts/install install "$(DESTDIR)" "$(PREFIX)" "$(INSTALL_KVER)"

uninstall:
	$(TOP)/scripts/install uninstall "$(DESTDIR)" "$(PREFIX)" "$(INSTALL_KVER)"

clean:
	rm -rf $(B)
