# Top-level driver: installs missing Debian packages, then drives Meson.
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
FUZZ_SECONDS ?= 60
ASAN_BUILD ?= build-asan

.PHONY: all deps install check demo bench fuzz clean

all: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@sh scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX) --buildtype=debugoptimized

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

install: all
	meson configure $(BUILD) --prefix=$(PREFIX)
	ninja -C $(BUILD)
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild

check: all $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	sh tests/run.sh $(BUILD) $(ASAN_BUILD)

demo: all
	sh scripts/demo.sh $(BUILD)

bench: all
	sh bench/run.sh $(BUILD)

fuzz: all
	sh scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
