# simjoin: PostgreSQL extension (PGXS) over a plain C++17 engine and an optional CUDA backend.
#
#   make                  builds simjoin.so (CUDA backend compiled in when nvcc is found)
#   make install          installs it into the PostgreSQL found by pg_config
#   make engine-test      builds and runs the engine's GoogleTest suite (no PostgreSQL needed)
#   make bench            builds build/simjoin_bench
#   make installcheck     pg_regress suite (test/sql, expected/), then the isolation specs
#                         (test/isolation/specs, expected/), against a running server
#   make isolationcheck   the isolation specs alone
#   make CUDA=no          forces a CPU-only build
#   make CUDA_ARCH="-gencode arch=compute_86,code=sm_86 ..."  the GPU architectures to build for
#
# Layers: src/engine (no PostgreSQL, no CUDA headers) and cuda/ (kernels) are built into
# build/libsimjoin_engine.a; src/pg is the PostgreSQL glue linked with it into simjoin.so.

EXTENSION  = simjoin
MODULE_big = simjoin
PG_CONFIG ?= pg_config
BUILD     ?= build
# SQL from one source: sql/simjoin--1.0.sql, the oldest full script, and the update scripts
# sql/simjoin--OLD--NEW.sql are installed as they are (CREATE EXTENSION ... VERSION 'X' runs the
# chain to X); the current version's script, simjoin--$(EXTVERSION).sql, is made from them in
# $(BUILD)/sql (the rule below).
EXTVERSION := $(shell sed -nE "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'([^']*)'.*/\1/p" simjoin.control)
DATA       = $(sort $(wildcard sql/simjoin--*.sql))
DATA_built = $(BUILD)/sql/simjoin--$(EXTVERSION).sql

PG_SRCS     = $(sort $(shell find src/pg -name '*.cpp'))
OBJS        = $(patsubst %.cpp,$(BUILD)/%.o,$(PG_SRCS))
ENGINE_SRCS = $(sort $(shell find src/engine -name '*.cpp'))
ENGINE_HEADERS = $(shell find src/engine -name '*.h')
PG_HEADERS  = $(shell find src/pg -name '*.h')

# pg_regress: every test/sql/*.sql, compared with the top-level expected/*.out.
REGRESS      = $(sort $(notdir $(basename $(wildcard test/sql/*.sql))))
# pg_regress 15 reads test/sql/X.sql (inputdir) and takes expected/X.out from the outputdir first.
REGRESS_OPTS = --inputdir=test --outputdir=. --load-extension=simjoin
# pg_isolation_regress (run by installcheck after pg_regress): test/isolation/specs/*.spec,
# concurrent sessions (EvalPlanQual rechecks through the custom scan). Expected outputs in the
# top-level expected/ too (the outputdir is searched first), results in results/; the spec names
# start with epq_, so nothing collides with pg_regress's files.
ISOLATION      = $(sort $(notdir $(basename $(wildcard test/isolation/specs/*.spec))))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=. --load-extension=simjoin

# The C++ objects have no LLVM bitcode: keep them out of PGXS's bitcode install path.
override with_llvm = no

# ---- CUDA detection --------------------------------------------------------------------------
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA ?= $(if $(NVCC),yes,no)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# Machine code for Ampere (sm_80: A100; also runs on 8.6 and 8.9) and Hopper (sm_90: H100, H200),
# and compute_90 PTX that newer GPUs compile when the library is loaded. The device probe refuses
# GPUs older than the lowest architecture listed here.
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC -Xcompiler -ffp-contract=off \
             --expt-relaxed-constexpr -Isrc -Icuda

ifeq ($(CUDA),yes)
CUDA_CU_SRCS  = $(sort $(wildcard cuda/*.cu))
CUDA_CPP_SRCS = $(filter-out cuda/gpu_backend_absent.cpp,$(sort $(wildcard cuda/*.cpp)))
CUDA_LIBS     = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread
ENGINE_DEFS   = -DSIMJOIN_WITH_CUDA
else
CUDA_CU_SRCS  =
CUDA_CPP_SRCS = cuda/gpu_backend_absent.cpp cuda/gpu_backend.cpp
CUDA_LIBS     =
ENGINE_DEFS   =
endif

ENGINE_CXX   = $(CXX) -std=c++17 -O2 -g -fPIC -Wall -Wextra -ffp-contract=off -pthread \
               -Isrc -Icuda $(ENGINE_DEFS)
ENGINE_OBJS  = $(patsubst %.cpp,$(BUILD)/%.o,$(ENGINE_SRCS) $(CUDA_CPP_SRCS)) \
               $(patsubst %.cu,$(BUILD)/%.o,$(CUDA_CU_SRCS))
ENGINE_LIB   = $(BUILD)/libsimjoin_engine.a

PG_CPPFLAGS  = -Isrc -Icuda $(ENGINE_DEFS)
PG_CXXFLAGS  = -std=c++17 -ffp-contract=off -Wno-register
SHLIB_LINK  += $(ENGINE_LIB) $(CUDA_LIBS) -lstdc++ -pthread
SHLIB_PREREQS = $(ENGINE_LIB)
EXTRA_CLEAN  = $(BUILD)

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# After PGXS, so that its `all` stays the default goal. The current version's script: the oldest
# full script, then each update script along the chain to simjoin.control's default_version, one
# after another (PostgreSQL drops every "\echo" line of a script it runs: each part's guard too).
$(BUILD)/sql/simjoin--$(EXTVERSION).sql: $(DATA) simjoin.control
	@mkdir -p $(dir $@)
	@set -e; v=$$(ls sql | sed -nE 's/^simjoin--([^-]+)\.sql$$/\1/p'); parts=sql/simjoin--$$v.sql; \
	while [ "$$v" != '$(EXTVERSION)' ]; do \
	  next=$$(ls sql/simjoin--$$v--*.sql 2>/dev/null || true); \
	  [ "$$(echo $$next | wc -w)" = 1 ] || { echo "sql/: not one update script from $$v towards $(EXTVERSION)" >&2; exit 1; }; \
	  parts="$$parts $$next"; v=$${next#sql/simjoin--$$v--}; v=$${v%.sql}; \
	done; \
	echo "cat $$parts > $@"; \
	{ echo "-- simjoin $(EXTVERSION): made by the Makefile from $$parts"; cat $$parts; } > $@

# PGXS makes SHLIB_PREREQS order-only: relink the module when the engine library changes too.
$(shlib): $(ENGINE_LIB)

$(BUILD)/%.o: %.cpp $(ENGINE_HEADERS) $(wildcard cuda/*.h test/engine/*.h)
	@mkdir -p $(dir $@)
	$(ENGINE_CXX) -c $< -o $@

# The nvcc command line, rewritten when it changes, so that another CUDA_ARCH rebuilds the kernels.
$(BUILD)/nvcc_flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(NVCC) $(NVCCFLAGS) $(ENGINE_DEFS)' | cmp -s - $@ || echo '$(NVCC) $(NVCCFLAGS) $(ENGINE_DEFS)' > $@

.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.cu $(ENGINE_HEADERS) $(wildcard cuda/*.h cuda/*.cuh) $(BUILD)/nvcc_flags
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(ENGINE_DEFS) -c $< -o $@

$(ENGINE_LIB): $(ENGINE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The PostgreSQL glue, compiled with PGXS's flags and include paths.
$(BUILD)/src/pg/%.o: src/pg/%.cpp $(PG_HEADERS) $(ENGINE_HEADERS) | $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(CPPFLAGS) -c $< -o $@

# ---- engine tests and benchmark (no PostgreSQL) ------------------------------------------------
TEST_SRCS  = $(sort $(wildcard test/engine/*.cpp))
BENCH_SRCS = $(sort $(wildcard bench/*.cpp))

$(BUILD)/engine_tests: $(patsubst %.cpp,$(BUILD)/%.o,$(TEST_SRCS)) $(ENGINE_LIB)
	$(ENGINE_CXX) $^ -o $@ -lgtest -lgtest_main $(CUDA_LIBS)

$(BUILD)/simjoin_bench: $(patsubst %.cpp,$(BUILD)/%.o,$(BENCH_SRCS)) $(ENGINE_LIB)
	$(ENGINE_CXX) $^ -o $@ $(CUDA_LIBS)

# The isolation specs alone, against the running server PGHOST/PGPORT name.
.PHONY: isolationcheck
isolationcheck:
	$(pg_isolation_regress_installcheck) $(ISOLATION_OPTS) $(ISOLATION)

.PHONY: engine-test bench
engine-test: $(BUILD)/engine_tests
	$(BUILD)/engine_tests $(GTEST_ARGS)

bench: $(BUILD)/simjoin_bench

# ---- differential fuzzer of the custom scan (libpq; runs against a server: scripts/fuzz.sh) ----
FUZZ_SRCS = $(sort $(wildcard test/fuzz/*.cpp))
FUZZ_CXX  = $(CXX) -std=c++17 -O2 -g -Wall -Wextra -I$(shell $(PG_CONFIG) --includedir)

$(BUILD)/simjoin_fuzz: $(FUZZ_SRCS) $(wildcard test/fuzz/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_SRCS) -o $@ -L$(shell $(PG_CONFIG) --libdir) -lpq

.PHONY: fuzz-build
fuzz-build: $(BUILD)/simjoin_fuzz
