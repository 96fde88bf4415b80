// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The graph, its partitioning and the PageRank kernel shared by the
 * PageRank programs: the definitions are in graph.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph.h"
#include "opt_table.h"

/* R-MAT quadrant thresholds in 1/65536: a=0.57, a+b=0.76, a+b+c=0.95. */
#define RMAT_A		37356U
#define RMAT_AB		49807U
#define RMAT_ABC	62259U
/* Mixed into the seed for the permutation's stream ("PERM"). */
#define PERM_SALT	0x5045524dULL

/* The edge stream: 16 random bits per level, four levels per draw. */
struct rmat {
	uint64_t	state, bits;
	unsigned int	left;		/* 16-bit pieces left in bits */
	unsigned int	scale;
	const uint32_t	*perm;
};

static void rmat_init(struct rmat *r, const struct graph_opts *o,
		      const uint32_t *perm)
{
	*r = (struct rmat) { .state = o->seed, .scale = o->scale,
			     .perm = perm };
}

static void rmat_edge(struct rmat *r, uint32_t *src, uint32_t *dst)
{
	uint32_t s = 0, d = 0, x;
	unsigned int l;

	for (l = 0; l < r->scale; l++) {
		if (!r->left) {
			r->bits = splitmix64(&r->state);
			r->left = 4;
		}
		x = r->bits & 0xffff;
		r->bits >>= 16;
		r->left--;
		/*
		 * Quadrant a (0,0), b (0,1), c (1,0), d (1,1), without
		 * branches: random ones are mispredicted half the time.
		 */
		s = s << 1 | (x >= RMAT_AB);
		d = d << 1 | ((x >= RMAT_A) ^ (x >= RMAT_AB) ^ (x >= RMAT_ABC));
	}
	*src = r->perm[s];
	*dst = r->perm[d];
}

/* A seeded Fisher-Yates shuffle of 0 .. nv - 1. */
static void graph_perm(uint32_t *perm, uint32_t nv, uint64_t seed)
{
	uint64_t state = seed ^ PERM_SALT;
	uint32_t i, j, t;

	for (i = 0; i < nv; i++)
		perm[i] = i;
	for (i = nv - 1; i > 0; i--) {
		j = (uint32_t)(((unsigned __int128)splitmix64(&state) *
				(i + 1ULL)) >> 64);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

struct graph_part graph_part_of(uint32_t nv, unsigned int parts,
				unsigned int p)
{
	uint32_t nb = (nv + GRAPH_BLOCK - 1) / GRAPH_BLOCK;
	struct graph_part gp;

	gp.blo = (uint64_t)p * nb / parts;
	gp.bhi = (uint64_t)(p + 1) * nb / parts;
	gp.lo = (uint64_t)gp.blo * GRAPH_BLOCK < nv ? gp.blo * GRAPH_BLOCK : nv;
	gp.hi = (uint64_t)gp.bhi * GRAPH_BLOCK < nv ? gp.bhi * GRAPH_BLOCK : nv;
	return gp;
}

/*
 * Two passes over the edge stream: the first counts (out-degrees, the own
 * vertices' in-degrees), the second places the own in-edges. Drawing twice
 * costs less than keeping every drawn edge in memory at large scales.
 */
int graph_build(struct graph *g, const struct graph_opts *o,
		struct graph_part own)
{
	uint32_t *perm, *fill = NULL, src, dst, nown = own.hi - own.lo, v;
	struct rmat r;
	uint64_t e;

	memset(g, 0, sizeof(*g));
	g->nv = 1U << o->scale;
	g->ne = (uint64_t)o->edge_factor << o->scale;
	g->nblocks = (g->nv + GRAPH_BLOCK - 1) / GRAPH_BLOCK;
	g->own = own;
	perm = malloc(g->nv * sizeof(*perm));
	g->outdeg = calloc(g->nv, sizeof(*g->outdeg));
	g->in_off = calloc(nown + 1, sizeof(*g->in_off));
	if (!perm || !g->outdeg || !g->in_off)
		goto nomem;
	graph_perm(perm, g->nv, o->seed);

	rmat_init(&r, o, perm);
	for (e = 0; e < g->ne; e++) {
		rmat_edge(&r, &src, &dst);
		g->outdeg[src]++;
		if (dst >= own.lo && dst < own.hi)
			g->in_off[dst - own.lo + 1]++;
	}
	for (v = 0; v < nown; v++)
		g->in_off[v + 1] += g->in_off[v];

	g->in_src = malloc((g->in_off[nown] ? g->in_off[nown] : 1) *
			   sizeof(*g->in_src));
	fill = calloc(nown ? nown : 1, sizeof(*fill));
	if (!g->in_src || !fill)
		goto nomem;
	rmat_init(&r, o, perm);
	for (e = 0; e < g->ne; e++) {
		rmat_edge(&r, &src, &dst);
		if (dst >= own.lo && dst < own.hi) {
			v = dst - own.lo;
			g->in_src[g->in_off[v] + fill[v]++] = src;
		}
	}
	free(fill);
	free(perm);
	return 0;
nomem:
	free(fill);
	free(perm);
	graph_free(g);
	return -ENOMEM;
}

void graph_free(struct graph *g)
{
	free(g->outdeg);
	free(g->in_off);
	free(g->in_src);
	g->outdeg = g->in_src = NULL;
	g->in_off = NULL;
}

void pr_init(const struct graph *g, double *rank_own)
{
	uint32_t v;

	for (v = g->own.lo; v < g->own.hi; v++)
		rank_own[v - g->own.lo] = 1.0 / g->nv;
}

void pr_block_dangling(const struct graph *g, const double *rank_own,
		       double *bsum)
{
	uint32_t b, v, end;
	double s;

	for (b = g->own.blo; b < g->own.bhi; b++) {
		end = (b + 1) * GRAPH_BLOCK < g->nv ? (b + 1) * GRAPH_BLOCK
						    : g->nv;
		s = 0.0;
		for (v = b * GRAPH_BLOCK; v < end; v++)
			if (!g->outdeg[v])
				s += rank_own[v - g->own.lo];
		bsum[b - g->own.blo] = s;
	}
}

void pr_dangling_all(const struct graph *g, const double *rank_all,
		     double *bsum_all)
{
	struct graph whole = *g;

	whole.own = graph_part_of(g->nv, 1, 0);
	pr_block_dangling(&whole, rank_all, bsum_all);
}

void pr_update(const struct graph *g, const double *rank_all,
	       const double *bsum_all, double *contrib, double *rank_own_new)
{
	double dangling = 0.0, s;
	uint32_t u, b, v;
	uint64_t k;

	for (u = 0; u < g->nv; u++)
		contrib[u] = g->outdeg[u] ? rank_all[u] / g->outdeg[u] : 0.0;
	for (b = 0; b < g->nblocks; b++)
		dangling += bsum_all[b];
	for (v = 0; v < g->own.hi - g->own.lo; v++) {
		s = 0.0;
		for (k = g->in_off[v]; k < g->in_off[v + 1]; k++)
			s += contrib[g->in_src[k]];
		rank_own_new[v] = (1.0 - GRAPH_DAMPING) / g->nv +
				  GRAPH_DAMPING * (s + dangling / g->nv);
	}
}

double pr_sum(const double *rank_all, uint32_t nv, uint32_t *top)
{
	double s = 0.0;
	uint32_t v;

	*top = 0;
	for (v = 0; v < nv; v++) {
		s += rank_all[v];
		if (rank_all[v] > rank_all[*top])
			*top = v;
	}
	return s;
}

static void pr_header(FILE *f, const struct graph_opts *o, uint32_t nv)
{
	fprintf(f, "# pagerank scale=%u edge_factor=%u seed=%" PRIu64
		" iters=%u vertices=%u\n", o->scale, o->edge_factor, o->seed,
		o->iters, nv);
}

int pr_dump(const char *path, const struct graph_opts *o,
	    const double *rank_all, uint32_t nv)
{
	FILE *f = fopen(path, "w");
	uint32_t v;
	int err;

	if (!f)
		return -errno;
	pr_header(f, o, nv);
	for (v = 0; v < nv; v++)
		fprintf(f, "%.17g\n", rank_all[v]);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno;
	return -err;
}

void pr_result(FILE *f, const struct graph_opts *o, const struct graph *g,
	       unsigned int parts, double build_s, double ms_per_iter,
	       const double *rank_all)
{
	uint32_t top;
	double sum = pr_sum(rank_all, g->nv, &top);

	fprintf(f, "result prog=%s parts=%u scale=%u edge_factor=%u seed=%"
		PRIu64 " vertices=%u edges=%" PRIu64 " iters=%u build_s=%.3f"
		" ms_per_iter=%.3f rank_sum=%.12f top=%u top_rank=%.12e\n",
		prog, parts, o->scale, o->edge_factor, o->seed, g->nv, g->ne,
		o->iters, build_s, ms_per_iter, sum, top, rank_all[top]);
	fflush(f);
}

static double ns_ms(uint64_t ns)
{
	return ns / 1e6;
}

void pr_phases_add(struct pr_phases *p, unsigned int k, const uint64_t t[5],
		   int print)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		p->sum[i] += t[i + 1] - t[i];
	p->total += t[4] - t[0];
	if (print)
		printf("iter=%u ms=%.3f gather_ms=%.3f apply_ms=%.3f scatter_ms=%.3f barrier_ms=%.3f\n",
		       k, ns_ms(t[4] - t[0]), ns_ms(t[1] - t[0]),
		       ns_ms(t[2] - t[1]), ns_ms(t[3] - t[2]),
		       ns_ms(t[4] - t[3]));
}

double pr_phases_ms(const struct pr_phases *p, unsigned int iters)
{
	return ns_ms(p->total) / iters;
}

void pr_phases_print(FILE *f, const struct pr_phases *p, unsigned int iters)
{
	fprintf(f, "phases gather_ms=%.3f apply_ms=%.3f scatter_ms=%.3f barrier_ms=%.3f\n",
		ns_ms(p->sum[0]) / iters, ns_ms(p->sum[1]) / iters,
		ns_ms(p->sum[2]) / iters, ns_ms(p->sum[3]) / iters);
}

/* Where the options' values go. */
#define GO	struct graph_opts

static const char *const mode_names[] = { "pull", "push" };

/*
 * No help texts: each program's usage is its synopsis, and it has no
 * --help. what names a number in bad_arg()'s message.
 */
static const struct opt_def common_opts[] = {
	{ "scale", 's', "SCALE", .what = "scale",
	  OPT_UINT(GO, scale, 1, GRAPH_MAX_SCALE) },
	{ "edge-factor", 'e', "EDGE_FACTOR", .what = "edge factor",
	  OPT_UINT(GO, edge_factor, 1, 1024) },
	{ "seed", 'S', "SEED", .what = "seed",
	  OPT_U64(GO, seed, 0, UINT64_MAX) },
	{ "iters", 'i', "ITERS", .what = "iterations",
	  OPT_UINT(GO, iters, 1, 100000) },
	{ "dump", 'd', "FILE", OPT_STR(GO, dump) },
	{ "quiet", 'q', NULL, OPT_FLAG(GO, quiet) },
	{ .name = NULL }
};

/* Those of the programs run once per node: lite-graph, lite-graph-dsm. */
static const struct opt_def nodes_opts[] = {
	{ "nodes", 'n', "NODES", .what = "nodes",
	  OPT_UINT(GO, nodes, 1, GRAPH_MAX_PARTS) },
	{ .name = NULL }
};

/* lite-graph's own. */
static const struct opt_def lite_opts[] = {
	{ "id", 'I', "ID", .what = "id",
	  OPT_U64(GO, id, 0, UINT64_MAX - GRAPH_MAX_PARTS) },
	{ "mode", 0, "pull|push", OPT_CHOICE(GO, push, mode_names) },
	{ "window", 0, "BYTES", .what = "window",
	  OPT_U64(GO, window, 8, 1 << 20) },
	{ .name = NULL }
};

/* lite-graph-dsm's own. */
static const struct opt_def dsm_opts[] = {
	{ "node", 0, "NODE", .what = "node",
	  OPT_UINT(GO, node, 1, GRAPH_MAX_PARTS) },
	{ "run", 0, "RUN", OPT_STR(GO, run) },
	{ .name = NULL }
};

/* A bad number says which; a bad --mode leaves it to the usage. */
static void bad_arg(const struct opt_parser *p, const struct opt_def *o,
		    const char *arg, const char *why)
{
	(void)why;
	if (o->type != OPT_T_CHOICE)
		fprintf(stderr, "%s: %s must be a number in %" PRIu64 "..%"
			PRIu64 ", not '%s'\n", p->prog, o->what, o->min,
			o->max, arg);
}

/* Whether @kind takes option @d: the others know some only to refuse. */
static int graph_takes(enum graph_prog kind, const struct opt_def *d)
{
	if (opt_in(d, nodes_opts))
		return kind != GRAPH_BASELINE;
	if (opt_in(d, lite_opts))
		return kind == GRAPH_LITE;
	return 1;
}

void graph_parse_args(int argc, char **argv, struct graph_opts *o,
		      enum graph_prog kind, const char *usage)
{
	struct opt_parser p = {
		.prog = prog, .num = OPT_NUM_C, .bad = bad_arg,
		.usage = usage,
	};
	const struct opt_def *d;

	*o = (struct graph_opts) { .scale = 16, .edge_factor = 16, .seed = 1,
				   .iters = 20, .id = 0x47520000,
				   .window = 1 << 20 };
	opt_add(&p, common_opts, o);
	opt_add(&p, nodes_opts, kind != GRAPH_BASELINE ? o : NULL);
	opt_add(&p, lite_opts, kind == GRAPH_LITE ? o : NULL);
	/* Only there: elsewhere --node stays an abbreviation of --nodes. */
	if (kind == GRAPH_DSM)
		opt_add(&p, dsm_opts, o);
	while ((d = opt_next(&p, argc, argv)))
		if (!graph_takes(kind, d))
			break;
	if (!d && optind == argc)
		return;
	fputs(usage, stderr);
	exit(2);
}
