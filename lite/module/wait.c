// SPDX-License-Identifier: GPL-2.0
/*
 * How a thread waits for something the network brings (a read or write's
 * completion, an RPC reply, a request on a port): one policy for all.
 *
 *   adaptive (default): poll for up to twice the recent wait of this kind,
 *	at most spin_max_us, then sleep. A wait that ends as usual is seen
 *	without a sleep and a wake-up, which cost more than a whole
 *	operation on fast hardware; a wait that is usually long (an idle
 *	RPC server) sleeps at once and leaves the CPU alone. Only while no
 *	more threads spin than there are CPUs: with more, completions keep
 *	the CPUs busy anyway and a spinner only takes one from the threads
 *	that post.
 *   busy: poll until the wait ends, its deadline passes or a signal
 *	arrives, as the original LITE and native busy-polling servers do:
 *	the lowest latency, a CPU per waiting thread.
 *
 * A spinner polls the CQ itself (cq.c) and yields to anything else
 * runnable: rxe transmits from ksoftirqd. Low-priority waits (reads,
 * writes and calls) do not spin and are not recorded: on a guest with one
 * vCPU their spinning left none to higher priorities. High-priority ones
 * poll until done, up to spin_high_max_us, whatever the adaptive budget:
 * their caller asked for latency first (a DSM page fault has nothing else
 * to do; sleeping after the budget tripled its time on the local
 * cluster). Neither is recorded: the history is normal priority's.
 */
#include <linux/completion.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/string.h>

#include "lite_priv.h"
#include "../include/uapi/lite.h"

enum { LITE_WAIT_ADAPTIVE, LITE_WAIT_BUSY };
static const char * const lite_wait_policy_names[] = {
	[LITE_WAIT_ADAPTIVE]	= "adaptive",
	[LITE_WAIT_BUSY]	= "busy",
};
static int lite_wait_policy = LITE_WAIT_ADAPTIVE;

static int lite_wait_policy_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(lite_wait_policy_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(lite_wait_policy, i);
	return 0;
}

static int lite_wait_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  lite_wait_policy_names[READ_ONCE(lite_wait_policy)]);
}

static const struct kernel_param_ops lite_wait_policy_ops = {
	.set	= lite_wait_policy_set,
	.get	= lite_wait_policy_get,
};
module_param_cb(wait_policy, &lite_wait_policy_ops, NULL, 0644);
MODULE_PARM_DESC(wait_policy, "how threads wait for completions, replies and requests: adaptive (default: spin about as long as such waits took recently, at most spin_max_us, then sleep; high priority up to spin_high_max_us, low priority not at all) or busy (spin until done)");

static unsigned int lite_spin_max_us = 1000;
module_param_named(spin_max_us, lite_spin_max_us, uint, 0644);
MODULE_PARM_DESC(spin_max_us, "adaptive policy: the longest a thread spins before it sleeps (default: 1000; 0: one look at the CQ, then sleep)");

static unsigned int lite_spin_high_max_us = 10000;
module_param_named(spin_high_max_us, lite_spin_high_max_us, uint, 0644);
MODULE_PARM_DESC(spin_high_max_us, "high-priority waits (adaptive policy): the longest a thread polls before it sleeps (default: 10000)");

/* For A/B measurements of what polling the CQ from a spinner gains. */
static bool lite_spin_polls_cq = true;
module_param_named(spin_polls_cq, lite_spin_polls_cq, bool, 0644);
MODULE_PARM_DESC(spin_polls_cq, "a spinning waiter polls the CQ itself instead of waiting for softirq to (default: Y)");

/* Threads spinning now, under the adaptive policy. */
static atomic_t lite_spinners = ATOMIC_INIT(0);

/* lite_spin()'s condition for a wait on a struct completion (@arg). */
bool lite_spin_completion(void *arg)
{
	return completion_done(arg);
}

/**
 * lite_wait_mode() - how a waiter of priority @prio polls before it sleeps
 * @prio: LITE_PRIO_*
 *
 * Return: LITE_WAIT_SLEEP (low), LITE_WAIT_SPIN (high), else
 * LITE_WAIT_POLICY.
 */
enum lite_wait_mode lite_wait_mode(int prio)
{
	if (prio == LITE_PRIO_LOW)
		return LITE_WAIT_SLEEP;
	return prio == LITE_PRIO_HIGH ? LITE_WAIT_SPIN : LITE_WAIT_POLICY;
}

/*
 * lite_wait_learn() - record how long a wait of @h's kind took
 * @h: its history
 * @ns: the wait, from its start to its end
 *
 * An EWMA with weight 1/8. A sample counts as at most twice the spin
 * limit: after an idle second, a few short waits bring spinning back.
 * Racy on purpose: a lost update only skews a heuristic.
 */
void lite_wait_learn(struct lite_wait_hist *h, u64 ns)
{
	u64 avg = READ_ONCE(h->avg_ns);

	ns = min_t(u64, ns, 2ULL * READ_ONCE(lite_spin_max_us) * NSEC_PER_USEC);
	WRITE_ONCE(h->avg_ns, avg - avg / 8 + ns / 8);
}

/* How long a waiter of @h's kind spins under the adaptive policy. */
static u64 lite_spin_budget(const struct lite_wait_hist *h)
{
	u64 max = (u64)READ_ONCE(lite_spin_max_us) * NSEC_PER_USEC;
	u64 avg = READ_ONCE(h->avg_ns);

	/* Waits that outlast the limit: spinning would not see them end. */
	if (avg > max)
		return 0;
	return min(2 * avg, max);
}

/**
 * lite_spin() - poll for @cond as @mode says, before sleeping
 * @h: the history of this kind of wait (its recent length)
 * @cond: true when the wait is over; called often, must not sleep
 * @arg: its argument
 * @start: ktime_get_ns() when the wait began
 * @deadline: ktime_get_ns() value past which the caller gives up
 * @mode: LITE_WAIT_POLICY (the wait policy's), LITE_WAIT_SPIN (up to
 *	spin_high_max_us under the adaptive policy) or LITE_WAIT_SLEEP
 *	(one look)
 *
 * The caller then sleeps for @cond with its usual timeout and signal
 * handling, and reports the wait's length with lite_wait_learn().
 *
 * Return: true when @cond became true while spinning.
 */
bool lite_spin(struct lite_wait_hist *h, bool (*cond)(void *), void *arg,
	       u64 start, u64 deadline, enum lite_wait_mode mode)
{
	bool busy = READ_ONCE(lite_wait_policy) == LITE_WAIT_BUSY;
	u64 end = deadline;
	bool done;

	if (cond(arg))
		return true;
	if (mode == LITE_WAIT_SLEEP)
		return false;
	if (!busy) {
		if (mode == LITE_WAIT_SPIN)
			end = min(deadline, start + NSEC_PER_USEC *
				  (u64)READ_ONCE(lite_spin_high_max_us));
		else
			end = min(deadline, start + lite_spin_budget(h));
		if (atomic_inc_return(&lite_spinners) > num_online_cpus())
			end = start;
	}
	for (;;) {
		if (READ_ONCE(lite_spin_polls_cq))
			lite_cq_poll();
		done = cond(arg);
		if (done || ktime_get_ns() >= end || signal_pending(current))
			break;
		if (need_resched() || !single_task_running())
			yield();
		else
			cpu_relax();
	}
	if (!busy)
		atomic_dec(&lite_spinners);
	return done;
}
