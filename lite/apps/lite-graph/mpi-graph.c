// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mpi-graph: the PageRank of graph.h over MPI, the baseline of lite-graph.
 * Rank r of P owns part r (graph_part_of); per iteration every rank
 * computes its part's new ranks and dangling sums, and two
 * MPI_Allgatherv calls give every rank the whole state for the next one.
 *
 *   mpirun -np P mpi-graph [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS]
 *			    [-q] [--dump FILE]
 *
 * Rank 0 prints one "iter=K ms=T" line per iteration (not with -q), the
 * "result ..." line (graph.h, pr_result), and writes --dump FILE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "graph.h"

const char *prog = "mpi-graph";

static const char usage[] =
	"usage: mpirun -np P mpi-graph [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS] [-q]\n"
	"                              [--dump FILE]\n";

static void mpi_check(int ret, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len;

	if (ret == MPI_SUCCESS)
		return;
	if (MPI_Error_string(ret, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", ret);
	fprintf(stderr, "%s: %s: %s\n", prog, what, msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
	double *rank_all, *bsum_all, *contrib, *rank_own, *bsum_own, build_s;
	int me, np, *vcnt, *voff, *bcnt, *boff, p, ret;
	uint64_t t0, t1, total = 0;
	struct graph_part part;
	struct graph_opts o;
	struct graph g;
	unsigned int k;

	mpi_check(MPI_Init(&argc, &argv), "MPI_Init");
	/* Errors come back as return values, checked by mpi_check. */
	mpi_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
		  "MPI_Comm_set_errhandler");
	mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &me), "MPI_Comm_rank");
	mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &np), "MPI_Comm_size");
	graph_parse_args(argc, argv, &o, GRAPH_BASELINE, usage);
	if (np > GRAPH_MAX_PARTS)
		die("too many ranks", EINVAL);

	t0 = now_ns();
	ret = graph_build(&g, &o, graph_part_of(1U << o.scale, np, me));
	if (ret < 0)
		die("graph", ret);
	build_s = (now_ns() - t0) / 1e9;
	vcnt = calloc(np, sizeof(int));
	voff = calloc(np, sizeof(int));
	bcnt = calloc(np, sizeof(int));
	boff = calloc(np, sizeof(int));
	rank_all = malloc(g.nv * sizeof(double));
	contrib = malloc(g.nv * sizeof(double));
	bsum_all = malloc(g.nblocks * sizeof(double));
	/* +1: a part may be empty, malloc(0) may return NULL. */
	rank_own = malloc((g.own.hi - g.own.lo + 1) * sizeof(double));
	bsum_own = malloc((g.own.bhi - g.own.blo + 1) * sizeof(double));
	if (!vcnt || !voff || !bcnt || !boff || !rank_all || !contrib ||
	    !bsum_all || !rank_own || !bsum_own)
		die("memory for the ranks", ENOMEM);
	for (p = 0; p < np; p++) {
		part = graph_part_of(g.nv, np, p);
		vcnt[p] = part.hi - part.lo;
		voff[p] = part.lo;
		bcnt[p] = part.bhi - part.blo;
		boff[p] = part.blo;
	}

	pr_init(&g, rank_own);
	mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	for (k = 0; k <= o.iters; k++) {
		t0 = now_ns();
		/* The state of iteration k, everywhere. */
		pr_block_dangling(&g, rank_own, bsum_own);
		mpi_check(MPI_Allgatherv(rank_own, vcnt[me], MPI_DOUBLE,
					 rank_all, vcnt, voff, MPI_DOUBLE,
					 MPI_COMM_WORLD), "MPI_Allgatherv");
		if (k == o.iters)
			break;	/* the final ranks, gathered */
		mpi_check(MPI_Allgatherv(bsum_own, bcnt[me], MPI_DOUBLE,
					 bsum_all, bcnt, boff, MPI_DOUBLE,
					 MPI_COMM_WORLD), "MPI_Allgatherv");
		pr_update(&g, rank_all, bsum_all, contrib, rank_own);
		t1 = now_ns();
		total += t1 - t0;
		if (!me && !o.quiet)
			printf("iter=%u ms=%.3f\n", k, (t1 - t0) / 1e6);
	}
	if (!me) {
		pr_result(stdout, &o, &g, np, build_s, total / 1e6 / o.iters,
			  rank_all);
		if (o.dump) {
			ret = pr_dump(o.dump, &o, rank_all, g.nv);
			if (ret < 0) {
				fprintf(stderr, "%s: %s: %s\n", prog, o.dump,
					strerror(-ret));
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
	}
	free(bsum_own);
	free(rank_own);
	free(bsum_all);
	free(contrib);
	free(rank_all);
	free(boff);
	free(bcnt);
	free(voff);
	free(vcnt);
	graph_free(&g);
	mpi_check(MPI_Finalize(), "MPI_Finalize");
	return 0;
}
