// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Throughput of one-sided operations on random targets.
 *
 * The server registered --mr-total bytes as --mr-count equal MRs. Every
 * thread keeps --depth signalled writes (or reads) of size bytes in flight
 * on each of its QPs, each to a uniformly chosen MR at a uniformly chosen
 * 64-byte-aligned offset that keeps the whole operation inside it. Random
 * targets spread the load over the responder's MR and page translations,
 * which is what the MR-size and MR-count sweeps are about. An operation
 * counts when its completion is polled inside the measured window.
 */
#include <stdlib.h>

#include "verbs.h"
#include "window.h"

struct worker {
	struct bench_worker w;	/* first: window.h */
	struct vb_client *c;
	unsigned int t;		/* thread index; owns QPs t, t + threads.. */
	uint64_t size;
	uint64_t rng;
} __attribute__((aligned(BENCH_CACHE_LINE)));

/* splitmix64: a fast generator with a full 64-bit output per step. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void post_one(struct worker *k, struct vb_qp *q)
{
	const struct vb_client *c = k->c;
	const struct vb_region *r =
		&c->regions[next_rand(&k->rng) % c->nregions];
	uint64_t slots = (r->len - k->size) / 64 + 1;
	uint64_t off = next_rand(&k->rng) % slots * 64;
	bool read = c->o->op == VB_OP_READ;
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf,
		.length = (uint32_t)k->size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
	};

	if (!read && k->size <= c->o->inline_max)
		wr.send_flags = IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = r->addr + off;
	wr.wr.rdma.rkey = r->rkey;
	vb_post(q, &wr, true);
}

static void fill(struct worker *k)
{
	struct vb_client *c = k->c;
	unsigned int i;

	for (i = k->t; i < c->nqps; i += c->nthreads) {
		struct vb_qp *q = &c->qps[i];

		while (q->sq_out < q->sq_cap)
			post_one(k, q);
	}
}

static bool idle(const struct worker *k)
{
	const struct vb_client *c = k->c;
	unsigned int i;

	for (i = k->t; i < c->nqps; i += c->nthreads)
		if (c->qps[i].sq_out)
			return false;
	return true;
}

/* Leave no operation in flight: the next rep or the disconnect follows. */
static void drain(struct worker *k, struct vb_watch *w)
{
	while (!idle(k)) {
		if (vb_reap(k->c->scq[k->t], k->c->qps, w->step))
			vb_watch_moved(w);
		else
			vb_watch_idle(w);
	}
}

static void *run_worker(void *arg)
{
	struct worker *k = arg;
	struct vb_client *c = k->c;
	struct vb_watch w;
	int n;

	vb_watch_start(&w, c->o->op == VB_OP_READ ? "RDMA read" :
		       "RDMA write");
	while (bench_phase(&k->w) != BENCH_STOP) {
		fill(k);
		n = vb_reap(c->scq[k->t], c->qps, w.step);
		if (!n) {
			vb_watch_idle(&w);
			continue;
		}
		vb_watch_moved(&w);
		bench_count(&k->w, (uint64_t)n);
	}
	drain(k, &w);
	return NULL;
}

static void run_point(struct vb_client *c, struct bench_point *pt,
		      void *arg)
{
	const struct bench_cfg *cfg = c->cfg;
	struct worker *ks = arg;
	unsigned int t;

	for (t = 0; t < c->nthreads; t++) {
		ks[t] = (struct worker){
			.c = c, .t = t, .size = pt->size,
			/* Distinct, reproducible streams per thread and rep. */
			.rng = cfg->seed ^ ((uint64_t)(t + 1) << 48) ^
			       ((uint64_t)pt->rep << 32) ^ pt->size,
		};
	}
	bench_window_point(cfg, pt, c->nthreads, run_worker, ks, sizeof(*ks));
}

int vb_tput(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	struct worker *ks = bench_zalloc(cfg->threads, sizeof(*ks));

	vb_client_sweep(cfg, o, "verbs_tput", BENCH_TPUT, run_point, ks);
	free(ks);
	return 0;
}
