// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ga-graph: the PageRank of graph.h on Global Arrays (GA 5.8 over
 * ARMCI-MPI and OpenMPI, Debian's libglobalarrays-dev), the distributed
 * shared memory baseline of lite-graph-dsm. Rank r of P owns part r
 * (graph_part_of). Two global arrays of N doubles hold the rank vectors of
 * even and odd iterations, each rank's part stored on that rank
 * (NGA_Create_irreg with the parts' first vertices as its map; NGA_Create's
 * even split when a part is empty, which a map cannot describe).
 *
 *   mpirun -np P ga-graph [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS]
 *			   [-q] [--dump FILE]
 *
 * Superstep k, s = k % 2:
 *   gather   NGA_Get of all of array s: the rank vector of iteration k
 *   apply    dangling sums of every block (pr_dangling_all), the own
 *            part's new ranks
 *   scatter  NGA_Put of them into the own part of array 1 - s
 *   barrier  GA_Sync: every put complete, every rank arrived
 *
 * No NGA_Acc: accumulating the dangling mass in a global array would sum
 * in arrival order, and the ranks would no longer be graph-ref's bit for
 * bit. Two arrays and one GA_Sync per superstep, for lite-graph's reason.
 *
 * Rank 0 prints what lite-graph prints ("iter=K ms=T gather_ms=G
 * apply_ms=A scatter_ms=W barrier_ms=B" per superstep, not with -q; the
 * "result ..." line of graph.h; "phases ...") and writes --dump FILE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <ga.h>

#include "graph.h"

const char *prog = "ga-graph";

static const char usage[] =
	"usage: mpirun -np P ga-graph [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS] [-q]\n"
	"                             [--dump FILE]\n";

static void ga_fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err));
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A global array of @nv doubles, part p of @np on rank p where it can. */
static int rank_array(char *name, int nv, int np)
{
	int dims[1] = { nv }, block[1] = { np }, chunk[1] = { -1 }, p, ga;
	int *map = calloc(np, sizeof(*map));
	struct graph_part part;
	int empty = 0;

	if (!map)
		ga_fail("memory for the map", ENOMEM);
	for (p = 0; p < np; p++) {
		part = graph_part_of(nv, np, p);
		map[p] = part.lo;
		empty |= part.lo == part.hi;
	}
	ga = empty ? NGA_Create(C_DBL, 1, dims, name, chunk)
		   : NGA_Create_irreg(C_DBL, 1, dims, name, block, map);
	free(map);
	if (!ga)
		ga_fail("NGA_Create", ENOMEM);
	return ga;
}

/* All of @ga into @rank_all. */
static void get_all(int ga, int nv, double *rank_all)
{
	int lo[1] = { 0 }, hi[1] = { nv - 1 }, ld[1] = { 0 };

	NGA_Get(ga, lo, hi, rank_all, ld);
}

/* The own part's ranks into @ga. */
static void put_own(int ga, struct graph_part own, double *rank_own)
{
	int lo[1] = { own.lo }, hi[1] = { (int)own.hi - 1 }, ld[1] = { 0 };

	if (own.hi > own.lo)
		NGA_Put(ga, lo, hi, rank_own, ld);
}

int main(int argc, char **argv)
{
	struct pr_phases ph = { 0 };
	uint64_t t[5];
	double *rank_all, *bsum_all, *contrib, *next_own, build_s;
	int me, np, ga[2], ret;
	struct graph_opts o;
	struct graph g;
	unsigned int k;

	MPI_Init(&argc, &argv);
	GA_Initialize();
	me = GA_Nodeid();
	np = GA_Nnodes();
	graph_parse_args(argc, argv, &o, GRAPH_BASELINE, usage);
	if (np > GRAPH_MAX_PARTS)
		ga_fail("too many ranks", EINVAL);

	t[0] = now_ns();
	ret = graph_build(&g, &o, graph_part_of(1U << o.scale, np, me));
	if (ret < 0)
		ga_fail("graph", -ret);
	build_s = (now_ns() - t[0]) / 1e9;
	rank_all = malloc(g.nv * sizeof(double));
	contrib = malloc(g.nv * sizeof(double));
	bsum_all = malloc(g.nblocks * sizeof(double));
	/* + 1: a part may be empty, and malloc(0) may return NULL. */
	next_own = malloc((g.own.hi - g.own.lo + 1) * sizeof(double));
	if (!rank_all || !contrib || !bsum_all || !next_own)
		ga_fail("memory for the ranks", ENOMEM);
	ga[0] = rank_array("ranks-even", g.nv, np);
	ga[1] = rank_array("ranks-odd", g.nv, np);

	pr_init(&g, next_own);
	put_own(ga[0], g.own, next_own);
	GA_Sync();
	for (k = 0; k < o.iters; k++) {
		t[0] = now_ns();
		get_all(ga[k % 2], g.nv, rank_all);
		t[1] = now_ns();
		pr_dangling_all(&g, rank_all, bsum_all);
		pr_update(&g, rank_all, bsum_all, contrib, next_own);
		t[2] = now_ns();
		put_own(ga[(k + 1) % 2], g.own, next_own);
		t[3] = now_ns();
		GA_Sync();
		t[4] = now_ns();
		pr_phases_add(&ph, k, t, !me && !o.quiet);
	}

	if (!me) {
		get_all(ga[o.iters % 2], g.nv, rank_all);
		pr_result(stdout, &o, &g, np, build_s,
			  pr_phases_ms(&ph, o.iters), rank_all);
		pr_phases_print(stdout, &ph, o.iters);
		fflush(stdout);
		if (o.dump) {
			ret = pr_dump(o.dump, &o, rank_all, g.nv);
			if (ret < 0)
				ga_fail(o.dump, -ret);
		}
	}
	GA_Destroy(ga[1]);
	GA_Destroy(ga[0]);
	free(next_own);
	free(bsum_all);
	free(contrib);
	free(rank_all);
	graph_free(&g);
	GA_Terminate();
	MPI_Finalize();
	return 0;
}
