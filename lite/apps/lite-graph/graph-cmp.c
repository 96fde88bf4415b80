// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * graph-cmp: do two rank dumps (pr_dump) of the same graph agree?
 *
 *   graph-cmp [-t TOLERANCE] FILE1 FILE2
 *
 * Both must have the same header (graph and iterations) and as many
 * ranks. Prints "max_abs_diff=D at=V max_rel_diff=R vertices=N"; exit
 * status 0 when D <= TOLERANCE (default 1e-6), 1 when not or when the
 * files differ in shape (with a "graph-cmp: ..." line), 2 on a bad
 * command line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"

const char *prog = "graph-cmp";

static const char usage[] = "usage: graph-cmp [-t TOLERANCE] FILE1 FILE2\n";

struct dump {
	const char	*path;
	FILE		*f;
	char		header[256];
	unsigned long	line;
};

static void dump_open(struct dump *d, const char *path)
{
	d->path = path;
	d->line = 1;
	d->f = fopen(path, "r");
	if (!d->f)
		die(path, errno);
	if (!fgets(d->header, sizeof(d->header), d->f) ||
	    strncmp(d->header, "# pagerank ", 11)) {
		fprintf(stderr, "%s: %s: not a rank dump (no '# pagerank' header)\n",
			prog, path);
		exit(1);
	}
}

/* The next rank: 1, or 0 at the end of the file. */
static int dump_next(struct dump *d, double *rank)
{
	char buf[64], *end;

	if (!fgets(buf, sizeof(buf), d->f)) {
		if (ferror(d->f))
			die(d->path, EIO);
		return 0;
	}
	d->line++;
	errno = 0;
	*rank = strtod(buf, &end);
	if (errno || end == buf || (*end != '\n' && *end) || !isfinite(*rank)) {
		fprintf(stderr, "%s: %s:%lu: not a rank: %s", prog, d->path,
			d->line, buf);
		exit(1);
	}
	return 1;
}

int main(int argc, char **argv)
{
	double tol = 1e-6, a, b, diff, max_abs = 0, max_rel = 0;
	unsigned long v = 0, at = 0;
	struct dump d1, d2;
	int c, m1, m2;
	char *end;

	while ((c = getopt(argc, argv, "t:")) != -1) {
		if (c != 't')
			goto bad;
		tol = strtod(optarg, &end);
		if (end == optarg || *end || !(tol >= 0))
			goto bad;
	}
	if (argc - optind != 2)
		goto bad;
	dump_open(&d1, argv[optind]);
	dump_open(&d2, argv[optind + 1]);
	if (strcmp(d1.header, d2.header)) {
		fprintf(stderr, "%s: not the same graph or iterations:\n  %s  %s",
			prog, d1.header, d2.header);
		return 1;
	}
	for (;;) {
		m1 = dump_next(&d1, &a);
		m2 = dump_next(&d2, &b);
		if (m1 != m2) {
			fprintf(stderr, "%s: %s ends after %lu ranks, the other does not\n",
				prog, m1 ? d2.path : d1.path, v);
			return 1;
		}
		if (!m1)
			break;
		diff = fabs(a - b);
		if (diff > max_abs) {
			max_abs = diff;
			at = v;
		}
		if (diff > 0 && diff / fmax(fabs(a), fabs(b)) > max_rel)
			max_rel = diff / fmax(fabs(a), fabs(b));
		v++;
	}
	fclose(d1.f);
	fclose(d2.f);
	printf("max_abs_diff=%.3e at=%lu max_rel_diff=%.3e vertices=%lu\n",
	       max_abs, at, max_rel, v);
	if (max_abs > tol) {
		fprintf(stderr, "%s: ranks differ by %.3e > %.3e (vertex %lu)\n",
			prog, max_abs, tol, at);
		return 1;
	}
	return 0;
bad:
	fputs(usage, stderr);
	return 2;
}
