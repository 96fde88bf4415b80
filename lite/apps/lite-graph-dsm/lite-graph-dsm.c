// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-graph-dsm: the PageRank of graph.h on LITE-Kernel-DSM (liblite-dsm,
 * docs/dsm.md). The rank vectors live in one shared region, read and
 * written with plain loads and stores; a DSM barrier ends each superstep.
 * No call into liblite. Run once on each of nodes 1..NODES, as one user;
 * node n owns part n - 1 (graph_part_of), as in lite-graph:
 *
 *   lite-graph-dsm -n NODES --node NODE --run RUN [-s SCALE] [-e EDGE_FACTOR]
 *		    [-S SEED] [-i ITERS] [-q] [--dump FILE]
 *
 * The region, "lite-graph-dsm-RUN" (a new RUN for every run: a region
 * lives until its last node detaches, and a crashed run's would still
 * hold its ranks):
 *
 *   header page | slot 0 | slot 1
 *
 * The header holds the run's geometry, written by node 1. A slot holds one
 * iteration's ranks of every part; part p's area starts on a page of its
 * own, so that no two nodes write one page (the DSM merges a page written
 * by several nodes, but at the cost of one RDMA write per changed run):
 *
 *   iteration + 1 | rank[part's vertices] | up to the next page
 *
 * (+ 1: a zero-filled area, never written, is not iteration 0.)
 *
 * Superstep k, s = k % 2:
 *   gather   copy slot s out of the region: the whole rank vector of
 *            iteration k (the first touch of each page since the last
 *            barrier fetches it from its home)
 *   apply    dangling sums of every block (pr_dangling_all: every node
 *            has every out-degree, so no shared array of them), the own
 *            part's new ranks
 *   scatter  store them into the own area of slot 1 - s
 *   barrier  lite_dsm_barrier(NODES): this node's writes reach their
 *            homes, everyone waits for everyone, then drops its copies
 *
 * One barrier per superstep suffices with two slots (as in lite-graph):
 * slot 1 - s is complete at every home when anyone passes barrier k, and
 * the slot written in superstep k + 1 is the one everybody read in
 * superstep k, before arriving at barrier k. The barrier is LITE's, shared
 * by every caller with the same count (docs/dsm.md, Limits): a gather
 * checks each area's iteration so that a stray arrival letting a node pass
 * early fails the run rather than mixing iterations. This is a check, not
 * a guarantee: a racing reader may also see a new iteration with old
 * ranks. After the last superstep every node reads the final slot, prints
 * the result and writes --dump, and detaches (the region goes with the
 * last node).
 *
 * Prints "region=NAME bytes=SIZE", "node=... part=..." and per superstep
 * "iter=K ms=T gather_ms=G apply_ms=A scatter_ms=W barrier_ms=B" (not
 * with -q), then the "result ..." line of graph.h (pr_result) and
 * "phases ..." (the phases' averages), as lite-graph does. Exit status 0,
 * 1 with a "lite-graph-dsm: ..." line, 2 on a bad command line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lite-dsm.h>

#include "graph.h"

#define PAGE		4096UL
#define HEAD_MAGIC	0x4c47445348454144ULL	/* "LGDSHEAD" */
#define NAME_PREFIX	"lite-graph-dsm-"
/* The DSM's names are 1..63 characters: 48 left. */
#define RUN_MAX		(63 - sizeof(NAME_PREFIX) + 1)

const char *prog = "lite-graph-dsm";

static const char usage[] =
	"usage: lite-graph-dsm -n NODES --node NODE --run RUN [-s SCALE] [-e EDGE_FACTOR]\n"
	"                      [-S SEED] [-i ITERS] [-q] [--dump FILE]\n"
	"       on each of nodes 1..NODES, with the same RUN (letters, digits, . _ -)\n";

/* The region's first page: what every node must agree on. */
struct dsm_head {
	uint64_t	magic;
	uint64_t	seed;
	uint32_t	scale, edge_factor, iters, nodes;
};

struct dgraph {
	struct graph_opts o;
	struct graph	g;
	unsigned int	me;		/* this node's part: --node - 1 */
	struct lite_dsm	*d;
	char		*base;		/* the region, mapped */
	struct graph_part *parts;
	size_t		*area_off;	/* part p's area in a slot */
	size_t		slot_bytes;
	double		*rank_all, *bsum_all, *contrib, *next_own;
};

static size_t round_page(size_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

/* Part @p's area in slot @s: its iteration + 1, then its ranks. */
static uint64_t *area(const struct dgraph *dg, unsigned int s, unsigned int p)
{
	return (uint64_t *)(dg->base + PAGE + s * dg->slot_bytes +
			    dg->area_off[p]);
}

static double *area_ranks(const struct dgraph *dg, unsigned int s,
			  unsigned int p)
{
	return (double *)(area(dg, s, p) + 1);
}

/* Slot @s, which must hold iteration @iter, into rank_all. */
static void gather(struct dgraph *dg, unsigned int s, uint64_t iter)
{
	struct graph_part *q;
	unsigned int p;
	uint64_t stamp;

	for (p = 0; p < dg->o.nodes; p++) {
		q = &dg->parts[p];
		stamp = *area(dg, s, p);
		if (stamp != iter + 1) {
			fprintf(stderr, "%s: node %u's part in slot %u is of iteration %lld (-1: none yet), not %llu: did a barrier of another run of this user's (or an interrupted one) cross ours?\n",
				prog, p + 1, s, (long long)stamp - 1,
				(unsigned long long)iter);
			exit(1);
		}
		memcpy(dg->rank_all + q->lo, area_ranks(dg, s, p),
		       (q->hi - q->lo) * sizeof(double));
	}
}

/* next_own, iteration @iter, into the own area of slot @s. */
static void scatter(struct dgraph *dg, unsigned int s, uint64_t iter)
{
	struct graph_part *own = &dg->parts[dg->me];

	memcpy(area_ranks(dg, s, dg->me), dg->next_own,
	       (own->hi - own->lo) * sizeof(double));
	*area(dg, s, dg->me) = iter + 1;
}

static void barrier(const struct dgraph *dg, const char *what)
{
	int ret = lite_dsm_barrier(dg->d, dg->o.nodes);

	if (ret < 0)
		die(what, ret);
}

/* Attach the run's region, or exit saying what is likely wrong. */
static void attach(struct dgraph *dg, size_t size)
{
	char name[64];
	const char *hint = "";

	snprintf(name, sizeof(name), NAME_PREFIX "%s", dg->o.run);
	dg->d = lite_dsm_attach(name, size);
	if (!dg->d) {
		if (errno == ENOENT)
			hint = " (no /dev/lite_dsm: is lite_dsm.ko loaded? docs/dsm.md)";
		else if (errno == EACCES)
			hint = " (this user in group lite? a region of another user's?)";
		else if (errno == EINVAL)
			hint = " (a region of that name with another size: another graph or node count?)";
		else if (errno == EFBIG)
			hint = " (over the DSM's limits: docs/dsm.md)";
		else if (errno == ENOTCONN)
			hint = " (is lite.ko loaded and this node joined?)";
		fprintf(stderr, "%s: lite_dsm_attach %s, %zu bytes: %s%s\n",
			prog, name, size, strerror(errno), hint);
		exit(1);
	}
	dg->base = lite_dsm_base(dg->d);
	if (!dg->o.quiet)
		printf("region=%s bytes=%zu\n", name, size);
}

/* The header this node expects. */
static struct dsm_head head_of(const struct dgraph *dg)
{
	return (struct dsm_head) {
		.magic = HEAD_MAGIC, .seed = dg->o.seed, .scale = dg->o.scale,
		.edge_factor = dg->o.edge_factor, .iters = dg->o.iters,
		.nodes = dg->o.nodes,
	};
}

/* After the first barrier: does node 1's header say what we run? */
static void check_head(const struct dgraph *dg)
{
	const struct dsm_head *head = (const struct dsm_head *)dg->base;
	struct dsm_head want = head_of(dg);

	if (memcmp(head, &want, sizeof(want))) {
		fprintf(stderr, "%s: node 1 runs another graph: scale %u edge factor %u seed %llu iterations %u nodes %u (magic %#llx)\n",
			prog, head->scale, head->edge_factor,
			(unsigned long long)head->seed, head->iters,
			head->nodes, (unsigned long long)head->magic);
		exit(1);
	}
}

/* What graph_parse_args cannot check: NULL, or why the line is bad. */
static const char *bad_args(const struct graph_opts *o)
{
	static const char bad_run[] =
		"--run must be 1..48 letters, digits, '.', '_' or '-'";
	const char *c;

	if (!o->nodes || !o->node || !o->run)
		return "-n, --node and --run are needed";
	if (o->node > o->nodes)
		return "--node must be one of 1..NODES";
	if (!*o->run || strlen(o->run) > RUN_MAX)
		return bad_run;
	for (c = o->run; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return bad_run;
	return NULL;
}

int main(int argc, char **argv)
{
	struct pr_phases ph = { 0 };
	uint64_t t[5];
	struct dgraph dg = { 0 };
	unsigned int k, p, nv;
	const char *why;
	double build_s;
	int ret;

	graph_parse_args(argc, argv, &dg.o, GRAPH_DSM, usage);
	why = bad_args(&dg.o);
	if (why) {
		fprintf(stderr, "%s: %s\n%s", prog, why, usage);
		exit(2);
	}
	dg.me = dg.o.node - 1;
	nv = 1U << dg.o.scale;
	dg.parts = calloc(dg.o.nodes, sizeof(*dg.parts));
	dg.area_off = calloc(dg.o.nodes, sizeof(*dg.area_off));
	if (!dg.parts || !dg.area_off)
		die("memory for the parts", ENOMEM);
	for (p = 0; p < dg.o.nodes; p++) {
		dg.parts[p] = graph_part_of(nv, dg.o.nodes, p);
		dg.area_off[p] = dg.slot_bytes;
		dg.slot_bytes += round_page(sizeof(uint64_t) + sizeof(double) *
					    (dg.parts[p].hi - dg.parts[p].lo));
	}
	/* Before the graph: a missing /dev/lite_dsm shows at once. */
	attach(&dg, PAGE + 2 * dg.slot_bytes);

	t[0] = now_ns();
	ret = graph_build(&dg.g, &dg.o, dg.parts[dg.me]);
	if (ret < 0)
		die("graph", ret);
	build_s = (now_ns() - t[0]) / 1e9;
	dg.rank_all = malloc(nv * sizeof(double));
	dg.contrib = malloc(nv * sizeof(double));
	dg.bsum_all = malloc(dg.g.nblocks * sizeof(double));
	/* + 1: a part may be empty, and malloc(0) may return NULL. */
	dg.next_own = malloc((dg.g.own.hi - dg.g.own.lo + 1) * sizeof(double));
	if (!dg.rank_all || !dg.contrib || !dg.bsum_all || !dg.next_own)
		die("memory for the ranks", ENOMEM);
	if (!dg.o.quiet)
		printf("node=%u part=%u/%u vertices=%u..%u in_edges=%llu build_s=%.3f\n",
		       dg.me + 1, dg.me, dg.o.nodes, dg.g.own.lo, dg.g.own.hi,
		       (unsigned long long)dg.g.in_off[dg.g.own.hi - dg.g.own.lo],
		       build_s);

	if (!dg.me)
		*(struct dsm_head *)dg.base = head_of(&dg);
	pr_init(&dg.g, dg.next_own);
	scatter(&dg, 0, 0);
	barrier(&dg, "lite_dsm_barrier (start)");
	check_head(&dg);

	for (k = 0; k < dg.o.iters; k++) {
		t[0] = now_ns();
		gather(&dg, k % 2, k);
		t[1] = now_ns();
		pr_dangling_all(&dg.g, dg.rank_all, dg.bsum_all);
		pr_update(&dg.g, dg.rank_all, dg.bsum_all, dg.contrib,
			  dg.next_own);
		t[2] = now_ns();
		scatter(&dg, (k + 1) % 2, k + 1);
		t[3] = now_ns();
		barrier(&dg, "lite_dsm_barrier");
		t[4] = now_ns();
		pr_phases_add(&ph, k, t, !dg.o.quiet);
	}
	gather(&dg, dg.o.iters % 2, dg.o.iters);

	pr_result(stdout, &dg.o, &dg.g, dg.o.nodes, build_s,
		  pr_phases_ms(&ph, dg.o.iters), dg.rank_all);
	pr_phases_print(stdout, &ph, dg.o.iters);
	if (dg.o.dump) {
		ret = pr_dump(dg.o.dump, &dg.o, dg.rank_all, nv);
		if (ret < 0)
			die(dg.o.dump, ret);
	}
	ret = lite_dsm_detach(dg.d);
	if (ret < 0)
		die("lite_dsm_detach", ret);
	free(dg.next_own);
	free(dg.bsum_all);
	free(dg.contrib);
	free(dg.rank_all);
	free(dg.area_off);
	free(dg.parts);
	graph_free(&dg.g);
	return 0;
}
