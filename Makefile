# cgwatch — build, test, run, install.  `make help` lists the targets.
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
DESTDIR    ?=
BUILD      ?= build
UNITDIR    ?= /lib/systemd/system

CC         ?= cc
PKGS       := libsystemd libproc2 inih json-c
DEBIAN_DEPS := build-essential pkg-config libsystemd-dev libproc2-dev libinih-dev \
               libjson-c-dev libcmocka-dev libunwind-dev libarchive-dev jq valgrind \
               fuse3 util-linux procps systemd

WARN       := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
CFLAGS     ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -include $(BUILD)/config.h \
              $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS       := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

SRCS       := $(sort $(wildcard src/*.c))
OBJS       := $(SRCS:src/%.c=$(BUILD)/obj/%.o)
LIBOBJS    := $(filter-out $(BUILD)/obj/main.o,$(OBJS))
UNIT_SRCS  := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps run test unit install asan clean help FORCE

all: $(BUILD)/cgwatch

help:
	@echo "make deps      install the Debian build and test dependencies (root)"
	@echo "make           build $(BUILD)/cgwatch"
	@echo "make run       deps + build + cgwatch check on this host (root)"
	@echo "make test      deps + build + the whole test suite (root for live tests)"
	@echo "make unit      build the cmocka unit tests"
	@echo "make asan      build $(BUILD)/asan/cgwatch with AddressSanitizer and UBSan"
	@echo "make install   install under DESTDIR/PREFIX"

deps:
	@if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root (apt-get)"; exit 1; fi
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_DEPS) >/dev/null

# Installation paths compiled in; rewritten only when PREFIX or SYSCONFDIR change, so that
# `make install PREFIX=/usr` after a plain `make` rebuilds what depends on them.
$(BUILD)/config.h: FORCE | $(BUILD)/obj
	@printf '#define CGW_SIGDIR "%s"\n#define CGW_LOCAL_SIGDIR "%s"\n#define CGW_CONFFILE "%s"\n#define CGW_STATEDIR "%s"\n#define CGW_REPORTDIR "%s"\n' \
		"$(PREFIX)/share/cgwatch/signatures.d" "$(SYSCONFDIR)/cgwatch/signatures.d" \
		"$(SYSCONFDIR)/cgwatch/cgwatch.conf" "$(LOCALSTATEDIR)/lib/cgwatch" \
		"$(LOCALSTATEDIR)/log/cgwatch" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c src/cgwatch.h $(BUILD)/config.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/obj $(BUILD)/tests:
	mkdir -p $@

$(BUILD)/cgwatch: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJS) tests/unit/unit.h $(BUILD)/config.h | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) -Isrc -o $@ $< $(LIBOBJS) $(LIBS) $(shell pkg-config --libs cmocka)

unit: $(UNIT_BINS)

asan:
	$(MAKE) BUILD=$(BUILD)/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		$(BUILD)/asan/cgwatch

# run and test install the dependencies first, then build in a new make: the pkg-config
# flags above are read when make starts, before `deps` has installed the libraries.
run: deps
	$(MAKE) all
	CGWATCH_SIGNATURES_DIR=$(CURDIR)/conf/signatures.d $(BUILD)/cgwatch check; \
	rc=$$?; [ $$rc -le 1 ] || exit $$rc

test: deps
	$(MAKE) all unit asan
	BUILD=$(BUILD) tests/run.sh

install: all
	install -Dm755 $(BUILD)/cgwatch $(DESTDIR)$(PREFIX)/sbin/cgwatch
	install -Dm644 cgwatch.conf $(DESTDIR)$(SYSCONFDIR)/cgwatch/cgwatch.conf
	install -d $(DESTDIR)$(PREFIX)/share/cgwatch/signatures.d $(DESTDIR)$(SYSCONFDIR)/cgwatch/signatures.d
	install -m644 conf/signatures.d/*.conf $(DESTDIR)$(PREFIX)/share/cgwatch/signatures.d/
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' units/cgwatch-check.service.in \
		> $(DESTDIR)$(UNITDIR)/cgwatch-check.service
	install -Dm644 docs/cgwatch.8 $(DESTDIR)$(PREFIX)/share/man/man8/cgwatch.8
	install -Dm644 docs/cgwatch.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/cgwatch.conf.5

clean:
	rm -rf $(BUILD) tests/live/bin

