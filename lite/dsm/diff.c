// SPDX-License-Identifier: GPL-2.0
/*
 * Write-back by DIFF messages, both ends (docs/dsm.md, "Write-back"). A
 * flush's blocks of many scattered changed runs go to their home encoded
 * in lite_dsm messages (diff.h), which the home's lite_dsm checks whole,
 * applies to its LMR and only then answers; a home on this node is
 * applied here, without a message (LITE has no RPC to itself).
 *
 * Sending: each home has at most one DIFF being encoded per flush; a full
 * one goes to a worker (lite_dsm_diff) that makes the RPC. LITE's wait
 * for a reply ends at a signal, and a flush must not go on before the
 * home applied (the release's UNLOCK comes after): the worker, which no
 * signal reaches, waits for it, and the flush waits for the worker
 * without interruption (LITE's timeouts bound it). Up to
 * DSM_DIFF_INFLIGHT DIFFs of a flush are in flight.
 *
 * A DIFF its home did not apply is written by RDMA writes instead, run
 * by run: refused by it, a port without lite_dsm or with a smaller
 * request size, no memory for it (nothing of it is applied later), or no
 * answer in LITE's timeouts (a home whose lite_dsm is gone gets the runs
 * all the same; but a slow one may still apply the DIFF, late, over bytes
 * others wrote since: the flush reports EIO, as for writes lost). After
 * any of these, the region sends that home no DIFF for DSM_DIFF_BACKOFF
 * (its blocks go by writes).
 *
 * Applying: every message is checked whole before any byte is written
 * (dsm_diff_check()), and the LMR is the one its home published under
 * the message's ident and password (asked for here, with them), whose
 * size LITE checks before the first run is applied.
 */
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../include/lite_kapi.h"
#include "dsm.h"

#define DSM_DIFF_INFLIGHT	4
#define DSM_DIFF_BACKOFF	(60 * HZ)

/* A DIFF message of a flush, and its RPC. */
struct dsm_diff_msg {
	struct work_struct	work;
	struct completion	done;
	struct list_head	link;		/* dsm_diffs.sent */
	struct dsm_diff		d;		/* its runs, in @msg */
	u32			home;
	u32			node;
	int			status;
	bool			replied;	/* by its home's lite_dsm */
	struct dsm_msg_diff	*msg;		/* DSM_MSG_MAX bytes */
};

static struct workqueue_struct *dsm_diff_wq;

/* An LMR, for dsm_diff_write(). */
struct dsm_diff_lmr {
	u32	lh;
	s32	password;
};

/* dsm_diff_apply_t: one run written to an LMR (a CPU copy when local). */
static int dsm_diff_write(u64 off, const u8 *data, u32 len, void *arg)
{
	const struct dsm_diff_lmr *l = arg;

	return liteapi_rdma_write_offset(l->lh, data, len, LITE_PRIO_NORMAL,
					 off, l->password);
}

/*
 * Apply runs that passed dsm_diff_check(), the last ending at @end, to
 * LMR @lh. LITE checks offsets against the LMR's size: a read of its byte
 * @end - 1 first, so that a DIFF past the LMR is refused whole.
 */
static int dsm_diff_apply_lmr(u32 lh, s32 password, const u8 *runs,
			      u32 bytes, u64 end)
{
	struct dsm_diff_lmr l = { .lh = lh, .password = password };
	u8 probe;
	int ret;

	ret = liteapi_rdma_read_offset(lh, &probe, 1, LITE_PRIO_NORMAL,
				       end - 1, password);
	if (ret)
		return ret == -ERANGE ? -EINVAL : ret;
	return dsm_diff_apply(runs, bytes, dsm_diff_write, &l);
}

/**
 * dsm_serve_diff() - apply a DIFF a node sent, at its home
 * @req: the message; its header's magic, version and key are checked
 * @len: its length, sizeof(*@req) .. DSM_MSG_MAX
 *
 * Return: 0 once every run is applied; else nothing was applied, but for
 * an LMR revoked (freed) while it was: -EPROTO, -EINVAL (a run past the
 * LMR), -EACCES (no such LMR here, or another password), LITE's errors.
 */
int dsm_serve_diff(const struct dsm_msg_diff *req, u32 len)
{
	const u8 *runs = (const u8 *)(req + 1);
	s32 password = le32_to_cpu(req->password);
	u64 end = 0;
	int lh, ret;

	if (len < sizeof(*req))
		return -EPROTO;
	ret = req->reserved ? -EPROTO :
	      dsm_diff_check(runs, len - sizeof(*req), le32_to_cpu(req->runs),
			     le32_to_cpu(req->bytes), DSM_HOME_MAX_BYTES, &end);
	if (!ret) {
		/* The home's own handle: only the password's holders get it. */
		lh = liteapi_ask_mr(liteapi_get_node_id(),
				    le64_to_cpu(req->ident),
				    LITE_PERM_READ | LITE_PERM_WRITE, password);
		ret = lh < 0 ? lh : 0;
	}
	if (!ret) {
		ret = dsm_diff_apply_lmr(lh, password, runs, len - sizeof(*req),
					 end);
		liteapi_umap_lmr(lh);
	}
	if (ret)
		pr_warn_ratelimited("a DIFF from node %u (region %llx, %u bytes): %d: not applied\n",
				    le32_to_cpu(req->hdr.node),
				    le64_to_cpu(req->id), len, ret);
	return ret;
}

/* The worker's RPC: send, wait for the home to apply, keep its status. */
static void dsm_diff_work(struct work_struct *work)
{
	struct dsm_diff_msg *m = container_of(work, struct dsm_diff_msg, work);
	struct dsm_msg_status st = {};
	int ret;

	ret = liteapi_send_reply_imm(m->node, dsm_param_port, m->msg,
				     sizeof(*m->msg) + m->d.bytes, &st,
				     sizeof(st), LITE_PRIO_NORMAL);
	m->replied = ret >= 0;
	if (ret >= (int)sizeof(st)) {
		ret = (s32)le32_to_cpu(st.status);
		if (ret > 0 || ret < -MAX_ERRNO)
			ret = -EPROTO;
	} else if (ret >= 0) {
		ret = -EPROTO;
	}
	m->status = ret;
	complete(&m->done);
}

static void dsm_diff_msg_free(struct dsm_diff_msg *m)
{
	if (!m)
		return;
	kvfree(m->msg);
	kfree(m);
}

static struct dsm_diff_msg *dsm_diff_msg_alloc(void)
{
	struct dsm_diff_msg *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (m)
		m->msg = kvmalloc(DSM_MSG_MAX, GFP_KERNEL);
	if (m && !m->msg) {
		kfree(m);
		m = NULL;
	}
	return m;
}

void dsm_diffs_init(struct dsm_diffs *ds, struct dsm_region *r)
{
	*ds = (struct dsm_diffs) { .r = r };
	INIT_LIST_HEAD(&ds->sent);
}

/* Is @home of @r off DIFFs for now (one failed there)? */
static bool dsm_diff_off(const struct dsm_region *r, u32 home)
{
	return r->diff_off[home] && time_before(jiffies, r->diff_off[home]);
}

/**
 * dsm_diffs_get() - the DIFF being encoded for a home in this flush
 * @ds: the flush's DIFFs
 * @home: the home's index
 *
 * Return: it (a new, empty one when none was), or NULL: no DIFF to that
 * home now (none for a while after one failed there, or no memory).
 */
struct dsm_diff *dsm_diffs_get(struct dsm_diffs *ds, u32 home)
{
	struct dsm_diff_msg *m;

	if (home >= ds->r->nr_homes || dsm_diff_off(ds->r, home))
		return NULL;
	m = ds->cur[home];
	if (m)
		return &m->d;
	m = ds->spare ?: dsm_diff_msg_alloc();
	if (!m)
		return NULL;
	if (m == ds->spare)
		ds->spare = NULL;
	m->home = home;
	m->node = ds->r->homes[home];
	dsm_diff_init(&m->d, (u8 *)(m->msg + 1), DSM_DIFF_CAP);
	ds->cur[home] = m;
	return &m->d;
}

/* @m's runs by RDMA writes to its home, waited for. */
static int dsm_diff_rewrite(struct dsm_diffs *ds, struct dsm_diff_msg *m)
{
	struct dsm_diff_lmr l = {
		.lh = ds->r->lh[m->home], .password = ds->r->password,
	};

	return dsm_diff_apply(m->d.buf, m->d.bytes, dsm_diff_write, &l);
}

/*
 * Was a request that failed with LITE's error @ret never delivered (too
 * large for the port, no port, no memory or quota for it, refused), or,
 * for ENOMEM, possibly served already: either way it is not applied
 * later. Not so after ETIMEDOUT: it may still be served.
 */
static bool dsm_diff_unsent(int ret)
{
	return ret == -EMSGSIZE || ret == -ECONNREFUSED || ret == -ENOMEM ||
	       ret == -EDQUOT || ret == -EINVAL;
}

/*
 * @m's RPC ended. Not applied: its runs go by writes all the same (a home
 * whose lite_dsm is gone still gets them), and no DIFF goes there for a
 * while. Without an answer it may still be applied, late: EIO, as for
 * writes lost.
 */
static void dsm_diff_done(struct dsm_diffs *ds, struct dsm_diff_msg *m)
{
	struct dsm_region *r = ds->r;
	int ret = m->status, err;
	bool unsure;

	memzero_explicit(m->msg->hdr.key, DSM_KEY_LEN);
	if (!ret)
		return;
	r->diff_off[m->home] = (jiffies + DSM_DIFF_BACKOFF) ?: 1;
	unsure = !m->replied && !dsm_diff_unsent(ret);
	err = dsm_diff_rewrite(ds, m);
	pr_warn_ratelimited("region %s: node %u did not apply a DIFF of %u bytes (%d)%s: by RDMA writes: %d; no DIFF there for %u s\n",
			    r->name, m->node, m->d.bytes, ret,
			    unsure ? ", may yet apply it" : "", err,
			    DSM_DIFF_BACKOFF / HZ);
	if (err || unsure)
		ds->err = -EIO;
}

/* Keep @m for the flush's next DIFF, or free it. */
static void dsm_diff_recycle(struct dsm_diffs *ds, struct dsm_diff_msg *m)
{
	if (ds->spare)
		dsm_diff_msg_free(m);
	else
		ds->spare = m;
}

/* Wait for the oldest DIFF in flight; uninterruptible, LITE bounds it. */
static void dsm_diffs_wait_one(struct dsm_diffs *ds)
{
	struct dsm_diff_msg *m = list_first_entry(&ds->sent,
						  struct dsm_diff_msg, link);

	wait_for_completion(&m->done);
	list_del(&m->link);
	ds->nr_sent--;
	dsm_diff_done(ds, m);
	dsm_diff_recycle(ds, m);
}

/* Send @m (not empty): applied here for a home on this node. */
static void dsm_diffs_submit(struct dsm_diffs *ds, struct dsm_diff_msg *m)
{
	struct dsm_region *r = ds->r;

	if (dsm_diff_off(r, m->home)) {	/* a DIFF failed there meanwhile */
		if (dsm_diff_rewrite(ds, m)) {
			pr_warn_ratelimited("region %s: %u bytes to node %u: writes lost\n",
					    r->name, m->d.bytes, m->node);
			ds->err = -EIO;
		}
		dsm_diff_recycle(ds, m);
		return;
	}
	if (m->node == liteapi_get_node_id()) {
		m->status = dsm_diff_apply_lmr(r->lh[m->home], r->password,
					       m->d.buf, m->d.bytes, m->d.end);
		m->replied = true;
		dsm_diff_done(ds, m);
		dsm_diff_recycle(ds, m);
		return;
	}
	if (ds->nr_sent >= DSM_DIFF_INFLIGHT)
		dsm_diffs_wait_one(ds);
	dsm_msg_hdr_fill(&m->msg->hdr, DSM_MSG_DIFF);
	m->msg->id = cpu_to_le64(r->id);
	m->msg->ident = cpu_to_le64(r->ident + m->home);
	m->msg->password = cpu_to_le32(r->password);
	m->msg->runs = cpu_to_le32(m->d.runs);
	m->msg->bytes = cpu_to_le32(m->d.bytes);
	m->msg->reserved = 0;
	m->replied = false;
	m->status = 0;
	INIT_WORK(&m->work, dsm_diff_work);
	init_completion(&m->done);
	list_add_tail(&m->link, &ds->sent);
	ds->nr_sent++;
	queue_work(dsm_diff_wq, &m->work);
}

/**
 * dsm_diffs_send() - send a home's DIFF, full
 * @ds: the flush's DIFFs
 * @home: the home's index
 * @d: its DIFF, from dsm_diffs_get()
 */
void dsm_diffs_send(struct dsm_diffs *ds, u32 home, struct dsm_diff *d)
{
	struct dsm_diff_msg *m = ds->cur[home];

	if (WARN_ON_ONCE(!m || &m->d != d))
		return;
	ds->cur[home] = NULL;
	if (m->d.runs)
		dsm_diffs_submit(ds, m);
	else
		dsm_diff_recycle(ds, m);
}

/**
 * dsm_diffs_finish() - send every DIFF left, wait until all are applied
 * @ds: the flush's DIFFs
 *
 * Return: 0, or -EIO when one was lost.
 */
int dsm_diffs_finish(struct dsm_diffs *ds)
{
	u32 h;

	for (h = 0; h < DSM_MAX_HOMES; h++)
		if (ds->cur[h])
			dsm_diffs_send(ds, h, &ds->cur[h]->d);
	while (ds->nr_sent)
		dsm_diffs_wait_one(ds);
	dsm_diff_msg_free(ds->spare);
	ds->spare = NULL;
	return ds->err;
}

int dsm_diff_wq_init(void)
{
	dsm_diff_wq = alloc_workqueue("lite_dsm_diff", WQ_UNBOUND, 0);
	return dsm_diff_wq ? 0 : -ENOMEM;
}

void dsm_diff_wq_exit(void)
{
	destroy_workqueue(dsm_diff_wq);
}
