// SPDX-License-Identifier: GPL-2.0
/*
 * The QP pool: K RC QPs per peer, shared by every application on the node.
 * A peer's QPs are created on PEER_UP (to INIT, receives posted) and
 * connected by the handshake in qp_conn.c; the peer is UP once every QP
 * was READY. A READY QP carries control messages (ctrl.c), RPC (rpc.c) and
 * one-sided data operations (rdma.c); send credits per QP hand out its
 * send queue entries (lite_qp_post()). Any error takes a QP out of use
 * until qp_conn.c has reset and reconnected it.
 */
#include <linux/bottom_half.h>
#include <linux/cred.h>
#include <linux/fault-inject.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "lite_priv.h"

/* For A/B measurements of lite_qp_post()'s bottom-half bracket. */
static bool lite_post_inline_softirq = true;
module_param_named(post_inline_softirq, lite_post_inline_softirq, bool, 0644);
MODULE_PARM_DESC(post_inline_softirq, "post with bottom halves off, so send work a software device defers to softirq runs at once in the posting thread instead of in ksoftirqd (default: Y)");

/*
 * The first message on a QP whose peer does not know yet that ours is
 * connected (qp_conn.c); checked against the peer and epoch we expect.
 */
struct lite_hello {
	__le32	magic;
	__le16	src_node;
	__le16	qp_index;
	__le32	src_gen;
	__le32	epoch;
};

/*
 * Is @lqp, which an async event may have put in error, in error now? The
 * event does not say which connection of the QP it was raised for: mlx5
 * queues QP events from its event queue to a workqueue of its own
 * (hw/mlx5/qp.c, mlx5_ib_qp_event()), so one can arrive after the QP was
 * reset and connected again. The QP's state decides: in ERR (or SQE) it
 * breaks, to be reset and reconnected (qp_conn.c); connected and well, the
 * event was an earlier connection's. ib_query_qp() sleeps (a firmware
 * command on mlx5), and other drivers raise events in interrupt context:
 * hence a work item, with a reference on the peer.
 */
static void lite_qp_event_work(struct work_struct *work)
{
	struct lite_qp *lqp = container_of(work, struct lite_qp, event_work);
	unsigned int resets = READ_ONCE(lqp->recoveries);
	enum lite_qp_state state = READ_ONCE(lqp->state);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int ret;

	/* Being reset (BROKEN), or not connected yet (IDLE): nothing to do. */
	if (state == LITE_QP_CONNECTED || state == LITE_QP_READY) {
		ret = ib_query_qp(lqp->qp, &attr, IB_QP_STATE, &init);
		/* Not if it was reset meanwhile: that reset was for this. */
		if ((ret || attr.qp_state == IB_QPS_ERR ||
		     attr.qp_state == IB_QPS_SQE) &&
		    READ_ONCE(lqp->recoveries) == resets)
			lite_qp_break(lqp, ib_event_msg(READ_ONCE(lqp->event)));
	}
	lite_peer_put(lqp->peer);
}

/*
 * A QP's async events. What mlx5 raises (hw/mlx5/qp.c,
 * mlx5_ib_handle_qp_event(), from the NIC's event queue entries):
 *  QP_FATAL (WQ_CATAS_ERROR): the NIC failed to process the QP's work
 *	queue (a WQE it cannot execute, an internal error); the QP is in
 *	ERR and its posted work may not all complete, so this event can be
 *	the only sign of it.
 *  QP_REQ_ERR (WQ_INVAL_REQ_ERROR): our QP, as responder, got a request
 *	it cannot execute (an opcode it does not take, a malformed packet
 *	sequence); it NAKs it and goes to ERR.
 *  QP_ACCESS_ERR (WQ_ACCESS_ERROR): our QP, as responder, refused a
 *	peer's READ, WRITE or atomic (rkey, bounds or rights: what the
 *	debugfs rdma probe does); it NAKs it and goes to ERR, the peer's
 *	WR completes with a remote access error.
 *  COMM_EST: a packet arrived while the QP was in RTR. LITE moves a QP to
 *	RTS right after RTR; harmless, not logged.
 *  SQ_DRAINED: the send queue drained after a move to SQD; LITE never
 *	moves a QP to SQD.
 *  PATH_MIG, PATH_MIG_ERR: automatic path migration to an alternate path
 *	happened or failed; LITE loads no alternate path.
 *  QP_LAST_WQE_REACHED: a QP on an SRQ; LITE has none.
 * Each but COMM_EST is logged and has the QP's state looked at
 * (lite_qp_event_work()): in error, it breaks. In error, a QP also
 * flushes the receives it always has posted, and their completions break
 * it as well (lite_rx_done()), unless its CQ failed or the NIC could not
 * complete them (QP_FATAL). rxe raises none of the error events: its QPs
 * in error show only in completions.
 *
 * Context: any (mlx5: its workqueue; others: interrupt context).
 */
static void lite_qp_event(struct ib_event *event, void *context)
{
	struct lite_qp *lqp = context;
	struct lite_peer *peer = lqp->peer;
	unsigned long flags;

	if (event->event == IB_EVENT_COMM_EST)
		return;
	lite_peer_warn(peer, "QP %u: async event %s\n", lqp->index,
		       ib_event_msg(event->event));
	WRITE_ONCE(lqp->event, event->event);
	/* Under the lock: lite_peer_destroy() cancels it once closing. */
	spin_lock_irqsave(&peer->lock, flags);
	if (!peer->closing) {
		/* The table's reference is held until closing: not the last. */
		refcount_inc(&peer->refs);
		if (!queue_work(lite_dev_wq, &lqp->event_work))
			refcount_dec(&peer->refs);
	}
	spin_unlock_irqrestore(&peer->lock, flags);
}

static int lite_post_rx(struct lite_rx_buf *rx)
{
	struct lite_peer *peer = rx->lqp->peer;
	struct ib_sge sge = {
		.addr	= rx->dma,
		.length	= LITE_RX_BUF_SIZE,
		.lkey	= peer->dev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rx->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	return ib_post_recv(rx->lqp->qp, &wr, NULL);
}

/*
 * Is a received message the peer's hello (of any epoch)? No other is 16
 * bytes sans imm.
 */
static bool lite_qp_is_hello(const struct lite_qp *lqp, const struct ib_wc *wc,
			     const void *data)
{
	const struct lite_hello *h = data;

	return wc->byte_len == sizeof(*h) && !(wc->wc_flags & IB_WC_WITH_IMM) &&
	       le32_to_cpu(h->magic) == LITE_PROTO_MAGIC &&
	       le16_to_cpu(h->src_node) == lqp->peer->id &&
	       le32_to_cpu(h->src_gen) == lqp->peer->gen &&
	       le16_to_cpu(h->qp_index) == lqp->index;
}

/*
 * A hello says which connection of the QP pair it was sent on: the epoch
 * both ends connected at (qp_conn.c). @lqp's epoch changes only while it
 * cannot receive (IDLE, BROKEN), so a hello of another epoch is an
 * earlier connection's packet that our QP took for the current one's
 * (its PSN hit the one expected): our QP is not known to be connected at
 * the peer, and the packet the peer sends with that PSN will be taken
 * for a duplicate and dropped. The QP is reconnected.
 */
static bool lite_qp_hello_stale(struct lite_qp *lqp, const void *data)
{
	const struct lite_hello *h = data;
	u32 epoch = READ_ONCE(lqp->epoch);

	if (le32_to_cpu(h->epoch) == epoch)
		return false;
	lite_peer_warn(lqp->peer, "QP %u: a hello of epoch %u at epoch %u\n",
		       lqp->index, le32_to_cpu(h->epoch), epoch);
	lite_qp_break(lqp, "a hello of another epoch");
	return true;
}

static void lite_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rx_buf *rx = container_of(wc->wr_cqe, struct lite_rx_buf, cqe);
	struct lite_qp *lqp = rx->lqp;
	struct lite_peer *peer = lqp->peer;
	unsigned long flags;
	bool hello;

	if (wc->status != IB_WC_SUCCESS) {
		/* Failed or flushed: the QP is in error. Its reset reposts. */
		lite_qp_break(lqp, ib_wc_status_msg(wc->status));
		return;
	}
	ib_dma_sync_single_for_cpu(peer->dev->ibdev, rx->dma, LITE_RX_BUF_SIZE,
				   DMA_FROM_DEVICE);
	hello = lite_qp_is_hello(lqp, wc, rx->data);
	if (hello && lite_qp_hello_stale(lqp, rx->data))
		goto repost;
	/* Only a peer that knows ours is connected sends. */
	lite_qp_hello_arrived(lqp);
	/*
	 * Whatever the state: the peer's NIC has its ACK, so the message
	 * counts (one on a QP broken in software but still in RTS, too; the
	 * drain before any reset orders it before the next epoch's).
	 */
	if (wc->wc_flags & IB_WC_WITH_IMM)
		lite_rx_ops.imm(peer, wc);	/* RPC: data is in a ring */
	else if (!hello)
		lite_rx_ops.msg(peer, rx->data, wc->byte_len);
repost:
	ib_dma_sync_single_for_device(peer->dev->ibdev, rx->dma,
				      LITE_RX_BUF_SIZE, DMA_FROM_DEVICE);
	/*
	 * Under the lock: once teardown set closing, or an error BROKEN (its
	 * drain and reset repost every buffer), nothing is reposted.
	 */
	spin_lock_irqsave(&peer->lock, flags);
	if (!peer->closing && lqp->state != LITE_QP_BROKEN && lite_post_rx(rx))
		lite_peer_warn(peer, "QP %u: cannot repost a receive\n",
			       lqp->index);
	spin_unlock_irqrestore(&peer->lock, flags);
}

static void lite_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_qp *lqp = container_of(wc->wr_cqe, struct lite_qp, tx_cqe);

	/* Under the pollers' lock, as lite_qp_posted_lost()'s look. */
	if (lqp->tx_hello) {
		lqp->tx_hello = false;
		lite_cq_await_end(lqp->peer->dev);
	}
	if (wc->status != IB_WC_SUCCESS)
		lite_qp_break(lqp, "hello failed");
}

static void lite_qp_free_bufs(struct lite_qp *lqp)
{
	struct ib_device *ibdev = lqp->peer->dev->ibdev;
	int i;

	for (i = 0; i < LITE_RX_DEPTH; i++) {
		struct lite_rx_buf *rx = &lqp->rx[i];

		if (!rx->data)
			continue;
		if (rx->dma)
			ib_dma_unmap_single(ibdev, rx->dma, LITE_RX_BUF_SIZE,
					    DMA_FROM_DEVICE);
		kfree(rx->data);
	}
	if (lqp->tx_dma)
		ib_dma_unmap_single(ibdev, lqp->tx_dma, sizeof(struct lite_hello),
				    DMA_TO_DEVICE);
	kfree(lqp->tx_data);
}

static int lite_qp_alloc_bufs(struct lite_qp *lqp)
{
	struct ib_device *ibdev = lqp->peer->dev->ibdev;
	int i;

	for (i = 0; i < LITE_RX_DEPTH; i++) {
		struct lite_rx_buf *rx = &lqp->rx[i];

		rx->lqp = lqp;
		rx->cqe.done = lite_rx_done;
		rx->data = kzalloc_node(LITE_RX_BUF_SIZE, GFP_KERNEL,
					lqp->peer->dev->node);
		if (!rx->data)
			return -ENOMEM;
		rx->dma = ib_dma_map_single(ibdev, rx->data, LITE_RX_BUF_SIZE,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ibdev, rx->dma)) {
			rx->dma = 0;
			return -ENOMEM;
		}
	}
	lqp->tx_cqe.done = lite_tx_done;
	lqp->tx_data = kzalloc(sizeof(struct lite_hello), GFP_KERNEL);
	if (!lqp->tx_data)
		return -ENOMEM;
	lqp->tx_dma = ib_dma_map_single(ibdev, lqp->tx_data,
					sizeof(struct lite_hello), DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, lqp->tx_dma)) {
		lqp->tx_dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * lite_qp_modify_init() - move a new RC QP of LITE's to INIT
 * @dev: its device
 * @qp: the QP
 *
 * Peers may read, write and (where the device has atomics) run atomics on
 * LITE memory through it (what they reach is bounded by the keys they
 * hold, pool.c).
 *
 * Return: 0 or a negative errno.
 */
int lite_qp_modify_init(struct lite_dev *dev, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state	= IB_QPS_INIT,
		.pkey_index	= 0,
		.port_num	= dev->port,
		.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};

	/* mlx5 refuses the QP's RTR on a function without atomics. */
	if (lite_dev_atomics(dev))
		attr.qp_access_flags |= IB_ACCESS_REMOTE_ATOMIC;

	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

/**
 * lite_qp_rd_atomic() - RDMA reads and atomics a QP of ours keeps in flight
 * @dev: our device
 * @addr: the remote port's address, with what its QPs take (rd_atom)
 *
 * No more than the responder takes: a NIC NAKs reads beyond its
 * max_dest_rd_atomic, and the QP goes to error.
 *
 * Return: the QP's max_rd_atomic.
 */
u8 lite_qp_rd_atomic(const struct lite_dev *dev,
		     const struct lite_port_addr *addr)
{
	return min3(LITE_RD_ATOMIC, dev->ibdev->attrs.max_qp_init_rd_atom,
		    (int)addr->rd_atom);
}

/**
 * lite_qp_modify_rts() - connect a QP in INIT to a remote QP (RTR, RTS)
 * @dev: its device
 * @qp: the QP
 * @addr: the remote port's address (our own for a loopback QP)
 * @av: its next hop (lite_av_resolve())
 * @remote_qpn: the remote QP's number
 * @remote_psn: its first packet sequence number
 * @sq_psn: ours
 *
 * Return: 0 or a negative errno.
 */
int lite_qp_modify_rts(struct lite_dev *dev, struct ib_qp *qp,
		       const struct lite_port_addr *addr,
		       const struct lite_av *av, u32 remote_qpn,
		       u32 remote_psn, u32 sq_psn)
{
	struct ib_qp_attr attr = {
		.qp_state		= IB_QPS_RTR,
		.path_mtu		= av->mtu,
		.dest_qp_num		= remote_qpn,
		.rq_psn			= remote_psn,
		.max_dest_rd_atomic	= dev->rd_atom,
		.min_rnr_timer		= LITE_MIN_RNR_TIMER,
	};
	int ret;

	ret = lite_fill_av(dev, addr, av, &attr.ah_attr);
	if (ret)
		return ret;
	/* The core takes its own reference to the GID entry for the QP. */
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (attr.ah_attr.grh.sgid_attr)
		rdma_put_gid_attr(attr.ah_attr.grh.sgid_attr);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = sq_psn;
	attr.timeout = READ_ONCE(lite_param_qp_timeout);
	attr.retry_cnt = READ_ONCE(lite_param_qp_retry);
	attr.rnr_retry = LITE_RNR_INFINITE;
	attr.max_rd_atomic = lite_qp_rd_atomic(dev, addr);
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* An RC QP of ours in INIT that receives nothing, on the shared CQ. */
static struct ib_qp *lite_qp_create_bare(struct lite_dev *dev, u32 depth)
{
	struct ib_qp_init_attr init = {
		.send_cq	= dev->cq,
		.recv_cq	= dev->cq,
		.cap = {
			.max_send_wr	= depth,
			.max_recv_wr	= 1,
			.max_send_sge	= 1,
			.max_recv_sge	= 1,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
	};
	struct ib_qp *qp;
	int ret;

	qp = ib_create_qp(dev->pd, &init);
	if (IS_ERR(qp))
		return qp;
	ret = lite_qp_modify_init(dev, qp);
	if (ret) {
		ib_destroy_qp(qp);
		return ERR_PTR(ret);
	}
	return qp;
}

/**
 * lite_qp_create_loopback() - an RC QP connected to itself
 * @dev: the device
 * @depth: send queue entries (it receives nothing)
 *
 * For local work requests on this node's memory (registrations, pool.c).
 *
 * Return: the QP in RTS, or an ERR_PTR.
 */
struct ib_qp *lite_qp_create_loopback(struct lite_dev *dev, u32 depth)
{
	struct lite_port_addr self;
	struct lite_av av;
	struct ib_qp *qp;
	u32 psn = get_random_u32() & 0xffffff;
	int ret;

	qp = lite_qp_create_bare(dev, depth);
	if (IS_ERR(qp))
		return qp;
	lite_dev_port_addr(dev, &self);
	ret = lite_av_resolve(dev, &self, &av) ?:
	      lite_qp_modify_rts(dev, qp, &self, &av, qp->qp_num, psn, psn);
	if (ret) {
		ib_destroy_qp(qp);
		return ERR_PTR(ret);
	}
	return qp;
}

/**
 * lite_qp_create_loopback_pair() - two RC QPs connected to each other
 * @dev: the device
 * @depth: send queue entries of each
 * @qps: set to the two QPs in RTS; work posted on qps[0] is executed by
 *	qps[1] as if from a peer
 *
 * For remote operations on this node's own memory (atomics, atomic.c).
 * A pair rather than one QP connected to itself: rxe never completes a
 * remote operation a QP sends to itself.
 *
 * Return: 0 or a negative errno.
 */
int lite_qp_create_loopback_pair(struct lite_dev *dev, u32 depth,
				 struct ib_qp *qps[2])
{
	struct lite_port_addr self;
	struct lite_av av;
	u32 psn[2] = {
		get_random_u32() & 0xffffff, get_random_u32() & 0xffffff,
	};
	int i, ret = 0;

	qps[0] = lite_qp_create_bare(dev, depth);
	if (IS_ERR(qps[0]))
		return PTR_ERR(qps[0]);
	qps[1] = lite_qp_create_bare(dev, 1);
	if (IS_ERR(qps[1])) {
		ib_destroy_qp(qps[0]);
		return PTR_ERR(qps[1]);
	}
	lite_dev_port_addr(dev, &self);
	ret = lite_av_resolve(dev, &self, &av);
	for (i = 0; i < 2 && !ret; i++)
		ret = lite_qp_modify_rts(dev, qps[i], &self, &av,
					 qps[!i]->qp_num, psn[!i], psn[i]);
	if (ret) {
		ib_destroy_qp(qps[0]);
		ib_destroy_qp(qps[1]);
	}
	return ret;
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static DECLARE_FAULT_ATTR(lite_fail_qp_create);

/* debugfs lite/fail_qp_create: the kernel's fault injection (debugfs.c). */
void lite_qp_faults_init(struct dentry *dir)
{
	fault_create_debugfs_attr("fail_qp_create", dir, &lite_fail_qp_create);
}

/* Should creating the next QP of a peer fail (as ib_create_qp() can)? */
static bool lite_should_fail_qp_create(void)
{
	return should_fail(&lite_fail_qp_create, 1);
}
#else
static bool lite_should_fail_qp_create(void)
{
	return false;
}
#endif

/* Create one QP, move it to INIT and post its receives. */
static int lite_qp_create(struct lite_peer *peer, struct lite_qp *lqp)
{
	struct lite_dev *dev = peer->dev;
	struct ib_qp_init_attr init = {
		.event_handler	= lite_qp_event,
		.qp_context	= lqp,
		.send_cq	= dev->cq,
		.recv_cq	= dev->cq,
		.cap = {
			.max_send_wr	= LITE_QP_SEND_WR,
			.max_recv_wr	= LITE_QP_RECV_WR,
			.max_send_sge	= 1,
			.max_recv_sge	= 1,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
	};
	int i, ret;

	spin_lock_init(&lqp->tx_lock);
	INIT_LIST_HEAD(&lqp->tx_held);
	INIT_LIST_HEAD(&lqp->tx_waiters);
	init_waitqueue_head(&lqp->tx_wq);
	lqp->state = LITE_QP_IDLE;
	ret = lite_qp_alloc_bufs(lqp);
	if (ret)
		return ret;
	if (lite_should_fail_qp_create())
		return -ENOMEM;
	lqp->qp = ib_create_qp(dev->pd, &init);
	if (IS_ERR(lqp->qp)) {
		ret = PTR_ERR(lqp->qp);
		lqp->qp = NULL;
		return ret;
	}
	lqp->qpn = lqp->qp->qp_num;
	lqp->psn = get_random_u32() & 0xffffff;
	ret = lite_qp_modify_init(dev, lqp->qp);
	if (ret)
		return ret;
	lqp->inited = true;
	for (i = 0; i < LITE_RX_DEPTH; i++) {
		ret = lite_post_rx(&lqp->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A reconnection queued by qp_conn.c, with a reference the work consumes. */
static void lite_peer_recover_fn(struct work_struct *work)
{
	lite_dev_ops.peer_recover(container_of(to_delayed_work(work),
					       struct lite_peer, recover_work));
}

/**
 * lite_peer_create() - create a peer's K QPs, ready for its QP_INFO
 * @dev: the RDMA device
 * @id: the peer's node id
 * @gen: the peer's generation (incarnation of @id)
 * @up: the manager's PEER_UP message, already validated
 * @nr_qps: the cluster's K
 * @my_id: this node's id, as the peer knows it (the hello says so)
 * @my_gen: this node's generation
 *
 * On RoCE the peer's next-hop MAC is resolved first (ARP or ND, up to
 * about five seconds): without it a NIC cannot reach the peer.
 *
 * Context: process context, membership lock held.
 * Return: the peer, or an ERR_PTR.
 */
struct lite_peer *lite_peer_create(struct lite_dev *dev, u16 id, u32 gen,
				   const struct lite_msg_peer_up *up,
				   unsigned int nr_qps, u16 my_id, u32 my_gen)
{
	struct lite_peer *peer;
	struct lite_av av;
	unsigned int i;
	int ret;

	ret = lite_av_resolve(dev, &up->addr, &av);
	if (ret) {
		lite_node_err(id, gen, "no MAC address for %pI6c (%d): not connecting, a RoCE NIC would send to 00:00:00:00:00:00\n",
			      up->addr.gid, ret);
		return ERR_PTR(ret);
	}

	/* Room in the CQ for every completion its QPs can have. */
	ret = lite_cq_reserve(dev, nr_qps * LITE_QP_CQES);
	if (ret) {
		lite_node_err(id, gen, "no room in the CQ of %s for its %u QPs (%d completions of %d are taken): not connecting; a smaller qps_per_peer on every node makes room\n",
			      dev_name(&dev->ibdev->dev), nr_qps,
			      dev->cq->cqe - LITE_CQ_LOOPBACK -
			      atomic_read(&dev->cq_room), dev->cq->cqe);
		return ERR_PTR(ret);
	}
	peer = kzalloc(struct_size(peer, qps, nr_qps), GFP_KERNEL);
	if (!peer) {
		lite_cq_unreserve(dev, nr_qps * LITE_QP_CQES);
		return ERR_PTR(-ENOMEM);
	}
	peer->cq_cqes = nr_qps * LITE_QP_CQES;
	peer->id = id;
	peer->gen = gen;
	peer->dev = dev;
	peer->nr_qps = nr_qps;
	peer->addr = up->addr;
	peer->av = av;
	peer->my_id = my_id;
	peer->my_gen = my_gen;
	peer->state = LITE_PEER_CREATED;
	INIT_DELAYED_WORK(&peer->recover_work, lite_peer_recover_fn);
	refcount_set(&peer->refs, 1);
	lite_dev_hold(dev);	/* until the last reference (lite_peer_put) */
	spin_lock_init(&peer->lock);
	strscpy(peer->name, up->name, sizeof(peer->name));
	/* All first: lite_peer_destroy() below walks every one of them. */
	for (i = 0; i < nr_qps; i++) {
		peer->qps[i].peer = peer;
		peer->qps[i].index = i;
		INIT_WORK(&peer->qps[i].event_work, lite_qp_event_work);
	}
	for (i = 0; i < nr_qps; i++) {
		ret = lite_qp_create(peer, &peer->qps[i]);
		if (ret) {
			lite_node_err(id, gen, "creating QP %u failed: %d\n", i,
				      ret);
			lite_peer_destroy(peer);
			return ERR_PTR(ret);
		}
	}
	return peer;
}

/**
 * lite_qp_connect() - connect @lqp to the peer's QP (RTR, RTS)
 * @lqp: a QP in INIT
 * @remote_qpn: the peer's QP number
 * @remote_psn: its first packet sequence number
 *
 * Context: process context, membership lock held.
 * Return: 0 or a negative errno.
 */
int lite_qp_connect(struct lite_qp *lqp, u32 remote_qpn, u32 remote_psn)
{
	struct lite_peer *peer = lqp->peer;
	int ret;

	ret = lite_qp_modify_rts(peer->dev, lqp->qp, &peer->addr, &peer->av,
				 remote_qpn, remote_psn, lqp->psn);
	if (!ret)
		lqp->dqpn = remote_qpn;
	return ret;
}

/**
 * lite_qp_send_hello() - tell the peer that @lqp is connected, in-band
 * @lqp: a QP in RTS, not yet in use
 *
 * Context: process context, membership lock held.
 * Return: 0 or the provider's error.
 */
int lite_qp_send_hello(struct lite_qp *lqp)
{
	struct lite_dev *dev = lqp->peer->dev;
	struct lite_hello *h = lqp->tx_data;
	struct ib_sge sge = {
		.addr	= lqp->tx_dma,
		.length	= sizeof(*h),
		.lkey	= dev->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &lqp->tx_cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED | IB_SEND_SOLICITED,
	};
	int ret;

	*h = (struct lite_hello) {
		.magic		= cpu_to_le32(LITE_PROTO_MAGIC),
		.src_node	= cpu_to_le16(lqp->peer->my_id),
		.qp_index	= cpu_to_le16(lqp->index),
		.src_gen	= cpu_to_le32(lqp->peer->my_gen),
		.epoch		= cpu_to_le32(lqp->epoch),
	};
	ib_dma_sync_single_for_device(dev->ibdev, lqp->tx_dma, sizeof(*h),
				      DMA_TO_DEVICE);
	/*
	 * Awaited: nobody sleeps for it, but its failure must raise an
	 * event to break the QP, and rxe reports a failed send unsolicited.
	 */
	lite_cq_await_begin(dev);
	spin_lock_bh(&dev->cq_lock);
	lqp->tx_hello = true;
	spin_unlock_bh(&dev->cq_lock);
	ret = ib_post_send(lqp->qp, &wr, NULL);
	if (ret) {
		spin_lock_bh(&dev->cq_lock);
		lqp->tx_hello = false;
		spin_unlock_bh(&dev->cq_lock);
		lite_cq_await_end(dev);
	}
	return ret;
}

static void lite_qp_posted_lost(struct lite_qp *lqp);

/**
 * lite_qp_reset() - take a BROKEN QP back to INIT with fresh receives
 * @lqp: the QP, out of use
 *
 * Flushes what is still posted (each work request's completion runs first,
 * so its owner sees the error), then RESET, INIT, every receive posted
 * again and a new first PSN: the QP can be connected afresh.
 *
 * Context: process context, membership lock held.
 * Return: 0 or a negative errno.
 */
int lite_qp_reset(struct lite_qp *lqp)
{
	struct lite_dev *dev = lqp->peer->dev;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int i, ret;

	/*
	 * Moves it to ERR itself; nothing posts meanwhile (not READY). Not
	 * from RESET, where an earlier reset may have left it: RESET -> ERR
	 * is no transition.
	 */
	if (lqp->inited)
		lite_cq_drain_qp(dev, lqp->qp, true);
	ret = ib_modify_qp(lqp->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	lite_qp_posted_lost(lqp);	/* if the drain gave up */
	lqp->inited = false;
	ret = lite_qp_modify_init(dev, lqp->qp);
	if (ret)
		return ret;
	lqp->inited = true;
	for (i = 0; i < LITE_RX_DEPTH && !ret; i++)
		ret = lite_post_rx(&lqp->rx[i]);
	lqp->psn = get_random_u32() & 0xffffff;
	return ret;
}

/**
 * lite_peer_pick_qp() - the QP of @peer the next operation goes out on
 * @peer: a peer the caller holds a reference on
 *
 * Round robin over the READY ones, so that concurrent operations spread
 * over the K QPs.
 */
struct lite_qp *lite_peer_pick_qp(struct lite_peer *peer)
{
	unsigned int i = atomic_inc_return(&peer->next_qp);
	unsigned int n;

	/* Past the ones being reconnected, while another is READY. */
	for (n = 0; n < peer->nr_qps; n++, i++) {
		struct lite_qp *lqp = &peer->qps[i % peer->nr_qps];

		if (READ_ONCE(lqp->state) == LITE_QP_READY)
			return lqp;
	}
	return &peer->qps[i % peer->nr_qps];
}

/* ---- send credits ------------------------------------------------------- */

/*
 * One credit per send queue entry: nothing is posted past LITE_TX_DEPTH.
 * Control messages may take any credit; every other work request is
 * charged to the uid of the task that posts it, and those together leave
 * LITE_TX_CTRL_RESERVE free, one uid's at most LITE_TX_USER_MAX. So one
 * user's posted operations never hold all of a peer's credits, and
 * membership, locks and revocation always find some. Waiters are served
 * in order, each as soon as its class and uid allow.
 */
#define LITE_TX_NOUID	U32_MAX	/* a control message's: not charged */
#define LITE_TX_WAIT	(10 * HZ)

static u32 lite_tx_uid(const struct ib_send_wr *wr)
{
	if (wr->opcode == IB_WR_SEND)
		return LITE_TX_NOUID;
	return from_kuid_munged(&init_user_ns, current_fsuid());
}

/* May one more work request charged to @uid be posted or held? */
static bool lite_tx_may_take(struct lite_qp *lqp, u32 uid)
{
	struct lite_qp_credit *cr;
	unsigned int i, mine = 0;

	lockdep_assert_held(&lqp->tx_lock);
	if (lqp->tx_used >= LITE_TX_DEPTH)
		return false;
	if (uid == LITE_TX_NOUID)
		return true;
	if (lqp->tx_charged >= LITE_TX_DEPTH - LITE_TX_CTRL_RESERVE)
		return false;
	if (lqp->tx_charged < LITE_TX_USER_MAX)
		return true;
	for (i = 0; i < lqp->tx_posted; i++)
		mine += lqp->tx_uid[(lqp->tx_first + i) % LITE_TX_DEPTH] == uid;
	list_for_each_entry(cr, &lqp->tx_held, link)
		mine += cr->uid == uid;
	return mine < LITE_TX_USER_MAX;
}

static void lite_tx_take(struct lite_qp *lqp, u32 uid)
{
	lqp->tx_used++;
	if (uid != LITE_TX_NOUID)
		lqp->tx_charged++;
}

/* Grant what is free to the waiters, in order; true: wake them. */
static bool lite_tx_grant(struct lite_qp *lqp)
{
	struct lite_qp_credit *cr, *tmp;
	bool granted = false;

	lockdep_assert_held(&lqp->tx_lock);
	list_for_each_entry_safe(cr, tmp, &lqp->tx_waiters, link) {
		if (lqp->tx_used >= LITE_TX_DEPTH)
			break;
		if (!lite_tx_may_take(lqp, cr->uid))
			continue;
		lite_tx_take(lqp, cr->uid);
		list_move_tail(&cr->link, &lqp->tx_held);
		WRITE_ONCE(cr->granted, true);
		granted = true;
	}
	return granted;
}

static bool lite_tx_give(struct lite_qp *lqp, u32 uid)
{
	lockdep_assert_held(&lqp->tx_lock);
	if (!WARN_ON_ONCE(!lqp->tx_used)) {
		lqp->tx_used--;
		if (uid != LITE_TX_NOUID && !WARN_ON_ONCE(!lqp->tx_charged))
			lqp->tx_charged--;
	}
	return lite_tx_grant(lqp);
}

static bool lite_tx_granted(struct lite_qp *lqp, struct lite_qp_credit *cr)
{
	return READ_ONCE(cr->granted) || READ_ONCE(lqp->state) != LITE_QP_READY;
}

/* Wait for a credit charged to @uid; @cr is in tx_held on success. */
static int lite_tx_reserve(struct lite_qp *lqp, struct lite_qp_credit *cr,
			   const struct ib_cqe *cqe, u32 uid,
			   unsigned long deadline)
{
	struct lite_peer *peer = lqp->peer;
	unsigned long flags;
	bool wake;
	long left = 1;
	int ret = 0;

	if (READ_ONCE(lqp->state) != LITE_QP_READY)
		return READ_ONCE(peer->closing) ? -ENOTCONN : -EAGAIN;
	*cr = (struct lite_qp_credit) { .cqe = cqe, .uid = uid };
	/* Behind the waiters: the first that may take a credit gets it. */
	spin_lock_irqsave(&lqp->tx_lock, flags);
	list_add_tail(&cr->link, &lqp->tx_waiters);
	wake = lite_tx_grant(lqp);
	spin_unlock_irqrestore(&lqp->tx_lock, flags);
	if (wake)
		wake_up_all(&lqp->tx_wq);
	/*
	 * Killable, and bounded for kernel threads and workers, which no
	 * signal ends: completions and flushes give credits back.
	 */
	/*
	 * Credits come back with completions, of replies too, which
	 * nobody else may be waiting for: have them raise events.
	 */
	if (!READ_ONCE(cr->granted)) {
		lite_cq_await_begin(peer->dev);
		left = wait_event_killable_timeout(lqp->tx_wq,
				lite_tx_granted(lqp, cr),
				max_t(long, (long)(deadline - jiffies), 1));
		lite_cq_await_end(peer->dev);
	}
	spin_lock_irqsave(&lqp->tx_lock, flags);
	if (!cr->granted) {
		list_del_init(&cr->link);
		if (left < 0)
			ret = -EINTR;
		else if (READ_ONCE(lqp->state) != LITE_QP_READY)
			ret = READ_ONCE(peer->closing) ? -ENOTCONN : -EAGAIN;
		else
			ret = -ETIMEDOUT;
	}
	spin_unlock_irqrestore(&lqp->tx_lock, flags);
	return ret;
}

/**
 * lite_qp_reserve() - take a send credit of @lqp for one work request
 * @lqp: a QP of a peer the caller holds a reference on
 * @cr: the credit, until lite_qp_unreserve()
 * @cqe: the work request's wr_cqe: its lite_qp_post() uses the credit
 *	instead of waiting for one
 * @deadline: in jiffies
 *
 * For a caller that posts under a lock of its own: the wait for a send
 * queue entry comes before the lock. Charged to the current task's uid.
 *
 * Context: process context; the wait is killable.
 * Return: 0, -EINTR on a fatal signal, -ETIMEDOUT, -EAGAIN while the QP
 * is being reconnected, -ENOTCONN when the peer is going away.
 */
int lite_qp_reserve(struct lite_qp *lqp, struct lite_qp_credit *cr,
		    const struct ib_cqe *cqe, unsigned long deadline)
{
	return lite_tx_reserve(lqp, cr, cqe,
			       from_kuid_munged(&init_user_ns, current_fsuid()),
			       deadline);
}

/**
 * lite_qp_unreserve() - give back a credit of lite_qp_reserve() that no
 * post used
 * @lqp: its QP
 * @cr: the credit; nothing is done if a post used it
 *
 * Context: any.
 */
void lite_qp_unreserve(struct lite_qp *lqp, struct lite_qp_credit *cr)
{
	unsigned long flags;
	bool wake = false;

	spin_lock_irqsave(&lqp->tx_lock, flags);
	if (!list_empty(&cr->link)) {
		list_del_init(&cr->link);
		wake = lite_tx_give(lqp, cr->uid);
	}
	spin_unlock_irqrestore(&lqp->tx_lock, flags);
	if (wake)
		wake_up_all(&lqp->tx_wq);
}

/* A work request of lite_qp_post() completed, or was not posted after all. */
static void lite_qp_posted_end(struct lite_dev *dev, bool awaited)
{
	if (awaited)
		lite_cq_await_end(dev);
	else
		lite_cq_unawaited_end(dev);
}

/*
 * @lqp's work requests still posted will never complete: the drain gave up
 * (the CQ failed) and the QP was reset or destroyed, so no completion of
 * it is written any more; those already written are handled first
 * (lite_cq_settle()). The rest end here: their counts in the CQ's arming,
 * their send credits, the hello's wait. Nothing when the drain ended.
 * Context: process context, membership lock held; nothing posts on @lqp.
 */
struct lite_qp_lost {
	struct lite_qp	*lqp;
	u32		lost, awaited;	/* ring slots */
	bool		hello, wake;
};

/* Under the pollers' lock: no completion of @arg's QP is handled after. */
static void lite_qp_take_lost(void *arg)
{
	struct lite_qp_lost *l = arg;
	struct lite_qp *lqp = l->lqp;
	unsigned long flags;
	unsigned int at;

	l->hello = lqp->tx_hello;
	lqp->tx_hello = false;
	spin_lock_irqsave(&lqp->tx_lock, flags);
	for (; lqp->tx_posted; lqp->tx_posted--) {
		at = lqp->tx_first;
		l->lost |= BIT(at);
		l->awaited |= lqp->tx_awaited & BIT(at);
		l->wake |= lite_tx_give(lqp, lqp->tx_uid[at]);
		lqp->tx_first = (at + 1) % LITE_TX_DEPTH;
	}
	spin_unlock_irqrestore(&lqp->tx_lock, flags);
}

static void lite_qp_posted_lost(struct lite_qp *lqp)
{
	struct lite_dev *dev = lqp->peer->dev;
	struct lite_qp_lost l = { .lqp = lqp };
	unsigned int at;

	lite_cq_settle(dev, lite_qp_take_lost, &l);
	if (l.hello)
		lite_cq_await_end(dev);
	for (at = 0; at < LITE_TX_DEPTH; at++)
		if (l.lost & BIT(at))
			lite_qp_posted_end(dev, l.awaited & BIT(at));
	if (l.wake)
		wake_up_all(&lqp->tx_wq);
}

/*
 * Post @wr with a credit held for it, or one free now to a newcomer.
 * -EBUSY: none; the caller waits for one.
 */
static int lite_qp_try_post(struct lite_qp *lqp, const struct ib_send_wr *wr,
			    u32 uid, bool awaited)
{
	struct lite_peer *peer = lqp->peer;
	bool bh_off = READ_ONCE(lite_post_inline_softirq);
	struct lite_qp_credit *cr, *held = NULL;
	unsigned long flags;
	bool wake = false;
	int ret;

	if (READ_ONCE(lqp->state) != LITE_QP_READY)
		return READ_ONCE(peer->closing) ? -ENOTCONN : -EAGAIN;
	/*
	 * Soft-RoCE sends from a tasklet for kernel QPs. Raised here with
	 * interrupts off but outside softirq, it wakes ksoftirqd, and the
	 * poster's spinning then yields the CPU to it; with bottom halves
	 * off, local_bh_enable() runs the send at once in this thread, as
	 * rxe does for user-space QPs. Hardware is not affected.
	 */
	if (bh_off)
		local_bh_disable();
	spin_lock_irqsave(&peer->lock, flags);
	if (peer->closing || READ_ONCE(peer->state) != LITE_PEER_UP) {
		ret = -ENOTCONN;
		goto out;
	}
	if (lqp->state != LITE_QP_READY) {
		ret = -EAGAIN;
		goto out;
	}
	/*
	 * Posts of one QP are serialised by the peer's lock: tx_uid[] is in
	 * post order, which is the order of their completions (one send
	 * queue, every WR signaled), so each completion returns its own.
	 */
	spin_lock(&lqp->tx_lock);
	list_for_each_entry(cr, &lqp->tx_held, link) {
		if (cr->cqe == wr->wr_cqe) {
			held = cr;
			break;
		}
	}
	ret = 0;
	if (held) {
		list_del_init(&held->link);
		uid = held->uid;
	} else if (lite_tx_may_take(lqp, uid) &&
		   (list_empty(&lqp->tx_waiters) || uid == LITE_TX_NOUID)) {
		lite_tx_take(lqp, uid);
	} else {
		ret = -EBUSY;
	}
	if (!ret) {
		unsigned int at = (lqp->tx_first + lqp->tx_posted) % LITE_TX_DEPTH;

		lqp->tx_uid[at] = uid;
		if (awaited)
			lqp->tx_awaited |= BIT(at);
		else
			lqp->tx_awaited &= ~BIT(at);
		lqp->tx_posted++;
	}
	spin_unlock(&lqp->tx_lock);
	if (!ret) {
		ret = ib_post_send(lqp->qp, wr, NULL);
		if (ret) {
			spin_lock(&lqp->tx_lock);
			lqp->tx_posted--;	/* the last: not posted */
			wake = lite_tx_give(lqp, uid);
			spin_unlock(&lqp->tx_lock);
		}
	}
out:
	spin_unlock_irqrestore(&peer->lock, flags);
	if (bh_off)
		local_bh_enable();
	if (wake)
		wake_up_all(&lqp->tx_wq);
	return ret;
}

/**
 * lite_qp_post() - post one signaled send work request
 * @lqp: a QP of a peer the caller holds a reference on
 * @wr: the WR (no chain); its completion handler must call
 *	lite_qp_complete()
 * @awaited: someone waits for its completion, which must then raise an
 *	event (lite_cq_await_begin()); false for a reply nobody waits for,
 *	whose completion the next poll takes, at the latest the reaper's
 *	(lite_cq_unawaited_begin())
 *
 * Takes a send credit (one send queue entry): the one lite_qp_reserve()
 * took for @wr->wr_cqe, or waits for one (killably, at most 10 s).
 *
 * Context: process context.
 * Return: 0, -ENOTCONN when the peer is going away, -EAGAIN while the QP
 * is being reconnected, -EINTR on a fatal signal, -ETIMEDOUT, or the
 * provider's error; on error the WR was not posted.
 */
int lite_qp_post(struct lite_qp *lqp, const struct ib_send_wr *wr,
		 bool awaited)
{
	struct lite_dev *dev = lqp->peer->dev;
	u32 uid = lite_tx_uid(wr);
	struct lite_qp_credit cr;
	int ret;

	BUILD_BUG_ON(BITS_PER_TYPE(lqp->tx_awaited) < LITE_TX_DEPTH);
	/* Before the post: its completion must find the CQ armed for it. */
	if (awaited)
		lite_cq_await_begin(dev);
	else
		lite_cq_unawaited_begin(dev);
	ret = lite_qp_try_post(lqp, wr, uid, awaited);
	if (ret == -EBUSY) {
		ret = lite_tx_reserve(lqp, &cr, wr->wr_cqe, uid,
				      jiffies + LITE_TX_WAIT);
		if (!ret) {
			ret = lite_qp_try_post(lqp, wr, uid, awaited);
			lite_qp_unreserve(lqp, &cr);
		}
	}
	if (ret)		/* nothing posted */
		lite_qp_posted_end(dev, awaited);
	return ret;
}

/**
 * lite_qp_complete() - give back the send credit of a completed WR
 * @lqp: the QP it was posted on
 * @status: its completion's; anything but success means the QP is in
 *	error, and it is taken out of use to be reconnected
 *
 * Context: any.
 */
void lite_qp_complete(struct lite_qp *lqp, enum ib_wc_status status)
{
	bool wake = false, posted = false, awaited = false;
	unsigned long flags;
	u32 uid;

	if (status != IB_WC_SUCCESS)
		lite_qp_break(lqp, ib_wc_status_msg(status));
	spin_lock_irqsave(&lqp->tx_lock, flags);
	if (!WARN_ON_ONCE(!lqp->tx_posted)) {
		uid = lqp->tx_uid[lqp->tx_first];
		posted = true;
		awaited = lqp->tx_awaited & BIT(lqp->tx_first);
		lqp->tx_first = (lqp->tx_first + 1) % LITE_TX_DEPTH;
		lqp->tx_posted--;
		wake = lite_tx_give(lqp, uid);
	}
	spin_unlock_irqrestore(&lqp->tx_lock, flags);
	if (posted)
		lite_qp_posted_end(lqp->peer->dev, awaited);
	if (wake)
		wake_up_all(&lqp->tx_wq);
}

/**
 * lite_peer_put() - drop a reference from lite_peer_get()
 * @peer: the peer
 *
 * The last one (lite_peer_destroy() has run) frees it and lets its
 * device go.
 *
 * Context: any.
 */
void lite_peer_put(struct lite_peer *peer)
{
	if (refcount_dec_and_test(&peer->refs)) {
		lite_dev_put(peer->dev);
		kfree(peer);
	}
}

/**
 * lite_peer_destroy() - drain and destroy a peer's QPs, drop the table's
 * reference
 * @peer: the peer, no longer reachable from the peer table
 *
 * Does not wait for other references: after the drain nothing is posted
 * and nothing can be (lite_qp_post() sees @peer closing), so the QPs and
 * their buffers go now; the structure, and the device it holds, stay
 * until the last lite_peer_put().
 *
 * Context: process context (sleeps until every work request completed).
 */
void lite_peer_destroy(struct lite_peer *peer)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&peer->lock, flags);
	peer->closing = true;
	spin_unlock_irqrestore(&peer->lock, flags);
	/*
	 * No reconnection is queued from now on. One running waits for the
	 * membership lock our caller holds, then finds @peer gone.
	 */
	if (cancel_delayed_work(&peer->recover_work))
		lite_peer_put(peer);	/* its reference; not the last */
	for (i = 0; i < peer->nr_qps; i++) {
		struct lite_qp *lqp = &peer->qps[i];

		/* None is queued from now on; one running looks at the QP. */
		if (cancel_work_sync(&lqp->event_work))
			lite_peer_put(peer);	/* its reference; not the last */
		if (lqp->qp) {
			/* Flushes every posted WR, so no buffer is in use after. */
			if (lqp->inited)
				lite_cq_drain_qp(peer->dev, lqp->qp, true);
		}
	}
	for (i = 0; i < peer->nr_qps; i++) {
		if (peer->qps[i].qp) {
			ib_destroy_qp(peer->qps[i].qp);
			/* What a drain that gave up left posted. */
			lite_qp_posted_lost(&peer->qps[i]);
		}
		peer->qps[i].qp = NULL;
		lite_qp_free_bufs(&peer->qps[i]);
	}
	/* Its QPs complete nothing any more. */
	lite_cq_unreserve(peer->dev, peer->cq_cqes);
	lite_peer_put(peer);
}
