// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Latency of one-sided operations, one at a time on one QP.
 *
 * A sample is the time from just before ibv_post_send of one signalled
 * RDMA write (or read) of size bytes to the poll that returns its
 * completion. An RC write completes when the responder's ACK is back, a
 * read when its data is: either way one full network round trip plus the
 * responder NIC's DMA, with no remote CPU involved. This is the operation's
 * completion time as a caller sees it, NOT halved into a one-way latency
 * (perftest's ib_write_lat halves a ping-pong; these numbers do not).
 * The caller polls the CQ without pause, or with --client-wait event
 * sleeps on its completion channel between polls (vb_sleep_idle): the
 * wake-up is then in every sample, as in a caller that does not spin.
 */
#include <stdlib.h>

#include "verbs.h"

struct lat_op {
	struct vb_client *c;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	unsigned int flags;	/* vb_post() adds SIGNALED to wr's */
	const char *step;
};

/* The WR is built once per point: only posting and polling are timed. */
static void prepare(struct lat_op *op, struct vb_client *c, uint64_t size)
{
	const struct vb_region *r = &c->regions[0];
	bool read = c->o->op == VB_OP_READ;

	op->c = c;
	op->step = read ? "RDMA read" : "RDMA write";
	op->sge.addr = (uintptr_t)c->qps[0].buf;
	op->sge.length = (uint32_t)size;
	op->sge.lkey = c->mr->lkey;
	op->wr.sg_list = &op->sge;
	op->wr.num_sge = 1;
	op->wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	op->wr.wr.rdma.remote_addr = r->addr;
	op->wr.wr.rdma.rkey = r->rkey;
	op->flags = !read && size <= c->o->inline_max ? IBV_SEND_INLINE : 0;
}

static void run_one(struct lat_op *op, struct vb_watch *w)
{
	struct vb_client *c = op->c;
	struct vb_qp *q = &c->qps[0];

	op->wr.send_flags = op->flags;
	vb_post(q, &op->wr, true);
	while (q->sq_out) {
		if (vb_reap(c->scq[0], c->qps, op->step))
			vb_watch_moved(w);
		else
			vb_wait_idle(c->sleep, w);
	}
}

static void warm_up(struct lat_op *op, double seconds, struct vb_watch *w)
{
	uint64_t end = bench_now_ns() + bench_sec_ns(seconds);

	while (bench_now_ns() < end)
		run_one(op, w);
}

static void run_point(struct vb_client *c, struct bench_point *pt,
		      void *arg)
{
	const struct bench_cfg *cfg = c->cfg;
	struct lat_op op = { 0 };
	uint64_t *ns = arg;
	struct vb_watch w;
	uint64_t i, t0, t1;

	prepare(&op, c, pt->size);
	vb_watch_start(&w, op.step);
	warm_up(&op, cfg->warmup, &w);
	for (i = 0; i < cfg->iters; i++) {
		t0 = bench_now_ns();
		run_one(&op, &w);
		t1 = bench_now_ns();
		ns[i] = t1 - t0;
	}
	bench_lat_row(pt, ns, cfg->iters);
}

int vb_lat(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	uint64_t *ns = calloc(cfg->iters, sizeof(*ns));

	if (!ns)
		bench_die("out of memory");
	vb_client_sweep(cfg, o, "verbs_lat", BENCH_LAT, run_point, ns);
	free(ns);
	return 0;
}
