# gpumem-report — build, test, install.
#
#   make                 everything this machine can build (GPU parts need the CUDA toolkit)
#   make test            CPU tests (Criterion); GPU tests print why they were skipped.
#                        Without the toolkit (e.g. make CUDA_HOME=/nonexistent test)
#                        the tests that need it are listed as skipped, with the reason
#   make test-gpu        GPU tests: validation of every kernel, collector vs ncu (needs a GPU)
#   make install PREFIX=/usr/local DESTDIR=
#   make CUDA_ARCH=sm_80 to build the kernels for another GPU (default sm_90, H100)
#
# The CPU side (core/, reports/, the host half of kernels/ and collectors/)
# needs only jansson and cmark-gfm; without nvcc the GPU side is skipped, and
# the binary says so when asked to collect.

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
CUDA_ARCH ?= sm_90
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build

CC ?= cc
CFLAGS ?= -O2 -g
NVCCFLAGS ?= -O3 -lineinfo
WARN := -Wall -Wextra -pedantic
PKGS := jansson libcmark-gfm sqlite3
DEB_PKGS := build-essential pkg-config clang libclang-rt-14-dev gnuplot-nox libcmark-gfm-dev libcmark-gfm-extensions-dev \
            libjansson-dev libcriterion-dev libsqlite3-dev

HAVE_CUDA := $(shell test -x $(NVCC) && test -f $(CUDA_HOME)/include/cupti.h && echo 1)
# The Compute Sanitizer API (the tracer, collectors/gmc_trace.h): its headers and
# library ship in the toolkit's compute-sanitizer folder.
SANITIZER_DIR := $(CUDA_HOME)/compute-sanitizer
HAVE_SANITIZER := $(shell test "$(HAVE_CUDA)" = 1 && test -f $(SANITIZER_DIR)/include/sanitizer.h && echo 1)
HAVE_PKGS := $(shell pkg-config --exists $(PKGS) && echo 1)
HAVE_CRITERION := $(shell pkg-config --exists criterion && echo 1)

# `make deps` installs the Debian packages (as root) or prints the apt-get line.
ifneq ($(HAVE_PKGS),1)
ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
$(error jansson, cmark-gfm or sqlite3 not found by pkg-config: run 'make deps' (or: apt-get install $(DEB_PKGS)))
endif
endif

CPPFLAGS += -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(CPPFLAGS) $(shell pkg-config --cflags $(PKGS)) \
             -DGM_DATADIR='"$(PREFIX)/share/gpumem-report"'
LIBS = $(shell pkg-config --libs $(PKGS)) -lm

# Layers (docs/architecture.md): core/ <- kernels/, collectors/, reports/ <- orchestrate/ <- cli/.
# The CLI is linked into the binary directly; core/ and reports/ are the
# CPU-side libraries the tests link (reports before core on the link line).
CLI_SRC := cli/main.c cli/cli.c cli/opt.c cli/options.c $(wildcard cli/cmd_*.c)
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/%.o)
# The option tables and what they need, linked into the tests too (the docs
# are checked against them: tests/test_cli_docs.c).
CLI_OPT_OBJ := $(BUILD)/cli/opt.o $(BUILD)/cli/options.o $(BUILD)/cli/cli.o
CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
REPORT_SRC := $(wildcard reports/*.c)
REPORT_OBJ := $(REPORT_SRC:%.c=$(BUILD)/%.o)
CPU_LIBS := $(BUILD)/libgm_reports.a $(BUILD)/libgm_core.a
# orchestrate/ (between cli/ and the rest: the processes of a run) builds
# without the toolkit; the binary and the tests link it before the others.
ORCH_SRC := $(wildcard orchestrate/*.c)
ORCH_OBJ := $(ORCH_SRC:%.c=$(BUILD)/%.o)
ORCH_LIB := $(BUILD)/libgm_orchestrate.a
TEST_SRC := $(wildcard tests/test_*.c)
# The host side of kernels/ (the table, describe, references, traces,
# selection, the host half of the harness) is plain C and builds everywhere:
# the tests link it with or without the toolkit.  runner.c and the .cu files
# launch kernels and need nvcc.
KERNEL_CPU_SRC := $(filter-out kernels/runner.c,$(wildcard kernels/*.c kernels/*/*.c))
KERNEL_CPU_OBJ := $(KERNEL_CPU_SRC:%.c=$(BUILD)/%.o)
# The same for collectors/: the collector's and the injection library's
# helpers that need no CUDA or CUPTI header.
COLLECT_CPU_SRC := collectors/gmc_util.c collectors/inject_util.c collectors/replay_file.c
COLLECT_CPU_OBJ := $(COLLECT_CPU_SRC:%.c=$(BUILD)/%.o)

ifeq ($(HAVE_CUDA),1)
# -isystem: the toolkit's headers are not ours to warn about (clang -pedantic
# finds cupti_sass_metrics.h without a final newline).
ALL_CFLAGS += -DGM_HAVE_CUDA=1 -isystem $(CUDA_HOME)/include
# gmc_cupti_load.c (libcupti opened when collecting) is the program's: the
# injection library links libcupti itself.
# gmc_trace.c needs the sanitizer's headers; its device patch is embedded as
# a byte array (trace_patch_image.o, generated from collectors/trace_patch.cu).
# The trace mode (collectors/trace_mode.c) is a library of its own,
# libgpumem-trace.so, which the injection library and `gpumem-report
# trace-child` load with dlopen: only it needs libsanitizer-public.so.
ifeq ($(HAVE_SANITIZER),1)
COLLECT_SRC := $(filter-out collectors/gmc_cupti_load.c collectors/trace_mode.c,$(wildcard collectors/*.c))
COLLECT_OBJ := $(COLLECT_SRC:%.c=$(BUILD)/%.o) $(BUILD)/collectors/trace_patch_image.o \
               $(BUILD)/collectors/gmc_cupti_load.o
SANITIZER_LIBS := -L$(SANITIZER_DIR) -Wl,-rpath,$(SANITIZER_DIR) -lsanitizer-public
TRACE_SO := $(BUILD)/libgpumem-trace.so
else
COLLECT_SRC := $(filter-out collectors/gmc_trace.c collectors/gmc_cupti_load.c collectors/trace_mode.c,\
               $(wildcard collectors/*.c))
COLLECT_OBJ := $(COLLECT_SRC:%.c=$(BUILD)/%.o) $(BUILD)/collectors/gmc_cupti_load.o
endif
KERNEL_CUSRC := $(wildcard kernels/*.cu kernels/*/*.cu)
KERNEL_OBJ := $(KERNEL_CPU_OBJ) $(BUILD)/kernels/runner.o $(KERNEL_CUSRC:%.cu=$(BUILD)/%.cu.o)
# No library of the toolkit is linked dynamically: cudart is static (it finds
# the driver itself) and libcupti is opened when collecting
# (collectors/gmc_cupti_load.c), so that render, diff, merge, history, list and
# --version run where the toolkit is not installed.  The run path lets that
# dlopen find the toolkit the program was built with.
CUPTI_SONAME := $(or $(shell objdump -p $(CUDA_HOME)/lib64/libcupti.so 2>/dev/null | \
                   sed -n 's/^ *SONAME *//p'),libcupti.so.13)
GPU_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart_static \
            -lstdc++ -ldl -lrt -lpthread
GPU_ARCHIVES := $(BUILD)/libgm_kernels.a $(BUILD)/libgm_collectors.a
# The bridge that runs the suite's kernels under the collector: cli/ only.
CLI_SRC += cli/profile.c
# `gpumem-report -- PROGRAM`: the collector and the results writer again, as
# position-independent objects of their own, in the library the CUDA driver
# loads into the program (collectors/inject*.c); and the example program.
INJECT_SO := $(BUILD)/libgpumem-inject.so
INJECT_CORE := core/results.c core/results_read.c core/results_write.c core/results_file.c \
               core/buf.c core/srclines.c core/symbol.c core/output.c core/gm_error.c core/stats.c \
               core/catalog.c core/devlock.c core/pathpat.c core/sassdis.c
INJECT_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(filter-out collectors/gmc_trace.c,$(COLLECT_SRC)) \
              $(INJECT_CORE))
TRACE_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,collectors/trace_mode.c collectors/gmc_trace.c \
             collectors/gmc_util.c collectors/inject_util.c $(INJECT_CORE)) \
             $(BUILD)/pic/collectors/trace_patch_image.o
APP_EXAMPLE := $(BUILD)/examples/app/lab
TEST_KERNELS := $(BUILD)/libgm_kernels.a
else
# Without the toolkit the binary still has the suite table and describe (the
# host side of kernels/): `list` and render's experiment questions work; the
# collectors' host helpers (stderr lines, names) are linked as well.
GPU_ARCHIVES := $(BUILD)/libgm_kernels_cpu.a $(BUILD)/libgm_collectors_cpu.a
TEST_KERNELS := $(BUILD)/libgm_collectors_cpu.a
# inject_util.c demangles kernel names with the C++ runtime's __cxa_demangle.
GPU_LIBS := -lstdc++
endif

ALL_NVCCFLAGS = -std=c++17 -arch=$(CUDA_ARCH) $(NVCCFLAGS) -Xcompiler -Wall,-Wextra \
                -DGM_HAVE_CUDA=1 -I$(CUDA_HOME)/include

BIN := $(BUILD)/gpumem-report
TESTBIN := $(BUILD)/tests/gm_tests

# GPU test programs: each tests/gpu/NAME.c or NAME.cu becomes build/tests/gpu/NAME,
# linked with every library.  Built by `make` (so CI compiles them), run by test-gpu.
ifeq ($(HAVE_CUDA),1)
GPU_TEST_BINS := $(patsubst tests/gpu/%.c,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/*.c)) \
                 $(patsubst tests/gpu/%.cu,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/*.cu))
ifneq ($(HAVE_SANITIZER),1)
GPU_TEST_BINS := $(filter-out $(BUILD)/tests/gpu/trace_vs_ncu,$(GPU_TEST_BINS))
endif
endif

# Keep the objects of chained rules (tests/gpu programs): make would delete
# them after linking, print the rm after the tests' closing line, and rebuild
# them next time.
.SECONDARY:

.PHONY: all test test-gpu bench install clean check-cuda deps check-layers asan fuzz fuzz-build \
        format format-check
all: check-cuda $(BIN) $(GPU_TEST_BINS) $(INJECT_SO) $(TRACE_SO) $(APP_EXAMPLE)

deps:
	@sh tests/install-deps.sh $(DEB_PKGS)

check-cuda:
ifneq ($(HAVE_CUDA),1)
	@echo "note: no CUDA toolkit at $(CUDA_HOME) (nvcc, cupti.h): building the CPU side only;" \
	      "collect will say so. Set CUDA_HOME to build the kernels and the collector."
else ifneq ($(HAVE_SANITIZER),1)
	@echo "note: no Compute Sanitizer API at $(SANITIZER_DIR) (include/sanitizer.h): the" \
	      "tracer (collectors/gmc_trace.c) and tests/gpu/trace_vs_ncu are not built."
endif

# The commit of the tree and whether it was dirty, for the results file.
# Override on a machine without .git: make GIT_COMMIT=<id> GIT_DIRTY=0|1
# The source root: the directory the kernels are compiled in, whose paths their line
# info records; the per-line pass gives each line's file relative to it.
GIT_COMMIT ?= $(shell git rev-parse --verify -q HEAD 2>/dev/null)
GIT_DIRTY ?= $(shell git rev-parse --verify -q HEAD >/dev/null 2>&1 || echo -1; \
                     git rev-parse --verify -q HEAD >/dev/null 2>&1 && \
                     { test -z "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo 0 || echo 1; })
.PHONY: FORCE
$(BUILD)/gm_version.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define GM_GIT_COMMIT "%s"\n#define GM_GIT_DIRTY %s\n#define GM_SOURCE_ROOT "%s"\n' \
	    "$(GIT_COMMIT)" "$(GIT_DIRTY)" '$(subst ",\",$(subst \,\\,$(CURDIR)))' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/cli/cmd_collect.o: $(BUILD)/gm_version.h
$(BUILD)/cli/cmd_collect.o: ALL_CFLAGS += -I$(BUILD)
$(BUILD)/cli/main.o: $(BUILD)/gm_version.h
$(BUILD)/cli/cmd_sass.o: $(BUILD)/gm_version.h
$(BUILD)/cli/cmd_sass.o: ALL_CFLAGS += -I$(BUILD)
$(BUILD)/cli/cmd_trace.o: $(BUILD)/gm_version.h
$(BUILD)/cli/cmd_trace.o: ALL_CFLAGS += -I$(BUILD)
$(BUILD)/cli/main.o: ALL_CFLAGS += -I$(BUILD)

# The build's configuration: every object is rebuilt when it changes, so that
# `make CUDA_HOME=/nonexistent test` after a build with the toolkit (or the
# other way round) compiles everything again instead of mixing the two.
$(BUILD)/config.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo 'HAVE_CUDA=$(HAVE_CUDA) CUDA_HOME=$(CUDA_HOME) CUDA_ARCH=$(CUDA_ARCH)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/%.o: %.c $(BUILD)/config.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/pic/%.o: %.c $(BUILD)/config.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(INJECT_SO): $(INJECT_OBJ)
	$(CC) $(CFLAGS) -shared -Wl,-z,defs -Wl,--exclude-libs,ALL -o $@ $^ $(shell pkg-config --libs jansson) -lm \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcupti -lcheckpoint -lcudart_static \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -lstdc++ -ldl -lrt -lpthread

# The tracer's library: the trace mode, the tracer and its patch, what they
# use of core/; the sanitizer's library found through the rpath.
$(TRACE_SO): $(TRACE_OBJ)
	$(CC) $(CFLAGS) -shared -Wl,-z,defs -Wl,--exclude-libs,ALL -o $@ $^ $(shell pkg-config --libs jansson) -lm \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcupti -lcudart_static $(SANITIZER_LIBS) \
	    -lstdc++ -ldl -lrt -lpthread

$(APP_EXAMPLE): examples/app/lab.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -ldl

$(BUILD)/collectors/gmc_cupti_load.o: ALL_CFLAGS += -DGMC_CUPTI_SONAME='"$(CUPTI_SONAME)"' \
    -DGMC_CUPTI_DIR='"$(CUDA_HOME)/lib64"'

$(BUILD)/cli/cmd_app.o: $(BUILD)/gm_version.h
$(BUILD)/cli/cmd_app.o: ALL_CFLAGS += -I$(BUILD) -DGM_LIBDIR='"$(PREFIX)/lib/gpumem-report"'
$(BUILD)/cli/cmd_trace.o: ALL_CFLAGS += -DGM_LIBDIR='"$(PREFIX)/lib/gpumem-report"'
# nvdisasm of the toolkit the build was configured with (kernels without line info)
$(BUILD)/orchestrate/nvdisasm.o: ALL_CFLAGS += -DGM_CUDA_HOME='"$(CUDA_HOME)"'

$(BUILD)/%.cu.o: %.cu $(BUILD)/config.stamp
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $< -o $@

# The tracer's device patch: a tools patch (the sanitizer calls it before each
# memory instruction), as a fatbin turned into a C array, so no file is needed
# at run time.
$(BUILD)/collectors/gmc_trace.o $(BUILD)/pic/collectors/gmc_trace.o \
$(BUILD)/pic/collectors/trace_mode.o: ALL_CFLAGS += -I$(SANITIZER_DIR)/include
$(BUILD)/collectors/trace_patch.fatbin: collectors/trace_patch.cu $(BUILD)/config.stamp
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -arch=$(CUDA_ARCH) --fatbin --keep-device-functions \
	    -Xptxas --compile-as-tools-patch -Xcompiler -Wall,-Wextra -I$(CUDA_HOME)/include \
	    -I$(SANITIZER_DIR)/include -MMD -MP -MT $@ -MF $@.d -o $@ -c $<
$(BUILD)/collectors/trace_patch_image.c: $(BUILD)/collectors/trace_patch.fatbin
	@{ echo '/* generated by the Makefile from collectors/trace_patch.cu: do not edit */'; \
	   echo '#include <stddef.h>'; \
	   echo '_Alignas(16) const unsigned char gmc_trace_patch_image[] = {'; \
	   od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '};'; \
	   echo 'const size_t gmc_trace_patch_size = sizeof gmc_trace_patch_image;'; } > $@.tmp
	@mv $@.tmp $@
$(BUILD)/collectors/trace_patch_image.o: $(BUILD)/collectors/trace_patch_image.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(BUILD)/pic/collectors/trace_patch_image.o: $(BUILD)/collectors/trace_patch_image.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/libgm_core.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgm_reports.a: $(REPORT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(ORCH_LIB): $(ORCH_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgm_collectors.a: $(COLLECT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgm_kernels.a: $(KERNEL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgm_kernels_cpu.a: $(KERNEL_CPU_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgm_collectors_cpu.a: $(COLLECT_CPU_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(ORCH_LIB) $(GPU_ARCHIVES) $(CPU_LIBS)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(ORCH_LIB) $(GPU_ARCHIVES) $(CPU_LIBS) $(LIBS) $(GPU_LIBS)

# One test binary for everything, so Criterion prints one closing Synthesis line.
$(TESTBIN): $(TEST_SRC:%.c=$(BUILD)/%.o) $(CLI_OPT_OBJ) $(ORCH_LIB) $(TEST_KERNELS) $(GPU_ARCHIVES) $(CPU_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(TEST_SRC:%.c=$(BUILD)/%.o) $(CLI_OPT_OBJ) $(ORCH_LIB) $(TEST_KERNELS) $(GPU_ARCHIVES) $(CPU_LIBS) \
	    $(LIBS) $(GPU_LIBS) $(shell pkg-config --libs criterion)

# A single test file as its own binary, for working on one part (with the
# shared helpers of tests/helpers.h):
#   make build/tests/test_escape.bin && build/tests/test_escape.bin
$(BUILD)/tests/%.bin: $(BUILD)/tests/%.o $(BUILD)/tests/test_helpers.o $(CLI_OPT_OBJ) $(ORCH_LIB) \
                      $(TEST_KERNELS) $(GPU_ARCHIVES) $(CPU_LIBS)
	$(CC) $(CFLAGS) -o $@ $(sort $< $(BUILD)/tests/test_helpers.o) $(CLI_OPT_OBJ) $(ORCH_LIB) $(TEST_KERNELS) $(GPU_ARCHIVES) \
	    $(CPU_LIBS) $(LIBS) $(GPU_LIBS) \
	    $(shell pkg-config --libs criterion)

# The tracer's test needs the collectors and core only (not the suite's kernels).
$(BUILD)/tests/gpu/trace_vs_ncu: $(BUILD)/tests/gpu/trace_vs_ncu.cu.o $(BUILD)/libgm_collectors.a \
                                 $(BUILD)/libgm_core.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libgm_collectors.a $(BUILD)/libgm_core.a $(LIBS) $(GPU_LIBS) \
	    $(SANITIZER_LIBS)

$(BUILD)/tests/gpu/%: $(BUILD)/tests/gpu/%.o $(GPU_ARCHIVES) $(CPU_LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(GPU_ARCHIVES) $(CPU_LIBS) $(LIBS) $(GPU_LIBS)

$(BUILD)/tests/gpu/%: $(BUILD)/tests/gpu/%.cu.o $(GPU_ARCHIVES) $(CPU_LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(GPU_ARCHIVES) $(CPU_LIBS) $(LIBS) $(GPU_LIBS)

# Benchmark programs (bench/*.c), linked like the tests; run by their scripts.
$(BUILD)/bench/trace-cost: $(BUILD)/bench/trace-cost.o $(TEST_KERNELS) $(GPU_ARCHIVES) $(CPU_LIBS)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_KERNELS) $(GPU_ARCHIVES) $(CPU_LIBS) $(LIBS) $(GPU_LIBS)

# `make format`: clang-format (.clang-format) over the C and CUDA sources, in place;
# `make format-check`: the files it would change, and exit 1 if any.
FORMAT_SRC = $(shell git ls-files '*.c' '*.h' '*.cu' 2>/dev/null | grep -v '^tests/fuzz/corpus/')
format:
	clang-format -i $(FORMAT_SRC)
format-check:
	@bad=0; for f in $(FORMAT_SRC); do \
	    clang-format "$$f" | cmp -s "$$f" - || { echo "$$f"; bad=1; }; done; \
	    if [ $$bad = 1 ]; then echo "format-check: run make format"; exit 1; fi

check-layers:
	@sh tests/check-layers.sh

# With GM_CI=1 (as .ci/run sets it) `make test` also runs the sanitizer suite
# (make asan) and FUZZ_SECONDS of each fuzz target (make fuzz): about 10 more
# minutes on 2 cores.
# GM_SAY_STRICT: a sentence whose values do not match its format aborts
# (core/say.h) instead of showing a marker, in the tests and the programs they run.
test: check-layers all $(TESTBIN)
	@sh tests/gpu/gpu-available.sh || true
	GM_SAY_STRICT=1 GM_TEST_BIN=$(abspath $(BIN)) GM_SRCDIR=$(CURDIR) GM_CUDA_HOME=$(CUDA_HOME) $(TESTBIN) --jobs 2
	@if [ "$(GM_CI)" = 1 ]; then $(MAKE) asan && $(MAKE) fuzz; fi

# `make asan`: the whole CPU test suite (and the program it runs) built with
# AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer in build-asan/,
# then run; any report fails it, a leak in a test that passes included.  Only the program and the test binary are
# built (not the injection library, which the tests replace by a fake program).
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all
# intercept_tls_get_addr=0: LeakSanitizer's tracking of dynamic TLS takes some
# of glibc's DTLS blocks (>= 2.25) for 2.19's, by their address, and then
# crashes scanning a range that is not one ("Tracer caught signal 11",
# google/sanitizers#1322); here it did so, run after run, in a process that had
# opened CUPTI and started a thread.  Static TLS and everything else is still
# scanned.
asan:
	$(MAKE) BUILD=build-asan CFLAGS="$(ASAN_FLAGS)" \
	    build-asan/gpumem-report build-asan/tests/gm_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:intercept_tls_get_addr=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	GM_SAY_STRICT=1 GM_TEST_BIN=$(abspath build-asan/gpumem-report) GM_SRCDIR=$(CURDIR) \
	    build-asan/tests/gm_tests --jobs 2 > build-asan/tests.log 2>&1; \
	    rc=$$?; grep -v 'predates the experiments' build-asan/tests.log; \
	    test $$rc = 0 || exit 1; \
	    if grep -q 'Sanitizer' build-asan/tests.log; then \
	        echo 'make asan: a sanitizer report above (a test that leaks or misbehaves fails even when it passes)'; \
	        exit 1; fi

# `make fuzz`: libFuzzer targets (clang) for the results reader, the report
# rendered in memory as Markdown and HTML, the diff, and the history on any
# database file (opened, migrated, reported, gated, added to) (tests/fuzz/fuzz_*.c),
# with AddressSanitizer and UndefinedBehaviorSanitizer, in build-fuzz/; each
# runs FUZZ_SECONDS (default 60) from its committed seed corpus
# (tests/fuzz/corpus/TARGET/; what it finds new goes to build-fuzz/corpus/).
# A crash leaves build-fuzz/crash-* and fails the target.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := results render diff history
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all
fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" \
	    build-fuzz/libgm_reports.a build-fuzz/libgm_core.a
	for t in $(FUZZ_TARGETS); do \
	    clang $(FUZZ_FLAGS) -fsanitize=fuzzer -std=c11 $(CPPFLAGS) \
	        $$(pkg-config --cflags $(PKGS)) tests/fuzz/fuzz_$$t.c -o build-fuzz/fuzz_$$t \
	        build-fuzz/libgm_reports.a build-fuzz/libgm_core.a $(LIBS) || exit 1; \
	done
fuzz: fuzz-build
	for t in $(FUZZ_TARGETS); do \
	    mkdir -p build-fuzz/corpus/$$t && \
	    build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -artifact_prefix=build-fuzz/ -print_final_stats=1 \
	        build-fuzz/corpus/$$t tests/fuzz/corpus/$$t > build-fuzz/fuzz_$$t.log 2>&1; \
	    rc=$$?; grep -E "^stat::number_of_executed_units|ERROR|SUMMARY|runtime error" \
	        build-fuzz/fuzz_$$t.log; \
	    if [ $$rc != 0 ]; then tail -40 build-fuzz/fuzz_$$t.log; exit 1; fi; \
	done

test-gpu: all
	@sh tests/gpu/run.sh $(abspath $(BIN))

bench: all
	sh bench/render.sh $(abspath $(BIN))

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/gpumem-report/templates \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/gpumem-report
	install -m 644 templates/* $(DESTDIR)$(PREFIX)/share/gpumem-report/templates/
	install -m 644 docs/gpumem-report.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpumem-report.1
	$(if $(INJECT_SO),install -d $(DESTDIR)$(PREFIX)/lib/gpumem-report && \
	    install -m 755 $(INJECT_SO) $(TRACE_SO) $(DESTDIR)$(PREFIX)/lib/gpumem-report/)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
