// SPDX-License-Identifier: GPL-2.0
/*
 * LITE RPC: two-sided messages over RDMA write-with-immediate
 * (docs/rpc.md). A node that calls port P of node N owns a ring on N for
 * (P, itself); a request is one RDMA write of header + payload into that
 * ring, its immediate naming the port and the offset. The reply is one
 * write-with-immediate straight into the caller's reply buffer, the
 * immediate naming the call. The receiver gives ring space back with
 * acknowledgements (a zero-length send with immediate) every quarter ring
 * or 256 messages;
 * a sender whose ring is full waits for them, so a slow receiver slows
 * senders down and never loses a message.
 *
 * Requests to one (node, port) leave on one QP, in ring order, under the
 * ring's mutex, so they arrive in order and one-way messages keep it.
 * Completions are handled in the shared CQ's context, which only queues
 * messages and wakes waiters; anything that posts runs in process context.
 */
#include <linux/slab.h>

#include "rpc.h"
#include "wire.h"

/* ---- posting ------------------------------------------------------------ */

static void lite_rpc_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_rpc_tx *tx = container_of(wc->wr_cqe, struct lite_rpc_tx, cqe);
	struct lite_peer *peer = tx->lqp->peer;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			lite_peer_warn(peer, "RPC message failed: %s\n",
				       ib_wc_status_msg(wc->status));
		if (tx->call_id)
			lite_rpc_fail_call(tx->call_id, -EIO);
	}
	if (tx->len)
		ib_dma_unmap_single(peer->dev->ibdev, tx->dma, tx->len,
				    DMA_TO_DEVICE);
	lite_qp_complete(tx->lqp, wc->status);
	if (tx->ring)
		lite_rpc_tx_sent(tx->ring, wc->status == IB_WC_SUCCESS);
	if (tx->reply_node)
		lite_rpc_replied(tx->reply_node, tx->reply_call);
	kfree(tx);
	lite_peer_put(peer);
}

/*
 * Post @len bytes of @tx->data (0: none) on @lqp: an RDMA write with
 * immediate to (@remote, @rkey), or a send with immediate when @remote is 0.
 * @awaited: someone waits for its completion (a request: the ring's
 * inflight count); replies, ACKs and refusals are not waited for, and the
 * next poll takes their completions (lite_qp_post()).
 * Consumes @tx and the caller's reference on the QP's peer, whatever happens.
 */
int lite_rpc_post(struct lite_qp *lqp, struct lite_rpc_tx *tx, u32 len,
		  u32 imm, u64 remote, u32 rkey, bool awaited)
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
			/* Solicited: the receiver's CQ raises an event for it. */
			.send_flags	= IB_SEND_SIGNALED | IB_SEND_SOLICITED,
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
	ret = lite_qp_post(lqp, &wr.wr, awaited);
	if (!ret)
		return 0;
	if (len)
		ib_dma_unmap_single(ibdev, tx->dma, len, DMA_TO_DEVICE);
err:
	if (tx->ring)
		lite_rpc_tx_sent(tx->ring, true);	/* never written */
	if (tx->reply_node)
		lite_rpc_replied(tx->reply_node, tx->reply_call);
	kfree(tx);
	lite_peer_put(peer);
	return ret;
}

/* A message without payload (ack, error reply) to @node. */
int lite_rpc_post_imm(u16 node, u32 gen, u32 imm)
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
	/* An ACK or a refusal: nobody waits for its completion. */
	return lite_rpc_post(lite_peer_pick_qp(peer), tx, 0, imm, 0, 0, false);
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
	lite_peer_warn(peer, "unexpected immediate 0x%08x dropped\n", imm);
}
/**
 * lite_rpc_peer_down() - @node left and its QPs are destroyed
 * @node: the node
 * @gen: its generation that left
 *
 * Fails every call and sender waiting on it, frees the rings it wrote to
 * and the reply buffers it could still have written to.
 */
static void lite_rpc_peer_down(u16 node, u32 gen)
{
	lite_rpc_client_peer_down(node);
	lite_rpc_server_peer_down(node);
}

/*
 * RPC_OPEN and RPC_FORGET (rpc_server.c), RPC_CLOSE (rpc_client.c) from
 * @src. wire_check.c checked each request's length.
 */
static int lite_rpc_serve(u16 src, u32 src_gen, u16 type, const void *req,
			  u32 len, void *resp, u32 *resp_len)
{
	if (type == LITE_CTRL_RPC_FORGET)
		return lite_rpc_serve_forget(src, src_gen, req);
	if (len != sizeof(struct lite_ctrl_rpc_open))
		return -EPROTO;
	if (type == LITE_CTRL_RPC_CLOSE)
		return lite_rpc_serve_close(src, src_gen, req);
	*resp_len = sizeof(struct lite_ctrl_rpc_ring);
	return lite_rpc_serve_open(src, src_gen, req, resp);
}

LITE_CTRL_SERVICE(lite_rpc_ctrl_service, lite_rpc_serve,
		  LITE_CTRL_RPC_OPEN, LITE_CTRL_RPC_CLOSE, LITE_CTRL_RPC_FORGET);

const struct lite_member_ops lite_rpc_member_ops = {
	.peer_down	= lite_rpc_peer_down,
	.leave		= lite_rpc_tokens_leave,
	.left		= lite_rpc_wake_all,
};
