/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LITE internals shared by the module's files. One section per file.
 */
#ifndef LITE_PRIV_H
#define LITE_PRIV_H

#include <linux/list.h>
#include <linux/irq_poll.h>	/* after list.h: it does not include it */
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "../include/lite_proto.h"

/*
 * Messages about a peer name it by id and generation (pr_fmt, in Kbuild,
 * prefixes the module's name).
 */
#define lite_node_err(node, gen, fmt, ...) \
	pr_err("node %u gen %u: " fmt, node, gen, ##__VA_ARGS__)
#define lite_node_warn(node, gen, fmt, ...) \
	pr_warn("node %u gen %u: " fmt, node, gen, ##__VA_ARGS__)
#define lite_node_info(node, gen, fmt, ...) \
	pr_info("node %u gen %u: " fmt, node, gen, ##__VA_ARGS__)
#define lite_peer_err(peer, fmt, ...) \
	lite_node_err((peer)->id, (peer)->gen, fmt, ##__VA_ARGS__)
#define lite_peer_warn(peer, fmt, ...) \
	lite_node_warn((peer)->id, (peer)->gen, fmt, ##__VA_ARGS__)
#define lite_peer_info(peer, fmt, ...) \
	lite_node_info((peer)->id, (peer)->gen, fmt, ##__VA_ARGS__)

/* params.c: module parameters */
extern char *lite_param_device;
extern unsigned int lite_param_port;
extern int lite_param_gid_index;
extern char *lite_param_fabric_ip;
extern unsigned int lite_param_qps_per_peer;
extern bool lite_param_unsafe_global_rkey;
extern unsigned int lite_param_qp_timeout;
extern unsigned int lite_param_qp_retry;
extern unsigned int lite_param_echo_ms;
extern unsigned int lite_param_tclass;
extern unsigned int lite_param_sl;

/* device.c: the RDMA device LITE runs on (one per node) */
#define LITE_CQ_BATCH	16	/* completions polled at once */
#define LITE_RD_ATOMIC	16	/* RDMA reads/atomics in flight per QP, at most */

struct lite_dev {
	struct ib_device	*ibdev;
	u32			port;
	u32			gid_index;	/* chosen at each join */
	union ib_gid		gid;
	enum ib_gid_type	gid_type;
	u8			rd_atom;	/* reads/atomics a QP of ours takes */
	int			node;		/* the NIC's NUMA node, or none */
	enum rdma_link_layer	link_layer;
	u16			lid;
	enum ib_mtu		mtu;
	struct ib_pd		*pd;
	struct ib_cq		*cq;	/* shared by every QP (cq.c) */
	int			cq_depth;	/* asked of ib_create_cq() */
	atomic_t		cq_room;	/* completions no peer reserved */
	unsigned long		cq_flags;	/* LITE_CQ_FAILED, LITE_CQ_SENDS */
	/* Written by every post and completion: not on cq_lock's line. */
	atomic_t		cq_awaited ____cacheline_aligned_in_smp;
	atomic_t		cq_unawaited;	/* posted, nobody waits */
	struct timer_list	cq_reaper ____cacheline_aligned_in_smp;
	bool			fatal;	/* IB_EVENT_DEVICE_FATAL: unusable */
	spinlock_t		cq_lock;	/* one poller at a time; @cq_wc */
	struct irq_poll		cq_iop;
	struct ib_wc		cq_wc[LITE_CQ_BATCH];
	atomic_t		users;	/* its own + lite_dev_hold()'s */
	struct ib_event_handler	event_handler;
	unsigned long		events;	/* LITE_DEV_EV_*, for event_work */
	struct work_struct	event_work;
};

/* What a device event asks of the layer above (struct lite_dev_ops). */
enum {
	LITE_DEV_EV_PORT,	/* the port went down or up: re-read it */
	LITE_DEV_EV_ADDR,	/* GID or LID table changed: re-read, re-resolve */
	LITE_DEV_EV_FATAL,	/* the device is gone for good: leave */
	LITE_DEV_EV_CQ_ERR,	/* the CQ failed: leave (the next join renews it) */
};

int lite_device_init(void);
void lite_device_exit(void);
int lite_parse_fabric_ip(const char *s);
const struct ib_gid_attr *lite_dev_gid_attr(struct lite_dev *dev);
struct lite_dev *lite_device_get(void);
void lite_dev_port_addr(struct lite_dev *dev, struct lite_port_addr *addr);
bool lite_dev_atomics(const struct lite_dev *dev);
void lite_dev_raise(struct lite_dev *dev, int ev);
void lite_dev_hold(struct lite_dev *dev);
void lite_dev_put(struct lite_dev *dev);

struct lite_peer;

/**
 * struct lite_dev_ops - the device and QP layer's events, for the layer
 * above (the membership): main.c fills it in at module load
 * @event: the device's port or address changed, or it failed
 *	(LITE_DEV_EV_* bits); a work item, no lock held
 * @removed: the device goes; everything built on it must go first
 * @peer_ready: every QP of @peer was READY once (qp_conn.c); any context
 * @peer_recover: reconnect @peer's BROKEN QPs through the manager; a work
 *	item on lite_dev_wq, whose reference on @peer this consumes
 *
 * Pointers, not calls by name: this layer knows none above it.
 */
struct lite_dev_ops {
	void (*event)(struct lite_dev *dev, unsigned long events);
	void (*removed)(void);
	void (*peer_ready)(struct lite_peer *peer);
	void (*peer_recover)(struct lite_peer *peer);
};

/**
 * struct lite_rx_ops - who takes what a peer sent (qp_pool.c), in the CQ's
 * context
 * @msg: a control message (a SEND): ctrl.c
 * @imm: a write with immediate: RPC
 */
struct lite_rx_ops {
	void (*msg)(struct lite_peer *peer, const void *buf, u32 len);
	void (*imm)(struct lite_peer *peer, const struct ib_wc *wc);
};

/* Set at module init, read-only (__ro_after_init) after it (device.c). */
extern struct lite_dev_ops lite_dev_ops;
extern struct lite_rx_ops lite_rx_ops;
extern struct workqueue_struct *lite_dev_wq;

/* cq.c: the device's CQ, polled from softirq and by spinning waiters */
/*
 * Completions of the QPs that are no peer's: pool.c's registration QP (two
 * while it is replaced) and atomic.c's loopback pair, drains included.
 */
#define LITE_CQ_LOOPBACK	16
#define LITE_CQ_FAILED		0	/* IB_EVENT_CQ_ERR: replace the CQ */
#define LITE_CQ_SENDS		1	/* armed for every completion */

int lite_cq_create(struct lite_dev *dev, int cqe);
void lite_cq_stop_spinners(struct lite_dev *dev);
void lite_cq_destroy(struct lite_dev *dev);
int lite_cq_renew(struct lite_dev *dev);
bool lite_cq_failed(struct lite_dev *dev);
int lite_cq_reserve(struct lite_dev *dev, int n);
void lite_cq_unreserve(struct lite_dev *dev, int n);
int lite_cq_drain_qp(struct lite_dev *dev, struct ib_qp *qp, bool rq);
void lite_cq_poll(void);
void lite_cq_init(struct lite_dev *dev);
void lite_cq_fini(struct lite_dev *dev);
void lite_cq_settle(struct lite_dev *dev, void (*fn)(void *), void *arg);
void lite_cq_await_begin(struct lite_dev *dev);
void lite_cq_await_end(struct lite_dev *dev);
void lite_cq_unawaited_begin(struct lite_dev *dev);
void lite_cq_unawaited_end(struct lite_dev *dev);

/* wait.c: one wait policy (spin, then sleep) for every kind of wait */
struct lite_wait_hist {
	u64	avg_ns;		/* recent waits of this kind */
};

/* How a waiter polls before it sleeps: lite_wait_mode() of its priority. */
enum lite_wait_mode {
	LITE_WAIT_SLEEP,	/* low priority: sleep at once, unrecorded */
	LITE_WAIT_POLICY,	/* normal: as wait_policy says */
	LITE_WAIT_SPIN,		/* high: poll until done, whatever the policy */
};

enum lite_wait_mode lite_wait_mode(int prio);
bool lite_spin(struct lite_wait_hist *h, bool (*cond)(void *), void *arg,
	       u64 start, u64 deadline, enum lite_wait_mode mode);
void lite_wait_learn(struct lite_wait_hist *h, u64 ns);
bool lite_spin_completion(void *arg);

/* pool.c: the memory peers can reach, in pieces */
struct lite_region;
struct lite_piece {
	struct lite_region	*region;	/* NULL: none */
	u64			off;		/* in the region */
	u32			size;
};

int lite_pool_start(struct lite_dev *dev);
void lite_pool_stop(void);
void lite_pool_exit(void);
int lite_pool_alloc(u64 size, bool zero, struct lite_piece *p);
void lite_pool_free(struct lite_piece *p);
void *lite_piece_kaddr(const struct lite_piece *p, u64 off);
u64 lite_piece_dma(const struct lite_piece *p, u64 off);
u64 lite_piece_addr(const struct lite_piece *p, u64 off);
u32 lite_piece_rkey(const struct lite_piece *p);
bool lite_pool_atomic_refused(void);
size_t lite_pool_show(char *buf, size_t size);

/* qp_pool.c: K RC QPs per peer */
#define LITE_TX_DEPTH	32	/* sends outstanding per QP */
/*
 * Send credits (lite_qp_post()): the last LITE_TX_CTRL_RESERVE of a QP's
 * are for control messages (IB_WR_SEND) only, and one uid's other work
 * requests (RDMA, RPC) hold at most LITE_TX_USER_MAX of them.
 */
#define LITE_TX_CTRL_RESERVE	4
#define LITE_TX_USER_MAX	(LITE_TX_DEPTH / 2)
/*
 * Receives posted per QP: every send of the peer's may consume one (control
 * messages, RPC writes with immediate, ACKs), and a receive is reposted
 * only after its completion ran: the peer's credit plus headroom, so that
 * the receiver is never not ready (an RNR NAK stalls the sender for
 * min_rnr_timer).
 */
#define LITE_RX_DEPTH	(LITE_TX_DEPTH + 16)
#define LITE_QP_SEND_WR	(LITE_TX_DEPTH + 2)	/* + the hello, a drain */
#define LITE_QP_RECV_WR	(LITE_RX_DEPTH + 1)	/* + a drain */
/*
 * Completions one QP can have in the CQ at once: one per work request it
 * can have posted, as a receive is reposted and a send credit given back
 * only once its completion was polled.
 */
#define LITE_QP_CQES	(LITE_QP_SEND_WR + LITE_QP_RECV_WR)
#define LITE_RNR_INFINITE 7
#define LITE_MIN_RNR_TIMER 1	/* 0.01 ms: a retry, not a stall */

/* av.c: how our QPs address a port (on RoCE: the resolved next hop) */
struct lite_av {
	enum ib_mtu		mtu;		/* the path's: ours and its least */
	enum ib_gid_type	gid_type;	/* Ethernet only, from here on */
	u8			dmac[ETH_ALEN];
	u8			hop_limit;
};
int lite_av_resolve(struct lite_dev *dev, const struct lite_port_addr *addr,
		    struct lite_av *av);
int lite_fill_av(struct lite_dev *dev, const struct lite_port_addr *addr,
		 const struct lite_av *av, struct rdma_ah_attr *ah);
void lite_av_show(struct seq_file *m, struct lite_peer *peer);

#define LITE_RX_BUF_SIZE 4096	/* a hello or one control message */

struct lite_peer;

struct lite_rx_buf {
	struct ib_cqe		cqe;
	struct lite_qp		*lqp;
	void			*data;
	u64			dma;
};

/*
 * Where a QP is in its connection with the peer's QP of the same index
 * (qp_conn.c has the handshake); only READY carries traffic.
 */
enum lite_qp_state {
	LITE_QP_IDLE,		/* INIT, receives posted: waits for the peer's */
	LITE_QP_CONNECTED,	/* RTS: waits for word that the peer's is too */
	LITE_QP_READY,		/* both ends connected: in use */
	LITE_QP_BROKEN,		/* an error: out of use until reconnected */
};

/* The peer's endpoint of one QP, as its QP_INFO entry said. */
struct lite_qp_remote {
	u32	qpn;
	u32	psn;
	u32	epoch;
	bool	rtr;
	bool	valid;
};

struct lite_qp {
	struct lite_peer	*peer;
	unsigned int		index;
	struct ib_qp		*qp;
	u32			qpn;	/* qp's, kept for lite/qps */
	u32			dqpn;	/* the peer's, once connected */
	u32			psn;
	bool			inited;	/* INIT or later: drained to reset */
	/* Under peer->lock (read anywhere): */
	enum lite_qp_state	state;
	/* The rest under the membership lock (qp_conn.c): */
	u32			epoch;		/* of the connection in progress */
	struct lite_qp_remote	pending;	/* news that came while BROKEN */
	unsigned long		last_reset;	/* jiffies */
	unsigned long		backoff;	/* before the next reset */
	unsigned int		recoveries;	/* resets after errors */
	/* An async event that may mean the QP is in error (qp_pool.c): */
	struct work_struct	event_work;	/* looks at its state */
	enum ib_event_type	event;		/* the last one, for the log */
	/* Send credits, one per send queue entry (lite_qp_post()): */
	spinlock_t		tx_lock;	/* the credit fields */
	unsigned int		tx_used;	/* posted or held */
	unsigned int		tx_charged;	/* of those, charged to a uid */
	unsigned int		tx_first;	/* oldest of tx_uid[] */
	unsigned int		tx_posted;	/* entries in tx_uid[] */
	u32			tx_uid[LITE_TX_DEPTH];	/* per posted WR, in order */
	u32			tx_awaited;	/* bit per tx_uid[]: someone waits */
	struct list_head	tx_held;	/* lite_qp_credit granted */
	struct list_head	tx_waiters;	/* lite_qp_credit waiting */
	wait_queue_head_t	tx_wq;		/* a credit was granted */
	struct lite_rx_buf	rx[LITE_RX_DEPTH];
	struct ib_cqe		tx_cqe;
	bool			tx_hello;	/* posted, its completion awaited */
	void			*tx_data;	/* the hello */
	u64			tx_dma;
};

enum lite_peer_state {
	LITE_PEER_CREATED,	/* our QPs exist, waiting for the peer's */
	LITE_PEER_CONNECTING,	/* the handshake under way (qp_conn.c) */
	LITE_PEER_UP,		/* every QP was READY once */
};

struct lite_peer {
	u16			id;
	u32			gen;
	u16			my_id;		/* this node, as the peer knows it */
	u32			my_gen;
	char			name[LITE_NAME_LEN];
	struct lite_port_addr	addr;
	struct lite_av		av;	/* its next hop (av.c) */
	enum lite_peer_state	state;
	unsigned long		ready_seen;	/* bit i: QP i was READY */
	struct delayed_work	recover_work;	/* reconnects BROKEN QPs */
	/* The table's + lite_peer_get()'s; the last frees it. */
	refcount_t		refs;
	spinlock_t		lock;		/* closing vs. posting */
	bool			closing;
	atomic_t		next_qp;
	atomic64_t		prio_low_bytes;	/* low priority in flight (prio.c) */
	int			cq_cqes;	/* its QPs' room in the CQ */
	struct lite_dev		*dev;
	unsigned int		nr_qps;
	struct lite_qp		qps[];
};

struct lite_peer *lite_peer_create(struct lite_dev *dev, u16 id, u32 gen,
				   const struct lite_msg_peer_up *up,
				   unsigned int nr_qps, u16 my_id, u32 my_gen);
void lite_peer_put(struct lite_peer *peer);
struct dentry;
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
void lite_qp_faults_init(struct dentry *dir);
#else
static inline void lite_qp_faults_init(struct dentry *dir)
{
}
#endif
void lite_peer_destroy(struct lite_peer *peer);
struct lite_qp *lite_peer_pick_qp(struct lite_peer *peer);
int lite_qp_reset(struct lite_qp *lqp);
int lite_qp_connect(struct lite_qp *lqp, u32 remote_qpn, u32 remote_psn);
int lite_qp_send_hello(struct lite_qp *lqp);
int lite_qp_modify_init(struct lite_dev *dev, struct ib_qp *qp);
u8 lite_qp_rd_atomic(const struct lite_dev *dev,
		     const struct lite_port_addr *addr);
int lite_qp_modify_rts(struct lite_dev *dev, struct ib_qp *qp,
		       const struct lite_port_addr *addr,
		       const struct lite_av *av, u32 remote_qpn,
		       u32 remote_psn, u32 sq_psn);
struct ib_qp *lite_qp_create_loopback(struct lite_dev *dev, u32 depth);
int lite_qp_create_loopback_pair(struct lite_dev *dev, u32 depth,
				 struct ib_qp *qps[2]);
/*
 * A send credit taken before the post that uses it (lite_qp_reserve()),
 * by a caller that must not wait for one under a lock of its own.
 */
struct lite_qp_credit {
	struct list_head	link;	/* tx_waiters, then tx_held until used */
	const struct ib_cqe	*cqe;	/* of the work request it is for */
	u32			uid;	/* charged to */
	bool			granted;
};
int lite_qp_reserve(struct lite_qp *lqp, struct lite_qp_credit *cr,
		    const struct ib_cqe *cqe, unsigned long deadline);
void lite_qp_unreserve(struct lite_qp *lqp, struct lite_qp_credit *cr);
int lite_qp_post(struct lite_qp *lqp, const struct ib_send_wr *wr,
		 bool awaited);

/* One signaled atomic on the 8 bytes at (@rkey, @addr), the old value to @sge. */
static inline struct ib_atomic_wr lite_atomic_wr(struct ib_sge *sge,
						 enum ib_wr_opcode opcode,
						 u64 addr, u32 rkey,
						 u64 compare_add, u64 swap)
{
	return (struct ib_atomic_wr) {
		.wr = {
			.sg_list	= sge,
			.num_sge	= 1,
			.opcode		= opcode,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.remote_addr	= addr,
		.compare_add	= compare_add,
		.swap		= swap,
		.rkey		= rkey,
	};
}

void lite_qp_complete(struct lite_qp *lqp, enum ib_wc_status status);

/*
 * qp_conn.c: the handshake that connects a QP pair, at the join and again
 * after an error (docs/architecture.md)
 */
void lite_peer_fill_qp_info(struct lite_peer *peer,
			    struct lite_msg_qp_info *info);
bool lite_peer_take_qp_info(struct lite_peer *peer,
			    const struct lite_msg_qp_info *in,
			    struct lite_msg_qp_info *out);
bool lite_peer_recover(struct lite_peer *peer, struct lite_msg_qp_info *out);
void lite_peer_recover_later(struct lite_peer *peer, unsigned long delay);
void lite_qp_break(struct lite_qp *lqp, const char *why);
void lite_qp_hello_arrived(struct lite_qp *lqp);
const char *lite_qp_state_name(enum lite_qp_state state);

/* membership.c: the manager connection and the peer table */

/**
 * struct lite_member_ops - what a service does as the membership changes
 * @start: this node is joining on @dev; before the manager is asked, as
 *	it drops a JOIN that is slow to finish
 * @joined: this node joined on @dev and has its node id
 * @peer_down: node @node, generation @gen, left; its QPs are destroyed,
 *	so nothing it sent can land any more
 * @leave: this node leaves, or its join failed: every peer is gone and no
 *	request is being served. Free what peers could reach. Must be safe
 *	when not joined, and twice
 * @left: it has left: lite_node_id() is 0 from now on
 *
 * Each runs in process context under the membership lock, for every
 * service in the order main.c subscribed them. Any may be NULL.
 */
struct lite_member_ops {
	void (*start)(struct lite_dev *dev);
	void (*joined)(struct lite_dev *dev);
	void (*peer_down)(u16 node, u32 gen);
	void (*leave)(void);
	void (*left)(void);
};

void lite_member_subscribe(const struct lite_member_ops *ops);
int lite_membership_join(const char *manager, u16 port, u32 ib_port,
			 const u8 *key, u32 *node_id);
void lite_membership_exit(void);
bool lite_membership_lost(void);
u16 lite_node_id(void);
u32 lite_node_gen(void);
u32 lite_node_gen_of(u16 node);
void lite_membership_dev_event(struct lite_dev *dev, unsigned long events);
unsigned int lite_nr_nodes(u64 *connected);
unsigned int lite_qps_per_peer(void);
struct lite_peer *lite_peer_get(u16 id, u32 gen);
void lite_peer_wait_up(u16 id, u32 gen, unsigned long timeout);
void lite_peer_set_up(struct lite_peer *peer);
void lite_peer_recover_work(struct lite_peer *peer);
bool lite_peer_alive(u16 id, u32 gen);
struct lite_dev *lite_peer_dev(u16 id, u32 gen);
struct lite_dev *lite_peer_dev_hold(u16 id);
bool lite_node_fenced(u16 node, u32 gen);	/* handle.c */

/*
 * auth.c: the MACs of the manager connection (include/lite_proto.h says
 * what one covers), HMAC-SHA256 under the cluster key
 */
struct crypto_shash;

/* One manager connection's keys, nonces and message counts. */
struct lite_auth {
	struct crypto_shash	*tfm;		/* keyed */
	u8			manager_nonce[LITE_NONCE_LEN];
	u8			node_nonce[LITE_NONCE_LEN];
	u64			tx_seq;
	u64			rx_seq;
};

int lite_auth_init(struct lite_auth *a, const u8 key[LITE_KEY_LEN]);
void lite_auth_free(struct lite_auth *a);
void lite_auth_seal(struct lite_auth *a, const struct lite_msg_hdr *hdr,
		    void *body, u32 len);
int lite_auth_verify(struct lite_auth *a, const struct lite_msg_hdr *hdr,
		     const void *body, u32 len);

/* ctrl.c: request/response control messages between nodes' modules */

/**
 * struct lite_ctrl_service - a service's control requests
 * @types: the LITE_CTRL_* request types it serves
 * @nr_types: how many
 * @serve: serves one, from a peer or from this node (lite_ctrl_call());
 *	process context, may sleep. Writes the response to @resp (room for
 *	LITE_CTRL_MAX_PAYLOAD bytes for ALLOC and ASK, for the type's
 *	fixed-size answer otherwise: wire_check.c) and its length to
 *	@resp_len, which is 0 on entry. Returns 0 or a negative errno,
 *	which the caller receives. Long loops ask lite_ctrl_check_stop().
 * @cost: optional; how many bytes serving this request touches, and the
 *	requesting user (@uid) it is charged to. Requests of at least
 *	LITE_CTRL_BULK_BYTES are bulk work (ctrl.c). The completion
 *	context calls it on the unchecked payload (of the right size).
 * @undo: optional; undo what request @req_id of @src made (an ALLOC,
 *	a LOCK_CREATE): its requester gave up. Nothing made: nothing to do.
 *
 * Services register at module load (main.c), before any peer can send:
 * ctrl.c dispatches by type and knows no service.
 */
struct lite_ctrl_service {
	const u16	*types;
	unsigned int	nr_types;
	int		(*serve)(u16 src, u32 src_gen, u16 type,
				 const void *req, u32 len, void *resp,
				 u32 *resp_len);
	u64		(*cost)(u16 type, const void *req, u32 len, u32 *uid);
	void		(*undo)(u16 src, u32 src_gen, u64 req_id);
};

/* A request that touches this many bytes is bulk work (ctrl.c). */
#define LITE_CTRL_BULK_BYTES	(1ULL << 20)

/* Defines @svc: @serve (and @cost, @undo, or NULL) for the types that follow. */
#define LITE_CTRL_SERVICE_HOOKS(svc, serve_fn, cost_fn, undo_fn, ...)	\
	static const u16 svc##_types[] = { __VA_ARGS__ };		\
	const struct lite_ctrl_service svc = {				\
		.types = svc##_types,					\
		.nr_types = ARRAY_SIZE(svc##_types),			\
		.serve = serve_fn,					\
		.cost = cost_fn,					\
		.undo = undo_fn,					\
	}
#define LITE_CTRL_SERVICE(svc, serve_fn, ...)				\
	LITE_CTRL_SERVICE_HOOKS(svc, serve_fn, NULL, NULL, __VA_ARGS__)

int lite_ctrl_init(void);
void lite_ctrl_exit(void);
void lite_ctrl_register(const struct lite_ctrl_service *svc);
void lite_ctrl_drop_next(u16 type, unsigned int count);
int lite_ctrl_call(u16 node, u32 gen, u16 type, const void *req, u32 req_len,
		   void *resp, u32 *resp_len);
void lite_ctrl_recv(struct lite_peer *peer, const void *buf, u32 len);
void lite_ctrl_peer_down(u16 node);
void lite_ctrl_queue(struct work_struct *work);
void lite_ctrl_queue_delayed(struct delayed_work *dwork, unsigned long delay);
void lite_ctrl_flush(void);
int lite_ctrl_check_stop(void);
unsigned long lite_ctrl_timeout(void);
u64 lite_ctrl_req_id(void);

/* lmr.c: the LMRs this node owns, and what it has published */
struct lite_lmr;
struct lite_lmr_desc;
extern const struct lite_ctrl_service lite_lmr_ctrl_service;
extern const struct lite_member_ops lite_lmr_member_ops;
extern const struct lite_member_ops lite_rdma_member_ops;
void lite_lmr_exit(void);
void lite_lmr_destroy_all(void);
struct lite_lmr *lite_lmr_get(u32 id);
void lite_lmr_put(struct lite_lmr *lmr);
int lite_lmr_copy(struct lite_lmr *lmr, u64 off, struct iov_iter *iter,
		  u64 len, bool to_lmr);
int lite_lmr_memset(struct lite_lmr *lmr, u64 off, int value, u64 len);
int lite_lmr_memmove(struct lite_lmr *dst, u64 doff, struct lite_lmr *src,
		     u64 soff, u64 len);
atomic64_t *lite_lmr_atomic_ptr(struct lite_lmr *lmr, u64 off, int *err);
int lite_lmr_atomic_addr(struct lite_lmr *lmr, u64 off, u64 *addr, u32 *rkey);
bool lite_lmr_nic_atomic(const struct lite_lmr *lmr);

/* user.c: per-user limits (docs/security.md) */
enum lite_res {
	LITE_RES_LMR_BYTES,	/* LMRs this node's user allocated */
	LITE_RES_ZC_BYTES,	/* its zero-copy buffers */
	LITE_RES_HANDLES,
	LITE_RES_CALLS,		/* RPC calls waiting for a reply */
	LITE_RES_LOCKS,		/* locks a (node, uid) created here */
	LITE_RES_PUBS,		/* publications a (node, uid) made here */
	LITE_RES_ASYNC_BYTES,	/* bytes of its posted operations, unreaped */
	LITE_RES_PORTS,		/* RPC ports it registered on this node */
	LITE_RES_RING_BYTES,	/* RPC rings senders opened on its ports */
	LITE_RES_BULK,		/* bulk control requests in flight (ctrl.c) */
	LITE_RES_HOSTED_BYTES,	/* LMRs a (node, uid) allocated on this node */
	LITE_RES_REPLIES,	/* RPC replies its receivers owe */
	LITE_RES_NR,
};
struct lite_user;
struct lite_user *lite_user_get(u16 node, u32 uid);
struct lite_user *lite_user_get_atomic(u16 node, u32 uid);
void lite_user_hold(struct lite_user *u);
void lite_user_put(struct lite_user *u);
int lite_user_charge(struct lite_user *u, enum lite_res res, u64 n);
void lite_user_uncharge(struct lite_user *u, enum lite_res res, u64 n);
int lite_user_charge_wait(struct lite_user *u, enum lite_res res, u64 n,
			  unsigned long timeout);
void lite_user_exit(void);

struct lite_ctx;		/* a context: lite_ctx.h */

/* ubuf.c: zero-copy user buffers (mmap of /dev/lite) */
struct lite_ubuf {
	struct kref		ref;	/* one per vma + one per operation */
	unsigned long		len;
	unsigned int		chunk_shift;
	struct lite_user	*user;	/* charged LITE_RES_ZC_BYTES, or NULL */
	struct page		*chunks[];	/* first page of each chunk */
};

struct vm_area_struct;

int lite_ubuf_mmap(struct lite_user *user, struct vm_area_struct *vma);
struct lite_ubuf *lite_ubuf_find(unsigned long addr, u64 len, u64 *off);
struct page *lite_ubuf_page(struct lite_ubuf *ub, u64 off, u32 *in_chunk,
			    u64 *avail);
void lite_ubuf_put(struct lite_ubuf *ub);

/*
 * rpc.c, rpc_client.c, rpc_call.c, rpc_server.c: RPC over write-with-immediate
 * (docs/rpc.md); their internals: rpc.h
 */
struct lite_ctrl_rpc_open;
struct lite_ctrl_rpc_forget;
struct lite_ctrl_rpc_ring;
extern const struct lite_ctrl_service lite_rpc_ctrl_service;
extern const struct lite_member_ops lite_rpc_member_ops;
void lite_rpc_init(void);
void lite_rpc_exit(void);
void lite_rpc_rx(struct lite_peer *peer, const struct ib_wc *wc);
int lite_rpc_serve_open(u16 src, u32 src_gen,
			const struct lite_ctrl_rpc_open *req,
			struct lite_ctrl_rpc_ring *resp);
int lite_rpc_serve_close(u16 src, u32 src_gen,
			 const struct lite_ctrl_rpc_open *req);
int lite_rpc_serve_forget(u16 src, u32 src_gen,
			  const struct lite_ctrl_rpc_forget *req);
size_t lite_rpc_show(char *buf, size_t size);
size_t lite_lmr_show(char *buf, size_t size);
int lite_rpc_register(struct lite_ctx *ctx, u32 port, u32 max_size,
		      const char *name);
int lite_rpc_query_port(u32 node, u32 port, u32 *max_size);
int lite_rpc_send(u32 node, u32 port, struct iov_iter *src, u32 len, int prio);
int lite_rpc_call(struct lite_user *user, u32 node, u32 port,
		  struct iov_iter *src, u32 len, struct iov_iter *dst, u32 max,
		  int prio);
/* One destination of lite_rpc_mcall(). */
struct lite_rpc_mdst {
	u32		node;
	int		status;		/* out: 0 or a negative errno */
	u32		len;		/* out: the reply's length */
	struct iov_iter	dst;		/* where the reply goes */
	struct kvec	kv;		/* for a kernel buffer at dst */
};

int lite_rpc_mcall(struct lite_user *user, struct lite_rpc_mdst *dsts,
		   unsigned int nr, u32 port, struct iov_iter *src, u32 len,
		   u32 max, int prio);
int lite_rpc_recv(struct lite_ctx *ctx, u32 port, struct iov_iter *dst,
		  u32 size, bool nonblock, u64 *desc, u32 *src_node);
int lite_rpc_reply(struct lite_ctx *ctx, u64 desc, struct iov_iter *src,
		   u32 len, int prio);
void lite_rpc_token_drop(struct lite_ctx *ctx, u64 desc);
void lite_rpc_ctx_release(struct lite_ctx *ctx);
void lite_rpc_wake_all(void);

/* atomic.c: atomics on atomic LMRs, on the NIC or the owner's CPU */
struct lite_handle;
struct lite_ctrl_atomic;
struct lite_ctrl_u64;
int lite_atomic(struct lite_handle *h, u32 op, u64 off, u64 value, u64 compare,
		u64 *old);
int lite_atomic_serve(u16 src, const struct lite_ctrl_atomic *req,
		      struct lite_ctrl_u64 *resp, u32 *resp_len);
bool lite_atomic_on_nic(void);
extern const struct lite_member_ops lite_atomic_member_ops;

/* sync.c: locks, barrier */
int lite_lock_create(struct lite_ctx *ctx, u32 node, u32 *id);
int lite_lock_ask(struct lite_ctx *ctx, u32 node, u32 id);
int lite_lock(struct lite_ctx *ctx, u32 node, u32 id);
int lite_unlock(struct lite_ctx *ctx, u32 node, u32 id);
int lite_lock_destroy(struct lite_ctx *ctx, u32 node, u32 id);
int lite_barrier(struct lite_ctx *ctx, u32 nr);
void lite_sync_ctx_gone(u64 ctx_id);
extern const struct lite_ctrl_service lite_sync_ctrl_service;
extern const struct lite_member_ops lite_sync_member_ops;
int lite_sync_init(void);
void lite_sync_module_exit(void);

/* prio.c: high priority first, low priority throttled (docs/rpc.md) */
void lite_prio_init(void);
void lite_prio_exit(void);
void lite_prio_begin(int prio);
void lite_prio_end(int prio);
u64 lite_prio_low_cap(int prio, u64 want);
u64 lite_prio_low_step(struct lite_peer *peer, int prio, u64 want);
void lite_prio_low_done(struct lite_peer *peer, int prio, u64 step);

/*
 * stats.c: counters, in /sys/kernel/debug/lite/counters, and per node id
 * (kept across the node's generations) in .../peers
 */
enum lite_stat {
	LITE_STAT_ATOMIC_NIC,		/* atomic WRs to an owner's NIC */
	LITE_STAT_ATOMIC_LOOPBACK,	/* atomic WRs to our own NIC */
	LITE_STAT_ATOMIC_CPU,		/* atomics run on this CPU */
	LITE_STAT_OP_WAIT_SPUN,		/* read/write/atomic waits done polling */
	LITE_STAT_OP_WAIT_SLEPT,	/* ... that slept */
	LITE_STAT_CQ_EVENTS,		/* completion events of the CQ */
	LITE_STAT_NR,
};

enum lite_peer_stat {
	LITE_PSTAT_RDMA_OPS,		/* one-sided WRs posted to its memory */
	LITE_PSTAT_RDMA_BYTES,
	LITE_PSTAT_RPC_SENT,		/* messages written into its rings */
	LITE_PSTAT_RPC_BYTES,
	LITE_PSTAT_RING_FULL,		/* sends that found its ring full */
	LITE_PSTAT_TIMEOUTS,		/* RDMA ops, RPC and control calls */
	LITE_PSTAT_REVOKED,		/* our mappings of its LMRs it revoked */
	LITE_PSTAT_CTRL_SENT,		/* control requests to it */
	LITE_PSTAT_CTRL_DROPPED,	/* its requests dropped (ctrl_queue_max) */
	LITE_PSTAT_CTRL_RESENT,		/* control messages to it sent again */
	LITE_PSTAT_RDMA_RETRIED,	/* RDMA steps posted again (QP reset) */
	LITE_PSTAT_NR,
};

struct seq_file;
int lite_stats_init(void);
void lite_stats_exit(void);
void lite_stat_inc(enum lite_stat stat);
void lite_stat_ctrl(u16 type, bool served);
void lite_stat_peer(u16 node, enum lite_peer_stat stat, u64 n);
int lite_stats_show(struct seq_file *m, void *unused);
int lite_peer_stats_show(struct seq_file *m, void *unused);

/* debugfs.c: /sys/kernel/debug/lite */
void lite_debugfs_init(void);
void lite_debugfs_exit(void);

/* chardev.c: /dev/lite */
int lite_chardev_init(void);
void lite_chardev_exit(void);

#endif /* LITE_PRIV_H */
