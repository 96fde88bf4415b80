// SPDX-License-Identifier: GPL-2.0
/*
 * LITE RPC: two-sided messages over RDMA write-with-immediate
 * (docs/rpc.md). A node that calls port P of node N owns a ring on N for
 * (P, itself); a request is one RDMA write of header + payload into that
 * ring, its immediate naming the port and the offset. The reply is one
 * write-with-immediate straight into the caller's reply buffer, the
 * immediate naming the call. The receiver gives ring space back with
 * acknowledgements (a zero-length send with immediate) every quarter ring;
 * a sender whose ring is full waits for them, so a slow receiver slows
 * senders down and never loses a message.
 *
 * Requests to one (node, port) leave on one QP, in ring order, under the
 * ring's mutex, so they arrive in order and one-way messages keep it.
 * Completions are handled in the shared CQ's context, which only queues
 * messages and wakes waiters; anything that posts runs in process context.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "lite_priv.h"
#include "ctrl_msg.h"
#include "rpc_wire.h"
#include "wire_check.h"
#include "include/uapi/lite.h"

static unsigned int lite_rpc_timeout_ms = 10000;
module_param_named(rpc_timeout_ms, lite_rpc_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rpc_timeout_ms, "how long an RPC waits for its reply or for ring space (default: 10000)");


/* The immediate: kind in bits 31-30. */
#define LITE_IMM_KIND(imm)	((imm) >> 30)
#define LITE_IMM_REQ		0	/* port 29-24, ring offset / 64 23-0 */
#define LITE_IMM_REPLY		1	/* error 29-28, call id 27-0 */
#define LITE_IMM_ACK		2	/* port 29-24, consumed / 64 mod 2^24 */
#define LITE_IMM_PORT(imm)	(((imm) >> 24) & 0x3f)
#define LITE_IMM_LOW24(imm)	((imm) & 0xffffff)
#define LITE_IMM_ERR(imm)	(((imm) >> 28) & 0x3)
#define LITE_IMM_CALL(imm)	((imm) & 0x0fffffff)

enum { LITE_RPC_OK, LITE_RPC_EMSGSIZE, LITE_RPC_ECONNREFUSED };

/* ---- receiver side: rings and ports ------------------------------------ */

/*
 * A ring on this node for (port, sender). When the sender leaves it drops
 * out of the table; it is freed then, or by the last receiver still
 * holding one of its messages (which may be stuck in a page fault).
 */
struct lite_rpc_ring {
	u16			node;
	u32			gen;
	u8			port;
	struct lite_piece	mem;		/* from the pool */
	void			*buf;		/* its kernel address */
	u64			dma;		/* its DMA address */
	u64			received;	/* bytes spanned by arrivals */
	u64			consumed;	/* bytes given back, in order */
	u64			acked;		/* consumed, as last told */
	struct list_head	msgs;		/* arrival order */
	unsigned int		busy;		/* messages being taken */
	bool			gone;		/* out of the table */
};

struct lite_rpc_msg {
	struct list_head	ring_link;
	struct list_head	queue_link;
	struct lite_rpc_ring	*ring;
	u32			off;		/* of the header */
	u32			span;		/* ring bytes, skipped tail too */
	u32			len;
	u32			call_id;
	u32			reply_max;
	u32			reply_rkey;
	u64			reply_addr;
	bool			done;
};

struct lite_rpc_port {
	struct lite_ctx		*owner;		/* NULL: not registered */
	u32			max_size;
	char			name[LITE_NAME_MAX];
	struct list_head	queue;
	unsigned int		receivers;	/* threads in lite_rpc_recv */
	wait_queue_head_t	wq;
	struct lite_wait_hist	gaps;		/* between requests (wait.c) */
	u64			last_arrival;	/* ktime_get_ns() */
};

/* A reply owed by a receiver: what the descriptor stands for. */
struct lite_rpc_token {
	u16	node;
	u32	gen;
	u32	call_id;
	u32	reply_max;
	u32	reply_rkey;
	u64	reply_addr;
};

static struct {
	spinlock_t		lock;	/* everything below */
	struct lite_rpc_port	ports[LITE_MAX_PORT];
	struct lite_rpc_ring	*rings[LITE_MAX_PORT][LITE_MAX_NODES];
	struct list_head	orphans;	/* messages nobody will take */
	struct xarray		tokens;		/* descriptor -> token */
	u32			next_token;
} lite_rpc = {
	.lock		= __SPIN_LOCK_UNLOCKED(lite_rpc.lock),
	.orphans	= LIST_HEAD_INIT(lite_rpc.orphans),
	.tokens		= XARRAY_INIT(lite_rpc.tokens, XA_FLAGS_ALLOC1),
};

static void lite_rpc_orphans_work(struct work_struct *work);
static DECLARE_WORK(lite_rpc_orphans, lite_rpc_orphans_work);

/* ---- sender side: our rings on other nodes, and calls ------------------ */

struct lite_rpc_tx_ring {
	struct kref		ref;		/* the table's + users' */
	u16			node;
	u32			gen;
	u8			port;
	u32			max_size;
	u64			dma;		/* the ring, on @node */
	u32			rkey;
	struct mutex		lock;		/* reserve + post, in order */
	u64			head;		/* bytes spanned by our sends */
	u64			acked;		/* bytes the receiver gave back */
	bool			dead;
	wait_queue_head_t	wq;
};

struct lite_rpc_call {
	struct completion	done;
	u16			node;
	int			status;
	u32			len;
	u32			max;
	struct lite_piece	mem;		/* the reply buffer */
	void			*buf;		/* its kernel address */
	u64			dma;		/* its DMA address */
	struct lite_dev		*dev;		/* held until the call is freed */
	struct lite_user	*user;		/* charged LITE_RES_CALLS */
	bool			abandoned;	/* the caller gave up */
};

static DEFINE_MUTEX(lite_rpc_tx_lock);	/* lite_rpc_tx[][] */
static struct lite_rpc_tx_ring *lite_rpc_tx[LITE_MAX_NODES][LITE_MAX_PORT];
static DEFINE_XARRAY_ALLOC1(lite_rpc_calls);
static u32 lite_rpc_next_call;

/* A send in flight: owns its buffer until the completion. */
struct lite_rpc_tx {
	struct ib_cqe		cqe;
	struct lite_qp		*lqp;
	u64			dma;
	u32			len;
	u32			call_id;	/* a request's, failed on error */
	u8			data[];
};

/* Any context: the reply buffer, the device and the user's charge. */
static void lite_rpc_call_free(struct lite_rpc_call *call)
{
	lite_pool_free(&call->mem);
	if (call->dev)
		lite_dev_put(call->dev);
	lite_user_uncharge(call->user, LITE_RES_CALLS, 1);
	lite_user_put(call->user);
	kfree(call);
}

/* ---- waiting (wait.c's policy) ------------------------------------------ */

/* Recent calls' time to their reply. */
static struct lite_wait_hist lite_rpc_reply_hist;

/* ---- posting ------------------------------------------------------------ */

static void lite_rpc_fail_call(u32 id, int status);

static void lite_rpc_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rpc_tx *tx = container_of(wc->wr_cqe, struct lite_rpc_tx, cqe);
	struct lite_peer *peer = tx->lqp->peer;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			lite_warn("node %u: RPC message failed: %s\n", peer->id,
				  ib_wc_status_msg(wc->status));
		if (tx->call_id)
			lite_rpc_fail_call(tx->call_id, -EIO);
	}
	if (tx->len)
		ib_dma_unmap_single(peer->dev->ibdev, tx->dma, tx->len,
				    DMA_TO_DEVICE);
	lite_qp_complete(tx->lqp);
	kfree(tx);
	lite_peer_put(peer);
}

/*
 * Post @len bytes of @tx->data (0: none) on @lqp: an RDMA write with
 * immediate to (@remote, @rkey), or a send with immediate when @remote is 0.
 * Consumes @tx and the caller's reference on the QP's peer, whatever happens.
 */
static int lite_rpc_post(struct lite_qp *lqp, struct lite_rpc_tx *tx, u32 len,
			 u32 imm, u64 remote, u32 rkey)
{
	struct lite_peer *peer = lqp->peer;
	struct ib_device *ibdev = peer->dev->ibdev;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe		= &tx->cqe,
			.sg_list	= len ? &sge : NULL,
			.num_sge	= len ? 1 : 0,
			.opcode		= remote ? IB_WR_RDMA_WRITE_WITH_IMM :
						   IB_WR_SEND_WITH_IMM,
			.send_flags	= IB_SEND_SIGNALED,
			.ex.imm_data	= cpu_to_be32(imm),
		},
		.remote_addr	= remote,
		.rkey		= rkey,
	};
	int ret;

	tx->lqp = lqp;
	tx->len = len;
	tx->cqe.done = lite_rpc_tx_done;
	if (len) {
		tx->dma = ib_dma_map_single(ibdev, tx->data, len, DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ibdev, tx->dma)) {
			ret = -ENOMEM;
			goto err;
		}
		sge = (struct ib_sge) {
			.addr = tx->dma, .length = len,
			.lkey = peer->dev->pd->local_dma_lkey,
		};
	}
	ret = lite_qp_post(lqp, &wr.wr);
	if (!ret)
		return 0;
	if (len)
		ib_dma_unmap_single(ibdev, tx->dma, len, DMA_TO_DEVICE);
err:
	kfree(tx);
	lite_peer_put(peer);
	return ret;
}

/* A message without payload (ack, error reply) to @node. */
static int lite_rpc_post_imm(u16 node, u32 gen, u32 imm)
{
	struct lite_peer *peer = lite_peer_get(node, gen);
	struct lite_rpc_tx *tx;

	if (!peer)
		return -ENOTCONN;
	tx = kzalloc(sizeof(*tx), GFP_KERNEL);
	if (!tx) {
		lite_peer_put(peer);
		return -ENOMEM;
	}
	return lite_rpc_post(lite_peer_pick_qp(peer), tx, 0, imm, 0, 0);
}

static u32 lite_imm_reply(int err, u32 call_id)
{
	return LITE_IMM_REPLY << 30 | err << 28 | call_id;
}

/* ---- receiver: ring bookkeeping ----------------------------------------- */

/* Out of the table, no message taken: nobody else can reach it. */
static void lite_rpc_ring_free(struct lite_rpc_ring *ring)
{
	struct lite_rpc_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &ring->msgs, ring_link)
		kfree(m);
	lite_pool_free(&ring->mem);
	kfree(ring);
}

/* Give @msg's ring space back; acknowledge every quarter ring. */
static void lite_rpc_release(struct lite_rpc_msg *msg)
{
	struct lite_rpc_ring *ring = msg->ring;
	struct lite_rpc_msg *m, *tmp;
	u32 imm = 0;
	u16 node = ring->node;
	u32 gen = ring->gen;

	spin_lock_bh(&lite_rpc.lock);
	msg->done = true;
	if (!--ring->busy && ring->gone) {
		spin_unlock_bh(&lite_rpc.lock);
		lite_rpc_ring_free(ring);	/* its sender left meanwhile */
		return;
	}
	list_for_each_entry_safe(m, tmp, &ring->msgs, ring_link) {
		if (!m->done)
			break;
		ring->consumed += m->span;
		list_del(&m->ring_link);
		kfree(m);
	}
	if (ring->consumed - ring->acked >= LITE_RPC_RING_SIZE / 4) {
		ring->acked = ring->consumed;
		imm = LITE_IMM_ACK << 30 | (u32)ring->port << 24 |
		      ((ring->consumed / LITE_RPC_ALIGN) & 0xffffff);
	}
	spin_unlock_bh(&lite_rpc.lock);
	if (imm && lite_rpc_post_imm(node, gen, imm) == -ENOMEM)
		lite_warn("node %u: cannot acknowledge RPC ring space\n", node);
}

/* Fail the caller of @msg (if it waits for a reply) and release it. */
static void lite_rpc_refuse(struct lite_rpc_msg *msg, int err)
{
	if (msg->call_id)
		lite_rpc_post_imm(msg->ring->node, msg->ring->gen,
				  lite_imm_reply(err, msg->call_id));
	lite_rpc_release(msg);
}

static void lite_rpc_orphans_work(struct work_struct *work)
{
	struct lite_rpc_msg *msg;

	for (;;) {
		spin_lock_bh(&lite_rpc.lock);
		msg = list_first_entry_or_null(&lite_rpc.orphans,
					       struct lite_rpc_msg, queue_link);
		if (msg) {
			list_del_init(&msg->queue_link);
			msg->ring->busy++;
		}
		spin_unlock_bh(&lite_rpc.lock);
		if (!msg)
			return;
		lite_rpc_refuse(msg, LITE_RPC_ECONNREFUSED);
	}
}

/*
 * A request arrived at ring offset @off. Rings fill in order: it starts
 * where the previous one ended, or at 0 when it did not fit at the end.
 */
static void lite_rpc_rx_request(struct lite_peer *peer, u32 imm, u32 byte_len)
{
	u8 port = LITE_IMM_PORT(imm);
	u32 off = LITE_IMM_LOW24(imm) * LITE_RPC_ALIGN;
	struct lite_rpc_ring *ring;
	struct lite_rpc_hdr *hdr;
	struct lite_rpc_port *p;
	struct lite_rpc_msg *msg;
	u32 pos, span;

	msg = kzalloc(sizeof(*msg), GFP_ATOMIC);
	spin_lock_bh(&lite_rpc.lock);
	ring = lite_rpc.rings[port][peer->id];
	if (!ring || ring->gen != peer->gen)
		goto drop;
	if (!msg) {
		lite_err("node %u: out of memory, port %u's ring is lost\n",
			 peer->id, port);
		goto drop;
	}
	pos = ring->received % LITE_RPC_RING_SIZE;
	if (lite_check_rpc_place(byte_len, off, pos, LITE_RPC_RING_SIZE, &span))
		goto bad;
	ib_dma_sync_single_for_cpu(peer->dev->ibdev, ring->dma + off, byte_len,
				   DMA_FROM_DEVICE);
	hdr = ring->buf + off;
	if (lite_check_rpc_hdr(hdr, byte_len))
		goto bad;
	ring->received += span;
	*msg = (struct lite_rpc_msg) {
		.ring		= ring,
		.off		= off,
		.span		= span,
		.len		= byte_len - sizeof(*hdr),
		.call_id	= le32_to_cpu(hdr->call_id),
		.reply_max	= le32_to_cpu(hdr->reply_max),
		.reply_rkey	= le32_to_cpu(hdr->reply_rkey),
		.reply_addr	= le64_to_cpu(hdr->reply_addr),
	};
	list_add_tail(&msg->ring_link, &ring->msgs);
	p = &lite_rpc.ports[port];
	if (p->owner) {
		u64 now = ktime_get_ns();

		/* Receivers spin about as long as requests come apart. */
		if (p->last_arrival)
			lite_wait_learn(&p->gaps, now - p->last_arrival);
		p->last_arrival = now;
		list_add_tail(&msg->queue_link, &p->queue);
		wake_up(&p->wq);
	} else {
		list_add_tail(&msg->queue_link, &lite_rpc.orphans);
		lite_ctrl_queue(&lite_rpc_orphans);
	}
	spin_unlock_bh(&lite_rpc.lock);
	return;
bad:
	lite_warn("node %u: malformed RPC request (port %u, offset %u, %u bytes) dropped\n",
		  peer->id, port, off, byte_len);
drop:
	spin_unlock_bh(&lite_rpc.lock);
	kfree(msg);
}

/* ---- sender: acks, replies ---------------------------------------------- */

static void lite_rpc_rx_ack(struct lite_peer *peer, u32 imm)
{
	struct lite_rpc_tx_ring *tr = READ_ONCE(lite_rpc_tx[peer->id][LITE_IMM_PORT(imm)]);
	u64 acked, head;
	u32 delta;

	/* tx rings are freed only after the peer's QPs are gone. */
	if (!tr || tr->gen != peer->gen)
		return;
	acked = READ_ONCE(tr->acked);
	head = READ_ONCE(tr->head);
	delta = (LITE_IMM_LOW24(imm) - (u32)(acked / LITE_RPC_ALIGN)) & 0xffffff;
	if (acked + (u64)delta * LITE_RPC_ALIGN > head) {
		lite_warn("node %u: RPC ack past what was sent dropped\n", peer->id);
		return;
	}
	WRITE_ONCE(tr->acked, acked + (u64)delta * LITE_RPC_ALIGN);
	wake_up(&tr->wq);
}

static void lite_rpc_rx_reply(struct lite_peer *peer, u32 imm, u32 byte_len,
			      bool with_data)
{
	static const int errs[] = { 0, -EMSGSIZE, -ECONNREFUSED, -EPROTO };
	struct lite_rpc_call *call;
	unsigned long flags;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	call = xa_load(&lite_rpc_calls, LITE_IMM_CALL(imm));
	if (!call || call->node != peer->id || completion_done(&call->done)) {
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		lite_warn("node %u: reply to no waiting call dropped\n", peer->id);
		return;
	}
	if (with_data && byte_len > call->max) {
		call->status = -EPROTO;	/* the server ignored reply_max */
	} else {
		call->status = errs[LITE_IMM_ERR(imm)];
		call->len = with_data ? byte_len : 0;
		/* Now, while the peer (so the pool's mapping) surely exists. */
		if (call->len)
			ib_dma_sync_single_for_cpu(peer->dev->ibdev, call->dma,
						   call->len, DMA_FROM_DEVICE);
	}
	if (call->abandoned) {
		/* Its buffer can go: nothing else will be written there. */
		__xa_erase(&lite_rpc_calls, LITE_IMM_CALL(imm));
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		lite_rpc_call_free(call);
		return;
	}
	complete(&call->done);
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
}

/**
 * lite_rpc_rx() - a receive completion that carries an immediate
 * @peer: the sender
 * @wc: the completion (RECV_RDMA_WITH_IMM or RECV with IB_WC_WITH_IMM)
 *
 * Context: the CQ's completion context; does not sleep.
 */
void lite_rpc_rx(struct lite_peer *peer, const struct ib_wc *wc)
{
	u32 imm = be32_to_cpu(wc->ex.imm_data);
	bool write = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM;

	switch (LITE_IMM_KIND(imm)) {
	case LITE_IMM_REQ:
		if (write)
			return lite_rpc_rx_request(peer, imm, wc->byte_len);
		break;
	case LITE_IMM_REPLY:
		if (write || !wc->byte_len)
			return lite_rpc_rx_reply(peer, imm, wc->byte_len, write);
		break;
	case LITE_IMM_ACK:
		if (!write && !wc->byte_len)
			return lite_rpc_rx_ack(peer, imm);
		break;
	}
	lite_warn("node %u: unexpected immediate 0x%08x dropped\n", peer->id, imm);
}

/* ---- ports -------------------------------------------------------------- */

/**
 * lite_rpc_register() - receive requests to @port on this node
 * @ctx: the context that will receive them (until it is destroyed)
 * @port: 0 .. LITE_MAX_PORT - 1
 * @max_size: largest request accepted
 * @name: for logs
 *
 * Return: 0, -EINVAL, or -EADDRINUSE.
 */
int lite_rpc_register(struct lite_ctx *ctx, u32 port, u32 max_size,
		      const char *name)
{
	struct lite_rpc_port *p;
	int ret = 0;

	if (port >= LITE_MAX_PORT || !max_size || max_size > LITE_RPC_MAX_MSG)
		return -EINVAL;
	p = &lite_rpc.ports[port];
	spin_lock_bh(&lite_rpc.lock);
	if (p->owner) {
		ret = -EADDRINUSE;
	} else {
		p->owner = ctx;
		p->max_size = max_size;
		strscpy(p->name, name, sizeof(p->name));
		p->gaps = (struct lite_wait_hist) {};
		p->last_arrival = 0;
	}
	spin_unlock_bh(&lite_rpc.lock);
	if (!ret)
		lite_info("port %u registered (%s, requests up to %u bytes)\n",
			  port, p->name, max_size);
	return ret;
}

/* Unregister @ctx's ports: callers queued there get ECONNREFUSED. */
static void lite_rpc_unregister(struct lite_ctx *ctx)
{
	struct lite_rpc_port *p;
	unsigned int i;

	spin_lock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		p = &lite_rpc.ports[i];
		if (p->owner != ctx)
			continue;
		p->owner = NULL;
		list_splice_tail_init(&p->queue, &lite_rpc.orphans);
		wake_up_all(&p->wq);
	}
	spin_unlock_bh(&lite_rpc.lock);
	lite_ctrl_queue(&lite_rpc_orphans);
}

/* RPC_OPEN on the receiver: the ring of (@port, @src), made on first use. */
int lite_rpc_serve_open(u16 src, u32 src_gen, const struct lite_ctrl_rpc_open *req,
			struct lite_ctrl_rpc_ring *resp)
{
	u32 port = le32_to_cpu(req->port);
	struct lite_rpc_ring *ring, *fresh = NULL;
	struct lite_dev *dev = NULL;
	u32 max_size;
	int ret = -ENOTCONN;

	if (port >= LITE_MAX_PORT || req->reserved)
		return -EINVAL;
	spin_lock_bh(&lite_rpc.lock);
	max_size = lite_rpc.ports[port].owner ? lite_rpc.ports[port].max_size : 0;
	ring = lite_rpc.rings[port][src];
	spin_unlock_bh(&lite_rpc.lock);
	if (!max_size)
		return -ECONNREFUSED;
	if (!ring) {
		dev = lite_peer_dev(src, src_gen);
		if (!dev)
			return -ENOTCONN;
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			return -ENOMEM;
		ret = lite_pool_alloc(LITE_RPC_RING_SIZE, true, &fresh->mem);
		if (ret) {
			kfree(fresh);
			return ret;
		}
		fresh->buf = lite_piece_kaddr(&fresh->mem, 0);
		fresh->dma = lite_piece_dma(&fresh->mem, 0);
		fresh->node = src;
		fresh->gen = src_gen;
		fresh->port = port;
		INIT_LIST_HEAD(&fresh->msgs);
	}
	ret = -ENOTCONN;
	spin_lock_bh(&lite_rpc.lock);
	ring = lite_rpc.rings[port][src];
	/*
	 * Only while the sender is a member: lite_rpc_peer_down() takes this
	 * lock after the sender left the table, so it drops a ring added here.
	 */
	if (!ring && fresh && lite_peer_alive(src, src_gen))
		ring = lite_rpc.rings[port][src] = fresh;
	if (ring && ring->gen == src_gen) {	/* else the old incarnation's */
		*resp = (struct lite_ctrl_rpc_ring) {
			.dma		= cpu_to_le64(lite_piece_addr(&ring->mem, 0)),
			.rkey		= cpu_to_le32(lite_piece_rkey(&ring->mem)),
			.size		= cpu_to_le32(LITE_RPC_RING_SIZE),
			.max_size	= cpu_to_le32(max_size),
			.head		= cpu_to_le64(ring->received),
		};
		ret = 0;
	}
	spin_unlock_bh(&lite_rpc.lock);
	if (fresh && ring != fresh)	/* a concurrent open won, or too late */
		lite_rpc_ring_free(fresh);
	return ret;
}

static void lite_rpc_tx_release(struct kref *ref)
{
	kfree(container_of(ref, struct lite_rpc_tx_ring, ref));
}

static void lite_rpc_tx_put(struct lite_rpc_tx_ring *tr)
{
	kref_put(&tr->ref, lite_rpc_tx_release);
}

/*
 * Our ring on (@node, @port), with a reference: opened on first use,
 * -ECONNREFUSED if nobody listens there.
 */
static struct lite_rpc_tx_ring *lite_rpc_tx_get(u16 node, u32 port)
{
	struct lite_ctrl_rpc_open req = { .port = cpu_to_le32(port) };
	struct lite_ctrl_rpc_ring resp;
	struct lite_rpc_tx_ring *tr;
	u32 len = sizeof(resp);
	struct lite_peer *peer;
	u32 gen;
	int ret;

	peer = lite_peer_get(node, 0);
	if (!peer)
		return ERR_PTR(-ENOTCONN);
	gen = peer->gen;
	lite_peer_put(peer);

	mutex_lock(&lite_rpc_tx_lock);
	tr = lite_rpc_tx[node][port];
	if (tr) {	/* else an older incarnation's, going away */
		if (tr->gen == gen)
			kref_get(&tr->ref);
		else
			tr = ERR_PTR(-ENOTCONN);
		goto out;
	}
	ret = lite_ctrl_call(node, gen, LITE_CTRL_RPC_OPEN, &req, sizeof(req),
			     &resp, &len);
	if (!ret && (len != sizeof(resp) ||
		     le32_to_cpu(resp.size) != LITE_RPC_RING_SIZE ||
		     le32_to_cpu(resp.max_size) > LITE_RPC_MAX_MSG))
		ret = -EPROTO;
	if (ret) {
		tr = ERR_PTR(ret);
		goto out;
	}
	tr = kzalloc(sizeof(*tr), GFP_KERNEL);
	if (!tr) {
		tr = ERR_PTR(-ENOMEM);
		goto out;
	}
	tr->node = node;
	tr->gen = gen;
	tr->port = port;
	tr->max_size = le32_to_cpu(resp.max_size);
	tr->dma = le64_to_cpu(resp.dma);
	tr->rkey = le32_to_cpu(resp.rkey);
	tr->head = tr->acked = le64_to_cpu(resp.head);
	mutex_init(&tr->lock);
	init_waitqueue_head(&tr->wq);
	kref_init(&tr->ref);
	kref_get(&tr->ref);	/* the caller's */
	WRITE_ONCE(lite_rpc_tx[node][port], tr);
out:
	mutex_unlock(&lite_rpc_tx_lock);
	return tr;
}

/**
 * lite_rpc_query_port() - is @port registered on @node? Opens our ring there.
 * @node: the node
 * @port: the port
 * @max_size: out: the largest request the port takes
 *
 * Return: 0, -EINVAL, -ECONNREFUSED, -ENOTCONN, -ETIMEDOUT.
 */
int lite_rpc_query_port(u32 node, u32 port, u32 *max_size)
{
	struct lite_rpc_tx_ring *tr;

	if (!node || node >= LITE_MAX_NODES || port >= LITE_MAX_PORT)
		return -EINVAL;
	if (!lite_node_id())
		return -ENOTCONN;
	tr = lite_rpc_tx_get(node, port);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	*max_size = tr->max_size;
	lite_rpc_tx_put(tr);
	return 0;
}

/* ---- calls -------------------------------------------------------------- */

static void lite_rpc_fail_call(u32 id, int status)
{
	struct lite_rpc_call *call;
	unsigned long flags;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	call = xa_load(&lite_rpc_calls, id);
	if (call && !call->abandoned && !completion_done(&call->done)) {
		call->status = status;
		complete(&call->done);
	}
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
}

static bool lite_rpc_has_room(struct lite_rpc_tx_ring *tr, u32 need)
{
	return READ_ONCE(tr->dead) ||
	       tr->head + need - READ_ONCE(tr->acked) <= LITE_RPC_RING_SIZE;
}

/*
 * Write header + @len bytes from @src into our ring on (@node, @port).
 * The ring's QP is fixed (port % K): order on the wire is ring order.
 */
static int lite_rpc_send_msg(u16 node, u32 port, struct iov_iter *src, u32 len,
			     struct lite_rpc_call *call, u32 call_id, int prio)
{
	u32 span = ALIGN(sizeof(struct lite_rpc_hdr) + len, LITE_RPC_ALIGN);
	struct lite_rpc_tx_ring *tr;
	struct lite_rpc_hdr *hdr;
	struct lite_rpc_tx *tx;
	struct lite_peer *peer;
	u32 pos, need, imm;
	long left;
	int ret;

	tr = lite_rpc_tx_get(node, port);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	ret = -EMSGSIZE;
	if (len > tr->max_size)
		goto out_put;
	ret = -ENOMEM;
	tx = kmalloc(sizeof(*tx) + sizeof(*hdr) + len, GFP_KERNEL);
	if (!tx)
		goto out_put;
	hdr = (void *)tx->data;
	*hdr = (struct lite_rpc_hdr) {
		.magic		= cpu_to_le32(LITE_RPC_MAGIC),
		.len		= cpu_to_le32(len),
		.call_id	= cpu_to_le32(call_id),
	};
	if (call) {
		hdr->reply_max = cpu_to_le32(call->max);
		hdr->reply_addr = cpu_to_le64(lite_piece_addr(&call->mem, 0));
		hdr->reply_rkey = cpu_to_le32(lite_piece_rkey(&call->mem));
	}
	if (copy_from_iter((void *)(hdr + 1), len, src) != len) {
		kfree(tx);
		ret = -EFAULT;
		goto out_put;
	}
	tx->call_id = call_id;

	lite_prio_begin(prio);
	mutex_lock(&tr->lock);
	pos = tr->head % LITE_RPC_RING_SIZE;
	need = LITE_RPC_RING_SIZE - pos < span ? LITE_RPC_RING_SIZE - pos + span : span;
	left = 1;
	if (!lite_rpc_has_room(tr, need)) {
		lite_stat_peer(node, LITE_PSTAT_RING_FULL, 1);
		left = wait_event_interruptible_timeout(tr->wq,
				lite_rpc_has_room(tr, need),
				msecs_to_jiffies(lite_rpc_timeout_ms));
	}
	if (left <= 0 || tr->dead) {
		ret = left < 0 ? -EINTR : tr->dead ? -ENOTCONN : -ETIMEDOUT;
		if (ret == -ETIMEDOUT)
			lite_stat_peer(node, LITE_PSTAT_TIMEOUTS, 1);
		kfree(tx);
		goto out;
	}
	if (need != span)
		pos = 0;	/* the tail is too short: start over */
	peer = lite_peer_get(node, tr->gen);
	if (!peer) {
		ret = -ENOTCONN;
		kfree(tx);
		goto out;
	}
	imm = LITE_IMM_REQ << 30 | port << 24 | pos / LITE_RPC_ALIGN;
	ret = lite_rpc_post(&peer->qps[port % peer->nr_qps], tx,
			    sizeof(*hdr) + len, imm, tr->dma + pos, tr->rkey);
	if (!ret) {
		tr->head += need;
		lite_stat_peer(node, LITE_PSTAT_RPC_SENT, 1);
		lite_stat_peer(node, LITE_PSTAT_RPC_BYTES, len);
	}
out:
	mutex_unlock(&tr->lock);
	lite_prio_end(prio);
out_put:
	lite_rpc_tx_put(tr);
	return ret;
}

/**
 * lite_rpc_send() - one-way message to (@node, @port)
 * @node: the receiver
 * @port: its port
 * @src: the payload
 * @len: its size, 1 .. LITE_RPC_MAX_MSG
 * @prio: LITE_PRIO_*
 *
 * Return: 0 once it is on the wire, or a negative errno (uapi/lite.h).
 */
int lite_rpc_send(u32 node, u32 port, struct iov_iter *src, u32 len, int prio)
{
	if (!node || node >= LITE_MAX_NODES || port >= LITE_MAX_PORT ||
	    !len || prio > LITE_PRIO_LOW)
		return -EINVAL;
	if (len > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	if (!lite_node_id())
		return -ENOTCONN;
	return lite_rpc_send_msg(node, port, src, len, NULL, 0, prio);
}

/*
 * A call to @node with a reply buffer of @max bytes, registered under
 * *@id so that its reply finds it. Charged to @user (LITE_RES_CALLS).
 */
static struct lite_rpc_call *lite_rpc_call_new(struct lite_user *user,
					       u16 node, u32 max, u32 *id)
{
	struct lite_rpc_call *call;
	int ret;

	ret = lite_user_charge(user, LITE_RES_CALLS, 1);
	if (ret)
		return ERR_PTR(ret);
	call = kzalloc(sizeof(*call), GFP_KERNEL);
	if (!call) {
		lite_user_uncharge(user, LITE_RES_CALLS, 1);
		return ERR_PTR(-ENOMEM);
	}
	if (user)
		lite_user_hold(user);
	call->user = user;	/* lite_rpc_call_free() uncharges */
	init_completion(&call->done);
	call->node = node;
	call->max = max;
	/* Held until the call is freed, maybe after the device went away. */
	call->dev = lite_peer_dev_hold(node);
	ret = -ENOTCONN;
	if (!call->dev)
		goto err;
	ret = lite_pool_alloc(max_t(u64, PAGE_SIZE, roundup_pow_of_two(max ?: 1)),
			      false, &call->mem);
	if (ret)
		goto err;
	call->buf = lite_piece_kaddr(&call->mem, 0);
	call->dma = lite_piece_dma(&call->mem, 0);
	ret = xa_alloc_cyclic_irq(&lite_rpc_calls, id, call,
				  XA_LIMIT(1, LITE_CALL_ID_MAX),
				  &lite_rpc_next_call, GFP_KERNEL);
	if (ret < 0)
		goto err;
	return call;
err:
	lite_rpc_call_free(call);
	return ERR_PTR(ret);
}

/*
 * Wait for @call's reply until @deadline (jiffies), polling first if
 * @spin. 0: it completed (call->status says how). -ETIMEDOUT or -EINTR:
 * the call is abandoned, the reply (or the node leaving) frees it, and
 * the caller must not touch it again.
 */
static int lite_rpc_call_wait(struct lite_rpc_call *call,
			      unsigned long deadline, bool spin)
{
	u64 start = ktime_get_ns();
	unsigned long flags;
	long left;

	left = (long)(deadline - jiffies);
	if (spin && left > 0 &&
	    lite_spin(&lite_rpc_reply_hist, lite_spin_completion, &call->done,
		      start, start + jiffies_to_nsecs(left))) {
		lite_wait_learn(&lite_rpc_reply_hist, ktime_get_ns() - start);
		return 0;
	}
	left = (long)(deadline - jiffies);
	if (left > 0)
		left = wait_for_completion_interruptible_timeout(&call->done,
								 left);
	else
		left = completion_done(&call->done);
	if (left > 0) {
		if (spin)
			lite_wait_learn(&lite_rpc_reply_hist,
					ktime_get_ns() - start);
		return 0;
	}
	xa_lock_irqsave(&lite_rpc_calls, flags);
	if (completion_done(&call->done)) {
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		return 0;
	}
	call->abandoned = true;
	xa_unlock_irqrestore(&lite_rpc_calls, flags);
	if (left < 0)
		return -EINTR;
	lite_stat_peer(call->node, LITE_PSTAT_TIMEOUTS, 1);
	return -ETIMEDOUT;
}

/*
 * @call (registered under @id) completed: copy its reply to @dst and free
 * it. Return: the reply's length or a negative errno.
 */
static int lite_rpc_call_end(struct lite_rpc_call *call, u32 id,
			     struct iov_iter *dst)
{
	unsigned long flags;
	int ret;

	if (call->status == -EIO) {
		/*
		 * Our send failed, yet the request may have arrived: the reply
		 * buffer stays out of the pool until the node leaves.
		 */
		xa_lock_irqsave(&lite_rpc_calls, flags);
		call->abandoned = true;
		xa_unlock_irqrestore(&lite_rpc_calls, flags);
		return -EIO;
	}
	xa_erase_irq(&lite_rpc_calls, id);
	ret = call->status;
	if (!ret)
		ret = copy_to_iter(call->buf, call->len, dst) == call->len ?
		      call->len : -EFAULT;
	lite_rpc_call_free(call);
	return ret;
}

/* A call that never reached the wire: nothing can write to its buffer. */
static void lite_rpc_call_drop(struct lite_rpc_call *call, u32 id)
{
	xa_erase_irq(&lite_rpc_calls, id);
	lite_rpc_call_free(call);
}

/**
 * lite_rpc_call() - send a request to (@node, @port) and wait for the reply
 * @user: the caller's account (user_calls), or NULL
 * @node: the receiver
 * @port: its port
 * @src: the request
 * @len: its size, 1 .. LITE_RPC_MAX_MSG
 * @dst: where the reply goes
 * @max: room at @dst, 0 .. LITE_RPC_MAX_MSG
 * @prio: LITE_PRIO_*
 *
 * Waits at most rpc_timeout_ms for ring space and as long again for the
 * reply. The reply buffer stays allocated until the reply comes or the
 * node leaves, even when the caller gave up.
 *
 * Return: the reply's length, or a negative errno (uapi/lite.h); -EDQUOT
 * when @user has user_calls calls waiting (abandoned ones included).
 */
int lite_rpc_call(struct lite_user *user, u32 node, u32 port,
		  struct iov_iter *src, u32 len, struct iov_iter *dst, u32 max,
		  int prio)
{
	struct lite_rpc_call *call;
	u32 id;
	int ret;

	if (!node || node >= LITE_MAX_NODES || port >= LITE_MAX_PORT ||
	    !len || prio > LITE_PRIO_LOW || max > LITE_RPC_MAX_MSG)
		return -EINVAL;
	if (len > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	call = lite_rpc_call_new(user, node, max, &id);
	if (IS_ERR(call))
		return PTR_ERR(call);

	lite_prio_begin(prio);
	ret = lite_rpc_send_msg(node, port, src, len, call, id,
				LITE_PRIO_NORMAL);
	if (ret) {
		lite_prio_end(prio);
		lite_rpc_call_drop(call, id);
		return ret;
	}
	ret = lite_rpc_call_wait(call, jiffies +
				 msecs_to_jiffies(lite_rpc_timeout_ms),
				 prio != LITE_PRIO_LOW);
	lite_prio_end(prio);
	if (ret)
		return ret;
	return lite_rpc_call_end(call, id, dst);
}

/**
 * lite_rpc_mcall() - send one request to several nodes, gather every reply
 * @user: the caller's account (user_calls: one call per destination), or
 *	NULL
 * @dsts: the destinations: node in, status and len out, reply to dst
 * @nr: how many, 1 .. LITE_MCAST_MAX, no node twice
 * @port: the port, the same on every node
 * @src: the request
 * @len: its size, 1 .. LITE_RPC_MAX_MSG
 * @max: room at each destination's dst, 0 .. LITE_RPC_MAX_MSG
 * @prio: LITE_PRIO_*
 *
 * Every request is posted before any reply is waited for, so the calls
 * overlap. A destination that fails (not a member, this node itself, port
 * not registered, no reply) gets its own status and does not fail the
 * others; all replies are waited for until one rpc_timeout_ms after the
 * last request was posted. Lifetimes are those of lite_rpc_call().
 *
 * Return: how many destinations replied (status 0), or a negative errno
 * for the whole call (-EINVAL, -EMSGSIZE, -EFAULT: @src cannot be read,
 * -ENOMEM, -EINTR); then no status is meaningful.
 */
int lite_rpc_mcall(struct lite_user *user, struct lite_rpc_mdst *dsts,
		   unsigned int nr, u32 port, struct iov_iter *src, u32 len,
		   u32 max, int prio)
{
	struct lite_rpc_call *calls[LITE_MCAST_MAX] = {};
	u32 ids[LITE_MCAST_MAX];
	unsigned long deadline;
	struct iov_iter req;
	unsigned int i, j;
	int ret = 0, ok = 0;
	struct kvec kv;
	void *buf;

	if (!nr || nr > LITE_MCAST_MAX || port >= LITE_MAX_PORT || !len ||
	    prio > LITE_PRIO_LOW || max > LITE_RPC_MAX_MSG)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!dsts[i].node || dsts[i].node >= LITE_MAX_NODES)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (dsts[j].node == dsts[i].node)
				return -EINVAL;
	}
	if (len > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	/* Read once: every node gets the same bytes, a fault fails all. */
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_iter(buf, len, src) != len) {
		kvfree(buf);
		return -EFAULT;
	}

	lite_prio_begin(prio);
	for (i = 0; i < nr; i++) {
		struct lite_rpc_call *call;

		dsts[i].len = 0;
		call = lite_rpc_call_new(user, dsts[i].node, max, &ids[i]);
		if (IS_ERR(call)) {
			dsts[i].status = PTR_ERR(call);
			continue;
		}
		kv = (struct kvec) { .iov_base = buf, .iov_len = len };
		iov_iter_kvec(&req, ITER_SOURCE, &kv, 1, len);
		dsts[i].status = lite_rpc_send_msg(dsts[i].node, port, &req,
						   len, call, ids[i],
						   LITE_PRIO_NORMAL);
		if (dsts[i].status) {
			lite_rpc_call_drop(call, ids[i]);
			continue;
		}
		calls[i] = call;
	}
	kvfree(buf);	/* each send copied it */

	deadline = jiffies + msecs_to_jiffies(lite_rpc_timeout_ms);
	for (i = 0; i < nr; i++) {
		if (!calls[i])
			continue;
		/* After a signal: take what is there, abandon the rest. */
		dsts[i].status = lite_rpc_call_wait(calls[i],
						    ret ? jiffies : deadline,
						    !ok && !ret);
		if (dsts[i].status == -EINTR)
			ret = -EINTR;
		if (dsts[i].status) {
			calls[i] = NULL;	/* abandoned */
			continue;
		}
		ok++;
	}
	lite_prio_end(prio);

	ok = 0;
	for (i = 0; i < nr; i++) {
		int r;

		if (!calls[i])
			continue;
		r = lite_rpc_call_end(calls[i], ids[i], &dsts[i].dst);
		dsts[i].status = r < 0 ? r : 0;
		dsts[i].len = r < 0 ? 0 : r;
		if (r >= 0)
			ok++;
	}
	return ret ? ret : ok;
}

/* ---- receiving and replying --------------------------------------------- */

struct lite_rpc_wait_arg {
	struct lite_rpc_port	*port;
	struct lite_ctx		*ctx;
};

static bool lite_rpc_queue_ready(void *arg)
{
	struct lite_rpc_wait_arg *a = arg;

	return !list_empty_careful(&a->port->queue) ||
	       READ_ONCE(a->port->owner) != a->ctx || !lite_node_id();
}

/**
 * lite_rpc_recv() - take the next request on @port
 * @ctx: the context that registered @port
 * @port: the port
 * @dst: where the payload goes
 * @size: room at @dst
 * @nonblock: fail with -EAGAIN instead of waiting
 * @desc: out: the descriptor to reply with, LITE_DESC_NO_REPLY for one-way
 * @src_node: out: the sender
 *
 * Several threads may receive on one port; each request goes to one.
 * A request larger than @size is consumed: -EMSGSIZE here and for its
 * caller.
 *
 * Return: the request's length, or a negative errno.
 */
int lite_rpc_recv(struct lite_ctx *ctx, u32 port, struct iov_iter *dst,
		  u32 size, bool nonblock, u64 *desc, u32 *src_node)
{
	struct lite_rpc_wait_arg arg;
	struct lite_rpc_token *tok;
	struct lite_rpc_msg *msg;
	struct lite_rpc_port *p;
	struct lite_dev *dev;
	int ret;
	u32 id;

	if (port >= LITE_MAX_PORT)
		return -EINVAL;
	p = &lite_rpc.ports[port];
	arg = (struct lite_rpc_wait_arg) { .port = p, .ctx = ctx };
	for (;;) {
		if (!lite_node_id())
			return -ENOTCONN;
		spin_lock_bh(&lite_rpc.lock);
		if (p->owner != ctx) {
			spin_unlock_bh(&lite_rpc.lock);
			return -ENOENT;
		}
		msg = list_first_entry_or_null(&p->queue, struct lite_rpc_msg,
					       queue_link);
		if (msg) {
			list_del_init(&msg->queue_link);
			msg->ring->busy++;
		}
		spin_unlock_bh(&lite_rpc.lock);
		if (msg)
			break;
		if (nonblock)
			return -EAGAIN;
		if (lite_spin(&p->gaps, lite_rpc_queue_ready, &arg,
			      ktime_get_ns(), U64_MAX))
			continue;
		if (wait_event_interruptible(p->wq, lite_rpc_queue_ready(&arg)))
			return -EINTR;
	}

	*src_node = msg->ring->node;
	*desc = LITE_DESC_NO_REPLY;
	if (msg->len > size) {
		lite_rpc_refuse(msg, LITE_RPC_EMSGSIZE);
		return -EMSGSIZE;
	}
	if (copy_to_iter(msg->ring->buf + msg->off + sizeof(struct lite_rpc_hdr),
			 msg->len, dst) != msg->len) {
		lite_rpc_refuse(msg, LITE_RPC_EMSGSIZE);
		return -EFAULT;
	}
	ret = msg->len;
	if (msg->call_id) {
		tok = kmalloc(sizeof(*tok), GFP_KERNEL);
		dev = lite_peer_dev(msg->ring->node, msg->ring->gen);
		if (tok && dev) {
			*tok = (struct lite_rpc_token) {
				.node = msg->ring->node, .gen = msg->ring->gen,
				.call_id = msg->call_id,
				.reply_max = msg->reply_max,
				.reply_rkey = msg->reply_rkey,
				.reply_addr = msg->reply_addr,
			};
			if (xa_alloc_cyclic(&lite_rpc.tokens, &id, tok,
					    xa_limit_31b, &lite_rpc.next_token,
					    GFP_KERNEL) >= 0) {
				lite_ctx_note_token(ctx, id);
				*desc = id;
				tok = NULL;
			}
		}
		if (tok || !dev) {
			kfree(tok);
			ret = dev ? -ENOMEM : -ENOTCONN;
		}
	}
	lite_rpc_release(msg);
	return ret;
}

/**
 * lite_rpc_reply() - answer the request behind @desc, once
 * @ctx: the context that received it
 * @desc: its descriptor
 * @src: the reply
 * @len: its size, at most the caller's room
 * @prio: LITE_PRIO_*
 *
 * A reply larger than the caller's room is not sent: the caller gets
 * -EMSGSIZE, and so does this call.
 *
 * Return: 0 once the reply is on the wire, or a negative errno.
 */
int lite_rpc_reply(struct lite_ctx *ctx, u64 desc, struct iov_iter *src,
		   u32 len, int prio)
{
	struct lite_rpc_token *tok;
	struct lite_rpc_tx *tx;
	struct lite_peer *peer;
	int ret;

	if (prio > LITE_PRIO_LOW)
		return -EINVAL;
	if (desc > INT_MAX || !lite_ctx_forget_token(ctx, desc))
		return -EALREADY;
	tok = xa_erase(&lite_rpc.tokens, desc);
	if (!tok)
		return -EALREADY;
	if (len > tok->reply_max) {
		lite_rpc_post_imm(tok->node, tok->gen,
				  lite_imm_reply(LITE_RPC_EMSGSIZE, tok->call_id));
		kfree(tok);
		return -EMSGSIZE;
	}
	ret = -ENOMEM;
	tx = kmalloc(sizeof(*tx) + len, GFP_KERNEL);
	if (!tx)
		goto out;
	tx->call_id = 0;
	if (copy_from_iter(tx->data, len, src) != len) {
		/* Do not leave the caller waiting for its timeout. */
		lite_rpc_post_imm(tok->node, tok->gen,
				  lite_imm_reply(LITE_RPC_EMSGSIZE, tok->call_id));
		kfree(tx);
		ret = -EFAULT;
		goto out;
	}
	peer = lite_peer_get(tok->node, tok->gen);
	if (!peer) {
		kfree(tx);
		ret = -ENOTCONN;
		goto out;
	}
	lite_prio_begin(prio);
	if (len)
		ret = lite_rpc_post(lite_peer_pick_qp(peer), tx, len,
				    lite_imm_reply(0, tok->call_id),
				    tok->reply_addr, tok->reply_rkey);
	else
		ret = lite_rpc_post(lite_peer_pick_qp(peer), tx, 0,
				    lite_imm_reply(0, tok->call_id), 0, 0);
	lite_prio_end(prio);
out:
	kfree(tok);
	return ret;
}

/**
 * lite_rpc_drop_token() - forget a reply token (its context is going away)
 * @desc: the descriptor
 *
 * The caller gets ECONNREFUSED instead of waiting for its timeout.
 */
void lite_rpc_drop_token(u64 desc)
{
	struct lite_rpc_token *tok = xa_erase(&lite_rpc.tokens, desc);

	if (!tok)
		return;
	lite_rpc_post_imm(tok->node, tok->gen,
			  lite_imm_reply(LITE_RPC_ECONNREFUSED, tok->call_id));
	kfree(tok);
}

/**
 * lite_rpc_ctx_release() - a context goes away: unregister its ports
 * @ctx: the context
 */
void lite_rpc_ctx_release(struct lite_ctx *ctx)
{
	lite_rpc_unregister(ctx);
	flush_work(&lite_rpc_orphans);
}

/* ---- membership --------------------------------------------------------- */

/*
 * @ring is out of the table and its sender's QPs are drained: free it
 * unless a receiver still holds one of its messages. Never waits for one: a receiver may
 * be stuck copying to user memory (FUSE, userfaultfd) indefinitely.
 */
static void lite_rpc_drop_ring(struct lite_rpc_ring *ring)
{
	bool idle;

	/* busy drops, and the walk of ring->msgs, in one critical section */
	spin_lock_bh(&lite_rpc.lock);
	ring->gone = true;
	idle = !ring->busy;
	spin_unlock_bh(&lite_rpc.lock);
	if (idle)
		lite_rpc_ring_free(ring);
}

/**
 * lite_rpc_peer_down() - @node left and its QPs are destroyed
 * @node: the node
 *
 * Fails every call and sender waiting on it, frees the rings it wrote to
 * and the reply buffers it could still have written to.
 */
void lite_rpc_peer_down(u16 node)
{
	struct lite_rpc_ring *rings[LITE_MAX_PORT];
	struct lite_rpc_tx_ring *tr;
	struct lite_rpc_msg *m;
	struct lite_rpc_call *call;
	unsigned long id, flags;
	unsigned int i;

	xa_lock_irqsave(&lite_rpc_calls, flags);
	xa_for_each(&lite_rpc_calls, id, call) {
		if (call->node != node)
			continue;
		if (call->abandoned) {
			__xa_erase(&lite_rpc_calls, id);
			lite_rpc_call_free(call);
		} else if (!completion_done(&call->done)) {
			call->status = -ENOTCONN;
			complete(&call->done);
		}
	}
	xa_unlock_irqrestore(&lite_rpc_calls, flags);

	mutex_lock(&lite_rpc_tx_lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		tr = lite_rpc_tx[node][i];
		if (!tr)
			continue;
		/* Senders waiting for room fail; the last one frees it. */
		WRITE_ONCE(tr->dead, true);
		wake_up_all(&tr->wq);
		WRITE_ONCE(lite_rpc_tx[node][i], NULL);
		lite_rpc_tx_put(tr);
	}
	mutex_unlock(&lite_rpc_tx_lock);

	spin_lock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		rings[i] = lite_rpc.rings[i][node];
		lite_rpc.rings[i][node] = NULL;
		if (!rings[i])
			continue;
		/* Queued requests of the node go with its ring. */
		list_for_each_entry(m, &rings[i]->msgs, ring_link)
			list_del_init(&m->queue_link);
	}
	spin_unlock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++)
		if (rings[i])
			lite_rpc_drop_ring(rings[i]);
}

/**
 * lite_rpc_wake_all() - wake every receiver: this node left the cluster
 * (the module or the device goes away), so they fail with -ENOTCONN
 */
void lite_rpc_wake_all(void)
{
	unsigned int i;

	for (i = 0; i < LITE_MAX_PORT; i++)
		wake_up_all(&lite_rpc.ports[i].wq);
}

void lite_rpc_init(void)
{
	unsigned int i;

	for (i = 0; i < LITE_MAX_PORT; i++) {
		INIT_LIST_HEAD(&lite_rpc.ports[i].queue);
		init_waitqueue_head(&lite_rpc.ports[i].wq);
	}
}
