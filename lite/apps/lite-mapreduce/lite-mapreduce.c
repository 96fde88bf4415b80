// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-mapreduce: a job of mr_job.h on the LITE-MapReduce runtime
 * (lite_mr.h). Run once on each of nodes 1..NODES of a joined cluster, as
 * one user; node n maps splits (n - 1) * S / NODES .. n * S / NODES - 1.
 *
 *   lite-mapreduce [--job wordcount|invindex] [-m MIB] [--chunk KIB]
 *                  [--vocab N] [-S SEED] [-n NODES] [-t THREADS]
 *                  [--shuffle rpc|write] [--inbox MIB]
 *                  [--inbox-copy heap|zerocopy] [--id ID] [-o FILE]
 *
 * The node's splits are made, and the LMRs allocated and mapped, before
 * the clock starts at a barrier of every node. Every node prints
 * "phases map_s=.. shuffle_s=.. reduce_s=.. merge_s=.. sent_bytes=..
 * keys=.." (its own); node 1 also prints the "result ..." line of mr_job.h
 * (seconds: from the start barrier to the merged output in its memory)
 * and writes the output to -o FILE. Exit status 0, or 1 with a
 * "lite-mapreduce: ..." line.
 */
#include <stdlib.h>
#include <string.h>

#include <lite.h>

#include "app_lite.h"
#include "lite_mr.h"

const char *prog = "lite-mapreduce";

static const char usage[] =
	"usage: lite-mapreduce [--job wordcount|invindex] [-m MIB] [--chunk KIB]\n"
	"                      [--vocab N] [-S SEED] [-n NODES] [-t THREADS]\n"
	"                      [--shuffle rpc|write] [--inbox MIB] [--inbox-copy heap|zerocopy]\n"
	"                      [--id ID] [-o FILE]\n"
	"       on each of nodes 1..NODES (default: every node of the cluster)\n";

int main(int argc, char **argv)
{
	struct mr_text output = { 0 };
	struct lite_mr_conf c = { 0 };
	struct lite_mr_stats st;
	unsigned int lo, hi, s;
	char **splits, extra[128];
	struct lite_mr *mr;
	struct mr_opts o;
	uint64_t keys, t0;
	size_t *lens;
	int ret;

	mr_parse_args(argc, argv, &o, MR_PROG_LITE, usage);
	c.nodes = o.nodes;
	c.me = app_node_index(&c.nodes);
	c.threads = o.threads;
	c.rpc = o.rpc;
	c.heap_copy = o.heap_copy;
	c.inbox_bytes = (uint64_t)o.inbox_mib << 20;
	c.id = o.id;
	snprintf(extra, sizeof(extra), "%s %llu %u %u %llu %d %llu", o.job->name,
		 (unsigned long long)o.size, o.chunk_kib, o.vocab,
		 (unsigned long long)o.seed, o.rpc,
		 (unsigned long long)c.inbox_bytes);
	c.tag = mr_hash(extra, strlen(extra));

	t0 = now_ns();
	mr_vocab_init(&o);
	mr_splits_of(&o, c.me, c.nodes, &lo, &hi);
	splits = xmalloc((hi - lo) * sizeof(*splits));
	lens = xmalloc((hi - lo) * sizeof(*lens));
	for (s = lo; s < hi; s++)
		splits[s - lo] = mr_split_make(&o, s, &lens[s - lo]);
	printf("node=%u splits=%u..%u threads=%u shuffle=%s input_s=%.3f\n",
	       c.me + 1, lo, hi, c.threads, c.rpc ? "rpc" : "write",
	       (now_ns() - t0) / 1e9);

	mr = lite_mr_init(o.job, &c);
	lite_mr_run(mr, splits, lens, hi - lo, lo, &output, &keys, &st);
	printf("phases map_s=%.6f shuffle_s=%.6f reduce_s=%.6f merge_s=%.6f sent_bytes=%llu keys=%llu\n",
	       st.map_s, st.shuffle_s, st.reduce_s, st.merge_s,
	       (unsigned long long)st.sent_bytes, (unsigned long long)st.keys);
	if (!c.me) {
		snprintf(extra, sizeof(extra), "shuffle=%s threads=%u inbox_copy=%s",
			 c.rpc ? "rpc" : "write", c.threads,
			 c.heap_copy ? "heap" : "zerocopy");
		mr_result(&o, c.nodes, keys, &output,
			  st.map_s + st.shuffle_s + st.reduce_s + st.merge_s,
			  extra);
		if (o.out) {
			ret = mr_write_output(o.out, &output);
			if (ret < 0)
				die(o.out, ret);
		}
	}
	lite_mr_exit(mr);
	for (s = 0; s < hi - lo; s++)
		free(splits[s]);
	free(splits);
	free(lens);
	mr_text_free(&output);
	return 0;
}
