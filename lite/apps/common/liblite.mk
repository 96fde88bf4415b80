# What every application's Makefile needs to build against liblite:
# the tree's (../../lib) by default, or with LITE_PC=1 an installed one
# found by pkg-config, as a program outside the tree would. Include it
# first; it sets CC, CFLAGS and PKG_CONFIG defaults,
# LITE_CPPFLAGS, LITE_LIBS and LITE_DEP, and the rule that builds the
# tree's liblite.a (after which "all" stays the default goal).

.DEFAULT_GOAL := all

CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
ifeq ($(LITE_PC),1)
LITE_CPPFLAGS = $(shell $(PKG_CONFIG) --cflags lite)
LITE_LIBS = $(shell $(PKG_CONFIG) --libs lite)
LITE_DEP =
else
LITE_CPPFLAGS = -I../../lib -I../../include
LITE_LIBS = ../../lib/liblite.a
LITE_DEP = ../../lib/liblite.a
endif

.PHONY: FORCE
../../lib/liblite.a: FORCE
	$(MAKE) -C ../../lib liblite.a
