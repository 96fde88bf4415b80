/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Table-driven command lines for the user-space programs: a program
 * describes each option once (struct opt_def: name, letter, argument
 * name, help, where the value goes and its range), and opt_next() builds
 * getopt_long's tables from that, sets the values with their range
 * checks, and opt_help() prints the option list for --help.
 *
 * User space only. The header is here because every user-space tree
 * already takes headers from lite/include/ (manager/ its lite_proto.h,
 * microbench/, lite/tools/ and lite/apps/ the uapi); opt_table.c is in
 * lite/lib/ beside liblite's sources but is not part of liblite: each
 * program compiles it in, since the manager, the MPI baselines and the
 * one-node references link no liblite.
 */
#ifndef LITE_OPT_TABLE_H
#define LITE_OPT_TABLE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPT_MAX		64

/* What an option's argument is, and what opt_next() does with it. */
enum opt_type {
	OPT_T_OWN,	/* nothing: the caller acts on it (optarg) */
	OPT_T_FLAG,	/* int set to 1; no argument */
	OPT_T_UINT,	/* unsigned int in [min, max] */
	OPT_T_U64,	/* uint64_t in [min, max] */
	OPT_T_BYTES,	/* uint64_t, K/M/G suffixes, in [min, max] */
	OPT_T_SEC,	/* double seconds, at least min ms */
	OPT_T_CHOICE,	/* int: the argument's index in names */
	OPT_T_STR,	/* const char *: the argument itself */
};

/* How a program's numbers are written (bytes and seconds aside). */
enum opt_num {
	OPT_NUM_DIGITS,		/* decimal digits only */
	OPT_NUM_C,		/* strtoull's base 0 (0x hex, 0 octal), no '-' */
	OPT_NUM_STRTOUL,	/* whatever strtoul takes in base 10 */
};

/*
 * One option: its --help entry and where its value goes, at off in the
 * base opt_add() gives its table. The OPT_FLAG() .. OPT_STR() macros fill
 * the value part and check that the field has the type the argument is
 * parsed into.
 */
struct opt_def {
	const char *name;	/* long name, without the dashes; "": none */
	int key;		/* short option letter, or 0: long only */
	const char *arg;	/* argument name for --help, NULL for a flag */
	const char *help;
	enum opt_type type;
	size_t off;
	uint64_t min, max;
	const char *const *names;	/* OPT_T_CHOICE: NULLs skipped */
	unsigned int nnames;
	const char *what;	/* the value's name in a program's messages */
};

/* The entries of an array. */
#define OPT_NR(a)	(sizeof(a) / sizeof((a)[0]))
/* offsetof(t, f), a compile error unless f is a ctype. */
#define OPT_OFF(t, f, ctype) \
	(offsetof(t, f) + 0 * sizeof((ctype *){ &((t *)0)->f }))
#define OPT_FLAG(t, f) .type = OPT_T_FLAG, .off = OPT_OFF(t, f, int)
#define OPT_UINT(t, f, lo, hi) .type = OPT_T_UINT, \
	.off = OPT_OFF(t, f, unsigned int), .min = (lo), .max = (hi)
#define OPT_U64(t, f, lo, hi) .type = OPT_T_U64, \
	.off = OPT_OFF(t, f, uint64_t), .min = (lo), .max = (hi)
#define OPT_BYTES(t, f, lo, hi) .type = OPT_T_BYTES, \
	.off = OPT_OFF(t, f, uint64_t), .min = (lo), .max = (hi)
#define OPT_SEC(t, f, lo_ms) .type = OPT_T_SEC, \
	.off = OPT_OFF(t, f, double), .min = (lo_ms)
#define OPT_CHOICE(t, f, list) .type = OPT_T_CHOICE, \
	.off = OPT_OFF(t, f, int), .names = (list), .nnames = OPT_NR(list)
#define OPT_STR(t, f) .type = OPT_T_STR, \
	.off = OPT_OFF(t, f, const char *)

/*
 * A program's parse: what it fills in, then its tables by opt_add().
 * bad prints a bad value's message (NULL: "PROG: --NAME ARG: WHY" on
 * stderr); fail prints the usage after any usage error and its message
 * (NULL: usage, as it is, on stderr), and the process exits 2 unless fail
 * exits itself.
 */
struct opt_parser {
	const char *prog;
	enum opt_num num;
	void (*bad)(const struct opt_parser *p, const struct opt_def *o,
		    const char *arg, const char *why);
	void (*fail)(const struct opt_parser *p);
	const char *usage;
	void *ctx;		/* the program's, for bad and fail */
	/* opt_add()'s */
	const struct opt_def *o[OPT_MAX];
	void *base[OPT_MAX];
	unsigned int n, nlong;
	struct option lo[OPT_MAX + 1];
	char shorts[2 * OPT_MAX + 2];
};

/*
 * Adds table's options (they end with name NULL); values go to base.
 * Base NULL: options the program knows but does not take here, returned
 * by opt_next() with no value set, for the caller to refuse.
 */
void opt_add(struct opt_parser *p, const struct opt_def *table, void *base);
/*
 * The next option of argv, its value set, or NULL after the last (optind
 * is then the first operand). Calls p->fail on a usage error.
 */
const struct opt_def *opt_next(struct opt_parser *p, int argc, char **argv);
/* Whether o is one of table's. */
int opt_in(const struct opt_def *o, const struct opt_def *table);
/* Parses arg into o's value at base: 0, or -1 after p->bad's message. */
int opt_set(const struct opt_parser *p, const struct opt_def *o, void *base,
	    const char *arg);
/* A byte count, K, M or G suffix, up to *rest; 0 or -1. */
int opt_bytes(const char *arg, uint64_t *val, const char **rest);

/* table's entries for --help, each help text from column col, wrapped. */
void opt_help(FILE *f, const struct opt_def *table, int col);

#ifdef __cplusplus
}
#endif

#endif /* LITE_OPT_TABLE_H */
