# mpicrawl - one hand-written Makefile.
#   make            build bin/mpicrawl and bin/simweb
#   make test       install missing packages (as root), build, run the suite
#   make demo       install missing packages (as root), build, crawl the local web
#   make bench      benchmarks, side by side with wget2
#   make fuzz       install missing packages (as root), build the libFuzzer
#                   targets (clang) into build-fuzz/ and run each
#                   FUZZ_SECONDS (60); FUZZ_TARGETS="fuzz_url ..." picks some
#   make install    bin/mpicrawl and scripts/mpicrawl-run into PREFIX/bin
#                   (PREFIX=/usr/local), the Slurm scripts and jobs/ into
#                   PREFIX/share/mpicrawl; make uninstall removes them
#   make test also builds the unit tests with -fsanitize=address,undefined
#   (into build-san/) and runs them; SANITIZE_TESTS=0 skips that
CC      ?= gcc
MPICC   ?= mpicc
PKGS    := libcurl libcares libxml-2.0 libzstd libxxhash libpsl libidn2 zlib libssl libcrypto libpcre2-8 libdeflate \
	   libbrotlidec libzip libmagic poppler-glib
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -Isrc
ifneq ($(WERROR),)
CFLAGS  += -Werror
endif
# C++ only for the one file that speaks to CLD2 (src/parse/lang.cc).
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++11 -D_GNU_SOURCE -Wall -Wextra -Isrc
ifneq ($(WERROR),)
CXXFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
CXXFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer $(FUZZ_CXXFLAGS)
LDFLAGS += -fsanitize=$(SANITIZE)
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# CLD2 (libcld2-dev) has no pkg-config file.
LIBS    := $(PKG_LIBS) -lcld2 -lstdc++ -lm -pthread

B ?= build
ALL_SRC  := $(wildcard src/*/*.c)
MPI_SRC  := $(wildcard src/comm/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
CORE_SRC := $(filter-out $(MPI_SRC) $(CLI_SRC),$(ALL_SRC))
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o) $(patsubst %.cc,$(B)/%.o,$(wildcard src/*/*.cc))
MPI_OBJ  := $(MPI_SRC:%.c=$(B)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
SIMWEB_SRC := $(wildcard tests/simweb/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_SRC:tests/fuzz/%.c=%)
# A fuzz target has no main: tests/fuzz/replay.c gives it one that runs it
# over the files given (make test replays the seed corpora so); make fuzz
# links libFuzzer's instead (FUZZ_MAIN empty, FUZZ_LDFLAGS=-fsanitize=fuzzer).
FUZZ_MAIN ?= tests/fuzz/replay.c

.PHONY: all check test-quick test demo bench deps clean lint fuzz fuzz-bins unit install uninstall install-paths
all: bin/mpicrawl bin/simweb $(UNIT_BIN) $(B)/bin/mpicrawl-test
# The unit test programs alone, e.g. make B=build-san SANITIZE=address,undefined unit
unit: $(UNIT_BIN)

$(B)/src/comm/%.o: src/comm/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# The revision the warcinfo records name (crawldb/provenance.c): rebuilt
# when it changes.
REVISION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(shell mkdir -p $(B) && (echo '$(REVISION)' | cmp -s - $(B)/revision || \
	echo '$(REVISION)' > $(B)/revision))
$(B)/src/crawldb/provenance.o: $(B)/revision
$(B)/src/crawldb/provenance.o: CFLAGS += -DMPICRAWL_REVISION='"$(REVISION)"'

$(B)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(B)/libcore.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

bin/mpicrawl: $(CLI_OBJ) $(MPI_OBJ) $(B)/libcore.a
	@mkdir -p bin
	$(MPICC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(MPI_OBJ) $(B)/libcore.a $(LIBS)

# The crawler built in $(B) as well, e.g. the sanitized one the hostile crawl
# of make test runs: make B=build-san SANITIZE=address,undefined build-san/bin/mpicrawl
$(B)/bin/mpicrawl: $(CLI_OBJ) $(MPI_OBJ) $(B)/libcore.a
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(MPI_OBJ) $(B)/libcore.a $(LIBS)

# The crawler with the crash tests' kill hook (tests/hooks/kill.c), for
# tests/e2e/resume.sh: the hook is never part of bin/mpicrawl.
$(B)/bin/mpicrawl-test: $(CLI_OBJ) $(MPI_OBJ) $(B)/libcore.a tests/hooks/kill.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ tests/hooks/kill.c $(CLI_OBJ) \
		$(MPI_OBJ) $(B)/libcore.a $(LIBS)

bin/simweb: $(SIMWEB_SRC) $(wildcard tests/simweb/*.h)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(SIMWEB_SRC) $(shell pkg-config --libs libxxhash zlib) -lm

$(B)/tests/%: tests/unit/%.c tests/unit/test.h $(B)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(UNIT_LINK) \
		$(B)/libcore.a $(LIBS)

# Unit programs whose ranks run on the simulated comm (tests/unit/comm_sim.h,
# threads for ranks): linked with it and with comm_stream (src/comm/stream.c
# holds no MPI) built by $(CC). The others link no comm at all, and the
# crawler never links the simulated one.
SIM_TESTS := test_stream test_route
SIM_OBJ   := $(B)/tests/unit/comm_sim.o $(B)/sim/src/comm/stream.o
$(SIM_TESTS:%=$(B)/tests/%): $(SIM_OBJ) tests/unit/comm_sim.h
$(SIM_TESTS:%=$(B)/tests/%): UNIT_LINK = $(SIM_OBJ)

$(B)/sim/src/comm/stream.o: src/comm/stream.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_MAIN) $(B)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/fuzz $(LDFLAGS) $(FUZZ_LDFLAGS) -o $@ $< \
		$(FUZZ_MAIN) $(B)/libcore.a $(LIBS)

# The fuzz targets alone, e.g. make B=build-san SANITIZE=address,undefined fuzz-bins
fuzz-bins: $(FUZZ_BIN)

deps:
	@bash scripts/install-deps.sh

# warcio.js, which the tests read every WARC file with, pinned by
# tests/warcio/package-lock.json (npm ci when the lockfile changed).
WARCIO := tests/warcio/node_modules/.package-lock.json
$(WARCIO): tests/warcio/package-lock.json tests/warcio/package.json
	@cd tests/warcio && npm ci --no-audit --no-fund --loglevel=error

test: deps
	@$(MAKE) --no-print-directory WERROR=1 all
	@$(MAKE) --no-print-directory $(WARCIO)
	@bash tests/run.sh

# The inner loop: the unit programs, in seconds (no dependencies checked).
check: unit
	@bash tests/run.sh unit

# Unit programs, lint and a handful of end-to-end scripts (a few minutes).
test-quick: deps
	@$(MAKE) --no-print-directory WERROR=1 all
	@$(MAKE) --no-print-directory $(WARCIO)
	@bash tests/run.sh unit lint cli rejudge outputs stop seeds

demo: deps
	@$(MAKE) --no-print-directory all
	@bash scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bash bench/run.sh

lint: all
	@bash scripts/lint.sh

# The core built again with clang for libFuzzer, ASan and UBSan; then each
# target runs FUZZ_SECONDS, new finds going to build-fuzz/corpus/TARGET and
# a crash stopping the run (tests/fuzz/fuzz.sh, docs/FUZZING.md). clang++'s
# UBSan checks C++ calls through function pointers with a runtime only a C++
# link brings: lang.cc goes without that one check (FUZZ_CXXFLAGS).
fuzz: deps
	@$(MAKE) --no-print-directory -j2 B=build-fuzz CC=clang CXX=clang++ FUZZ_MAIN= \
		SANITIZE=fuzzer-no-link,address,undefined FUZZ_LDFLAGS=-fsanitize=fuzzer \
		FUZZ_CXXFLAGS=-fno-sanitize=function fuzz-bins
	@bash tests/fuzz/fuzz.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The installed scripts find each other: mpicrawl-run the mpicrawl beside
# it, chain.sh the crawl.sbatch beside it, crawl.sbatch PREFIX/bin/mpicrawl
# (docs/OPERATIONS.md, "Installing"). DESTDIR for packagers.
PREFIX ?= /usr/local
SHARE  := $(DESTDIR)$(PREFIX)/share/mpicrawl
# A PREFIX or DESTDIR with white space would split into several paths
# (and uninstall's rm -rf into several targets): refused.
install-paths:
	@case "$(DESTDIR)$(PREFIX)" in *[[:space:]]*|"") \
		echo "install: PREFIX and DESTDIR must be non-empty paths without spaces" >&2; \
		exit 2;; esac

install: bin/mpicrawl install-paths
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(SHARE)/slurm" "$(SHARE)/jobs"
	install -m 755 bin/mpicrawl "$(DESTDIR)$(PREFIX)/bin/mpicrawl"
	install -m 755 scripts/mpicrawl-run "$(DESTDIR)$(PREFIX)/bin/mpicrawl-run"
	install -m 755 slurm/crawl.sbatch slurm/chain.sh "$(SHARE)/slurm/"
	install -m 644 jobs/*.conf jobs/*.rules "$(SHARE)/jobs/"

uninstall: install-paths
	rm -f "$(DESTDIR)$(PREFIX)/bin/mpicrawl" "$(DESTDIR)$(PREFIX)/bin/mpicrawl-run"
	rm -rf "$(SHARE)"

clean:
	rm -rf build build-san bin

-include $(shell find $(B) -name '*.d' 2>/dev/null)
