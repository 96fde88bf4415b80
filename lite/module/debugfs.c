// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/lite: what a test or an administrator needs to see
 * inside the module (root only).
 *
 *   pool        the memory pool's regions: rkey, iova, length, bytes used
 *   qps         one line per QP of every connected peer, key=value: its
 *               number, the peer's, and the address vector and transport
 *               settings LITE gave it (lite_av_show())
 *   rpc         the RPC ports in use: registered or not, the rings senders
 *               opened there and those being closed (lite_rpc_show())
 *   lmrs        the LMRs this node owns: id, size, creator, and what the
 *               owner granted each mapper (lite_lmr_show())
 *   rdma_probe  write "NODE QP RKEY ADDR LEN" (hex RKEY and ADDR, LEN
 *               1..64): one RDMA READ on QP index QP of NODE with exactly
 *               that key and address; read back "ok <hex bytes>" or
 *               "error <completion status>". Refused unless rdma_probe=1:
 *               it proves what a key reaches (tests/integration/
 *               lite-cluster); a failed read breaks that QP, which is
 *               then reconnected (qp_conn.c).
 *   ctrl_probe  write "NODE TYPE HEXPAYLOAD" (TYPE a LITE_CTRL_* number,
 *               the payload at most 64 bytes): that control request, sent
 *               as this node with whatever it says, as a compromised peer
 *               would; read back "status <errno> <hex response>". Refused
 *               unless rdma_probe=1: it proves that the owner checks what
 *               a peer says against its own records (tests/integration/
 *               lite-tenant, owner-checks).
 *   ctrl_drop   write "TYPE COUNT": the next COUNT requests of that
 *               LITE_CTRL_* type to other nodes are not sent, as if lost
 *               (lite_ctrl_drop_next()); refused unless rdma_probe=1. Proves
 *               that a lost lock hand-off or barrier wake is found
 *               (tests/integration/lite-tenant, lost-wakes).
 *   fail_qp_create  the kernel's fault injection (fault-injection.rst:
 *               probability, interval, times, ...) for creating a peer's
 *               QPs; only on kernels with CONFIG_FAULT_INJECTION_DEBUG_FS
 *               (the debug guest kernel). Proves that a peer whose QPs
 *               fail part-way is torn down cleanly.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "lite_priv.h"
#include "wire.h"

#define LITE_PROBE_MAX	64	/* what %*ph prints */

static bool lite_rdma_probe_on;
module_param_named(rdma_probe, lite_rdma_probe_on, bool, 0600);
MODULE_PARM_DESC(rdma_probe, "allow /sys/kernel/debug/lite/rdma_probe (tests only; default: N)");

static struct dentry *lite_debugfs;
static DEFINE_MUTEX(lite_probe_lock);
static char lite_probe_result[16 + 2 * LITE_PROBE_MAX];	/* under the lock */

struct lite_probe {
	struct ib_cqe		cqe;
	struct lite_qp		*lqp;
	struct completion	done;
	enum ib_wc_status	status;
};

static void lite_probe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_probe *p = container_of(wc->wr_cqe, struct lite_probe, cqe);

	/* Here, before the QP's drain can end: an error is this epoch's. */
	lite_qp_complete(p->lqp, wc->status);
	p->status = wc->status;
	complete(&p->done);
}

/* One RDMA READ of @len bytes at (@rkey, @addr) on @node's QP @qpi. */
static int lite_probe_read(u16 node, u32 qpi, u32 rkey, u64 addr, u32 len)
{
	struct lite_probe *p;
	struct lite_peer *peer;
	struct lite_qp *lqp;
	struct ib_device *ibdev;
	struct ib_sge sge;
	struct ib_rdma_wr wr;
	void *buf;
	u64 dma;
	int ret;

	peer = lite_peer_get(node, 0);
	if (!peer)
		return -ENOTCONN;
	ret = -EINVAL;
	if (qpi >= peer->nr_qps)
		goto out_peer;
	lqp = &peer->qps[qpi];
	ibdev = peer->dev->ibdev;
	ret = -ENOMEM;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	buf = kzalloc(len, GFP_KERNEL);
	if (!p || !buf)
		goto out_free;
	dma = ib_dma_map_single(ibdev, buf, len, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		goto out_free;
	p->cqe.done = lite_probe_done;
	p->lqp = lqp;
	init_completion(&p->done);
	sge = (struct ib_sge) {
		.addr = dma, .length = len, .lkey = peer->dev->pd->local_dma_lkey,
	};
	wr = (struct ib_rdma_wr) {
		.wr = {
			.wr_cqe		= &p->cqe,
			.sg_list	= &sge,
			.num_sge	= 1,
			.opcode		= IB_WR_RDMA_READ,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.remote_addr	= addr,
		.rkey		= rkey,
	};
	ret = lite_qp_post(lqp, &wr.wr, true);
	if (!ret) {
		/* Bounded: the QP's retries run out, or teardown flushes it. */
		wait_for_completion(&p->done);
	}
	ib_dma_unmap_single(ibdev, dma, len, DMA_FROM_DEVICE);
	if (ret)
		snprintf(lite_probe_result, sizeof(lite_probe_result),
			 "error post %d\n", ret);
	else if (p->status != IB_WC_SUCCESS)
		snprintf(lite_probe_result, sizeof(lite_probe_result),
			 "error %s\n", ib_wc_status_msg(p->status));
	else
		snprintf(lite_probe_result, sizeof(lite_probe_result),
			 "ok %*phN\n", len, buf);
	ret = 0;
out_free:
	kfree(buf);
	kfree(p);
out_peer:
	lite_peer_put(peer);
	return ret;
}

/*
 * The line a test wrote into one of the probes, NUL-terminated in @line
 * (@size bytes); 0, or -EPERM unless rdma_probe=1.
 */
static int lite_probe_line(const char __user *ubuf, size_t count, char *line,
			   size_t size)
{
	if (!READ_ONCE(lite_rdma_probe_on))
		return -EPERM;
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	return 0;
}

/* A probe's last result, read under the probe lock. */
static ssize_t lite_probe_result_read(char __user *ubuf, size_t count,
				      loff_t *ppos, const char *result)
{
	ssize_t ret;

	mutex_lock(&lite_probe_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, result,
				      strlen(result));
	mutex_unlock(&lite_probe_lock);
	return ret;
}

static ssize_t lite_probe_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char line[96];
	u32 qpi, rkey, len;
	u64 addr;
	u16 node;
	int ret;

	ret = lite_probe_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%hu %u %x %llx %u", &node, &qpi, &rkey, &addr,
		   &len) != 5 || !len || len > LITE_PROBE_MAX)
		return -EINVAL;
	mutex_lock(&lite_probe_lock);
	ret = lite_probe_read(node, qpi, rkey, addr, len);
	mutex_unlock(&lite_probe_lock);
	return ret ?: count;
}

static ssize_t lite_probe_show(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	return lite_probe_result_read(ubuf, count, ppos, lite_probe_result);
}

static const struct file_operations lite_probe_fops = {
	.owner	= THIS_MODULE,
	.write	= lite_probe_write,
	.read	= lite_probe_show,
	.llseek	= default_llseek,
};

#define LITE_CTRL_PROBE_MAX	64

static char lite_ctrl_probe_result[32 + 2 * LITE_CTRL_PROBE_MAX];

/* One control request, as a peer could send it (see the comment above). */
static ssize_t lite_ctrl_probe_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	char line[32 + 2 * LITE_CTRL_PROBE_MAX], hex[2 * LITE_CTRL_PROBE_MAX + 1];
	u8 req[LITE_CTRL_PROBE_MAX], resp[LITE_CTRL_PROBE_MAX];
	u32 len, resp_len = sizeof(resp);
	u16 node, type;
	int ret;

	ret = lite_probe_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%hu %hu %128s", &node, &type, hex) != 3)
		return -EINVAL;
	len = strlen(hex) / 2;
	/* ALLOC and ASK answer more than fits here: refused, not leaked. */
	if (strlen(hex) % 2 || !type || type >= LITE_CTRL_NR_TYPES ||
	    type == LITE_CTRL_ALLOC || type == LITE_CTRL_ASK ||
	    hex2bin(req, hex, len))
		return -EINVAL;
	ret = lite_ctrl_call(node, 0, type, req, len, resp, &resp_len);
	mutex_lock(&lite_probe_lock);
	snprintf(lite_ctrl_probe_result, sizeof(lite_ctrl_probe_result),
		 "status %d %*phN\n", ret, ret ? 0 : (int)resp_len, resp);
	mutex_unlock(&lite_probe_lock);
	return count;
}

static ssize_t lite_ctrl_probe_show(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	return lite_probe_result_read(ubuf, count, ppos, lite_ctrl_probe_result);
}

static const struct file_operations lite_ctrl_probe_fops = {
	.owner	= THIS_MODULE,
	.write	= lite_ctrl_probe_write,
	.read	= lite_ctrl_probe_show,
	.llseek	= default_llseek,
};

static ssize_t lite_ctrl_drop_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	unsigned int n;
	char line[32];
	u16 type;
	int ret;

	ret = lite_probe_line(ubuf, count, line, sizeof(line));
	if (ret)
		return ret;
	if (sscanf(line, "%hu %u", &type, &n) != 2 || !type ||
	    type >= LITE_CTRL_NR_TYPES)
		return -EINVAL;
	lite_ctrl_drop_next(type, n);
	return count;
}

static const struct file_operations lite_ctrl_drop_fops = {
	.owner	= THIS_MODULE,
	.write	= lite_ctrl_drop_write,
	.llseek	= default_llseek,
};

/* A text file of at most four pages, made by @show at each read. */
static ssize_t lite_show_read(char __user *ubuf, size_t count, loff_t *ppos,
			      size_t (*show)(char *buf, size_t size))
{
	size_t size = PAGE_SIZE * 4, n;
	ssize_t ret;
	char *buf;

	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	n = show(buf, size);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, n);
	kfree(buf);
	return ret;
}

/* name_fops: a file whose text lite_<name>_show() writes into a buffer. */
#define LITE_SHOW_FOPS(name)						\
static ssize_t lite_##name##_read(struct file *file, char __user *ubuf,	\
				  size_t count, loff_t *ppos)		\
{									\
	return lite_show_read(ubuf, count, ppos, lite_##name##_show);	\
}									\
static const struct file_operations lite_##name##_fops = {		\
	.owner	= THIS_MODULE,						\
	.read	= lite_##name##_read,					\
	.llseek	= default_llseek,					\
}

LITE_SHOW_FOPS(pool);
LITE_SHOW_FOPS(rpc);
LITE_SHOW_FOPS(lmr);

/* Every connected peer's QPs (lite_av_show()). */
static int lite_qps_show(struct seq_file *m, void *unused)
{
	struct lite_peer *peer;
	u16 id;

	for (id = 1; id < LITE_MAX_NODES; id++) {
		peer = lite_peer_get(id, 0);
		if (!peer)
			continue;
		lite_av_show(m, peer);
		lite_peer_put(peer);
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(lite_qps);
DEFINE_SHOW_ATTRIBUTE(lite_stats);
DEFINE_SHOW_ATTRIBUTE(lite_peer_stats);

void lite_debugfs_init(void)
{
	lite_debugfs = debugfs_create_dir("lite", NULL);
	debugfs_create_file("pool", 0400, lite_debugfs, NULL, &lite_pool_fops);
	debugfs_create_file("qps", 0400, lite_debugfs, NULL, &lite_qps_fops);
	debugfs_create_file("rpc", 0400, lite_debugfs, NULL, &lite_rpc_fops);
	debugfs_create_file("lmrs", 0400, lite_debugfs, NULL, &lite_lmr_fops);
	debugfs_create_file("counters", 0400, lite_debugfs, NULL,
			    &lite_stats_fops);
	debugfs_create_file("peers", 0400, lite_debugfs, NULL,
			    &lite_peer_stats_fops);
	debugfs_create_file("rdma_probe", 0600, lite_debugfs, NULL,
			    &lite_probe_fops);
	debugfs_create_file("ctrl_probe", 0600, lite_debugfs, NULL,
			    &lite_ctrl_probe_fops);
	debugfs_create_file("ctrl_drop", 0200, lite_debugfs, NULL,
			    &lite_ctrl_drop_fops);
	lite_qp_faults_init(lite_debugfs);
}

void lite_debugfs_exit(void)
{
	debugfs_remove_recursive(lite_debugfs);
}
