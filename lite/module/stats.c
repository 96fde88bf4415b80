// SPDX-License-Identifier: GPL-2.0
/*
 * Counters of what LITE did since the module was loaded, for people and
 * tests to read in /sys/kernel/debug/lite/counters ("name value" lines):
 * where atomics ran, how waits for reads and writes ended (polling or
 * asleep), and control messages by type, sent and served; and
 * per peer in /sys/kernel/debug/lite/peers (a header, then one row per
 * node id with anything to count; a node that leaves and rejoins keeps
 * its row). 'lite-ae stats' collects both from every host.
 */
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "lite_priv.h"
#include "wire_check.h"

static const char *const lite_stat_names[LITE_STAT_NR] = {
	[LITE_STAT_ATOMIC_NIC]		= "atomic_wr_remote",
	[LITE_STAT_ATOMIC_LOOPBACK]	= "atomic_wr_loopback",
	[LITE_STAT_ATOMIC_CPU]		= "atomic_cpu",
	[LITE_STAT_OP_WAIT_SPUN]	= "op_wait_spun",
	[LITE_STAT_OP_WAIT_SLEPT]	= "op_wait_slept",
	[LITE_STAT_CQ_EVENTS]		= "cq_events",
};

static const char *const lite_peer_stat_names[LITE_PSTAT_NR] = {
	[LITE_PSTAT_RDMA_OPS]		= "rdma_ops",
	[LITE_PSTAT_RDMA_BYTES]		= "rdma_bytes",
	[LITE_PSTAT_RPC_SENT]		= "rpc_sent",
	[LITE_PSTAT_RPC_BYTES]		= "rpc_bytes",
	[LITE_PSTAT_RING_FULL]		= "ring_full",
	[LITE_PSTAT_TIMEOUTS]		= "timeouts",
	[LITE_PSTAT_REVOKED]		= "revoked",
	[LITE_PSTAT_CTRL_SENT]		= "ctrl_sent",
	[LITE_PSTAT_CTRL_DROPPED]	= "ctrl_dropped",
	[LITE_PSTAT_CTRL_RESENT]	= "ctrl_resent",
	[LITE_PSTAT_RDMA_RETRIED]	= "rdma_retried",
};

/* Per CPU: the wait of every read and write adds to them. */
struct lite_counts {
	u64 v[LITE_STAT_NR];
};
static DEFINE_PER_CPU(struct lite_counts, lite_stats);
/* Per CPU: every one-sided WR and RPC message adds to them. */
struct lite_peer_counts {
	u64 v[LITE_MAX_NODES][LITE_PSTAT_NR];
};
static struct lite_peer_counts __percpu *lite_peer_counts;
static atomic64_t lite_ctrl_sent[LITE_CTRL_NR_TYPES];
static atomic64_t lite_ctrl_served[LITE_CTRL_NR_TYPES];

void lite_stat_inc(enum lite_stat stat)
{
	this_cpu_inc(lite_stats.v[stat]);
}

/* A request of @type sent (@served false) or served; type checked already. */
void lite_stat_ctrl(u16 type, bool served)
{
	if (type && type < LITE_CTRL_NR_TYPES)
		atomic64_inc(served ? &lite_ctrl_served[type] :
			     &lite_ctrl_sent[type]);
}

int lite_stats_init(void)
{
	lite_peer_counts = alloc_percpu(struct lite_peer_counts);
	return lite_peer_counts ? 0 : -ENOMEM;
}

void lite_stats_exit(void)
{
	free_percpu(lite_peer_counts);
}

/* @n more of @stat for node @node (ignored when @node is not a node id). */
void lite_stat_peer(u16 node, enum lite_peer_stat stat, u64 n)
{
	if (node && node < LITE_MAX_NODES)
		this_cpu_add(lite_peer_counts->v[node][stat], n);
}

int lite_peer_stats_show(struct seq_file *m, void *unused)
{
	u64 v[LITE_PSTAT_NR], any;
	unsigned int node, i;
	int cpu;

	seq_puts(m, "node");
	for (i = 0; i < LITE_PSTAT_NR; i++)
		seq_printf(m, " %s", lite_peer_stat_names[i]);
	seq_putc(m, '\n');
	for (node = 1; node < LITE_MAX_NODES; node++) {
		any = 0;
		for (i = 0; i < LITE_PSTAT_NR; i++) {
			v[i] = 0;
			for_each_possible_cpu(cpu)
				v[i] += per_cpu_ptr(lite_peer_counts, cpu)->v[node][i];
			any |= v[i];
		}
		if (!any)
			continue;
		seq_printf(m, "%u", node);
		for (i = 0; i < LITE_PSTAT_NR; i++)
			seq_printf(m, " %llu", v[i]);
		seq_putc(m, '\n');
	}
	return 0;
}

int lite_stats_show(struct seq_file *m, void *unused)
{
	unsigned int i;
	u64 v;
	int cpu;

	for (i = 0; i < LITE_STAT_NR; i++) {
		v = 0;
		for_each_possible_cpu(cpu)
			v += per_cpu(lite_stats, cpu).v[i];
		seq_printf(m, "%s %llu\n", lite_stat_names[i], v);
	}
	for (i = 1; i < LITE_CTRL_NR_TYPES; i++) {
		const char *name = lite_ctrl_types[i].name ?: "unnamed";

		seq_printf(m, "ctrl_sent_%s %lld\nctrl_served_%s %lld\n",
			   name, atomic64_read(&lite_ctrl_sent[i]),
			   name, atomic64_read(&lite_ctrl_served[i]));
	}
	return 0;
}
