// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The active side: one rdma_cm connection per QP, made one after the
 * other. QP i belongs to thread i % threads, whose send and receive CQs it
 * shares. Each QP gets its own slice of one registered buffer: the source
 * or sink of its operations, and for RPC a second slice for replies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs.h"

#define RESOLVE_MS	5000
#define RETRY_NS	200000000ULL
#define WELCOME_TAG	0x80000000U

/* How many QPs, threads and queue slots the mode needs. */
static void plan(struct vb_client *c)
{
	const struct vb_opts *o = c->o;

	c->nthreads = c->cfg->threads;
	c->nqps = o->qps;
	c->sq_cap = o->mode == VB_MODE_LAT ? 1 :
		    o->mode == VB_MODE_TPUT ? o->depth : VB_RPC_SQ;
	c->rq_depth = o->mode == VB_MODE_RPC ? o->depth : 0;
	c->max_size = bench_max_size(c->cfg);
	c->slot = vb_slot(c->max_size);
	c->session = (uint32_t)(bench_now_ns() ^ ((uint64_t)getpid() << 16));
}

static struct ibv_cq *make_cq(struct vb_client *c, unsigned int per_qp,
			      struct ibv_comp_channel *cc)
{
	unsigned int qps = (c->nqps + c->nthreads - 1) / c->nthreads;
	struct ibv_cq *cq = ibv_create_cq(c->ctx, (int)(qps * per_qp),
					  NULL, cc, 0);

	if (!cq)
		bench_die("ibv_create_cq(%u): %s", qps * per_qp,
			  strerror(errno));
	return cq;
}

/*
 * With --client-wait event each thread's callers sleep on a completion
 * channel of the CQ they wait on: lat, the send CQ (the operation's own
 * completion); rpc, the receive CQ (the reply). The other is polled: an
 * rpc request's send completion is in by the time its reply is.
 */
static void make_cqs(struct vb_client *c)
{
	bool lat = c->o->mode == VB_MODE_LAT;
	unsigned int t;

	c->scq = calloc(c->nthreads, sizeof(*c->scq));
	c->rcq = calloc(c->nthreads, sizeof(*c->rcq));
	if (!c->scq || !c->rcq)
		bench_die("out of memory");
	if (c->o->client_event)
		c->sleep = bench_zalloc(c->nthreads, sizeof(*c->sleep));
	for (t = 0; t < c->nthreads; t++) {
		struct vb_sleep *s = c->sleep ? &c->sleep[t] : NULL;

		if (s)
			vb_sleep_open(s, c->ctx);
		c->scq[t] = make_cq(c, c->sq_cap + 1, s && lat ? s->cc : NULL);
		c->rcq[t] = make_cq(c, c->rq_depth + 2,
				    s && !lat ? s->cc : NULL);
		if (s)
			s->cq = lat ? c->scq[t] : c->rcq[t];
	}
}

/* Every QP's slices in one MR, registered before any connect so the
 * hello can carry the reply buffer's address and rkey. */
static void make_buffers(struct vb_client *c)
{
	const struct vb_opts *o = c->o;
	unsigned int per = o->mode == VB_MODE_RPC ? 2 : 1, i;
	unsigned int entries = o->mode == VB_MODE_TPUT ? o->mr_count : 1;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	c->mem_len = (size_t)c->nqps * per * c->slot;
	c->mem = vb_alloc(c->mem_len);
	if (!c->mem)
		bench_die("cannot allocate %zu bytes", c->mem_len);
	c->mr = ibv_reg_mr(c->pd, c->mem, c->mem_len, access);
	if (!c->mr)
		bench_die("ibv_reg_mr(%zu bytes): %s", c->mem_len,
			  strerror(errno));
	for (i = 0; i < c->nqps; i++) {
		c->qps[i].buf = c->mem + (size_t)i * per * c->slot;
		c->qps[i].reply = per == 2 ? c->qps[i].buf + c->slot : NULL;
	}
	c->tbuf_len = vb_table_len(entries);
	c->tbuf = malloc(c->tbuf_len);
	c->regions = calloc(entries, sizeof(*c->regions));
	if (!c->tbuf || !c->regions)
		bench_die("out of memory");
	c->tmr = ibv_reg_mr(c->pd, c->tbuf, c->tbuf_len,
			    IBV_ACCESS_LOCAL_WRITE);
	if (!c->tmr)
		bench_die("ibv_reg_mr(welcome): %s", strerror(errno));
}

static void check_limits(const struct vb_client *c)
{
	const struct ibv_device_attr *a = &c->attr;

	if (c->sq_cap + 1 > (unsigned int)a->max_qp_wr ||
	    c->rq_depth + 2 > (unsigned int)a->max_qp_wr)
		bench_die("--depth %u: device allows %d WRs per queue",
			  c->o->depth, a->max_qp_wr);
	if (c->max_size > a->max_mr_size)
		bench_die("size %" PRIu64 ": device MRs end at %" PRIu64,
			  c->max_size, (uint64_t)a->max_mr_size);
}

/* Once rdma_cm has said which device reaches the peer. */
static void setup_device(struct vb_client *c, struct ibv_context *ctx)
{
	const char *name = ibv_get_device_name(ctx->device);

	if (c->cfg->dev && strcmp(name, c->cfg->dev))
		bench_die("rdma_cm reaches %s through %s, not --dev %s",
			  c->cfg->peer, name, c->cfg->dev);
	c->ctx = ctx;
	if (ibv_query_device(ctx, &c->attr))
		bench_die("ibv_query_device(%s) failed", name);
	check_limits(c);
	c->pd = ibv_alloc_pd(ctx);
	if (!c->pd)
		bench_die("ibv_alloc_pd(%s): %s", name, strerror(errno));
	make_cqs(c);
	make_buffers(c);
}

static void make_qp(struct vb_client *c, struct vb_qp *q,
		    struct rdma_cm_id *id)
{
	unsigned int t = q->index % c->nthreads;
	struct ibv_qp_init_attr a = {
		.send_cq = c->scq[t],
		.recv_cq = c->rcq[t],
		.cap = {
			.max_send_wr = c->sq_cap + 1,
			.max_recv_wr = c->rq_depth + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = c->o->inline_max,
		},
		.qp_type = IBV_QPT_RC,
	};

	if (rdma_create_qp(id, c->pd, &a))
		bench_die("QP %u: rdma_create_qp: %s", q->index,
			  strerror(errno));
	q->id = id;
	q->qp = id->qp;
	q->sq_cap = c->sq_cap;
	q->sq_out = 0;
	q->unsignalled = 0;
}

static void make_hello(const struct vb_client *c, const struct vb_qp *q,
		       uint8_t *buf)
{
	const struct vb_opts *o = c->o;
	struct vb_hello h = {
		.session = c->session,
		.mode = (uint8_t)o->mode,
		.op = (uint8_t)o->op,
		.qp_index = (uint16_t)q->index,
		.nqps = (uint16_t)c->nqps,
		.depth = (uint16_t)o->depth,
		.inline_max = (uint16_t)o->inline_max,
		.max_size = (uint32_t)c->max_size,
		.mr_count = (uint32_t)o->mr_count,
		.mr_total = o->mr_total,
	};

	if (o->op == VB_OP_WRITEIMM) {
		h.reply_addr = (uintptr_t)q->reply;
		h.reply_rkey = c->mr->rkey;
	}
	vb_hello_encode(&h, buf);
}

/* Any event for an earlier QP during setup means the server dropped it. */
static struct rdma_cm_event *next_event(struct vb_client *c,
					struct rdma_cm_id *id,
					uint64_t deadline, const char *step)
{
	struct rdma_cm_event *ev = vb_cm_wait(c->ch, deadline, step);

	if (ev->id != id)
		bench_die("%s: %s on an earlier QP", step,
			  rdma_event_str(ev->event));
	return ev;
}

static void expect(struct vb_client *c, struct rdma_cm_id *id,
		   enum rdma_cm_event_type want, uint64_t deadline,
		   const char *step)
{
	struct rdma_cm_event *ev = next_event(c, id, deadline, step);
	enum rdma_cm_event_type got = ev->event;
	int status = ev->status;

	rdma_ack_cm_event(ev);
	if (got != want)
		bench_die("%s %s: %s (status %d%s%s)", step, c->cfg->peer,
			  rdma_event_str(got), status, status < 0 ? ": " : "",
			  status < 0 ? strerror(-status) : "");
}

/* Address and route: afterwards id->verbs is the device to use. */
static void resolve(struct vb_client *c, struct rdma_cm_id *id,
		    uint64_t deadline)
{
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&c->dst,
			      RESOLVE_MS))
		bench_die("rdma_resolve_addr(%s): %s", c->cfg->peer,
			  strerror(errno));
	expect(c, id, RDMA_CM_EVENT_ADDR_RESOLVED, deadline,
	       "resolving the address of");
	if (!c->ctx)
		setup_device(c, id->verbs);
	else if (id->verbs != c->ctx)
		bench_die("rdma_cm routed a later QP through another device");
	if (rdma_resolve_route(id, RESOLVE_MS))
		bench_die("rdma_resolve_route(%s): %s", c->cfg->peer,
			  strerror(errno));
	expect(c, id, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline,
	       "resolving the route to");
}

static uint8_t clamp_u8(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

static void connect_id(struct vb_client *c, struct vb_qp *q)
{
	uint8_t hello[VB_HELLO_LEN];
	struct rdma_conn_param p = {
		.private_data = hello,
		.private_data_len = sizeof(hello),
		.responder_resources = clamp_u8(c->attr.max_qp_rd_atom),
		.initiator_depth = clamp_u8(c->attr.max_qp_init_rd_atom),
		.retry_count = (uint8_t)c->cfg->qp_retry,
		.rnr_retry_count = 7,	/* 7: retry forever, never drop */
	};

	make_hello(c, q, hello);
	vb_set_qp_timeout(c->cfg, q->id);
	if (rdma_connect(q->id, &p))
		bench_die("QP %u: rdma_connect: %s", q->index, strerror(errno));
}

static bool retryable(enum rdma_cm_event_type ev)
{
	return ev == RDMA_CM_EVENT_REJECTED ||
	       ev == RDMA_CM_EVENT_UNREACHABLE ||
	       ev == RDMA_CM_EVENT_CONNECT_ERROR;
}

/*
 * A refused attempt's welcome receive is flushed into the CQ, maybe only
 * after the QP is gone: empty the CQ after the pause so retries cannot
 * pile stale completions up until it overflows.
 */
static void drop_attempt(struct vb_client *c, struct vb_qp *q)
{
	struct timespec ts = { .tv_nsec = (long)RETRY_NS };
	struct ibv_wc wc;

	rdma_destroy_qp(q->id);
	rdma_destroy_id(q->id);
	q->id = NULL;
	q->qp = NULL;
	nanosleep(&ts, NULL);
	while (ibv_poll_cq(c->rcq[q->index % c->nthreads], 1, &wc) > 0)
		;
}

/*
 * One try at connecting q. The first QP retries while the server is not
 * listening yet (scripts start both at once); anything else is fatal.
 */
static bool attempt(struct vb_client *c, struct vb_qp *q, uint64_t deadline)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;
	char why[VB_REJECT_MAX];
	bool refused;
	int status;

	if (rdma_create_id(c->ch, &id, q, RDMA_PS_TCP))
		bench_die("rdma_create_id: %s", strerror(errno));
	resolve(c, id, deadline);
	make_qp(c, q, id);
	/* Before connecting: the welcome may come right after. */
	vb_post_recv(q, c->tbuf, (uint32_t)c->tbuf_len, c->tmr->lkey,
		     vb_wrid(q->index, WELCOME_TAG | ++c->attempt));
	connect_id(c, q);
	ev = next_event(c, id, deadline, "connecting");
	got = ev->event;
	status = ev->status;
	refused = got == RDMA_CM_EVENT_REJECTED &&
		  vb_reject_decode(ev->param.conn.private_data,
				   ev->param.conn.private_data_len, why,
				   sizeof(why));
	rdma_ack_cm_event(ev);
	if (got == RDMA_CM_EVENT_ESTABLISHED)
		return true;
	if (refused)
		bench_die("QP %u: the server refused: %s", q->index, why);
	if (q->index == 0 && retryable(got) && bench_now_ns() < deadline) {
		drop_attempt(c, q);
		return false;
	}
	bench_die("QP %u: connecting to %s port %u: %s (status %d)", q->index,
		  c->cfg->peer, c->cfg->port, rdma_event_str(got), status);
}

static void take_welcome(struct vb_client *c, struct vb_qp *q, uint32_t len)
{
	const struct vb_opts *o = c->o;
	unsigned int want = o->mode != VB_MODE_TPUT ? 1 :
			    q->index ? 0 : o->mr_count;
	uint64_t need = o->mode == VB_MODE_RPC ? o->depth * c->slot :
			c->max_size;
	struct vb_region r = { 0 };
	struct vb_region *dst = o->mode == VB_MODE_RPC || q->index ?
				&r : c->regions;
	unsigned int n, i;

	if (vb_table_decode(c->tbuf, len, dst, want, &n) || n != want)
		bench_die("QP %u: malformed welcome from the server", q->index);
	for (i = 0; i < n; i++)
		if (dst[i].len < need)
			bench_die("QP %u: server buffer %u too small", q->index,
				  i);
	if (o->mode == VB_MODE_RPC)
		q->remote = r;
	else if (!q->index)
		c->nregions = n;
}

/* The flush of a failed attempt's receive may come first: skip it. */
static void read_welcome(struct vb_client *c, struct vb_qp *q)
{
	struct ibv_cq *cq = c->rcq[q->index % c->nthreads];
	uint64_t want = vb_wrid(q->index, WELCOME_TAG | c->attempt);
	struct vb_watch w;
	struct ibv_wc wc;
	int n;

	vb_watch_start(&w, "waiting for the server's welcome");
	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			bench_die("welcome: ibv_poll_cq failed");
		if (n && wc.wr_id == want)
			break;
		vb_watch_idle(&w);
	}
	vb_wc_check(&wc, "welcome");
	take_welcome(c, q, wc.byte_len);
}

void vb_client_reply_recv(const struct vb_client *c, struct vb_qp *q)
{
	/* A write-with-immediate consumes a receive but places no data. */
	if (c->o->op == VB_OP_SENDRECV)
		vb_post_recv(q, q->reply, (uint32_t)c->slot, c->mr->lkey,
			     vb_wrid(q->index, 0));
	else
		vb_post_recv(q, NULL, 0, 0, vb_wrid(q->index, 0));
}

static void connect_qp(struct vb_client *c, struct vb_qp *q)
{
	uint64_t deadline = bench_now_ns() + bench_sec_ns(c->cfg->timeout);
	unsigned int i;

	while (!attempt(c, q, deadline))
		;
	read_welcome(c, q);
	for (i = 0; i < c->rq_depth; i++)
		vb_client_reply_recv(c, q);
	q->live = true;
}

static void client_open(struct vb_client *c, const struct bench_cfg *cfg,
			const struct vb_opts *o)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->o = o;
	plan(c);
	c->qps = bench_zalloc(c->nqps, sizeof(*c->qps));
	for (i = 0; i < c->nqps; i++)
		c->qps[i].index = i;
	c->ch = vb_channel();
	bench_resolve(cfg->peer, cfg->port, &c->dst);
	for (i = 0; i < c->nqps; i++)
		connect_qp(c, &c->qps[i]);
}

static void client_begin(const struct vb_client *c, enum bench_kind kind)
{
	struct ibv_qp **qps = calloc(c->nqps, sizeof(*qps));
	unsigned int i;

	if (!qps)
		bench_die("out of memory");
	for (i = 0; i < c->nqps; i++)
		qps[i] = c->qps[i].qp;
	bench_begin(c->cfg, "client", ibv_get_device_name(c->ctx->device));
	vb_report_path(c->cfg, c->qps[0].id);
	/* Every QP is connected: what each really runs with. */
	vb_report_qp_attrs(qps, c->nqps);
	free(qps);
	bench_header(kind);
}

/* Disconnect all, then wait (bounded) until rdma_cm confirms each. */
static void disconnect_all(struct vb_client *c)
{
	uint64_t deadline = bench_now_ns() + VB_WAIT_NS;
	unsigned int i, left = 0;

	/* One that fails to disconnect is down already: no event to wait. */
	for (i = 0; i < c->nqps; i++) {
		if (rdma_disconnect(c->qps[i].id))
			c->qps[i].live = false;
		else
			left++;
	}
	while (left) {
		struct rdma_cm_event *ev =
			vb_cm_wait(c->ch, deadline, "disconnecting");
		struct vb_qp *q = ev->id->context;

		if (ev->event == RDMA_CM_EVENT_DISCONNECTED && q->live) {
			q->live = false;
			left--;
		}
		rdma_ack_cm_event(ev);
	}
}

static void client_close(struct vb_client *c)
{
	unsigned int i;

	disconnect_all(c);
	for (i = 0; i < c->nqps; i++) {
		rdma_destroy_qp(c->qps[i].id);
		rdma_destroy_id(c->qps[i].id);
	}
	ibv_dereg_mr(c->tmr);
	ibv_dereg_mr(c->mr);
	for (i = 0; i < c->nthreads; i++) {
		if (c->sleep)
			vb_sleep_ack(&c->sleep[i]);
		ibv_destroy_cq(c->scq[i]);
		ibv_destroy_cq(c->rcq[i]);
		if (c->sleep)
			ibv_destroy_comp_channel(c->sleep[i].cc);
	}
	ibv_dealloc_pd(c->pd);
	rdma_destroy_event_channel(c->ch);
	vb_free(c->mem, c->mem_len);
	free(c->tbuf);
	free(c->regions);
	free(c->scq);
	free(c->rcq);
	free(c->sleep);
	free(c->qps);
}

void vb_client_sweep(const struct bench_cfg *cfg, const struct vb_opts *o,
		     const char *bench, enum bench_kind kind,
		     vb_point_fn *point, void *arg)
{
	struct bench_point pt = {
		.bench = bench,
		.op = vb_op_names[o->op],
		.param = vb_param(cfg, o),
	};
	struct vb_client c;
	unsigned int i;

	client_open(&c, cfg, o);
	client_begin(&c, kind);
	for (i = 0; i < cfg->nsizes; i++) {
		pt.size = cfg->sizes[i];
		for (pt.rep = 1; pt.rep <= cfg->reps; pt.rep++)
			point(&c, &pt, arg);
	}
	client_close(&c);
}
