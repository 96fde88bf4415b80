/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * LITE-MapReduce: a Phoenix-style MapReduce runtime on LITE. One process
 * per node (nodes 1..N of a joined cluster, one user), worker threads in
 * each; the job is an mr_job (mr_job.h: map, optional combine, reduce).
 *
 * A run, on every node at once (every step after the first ends at a
 * lite_barrier unless said otherwise):
 *
 *   map      the node's splits, taken by its threads one at a time. Each
 *            pair goes to partition (node h % N, group (h / N) % G) of its
 *            key's hash h (mr_hash). With combine, a thread folds its
 *            pairs per key in a table (mr_ctab, mr_job.h) and writes the
 *            table out at the end; without, it appends each pair to its
 *            partition's buffer.
 *   sizes    every node writes how many bytes it has for each (node,
 *            group) into every node's control LMR, so that each knows the
 *            whole matrix: where each piece goes in each receiver's inbox
 *            (group by group, sources in node order), and whether every
 *            inbox has room (else every node stops with the same error).
 *   shuffle  rpc (the default): each node sends its pieces to the
 *            receivers' RPC port (one sender thread per receiver,
 *            lite_rpc_call per 1 MiB message), and a receiver thread
 *            copies them into place; a node goes on once it received the
 *            bytes the matrix promised (no barrier).
 *            write: each node posts its pieces straight into the
 *            receivers' inbox LMRs (lite_post_write, 1 MiB at a time),
 *            then lite_fence; after the barrier a node copies its inbox
 *            out (one local lite_read). Why RPC is the default: the
 *            README's A/B.
 *   reduce   the node's threads take its groups (group g: thread g % T):
 *            each group's records into a table by key, then reduce per
 *            key; the node's output records sorted by key.
 *   merge    each node puts its sorted output into its inbox LMR and its
 *            length into node 1's control LMR; node 1 reads every node's
 *            output (lite_post_read) and merges them into the job's
 *            output. A last barrier lets the others free their LMRs.
 *
 * Records (map output and node output) are a little-endian u32 key
 * length, a u32 value or text length, the key, the value or text.
 * Memory is bounded by the inbox: a node whose partitions (or output) do
 * not fit stops with an error naming the node and the bytes it needed.
 *
 * Failures. The errors a node can see coming (a mismatched peer, a full
 * inbox, an output that does not fit, a corrupt stream at the merge) stop
 * every node at the same step, each with a message. A node that dies, or
 * a LITE call that fails mid-step, leaves the others waiting at their next
 * barrier or receive: as with any lite_barrier user, whoever started the
 * run stops it (the figure's runs have a timeout).
 */
#ifndef LITE_MR_H
#define LITE_MR_H

#include <stdint.h>

#include "mr_job.h"

#define LITE_MR_GROUPS		8U	/* reduce groups per node */
#define LITE_MR_RPC_PORT	41U	/* the rpc shuffle's port */

struct lite_mr_conf {
	unsigned int	nodes, me;	/* me: this node's id - 1 */
	unsigned int	threads;
	int		rpc;		/* shuffle over RPC, not writes */
	int		heap_copy;	/* write: copy the inbox to malloc'ed memory */
	uint64_t	inbox_bytes;	/* shuffle room per node */
	uint64_t	id;		/* LMR identifiers id .. id + 2N - 1 */
	/*
	 * What every node must agree on (the job, its input, the shuffle,
	 * the inbox size), hashed: a node that finds another tag on a peer
	 * stops before the first step, and so does every other node.
	 */
	uint64_t	tag;
};

/* Seconds per phase on this node, and what it moved. */
struct lite_mr_stats {
	double		map_s, shuffle_s, reduce_s, merge_s;
	uint64_t	sent_bytes;	/* map output to other nodes */
	uint64_t	keys;		/* keys this node reduced */
};

struct lite_mr;

/*
 * Allocate and publish this node's LMRs, wait for every node, map theirs.
 * Returns the runtime or exits with a message.
 */
struct lite_mr *lite_mr_init(const struct mr_job *job,
			     const struct lite_mr_conf *conf);

/*
 * Run the job on this node's @n splits (@splits[i] of @lens[i] bytes, split
 * number @first + i). On node 1 the job's output goes to @output and its
 * key count to @keys. Exits with a message on an error.
 */
void lite_mr_run(struct lite_mr *mr, char **splits, const size_t *lens,
		 unsigned int n, unsigned int first, struct mr_text *output,
		 uint64_t *keys, struct lite_mr_stats *st);

/* Unmap the others' LMRs and free this node's. */
void lite_mr_exit(struct lite_mr *mr);

#endif /* LITE_MR_H */
