# LITE and its artifact-evaluation suite. `make help` lists the targets.
# Every target runs against INVENTORY (default: the local QEMU + Soft-RoCE
# cluster); `make kick-the-tires INVENTORY=inventory/my-cluster` points the
# same steps at real hosts.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

INVENTORY ?= inventory/local
export INVENTORY QUICK FULL NODES KVER

LITE_AE := ae-scripts/lite-ae
FIGURES := $(sort $(basename $(notdir $(wildcard ae-scripts/figures/*.sh))))

.PHONY: help all deps deps-debug up down status kick-the-tires lite-install lite-uninstall \
	figures plots reference reference-resume test test-figures test-debug soak clean \
	$(addprefix fig-,$(FIGURES))

help:
	@echo "make all             deps -> up -> kick-the-tires -> lite-install -> every figure -> plots"
	@echo "                     ([k/N] progress lines with the time left, a table at the end)"
	@echo "make test            the test suite (shellcheck, unit tests, virtual-cluster integration)"
	@echo "make test-figures    every figure in miniature on the local cluster (the benchmarks' smoke test)"
	@echo "make test-debug      the kernel-facing tests on the debug guest kernel (KASAN, lockdep, kmemleak...)"
	@echo "make soak            LITE under churn on 8 guests for 20 min (SOAK_SECS=, NODES=; not in 'make test')"
	@echo "make deps            install what is missing (Debian packages, guest kernel)"
	@echo "make deps-debug      build the debug guest kernel once (then: make up KVER=debug);"
	@echo "                     DEBUG_SERIES=6.12: the 6.12 one (KVER=debug-6.12)"
	@echo "make up | down | status   the local virtual cluster (NODES=N guests, default 3)"
	@echo "make kick-the-tires  per-host and per-pair checks with a PASS/FAIL table"
	@echo "make lite-install    build LITE, load it on every node, start the manager, join all nodes"
	@echo "make lite-uninstall  unload LITE everywhere and stop the manager"
	@echo "make fig-NAME        run one experiment: $(FIGURES)"
	@echo "make figures         run every experiment"
	@echo "make plots           redraw every figure from the latest raw data (no host needed)"
	@echo "make reference       every figure at the current clean commit into plots/reference/, exp.md's targets table"
	@echo "make reference-resume  the figures a stopped 'make reference' left, at its commit"
	@echo "make clean           stop the local cluster, drop boot caches and runtime state (results/ stay)"
	@echo "Knobs: INVENTORY=FILE, NODES=N, QUICK=1 (short runs), FULL=1 (long runs),"
	@echo "       KVER=RELEASE (guest kernel for deps/up, e.g. 6.12.111+deb12-amd64; docs/kernels.md;"
	@echo "       KVER=debug: the debug kernel of make deps-debug)"

# One driver for the whole run, so that it can number the steps and say
# how long the rest will take (ae-scripts/lib/all.sh); the steps are the
# targets below (deps up kick-the-tires lite-install figures plots).
all:
	$(LITE_AE) all
	@echo "Done. Figures: results/*/*.png. The cluster is still up: 'make down' stops it."

deps:
	@ae-scripts/deps.sh

deps-debug:
	@ae-scripts/deps-debug.sh

up: deps
	$(LITE_AE) up

down:
	$(LITE_AE) down

status:
	$(LITE_AE) status

kick-the-tires: deps up
	$(LITE_AE) check

lite-install: deps up
	$(LITE_AE) install

lite-uninstall:
	$(LITE_AE) uninstall

$(addprefix fig-,$(FIGURES)): fig-%: deps up
	$(LITE_AE) run $*

figures: $(addprefix fig-,$(FIGURES))

plots:
	$(LITE_AE) plot all

# A dirty tree is refused before anything is installed or booted; then the
# cluster comes up and 'lite-ae reference' runs every figure ($(FIGURES)).
reference:
	$(LITE_AE) reference --check
	$(MAKE) --no-print-directory deps up
	$(LITE_AE) reference

# After a reference run stopped at a figure the test bed failed (a guest
# lost): the figures it had not finished, at the same commit.
reference-resume:
	$(LITE_AE) reference --check
	$(MAKE) --no-print-directory deps up
	$(LITE_AE) reference --resume

test: deps
	tests/run

# Not in 'make test': its time is the figures' (tests/figures/smoke).
test-figures: deps
	tests/run figures

# On the debug guest kernel (docs/debug-kernel.md): a short churn soak,
# the integration tests that exercise the kernel, then the rest of
# tests/debug (the defects it was built to catch, an ioctl stress, rmmod
# and a kmemleak scan last). Its guests boot more slowly.
TEST_DEBUG := debug/05-churn-soak \
	integration/lite-cluster integration/lite-api integration/lite-rpc integration/lite-security \
	integration/lite-tenant integration/lite-tenant-credits integration/lite-rejoin \
	integration/lite-device integration/lite-dsm \
	$(filter-out debug/05-churn-soak,$(patsubst tests/%,%,$(sort $(wildcard tests/debug/[0-9]*))))
test-debug: deps-debug
	KVER=$(if $(filter-out 6.1,$(DEBUG_SERIES)),debug-$(DEBUG_SERIES),debug) AE_BOOT_TIMEOUT=$${AE_BOOT_TIMEOUT:-900} tests/run $(TEST_DEBUG)

soak: deps
	tests/soak/run

clean:
	-$(LITE_AE) down
	-$(MAKE) -s -C lite clean
	-$(MAKE) -s -C manager clean
	-$(MAKE) -s -C microbench clean
	rm -rf .run .cache
