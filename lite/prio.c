// SPDX-License-Identifier: GPL-2.0
/*
 * Priorities of data operations and RPCs (docs/rpc.md, "Priorities").
 * While a high-priority operation of this node is in flight, or one ended
 * less than prio_high_grace_us ago (the gap between the calls of one
 * stream), a low-priority operation waits before it starts, up to
 * prio_low_max_wait_us in all, so the shared QPs, the link and the peer's
 * receive path carry the high stream first. What is already posted cannot
 * be preempted, so while high-priority traffic is active, low-priority
 * reads and writes to one peer together keep at most prio_low_inflight_kb
 * in flight: they go in steps of that size, each waiting for room (again
 * at most prio_low_max_wait_us). Normal priority is never held back.
 * Nothing is reordered on the wire.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/wait.h>

#include "lite_priv.h"
#include "include/uapi/lite.h"

static unsigned int lite_prio_low_max_wait_us = 2000;
module_param_named(prio_low_max_wait_us, lite_prio_low_max_wait_us, uint, 0644);
MODULE_PARM_DESC(prio_low_max_wait_us, "longest a low-priority operation waits for high-priority ones (default: 2000; 0: priorities off)");

static unsigned int lite_prio_high_grace_us = 1000;
module_param_named(prio_high_grace_us, lite_prio_high_grace_us, uint, 0644);
MODULE_PARM_DESC(prio_high_grace_us, "how long after a high-priority operation low-priority ones still wait (default: 1000)");

static unsigned int lite_prio_low_inflight_kb = 16;
module_param_named(prio_low_inflight_kb, lite_prio_low_inflight_kb, uint, 0644);
MODULE_PARM_DESC(prio_low_inflight_kb, "while high-priority traffic is active: the most low-priority reads and writes to one peer have in flight (default: 16; 0: no limit)");

static atomic_t lite_prio_high = ATOMIC_INIT(0);
static atomic64_t lite_prio_high_end = ATOMIC64_INIT(0);	/* ktime, ns */
static DECLARE_WAIT_QUEUE_HEAD(lite_prio_wq);

/* How much longer a low-priority operation is held at @now: ns, 0 or U64_MAX. */
static u64 lite_prio_hold_ns(u64 now)
{
	u64 grace = (u64)READ_ONCE(lite_prio_high_grace_us) * NSEC_PER_USEC;
	u64 end;

	if (atomic_read(&lite_prio_high))
		return U64_MAX;
	end = atomic64_read(&lite_prio_high_end);
	return end && now - end < grace ? grace - (now - end) : 0;
}

/**
 * lite_prio_begin() - an operation of priority @prio starts
 * @prio: LITE_PRIO_*
 *
 * Context: process context; a low-priority caller may sleep.
 */
void lite_prio_begin(int prio)
{
	unsigned int wait_us = READ_ONCE(lite_prio_low_max_wait_us);
	u64 now, deadline, hold;

	if (!wait_us)
		return;
	if (prio == LITE_PRIO_HIGH) {
		atomic_inc(&lite_prio_high);
		return;
	}
	if (prio != LITE_PRIO_LOW)
		return;
	now = ktime_get_ns();
	deadline = now + (u64)wait_us * NSEC_PER_USEC;
	while ((hold = lite_prio_hold_ns(now)) && now < deadline) {
		if (hold == U64_MAX)	/* in flight: until it ends */
			wait_event_hrtimeout(lite_prio_wq,
					     !atomic_read(&lite_prio_high),
					     ns_to_ktime(deadline - now));
		else			/* ended: until the grace is over */
			usleep_range(min(hold, deadline - now) / NSEC_PER_USEC,
				     min(hold, deadline - now) / NSEC_PER_USEC + 50);
		now = ktime_get_ns();
	}
}

/**
 * lite_prio_end() - the operation lite_prio_begin(@prio) started has ended
 * @prio: LITE_PRIO_*
 */
void lite_prio_end(int prio)
{
	if (prio != LITE_PRIO_HIGH)
		return;
	atomic64_set(&lite_prio_high_end, ktime_get_ns());
	/* Switching priorities off with operations in flight must not skew. */
	if (atomic_add_unless(&lite_prio_high, -1, 0) &&
	    !atomic_read(&lite_prio_high))
		wake_up_all(&lite_prio_wq);
}

static bool lite_prio_low_fits(struct lite_peer *peer, u64 step, u64 limit)
{
	return atomic64_read(&peer->prio_low_bytes) + step <= limit ||
	       !lite_prio_hold_ns(ktime_get_ns());
}

/**
 * lite_prio_low_step() - how much of a transfer to @peer may go now
 * @peer: the transfer's destination
 * @prio: its priority, LITE_PRIO_*
 * @want: bytes left to transfer
 *
 * While high-priority traffic is active, a low-priority step is cut to
 * prio_low_inflight_kb and waits until it fits beside the other
 * low-priority steps in flight to @peer (at most prio_low_max_wait_us).
 * Otherwise, for other priorities or with priorities off, all of @want
 * goes (a step posted before high-priority traffic began is not cut).
 *
 * Context: process context; may sleep.
 * Return: bytes to post now; lite_prio_low_done() when they completed.
 */
u64 lite_prio_low_step(struct lite_peer *peer, int prio, u64 want)
{
	u64 limit = (u64)READ_ONCE(lite_prio_low_inflight_kb) * SZ_1K;
	unsigned int wait_us = READ_ONCE(lite_prio_low_max_wait_us);
	u64 step = want, now, deadline;

	if (prio != LITE_PRIO_LOW)
		return want;
	now = ktime_get_ns();
	if (wait_us && limit && lite_prio_hold_ns(now)) {
		step = min(want, limit);
		deadline = now + (u64)wait_us * NSEC_PER_USEC;
		while (!lite_prio_low_fits(peer, step, limit) && now < deadline) {
			wait_event_hrtimeout(lite_prio_wq,
					     lite_prio_low_fits(peer, step, limit),
					     ns_to_ktime(deadline - now));
			now = ktime_get_ns();
		}
	}
	/* Counted with priorities off too: switching them on finds it right. */
	atomic64_add(step, &peer->prio_low_bytes);
	return step;
}

/**
 * lite_prio_low_done() - a step of lite_prio_low_step() completed
 * @peer: its destination
 * @prio: its priority
 * @step: what lite_prio_low_step() returned
 */
void lite_prio_low_done(struct lite_peer *peer, int prio, u64 step)
{
	if (prio != LITE_PRIO_LOW)
		return;
	atomic64_sub(step, &peer->prio_low_bytes);
	if (wq_has_sleeper(&lite_prio_wq))
		wake_up_all(&lite_prio_wq);
}
