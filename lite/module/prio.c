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
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/wait.h>

#include "lite_priv.h"
#include "../include/uapi/lite.h"

static unsigned int lite_prio_low_max_wait_us = 100000;
module_param_named(prio_low_max_wait_us, lite_prio_low_max_wait_us, uint, 0644);
MODULE_PARM_DESC(prio_low_max_wait_us, "longest a low-priority operation waits for high-priority ones (default: 100000; 0: priorities off)");

static unsigned int lite_prio_high_grace_us = 1000;
module_param_named(prio_high_grace_us, lite_prio_high_grace_us, uint, 0644);
MODULE_PARM_DESC(prio_high_grace_us, "how long after a high-priority operation low-priority ones still wait (default: 1000)");

static unsigned int lite_prio_low_inflight_kb = 16;
module_param_named(prio_low_inflight_kb, lite_prio_low_inflight_kb, uint, 0644);
MODULE_PARM_DESC(prio_low_inflight_kb, "while high-priority traffic is active: the most low-priority reads and writes to one peer have in flight (default: 16; 0: no limit)");

static atomic_t lite_prio_high = ATOMIC_INIT(0);
static atomic64_t lite_prio_high_end = ATOMIC64_INIT(0);	/* ktime, ns */

/*
 * Low-priority callers held in lite_prio_begin() sleep on lite_prio_idle_wq
 * and are woken by one timer once high-priority traffic has been idle for
 * the grace period, not at the end of every high-priority call: on a busy
 * high stream those wake-ups cost the stream more CPU than the low-priority
 * traffic they hold back. Steps waiting for room sleep on lite_prio_room_wq,
 * woken as low-priority steps complete.
 */
static DECLARE_WAIT_QUEUE_HEAD(lite_prio_idle_wq);
static DECLARE_WAIT_QUEUE_HEAD(lite_prio_room_wq);
static DEFINE_SPINLOCK(lite_prio_lock);
static unsigned int lite_prio_sleepers;		/* under lite_prio_lock */
static bool lite_prio_timer_on;			/* under lite_prio_lock */
static struct hrtimer lite_prio_timer;

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

/* The timer's next look while held: the rest of the grace, or a grace on. */
static u64 lite_prio_recheck_ns(u64 hold)
{
	u64 grace = (u64)READ_ONCE(lite_prio_high_grace_us) * NSEC_PER_USEC;

	return max_t(u64, hold == U64_MAX ? grace : hold, 100 * NSEC_PER_USEC);
}

/*
 * While anyone sleeps, look every grace period (or when the grace ends) and
 * wake them all once high-priority traffic is idle. The timer runs on until
 * no one sleeps: a sleeper woken but then finding a new high-priority call
 * sleeps again inside wait_event_killable_timeout(), and still needs the timer.
 */
static enum hrtimer_restart lite_prio_timer_fn(struct hrtimer *timer)
{
	u64 hold = lite_prio_hold_ns(ktime_get_ns());
	unsigned long flags;

	spin_lock_irqsave(&lite_prio_lock, flags);
	if (!lite_prio_sleepers) {
		lite_prio_timer_on = false;
		spin_unlock_irqrestore(&lite_prio_lock, flags);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ns_to_ktime(lite_prio_recheck_ns(hold ?: U64_MAX)));
	spin_unlock_irqrestore(&lite_prio_lock, flags);
	if (!hold)
		wake_up_all(&lite_prio_idle_wq);
	return HRTIMER_RESTART;
}

/* Sleep until high-priority traffic is idle, @left ns pass or a kill. */
static void lite_prio_sleep(u64 hold, u64 left)
{
	unsigned long flags;

	spin_lock_irqsave(&lite_prio_lock, flags);
	lite_prio_sleepers++;
	if (!lite_prio_timer_on) {
		lite_prio_timer_on = true;
		hrtimer_start(&lite_prio_timer,
			      ns_to_ktime(lite_prio_recheck_ns(hold)),
			      HRTIMER_MODE_REL);
	}
	spin_unlock_irqrestore(&lite_prio_lock, flags);
	/* Killable: the hold may last prio_low_max_wait_us (100 ms). */
	wait_event_killable_timeout(lite_prio_idle_wq,
				    !lite_prio_hold_ns(ktime_get_ns()),
				    nsecs_to_jiffies(left) + 1);
	spin_lock_irqsave(&lite_prio_lock, flags);
	lite_prio_sleepers--;
	spin_unlock_irqrestore(&lite_prio_lock, flags);
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
	while ((hold = lite_prio_hold_ns(now)) && now < deadline &&
	       !fatal_signal_pending(current)) {
		lite_prio_sleep(hold, deadline - now);
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
	atomic_add_unless(&lite_prio_high, -1, 0);
}

static bool lite_prio_low_fits(struct lite_peer *peer, u64 step, u64 limit)
{
	return atomic64_read(&peer->prio_low_bytes) + step <= limit ||
	       !lite_prio_hold_ns(ktime_get_ns());
}

/* Is a low-priority step cut now? Then to the limit it returns. */
static bool lite_prio_low_cut(int prio, u64 *limit)
{
	*limit = (u64)READ_ONCE(lite_prio_low_inflight_kb) * SZ_1K;
	return prio == LITE_PRIO_LOW && READ_ONCE(lite_prio_low_max_wait_us) &&
	       *limit && lite_prio_hold_ns(ktime_get_ns());
}

/**
 * lite_prio_low_cap() - the most lite_prio_low_step() would let go now
 * @prio: a transfer's priority, LITE_PRIO_*
 * @want: bytes left to transfer
 *
 * Sizes a step's buffer before the peer is taken (the caller's memory is
 * copied in first); lite_prio_low_step() may still cut it.
 */
u64 lite_prio_low_cap(int prio, u64 want)
{
	u64 limit;

	return lite_prio_low_cut(prio, &limit) ? min(want, limit) : want;
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
	unsigned int wait_us = READ_ONCE(lite_prio_low_max_wait_us);
	u64 step = want, now, deadline, limit;

	if (prio != LITE_PRIO_LOW)
		return want;
	if (lite_prio_low_cut(prio, &limit)) {
		step = min(want, limit);
		now = ktime_get_ns();
		deadline = now + (u64)wait_us * NSEC_PER_USEC;
		while (!lite_prio_low_fits(peer, step, limit) &&
		       now < deadline && !fatal_signal_pending(current)) {
			wait_event_killable_timeout(lite_prio_room_wq,
					lite_prio_low_fits(peer, step, limit),
					nsecs_to_jiffies(deadline - now) + 1);
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
	if (wq_has_sleeper(&lite_prio_room_wq))
		wake_up_all(&lite_prio_room_wq);
}

void lite_prio_init(void)
{
	hrtimer_init(&lite_prio_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	lite_prio_timer.function = lite_prio_timer_fn;
}

/* After every caller has left (chardev and kernel API gone). */
void lite_prio_exit(void)
{
	hrtimer_cancel(&lite_prio_timer);
}
