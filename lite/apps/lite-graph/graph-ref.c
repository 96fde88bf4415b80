// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * graph-ref: the single-node PageRank of graph.h, the reference the
 * distributed versions are checked against.
 *
 *   graph-ref [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS] [-q]
 *	       [--dump FILE]
 *
 * Prints one "iter=K ms=T" line per iteration (not with -q), then the
 * "result ..." line (graph.h, pr_result). Exit status 0, or 1 with a
 * "graph-ref: ..." line.
 */
#include <errno.h>
#include <stdlib.h>

#include "graph.h"

const char *prog = "graph-ref";

static const char usage[] =
	"usage: graph-ref [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS] [-q] [--dump FILE]\n";

int main(int argc, char **argv)
{
	double *rank, *next, *bsum, *contrib, *t, build_s;
	uint64_t t0, t1, total = 0;
	struct graph_opts o;
	struct graph g;
	unsigned int k;
	int ret;

	graph_parse_args(argc, argv, &o, GRAPH_BASELINE, usage);
	t0 = now_ns();
	ret = graph_build(&g, &o, graph_part_of(1U << o.scale, 1, 0));
	if (ret < 0)
		die("graph", ret);
	build_s = (now_ns() - t0) / 1e9;
	rank = malloc(g.nv * sizeof(*rank));
	next = malloc(g.nv * sizeof(*next));
	contrib = malloc(g.nv * sizeof(*contrib));
	bsum = malloc(g.nblocks * sizeof(*bsum));
	if (!rank || !next || !contrib || !bsum)
		die("memory for the ranks", ENOMEM);

	pr_init(&g, rank);
	for (k = 0; k < o.iters; k++) {
		t0 = now_ns();
		pr_block_dangling(&g, rank, bsum);
		pr_update(&g, rank, bsum, contrib, next);
		t = rank;
		rank = next;
		next = t;
		t1 = now_ns();
		total += t1 - t0;
		if (!o.quiet)
			printf("iter=%u ms=%.3f\n", k, (t1 - t0) / 1e6);
	}
	pr_result(stdout, &o, &g, 1, build_s, total / 1e6 / o.iters, rank);
	if (o.dump) {
		ret = pr_dump(o.dump, &o, rank, g.nv);
		if (ret < 0)
			die(o.dump, ret);
	}
	free(bsum);
	free(contrib);
	free(next);
	free(rank);
	graph_free(&g);
	return 0;
}
