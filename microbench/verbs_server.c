// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The passive side. The first connect request opens the session: its hello
 * says what memory to register. Later requests must carry the same session
 * id and the next QP index. For lat and tput the server only waits: the
 * client's one-sided operations never involve its CPU. For rpc one thread
 * busy-polls the receive CQ shared by all QPs (or, with --server-wait
 * event, sleeps on its completion channel until one arrives, as an
 * event-driven server would) and answers each request at once from the
 * ring slot it arrived in, an echo of the same size.
 *
 * The session ends when its last connection is gone; then the server
 * prints its CPU time per request and exits.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "verbs.h"

#define SPIN_POLLS	1024

struct vb_server {
	const struct bench_cfg *cfg;
	bool event;			/* --server-wait event */
	struct ibv_comp_channel *cc;	/* rcq's, with event */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct bench_session sess;
	bool begun, done;
	struct vb_hello h;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_cq *scq, *rcq;
	struct vb_qp *qps;		/* h.nqps, by QP index */
	uint64_t slot;
	char *mem;
	size_t mem_len;
	struct ibv_mr **mrs;
	struct vb_region *regions;	/* one per MR */
	unsigned int nmrs, nopen, nclosed;
	char why[VB_REJECT_MAX];
};

static void listen_on(struct vb_server *s)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)s->cfg->port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};

	s->ch = vb_channel();
	if (rdma_create_id(s->ch, &s->listen, NULL, RDMA_PS_TCP))
		bench_die("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(s->listen, (struct sockaddr *)&sin))
		bench_die("rdma_bind_addr(port %u): %s", s->cfg->port,
			  strerror(errno));
	if (rdma_listen(s->listen, 64))
		bench_die("rdma_listen: %s", strerror(errno));
	fprintf(stderr, "verbs_bench: listening on port %u\n", s->cfg->port);
}

static bool op_fits(const struct vb_hello *h)
{
	if (h->mode == VB_MODE_RPC)
		return h->op == VB_OP_WRITEIMM || h->op == VB_OP_SENDRECV;
	return h->op == VB_OP_WRITE || h->op == VB_OP_READ;
}

static const char *check_tput(const struct vb_hello *h)
{
	if (h->mode != VB_MODE_TPUT)
		return NULL;
	if (!h->mr_count || h->mr_count > VB_MAX_MRS ||
	    h->mr_total % h->mr_count)
		return "bad MR count";
	if (h->mr_total / h->mr_count < h->max_size)
		return "MRs smaller than the largest size";
	return NULL;
}

static const char *check_hello(const struct vb_server *s,
			       const struct vb_hello *h)
{
	if (s->sess.open)
		return h->session != s->h.session ? "busy with another client" :
		       h->qp_index != s->nopen + s->nclosed ?
		       "QP out of order" : NULL;
	if (h->mode < VB_MODE_LAT || h->mode > VB_MODE_RPC || !op_fits(h))
		return "unknown mode or op";
	if (!h->nqps || h->nqps > VB_MAX_QPS || h->qp_index)
		return "bad QP count or index";
	if (!h->depth || h->depth > VB_MAX_DEPTH)
		return "bad depth";
	if (!h->max_size || h->max_size > BENCH_MAX_SIZE ||
	    h->inline_max > VB_MAX_INLINE)
		return "bad size";
	return check_tput(h);
}

static struct ibv_cq *make_cq(struct vb_server *s, uint64_t n,
			      struct ibv_comp_channel *cc)
{
	struct ibv_cq *cq;

	if (n > (uint64_t)s->attr.max_cqe)
		return NULL;
	cq = ibv_create_cq(s->ctx, (int)n, NULL, cc, 0);
	return cq;
}

/* Whole session's memory: lat one buffer, tput the MRs, rpc the rings. */
static const char *open_memory(struct vb_server *s)
{
	const struct vb_hello *h = &s->h;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	uint64_t per;
	unsigned int i;

	s->nmrs = h->mode == VB_MODE_TPUT ? h->mr_count : 1;
	s->mem_len = h->mode == VB_MODE_TPUT ? h->mr_total :
		     h->mode == VB_MODE_RPC ?
		     (uint64_t)h->nqps * h->depth * s->slot : s->slot;
	per = s->mem_len / s->nmrs;
	s->mem = vb_alloc(s->mem_len);
	s->mrs = calloc(s->nmrs, sizeof(*s->mrs));
	s->regions = calloc(s->nmrs, sizeof(*s->regions));
	if (!s->mem || !s->mrs || !s->regions)
		return "server out of memory";
	for (i = 0; i < s->nmrs; i++) {
		char *p = s->mem + i * per;

		s->mrs[i] = ibv_reg_mr(s->pd, p, per, access);
		if (!s->mrs[i]) {
			snprintf(s->why, sizeof(s->why), "server: ibv_reg_mr "
				 "of MR %u: %s", i, strerror(errno));
			return s->why;
		}
		s->regions[i].addr = (uintptr_t)p;
		s->regions[i].len = per;
		s->regions[i].rkey = s->mrs[i]->rkey;
	}
	return NULL;
}

static const char *open_session(struct vb_server *s, struct rdma_cm_id *id,
				const struct vb_hello *h)
{
	const char *name = ibv_get_device_name(id->verbs->device);
	bool rpc = h->mode == VB_MODE_RPC;

	if (s->cfg->dev && strcmp(name, s->cfg->dev))
		return "request came in on another device than --dev";
	s->h = *h;
	s->ctx = id->verbs;
	s->slot = vb_slot(h->max_size);
	if (ibv_query_device(s->ctx, &s->attr))
		return "server: ibv_query_device failed";
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		return "server: ibv_alloc_pd failed";
	if (s->event && rpc) {
		s->cc = vb_comp_channel(s->ctx);
		if (!s->cc)
			return "server: no completion channel";
	}
	/* A channel for the receive CQ only: replies are reaped by polling. */
	s->scq = make_cq(s, (uint64_t)h->nqps * (rpc ? VB_RPC_SQ + 2 : 3), NULL);
	s->rcq = make_cq(s, (uint64_t)h->nqps * (rpc ? h->depth + 1 : 2), s->cc);
	if (!s->scq || !s->rcq)
		return "server: cannot create CQs that large";
	s->qps = bench_zalloc(h->nqps, sizeof(*s->qps));
	bench_session_open(&s->sess);
	return open_memory(s);
}

static void post_request_recv(struct vb_server *s, struct vb_qp *q,
			      uint32_t slot)
{
	/* A write-with-immediate consumes a receive but places no data. */
	if (s->h.op == VB_OP_SENDRECV)
		vb_post_recv(q, q->buf + slot * s->slot, (uint32_t)s->slot,
			     s->mrs[0]->lkey, vb_wrid(q->index, slot));
	else
		vb_post_recv(q, NULL, 0, 0, vb_wrid(q->index, slot));
}

/* What QP q may target: tput sends the whole table on QP 0 only. */
static const char *make_welcome(struct vb_server *s, struct vb_qp *q)
{
	struct vb_region ring = {
		.addr = (uintptr_t)q->buf,
		.len = (uint64_t)s->h.depth * s->slot,
		.rkey = s->mrs[0]->rkey,
	};
	const struct vb_region *r = s->h.mode == VB_MODE_RPC ? &ring :
				    s->regions;
	unsigned int n = s->h.mode != VB_MODE_TPUT ? 1 :
			 q->index ? 0 : s->nmrs;

	q->welcome_len = (uint32_t)vb_table_len(n);
	q->welcome = malloc(q->welcome_len);
	if (!q->welcome)
		return "server out of memory";
	vb_table_encode(r, n, (uint8_t *)q->welcome);
	q->welcome_mr = ibv_reg_mr(s->pd, q->welcome, q->welcome_len, 0);
	return q->welcome_mr ? NULL : "server: ibv_reg_mr(welcome) failed";
}

static const char *open_qp(struct vb_server *s, struct rdma_cm_id *id,
			   const struct vb_hello *h)
{
	struct vb_qp *q = &s->qps[h->qp_index];
	bool rpc = s->h.mode == VB_MODE_RPC;
	unsigned int sq_cap = rpc ? VB_RPC_SQ : 2;
	struct ibv_qp_init_attr a = {
		.send_cq = s->scq,
		.recv_cq = s->rcq,
		.cap = {
			.max_send_wr = sq_cap + 1,
			.max_recv_wr = rpc ? s->h.depth : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = s->h.inline_max,
		},
		.qp_type = IBV_QPT_RC,
	};
	unsigned int i;

	if (rdma_create_qp(id, s->pd, &a)) {
		snprintf(s->why, sizeof(s->why), "server: rdma_create_qp: %s",
			 strerror(errno));
		return s->why;
	}
	id->context = q;
	q->id = id;
	q->qp = id->qp;
	q->index = h->qp_index;
	q->sq_cap = sq_cap;
	q->remote.addr = h->reply_addr;
	q->remote.rkey = h->reply_rkey;
	if (rpc)
		q->buf = s->mem + (size_t)q->index * s->h.depth * s->slot;
	for (i = 0; rpc && i < s->h.depth; i++)
		post_request_recv(s, q, i);
	return make_welcome(s, q);
}

static const char *accept_qp(struct vb_server *s, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *req = &ev->param.conn;
	struct rdma_conn_param p = {
		.responder_resources = vb_min_u8(req->initiator_depth,
						 s->attr.max_qp_rd_atom),
		.initiator_depth = vb_min_u8(req->responder_resources,
					     s->attr.max_qp_init_rd_atom),
		.retry_count = (uint8_t)s->cfg->qp_retry,
		.rnr_retry_count = 7,
	};

	vb_set_qp_timeout(s->cfg, ev->id);
	if (rdma_accept(ev->id, &p)) {
		snprintf(s->why, sizeof(s->why), "server: rdma_accept: %s",
			 strerror(errno));
		return s->why;
	}
	s->nopen++;
	return NULL;
}

static void reject(struct rdma_cm_id *id, const char *why)
{
	uint8_t buf[4 + VB_REJECT_MAX];
	size_t len = vb_reject_encode(why, buf);

	fprintf(stderr, "verbs_bench: refusing a connection: %s\n", why);
	rdma_reject(id, buf, (uint8_t)len);
}

/*
 * Returns the id to destroy once the event is acked, if any. A stranger or
 * a second client is refused and the wait goes on; failing to set up the
 * session's first QP leaves nothing to serve.
 */
static struct rdma_cm_id *on_request(struct vb_server *s,
				     struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *p = &ev->param.conn;
	bool first = !s->sess.open;
	const char *why;
	struct vb_hello h;

	if (vb_hello_decode(p->private_data, p->private_data_len, &h))
		why = "not a verbs_bench client of this version";
	else
		why = check_hello(s, &h);
	if (why) {
		reject(ev->id, why);
		return ev->id;
	}
	why = first ? open_session(s, ev->id, &h) : NULL;
	if (!why)
		why = open_qp(s, ev->id, &h);
	if (!why)
		why = accept_qp(s, ev);
	if (!why)
		return NULL;
	reject(ev->id, why);
	if (first)
		bench_die("cannot serve the session: %s", why);
	ev->id->context = NULL;
	return ev->id;
}

static void begin(struct vb_server *s, struct rdma_cm_id *id)
{
	const struct vb_hello *h = &s->h;

	bench_begin(s->cfg, "server", ibv_get_device_name(s->ctx->device));
	vb_report_path(s->cfg, id);
	/* The session's first QP, established: the others come later. */
	vb_report_qp_attrs(&id->qp, 1);
	bench_meta("session_mode", "%s", vb_mode_names[h->mode]);
	bench_meta("session_op", "%s", vb_op_names[h->op]);
	bench_meta("session_max_size", "%u", h->max_size);
	bench_meta("session_qps", "%u", h->nqps);
	bench_meta("session_depth", "%u", h->depth);
	bench_meta("session_inline", "%u", h->inline_max);
	if (h->mode == VB_MODE_RPC)
		bench_meta("server_wait", "%s", s->event ? "event" : "busy");
	if (h->mode == VB_MODE_TPUT) {
		bench_meta("session_mr_total", "%" PRIu64, h->mr_total);
		bench_meta("session_mr_count", "%u", h->mr_count);
	}
	s->begun = true;
}

/* The client reads the welcome before anything else: send it now. */
static void on_established(struct vb_server *s, struct rdma_cm_id *id)
{
	struct vb_qp *q = id->context;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};

	if (!q)
		return;
	if (!s->begun)
		begin(s, id);
	sge.addr = (uintptr_t)q->welcome;
	sge.length = q->welcome_len;
	sge.lkey = q->welcome_mr->lkey;
	q->live = true;
	vb_post(q, &wr, true);
}

static struct rdma_cm_id *on_close(struct vb_server *s,
				   struct rdma_cm_event *ev)
{
	struct vb_qp *q = ev->id->context;

	if (ev->event != RDMA_CM_EVENT_DISCONNECTED)
		fprintf(stderr, "verbs_bench: QP %d: %s\n", q ? (int)q->index :
			-1, rdma_event_str(ev->event));
	if (q) {
		q->live = false;
		q->id = NULL;
		q->qp = NULL;
		s->nopen--;
		s->nclosed++;
		s->done = !s->nopen;
	}
	return ev->id;
}

static void on_event(struct vb_server *s, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *drop = NULL;

	switch (vb_cm_kind(ev)) {
	case VB_CM_REQUEST:
		drop = on_request(s, ev);
		break;
	case VB_CM_ESTABLISHED:
		on_established(s, ev->id);
		break;
	case VB_CM_CLOSED:
		drop = on_close(s, ev);
		break;
	default:
		break;
	}
	vb_cm_ack_drop(ev, drop);
}

/* Room in q's send queue: reap the shared send CQ until there is. */
static void reserve(struct vb_server *s, struct vb_qp *q)
{
	struct vb_watch w;

	if (q->sq_out < q->sq_cap)
		return;
	vb_watch_start(&w, "server: reply completion");
	while (q->sq_out >= q->sq_cap) {
		if (vb_reap(s->scq, s->qps, "server: reply"))
			vb_watch_moved(&w);
		else
			vb_watch_idle(&w);
	}
}

static void reply(struct vb_server *s, struct vb_qp *q, uint32_t slot,
		  uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(q->buf + slot * s->slot),
		.length = len,
		.lkey = s->mrs[0]->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};

	if (len <= s->h.inline_max)
		wr.send_flags = IBV_SEND_INLINE;
	if (s->h.op == VB_OP_WRITEIMM) {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(len);
		wr.wr.rdma.remote_addr = q->remote.addr;
		wr.wr.rdma.rkey = q->remote.rkey;
	}
	reserve(s, q);
	vb_post(q, &wr, false);
}

/*
 * A write-with-immediate request lands in the QP's next ring slot (the
 * client fills them in order, RC keeps the order) and its immediate is
 * the length; a SEND lands in the slot its receive named.
 */
static void on_request_wc(struct vb_server *s, const struct ibv_wc *wc)
{
	struct vb_qp *q = &s->qps[wc->wr_id >> 32];
	uint32_t slot, len;

	if (wc->status == IBV_WC_WR_FLUSH_ERR || !q->live)
		return;
	vb_wc_check(wc, "server: request");
	if (s->h.op == VB_OP_WRITEIMM) {
		slot = q->next_slot;
		q->next_slot = (slot + 1) % s->h.depth;
		len = ntohl(wc->imm_data);
	} else {
		slot = (uint32_t)wc->wr_id;
		len = wc->byte_len;
	}
	if (len > s->slot)
		bench_die("QP %u: request of %u bytes, slots hold %" PRIu64,
			  q->index, len, s->slot);
	reply(s, q, slot, len);
	post_request_recv(s, q, slot);
	s->sess.requests++;
}

static void rpc_spin(struct vb_server *s)
{
	struct ibv_wc wc[16];
	int i, j, n;

	for (i = 0; i < SPIN_POLLS; i++) {
		n = ibv_poll_cq(s->rcq, 16, wc);
		if (n < 0)
			bench_die("server: ibv_poll_cq failed");
		for (j = 0; j < n; j++)
			on_request_wc(s, &wc[j]);
	}
}

/* Every request the receive CQ holds now; how many. */
static int rpc_drain(struct vb_server *s)
{
	struct ibv_wc wc[16];
	int j, n, got = 0;

	do {
		n = ibv_poll_cq(s->rcq, 16, wc);
		if (n < 0)
			bench_die("server: ibv_poll_cq failed");
		for (j = 0; j < n; j++)
			on_request_wc(s, &wc[j]);
		got += n;
	} while (n == 16);
	return got;
}

/*
 * --server-wait event: answer what is there; with nothing there, arm the
 * CQ, look once more (a request may have come before the arming), then
 * sleep until the channel or the rdma_cm channel has news, at most 100 ms.
 */
static void rpc_event(struct vb_server *s)
{
	struct pollfd p[2] = {
		{ .fd = s->cc->fd, .events = POLLIN },
		{ .fd = s->ch->fd, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *ctx;

	if (rpc_drain(s))
		return;
	if (ibv_req_notify_cq(s->rcq, 0))
		bench_die("server: ibv_req_notify_cq failed");
	if (rpc_drain(s))
		return;
	if (poll(p, 2, 100) < 0 && errno != EINTR)
		bench_die("server: poll: %s", strerror(errno));
	if (!(p[0].revents & POLLIN))
		return;
	if (ibv_get_cq_event(s->cc, &cq, &ctx)) {
		if (errno == EAGAIN)
			return;
		bench_die("server: ibv_get_cq_event: %s", strerror(errno));
	}
	ibv_ack_cq_events(cq, 1);
}

static void teardown(struct vb_server *s)
{
	unsigned int i;

	for (i = 0; i < s->h.nqps; i++) {
		if (s->qps[i].welcome_mr)
			ibv_dereg_mr(s->qps[i].welcome_mr);
		free(s->qps[i].welcome);
	}
	for (i = 0; i < s->nmrs; i++)
		ibv_dereg_mr(s->mrs[i]);
	ibv_destroy_cq(s->scq);
	ibv_destroy_cq(s->rcq);
	if (s->cc)
		ibv_destroy_comp_channel(s->cc);
	ibv_dealloc_pd(s->pd);
	rdma_destroy_id(s->listen);
	rdma_destroy_event_channel(s->ch);
	vb_free(s->mem, s->mem_len);
	free(s->mrs);
	free(s->regions);
	free(s->qps);
}

int vb_serve(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	struct vb_server s = { .cfg = cfg, .event = o->server_event };
	struct rdma_cm_event *ev;

	bench_session_init(&s.sess, cfg);
	listen_on(&s);
	while (!s.done) {
		int wait_ms = 100;

		if (s.sess.open && s.h.mode == VB_MODE_RPC) {
			if (s.cc)
				rpc_event(&s);
			else
				rpc_spin(&s);
			wait_ms = 0;
		}
		while (s.sess.open && vb_reap(s.scq, s.qps, "server: send"))
			;
		if (vb_cm_poll(s.ch, wait_ms, &ev))
			on_event(&s, ev);
		bench_session_check(&s.sess);
	}
	/* lat and tput requests are one-sided: the server sees none. */
	bench_session_report(&s.sess, s.h.mode == VB_MODE_RPC);
	teardown(&s);
	return 0;
}
