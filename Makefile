# Thin wrapper over CMake + CTest. `make demo` and `make test` do all set-up on Debian 12.
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=
SHARED ?= $(abspath ../shared)
# `make build TARGETS="apidex"` builds only those CMake targets (make demo does); empty: all,
# with the unit tests and benchmarks.
TARGETS ?=

.PHONY: all build deps deps-build demo test dist deb test-fresh test-unit test-arm64 test-portable test-asan test-fuzz fuzz lint format install bench clean

all: build

build:
	@cmake -S . -B $(BUILD) -DAPIDEX_SHARED_DIR=$(SHARED) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) $(if $(strip $(TARGETS)),--target $(TARGETS))

# The test set (the build set plus test tools and npm packages); deps-build: only what building
# and running need (scripts/deps.sh says which set it installs).
deps:
	@bash scripts/deps.sh --test

deps-build:
	@bash scripts/deps.sh --build

# A short story on the terminal (deps, build, index, answers); the tools' output goes to
# $(BUILD)/demo.log.
demo:
	@BUILD=$(BUILD) SHARED=$(SHARED) bash scripts/demo.sh

# Everything CI runs: release build + tests (on x86-64 each unit test and the embed e2e test
# also under qemu-x86_64 with a CPU without AVX-512), the arm64 cross build's unit and embed
# tests under qemu-aarch64, the POSIX fallbacks' build and tests (test-portable), ASan/UBSan
# build (-Werror) + tests, short fuzz, lint.
test: deps
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-arm64
	@$(MAKE) --no-print-directory test-portable
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-fuzz
	@$(MAKE) --no-print-directory lint
	@echo "make test: all stages passed"

test-unit: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# arm64: Debian's aarch64 cross compiler and multiarch arm64 libraries (scripts/deps.sh --test)
# build the library, apidex and the unit tests (no benchmarks) in build-arm64; CTest runs the
# unit tests and the embed e2e test under qemu-aarch64 (cmake/aarch64-linux-gnu.cmake). On an
# arm64 host the native run of test-unit is the arm64 run.
test-arm64:
	@if [ "$$(uname -m)" = aarch64 ]; then \
	  echo "test-arm64: skipped: this host is arm64, test-unit ran the tests natively"; \
	else \
	  cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/aarch64-linux-gnu.cmake \
	    -DAPIDEX_SHARED_DIR=$(SHARED) >/dev/null && \
	  cmake --build build-arm64 -j $(JOBS) && \
	  cd build-arm64 && ctest --output-on-failure -j $(JOBS); \
	fi

# The POSIX fallbacks of the Linux-only calls (docs/INSTALL.md), compiled (-Werror) in place of
# the Linux calls in build-portable and tested there: the system-call wrappers, name lookup
# with a deadline, and through apidex the registry watch (polling), add/remove (read/write
# copy), mock and serve (close-on-exec pipes).
PORTABLE_TESTS := test_core_sys test_net_resolve test_net_send
test-portable:
	@cmake -S . -B build-portable -DAPIDEX_PORTABLE_ONLY=ON -DAPIDEX_WERROR=ON -DAPIDEX_QEMU_CPU= \
	  -DAPIDEX_SHARED_DIR=$(SHARED) >/dev/null
	@cmake --build build-portable -j $(JOBS) --target apidex $(PORTABLE_TESTS)
	@cd build-portable && ctest --output-on-failure -j $(JOBS) \
	  -R '^($(subst $(eval) ,|,$(PORTABLE_TESTS))|e2e_test_(registry_watch|index_patch|mock|call_net))$$'

test-asan:
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DAPIDEX_SANITIZE=ON -DAPIDEX_WERROR=ON \
	  -DAPIDEX_SHARED_DIR=$(SHARED) >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 APIDEX_SANITIZED=1 \
	  ctest --output-on-failure -j $(JOBS)

fuzz:
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAPIDEX_FUZZ=ON \
	  -DAPIDEX_SANITIZE=ON -DAPIDEX_SHARED_DIR=$(SHARED) >/dev/null
	@cmake --build build-fuzz -j $(JOBS)

test-fuzz: fuzz
	@bash scripts/fuzz-smoke.sh build-fuzz $${FUZZ_SECONDS:-60}

lint:
	@bash scripts/lint.sh

format:
	@bash scripts/lint.sh --fix

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# Releases (docs/INSTALL.md). dist: the source tarball of the tracked files (the cl100k ranks
# inside: it builds offline); deb: a Debian package by CPack in build-deb/ (Depends from
# dpkg-shlibdeps); test-fresh: both on clean debootstrapped Debian 12 roots (root, minutes).
# the version's one place is include/apidex.h (APIDEX_VERSION_MAJOR/MINOR/PATCH), as for CMake
VERSION := $(shell sed -n 's/^\#define APIDEX_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9][0-9]*\)$$/\2/p' \
  include/apidex.h | paste -sd.)
DIST := $(BUILD)/apidex-$(VERSION).tar.gz

dist:
	@mkdir -p $(BUILD)
	@git ls-files -z | tar --null -T - --transform 's,^,apidex-$(VERSION)/,' \
	  --owner=0 --group=0 --numeric-owner --sort=name -czf $(DIST)
	@tar -tzf $(DIST) | grep -q '/tools/cl100k/cl100k_base.json.zst$$'
	@echo "dist: $(DIST)"

deb:
	@cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DAPIDEX_TESTS=OFF \
	  -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
	@cmake --build build-deb -j $(JOBS)
	@cd build-deb && cpack -G DEB >/dev/null
	@ls build-deb/apidex_*.deb | sed 's/^/deb: /'

test-fresh:
	@bash scripts/deps.sh --fresh
	@bash tests/fresh/fresh_machine.sh

bench: build
	@bash scripts/deps.sh --bench
	@bash bench/run.sh $(BUILD)

clean:
	rm -rf build build-asan build-fuzz build-deb build-arm64 build-portable

# Rewrites tests/golden/*/expected.* from the current `apidex chunk` and
# tests/golden/search/*/expected.txt from `apidex search`; review the diff.
.PHONY: golden-update
golden-update: build
	@UPDATE_GOLDEN=1 APIDEX_BIN=$(abspath $(BUILD))/apidex APIDEX_SOURCE_DIR=$(CURDIR) \
	  bash tests/e2e/test_golden.sh
	@UPDATE_GOLDEN=1 APIDEX_BIN=$(abspath $(BUILD))/apidex APIDEX_SOURCE_DIR=$(CURDIR) \
	  APIDEX_SHARED_DIR=$(SHARED) bash tests/e2e/test_search_golden.sh
