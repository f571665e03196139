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
# -Dtest_hooks=true: box init's container detection can be pointed at a
# test root; the two-person rule's policy and spool live in the prefix.
E2E_OPTS = -Dtest_hooks=true -Dpolicy_file=$(E2E_PREFIX)/etc/policy.json \
	-Dreview_spool=$(E2E_PREFIX)/spool/reviews -Dlogship_spool=$(E2E_PREFIX)/spool/unshipped \
	-Dpasskey_dir=$(E2E_PREFIX)/etc/passkeys
FUZZ_BUILD ?= build-fuzz
# make deb copies the tree there and builds the package in the copy.
DEB_BUILD ?= build-deb
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 15
# Approvals of the long chaos campaign (make check runs 20).
N ?= 100
# How long make race keeps test-confine's hostile probes going.
HOSTILE_SECONDS ?= 300
# The suites make check runs in the Debian 13 root, with each sudo
# (make check-trixie runs them all: scripts/trixie.sh).
TRIXIE_CHECK_SUITES ?= iolog logship sudors

.PHONY: all deps deps-deb install uninstall deb check check-deb check-trixie trixie-root-start chaos race demo bench fuzz clean

all: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@sh scripts/deps.sh

# What make deb and check-deb need on top (debhelper, lintian).
deps-deb: deps
	@sh scripts/deps.sh deb

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX) --buildtype=debugoptimized

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

$(E2E_BUILD)/build.ninja:
	meson setup $(E2E_BUILD) --prefix=$(E2E_PREFIX) --buildtype=debugoptimized $(E2E_OPTS)

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) --buildtype=debugoptimized -Dfuzz=true \
	    -Db_sanitize=address,undefined -Db_lundef=false

install: all
	meson configure $(BUILD) --prefix=$(PREFIX)
	ninja -C $(BUILD)
	DESTDIR=$(DESTDIR) meson install -C $(BUILD) --no-rebuild
	@echo "Recording the installed files in $(BUILD)/install-manifest.txt, for make uninstall"
	@sh scripts/uninstall.sh --record $(BUILD)

# Remove what make install put under DESTDIR+PREFIX (the same settings,
# and the same BUILD, whose install-manifest.txt records it), and the
# directories it created once they are empty; nothing else. No build.
uninstall:
	sh scripts/uninstall.sh $(BUILD) "$(DESTDIR)" $(PREFIX)

# The last test builds, installs and purges the Debian package (check-deb).
# The Debian 13 root is made in the background from the start (mostly
# waiting on the mirror); tests/run.sh waits for it.
check: deps-deb trixie-root-start all $(ASAN_BUILD)/build.ninja $(E2E_BUILD)/build.ninja $(FUZZ_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	meson configure $(E2E_BUILD) $(E2E_OPTS)
	ninja -C $(E2E_BUILD) warrant warrant-ui warrant-runner warrant-logship wt-hostile
	ninja -C $(FUZZ_BUILD) fuzz
	WARRANT_DEB_BUILD=$(DEB_BUILD) WARRANT_TRIXIE_SUITES="$(TRIXIE_CHECK_SUITES)" \
	    sh tests/run.sh $(BUILD) $(ASAN_BUILD) $(E2E_BUILD) $(FUZZ_BUILD) $(FUZZ_CHECK_SECONDS)

# The Debian package warrant_VERSION_ARCH.deb, in this directory
# (dpkg-buildpackage -us -uc -b on a copy of the tree in DEB_BUILD).
deb: deps-deb
	sh scripts/deb.sh $(DEB_BUILD)

# The Debian package's test alone (make check runs it last; needs root):
# build, lintian, apt-get install, end-to-end suites on /usr, purge.
check-deb: deps-deb
	WARRANT_DEB_BUILD=$(DEB_BUILD) sh tests/run.sh --deb

trixie-root-start: deps
	@[ -z "$(TRIXIE_CHECK_SUITES)" ] || sh scripts/trixie.sh --root-start

# Debian 13 (needs root): a debootstrap root cached in build-trixie/
# (TRIXIE_FRESH=1 makes it again), warrant built inside, the end-to-end
# suites that exercise sudo run there with sudo and with sudo-rs.
check-trixie: deps
	sh scripts/trixie.sh

# The chaos test alone, N approvals with random SIGKILLs (needs root).
chaos: deps $(E2E_BUILD)/build.ninja
	meson configure $(E2E_BUILD) $(E2E_OPTS)
	ninja -C $(E2E_BUILD) warrant warrant-ui warrant-runner warrant-logship
	CHAOS_N=$(N) sh tests/run.sh --e2e $(E2E_BUILD) tests/e2e/test-chaos.sh

# test-confine alone, its hostile requester's probes kept going for
# HOSTILE_SECONDS (make check runs them a few times; needs root).
race: deps $(E2E_BUILD)/build.ninja
	meson configure $(E2E_BUILD) $(E2E_OPTS)
	ninja -C $(E2E_BUILD) warrant warrant-ui warrant-runner warrant-logship wt-hostile
	HOSTILE_SECONDS=$(HOSTILE_SECONDS) sh tests/run.sh --e2e $(E2E_BUILD) tests/e2e/test-confine.sh

demo: all
	sh scripts/demo.sh $(BUILD)

bench: all
	sh bench/run.sh $(BUILD)

fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) fuzz
	sh scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(E2E_BUILD) $(FUZZ_BUILD) $(DEB_BUILD)
