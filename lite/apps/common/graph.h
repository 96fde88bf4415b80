/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the PageRank programs share (lite-graph, mpi-graph and graph-ref in
 * ../lite-graph, lite-graph-dsm and ga-graph in ../lite-graph-dsm), so that
 * all compute on the identical graph with the identical arithmetic: the
 * R-MAT generator, the partitioning, the PageRank kernel, the rank dumps
 * and the command line.
 *
 * Graph. R-MAT (a=0.57, b=c=0.19, d=0.05 in 1/65536 units), 2^scale
 * vertices, edge_factor * 2^scale directed edges, drawn from one
 * splitmix64 stream seeded with the seed, then renamed by a seeded random
 * permutation of the vertex ids (so that the heavy vertices are not all in
 * the first partition). Duplicate edges and self-loops are kept: the graph
 * is the multiset of drawn edges, the same everywhere. Every program
 * generates the whole edge stream itself (no file to distribute) and keeps
 * only what it needs: the out-degree of every vertex and the in-edges of
 * the vertices it owns, each vertex's in-edges in the order they were drawn.
 *
 * Partitioning. Vertices are grouped into blocks of GRAPH_BLOCK ids; part
 * p of P owns a contiguous range of whole blocks (blocks p*B/P ..
 * (p+1)*B/P - 1 of B), with the in-edges of its vertices (edges are
 * partitioned by destination).
 *
 * PageRank. rank_0(v) = 1/N; per iteration, with D the rank of the
 * dangling vertices (out-degree 0) summed per block in id order and then
 * over the blocks in block order,
 *   rank'(v) = (1 - 0.85) / N + 0.85 * (sum over in-edges (u, v), in drawn
 *              order, of rank(u) / outdeg(u)  +  D / N)
 * A fixed number of iterations, doubles, no FMA contraction (-ffp-contract
 * =off). Every sum has one order whatever the partitioning, so the ranks
 * come out bit for bit the same on 1 node or many.
 */
#ifndef GRAPH_H
#define GRAPH_H

#include <stdint.h>
#include <stdio.h>

#define GRAPH_DAMPING		0.85
#define GRAPH_BLOCK		256U	/* vertices per dangling-sum block */
#define GRAPH_MAX_SCALE		28
#define GRAPH_MAX_PARTS		1024

/* What every program is given (graph_parse_args). */
struct graph_opts {
	unsigned int	scale;		/* -s: 2^scale vertices */
	unsigned int	edge_factor;	/* -e: edges per vertex */
	uint64_t	seed;		/* -S */
	unsigned int	iters;		/* -i: iterations */
	const char	*dump;		/* --dump FILE: the final ranks */
	unsigned int	nodes;		/* -n: partitions (lite-graph, -dsm) */
	unsigned int	node;		/* --node: this one, 1..nodes (-dsm) */
	const char	*run;		/* --run: the region's run id (-dsm) */
	uint64_t	id;		/* --id: LMR identifier base (lite-graph) */
	int		quiet;		/* -q: no per-iteration lines */
	int		push;		/* --mode push (lite-graph) */
	uint64_t	window;		/* --window: bytes per posted op (lite-graph) */
};

/* A vertex range of whole blocks, and its blocks. */
struct graph_part {
	uint32_t	lo, hi;		/* vertices lo .. hi - 1 */
	uint32_t	blo, bhi;	/* blocks blo .. bhi - 1 */
};

/* The part of the graph one program keeps. */
struct graph {
	uint32_t	nv;		/* vertices */
	uint64_t	ne;		/* edges */
	uint32_t	nblocks;
	struct graph_part own;
	uint32_t	*outdeg;	/* [nv] */
	uint64_t	*in_off;	/* [own.hi - own.lo + 1] */
	uint32_t	*in_src;	/* sources of the owned vertices' in-edges */
};

/* prog, die(), now_ns(), splitmix64() */
#include "app_util.h"

/* Which program parses (graph_parse_args): what options it takes. */
enum graph_prog {
	GRAPH_BASELINE,		/* the common ones only */
	GRAPH_LITE,		/* and -n --id --mode --window */
	GRAPH_DSM,		/* and -n --node --run */
};

/*
 * Parse the common options (-s -e -S -i --dump -q) and those of @kind;
 * @usage is printed on an error. Exits 2 on a bad command line.
 */
void graph_parse_args(int argc, char **argv, struct graph_opts *o,
		      enum graph_prog kind, const char *usage);

/* Part @p of @parts of a graph of @nv vertices. */
struct graph_part graph_part_of(uint32_t nv, unsigned int parts,
				unsigned int p);

/*
 * Generate the graph of @o and keep what part @own needs. Returns 0 or a
 * negative errno (-ENOMEM).
 */
int graph_build(struct graph *g, const struct graph_opts *o,
		struct graph_part own);
void graph_free(struct graph *g);

/* 1/N for each vertex of the own part. */
void pr_init(const struct graph *g, double *rank_own);

/*
 * Dangling rank of each block of the own part: @bsum[b - own.blo] for
 * blocks own.blo .. own.bhi - 1, from the own part's ranks.
 */
void pr_block_dangling(const struct graph *g, const double *rank_own,
		       double *bsum);

/*
 * Dangling rank of every block, @bsum_all[b], from every vertex's rank: the
 * same sums in the same order as each block's owner gets from
 * pr_block_dangling, for programs that read the whole rank vector anyway.
 */
void pr_dangling_all(const struct graph *g, const double *rank_all,
		     double *bsum_all);

/*
 * One iteration for the own part: @rank_all and @bsum_all are every
 * vertex's rank and every block's dangling sum (the gathered state), @contrib
 * scratch room for nv doubles; the new ranks go to @rank_own_new.
 */
void pr_update(const struct graph *g, const double *rank_all,
	       const double *bsum_all, double *contrib, double *rank_own_new);

/* Sum of all ranks (in id order) and the vertex of the highest rank. */
double pr_sum(const double *rank_all, uint32_t nv, uint32_t *top);

/*
 * Write every vertex's rank to @path, one "%.17g" line each in id order
 * after a "# pagerank ..." header. 0 or a negative errno.
 */
int pr_dump(const char *path, const struct graph_opts *o,
	    const double *rank_all, uint32_t nv);

/*
 * The phases of a superstep summed over the run: gather, apply, scatter
 * and barrier, timed the same way by every program that has them.
 */
struct pr_phases {
	uint64_t	sum[4];
	uint64_t	total;
};

/*
 * Superstep @k's phase boundaries, now_ns() at each (@t[0] its start,
 * @t[4] its end), added to @p; its "iter=" line printed when @print.
 */
void pr_phases_add(struct pr_phases *p, unsigned int k, const uint64_t t[5],
		   int print);
/* Mean ms per superstep over @iters. */
double pr_phases_ms(const struct pr_phases *p, unsigned int iters);
/* The "phases gather_ms=... barrier_ms=..." line, means over @iters. */
void pr_phases_print(FILE *f, const struct pr_phases *p, unsigned int iters);

/* The result line: "result prog=... key=value ...". */
void pr_result(FILE *f, const struct graph_opts *o, const struct graph *g,
	       unsigned int parts, double build_s, double ms_per_iter,
	       const double *rank_all);

#endif /* GRAPH_H */
