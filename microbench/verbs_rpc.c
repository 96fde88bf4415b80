// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * RPC client: a request of size bytes, a reply of the same size, one call
 * outstanding per QP, each client thread on its own QP.
 *
 *   writeimm  request = RDMA write-with-immediate into the server's ring
 *             slot for this call (slots used in turn), immediate = length;
 *             reply = write-with-immediate into this QP's reply buffer.
 *   sendrecv  request = SEND into a receive the server pre-posted; reply =
 *             SEND into one of ours, always kept posted.
 *
 * A call's time runs from just before posting the request to the poll
 * that returns the reply's receive completion: a full round trip with the
 * server's CPU in it (it busy-polls, or with --server-wait event sleeps
 * until a request's event). The caller busy-polls its receive CQ too, or
 * with --client-wait event sleeps on its completion channel between polls
 * (vb_sleep_idle). Requests are unsignalled but for one in
 * VB_SIGNAL_EVERY, so a call costs the client one completion. Those are
 * reaped by polling the send CQ when the queue is full, under either wait:
 * the server has answered later requests by then, so they are in.
 *
 * With one thread and no --duration: latency rows over --iters calls.
 * With --threads > 1 or --duration: throughput rows, calls completed by
 * all threads in the window.
 */
#include <arpa/inet.h>
#include <stdlib.h>

#include "verbs.h"
#include "window.h"

struct caller {
	struct bench_worker w;	/* first: window.h; counts calls */
	struct vb_client *c;
	unsigned int t;		/* thread index = QP index */
	uint64_t size;
} __attribute__((aligned(BENCH_CACHE_LINE)));

static void reserve(struct vb_client *c, struct vb_qp *q,
		    struct vb_watch *w)
{
	while (q->sq_out >= q->sq_cap) {
		if (vb_reap(c->scq[q->index], c->qps, "rpc request"))
			vb_watch_moved(w);
		else
			vb_watch_idle(w);
	}
}

static void send_request(struct vb_client *c, struct vb_qp *q,
			 uint32_t size)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf, .length = size, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};

	if (size <= c->o->inline_max)
		wr.send_flags = IBV_SEND_INLINE;
	if (c->o->op == VB_OP_WRITEIMM) {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(size);
		wr.wr.rdma.remote_addr = q->remote.addr +
					 q->next_slot * c->slot;
		wr.wr.rdma.rkey = q->remote.rkey;
		q->next_slot = (q->next_slot + 1) % c->o->depth;
	}
	vb_post(q, &wr, false);
}

/* The reply must be the one we asked for: same length, right opcode. */
static void check_reply(const struct vb_client *c, const struct ibv_wc *wc,
			uint32_t size)
{
	bool imm = c->o->op == VB_OP_WRITEIMM;
	uint32_t len = imm ? ntohl(wc->imm_data) : wc->byte_len;

	vb_wc_check(wc, "rpc reply");
	if (wc->opcode != (imm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV) ||
	    len != size)
		bench_die("QP %u: unexpected reply (opcode %d, %u bytes)",
			  (unsigned int)(wc->wr_id >> 32), wc->opcode, len);
}

static void call(struct vb_client *c, struct vb_qp *q, uint32_t size,
		 struct vb_watch *w)
{
	struct ibv_wc wc;
	int n;

	reserve(c, q, w);
	send_request(c, q, size);
	while (!(n = ibv_poll_cq(c->rcq[q->index], 1, &wc)))
		vb_wait_idle(c->sleep ? &c->sleep[q->index] : NULL, w);
	if (n < 0)
		bench_die("rpc reply: ibv_poll_cq failed");
	vb_watch_moved(w);
	check_reply(c, &wc, size);
	vb_client_reply_recv(c, q);
}

static void warm_up(struct vb_client *c, struct vb_qp *q, uint32_t size,
		    struct vb_watch *w)
{
	uint64_t end = bench_now_ns() + bench_sec_ns(c->cfg->warmup);

	while (bench_now_ns() < end)
		call(c, q, size, w);
}

static void lat_point(struct vb_client *c, struct bench_point *pt,
		      void *arg)
{
	uint64_t *ns = arg;
	struct vb_qp *q = &c->qps[0];
	uint32_t size = (uint32_t)pt->size;
	struct vb_watch w;
	uint64_t i, t0;

	vb_watch_start(&w, "rpc reply");
	warm_up(c, q, size, &w);
	for (i = 0; i < c->cfg->iters; i++) {
		t0 = bench_now_ns();
		call(c, q, size, &w);
		ns[i] = bench_now_ns() - t0;
	}
	bench_lat_row(pt, ns, c->cfg->iters);
}

static void *run_caller(void *arg)
{
	struct caller *k = arg;
	struct vb_qp *q = &k->c->qps[k->t];
	struct bench_pacer pace;
	struct vb_watch w;

	bench_pacer_init(&pace, k->c->cfg, k->t);
	while (bench_phase(&k->w) != BENCH_STOP) {
		bench_pace(&pace);	/* a pause is not a hang: watch from here */
		vb_watch_start(&w, "rpc reply");
		call(k->c, q, (uint32_t)k->size, &w);
		bench_count(&k->w, 1);
	}
	return NULL;
}

static void tput_point(struct vb_client *c, struct bench_point *pt,
		       void *arg)
{
	struct caller *ks = arg;
	unsigned int t;

	for (t = 0; t < c->nthreads; t++)
		ks[t] = (struct caller){ .c = c, .t = t, .size = pt->size };
	bench_window_point(c->cfg, pt, c->nthreads, run_caller, ks,
			   sizeof(*ks));
}

int vb_rpc(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	bool tput = cfg->threads > 1 || cfg->duration_given;
	struct caller *ks = bench_zalloc(cfg->threads, sizeof(*ks));
	uint64_t *ns = tput ? NULL : bench_zalloc(cfg->iters, sizeof(*ns));

	if (tput)
		vb_client_sweep(cfg, o, "verbs_rpc", BENCH_TPUT, tput_point,
				ks);
	else
		vb_client_sweep(cfg, o, "verbs_rpc", BENCH_LAT, lat_point, ns);
	free(ks);
	free(ns);
	return 0;
}
