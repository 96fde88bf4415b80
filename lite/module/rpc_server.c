// SPDX-License-Identifier: GPL-2.0
/*
 * LITE RPC, the receiving side (docs/rpc.md): a ring on this node for each
 * (port, sender), made when the sender opens it; requests queued on their
 * port in arrival order for the threads in lite_rpc_recv(); the reply
 * owed for each (a descriptor, valid once); acknowledgements every
 * quarter of the ring or of its backlog. Arrivals are handled in the CQ's
 * context, which only queues and wakes, into descriptors made with the
 * ring; copying to the receiver and replying run in its process context.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rpc.h"
#include "lite_ctx.h"
#include "wire.h"
#include "wire_check.h"
#include "../include/uapi/lite.h"

/*
 * Descriptors a ring has besides LITE_RPC_RING_MSGS: for the requests of a
 * sender past its backlog, refused (ECONNREFUSED) instead of queued.
 */
#define LITE_RPC_RING_SPARE	16

/*
 * A ring on this node for (port, sender), charged to the port's owner.
 * It drops out of the table when the sender leaves, or when the port is
 * unregistered and the sender has answered RPC_CLOSE (nothing of its can
 * land there any more); it is freed then, or by the last receiver still
 * holding one of its messages (which may be stuck in a page fault).
 */
struct lite_rpc_ring {
	u16			node;
	u32			gen;
	u8			port;
	bool			closing;	/* its port went: RPC_CLOSE */
	bool			asked;		/* RPC_CLOSE sent this round */
	bool			retry;		/* not answered: next round */
	struct lite_user	*user;		/* charged, or NULL */
	struct lite_piece	mem;		/* from the pool */
	void			*buf;		/* its kernel address */
	u64			dma;		/* its DMA address */
	u64			received;	/* bytes spanned by arrivals */
	u64			consumed;	/* bytes given back, in order */
	u64			acked;		/* consumed, as last told */
	unsigned int		unacked;	/* messages consumed since */
	bool			ack_retry;	/* an ACK is owed: ack_work */
	struct list_head	msgs;		/* arrival order */
	unsigned int		nr_msgs;	/* on @msgs */
	struct list_head	free;		/* descriptors not in use */
	struct lite_rpc_msg	*descs;		/* all of them */
	unsigned int		busy;		/* messages being taken, acks */
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
	bool			forgotten;	/* RPC_FORGET: reply dropped */
};

struct lite_rpc_port {
	struct lite_ctx		*ctx;		/* NULL: not registered */
	struct lite_user	*user;		/* ctx's, charged the port */
	u32			epoch;		/* registrations so far */
	u32			max_size;
	char			name[LITE_NAME_MAX];
	struct list_head	queue;
	unsigned int		receivers;	/* threads in lite_rpc_recv */
	wait_queue_head_t	wq;
	struct lite_wait_hist	gaps;		/* between requests (wait.c) */
	u64			last_arrival;	/* ktime_get_ns() */
};

static struct {
	spinlock_t		lock;	/* everything below */
	struct lite_rpc_port	ports[LITE_MAX_PORT];
	struct lite_rpc_ring	*rings[LITE_MAX_PORT][LITE_MAX_NODES];
	/*
	 * Where the next ring of (port, node) starts counting: where its
	 * last one ended. An ACK of that one arriving late then lies behind
	 * everything the new ring's sender has sent, and is dropped.
	 */
	u64			start[LITE_MAX_PORT][LITE_MAX_NODES];
	struct list_head	orphans;	/* messages nobody will take */
} lite_rpc = {
	.lock		= __SPIN_LOCK_UNLOCKED(lite_rpc.lock),
	.orphans	= LIST_HEAD_INIT(lite_rpc.orphans),
};

static void lite_rpc_orphans_work(struct work_struct *work);
static DECLARE_WORK(lite_rpc_orphans, lite_rpc_orphans_work);
static void lite_rpc_close_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(lite_rpc_closer, lite_rpc_close_work);
static void lite_rpc_ack_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(lite_rpc_acker, lite_rpc_ack_work);
static void lite_rpc_drop_ring(struct lite_rpc_ring *ring);

/* Out of the table, no message taken: nobody else can reach it. */
static void lite_rpc_ring_free(struct lite_rpc_ring *ring)
{
	kvfree(ring->descs);
	lite_pool_free(&ring->mem);
	lite_user_uncharge(ring->user, LITE_RES_RING_BYTES, LITE_RPC_RING_SIZE);
	lite_user_put(ring->user);
	kfree(ring);
}

/*
 * The ACK of @ring due now, or 0: every quarter of its bytes or of its
 * backlog, and one that could not be posted. A closing ring's sender
 * forgot it: an ACK could hit its next one.
 */
static u32 lite_rpc_ack_due(struct lite_rpc_ring *ring)
{
	lockdep_assert_held(&lite_rpc.lock);
	if (ring->closing || ring->gone)
		return 0;
	if (!ring->ack_retry &&
	    ring->consumed - ring->acked < LITE_RPC_RING_SIZE / 4 &&
	    ring->unacked < LITE_RPC_RING_MSGS / 4)
		return 0;
	ring->acked = ring->consumed;
	ring->unacked = 0;
	ring->ack_retry = false;
	return LITE_IMM_ACK << 30 | (u32)ring->port << 24 |
	       ((ring->consumed / LITE_RPC_ALIGN) & 0xffffff);
}

/* Drop a hold on @ring (busy): the last of a ring out of the table frees it. */
static void lite_rpc_ring_unhold(struct lite_rpc_ring *ring)
{
	bool idle;

	spin_lock_bh(&lite_rpc.lock);
	idle = !--ring->busy && ring->gone;
	spin_unlock_bh(&lite_rpc.lock);
	if (idle)
		lite_rpc_ring_free(ring);
}

/*
 * Post @imm, an ACK of @ring, and drop the caller's hold on it. One that
 * cannot be posted (its QP being reconnected, a fatal signal) is posted
 * again from lite_rpc_ack_work(): its sender may be waiting for room with
 * nothing else to come that would be acknowledged.
 */
static void lite_rpc_send_ack(struct lite_rpc_ring *ring, u32 imm)
{
	int ret = lite_rpc_post_imm(ring->node, ring->gen, imm);

	if (ret && ret != -ENOTCONN) {
		spin_lock_bh(&lite_rpc.lock);
		ring->ack_retry = true;
		spin_unlock_bh(&lite_rpc.lock);
		lite_ctrl_queue_delayed(&lite_rpc_acker, HZ / 10);
	}
	lite_rpc_ring_unhold(ring);
}

static void lite_rpc_ack_work(struct work_struct *work)
{
	struct lite_rpc_ring *ring;
	unsigned int i, n;
	u32 imm;

	for (i = 0; i < LITE_MAX_PORT; i++) {
		for (n = 0; n < LITE_MAX_NODES; n++) {
			spin_lock_bh(&lite_rpc.lock);
			ring = lite_rpc.rings[i][n];
			imm = ring && ring->ack_retry ? lite_rpc_ack_due(ring) : 0;
			if (imm)
				ring->busy++;
			spin_unlock_bh(&lite_rpc.lock);
			if (imm)
				lite_rpc_send_ack(ring, imm);
		}
	}
}

/*
 * @span bytes at the end of what @ring received hold no request anyone
 * will take: given back with the message before them, or now.
 */
static void lite_rpc_skip(struct lite_rpc_ring *ring, u32 span)
{
	lockdep_assert_held(&lite_rpc.lock);
	if (!list_empty(&ring->msgs)) {
		list_last_entry(&ring->msgs, struct lite_rpc_msg,
				ring_link)->span += span;
		return;
	}
	ring->consumed += span;
	ring->ack_retry = true;
	lite_ctrl_queue_delayed(&lite_rpc_acker, 0);
}

/* Give @msg's ring space and descriptor back, and drop its hold. */
static void lite_rpc_release(struct lite_rpc_msg *msg)
{
	struct lite_rpc_ring *ring = msg->ring;
	struct lite_rpc_msg *m, *tmp;
	bool idle = false;
	u32 imm = 0;

	spin_lock_bh(&lite_rpc.lock);
	msg->done = true;
	if (!ring->gone) {
		list_for_each_entry_safe(m, tmp, &ring->msgs, ring_link) {
			if (!m->done)
				break;
			ring->consumed += m->span;
			ring->unacked++;
			ring->nr_msgs--;
			list_move(&m->ring_link, &ring->free);
		}
		imm = lite_rpc_ack_due(ring);
	}
	if (!imm)
		idle = !--ring->busy && ring->gone;	/* its sender left */
	spin_unlock_bh(&lite_rpc.lock);
	if (imm)
		lite_rpc_send_ack(ring, imm);
	else if (idle)
		lite_rpc_ring_free(ring);
}

/*
 * Fail the caller of @msg (if it waits for a reply and has not forgotten
 * it) and release it. @msg is off its queue: @forgotten no longer changes.
 */
static void lite_rpc_refuse(struct lite_rpc_msg *msg, int err)
{
	if (msg->call_id && !msg->forgotten)
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
 * Once placed, it counts as received whatever else is wrong with it, so
 * the next one is still where the sender put it. Nothing is allocated
 * here: a request takes one of its ring's descriptors.
 */
void lite_rpc_rx_request(struct lite_peer *peer, u32 imm, u32 byte_len)
{
	u8 port = LITE_IMM_PORT(imm);
	u32 off = LITE_IMM_LOW24(imm) * LITE_RPC_ALIGN;
	struct lite_rpc_ring *ring;
	struct lite_rpc_hdr *hdr;
	struct lite_rpc_port *p;
	struct lite_rpc_msg *msg;
	u32 pos, span;
	bool over;

	spin_lock_bh(&lite_rpc.lock);
	ring = lite_rpc.rings[port][peer->id];
	if (!ring || ring->gen != peer->gen)
		goto out;
	pos = ring->received % LITE_RPC_RING_SIZE;
	if (lite_check_rpc_place(byte_len, off, pos, LITE_RPC_RING_SIZE, &span))
		goto bad;
	ring->received += span;
	ib_dma_sync_single_for_cpu(peer->dev->ibdev, ring->dma + off, byte_len,
				   DMA_FROM_DEVICE);
	hdr = ring->buf + off;
	if (lite_check_rpc_hdr(hdr, byte_len)) {
		lite_rpc_skip(ring, span);
		goto bad;
	}
	/* Only a sender that ignores the flow control goes past these. */
	over = ring->received - ring->consumed > LITE_RPC_RING_SIZE ||
	       ring->nr_msgs >= LITE_RPC_RING_MSGS;
	msg = list_first_entry_or_null(&ring->free, struct lite_rpc_msg,
				       ring_link);
	if (over)
		pr_warn_ratelimited("node %u gen %u: RPC request past its ring's backlog (port %u) refused\n",
				    peer->id, peer->gen, port);
	if (!msg) {
		lite_rpc_skip(ring, span);	/* its caller times out */
		goto out;
	}
	list_del(&msg->ring_link);
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
	ring->nr_msgs++;
	p = &lite_rpc.ports[port];
	/* A closing ring's requests were for the port's last owner. */
	if (p->ctx && !ring->closing && !over) {
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
	goto out;
bad:
	lite_peer_warn(peer, "malformed RPC request (port %u, offset %u, %u bytes) dropped\n",
		       port, off, byte_len);
out:
	spin_unlock_bh(&lite_rpc.lock);
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
	struct lite_user *user = lite_ctx_user(ctx);
	struct lite_rpc_port *p;
	int ret;

	if (port >= LITE_MAX_PORT || !max_size || max_size > LITE_RPC_MAX_MSG)
		return -EINVAL;
	ret = lite_user_charge(user, LITE_RES_PORTS, 1);
	if (ret)
		return ret;
	p = &lite_rpc.ports[port];
	spin_lock_bh(&lite_rpc.lock);
	if (p->ctx) {
		ret = -EADDRINUSE;
	} else {
		p->ctx = ctx;
		p->user = user;	/* the context holds it until it unregisters */
		p->epoch++;
		p->max_size = max_size;
		strscpy(p->name, name, sizeof(p->name));
		p->gaps = (struct lite_wait_hist) {};
		p->last_arrival = 0;
	}
	spin_unlock_bh(&lite_rpc.lock);
	if (ret)
		lite_user_uncharge(user, LITE_RES_PORTS, 1);
	else
		pr_info("port %u registered (%s, requests up to %u bytes)\n",
			port, p->name, max_size);
	return ret;
}

/*
 * Unregister @ctx's ports: callers queued there get ECONNREFUSED, and the
 * rings senders opened there are closed (lite_rpc_close_work()).
 */
static void lite_rpc_unregister(struct lite_ctx *ctx)
{
	struct lite_rpc_ring *ring;
	struct lite_rpc_port *p;
	unsigned int i, node;
	bool close = false;

	spin_lock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		p = &lite_rpc.ports[i];
		if (p->ctx != ctx)
			continue;
		p->ctx = NULL;
		lite_user_uncharge(p->user, LITE_RES_PORTS, 1);
		p->user = NULL;
		list_splice_tail_init(&p->queue, &lite_rpc.orphans);
		wake_up_all(&p->wq);
		for (node = 0; node < LITE_MAX_NODES; node++) {
			ring = lite_rpc.rings[i][node];
			if (ring) {
				ring->closing = true;
				close = true;
			}
		}
	}
	spin_unlock_bh(&lite_rpc.lock);
	lite_ctrl_queue(&lite_rpc_orphans);
	if (close)
		lite_ctrl_queue_delayed(&lite_rpc_closer, 0);
}

/* The next ring to close, with its port and node; NULL: none. */
static struct lite_rpc_ring *lite_rpc_next_closing(unsigned int *port,
						   unsigned int *node)
{
	struct lite_rpc_ring *ring;
	unsigned int i, n;

	lockdep_assert_held(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		for (n = 0; n < LITE_MAX_NODES; n++) {
			ring = lite_rpc.rings[i][n];
			if (ring && ring->closing && !ring->asked) {
				*port = i;
				*node = n;
				return ring;
			}
		}
	}
	return NULL;
}

/*
 * Take back the rings of unregistered ports. The sender answers RPC_CLOSE
 * once every request it wrote into the ring has completed, so the memory
 * goes back to the pool (and to the next LMR) only then. A sender that
 * does not answer in time is asked again a second later, and one that
 * leaves has its rings freed by lite_rpc_peer_down() once its QPs are
 * gone; meanwhile its RPC_OPEN of the port gets EAGAIN. Runs on the
 * control workqueue; nobody waits for it.
 */
static void lite_rpc_close_work(struct work_struct *work)
{
	struct lite_ctrl_rpc_open req = {};
	struct lite_rpc_ring *ring, *cur;
	unsigned int port, node, i, n;
	struct lite_rpc_msg *m;
	bool again = false;
	u32 gen;
	int ret;

	for (;;) {
		spin_lock_bh(&lite_rpc.lock);
		ring = lite_rpc_next_closing(&port, &node);
		if (ring) {
			ring->asked = true;
			gen = ring->gen;
		}
		spin_unlock_bh(&lite_rpc.lock);
		if (!ring)
			break;
		req.port = cpu_to_le32(port);
		ret = lite_ctrl_call(node, gen, LITE_CTRL_RPC_CLOSE, &req,
				     sizeof(req), NULL, NULL);
		if (ret == -ENOTCONN)
			continue;	/* it leaves: lite_rpc_server_peer_down() */
		/* Requests that arrived meanwhile: refused first. */
		flush_work(&lite_rpc_orphans);
		spin_lock_bh(&lite_rpc.lock);
		/* @ring may be gone with its node: compare, do not touch. */
		cur = lite_rpc.rings[port][node];
		if (cur != ring || cur->gen != gen) {
			ring = NULL;
		} else if (ret) {
			ring->retry = true;
			again = true;
			ring = NULL;
		} else {
			lite_rpc.rings[port][node] = NULL;
			lite_rpc.start[port][node] = ring->received;
			list_for_each_entry(m, &ring->msgs, ring_link)
				list_del_init(&m->queue_link);
		}
		spin_unlock_bh(&lite_rpc.lock);
		if (ret)
			lite_node_warn(node, gen, "did not close its RPC ring on port %u (%d): asking again\n",
				       port, ret);
		if (ring)
			lite_rpc_drop_ring(ring);
	}
	if (!again)
		return;
	spin_lock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		for (n = 0; n < LITE_MAX_NODES; n++) {
			ring = lite_rpc.rings[i][n];
			if (ring && ring->retry) {
				ring->retry = false;
				ring->asked = false;
			}
		}
	}
	spin_unlock_bh(&lite_rpc.lock);
	lite_ctrl_queue_delayed(&lite_rpc_closer, HZ);
}

/* A ring for (@port, @src) charged to @owner (NULL: nobody), or ERR_PTR. */
static struct lite_rpc_ring *lite_rpc_ring_new(u16 src, u32 src_gen, u8 port,
					       struct lite_user *owner)
{
	unsigned int i, n = LITE_RPC_RING_MSGS + LITE_RPC_RING_SPARE;
	struct lite_rpc_ring *ring;
	int ret;

	if (!lite_peer_dev(src, src_gen))
		return ERR_PTR(-ENOTCONN);
	ret = lite_user_charge(owner, LITE_RES_RING_BYTES, LITE_RPC_RING_SIZE);
	if (ret)
		return ERR_PTR(ret);
	ret = -ENOMEM;
	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (ring)
		ring->descs = kvcalloc(n, sizeof(*ring->descs), GFP_KERNEL);
	if (ring && ring->descs)
		ret = lite_pool_alloc(LITE_RPC_RING_SIZE, true, &ring->mem);
	if (ret) {
		lite_user_uncharge(owner, LITE_RES_RING_BYTES,
				   LITE_RPC_RING_SIZE);
		if (ring)
			kvfree(ring->descs);
		kfree(ring);
		return ERR_PTR(ret);
	}
	if (owner)
		lite_user_hold(owner);
	ring->user = owner;	/* lite_rpc_ring_free() uncharges and puts */
	ring->buf = lite_piece_kaddr(&ring->mem, 0);
	ring->dma = lite_piece_dma(&ring->mem, 0);
	ring->node = src;
	ring->gen = src_gen;
	ring->port = port;
	INIT_LIST_HEAD(&ring->msgs);
	INIT_LIST_HEAD(&ring->free);
	for (i = 0; i < n; i++)
		list_add_tail(&ring->descs[i].ring_link, &ring->free);
	return ring;
}

/*
 * RPC_OPEN on the receiver: the ring of (@port, @src), made on first use
 * and charged to the port's owner (EDQUOT past its user_ring_mb); EAGAIN
 * while the ring of the port's last owner is being closed.
 */
int lite_rpc_serve_open(u16 src, u32 src_gen, const struct lite_ctrl_rpc_open *req,
			struct lite_ctrl_rpc_ring *resp)
{
	u32 port = le32_to_cpu(req->port);
	struct lite_rpc_ring *ring, *fresh = NULL;
	struct lite_user *owner = NULL;
	struct lite_rpc_port *p;
	u32 max_size, epoch;
	bool closing;
	int ret = 0;

	if (port >= LITE_MAX_PORT || req->reserved)
		return -EINVAL;
	p = &lite_rpc.ports[port];
	spin_lock_bh(&lite_rpc.lock);
	max_size = p->ctx ? p->max_size : 0;
	epoch = p->epoch;
	owner = max_size ? p->user : NULL;
	if (owner)
		lite_user_hold(owner);
	ring = lite_rpc.rings[port][src];
	closing = ring && ring->closing;
	spin_unlock_bh(&lite_rpc.lock);
	if (!max_size) {
		ret = -ECONNREFUSED;
	} else if (closing) {
		ret = -EAGAIN;
	} else if (!ring) {
		fresh = lite_rpc_ring_new(src, src_gen, port, owner);
		if (IS_ERR(fresh)) {
			ret = PTR_ERR(fresh);
			fresh = NULL;
		}
	}
	if (ret)
		goto out;

	spin_lock_bh(&lite_rpc.lock);
	ring = lite_rpc.rings[port][src];
	if (!p->ctx || p->epoch != epoch) {
		/* Unregistered meanwhile: it closed the rings it found. */
		ret = -ECONNREFUSED;
	} else if (ring && ring->closing) {
		ret = -EAGAIN;
	} else {
		/*
		 * Only while the sender is a member: lite_rpc_peer_down() takes
		 * this lock after the sender left the table, so it drops a
		 * ring added here.
		 */
		if (!ring && fresh && lite_peer_alive(src, src_gen)) {
			fresh->received = lite_rpc.start[port][src];
			fresh->consumed = fresh->received;
			fresh->acked = fresh->received;
			ring = lite_rpc.rings[port][src] = fresh;
		}
		ret = -ENOTCONN;
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
	}
	spin_unlock_bh(&lite_rpc.lock);
	if (fresh && ring != fresh)	/* a concurrent open won, or too late */
		lite_rpc_ring_free(fresh);
out:
	lite_user_put(owner);
	return ret;
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
	       READ_ONCE(a->port->ctx) != a->ctx || !lite_node_id();
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
 * Return: the request's length, or a negative errno (-EDQUOT: the
 * receiver's user owes user_replies replies already; the request is
 * consumed and its caller refused).
 */
int lite_rpc_recv(struct lite_ctx *ctx, u32 port, struct iov_iter *dst,
		  u32 size, bool nonblock, u64 *desc, u32 *src_node)
{
	struct lite_rpc_wait_arg arg;
	struct lite_rpc_msg *msg;
	struct lite_rpc_port *p;
	bool forgotten;
	int ret;

	if (port >= LITE_MAX_PORT)
		return -EINVAL;
	p = &lite_rpc.ports[port];
	arg = (struct lite_rpc_wait_arg) { .port = p, .ctx = ctx };
	for (;;) {
		if (!lite_node_id())
			return -ENOTCONN;
		spin_lock_bh(&lite_rpc.lock);
		if (p->ctx != ctx) {
			spin_unlock_bh(&lite_rpc.lock);
			return -ENOENT;
		}
		msg = list_first_entry_or_null(&p->queue, struct lite_rpc_msg,
					       queue_link);
		if (msg) {
			list_del_init(&msg->queue_link);
			msg->ring->busy++;
			forgotten = msg->forgotten;
		}
		spin_unlock_bh(&lite_rpc.lock);
		if (msg)
			break;
		if (nonblock)
			return -EAGAIN;
		if (lite_spin(&p->gaps, lite_rpc_queue_ready, &arg,
			      ktime_get_ns(), U64_MAX, LITE_WAIT_POLICY))
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
		/* Owed before the message is done: RPC_FORGET sees either. */
		const struct lite_rpc_token fill = {
			.node = msg->ring->node, .gen = msg->ring->gen,
			.call_id = msg->call_id,
			.reply_max = msg->reply_max,
			.reply_rkey = msg->reply_rkey,
			.reply_addr = msg->reply_addr,
			.forgotten = forgotten,
		};
		int err = -ENOTCONN;

		if (lite_peer_dev(fill.node, fill.gen))
			err = lite_rpc_token_new(ctx, &fill, desc);
		if (err == -EDQUOT || err == -ENOMEM) {
			/* Its caller hears of it now, not at its timeout. */
			lite_rpc_refuse(msg, LITE_RPC_ECONNREFUSED);
			return err;
		}
		if (err)
			ret = err;
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
 * -EMSGSIZE, and so does this call. A reply to a call its caller gave up
 * and the caller's node asked us to forget (RPC_FORGET) is dropped: 0.
 *
 * Return: 0 once the reply is on the wire (or dropped), or a negative
 * errno.
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
	tok = lite_rpc_token_take(ctx, desc, true);
	if (!tok)
		return -EALREADY;
	ret = 0;
	if (tok->forgotten)	/* its caller gave up and forgot the call */
		goto out;
	if (len > tok->reply_max) {
		lite_rpc_post_imm(tok->node, tok->gen,
				  lite_imm_reply(LITE_RPC_EMSGSIZE, tok->call_id));
		ret = -EMSGSIZE;
		goto out;
	}
	ret = -ENOMEM;
	tx = kmalloc(sizeof(*tx) + len, GFP_KERNEL);
	if (!tx)
		goto out;
	tx->call_id = 0;
	tx->ring = NULL;
	tx->reply_node = 0;
	tx->reply_call = tok->call_id;
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
	/* A reply with data: its completion (or failed post) gives the count back. */
	if (len)
		tx->reply_node = tok->node;
	lite_prio_begin(prio);
	ret = lite_rpc_post(lite_peer_pick_qp(peer), tx, len,
			    lite_imm_reply(0, tok->call_id),
			    len ? tok->reply_addr : 0, len ? tok->reply_rkey : 0,
			    false);
	lite_prio_end(prio);
	if (len) {
		/* Its completion ends the count (lite_rpc_replied()). */
		lite_rpc_token_done(tok, false);
		return ret;
	}
out:
	/* Nothing is written into the caller's buffer any more. */
	lite_rpc_token_done(tok, true);
	return ret;
}

/**
 * lite_rpc_serve_forget() - RPC_FORGET: a caller gave up on a call
 * @src: the caller's node
 * @src_gen: its generation
 * @req: the call, and where its request ended in the caller's ring
 *
 * The request is marked wherever it is (queued, or a reply owed) so that
 * its reply is dropped. Answers 0 only once nothing can write into the
 * call's reply buffer any more: the request arrived, it is not being
 * handed to a receiver, no reply with data to @src is in flight, and
 * none of our QPs to @src is reset and not yet connected again (a
 * flushed reply may still be on the wire). The caller frees the buffer
 * then; on -EAGAIN it asks again later.
 *
 * Context: process context (a control worker).
 * Return: 0 (the caller may free the buffer), -EAGAIN (not yet) or
 * -EINVAL.
 */
int lite_rpc_serve_forget(u16 src, u32 src_gen,
			  const struct lite_ctrl_rpc_forget *req)
{
	u32 port = le32_to_cpu(req->port), id = le32_to_cpu(req->call_id);
	u64 end = le64_to_cpu(req->end);
	struct lite_rpc_ring *ring;
	struct lite_rpc_msg *m;
	int ret = 0;

	if (port >= LITE_MAX_PORT || !id || id > LITE_CALL_ID_MAX)
		return -EINVAL;
	spin_lock_bh(&lite_rpc.lock);
	ring = lite_rpc.rings[port][src];
	if (ring && ring->gen == src_gen) {
		if (ring->received < end)
			ret = -EAGAIN;		/* not here yet */
		list_for_each_entry(m, &ring->msgs, ring_link) {
			if (m->done || m->call_id != id)
				continue;
			if (list_empty(&m->queue_link))
				ret = -EAGAIN;	/* a receiver is taking it */
			else
				m->forgotten = true;
		}
	}
	spin_unlock_bh(&lite_rpc.lock);
	if (ret)
		return ret;
	/*
	 * A request handed over before we looked has its token by now:
	 * marked, or counted as a reply in flight; then the QP states.
	 */
	if (!lite_rpc_tokens_forget(src, src_gen, id) ||
	    !lite_node_fenced(src, src_gen))
		return -EAGAIN;
	return 0;
}

/**
 * lite_rpc_ctx_release() - a context goes away: unregister its ports and
 * refuse the calls it still owed a reply
 * @ctx: the context
 */
void lite_rpc_ctx_release(struct lite_ctx *ctx)
{
	lite_rpc_unregister(ctx);
	flush_work(&lite_rpc_orphans);
	lite_rpc_tokens_ctx_release(ctx);
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
/* @node left: free the rings it wrote to, with its queued requests. */
void lite_rpc_server_peer_down(u16 node)
{
	struct lite_rpc_ring *rings[LITE_MAX_PORT];
	struct lite_rpc_msg *m;
	unsigned int i;

	spin_lock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		rings[i] = lite_rpc.rings[i][node];
		lite_rpc.rings[i][node] = NULL;
		lite_rpc.start[i][node] = 0;	/* its next incarnation's */
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
 * lite_rpc_show() - the ports in use, one line each, for debugfs
 * @buf: where to write
 * @size: its size
 *
 * "port P registered|unregistered rings N closing M name NAME": N rings
 * senders opened, M being taken back from them.
 *
 * Return: bytes written.
 */
size_t lite_rpc_show(char *buf, size_t size)
{
	unsigned int i, node, open, closing;
	struct lite_rpc_ring *ring;
	struct lite_rpc_port *p;
	size_t n = 0;

	spin_lock_bh(&lite_rpc.lock);
	for (i = 0; i < LITE_MAX_PORT; i++) {
		p = &lite_rpc.ports[i];
		open = 0;
		closing = 0;
		for (node = 0; node < LITE_MAX_NODES; node++) {
			ring = lite_rpc.rings[i][node];
			if (ring && ring->closing)
				closing++;
			else if (ring)
				open++;
		}
		if (p->ctx || open || closing)
			n += scnprintf(buf + n, size - n,
				       "port %u %s rings %u closing %u name %s\n",
				       i, p->ctx ? "registered" : "unregistered",
				       open, closing, p->ctx ? p->name : "-");
	}
	spin_unlock_bh(&lite_rpc.lock);
	return n;
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
/* Module exit, after every node left: no ring is left to close. */
void lite_rpc_exit(void)
{
	lite_rpc_calls_exit();
	cancel_delayed_work_sync(&lite_rpc_closer);
	cancel_delayed_work_sync(&lite_rpc_acker);
	lite_rpc_tokens_exit();
}

void lite_rpc_init(void)
{
	unsigned int i;

	for (i = 0; i < LITE_MAX_PORT; i++) {
		INIT_LIST_HEAD(&lite_rpc.ports[i].queue);
		init_waitqueue_head(&lite_rpc.ports[i].wq);
	}
}
