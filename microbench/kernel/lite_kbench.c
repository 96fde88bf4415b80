// SPDX-License-Identifier: GPL-2.0
/*
 * lite_kbench: LITE's one-sided latency from kernel space, the curve
 * beside lite_bench's user-space one. On load it allocates an LMR on
 * @node, times @iters synchronous liteapi_rdma_{write,read}_offset() calls
 * per size and repetition (after @warmup_ms untimed), and keeps the result
 * as lite_bench-format CSV in /proc/lite_kbench until it is unloaded:
 *
 *   insmod lite_kbench.ko node=2 ops=write,read sizes=8,64,4096 iters=1000
 *   cat /proc/lite_kbench; rmmod lite_kbench
 *
 * With samples=1, every timed operation's latency (ns, in the order taken)
 * is also kept in /proc/lite_kbench_samples, one "bench,op,size,param,rep,ns"
 * line each (lite_bench --samples' format).
 *
 * Load fails with the errno of the first failing call. The local buffer is
 * kvmalloc'd kernel memory, which LITE's kernel API copies, as an in-kernel
 * user's buffer would be.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "../../lite/include/lite_kapi.h"

#define KB_PASSWORD	4711
#define KB_MAX_SIZES	32
#define KB_MAX_SIZE	(64U << 20)
#define KB_HEADER_MAX	2048	/* the provenance lines and the CSV header */
#define KB_ROW_MAX	128	/* one CSV row */
#define KB_SAMPLE_MAX	64	/* one line of the samples file */

static unsigned int node = 2;
module_param(node, uint, 0444);
MODULE_PARM_DESC(node, "LITE node holding the LMR (default: 2)");

static char *ops = "write,read";
module_param(ops, charp, 0444);
MODULE_PARM_DESC(ops, "comma-separated: write, read (default: write,read)");

static char *sizes = "8,64,512,4096,65536";
module_param(sizes, charp, 0444);
MODULE_PARM_DESC(sizes, "comma-separated sizes in bytes, up to 64 MiB");

static unsigned int iters = 1000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "timed operations per size and repetition (default: 1000)");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "repetitions of each point (default: 3)");

static unsigned int warmup_ms = 500;
module_param(warmup_ms, uint, 0444);
MODULE_PARM_DESC(warmup_ms, "untimed operations before each repetition (default: 500)");

static bool samples;
module_param(samples, bool, 0444);
MODULE_PARM_DESC(samples, "keep every sample in /proc/lite_kbench_samples (default: 0)");

struct kb_run {
	u32 sizes[KB_MAX_SIZES];
	unsigned int nsizes;
	bool op[2];		/* [0] write, [1] read */
	u64 *ns;
	void *buf;
	int lh;
	char *out;		/* the CSV, NUL-terminated */
	size_t len, size;
	char *samp;		/* with samples=1: every sample */
	size_t slen, ssize;
};

static struct kb_run run;
static struct proc_dir_entry *kb_proc, *kb_sproc;

static const char *const kb_op_names[] = { "write", "read" };

static __printf(1, 2) void kb_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run.len += vscnprintf(run.out + run.len, run.size - run.len, fmt, ap);
	va_end(ap);
}

static __printf(1, 2) void kb_sout(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run.slen += vscnprintf(run.samp + run.slen, run.ssize - run.slen, fmt, ap);
	va_end(ap);
}

static int kb_parse(void)
{
	char *list, *p, *tok;
	int i, ret = 0;

	list = kstrdup(ops, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (p = list; (tok = strsep(&p, ",")) && !ret;) {
		i = match_string(kb_op_names, ARRAY_SIZE(kb_op_names), tok);
		if (i < 0)
			ret = -EINVAL;
		else
			run.op[i] = true;
	}
	kfree(list);
	if (ret) {
		pr_err("lite_kbench: ops: '%s' is not a list of write, read\n", ops);
		return ret;
	}
	list = kstrdup(sizes, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (p = list; (tok = strsep(&p, ",")) && !ret;) {
		if (run.nsizes == KB_MAX_SIZES ||
		    kstrtou32(tok, 0, &run.sizes[run.nsizes]) ||
		    !run.sizes[run.nsizes] || run.sizes[run.nsizes] > KB_MAX_SIZE)
			ret = -EINVAL;
		else
			run.nsizes++;
	}
	kfree(list);
	if (ret || !run.nsizes) {
		pr_err("lite_kbench: sizes: '%s': up to %d sizes of 1..%u bytes\n",
		       sizes, KB_MAX_SIZES, KB_MAX_SIZE);
		return -EINVAL;
	}
	if (!iters || iters > 10000000 || !reps || reps > 100) {
		pr_err("lite_kbench: iters must be 1..10000000, reps 1..100\n");
		return -EINVAL;
	}
	return 0;
}

static int kb_op(int op, u32 size)
{
	return op ? liteapi_rdma_read_offset(run.lh, run.buf, size,
					     LITE_PRIO_NORMAL, 0, KB_PASSWORD) :
		    liteapi_rdma_write_offset(run.lh, run.buf, size,
					      LITE_PRIO_NORMAL, 0, KB_PASSWORD);
}

static int kb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorted samples: the same indices as microbench/common.c's statistics. */
static void kb_row(int op, u32 size, unsigned int rep)
{
	u64 *s = run.ns, n = iters;
	u64 pick[5] = {
		s[0], s[n / 2], s[(n * 990 + 999) / 1000 - 1],
		s[(n * 999 + 999) / 1000 - 1], s[n - 1],
	};
	unsigned int i;

	kb_out("lite_kernel,%s,%u,0,%u,%u", kb_op_names[op], size, rep, iters);
	for (i = 0; i < ARRAY_SIZE(pick); i++)
		kb_out(",%llu.%03llu", pick[i] / 1000, pick[i] % 1000);
	kb_out("\n");
}

static int kb_point(int op, u32 size, unsigned int rep)
{
	u64 end = ktime_get_ns() + (u64)warmup_ms * NSEC_PER_MSEC, t;
	unsigned int i;
	int ret;

	for (i = 0; i < iters; ) {
		t = ktime_get_ns();
		ret = kb_op(op, size);
		if (t >= end)
			run.ns[i++] = ktime_get_ns() - t;
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		if (ret) {
			pr_err("lite_kbench: %s of %u bytes on node %u: %d\n",
			       kb_op_names[op], size, node, ret);
			return ret;
		}
		cond_resched();
	}
	for (i = 0; samples && i < iters; i++)
		kb_sout("lite_kernel,%s,%u,0,%u,%llu\n", kb_op_names[op], size,
			rep, run.ns[i]);
	sort(run.ns, iters, sizeof(*run.ns), kb_cmp, NULL);
	kb_row(op, size, rep);
	return 0;
}

static void kb_header(void)
{
	unsigned int i;

	kb_out("# program=lite_kbench\n# host=%s\n# kernel=%s\n# device=lite\n",
	       utsname()->nodename, utsname()->release);
	kb_out("# role=client\n# peer=%u\n# sizes=", node);
	for (i = 0; i < run.nsizes; i++)
		kb_out("%s%u", i ? "," : "", run.sizes[i]);
	kb_out("\n# iters=%u\n# warmup=%u.%03u\n# reps=%u\n# ops=%s\n",
	       iters, warmup_ms / 1000, warmup_ms % 1000, reps, ops);
	kb_out("# lite_node=%d\n# target_node=%u\n",
	       liteapi_get_node_id(), node);
	kb_out("bench,op,size,param,rep,samples,min_us,median_us,p99_us,p999_us,max_us\n");
}

static int kb_run(void)
{
	unsigned int s, rep, max = 0;
	int op, ret = 0;

	for (s = 0; s < run.nsizes; s++)
		max = max_t(u32, max, run.sizes[s]);
	run.lh = liteapi_alloc_remote_mem(node, max, false, KB_PASSWORD);
	if (run.lh < 0) {
		pr_err("lite_kbench: LMR of %u bytes on node %u: %d\n", max,
		       node, run.lh);
		return run.lh;
	}
	run.buf = kvmalloc(max, GFP_KERNEL);
	if (!run.buf) {
		ret = -ENOMEM;
		goto out;
	}
	memset(run.buf, 0xa5, max);
	kb_header();
	for (op = 0; op < 2 && !ret; op++)
		for (s = 0; s < run.nsizes && run.op[op] && !ret; s++)
			for (rep = 1; rep <= reps && !ret; rep++)
				ret = kb_point(op, run.sizes[s], rep);
	kvfree(run.buf);
out:
	liteapi_deregister_mr(run.lh);
	return ret;
}

static int kb_show(struct seq_file *m, void *v)
{
	seq_write(m, run.out, run.len);
	return 0;
}

static int kb_show_samples(struct seq_file *m, void *v)
{
	seq_write(m, run.samp, run.slen);
	return 0;
}

static int __init lite_kbench_init(void)
{
	int ret;

	ret = kb_parse();
	if (ret)
		return ret;
	run.ns = kvmalloc_array(iters, sizeof(*run.ns), GFP_KERNEL);
	run.size = KB_HEADER_MAX + (size_t)run.nsizes * 2 * reps * KB_ROW_MAX;
	run.out = kvzalloc(run.size, GFP_KERNEL);
	if (!run.ns || !run.out) {
		ret = -ENOMEM;
		goto err;
	}
	if (samples) {
		run.ssize = KB_ROW_MAX + (size_t)run.nsizes * 2 * reps * iters *
			    KB_SAMPLE_MAX;
		run.samp = kvzalloc(run.ssize, GFP_KERNEL);
		if (!run.samp) {
			ret = -ENOMEM;
			goto err;
		}
		kb_sout("bench,op,size,param,rep,ns\n");
	}
	ret = kb_run();
	if (ret)
		goto err;
	kb_proc = proc_create_single("lite_kbench", 0444, NULL, kb_show);
	if (!kb_proc) {
		ret = -ENOMEM;
		goto err;
	}
	if (samples) {
		kb_sproc = proc_create_single("lite_kbench_samples", 0444, NULL,
					      kb_show_samples);
		if (!kb_sproc) {
			proc_remove(kb_proc);
			ret = -ENOMEM;
			goto err;
		}
	}
	kvfree(run.ns);
	run.ns = NULL;
	return 0;
err:
	kvfree(run.ns);
	kvfree(run.out);
	kvfree(run.samp);
	return ret;
}

static void __exit lite_kbench_exit(void)
{
	proc_remove(kb_sproc);
	proc_remove(kb_proc);
	kvfree(run.out);
	kvfree(run.samp);
}

module_init(lite_kbench_init);
module_exit(lite_kbench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LITE kernel-space latency benchmark");
