// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-graph: the PageRank of graph.h on LITE, in PowerGraph's
 * gather-apply-scatter style. Run once on each of nodes 1..NODES of a
 * joined cluster, as one user; node n owns part n - 1 (graph_part_of).
 *
 *   lite-graph [-n NODES] [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS]
 *		[--id ID] [-q] [--dump FILE]
 *
 * Vertex data. Each node allocates one LMR on itself and publishes it
 * (read-only) under ID + its node id. It holds two slots, for even and odd
 * supersteps; a slot is the iteration whose state it holds, the part's
 * dangling sums per block, then its vertices' ranks:
 *
 *   slot s at s * slot_bytes:  iteration | bsum[part blocks] | rank[part vertices]
 *
 * Superstep k, on every node:
 *   gather   read slot k % 2 of every other node (lite_post_read in pieces
 *            of up to 1 MiB, all nodes at once, then lite_fence): the whole
 *            state of iteration k
 *   apply    compute the own part's new ranks and dangling sums
 *   scatter  write them into the own LMR's slot (k + 1) % 2 (one lite_write)
 *   barrier  lite_barrier(NODES)
 *
 * Why one barrier per superstep is enough: slot (k + 1) % 2 is complete on
 * every node before anyone passes barrier k, so superstep k + 1 reads whole
 * iteration k + 1 values; and the slot a node overwrites in superstep k + 1
 * is the one everybody read in superstep k, which they finished before
 * arriving at barrier k. After the last superstep each node reads the final
 * slots (the ranks of every vertex) and meets the others at one more
 * barrier before its LMR goes with its exit. A gather checks that each slot
 * it read holds the iteration it expects: the barrier counts this user's
 * callers with the same count, so a stray one (another run of this user's,
 * an interrupted barrier's spent arrival) would otherwise pass unnoticed.
 *
 * Prints "iter=K ms=T gather_ms=G apply_ms=A scatter_ms=W barrier_ms=B"
 * per superstep (not with -q), then the "result ..." line of graph.h
 * (pr_result) and "phases ..." (the phases' averages). --dump FILE writes
 * the final ranks. Exit status 0, or 1 with a "lite-graph: ..." line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lite.h>

#include "graph.h"

#define PASSWORD		0x475248	/* "GRH" */
#define GATHER_TIMEOUT_MS	120000

const char *prog = "lite-graph";

static const char usage[] =
	"usage: lite-graph [-n NODES] [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS]\n"
	"                  [--id ID] [-q] [--dump FILE]\n"
	"       on each of nodes 1..NODES (default: every node of the cluster)\n";

/* What this node knows of node @p + 1's part and LMR. */
struct peer {
	struct graph_part part;
	uint64_t	slot_bytes;
	int		lh;
	double		*head;		/* a slot's iteration and bsum, read */
};

struct lgraph {
	struct graph_opts o;
	struct graph	g;
	unsigned int	nodes, me;	/* me: this node's part, node id - 1 */
	struct peer	*peers;
	double		*rank_all, *bsum_all, *contrib;
	double		*slot;		/* the own slot: iteration | bsum | rank */
	uint32_t	nb_own, nv_own;
};

static uint64_t slot_bytes(struct graph_part p)
{
	return (1 + (uint64_t)(p.bhi - p.blo) + (p.hi - p.lo)) * sizeof(double);
}

/* The iteration a slot holds, in its first 8 bytes. */
static uint64_t slot_iter(const double *slot)
{
	uint64_t it;

	memcpy(&it, slot, sizeof(it));
	return it;
}

/* Post reads of @size bytes at @off into @buf, in pieces LITE takes. */
static int post_range(int lh, uint64_t off, void *buf, uint64_t size)
{
	uint64_t piece;
	int ret;

	while (size) {
		piece = size < LITE_ASYNC_MAX_SIZE ? size : LITE_ASYNC_MAX_SIZE;
		ret = lite_post_read(lh, off, buf, piece, PASSWORD, 0);
		if (ret == -EAGAIN) {
			/* Too much in flight: let it land, then go on. */
			ret = lite_fence(GATHER_TIMEOUT_MS);
			if (ret < 0)
				return ret;
			continue;
		}
		if (ret < 0)
			return ret;
		off += piece;
		buf = (char *)buf + piece;
		size -= piece;
	}
	return 0;
}

/*
 * Read slot @s of every other node, which must hold iteration @iter, into
 * rank_all and bsum_all. Exits when a slot holds another iteration.
 */
static int gather(struct lgraph *lg, unsigned int s, uint64_t iter)
{
	uint64_t base, head;
	struct peer *q;
	unsigned int p;
	int ret;

	for (p = 0; p < lg->nodes; p++) {
		q = &lg->peers[p];
		if (p == lg->me)
			continue;
		base = s * q->slot_bytes;
		head = (1 + q->part.bhi - q->part.blo) * sizeof(double);
		ret = post_range(q->lh, base, q->head, head);
		if (ret < 0)
			return ret;
		ret = post_range(q->lh, base + head, lg->rank_all + q->part.lo,
				 (q->part.hi - q->part.lo) * sizeof(double));
		if (ret < 0)
			return ret;
	}
	ret = lite_fence(GATHER_TIMEOUT_MS);
	if (ret < 0)
		return ret;
	for (p = 0; p < lg->nodes; p++) {
		q = &lg->peers[p];
		if (p == lg->me)
			continue;
		if (slot_iter(q->head) != iter) {
			fprintf(stderr, "%s: node %u's slot %u holds iteration %llu, not %llu: did a barrier of another run of this user's (or an interrupted one) cross ours?\n",
				prog, p + 1, s,
				(unsigned long long)slot_iter(q->head),
				(unsigned long long)iter);
			exit(1);
		}
		memcpy(lg->bsum_all + q->part.blo, q->head + 1,
		       (q->part.bhi - q->part.blo) * sizeof(double));
	}
	return 0;
}

/*
 * Write the own state of iteration @iter to slot @s of the own LMR, and to
 * the gathered state.
 */
static int scatter(struct lgraph *lg, unsigned int s, uint64_t iter)
{
	struct peer *own = &lg->peers[lg->me];
	int ret;

	memcpy(lg->slot, &iter, sizeof(iter));
	ret = lite_write(own->lh, s * own->slot_bytes, lg->slot,
			 own->slot_bytes, PASSWORD, LITE_PRIO_NORMAL);
	if (ret < 0)
		return ret;
	memcpy(lg->bsum_all + own->part.blo, lg->slot + 1,
	       lg->nb_own * sizeof(double));
	memcpy(lg->rank_all + own->part.lo, lg->slot + 1 + lg->nb_own,
	       lg->nv_own * sizeof(double));
	return 0;
}

/* Allocate and publish the own LMR, map everyone else's. */
static void setup(struct lgraph *lg)
{
	struct peer *own = &lg->peers[lg->me];
	unsigned int p, node;
	uint64_t size;
	int ret;

	ret = lite_alloc(lg->me + 1, 2 * own->slot_bytes, 0, PASSWORD);
	if (ret < 0)
		die("lite_alloc", ret);
	own->lh = ret;
	ret = lite_publish(own->lh, lg->o.id + lg->me + 1, LITE_PERM_READ,
			   PASSWORD);
	if (ret < 0)
		die("lite_publish", ret);

	/* State 0 in slot 0; the barrier says every node published it. */
	pr_init(&lg->g, lg->slot + 1 + lg->nb_own);
	pr_block_dangling(&lg->g, lg->slot + 1 + lg->nb_own, lg->slot + 1);
	ret = scatter(lg, 0, 0);
	if (ret < 0)
		die("write slot 0", ret);
	ret = lite_barrier(lg->nodes);
	if (ret < 0)
		die("lite_barrier (start)", ret);

	for (p = 0; p < lg->nodes; p++) {
		if (p == lg->me)
			continue;
		node = p + 1;
		ret = lite_ask(node, lg->o.id + node, LITE_PERM_READ, PASSWORD);
		if (ret < 0) {
			fprintf(stderr, "%s: lite_ask node %u id %#llx: %s\n",
				prog, node,
				(unsigned long long)(lg->o.id + node),
				strerror(-ret));
			exit(1);
		}
		lg->peers[p].lh = ret;
		ret = lite_lmr_info(lg->peers[p].lh, NULL, &size, NULL);
		if (ret < 0)
			die("lite_lmr_info", ret);
		if (size < 2 * lg->peers[p].slot_bytes) {
			fprintf(stderr, "%s: node %u's LMR has %llu bytes, not %llu: another graph or node count?\n",
				prog, node, (unsigned long long)size,
				(unsigned long long)(2 * lg->peers[p].slot_bytes));
			exit(1);
		}
	}
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

int main(int argc, char **argv)
{
	uint64_t t0, t1, t2, t3, t4, sum[4] = { 0 }, total = 0;
	struct lgraph lg = { 0 };
	double build_s;
	unsigned int k, p;
	int ret, id;

	graph_parse_args(argc, argv, &lg.o, 1, usage);
	id = lite_node_id();
	if (id < 0)
		die("lite_node_id (is lite.ko loaded and this node joined?)", id);
	lg.nodes = lg.o.nodes;
	if (!lg.nodes) {
		ret = lite_nr_nodes();
		if (ret < 0)
			die("lite_nr_nodes", ret);
		lg.nodes = ret;
	}
	if ((unsigned int)id > lg.nodes) {
		fprintf(stderr, "%s: this is node %d, the parts are on nodes 1..%u\n",
			prog, id, lg.nodes);
		return 1;
	}
	lg.me = id - 1;

	t0 = now_ns();
	ret = graph_build(&lg.g, &lg.o,
			  graph_part_of(1U << lg.o.scale, lg.nodes, lg.me));
	if (ret < 0)
		die("graph", ret);
	build_s = (now_ns() - t0) / 1e9;
	lg.peers = calloc(lg.nodes, sizeof(*lg.peers));
	lg.rank_all = malloc(lg.g.nv * sizeof(double));
	lg.contrib = malloc(lg.g.nv * sizeof(double));
	lg.bsum_all = malloc(lg.g.nblocks * sizeof(double));
	lg.nb_own = lg.g.own.bhi - lg.g.own.blo;
	lg.nv_own = lg.g.own.hi - lg.g.own.lo;
	lg.slot = malloc((1 + lg.nb_own + lg.nv_own) * sizeof(double));
	if (!lg.peers || !lg.rank_all || !lg.contrib || !lg.bsum_all ||
	    !lg.slot)
		die("memory for the ranks", ENOMEM);
	for (p = 0; p < lg.nodes; p++) {
		lg.peers[p].part = graph_part_of(lg.g.nv, lg.nodes, p);
		lg.peers[p].slot_bytes = slot_bytes(lg.peers[p].part);
		lg.peers[p].head = malloc(sizeof(double) *
			(1 + lg.peers[p].part.bhi - lg.peers[p].part.blo));
		if (!lg.peers[p].head)
			die("memory for the ranks", ENOMEM);
	}
	if (!lg.o.quiet)
		printf("node=%d part=%u/%u vertices=%u..%u in_edges=%llu build_s=%.3f\n",
		       id, lg.me, lg.nodes, lg.g.own.lo, lg.g.own.hi,
		       (unsigned long long)lg.g.in_off[lg.nv_own], build_s);
	setup(&lg);

	for (k = 0; k < lg.o.iters; k++) {
		t0 = now_ns();
		ret = gather(&lg, k % 2, k);
		if (ret < 0)
			die("gather", ret);
		t1 = now_ns();
		pr_update(&lg.g, lg.rank_all, lg.bsum_all, lg.contrib,
			  lg.slot + 1 + lg.nb_own);
		pr_block_dangling(&lg.g, lg.slot + 1 + lg.nb_own, lg.slot + 1);
		t2 = now_ns();
		ret = scatter(&lg, (k + 1) % 2, k + 1);
		if (ret < 0)
			die("scatter", ret);
		t3 = now_ns();
		ret = lite_barrier(lg.nodes);
		if (ret < 0)
			die("lite_barrier", ret);
		t4 = now_ns();
		sum[0] += t1 - t0;
		sum[1] += t2 - t1;
		sum[2] += t3 - t2;
		sum[3] += t4 - t3;
		total += t4 - t0;
		if (!lg.o.quiet)
			printf("iter=%u ms=%.3f gather_ms=%.3f apply_ms=%.3f scatter_ms=%.3f barrier_ms=%.3f\n",
			       k, ms(t4 - t0), ms(t1 - t0), ms(t2 - t1),
			       ms(t3 - t2), ms(t4 - t3));
	}

	/* The final ranks of every part; then nobody needs our LMR. */
	ret = gather(&lg, lg.o.iters % 2, lg.o.iters);
	if (ret < 0)
		die("gather (final)", ret);
	ret = lite_barrier(lg.nodes);
	if (ret < 0)
		die("lite_barrier (end)", ret);

	pr_result(stdout, &lg.o, &lg.g, lg.nodes, build_s,
		  ms(total) / lg.o.iters, lg.rank_all);
	printf("phases gather_ms=%.3f apply_ms=%.3f scatter_ms=%.3f barrier_ms=%.3f\n",
	       ms(sum[0]) / lg.o.iters, ms(sum[1]) / lg.o.iters,
	       ms(sum[2]) / lg.o.iters, ms(sum[3]) / lg.o.iters);
	if (lg.o.dump) {
		ret = pr_dump(lg.o.dump, &lg.o, lg.rank_all, lg.g.nv);
		if (ret < 0)
			die(lg.o.dump, ret);
	}

	for (p = 0; p < lg.nodes; p++)
		if (p != lg.me && lite_unmap(lg.peers[p].lh) < 0)
			die("lite_unmap", errno);
	if (lite_free(lg.peers[lg.me].lh) < 0)
		die("lite_free", errno);
	for (p = 0; p < lg.nodes; p++)
		free(lg.peers[p].head);
	free(lg.slot);
	free(lg.bsum_all);
	free(lg.contrib);
	free(lg.rank_all);
	free(lg.peers);
	graph_free(&lg.g);
	return 0;
}
