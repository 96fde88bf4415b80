// SPDX-License-Identifier: GPL-2.0
/*
 * role=server: a kthread that receives the client's requests on kt_port
 * (struct kt_req, kt.h) and acts on them, until rmmod.
 */
#include "kt.h"

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

static struct kt_srv {
	struct task_struct	*task;
	void			*buf;		/* requests, max_msg bytes */
	u8			*out;		/* replies */
	int			kept;		/* KT_OP_ASK_KEEP's handle */
	int			fails;		/* of its own checks */
	int			last_reply;	/* liteapi_reply_message() */
	int			cb;		/* the last call-back: 0 or errno */
	u64			notes, note_sum;
	u64			swap_sum, swaps;	/* KT_OP_SWAP's */
} kt_srv;

#define KT_SRV_OUT	(LITE_RPC_MAX_MSG)

static void kt_srv_fail(const char *what, int got, int want)
{
	kt_srv.fails++;
	pr_err("server: FAIL: %s: %d, expected %d\n", what, got, want);
}

/* Reply @len bytes of kt_srv.out; a second reply must find nothing. */
static void kt_srv_reply(u64 desc, u32 len)
{
	int ret;

	((struct kt_resp *)kt_srv.out)->node = liteapi_get_node_id();
	kt_srv.last_reply = liteapi_reply_message(kt_srv.out, len, desc, 0);
	ret = liteapi_reply_message(kt_srv.out, len, desc, 0);
	if (ret != -EALREADY)
		kt_srv_fail("second reply", ret, -EALREADY);
}

/* Ask for (@r->node, @r->ident) with @perm and add 1, @n times. */
static void kt_srv_add(const struct kt_req *r, u32 n)
{
	int lh = liteapi_ask_mr(r->node, r->ident, KT_RWA, r->password);
	u64 old;
	int ret;

	if (lh <= 0) {
		kt_srv_fail("ask of the counter", lh, 1);
		return;
	}
	while (n--) {
		ret = liteapi_rdma_fetch_and_add(lh, 1, &old, r->password);
		if (ret) {
			kt_srv_fail("fetch_and_add", ret, 0);
			break;
		}
	}
	liteapi_umap_lmr(lh);
}

/*
 * Ask for (@r->node, @r->ident) and swap in (our id << 32 | k) for k = 1
 * .. @n, summing the old values: see kt_rdma_swp().
 */
static void kt_srv_swap(const struct kt_req *r, u32 n)
{
	int lh = liteapi_ask_mr(r->node, r->ident, KT_RWA, r->password);
	u64 me = liteapi_get_node_id(), old;
	int ret;
	u32 k;

	kt_srv.swap_sum = 0;
	kt_srv.swaps = 0;
	if (lh <= 0) {
		kt_srv_fail("ask of the swap word", lh, 1);
		return;
	}
	for (k = 1; k <= n; k++) {
		ret = liteapi_rdma_swp(lh, me << 32 | k, &old, r->password);
		if (ret) {
			kt_srv_fail("swp", ret, 0);
			break;
		}
		kt_srv.swap_sum += old;
		kt_srv.swaps++;
	}
	liteapi_umap_lmr(lh);
}

/* Call the client back: see kt_call_back(). */
static void kt_srv_call_back(const struct kt_req *r)
{
	u8 msg[KT_CB_MSG_LEN], *back = kt_srv.out + sizeof(struct kt_resp);
	u32 room = min_t(u32, r->arg2, KT_SRV_OUT - sizeof(struct kt_resp));
	int ret, i;

	memset(msg, 'A', sizeof(msg));
	ret = liteapi_send_message(r->node, r->arg, msg, sizeof(msg), 0);
	memset(msg, 'B', sizeof(msg));
	if (!ret)
		ret = liteapi_send_message(r->node, r->arg, msg, sizeof(msg), 0);
	memset(msg, 'C', KT_CB_CALL_LEN);
	if (!ret)
		ret = liteapi_send_reply_imm(r->node, r->arg, msg, KT_CB_CALL_LEN,
					     back, room, 0);
	if (ret == KT_CB_CALL_LEN) {
		for (i = 0; i < KT_CB_CALL_LEN; i++)
			if (back[i] != ('C' ^ KT_XOR))
				break;
		ret = i == KT_CB_CALL_LEN ? 0 : -EILSEQ;
	} else if (ret >= 0) {
		ret = -EILSEQ;
	}
	kt_srv.cb = ret;
}

static void kt_srv_handle(u32 len, u64 desc)
{
	const struct kt_req *r = kt_srv.buf;
	struct kt_resp *resp = (struct kt_resp *)kt_srv.out;
	const u8 *p = (const u8 *)(r + 1);
	u32 plen = len - sizeof(*r), n, i;
	u8 *q = kt_srv.out + sizeof(*resp);
	int lh;

	memset(resp, 0, sizeof(*resp));
	switch (r->op) {
	case KT_OP_STATUS:
		resp->ret[0] = kt_srv.fails;
		resp->ret[1] = kt_srv.last_reply;
		resp->ret[2] = kt_srv.cb;
		resp->val[0] = kt_srv.notes;
		resp->val[1] = kt_srv.note_sum;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_ECHO:
		n = r->node && r->node == liteapi_get_node_id() ? r->arg2 : r->arg;
		n = min_t(u32, n, KT_SRV_OUT - sizeof(*resp));
		for (i = 0; i < n; i++)
			q[i] = (i < plen ? p[i] : (u8)i) ^ KT_XOR;
		kt_srv_reply(desc, sizeof(*resp) + n);
		break;
	case KT_OP_NOTE:
		kt_srv.notes++;
		for (i = 0; i < plen; i++)
			kt_srv.note_sum += p[i];
		break;
	case KT_OP_ASK_WRITE:
		lh = liteapi_ask_mr(r->node, r->ident, r->arg, r->password);
		resp->ret[0] = lh < 0 ? lh : 0;
		if (lh > 0) {
			memset(q, r->arg2, 64);
			resp->ret[1] = liteapi_rdma_write_offset(lh, q, 64, 0, 0,
								 r->password);
			liteapi_umap_lmr(lh);
		}
		lh = liteapi_ask_mr(r->node, r->ident, r->arg, r->password + 1);
		resp->ret[2] = lh;
		if (lh > 0)
			liteapi_umap_lmr(lh);
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_ASK_KEEP:
		if (kt_srv.kept > 0)
			liteapi_umap_lmr(kt_srv.kept);
		lh = liteapi_ask_mr(r->node, r->ident, LITE_PERM_READ, r->password);
		kt_srv.kept = max(lh, 0);
		resp->ret[0] = lh < 0 ? lh : 0;
		if (lh > 0)
			resp->ret[1] = liteapi_rdma_read_offset(lh, q, 8, 0, 0,
								r->password);
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_USE_KEPT:
		resp->ret[0] = liteapi_rdma_read_offset(kt_srv.kept, q, 8, 0, 0,
							KT_PW);
		resp->ret[1] = liteapi_umap_lmr(kt_srv.kept);
		kt_srv.kept = 0;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_ADD:
		kt_srv_add(r, min_t(u32, r->arg, 100000));
		break;
	case KT_OP_BARRIER:
		kt_srv_reply(desc, sizeof(*resp));
		kt_srv_add(r, 1);
		lh = liteapi_dist_barrier(r->arg);
		if (lh)
			kt_srv_fail("dist_barrier", lh, 0);
		break;
	case KT_OP_LOCK_HOLD:
		resp->ret[0] = liteapi_lock(r->node, r->arg);
		kt_srv_reply(desc, sizeof(*resp));
		if (resp->ret[0])
			break;
		msleep_interruptible(min_t(u32, r->arg2, 10000));
		lh = liteapi_unlock(r->node, r->arg);
		if (lh)
			kt_srv_fail("unlock", lh, 0);
		break;
	case KT_OP_CALL_BACK:
		kt_srv_reply(desc, sizeof(*resp));
		kt_srv_call_back(r);
		break;
	case KT_OP_SWAP:
		kt_srv_swap(r, min_t(u32, r->arg, 100000));
		break;
	case KT_OP_SWAPPED:
		resp->val[0] = kt_srv.swap_sum;
		resp->val[1] = kt_srv.swaps;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	default:
		resp->ret[0] = -EOPNOTSUPP;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	}
}

/**
 * kt_srv_thread() - serve requests on @port until the module is removed
 * @unused: nothing
 *
 * kt_server_stop() sends SIGKILL, which ends any wait in LITE (receive,
 * call, lock, barrier) with -EINTR, then kthread_stop().
 *
 * Return: 0.
 */
static int kt_srv_thread(void *unused)
{
	u64 desc;
	int n;

	/* rmmod interrupts whatever the thread waits for with SIGKILL. */
	allow_signal(SIGKILL);
	while (!kthread_should_stop() && !signal_pending(current)) {
		n = liteapi_receive_message(kt_port, kt_srv.buf, kt_max_msg, &desc, 1);
		if (n >= (int)sizeof(struct kt_req)) {
			kt_srv_handle(n, desc);
		} else if (n >= 0) {
			if (desc != LITE_DESC_NO_REPLY)
				liteapi_reply_message(NULL, 0, desc, 0);
		} else if (n != -EINTR && n != -EMSGSIZE) {
			/* Not a member (any more): wait for it to join again. */
			pr_warn_ratelimited("server: receive: %d\n", n);
			msleep_interruptible(100);
		}
	}
	flush_signals(current);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

int kt_server(void)
{
	u64 desc;
	int ret;

	if (kt_port >= LITE_MAX_PORT || kt_max_msg < sizeof(struct kt_req) ||
	    kt_max_msg > LITE_RPC_MAX_MSG)
		return -EINVAL;
	ret = liteapi_register_application(kt_port, kt_max_msg, "lite_kapi_test");
	if (ret && ret != -EADDRINUSE)
		return ret;
	kt_srv.buf = kvmalloc(kt_max_msg, GFP_KERNEL);
	kt_srv.out = kvmalloc(KT_SRV_OUT, GFP_KERNEL);
	if (!kt_srv.buf || !kt_srv.out) {
		ret = -ENOMEM;
		goto err;
	}
	/* An earlier load's port: ours (the kernel's) if receiving works. */
	while ((ret = liteapi_receive_message(kt_port, kt_srv.buf, kt_max_msg, &desc,
					      0)) >= 0 || ret == -EMSGSIZE)
		if (ret >= 0 && desc != LITE_DESC_NO_REPLY)
			liteapi_reply_message(NULL, 0, desc, 0);
	if (ret != -EAGAIN) {
		pr_err("server: port %u is not the kernel's: %d\n", kt_port, ret);
		goto err;
	}
	kt_srv.task = kthread_run(kt_srv_thread, NULL, "lite_kapi_srv");
	if (IS_ERR(kt_srv.task)) {
		ret = PTR_ERR(kt_srv.task);
		goto err;
	}
	pr_info("server: start: node %d, port %u (requests up to %u bytes)\n",
		liteapi_get_node_id(), kt_port, kt_max_msg);
	return 0;
err:
	kvfree(kt_srv.buf);
	kvfree(kt_srv.out);
	return ret;
}

void kt_server_stop(void)
{
	send_sig(SIGKILL, kt_srv.task, 1);
	kthread_stop(kt_srv.task);
	if (kt_srv.kept > 0)
		liteapi_umap_lmr(kt_srv.kept);
	kvfree(kt_srv.buf);
	kvfree(kt_srv.out);
	pr_info("server: stopped (%d failed checks)\n", kt_srv.fails);
}
