/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * verbs_bench: native libibverbs baselines, connections by librdmacm.
 *
 * One server serves one client session and exits. The client asks for
 * everything in its rdma_cm connect private data (struct vb_hello: mode,
 * sizes, QP count, memory layout), so the server needs no options but its
 * port. Once a connection is established the server SENDs a welcome: the
 * table of (addr, len, rkey) of the buffers this QP may target. Files:
 *
 *   verbs_bench.c   options and dispatch
 *   verbs_wire.c    byte layout of hello, welcome table and reject text
 *   verbs_queue.c   send-queue accounting (selective signalling), watchdog,
 *                   sleeping for completions (--client-wait event)
 *   verbs_util.c    memory, rdma_cm event waits, path report
 *   verbs_client.c  active side: connect every QP, disconnect
 *   verbs_server.c  passive side and the RPC server loop
 *   verbs_lat.c, verbs_tput.c, verbs_rpc.c, verbs_reg.c   the modes
 *   verbs_ctrl.c    the control path (-m ctrl): both sides, own wire
 */
#ifndef MICROBENCH_VERBS_H
#define MICROBENCH_VERBS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "common.h"

#define VB_MAX_QPS		1024
#define VB_MAX_DEPTH		4096
#define VB_MAX_MRS		(1U << 20)
#define VB_MAX_INLINE		4096
/* One signalled send WR in this many: the others retire with it. */
#define VB_SIGNAL_EVERY		16
/* Send-queue slots of an RPC QP; >= VB_SIGNAL_EVERY so a full queue
 * always holds a signalled WR whose completion frees room. */
#define VB_RPC_SQ		(4 * VB_SIGNAL_EVERY)
/* Bound on waiting for any completion. */
#define VB_WAIT_NS		(10ULL * 1000000000ULL)
#define VB_WAIT_TEXT		"10 s"
/*
 * --client-wait event: the longest sleep before the bound is checked, and
 * how many completion events are acknowledged at once (each
 * ibv_ack_cq_events takes the CQ's lock).
 */
#define VB_EVENT_POLL_MS	100
#define VB_ACK_EVERY		64

#define VB_HELLO_LEN		48
#define VB_TABLE_HDR		8
#define VB_TABLE_ENTRY		20
#define VB_REJECT_MAX		100

enum vb_mode {
	VB_MODE_LAT = 1, VB_MODE_TPUT, VB_MODE_RPC, VB_MODE_REG, VB_MODE_CTRL,
};
enum vb_op { VB_OP_WRITE = 1, VB_OP_READ, VB_OP_WRITEIMM, VB_OP_SENDRECV };
enum vb_param {
	VB_PARAM_NONE, VB_PARAM_MR_TOTAL, VB_PARAM_MR_COUNT, VB_PARAM_QPS,
	VB_PARAM_THREADS, VB_PARAM_DEPTH,
};

extern const char *const vb_mode_names[];	/* by enum vb_mode */
extern const char *const vb_op_names[];		/* by enum vb_op */

struct vb_opts {
	int mode;
	int op;
	uint64_t mr_total;
	uint64_t mr_count;
	unsigned int qps;
	unsigned int depth;
	unsigned int inline_max;
	int param;
	unsigned int rep;	/* ctrl: the rep column */
	bool server;
	int server_event;	/* rpc server: sleep on a completion channel */
	int client_event;	/* lat, rpc client: the same for its callers */
};

/* What a client asks for: the private data of every rdma_connect. */
struct vb_hello {
	uint32_t session;	/* random; later QPs must repeat it */
	uint8_t mode, op;
	uint16_t qp_index, nqps, depth, inline_max;
	uint32_t max_size;
	uint32_t mr_count;
	uint64_t mr_total;
	uint64_t reply_addr;	/* rpc writeimm: this QP's reply buffer */
	uint32_t reply_rkey;
};

/* A remote buffer: one welcome table entry. */
struct vb_region {
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
};

/* One RC QP of either side and the accounting of its send queue. */
struct vb_qp {
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	unsigned int index;	/* in its side's QP array; in every wr_id */
	unsigned int sq_cap;	/* send WRs it may have outstanding */
	unsigned int sq_out;	/* posted, not yet retired by a completion */
	unsigned int unsignalled; /* posted since the last signalled one */
	unsigned int next_slot;	/* rpc: ring slot of the next request */
	bool live;
	char *buf;		/* client: request/source; server: its ring */
	char *reply;		/* client rpc: where replies land */
	struct vb_region remote; /* client rpc: server ring; server: reply */
	char *welcome;		/* server: its welcome message */
	uint32_t welcome_len;
	struct ibv_mr *welcome_mr;
} __attribute__((aligned(BENCH_CACHE_LINE)));

/* Waiting for completions without hanging: see vb_watch_check(). */
struct vb_watch {
	const char *step;
	uint64_t deadline;
	unsigned int spins;
	bool moved;
};

/*
 * A caller that sleeps for its completions (--client-wait event) instead
 * of polling without pause: the completion channel of the one CQ it waits
 * on (lat: its send CQ; rpc: its receive CQ, where replies land).
 */
struct vb_sleep {
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	unsigned int unacked;	/* events got, not yet acknowledged */
	bool armed;		/* notification asked for, no event got since */
} __attribute__((aligned(BENCH_CACHE_LINE)));

/* Client side of a session: every QP connected, the welcome read. */
struct vb_client {
	const struct bench_cfg *cfg;
	const struct vb_opts *o;
	struct rdma_event_channel *ch;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	unsigned int nthreads, nqps, sq_cap, rq_depth;
	struct ibv_cq **scq, **rcq;	/* per thread */
	struct vb_sleep *sleep;		/* per thread; NULL: busy polling */
	struct vb_qp *qps;
	uint64_t max_size, slot;
	char *mem;			/* QP i's slices: slot or 2 slots */
	size_t mem_len;
	struct ibv_mr *mr;
	char *tbuf;			/* welcome receive buffer */
	size_t tbuf_len;
	struct ibv_mr *tmr;
	struct vb_region *regions;	/* lat, tput: from QP 0's welcome */
	unsigned int nregions;
	uint32_t session;
	unsigned int attempt;
	struct sockaddr_storage dst;
};

static inline uint64_t vb_slot(uint64_t size)
{
	return (size + 63) & ~63ULL;
}

/* A server's RDMA read depths for rdma_accept(): the lower of what the
 * client asked for and what the device takes, in rdma_conn_param's u8. */
static inline uint8_t vb_min_u8(int a, int b)
{
	int m = a < b ? a : b;

	return m < 0 ? 0 : m > 255 ? 255 : (uint8_t)m;
}

static inline uint64_t vb_wrid(unsigned int index, uint32_t low)
{
	return (uint64_t)index << 32 | low;
}

/* verbs_wire.c */
void vb_hello_encode(const struct vb_hello *h, uint8_t *buf);
int vb_hello_decode(const void *buf, size_t len, struct vb_hello *h);
size_t vb_table_len(unsigned int n);
void vb_table_encode(const struct vb_region *r, unsigned int n, uint8_t *buf);
int vb_table_decode(const void *buf, size_t len, struct vb_region *r,
		    unsigned int max, unsigned int *n);
size_t vb_reject_encode(const char *why, uint8_t *buf);
bool vb_reject_decode(const void *buf, size_t len, char *why, size_t size);

/* verbs_queue.c */
void vb_post(struct vb_qp *q, struct ibv_send_wr *wr, bool signal);
int vb_reap(struct ibv_cq *cq, struct vb_qp *qps, const char *step);
void vb_post_recv(struct vb_qp *q, void *addr, uint32_t len, uint32_t lkey,
		  uint64_t wr_id);
void vb_wc_check(const struct ibv_wc *wc, const char *step);
void vb_watch_start(struct vb_watch *w, const char *step);
void vb_watch_check(struct vb_watch *w);

static inline void vb_watch_idle(struct vb_watch *w)
{
	if ((++w->spins & 1023) == 0)
		vb_watch_check(w);
}

static inline void vb_watch_moved(struct vb_watch *w)
{
	w->moved = true;
}

struct ibv_comp_channel *vb_comp_channel(struct ibv_context *ctx);
void vb_sleep_open(struct vb_sleep *s, struct ibv_context *ctx);
void vb_sleep_idle(struct vb_sleep *s, struct vb_watch *w);
void vb_sleep_ack(struct vb_sleep *s);

/*
 * A poll found nothing: a busy caller (s NULL) polls again at once,
 * watching the time; a sleeping one arms its CQ or sleeps (vb_sleep_idle).
 */
static inline void vb_wait_idle(struct vb_sleep *s, struct vb_watch *w)
{
	if (s)
		vb_sleep_idle(s, w);
	else
		vb_watch_idle(w);
}

/* verbs_util.c */
void *vb_alloc(size_t len);
void vb_free(void *p, size_t len);
struct rdma_event_channel *vb_channel(void);
struct rdma_cm_event *vb_cm_wait(struct rdma_event_channel *ch,
				 uint64_t deadline, const char *step);
int vb_cm_poll(struct rdma_event_channel *ch, int timeout_ms,
	       struct rdma_cm_event **ev);
void vb_cm_ack_drop(struct rdma_cm_event *ev, struct rdma_cm_id *drop);
/* What a server's connection manager event means to it. */
enum vb_cm_kind { VB_CM_OTHER, VB_CM_REQUEST, VB_CM_ESTABLISHED, VB_CM_CLOSED };
enum vb_cm_kind vb_cm_kind(const struct rdma_cm_event *ev);
void vb_report_path(const struct bench_cfg *cfg, struct rdma_cm_id *id);
/*
 * What the device says the connected @qps run with (ibv_query_qp): one
 * "# qp_attr=timeout=.. retry_cnt=.. rnr_retry=.. path_mtu=..
 * max_rd_atomic=.. qps=N" line per distinct set, N the QPs that have it;
 * "# qp_attr=unreadable (why) qps=N" for those it does not answer.
 */
#define VB_QP_ATTR_MAX		128
void vb_report_qp_attrs(struct ibv_qp *const *qps, unsigned int n);
/* --qp-timeout on the QP @id connects, before its connect or accept. */
void vb_set_qp_timeout(const struct bench_cfg *cfg, struct rdma_cm_id *id);
uint64_t vb_param(const struct bench_cfg *cfg, const struct vb_opts *o);

/* verbs_client.c */
/* One point of a client mode: pt's size and rep are set; arg is the mode's. */
typedef void vb_point_fn(struct vb_client *c, struct bench_point *pt,
			 void *arg);
/*
 * A client's run: connect every QP, print the provenance and the header of
 * kind, call point for every size and every rep of it, disconnect.
 */
void vb_client_sweep(const struct bench_cfg *cfg, const struct vb_opts *o,
		     const char *bench, enum bench_kind kind,
		     vb_point_fn *point, void *arg);
void vb_client_reply_recv(const struct vb_client *c, struct vb_qp *q);

/* The modes; each returns the exit status. */
int vb_lat(const struct bench_cfg *cfg, const struct vb_opts *o);
int vb_tput(const struct bench_cfg *cfg, const struct vb_opts *o);
int vb_rpc(const struct bench_cfg *cfg, const struct vb_opts *o);
int vb_reg(const struct bench_cfg *cfg, const struct vb_opts *o);
int vb_serve(const struct bench_cfg *cfg, const struct vb_opts *o);
int vb_ctrl(const struct bench_cfg *cfg, const struct vb_opts *o);
int vb_ctrl_serve(const struct bench_cfg *cfg, const struct vb_opts *o);

#endif /* MICROBENCH_VERBS_H */
