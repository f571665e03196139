# SPDX-License-Identifier: ISC
# Top-level driver: installs missing Debian packages, then drives Meson.
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
ASAN_BUILD ?= build-asan
# The end-to-end suites install this build into a private, root-owned
# prefix (the runner's path is compiled in from it) and remove it after.
E2E_BUILD ?= build-e2e
E2E_PREFIX ?= /opt/warrant-test
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 15
# Approvals of the long chaos campaign (make check runs 20).
N ?= 100

.PHONY: all deps install check chaos demo bench fuzz clean

all: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@sh scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX) --buildtype=debugoptimized

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

# -Dtest_hooks=true: box init's container detection can be pointed at a
# test root ($WARRANT_TEST_ROOT); only this build has it.
$(E2E_BUILD)/build.ninja:
	meson setup $(E2E_BUILD) --prefix=$(E2E_PREFIX) --buildtype=debugoptimized -Dtest_hooks=true

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) --buildtype=debugoptimized -Dfuzz=true \
	    -Db_sanitize=address,undefined -Db_lundef=false

install: all
	meson configure $(BUILD) --prefix=$(PREFIX)
	ninja -C $(BUILD)
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild

check: all $(ASAN_BUILD)/build.ninja $(E2E_BUILD)/build.ninja $(FUZZ_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	meson configure $(E2E_BUILD) -Dtest_hooks=true
	ninja -C $(E2E_BUILD) warrant warrant-ui warrant-runner
	ninja -C $(FUZZ_BUILD) fuzz
	sh tests/run.sh $(BUILD) $(ASAN_BUILD) $(E2E_BUILD) $(FUZZ_BUILD) $(FUZZ_CHECK_SECONDS)

# The chaos test alone, N approvals with random SIGKILLs (needs root).
chaos: deps $(E2E_BUILD)/build.ninja
	meson configure $(E2E_BUILD) -Dtest_hooks=true
	ninja -C $(E2E_BUILD) warrant warrant-ui warrant-runner
	CHAOS_N=$(N) sh tests/run.sh --e2e $(E2E_BUILD) tests/e2e/test-chaos.sh

demo: all
	sh scripts/demo.sh $(BUILD)

bench: all
	sh bench/run.sh $(BUILD)

fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) fuzz
	sh scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(E2E_BUILD) $(FUZZ_BUILD)
