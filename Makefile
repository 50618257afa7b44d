# cgwatch — build, test, run, install.  `make help` lists the targets.
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
DESTDIR    ?=
BUILD      ?= build
UNITDIR    ?= /lib/systemd/system
# journalctl --update-catalog reads /usr/lib/systemd/catalog and /usr/local/lib/systemd/catalog
# (systemd 252 on Debian 12, checked): right for PREFIX=/usr and /usr/local; set it for others.
CATALOGDIR ?= $(PREFIX)/lib/systemd/catalog
# Installed text names this install's paths; the sources name the /usr/local defaults.
PATH_SED   := -e 's|/usr/local/share/cgwatch|$(PREFIX)/share/cgwatch|g' \
              -e 's|/usr/local/sbin/cgwatch|$(PREFIX)/sbin/cgwatch|g' \
              -e 's|/usr/local/lib/systemd/catalog|$(CATALOGDIR)|g' \
              -e 's|/etc/cgwatch|$(SYSCONFDIR)/cgwatch|g' \
              -e 's|/var/lib/cgwatch|$(LOCALSTATEDIR)/lib/cgwatch|g' \
              -e 's|/var/log/cgwatch|$(LOCALSTATEDIR)/log/cgwatch|g'

CC         ?= cc
# the version a bundle's manifest names: debian/changelog's latest entry
VERSION    := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)
PKGS       := libsystemd libproc2 inih json-c libarchive nettle libunwind libunwind-generic libbpf \
              libseccomp
# chromium: the incident page loaded in a real headless browser (tests/live/htmlpage.sh)
DEBIAN_DEPS := build-essential pkg-config libsystemd-dev libproc2-dev libinih-dev \
               libjson-c-dev libcmocka-dev libunwind-dev libarchive-dev nettle-dev libseccomp-dev jq zstd valgrind \
               fuse3 util-linux procps iproute2 systemd python3 clang-14 libclang-rt-14-dev \
               libbpf-dev bpftool \
               debhelper dpkg-dev lintian \
               mmdebstrap systemd-container chromium qemu-system-x86 busybox-static \
               bpftrace stress-ng

WARN       := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
CFLAGS     ?= -O2 -g
# CPPFLAGS and LDFLAGS are passed as given: the package build's hardening (fortify, relro, now)
ALL_CFLAGS := -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) -D_GNU_SOURCE -include $(BUILD)/config.h \
              $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libarchive is loaded with dlopen (src/archive-lib.h), not linked: its headers only
LIBS       := $(shell pkg-config --libs $(filter-out libarchive,$(PKGS)) 2>/dev/null) -lpthread -lm

SRCS       := $(sort $(wildcard src/*.c))
# the shipped signature library, compiled in: $(BUILD)/gen/sigs-builtin.c holds these files
SIG_FILES  := $(sort $(wildcard conf/signatures.d/*.conf))
# the shipped hazard rules, compiled in the same way: $(BUILD)/gen/hazards-builtin.c
HAZ_FILES  := $(sort $(wildcard conf/hazards.d/*.conf))
# The BPF task iterator (src/bpf/): compiled with clang's BPF target, then a libbpf skeleton
# that embeds the object in source-bpf.o. clang-14 first (make deps installs it), else clang.
BPF_CLANG  ?= $(firstword $(shell command -v clang-14 clang 2>/dev/null) clang-14)
BPFTOOL    ?= $(firstword $(shell command -v bpftool /usr/sbin/bpftool 2>/dev/null) bpftool)
BPF_CFLAGS := -g -O2 -target bpf -Wall -Werror \
              -I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null) -Isrc/bpf
OBJS       := $(SRCS:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/sigs-builtin.o \
              $(BUILD)/obj/hazards-builtin.o
LIBOBJS    := $(filter-out $(BUILD)/obj/main.o,$(OBJS))
UNIT_SRCS  := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# libFuzzer harnesses, one per parser, built with clang into $(BUILD)/fuzz (tests/fuzz/run.sh)
FUZZ_CC    ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
               -fno-sanitize-recover=all
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BINS  := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/bin/%)

.PHONY: all deps run test test-build test-build-asan test-build-fuzz unit install deb asan asan-unit \
        fuzz fuzz-smoke fuzz-build fuzz-bins \
        print-cflags print-libs \
        clean help FORCE

all: $(BUILD)/cgwatch

# what a program linked against cgwatch's objects needs (tests/live links helpers so)
print-cflags:
	@echo $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
print-libs:
	@echo $(LIBS)

help:
	@echo "make deps      install the Debian build and test dependencies (root)"
	@echo "make           build $(BUILD)/cgwatch"
	@echo "make run       deps + build + cgwatch check on this host (root)"
	@echo "make test      deps + build + the whole test suite (root for live tests)"
	@echo "make unit      build the cmocka unit tests"
	@echo "make asan      build $(BUILD)/asan/cgwatch with AddressSanitizer and UBSan"
	@echo "make asan-unit build the unit tests with them, in $(BUILD)/asan/tests"
	@echo "make fuzz      run every libFuzzer harness for FUZZ_SECONDS (60) each (clang-14)"
	@echo "make fuzz-smoke  the same for 3 s each, as the test suite does"
	@echo "make install   install under DESTDIR/PREFIX"
	@echo "make deb       the Debian package: $(BUILD)/deb/cgwatch_VERSION_ARCH.deb"

deps:
	@if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root (apt-get)"; exit 1; fi
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_DEPS) >/dev/null

# Installation paths compiled in; rewritten only when PREFIX or SYSCONFDIR change, so that
# `make install PREFIX=/usr` after a plain `make` rebuilds what depends on them.
$(BUILD)/config.h: FORCE | $(BUILD)/obj
	@printf '#define CGW_LOCAL_SIGDIR "%s"\n#define CGW_LOCAL_HAZDIR "%s"\n#define CGW_CONFFILE "%s"\n#define CGW_STATEDIR "%s"\n#define CGW_REPORTDIR "%s"\n#define CGW_VERSION "%s"\n' \
		"$(SYSCONFDIR)/cgwatch/signatures.d" "$(SYSCONFDIR)/cgwatch/hazards.d" \
		"$(SYSCONFDIR)/cgwatch/cgwatch.conf" "$(LOCALSTATEDIR)/lib/cgwatch" \
		"$(LOCALSTATEDIR)/log/cgwatch" "$(VERSION)" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c $(wildcard src/*.h) $(wildcard src/bpf/*.h) $(BUILD)/config.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

# the skeletons (the task walker, taskwalk.bpf.c; the task iterator, taskiter.bpf.c), generated
# before source-bpf.c is compiled; without the tools make stops here and names the Debian package
$(BUILD)/gen/%.bpf.o: src/bpf/%.bpf.c $(wildcard src/bpf/*.h) | $(BUILD)/gen
	@command -v $(BPF_CLANG) >/dev/null || { echo "make: $(BPF_CLANG) not found: the BPF task" \
		"walker (src/bpf/$*.bpf.c) is compiled with clang's BPF target; install the" \
		"Debian package clang-14 (or clang), or run make deps" >&2; exit 1; }
	@[ -f /usr/include/bpf/bpf_helpers.h ] || { echo "make: /usr/include/bpf/bpf_helpers.h" \
		"not found: install the Debian package libbpf-dev, or run make deps" >&2; exit 1; }
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/gen/%.skel.h: $(BUILD)/gen/%.bpf.o
	@command -v $(BPFTOOL) >/dev/null || { echo "make: $(BPFTOOL) not found: the BPF task" \
		"walker is embedded through a skeleton that bpftool generates; install the Debian" \
		"package bpftool, or run make deps" >&2; exit 1; }
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

.PRECIOUS: $(BUILD)/gen/%.bpf.o $(BUILD)/gen/%.skel.h
$(BUILD)/obj/source-bpf.o: $(BUILD)/gen/taskwalk.skel.h $(BUILD)/gen/taskiter.skel.h
$(BUILD)/obj/source-bpf.o: ALL_CFLAGS += -I$(BUILD)/gen -Isrc

# the run-queue latency program (src/bpf/runqlat.bpf.c), embedded in source-runq.o the same way
$(BUILD)/gen/runqlat.bpf.o: src/bpf/runqlat.bpf.c src/bpf/runqrec.h $(BUILD)/gen/taskiter.bpf.o | $(BUILD)/gen
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/gen/runqlat.skel.h: $(BUILD)/gen/runqlat.bpf.o $(BUILD)/gen/taskiter.skel.h
	$(BPFTOOL) gen skeleton $< name runqlat > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/source-runq.o: $(BUILD)/gen/runqlat.skel.h
$(BUILD)/obj/source-runq.o: ALL_CFLAGS += -I$(BUILD)/gen -Isrc

# conf/signatures.d itself is a prerequisite: a file added or removed changes its mtime
$(BUILD)/gen/sigs-builtin.c: src/sigs-builtin.sh conf/signatures.d $(SIG_FILES) | $(BUILD)/gen
	sh src/sigs-builtin.sh $(SIG_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/hazards-builtin.c: src/sigs-builtin.sh conf/hazards.d $(HAZ_FILES) | $(BUILD)/gen
	sh src/sigs-builtin.sh -n hazard_builtin_files $(HAZ_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/hazards-builtin.o: $(BUILD)/gen/hazards-builtin.c src/cgwatch.h $(BUILD)/config.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

$(BUILD)/obj/sigs-builtin.o: $(BUILD)/gen/sigs-builtin.c src/cgwatch.h $(BUILD)/config.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -Isrc -c -o $@ $<

$(BUILD)/obj $(BUILD)/tests $(BUILD)/gen $(BUILD)/bin:
	mkdir -p $@

$(BUILD)/cgwatch: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJS) tests/unit/unit.h $(wildcard src/*.h) $(BUILD)/config.h | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Isrc -o $@ $< $(LIBOBJS) $(LIBS) $(shell pkg-config --libs cmocka)

unit: $(UNIT_BINS)

ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer

asan:
	$(MAKE) BUILD=$(BUILD)/asan CFLAGS="$(ASAN_CFLAGS)" $(BUILD)/asan/cgwatch

# the unit tests with AddressSanitizer and UBSan: $(BUILD)/asan/tests/test-*
asan-unit:
	$(MAKE) BUILD=$(BUILD)/asan CFLAGS="$(ASAN_CFLAGS)" unit

# The harnesses and the library objects they link, with clang, ASan, UBSan (fatal) and the
# libFuzzer instrumentation, in their own build directory ($(BUILD)/fuzz).
fuzz-build:
	$(MAKE) BUILD=$(BUILD)/fuzz CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS)" fuzz-bins

fuzz-bins: $(FUZZ_BINS)

$(BUILD)/bin/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h $(LIBOBJS) $(wildcard src/*.h) $(BUILD)/config.h | $(BUILD)/bin
	$(CC) $(ALL_CFLAGS) -Isrc -fsanitize=fuzzer -o $@ $< $(LIBOBJS) $(LIBS)

fuzz: fuzz-build
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

fuzz-smoke: fuzz-build
	BUILD=$(BUILD) FUZZ_SECONDS=3 tests/fuzz/run.sh

# run and test install the dependencies first, then build in a new make: the pkg-config
# flags above are read when make starts, before `deps` has installed the libraries.
run: deps
	$(MAKE) all
	$(BUILD)/cgwatch check; \
	rc=$$?; [ $$rc -le 1 ] || exit $$rc

test: deps
	$(MAKE) -j$$(nproc) test-build
	BUILD=$(BUILD) tests/run.sh

# What the suite runs, built under one jobserver so that no build's serial steps (its links)
# leave a CPU idle: the program and the unit tests, the same with ASan and UBSan, and the fuzz
# harnesses when $(FUZZ_CC) is there. A failure of the last is tests/fuzz/run.sh's to report
# (it runs make fuzz-build again, or skips the harnesses without clang-14).
test-build: all unit test-build-asan test-build-fuzz
test-build-asan:
	$(MAKE) BUILD=$(BUILD)/asan CFLAGS="$(ASAN_CFLAGS)" all unit
test-build-fuzz:
	@if command -v $(FUZZ_CC) >/dev/null; then $(MAKE) fuzz-build || \
		echo "make test-build: the fuzz build failed; tests/fuzz/run.sh says why"; fi

install: all
	@# generated files are staged in $(BUILD)/install, then installed with their modes
	mkdir -p $(BUILD)/install
	install -Dm755 $(BUILD)/cgwatch $(DESTDIR)$(PREFIX)/sbin/cgwatch
	@# the library is built into the binary; /etc/cgwatch/signatures.d is the admin's, for
	@# signatures that replace built-in ones by id or add new ones
	install -d $(DESTDIR)$(SYSCONFDIR)/cgwatch/signatures.d
	@# the same for hazard rules ([hazards] local): the admin's, beside the built-in ones
	install -d $(DESTDIR)$(SYSCONFDIR)/cgwatch/hazards.d
	@if ls $(DESTDIR)$(PREFIX)/share/cgwatch/signatures.d/*.conf >/dev/null 2>&1; then \
		echo "make install: $(DESTDIR)$(PREFIX)/share/cgwatch/signatures.d holds the library" \
		     "of an older install; it is built in now, and that directory is read only if" \
		     "[signatures] shipped names it: remove it"; fi
	@# the defaults always go to share/; the configuration in /etc is the admin's: never overwritten
	sed $(PATH_SED) cgwatch.conf > $(BUILD)/install/cgwatch.conf
	install -Dm644 $(BUILD)/install/cgwatch.conf $(DESTDIR)$(PREFIX)/share/cgwatch/cgwatch.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/cgwatch/cgwatch.conf ]; then \
		echo "make install: kept $(DESTDIR)$(SYSCONFDIR)/cgwatch/cgwatch.conf;" \
		     "the shipped defaults are in $(DESTDIR)$(PREFIX)/share/cgwatch/cgwatch.conf"; \
	else \
		echo "install -m644 $(BUILD)/install/cgwatch.conf $(DESTDIR)$(SYSCONFDIR)/cgwatch/cgwatch.conf"; \
		install -m644 $(BUILD)/install/cgwatch.conf $(DESTDIR)$(SYSCONFDIR)/cgwatch/cgwatch.conf; \
	fi
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' units/cgwatch.service.in > $(BUILD)/install/cgwatch.service
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' units/cgwatch-check.service.in > $(BUILD)/install/cgwatch-check.service
	install -d $(DESTDIR)$(UNITDIR)
	install -m644 $(BUILD)/install/cgwatch.service $(BUILD)/install/cgwatch-check.service $(DESTDIR)$(UNITDIR)/
	sed $(PATH_SED) docs/cgwatch.8 > $(BUILD)/install/cgwatch.8
	sed $(PATH_SED) docs/cgwatch.conf.5 > $(BUILD)/install/cgwatch.conf.5
	install -Dm644 $(BUILD)/install/cgwatch.8 $(DESTDIR)$(PREFIX)/share/man/man8/cgwatch.8
	install -Dm644 $(BUILD)/install/cgwatch.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/cgwatch.conf.5
	@# Last, as it runs the binary: the journal catalog of the built-in library only (no
	@# directory configured, no environment: this machine's /etc/cgwatch stays out of it).
	printf '[signatures]\nshipped =\nlocal =\n' > $(BUILD)/install/catalog.conf
	CGWATCH_SIGNATURES_DIR= $(BUILD)/cgwatch signatures --catalog \
		--config $(BUILD)/install/catalog.conf > $(BUILD)/install/cgwatch.catalog && \
		[ -s $(BUILD)/install/cgwatch.catalog ] || \
		{ echo "make install: cgwatch signatures --catalog failed: no journal catalog" >&2; exit 1; }
	install -Dm644 $(BUILD)/install/cgwatch.catalog $(DESTDIR)$(CATALOGDIR)/cgwatch.catalog
	@# journalctl -x reads a compiled database: rebuild it on a live install, not when staging
	@if [ -z "$(DESTDIR)" ] && command -v journalctl >/dev/null; then \
		echo "journalctl --update-catalog"; journalctl --update-catalog || true; fi

# The Debian package, built from a copy of this tree in a temporary directory: dpkg-buildpackage
# writes into the parent of the tree it builds, and debian/rules runs `make clean` there.
# Only the results land here, in $(BUILD)/deb (cgwatch.deb: a link to the package itself).
# The outer make's variables stay out of it (MAKEFLAGS): debian/rules sets its own.
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || \
		{ echo "make deb: needs dpkg-dev and debhelper (make deps)" >&2; exit 1; }
	rm -rf $(BUILD)/deb
	mkdir -p $(BUILD)/deb
	@t=$$(mktemp -d "$${TMPDIR:-/tmp}/cgwatch-deb.XXXXXX") && \
	trap 'rm -rf "$$t"' EXIT && trap 'exit 130' INT TERM && \
	mkdir "$$t/cgwatch" && \
	tar --exclude=./.git --exclude=./build --exclude=./$(BUILD) --exclude=./tests/live/bin \
		-cf - . | tar -C "$$t/cgwatch" -xf - && \
	echo "dpkg-buildpackage -b -us -uc  (in $$t/cgwatch)" && \
	(cd "$$t/cgwatch" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -b -us -uc) && \
	mv "$$t"/*.deb "$$t"/*.buildinfo "$$t"/*.changes $(BUILD)/deb/ && \
	cd $(BUILD)/deb && ln -s cgwatch_*.deb cgwatch.deb && ls -l *.deb

clean:
	rm -rf $(BUILD) tests/live/bin

