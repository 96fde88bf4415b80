// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Table-driven command lines (../include/opt_table.h); not in liblite. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt_table.h"

/* What getopt_long returns for long-only option i: LONG_ONLY + i. */
#define LONG_ONLY	256

void opt_add(struct opt_parser *p, const struct opt_def *table, void *base)
{
	size_t len = strlen(p->shorts);

	for (; table->name; table++) {
		unsigned int i = p->n;

		if (i == OPT_MAX)
			abort();
		p->o[i] = table;
		p->base[i] = base;
		if (*table->name)
			p->lo[p->nlong++] = (struct option){
				.name = table->name,
				.has_arg = table->arg ? required_argument :
					   no_argument,
				.val = table->key ? table->key :
				       (int)(LONG_ONLY + i),
			};
		if (table->key) {
			p->shorts[len++] = (char)table->key;
			if (table->arg)
				p->shorts[len++] = ':';
		}
		p->n++;
	}
	memset(&p->lo[p->nlong], 0, sizeof(p->lo[p->nlong]));
	p->shorts[len] = '\0';
}

void opt_help(FILE *f, const struct opt_def *o, int col)
{
	const int width = 79;

	for (; o->name; o++) {
		const char *text = o->help;
		char head[64];
		int n, at = col;

		if (!*o->name)
			n = snprintf(head, sizeof(head), "  -%c", o->key);
		else if (o->key)
			n = snprintf(head, sizeof(head), "  -%c, --%s", o->key,
				     o->name);
		else
			n = snprintf(head, sizeof(head), "      --%s", o->name);
		if (o->arg)
			snprintf(head + n, sizeof(head) - n, " %s", o->arg);
		fprintf(f, "%-*s ", col - 1, head);
		/* Wrapped, continued under its first line. */
		while (*text) {
			size_t len = strcspn(text, " ");

			if (at > col && at + 1 + (int)len > width) {
				fprintf(f, "\n%*s", col, "");
				at = col;
			}
			if (at > col) {
				fputc(' ', f);
				at++;
			}
			fprintf(f, "%.*s", (int)len, text);
			at += (int)len;
			text += len;
			text += strspn(text, " ");
		}
		fputc('\n', f);
	}
}

static int bad_value(const struct opt_parser *p, const struct opt_def *o,
		     const char *arg, const char *why)
{
	if (p->bad)
		p->bad(p, o, arg, why);
	else
		fprintf(stderr, "%s: --%s %s: %s\n", p->prog, o->name, arg,
			why);
	return -1;
}

/* A number as p writes them, up to *end. */
static int parse_num(enum opt_num num, const char *arg, uint64_t *val,
		     char **end)
{
	if (num == OPT_NUM_DIGITS && (*arg < '0' || *arg > '9'))
		return -1;
	if (num == OPT_NUM_C && *arg == '-')
		return -1;
	errno = 0;
	*val = strtoull(arg, end, num == OPT_NUM_C ? 0 : 10);
	return errno || *end == arg ? -1 : 0;
}

static int check_range(const struct opt_parser *p, const struct opt_def *o,
		       const char *arg, uint64_t v)
{
	char why[80];

	if (v >= o->min && v <= o->max)
		return 0;
	snprintf(why, sizeof(why), "out of range [%" PRIu64 ", %" PRIu64 "]",
		 o->min, o->max);
	return bad_value(p, o, arg, why);
}

static int parse_u64(const struct opt_parser *p, const struct opt_def *o,
		     const char *arg, uint64_t *val)
{
	char *end;

	if (parse_num(p->num, arg, val, &end) || *end)
		return bad_value(p, o, arg, "not a number");
	return check_range(p, o, arg, *val);
}

int opt_bytes(const char *arg, uint64_t *val, const char **rest)
{
	static const char suffixes[] = "KMG";
	const char *s;
	char *end;
	unsigned int shift;

	if (parse_num(OPT_NUM_DIGITS, arg, val, &end))
		return -1;
	s = *end ? strchr(suffixes, *end & ~0x20) : NULL;
	if (s) {
		shift = 10 * (unsigned int)(s - suffixes + 1);
		if (*val > (UINT64_MAX >> shift))
			return -1;
		*val <<= shift;
		end++;
	}
	*rest = end;
	return 0;
}

/* arg as the index of one of o->names (NULL entries skipped). */
static int parse_choice(const struct opt_parser *p, const struct opt_def *o,
			const char *arg, int *val)
{
	char why[256];
	size_t len;
	unsigned int i;
	const char *sep = "";

	for (i = 0; i < o->nnames; i++) {
		if (o->names[i] && !strcmp(arg, o->names[i])) {
			*val = (int)i;
			return 0;
		}
	}
	len = (size_t)snprintf(why, sizeof(why), "not one of");
	for (i = 0; i < o->nnames && len < sizeof(why); i++) {
		if (!o->names[i])
			continue;
		len += (size_t)snprintf(why + len, sizeof(why) - len, "%s %s",
					sep, o->names[i]);
		sep = ",";
	}
	return bad_value(p, o, arg, why);
}

static int parse_sec(const struct opt_parser *p, const struct opt_def *o,
		     const char *arg, double *val)
{
	double min = o->min / 1e3;
	char *end;

	errno = 0;
	*val = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(*val) || *val > 1e6)
		return bad_value(p, o, arg, "not a number of seconds");
	if (*val < min)
		return bad_value(p, o, arg, min > 0 ? "must be > 0" :
				 "must be >= 0");
	return 0;
}

int opt_set(const struct opt_parser *p, const struct opt_def *o, void *base,
	    const char *arg)
{
	void *v = (char *)base + o->off;
	const char *rest;
	uint64_t n;

	switch (o->type) {
	case OPT_T_OWN:
		return 0;
	case OPT_T_FLAG:
		*(int *)v = 1;
		return 0;
	case OPT_T_UINT:
		if (parse_u64(p, o, arg, &n))
			return -1;
		*(unsigned int *)v = (unsigned int)n;
		return 0;
	case OPT_T_U64:
		return parse_u64(p, o, arg, v);
	case OPT_T_BYTES:
		if (opt_bytes(arg, v, &rest) || *rest)
			return bad_value(p, o, arg,
					 "not a byte count (N, NK, NM, NG)");
		return check_range(p, o, arg, *(uint64_t *)v);
	case OPT_T_SEC:
		return parse_sec(p, o, arg, v);
	case OPT_T_CHOICE:
		return parse_choice(p, o, arg, v);
	case OPT_T_STR:
		*(const char **)v = arg;
		return 0;
	}
	abort();
}

int opt_in(const struct opt_def *o, const struct opt_def *table)
{
	for (; table->name; table++)
		if (o == table)
			return 1;
	return 0;
}

const struct opt_def *opt_next(struct opt_parser *p, int argc, char **argv)
{
	unsigned int i;
	int key = getopt_long(argc, argv, p->shorts, p->lo, NULL);

	if (key == -1)
		return NULL;
	if (key == '?')
		goto fail;
	if (key >= LONG_ONLY)
		i = (unsigned int)(key - LONG_ONLY);
	else
		for (i = 0; p->o[i]->key != key; i++)
			;
	if (p->base[i] && opt_set(p, p->o[i], p->base[i], optarg))
		goto fail;
	return p->o[i];
fail:
	if (p->fail)
		p->fail(p);
	else
		fputs(p->usage, stderr);
	exit(2);
}
