// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Send-queue accounting with selective signalling, and bounded waiting,
 * by polling or (--client-wait event) by sleeping on a completion channel.
 *
 * A send WR's wr_id is (QP index << 32 | n): a signalled WR carries in n
 * how many WRs its completion retires (itself and the unsignalled ones
 * posted before it, which completed in order); an unsignalled WR carries
 * 0 and only shows up if it fails. So one send CQ can serve many QPs and
 * sq_out is exact whatever mix of signalled WRs a caller posts.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

/*
 * A completion channel whose fd does not block: poll() says when to read,
 * ibv_get_cq_event never sleeps. NULL (errno set) when it cannot be made.
 */
struct ibv_comp_channel *vb_comp_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *cc = ibv_create_comp_channel(ctx);
	int fl, err;

	if (!cc)
		return NULL;
	fl = fcntl(cc->fd, F_GETFL);
	if (fl < 0 || fcntl(cc->fd, F_SETFL, fl | O_NONBLOCK)) {
		err = errno;
		ibv_destroy_comp_channel(cc);
		errno = err;
		return NULL;
	}
	return cc;
}

void vb_sleep_open(struct vb_sleep *s, struct ibv_context *ctx)
{
	s->cc = vb_comp_channel(ctx);
	if (!s->cc)
		bench_die("completion channel: %s", strerror(errno));
}

/*
 * After a poll of s->cq that found nothing: the standard arm, poll, sleep
 * loop, one step per call, the caller polling between calls. Unarmed, arm
 * the CQ and return at once: a completion that came before the arming
 * raises no event, so the caller must poll once more before sleeping.
 * Armed, sleep until the channel has an event (which ends the arming: the
 * next empty poll arms again), or at most VB_EVENT_POLL_MS, then check the
 * watch's bound. An event may be stale (its completion was polled after
 * the arming, before it was read): the caller polls, finds nothing and
 * arms again. Events are acknowledged VB_ACK_EVERY at a time, the rest by
 * vb_sleep_ack().
 */
void vb_sleep_idle(struct vb_sleep *s, struct vb_watch *w)
{
	struct pollfd p = { .fd = s->cc->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	if (!s->armed) {
		if (ibv_req_notify_cq(s->cq, 0))
			bench_die("%s: ibv_req_notify_cq failed", w->step);
		s->armed = true;
		return;
	}
	n = poll(&p, 1, VB_EVENT_POLL_MS);
	if (n < 0 && errno != EINTR)
		bench_die("%s: poll: %s", w->step, strerror(errno));
	if (n <= 0) {
		vb_watch_check(w);
		return;
	}
	if (ibv_get_cq_event(s->cc, &cq, &ctx)) {
		if (errno == EAGAIN)
			return;
		bench_die("%s: ibv_get_cq_event: %s", w->step, strerror(errno));
	}
	s->armed = false;
	if (++s->unacked >= VB_ACK_EVERY)
		vb_sleep_ack(s);
}

/* Every event got is acknowledged: ibv_destroy_cq(s->cq) waits for that. */
void vb_sleep_ack(struct vb_sleep *s)
{
	if (s->unacked)
		ibv_ack_cq_events(s->cq, s->unacked);
	s->unacked = 0;
}
