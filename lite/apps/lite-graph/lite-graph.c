// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-graph: the PageRank of graph.h on LITE, in PowerGraph's
 * gather-apply-scatter style. Run once on each of nodes 1..NODES of a
 * joined cluster, as one user; node n owns part n - 1 (graph_part_of).
 *
 *   lite-graph [-n NODES] [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS]
 *		[--id ID] [--mode pull|push] [--window BYTES] [-q] [--dump FILE]
 *
 * A part's state. The iteration it belongs to, the part's dangling sums per
 * block, then its vertices' ranks:
 *
 *   iteration | bsum[part blocks] | rank[part vertices]
 *
 * Each node allocates one LMR on itself, publishes it under ID + its node
 * id, and keeps two slots in it, for even and odd supersteps. The two
 * modes move the states differently:
 *
 *   pull (default)  a slot holds the own part's state only; published
 *                   read-only. Superstep k:
 *     gather   read slot k % 2 of every other node (lite_post_read in
 *              pieces of --window bytes, default 1 MiB, all nodes at once,
 *              then lite_fence): the whole state of iteration k
 *     apply    compute the own part's new ranks and dangling sums
 *     scatter  write them into the own LMR's slot (k + 1) % 2 (lite_write)
 *     barrier  lite_barrier(NODES)
 *
 *   push            a slot holds every part's state, part p at the sum of
 *                   the states of parts 0 .. p - 1; published writable.
 *     gather   read the own LMR's slot k % 2 (one local lite_read)
 *     apply    as above
 *     scatter  post the own state into slot (k + 1) % 2 of every other
 *              node's LMR (lite_post_write in pieces of --window bytes),
 *              then lite_fence
 *     barrier  lite_barrier(NODES)
 *
 * Why one barrier per superstep is enough: slot (k + 1) % 2 is complete
 * (on every node, or in every node's copy) before anyone passes barrier
 * k, so superstep k + 1 reads whole iteration k + 1 values; and the slot
 * written in superstep k + 1 is the one everybody read in superstep k,
 * which they finished before arriving at barrier k. After the last
 * superstep each node reads the final slots (the ranks of every vertex)
 * and meets the others at one more barrier before its LMR goes with its
 * exit. A gather checks that each state it read holds the iteration it
 * expects: the barrier counts this user's callers with the same count, so
 * a stray one (another run of this user's, an interrupted barrier's spent
 * arrival) would otherwise pass unnoticed.
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

#include "app_lite.h"
#include "graph.h"

#define PASSWORD		0x475248	/* "GRH" */
#define GATHER_TIMEOUT_MS	120000

const char *prog = "lite-graph";

static const char usage[] =
	"usage: lite-graph [-n NODES] [-s SCALE] [-e EDGE_FACTOR] [-S SEED] [-i ITERS]\n"
	"                  [--id ID] [--mode pull|push] [--window BYTES] [-q] [--dump FILE]\n"
	"       on each of nodes 1..NODES (default: every node of the cluster)\n";

/* What this node knows of node @p + 1's part and LMR. */
struct peer {
	struct graph_part part;
	uint64_t	slot_bytes;	/* its part's state */
	uint64_t	push_off;	/* where that state is in a push slot */
	int		lh;
	double		*head;		/* a state's iteration and bsum, read */
};

struct lgraph {
	struct graph_opts o;
	struct graph	g;
	unsigned int	nodes, me;	/* me: this node's part, node id - 1 */
	struct peer	*peers;
	double		*rank_all, *bsum_all, *contrib;
	double		*slot;		/* the own state: iteration | bsum | rank */
	double		*inbox;		/* push: a whole slot, read locally */
	uint64_t	lmr_slot;	/* bytes per slot of the own LMR */
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

/* Post reads (or writes, @write) of @size bytes at @off, @window at a time. */
static int post_range(int lh, uint64_t off, void *buf, uint64_t size,
		      uint64_t window, int write)
{
	return app_post_range(lh, off, buf, size, window, PASSWORD, write,
			      GATHER_TIMEOUT_MS);
}

/* Bytes per slot of @q's LMR: its own state (pull), or every part's. */
static uint64_t lmr_slot_of(const struct lgraph *lg, const struct peer *q)
{
	return lg->o.push ? lg->lmr_slot : q->slot_bytes;
}

/* Bytes of a part's iteration and dangling sums. */
static uint64_t head_bytes(const struct peer *q)
{
	return (1 + q->part.bhi - q->part.blo) * sizeof(double);
}

/* Pull: read every other node's slot @s into rank_all and the heads. */
static int pull(struct lgraph *lg, unsigned int s)
{
	uint64_t base;
	struct peer *q;
	unsigned int p;
	int ret;

	for (p = 0; p < lg->nodes; p++) {
		q = &lg->peers[p];
		if (p == lg->me)
			continue;
		base = s * q->slot_bytes;
		ret = post_range(q->lh, base, q->head, head_bytes(q),
				 lg->o.window, 0);
		if (ret < 0)
			return ret;
		ret = post_range(q->lh, base + head_bytes(q),
				 lg->rank_all + q->part.lo,
				 (q->part.hi - q->part.lo) * sizeof(double),
				 lg->o.window, 0);
		if (ret < 0)
			return ret;
	}
	return lite_fence(GATHER_TIMEOUT_MS);
}

/* Push: peer @q's state from the own LMR's slot, read into inbox. */
static void unpack(struct lgraph *lg, struct peer *q)
{
	memcpy(q->head, (char *)lg->inbox + q->push_off, head_bytes(q));
	memcpy(lg->rank_all + q->part.lo,
	       (char *)lg->inbox + q->push_off + head_bytes(q),
	       (q->part.hi - q->part.lo) * sizeof(double));
}

/*
 * The state of every other part in slot @s, which must be iteration @iter,
 * into rank_all and bsum_all. Exits when a state is of another iteration.
 */
static int gather(struct lgraph *lg, unsigned int s, uint64_t iter)
{
	struct peer *q;
	unsigned int p;
	int ret;

	/* Push: the others' states are in the own LMR's slot @s, at hand. */
	if (lg->o.push)
		ret = lite_read(lg->peers[lg->me].lh, s * lg->lmr_slot,
				lg->inbox, lg->lmr_slot, PASSWORD,
				LITE_PRIO_NORMAL);
	else
		ret = pull(lg, s);
	if (ret < 0)
		return ret;
	for (p = 0; p < lg->nodes; p++) {
		q = &lg->peers[p];
		if (p == lg->me)
			continue;
		if (lg->o.push)
			unpack(lg, q);
		if (slot_iter(q->head) != iter) {
			fprintf(stderr, "%s: node %u's state in slot %u is of iteration %llu, not %llu: did a barrier of another run of this user's (or an interrupted one) cross ours?\n",
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
 * Put the own state of iteration @iter where the others read it in slot @s
 * (pull: the own LMR; push: every other node's), and into the gathered
 * state.
 */
static int scatter(struct lgraph *lg, unsigned int s, uint64_t iter)
{
	struct peer *own = &lg->peers[lg->me];
	unsigned int p;
	int ret;

	memcpy(lg->slot, &iter, sizeof(iter));
	if (!lg->o.push) {
		ret = lite_write(own->lh, s * lg->lmr_slot, lg->slot,
				 own->slot_bytes, PASSWORD, LITE_PRIO_NORMAL);
	} else {
		for (p = 0; p < lg->nodes; p++) {
			if (p == lg->me)
				continue;
			ret = post_range(lg->peers[p].lh,
					 s * lg->lmr_slot + own->push_off,
					 lg->slot, own->slot_bytes,
					 lg->o.window, 1);
			if (ret < 0)
				return ret;
		}
		ret = lite_fence(GATHER_TIMEOUT_MS);
	}
	if (ret < 0)
		return ret;
	memcpy(lg->bsum_all + own->part.blo, lg->slot + 1,
	       lg->nb_own * sizeof(double));
	memcpy(lg->rank_all + own->part.lo, lg->slot + 1 + lg->nb_own,
	       lg->nv_own * sizeof(double));
	return 0;
}

/* lite_barrier of the run's nodes, or exit naming @what. */
static void barrier(const struct lgraph *lg, const char *what)
{
	int ret = lite_barrier(lg->nodes);

	if (ret < 0)
		die(what, ret);
}

/* Map the LMR node @p + 1 published (@perm), and check it is this run's. */
static void map_peer(struct lgraph *lg, unsigned int p, unsigned int perm)
{
	struct peer *q = &lg->peers[p];
	unsigned int node = p + 1;
	uint64_t size;
	int ret;

	ret = lite_ask(node, lg->o.id + node, perm, PASSWORD);
	if (ret < 0) {
		fprintf(stderr, "%s: lite_ask node %u id %#llx: %s\n",
			prog, node, (unsigned long long)(lg->o.id + node),
			strerror(-ret));
		exit(1);
	}
	q->lh = ret;
	size = app_lmr_size(q->lh);
	if (size < 2 * lmr_slot_of(lg, q)) {
		fprintf(stderr, "%s: node %u's LMR has %llu bytes, not %llu: another graph, node count or mode?\n",
			prog, node, (unsigned long long)size,
			(unsigned long long)(2 * lmr_slot_of(lg, q)));
		exit(1);
	}
}

/*
 * Allocate and publish the own LMR, map everyone else's, and put state 0
 * in slot 0 (pull: before the first barrier, which then says every node
 * published it; push: after mapping, then a second barrier).
 */
static void setup(struct lgraph *lg)
{
	unsigned int perm = lg->o.push ? LITE_PERM_WRITE : LITE_PERM_READ;
	struct peer *own = &lg->peers[lg->me];
	unsigned int p;
	int ret;

	ret = lite_alloc(lg->me + 1, 2 * lg->lmr_slot, 0, PASSWORD);
	if (ret < 0)
		die("lite_alloc", ret);
	own->lh = ret;
	ret = lite_publish(own->lh, lg->o.id + lg->me + 1, perm, PASSWORD);
	if (ret < 0)
		die("lite_publish", ret);

	pr_init(&lg->g, lg->slot + 1 + lg->nb_own);
	pr_block_dangling(&lg->g, lg->slot + 1 + lg->nb_own, lg->slot + 1);
	if (!lg->o.push) {
		ret = scatter(lg, 0, 0);
		if (ret < 0)
			die("write slot 0", ret);
	}
	barrier(lg, "lite_barrier (start)");

	for (p = 0; p < lg->nodes; p++)
		if (p != lg->me)
			map_peer(lg, p, perm);
	if (lg->o.push) {
		ret = scatter(lg, 0, 0);
		if (ret < 0)
			die("push slot 0", ret);
		barrier(lg, "lite_barrier (state 0)");
	}
}

int main(int argc, char **argv)
{
	struct pr_phases ph = { 0 };
	uint64_t t[5];
	struct lgraph lg = { 0 };
	double build_s;
	unsigned int k, p;
	int ret;

	graph_parse_args(argc, argv, &lg.o, GRAPH_LITE, usage);
	lg.nodes = lg.o.nodes;
	lg.me = app_node_index(&lg.nodes);

	t[0] = now_ns();
	ret = graph_build(&lg.g, &lg.o,
			  graph_part_of(1U << lg.o.scale, lg.nodes, lg.me));
	if (ret < 0)
		die("graph", ret);
	build_s = (now_ns() - t[0]) / 1e9;
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
		lg.peers[p].push_off = lg.lmr_slot;
		if (lg.o.push || p == lg.me)
			lg.lmr_slot += lg.peers[p].slot_bytes;
		lg.peers[p].head = malloc(head_bytes(&lg.peers[p]));
		if (!lg.peers[p].head)
			die("memory for the ranks", ENOMEM);
	}
	if (lg.o.push) {
		lg.inbox = malloc(lg.lmr_slot);
		if (!lg.inbox)
			die("memory for the ranks", ENOMEM);
	}
	if (!lg.o.quiet)
		printf("node=%u part=%u/%u vertices=%u..%u in_edges=%llu build_s=%.3f\n",
		       lg.me + 1, lg.me, lg.nodes, lg.g.own.lo, lg.g.own.hi,
		       (unsigned long long)lg.g.in_off[lg.nv_own], build_s);
	setup(&lg);

	for (k = 0; k < lg.o.iters; k++) {
		t[0] = now_ns();
		ret = gather(&lg, k % 2, k);
		if (ret < 0)
			die("gather", ret);
		t[1] = now_ns();
		pr_update(&lg.g, lg.rank_all, lg.bsum_all, lg.contrib,
			  lg.slot + 1 + lg.nb_own);
		pr_block_dangling(&lg.g, lg.slot + 1 + lg.nb_own, lg.slot + 1);
		t[2] = now_ns();
		ret = scatter(&lg, (k + 1) % 2, k + 1);
		if (ret < 0)
			die("scatter", ret);
		t[3] = now_ns();
		barrier(&lg, "lite_barrier");
		t[4] = now_ns();
		pr_phases_add(&ph, k, t, !lg.o.quiet);
	}

	/* The final ranks of every part; then nobody needs our LMR. */
	ret = gather(&lg, lg.o.iters % 2, lg.o.iters);
	if (ret < 0)
		die("gather (final)", ret);
	barrier(&lg, "lite_barrier (end)");

	pr_result(stdout, &lg.o, &lg.g, lg.nodes, build_s,
		  pr_phases_ms(&ph, lg.o.iters), lg.rank_all);
	pr_phases_print(stdout, &ph, lg.o.iters);
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
	free(lg.inbox);
	free(lg.slot);
	free(lg.bsum_all);
	free(lg.contrib);
	free(lg.rank_all);
	free(lg.peers);
	graph_free(&lg.g);
	return 0;
}
