# myriad - operations console for accelerator clusters.
#
#   make demo      install what is missing, build, run the console on the
#                  embedded simulated 10,240-GPU cluster
#   make check     install what is missing, build, run every test
#                  (and again under AddressSanitizer + UBSan)
#   make bench     benchmarks, printed as numbers and ratios
#   make check-slurm   the suite against a private real Slurm alone
#   make fuzz      run each libFuzzer target for a bounded time
#   make mutate    break the product one way at a time, print which tests
#                  notice (slow: not part of make check)
#   make install   PREFIX=/usr/local DESTDIR=
#   make SAN=1     build with ASan + UBSan into build-san/
#
# pkg-config is evaluated lazily (recursive variables) so that `make deps`
# can install it on a fresh machine before anything asks for it.

PKGS      = ncursesw libssh jansson sqlite3 tcl8.6
CC       ?= cc
ifeq ($(origin CC),default)
CC        = cc
endif
OPT      ?= -O2 -g
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wno-format-nonliteral -Wwrite-strings -Wpointer-arith
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lreadline -lm -ldl
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(PKG_CFLAGS) -Isrc -I$(B)/gen \
             -DMYRIAD_PLUGIN_DIR='"$(PREFIX)/lib/myriad/plugins"' $(EXTRA_CFLAGS)
PREFIX   ?= /usr/local

ifeq ($(SAN),1)
B         = build-san
SANFLAGS  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT       = -O1 -g
else
B         = build
SANFLAGS  =
endif

CORE_SRC  = $(filter-out src/main.c src/sim/sim_main.c,$(wildcard src/*.c src/*/*.c)) $(wildcard panels/*.c)
CORE_OBJ  = $(CORE_SRC:%.c=$(B)/%.o)
UNIT_SRC  = $(wildcard tests/unit/*.c)
UNIT_OBJ  = $(UNIT_SRC:%.c=$(B)/%.o)
BENCH_SRC = $(wildcard tests/bench/*.c)
FUZZ_SRC  = $(wildcard tests/fuzz/fuzz_*.c)
PLUGIN_SRC = $(wildcard plugins/*.c)
PLUGINS   = $(PLUGIN_SRC:plugins/%.c=$(B)/plugins/%.so)

.PHONY: all deps demo check check-slurm test unit bench fuzz mutate install clean man-check

all: $(B)/myriad $(B)/myriad-sim $(B)/unit-tests $(PLUGINS)

deps:
	@sh tests/tools/deps.sh

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -MMD -MP -c $< -o $@

# The default key table has one source, scripts/keys.tcl; keys.c compiles in
# what src/ui/keys2c.tcl makes of it.
$(B)/gen/keys_default.h: scripts/keys.tcl src/ui/keys2c.tcl
	@mkdir -p $(dir $@)
	tclsh src/ui/keys2c.tcl scripts/keys.tcl > $@.tmp && mv $@.tmp $@

$(B)/src/ui/keys.o: $(B)/gen/keys_default.h

$(B)/libmyriad.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# A plugin is a shared object that uses only the host table (myriad-plugins(7)).
$(B)/plugins/%.so: plugins/%.c src/plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SANFLAGS) -fPIC -shared $< -o $@

$(B)/myriad: $(B)/src/main.o $(B)/libmyriad.a
	$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/myriad-sim: $(B)/src/sim/sim_main.o $(B)/libmyriad.a
	$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/unit-tests: $(UNIT_OBJ) $(B)/libmyriad.a
	$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/bench: $(BENCH_SRC:%.c=$(B)/%.o) $(B)/libmyriad.a
	$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/bench-store: $(B)/tests/bench/store/bench_store.o $(B)/tests/bench/store/bench_big.o $(B)/libmyriad.a
	$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/bench-ui: $(B)/tests/bench/ui/bench_ui.o $(B)/libmyriad.a
	$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

demo: deps
	@$(MAKE) --no-print-directory all
	./$(B)/myriad --sim accel=1000

unit: all
	./$(B)/unit-tests

# Every test: unit tests, then the suites, then the same under ASan+UBSan.
# A suite skips a test only for an external tool it lacks (or root); a
# suite skipped entirely fails the run (tests/run.sh: REQUIRED_SUITES).
check: deps
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh $(B)
	@$(MAKE) --no-print-directory SAN=1 all
	@SANITIZED=1 sh tests/run.sh build-san

# The Slurm suite alone: a private Slurm cluster on loopback (needs root).
check-slurm: deps
	@$(MAKE) --no-print-directory all
	MYRIAD_BIN=$(B)/myriad tclsh tests/slurm.test

bench: deps
	@$(MAKE) --no-print-directory all $(B)/bench $(B)/bench-ui $(B)/bench-store
	./$(B)/bench
	./$(B)/bench-ui
	MYRIAD_BIN=$(B)/myriad ./$(B)/bench-store
	sh tests/bench/bench_ssh.sh $(B)
	tclsh tests/bench/bench_slurm.tcl $(B)
	tclsh tests/bench/bench_inventory.tcl $(B)

FUZZ_SECONDS ?= 30
# Every target links the core built by clang with coverage (build-fuzz/core);
# readers of files and documents must never size an allocation from what
# they read, so a single allocation over 512 MB is a finding.
FUZZ_CORE = build-fuzz/core/libmyriad.a
fuzz: deps
	@$(MAKE) --no-print-directory B=build-fuzz/core CC=clang OPT="-O1 -g" SANFLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
		EXTRA_CFLAGS="-Wno-string-concatenation -Wno-format-zero-length" $(FUZZ_CORE)
	@for f in $(FUZZ_SRC); do \
		n=$$(basename $$f .c); \
		clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc $(PKG_CFLAGS) \
			$$f $(FUZZ_CORE) \
			-o build-fuzz/$$n $(PKG_LIBS) || exit 1; \
		mkdir -p tests/fuzz/corpus/$$n; \
		./build-fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -malloc_limit_mb=512 -timeout=30 \
			-close_fd_mask=2 -artifact_prefix=tests/fuzz/crash- tests/fuzz/corpus/$$n tests/fuzz/seed/$$n || exit 1; \
	done

# The mutation check: each mutation of tests/tools/mutate.sh in a copy of the
# tree, the unit tests and every suite run against it; MUTATIONS="xid-code
# rec-commit" for some only (sh tests/tools/mutate.sh -l lists them).
mutate:
	sh tests/tools/mutate.sh $(MUTATIONS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/myriad/scripts \
		$(DESTDIR)$(PREFIX)/share/myriad/themes $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/lib/myriad/plugins $(DESTDIR)$(PREFIX)/include/myriad/action
	install -m 755 $(B)/myriad $(B)/myriad-sim $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(PLUGINS) $(DESTDIR)$(PREFIX)/lib/myriad/plugins/
	install -m 644 plugins/*.tcl $(DESTDIR)$(PREFIX)/lib/myriad/plugins/
	install -m 644 src/plugin.h src/myriad.h src/bus.h src/clock.h src/loop.h src/model.h src/event.h \
		src/util.h src/topo.h $(DESTDIR)$(PREFIX)/include/myriad/
	install -m 644 src/action/backend.h $(DESTDIR)$(PREFIX)/include/myriad/action/
	-install -m 644 scripts/*.tcl $(DESTDIR)$(PREFIX)/share/myriad/scripts/
	-install -m 644 themes/* $(DESTDIR)$(PREFIX)/share/myriad/themes/
	-install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	-install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	-install -m 644 man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/

clean:
	rm -rf build build-san build-fuzz

-include $(CORE_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(B)/src/main.d $(B)/src/sim/sim_main.d $(BENCH_SRC:%.c=$(B)/%.d) \
         $(B)/tests/bench/store/bench_store.d $(B)/tests/bench/store/bench_big.d $(B)/tests/bench/ui/bench_ui.d
