// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Send-queue accounting with selective signalling, and bounded waiting.
 *
 * A send WR's wr_id is (QP index << 32 | n): a signalled WR carries in n
 * how many WRs its completion retires (itself and the unsignalled ones
 * posted before it, which completed in order); an unsignalled WR carries
 * 0 and only shows up if it fails. So one send CQ can serve many QPs and
 * sq_out is exact whatever mix of signalled WRs a caller posts.
 */
#include <string.h>

#include "verbs.h"

#define REAP_BATCH	16

void vb_post(struct vb_qp *q, struct ibv_send_wr *wr, bool signal)
{
	struct ibv_send_wr *bad;
	unsigned int n = q->unsignalled + 1;
	int err;

	wr->next = NULL;
	if (signal || n >= VB_SIGNAL_EVERY) {
		wr->send_flags |= IBV_SEND_SIGNALED;
		wr->wr_id = vb_wrid(q->index, n);
		q->unsignalled = 0;
	} else {
		wr->wr_id = vb_wrid(q->index, 0);
		q->unsignalled = n;
	}
	err = ibv_post_send(q->qp, wr, &bad);
	if (err)
		bench_die("QP %u: ibv_post_send: %s", q->index, strerror(err));
	q->sq_out++;
}

void vb_wc_check(const struct ibv_wc *wc, const char *step)
{
	if (wc->status != IBV_WC_SUCCESS)
		bench_die("%s: QP %u: %s (vendor error 0x%x)", step,
			  (unsigned int)(wc->wr_id >> 32),
			  ibv_wc_status_str(wc->status), wc->vendor_err);
}

/*
 * Polls cq once and retires what the send completions cover. Flushes are
 * skipped: they only follow a QP's disconnect or its first real error,
 * which is reported by whoever sees it. Returns the successful ones.
 */
int vb_reap(struct ibv_cq *cq, struct vb_qp *qps, const char *step)
{
	struct ibv_wc wc[REAP_BATCH];
	int n, i, ok = 0;

	n = ibv_poll_cq(cq, REAP_BATCH, wc);
	if (n < 0)
		bench_die("%s: ibv_poll_cq failed", step);
	for (i = 0; i < n; i++) {
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
			continue;
		vb_wc_check(&wc[i], step);
		qps[wc[i].wr_id >> 32].sq_out -= (uint32_t)wc[i].wr_id;
		ok++;
	}
	return ok;
}

void vb_post_recv(struct vb_qp *q, void *addr, uint32_t len, uint32_t lkey,
		  uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
	};
	struct ibv_recv_wr *bad;
	int err;

	err = ibv_post_recv(q->qp, &wr, &bad);
	if (err)
		bench_die("QP %u: ibv_post_recv: %s", q->index, strerror(err));
}

void vb_watch_start(struct vb_watch *w, const char *step)
{
	w->step = step;
	w->deadline = bench_now_ns() + VB_WAIT_NS;
	w->spins = 0;
	w->moved = false;
}

/*
 * Called every 1024 empty polls: reading the clock on every poll would
 * cost more than the polls. Any completion since the last check restarts
 * the bound, so it limits the time without progress, not a whole run.
 */
void vb_watch_check(struct vb_watch *w)
{
	uint64_t now = bench_now_ns();

	if (w->moved) {
		w->deadline = now + VB_WAIT_NS;
		w->moved = false;
	} else if (now > w->deadline) {
		bench_die("%s: nothing completed within " VB_WAIT_TEXT,
			  w->step);
	}
}
