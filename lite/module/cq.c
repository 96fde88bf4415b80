// SPDX-License-Identifier: GPL-2.0
/*
 * The device's one CQ, polled from two places: from softirq (irq_poll,
 * scheduled by the completion event, as ib_core does for IB_POLL_SOFTIRQ
 * CQs) and by any thread that spins for a completion (wait.c). The
 * spinning thread sees its completion as soon as the device wrote it,
 * instead of after the event's hand-off to softirq and the wake-up (rxe
 * adds a tasklet before the event). ib_core's CQ modes allow one of the
 * two only, hence a CQ of our own.
 *
 * Pollers exclude each other (@cq_lock); completion handlers run with
 * bottom halves off either way, so they stay atomic and see the same
 * context as before.
 *
 * The CQ raises an event for every completion only while someone waits
 * for a send's: a work request whose poster (or a thread that sleeps for
 * send credits, or a drain) said so with lite_cq_await_begin(). Else it
 * is armed for solicited completions only, which are the receives of
 * messages (every LITE message is sent with IB_SEND_SOLICITED), so an
 * RPC server's reply completes without an event of its own: the next
 * poll, raised by the next message, takes its completion, as a native
 * server that never arms its send CQ does; on a node fallen idle a timer
 * takes it (lite_cq_reap()). By the IB spec a completion in error raises
 * the event of a solicited-only CQ too; rxe raises none for a send's, so
 * there an error of a reply nobody waits for is seen at the next poll.
 * Drains poll on their own (lite_drain_wait()).
 */
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "lite_priv.h"

#define LITE_CQ_BUDGET	64	/* completions per softirq round */
/* Longest a completion nobody waits for stays in the CQ on an idle node. */
#define LITE_CQ_REAP	(HZ / 10)

/* For A/B measurements of the solicited-only arm (tests/integration/lite-rpc). */
static bool lite_cq_solicited = true;
module_param_named(cq_solicited, lite_cq_solicited, bool, 0644);
MODULE_PARM_DESC(cq_solicited, "arm the CQ for solicited completions only while no send's completion is waited for (default: Y; N: every completion raises an event, as before, for A/B runs)");

/* The device whose CQ spinning threads poll; cleared before it goes. */
static struct lite_dev __rcu *lite_cq_dev;

/*
 * Arm the CQ for the next completion, or for the next solicited one when
 * nobody waits for a send's; true when completions came before it was
 * armed. Caller holds @dev->cq_lock.
 */
static bool lite_cq_arm(struct lite_dev *dev)
{
	enum ib_cq_notify_flags flags = IB_CQ_SOLICITED;

	if (!dev->cq)
		return false;	/* destroyed; the next one is armed when made */
	clear_bit(LITE_CQ_SENDS, &dev->cq_flags);
	/* Pairs with lite_cq_await_begin(): one of us sees the other. */
	smp_mb__after_atomic();
	if (atomic_read(&dev->cq_awaited) > 0 || !READ_ONCE(lite_cq_solicited)) {
		set_bit(LITE_CQ_SENDS, &dev->cq_flags);
		flags = IB_CQ_NEXT_COMP;
	}
	/*
	 * A provider may report missed completions without arming (bnxt_re
	 * with a CQ not empty): LITE_CQ_SENDS then stands for the poll our
	 * caller schedules on true, which arms again.
	 */
	return ib_req_notify_cq(dev->cq, flags | IB_CQ_REPORT_MISSED_EVENTS) > 0;
}

/*
 * A completion nobody waits for raises no event: it is taken by the next
 * poll, which the next message's arrival brings. On a node that then
 * falls idle, this timer brings it instead, so that the work request's
 * buffer, send credit and peer reference are not held for longer.
 */
static void lite_cq_reap(struct timer_list *t)
{
	struct lite_dev *dev = from_timer(dev, t, cq_reaper);

	if (atomic_read(&dev->cq_unawaited) <= 0 || !READ_ONCE(dev->cq))
		return;
	irq_poll_sched(&dev->cq_iop);
	mod_timer(&dev->cq_reaper, jiffies + LITE_CQ_REAP);
}

/**
 * lite_cq_init() - what the device's CQs share over its life
 * @dev: the device, before its first lite_cq_create()
 *
 * Context: process context, once per device.
 */
void lite_cq_init(struct lite_dev *dev)
{
	spin_lock_init(&dev->cq_lock);
	timer_setup(&dev->cq_reaper, lite_cq_reap, 0);
}

/**
 * lite_cq_fini() - the end of lite_cq_init(): the device is freed
 * @dev: the device; its CQ destroyed (or never made)
 *
 * A post that found no CQ may still have started the reaper.
 * Context: process context.
 */
void lite_cq_fini(struct lite_dev *dev)
{
	timer_shutdown_sync(&dev->cq_reaper);
}

/* Caller holds @dev->cq_lock with bottom halves off. */
static int lite_cq_process(struct lite_dev *dev, int budget)
{
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(dev->cq, min(budget - done, LITE_CQ_BATCH),
			       dev->cq_wc);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &dev->cq_wc[i];

			/* As ib_core: a WR without wr_cqe may only fail. */
			if (wc->wr_cqe)
				wc->wr_cqe->done(dev->cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		done += n;
		if (n < LITE_CQ_BATCH)
			break;
	}
	return done;
}

static int lite_cq_irq_poll(struct irq_poll *iop, int budget)
{
	struct lite_dev *dev = container_of(iop, struct lite_dev, cq_iop);
	bool again = false;
	int done;

	/* Armed under the lock: some drivers assume poll and arm serialised. */
	spin_lock(&dev->cq_lock);
	done = lite_cq_process(dev, budget);
	if (done < budget) {
		irq_poll_complete(iop);
		again = lite_cq_arm(dev);
	}
	spin_unlock(&dev->cq_lock);
	if (again)
		irq_poll_sched(iop);
	return done;
}

static void lite_cq_event(struct ib_cq *cq, void *ctx)
{
	struct lite_dev *dev = ctx;

	lite_stat_inc(LITE_STAT_CQ_EVENTS);
	irq_poll_sched(&dev->cq_iop);
}

/*
 * IB_EVENT_CQ_ERR, the only CQ event there is: the CQ failed. mlx5 raises
 * it from its async event queue, in interrupt context
 * (drivers/infiniband/hw/mlx5/cq.c, mlx5_ib_cq_event()), on a CQ error
 * from the NIC: an overrun (a completion found the CQ full) or an access
 * error on the CQ's buffer (syndrome in dmesg: "CQ error on CQN"). The CQ
 * then writes no completion any more. rxe raises it from its tasklets
 * when a completion finds the CQ full, drops that one and goes on. Either
 * way completions are lost: work requests whose owners wait for them, and
 * receives that are reposted only from theirs. LITE cannot overrun its CQ
 * (a peer's QPs are created only with room for all their completions,
 * lite_cq_reserve()), so this is a fault: the node leaves the cluster
 * (lite_dev_ops.event, as after a fatal error), its drains stop waiting
 * for what cannot come (lite_cq_drain_qp()), and the next join gets a new
 * CQ (lite_cq_renew()).
 */
static void lite_cq_async_event(struct ib_event *ev, void *ctx)
{
	struct lite_dev *dev = ctx;

	if (ev->event != IB_EVENT_CQ_ERR) {
		pr_warn("%s: CQ event: %s\n", dev_name(&dev->ibdev->dev),
			ib_event_msg(ev->event));
		return;
	}
	if (test_and_set_bit(LITE_CQ_FAILED, &dev->cq_flags))
		return;
	pr_err("%s: the CQ failed (%s): completions are lost; leaving the cluster, the next join gets a new CQ\n",
	       dev_name(&dev->ibdev->dev), ib_event_msg(ev->event));
	lite_dev_raise(dev, LITE_DEV_EV_CQ_ERR);
}

/**
 * lite_cq_create() - create @dev's CQ with room for @cqe completions
 * @dev: the device
 * @cqe: its depth; the loopback QPs' LITE_CQ_LOOPBACK of them, the rest
 *	for peers (lite_cq_reserve())
 *
 * Return: 0 or a negative errno.
 */
int lite_cq_create(struct lite_dev *dev, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	dev->cq_depth = cqe;
	irq_poll_init(&dev->cq_iop, LITE_CQ_BUDGET, lite_cq_irq_poll);
	cq = ib_create_cq(dev->ibdev, lite_cq_event, lite_cq_async_event,
			  dev, &attr);
	if (IS_ERR(cq)) {
		irq_poll_disable(&dev->cq_iop);
		return PTR_ERR(cq);
	}
	/*
	 * What ib_drain_qp() looks at: not DIRECT, so it waits for the drain
	 * WR's completion, which our irq_poll delivers (0 already, said here).
	 */
	cq->poll_ctx = IB_POLL_SOFTIRQ;
	/* What the provider made: at least @cqe (mlx5 rounds up). */
	atomic_set(&dev->cq_room, cq->cqe - LITE_CQ_LOOPBACK);
	spin_lock_bh(&dev->cq_lock);
	WRITE_ONCE(dev->cq, cq);
	lite_cq_arm(dev);	/* empty: nothing was missed */
	spin_unlock_bh(&dev->cq_lock);
	rcu_assign_pointer(lite_cq_dev, dev);
	return 0;
}

/**
 * lite_cq_stop_spinners() - spinning threads stop polling @dev's CQ
 * @dev: the device about to go
 *
 * Completions still arrive through softirq until lite_cq_destroy().
 * Context: process context; may sleep.
 */
void lite_cq_stop_spinners(struct lite_dev *dev)
{
	if (rcu_access_pointer(lite_cq_dev) != dev)
		return;
	RCU_INIT_POINTER(lite_cq_dev, NULL);
	synchronize_rcu();
}

/**
 * lite_cq_destroy() - destroy @dev's CQ; every QP on it is gone
 * @dev: the device
 */
void lite_cq_destroy(struct lite_dev *dev)
{
	struct ib_cq *cq;

	if (!dev->cq)
		return;
	lite_cq_stop_spinners(dev);
	irq_poll_disable(&dev->cq_iop);
	/* Arming (lite_cq_await_begin()) looks at @dev->cq under the lock. */
	spin_lock_bh(&dev->cq_lock);
	cq = dev->cq;
	WRITE_ONCE(dev->cq, NULL);
	spin_unlock_bh(&dev->cq_lock);
	timer_delete_sync(&dev->cq_reaper);
	ib_destroy_cq(cq);
}

/**
 * lite_cq_await_begin() - a send's completion is waited for: until
 * lite_cq_await_end(), every completion raises an event
 * @dev: the device whose CQ it completes to
 *
 * Called before the work request is posted (or before sleeping for
 * completions of others, as for send credits), so that no completion it
 * waits for can come while the CQ is armed for solicited ones only.
 *
 * Context: any; takes @dev->cq_lock (bottom halves off) when the CQ must
 * be armed anew, so not under a lock a completion handler takes.
 */
void lite_cq_await_begin(struct lite_dev *dev)
{
	bool missed;

	/*
	 * One count for the device, not per CPU: lite_cq_arm() needs an
	 * exact zero, which a sum of per-CPU counts read one by one is not.
	 */
	atomic_inc(&dev->cq_awaited);
	/* Pairs with lite_cq_arm(): one of us sees the other. */
	smp_mb__after_atomic();
	if (test_bit(LITE_CQ_SENDS, &dev->cq_flags))
		return;
	spin_lock_bh(&dev->cq_lock);
	/* A CQ armed for solicited completions takes the wider arm. */
	missed = lite_cq_arm(dev);
	spin_unlock_bh(&dev->cq_lock);
	if (missed)
		irq_poll_sched(&dev->cq_iop);
}

/**
 * lite_cq_await_end() - the wait of lite_cq_await_begin() is over
 * @dev: its device
 *
 * The CQ goes back to solicited completions at its next arming.
 * Context: any.
 */
void lite_cq_await_end(struct lite_dev *dev)
{
	/* Below zero, the CQ would wait for solicited completions only. */
	WARN_ON_ONCE(atomic_dec_return(&dev->cq_awaited) < 0);
}

/**
 * lite_cq_unawaited_begin() - a work request nobody waits for is posted
 * @dev: the device whose CQ it completes to
 *
 * Its completion may raise no event: lite_cq_reap() polls for it if
 * nothing else does within LITE_CQ_REAP.
 * Context: any.
 */
void lite_cq_unawaited_begin(struct lite_dev *dev)
{
	if (atomic_inc_return(&dev->cq_unawaited) == 1 &&
	    !timer_pending(&dev->cq_reaper))
		mod_timer(&dev->cq_reaper, jiffies + LITE_CQ_REAP);
}

/**
 * lite_cq_unawaited_end() - its completion was taken (or it was not posted)
 * @dev: its device
 *
 * Context: any.
 */
void lite_cq_unawaited_end(struct lite_dev *dev)
{
	WARN_ON_ONCE(atomic_dec_return(&dev->cq_unawaited) < 0);
}

/**
 * lite_cq_failed() - did @dev's CQ fail (IB_EVENT_CQ_ERR)?
 * @dev: the device
 *
 * Context: any.
 */
bool lite_cq_failed(struct lite_dev *dev)
{
	return test_bit(LITE_CQ_FAILED, &dev->cq_flags);
}

/**
 * lite_cq_renew() - replace @dev's CQ if it failed (or could not be made)
 * @dev: the device; no QP on its CQ (this node is not joined)
 *
 * Context: process context, membership lock held.
 * Return: 0, or a negative errno: the device has no CQ until it works.
 */
int lite_cq_renew(struct lite_dev *dev)
{
	const char *name = dev_name(&dev->ibdev->dev);
	int ret;

	if (dev->cq && !lite_cq_failed(dev))
		return 0;
	/* ib_destroy_cq() would refuse it: a QP would still complete to it. */
	if (dev->cq && atomic_read(&dev->cq->usecnt)) {
		pr_err("%s: the failed CQ still has QPs: not replaced\n", name);
		return -EBUSY;
	}
	lite_cq_destroy(dev);
	/* The old CQ raises nothing any more. */
	clear_bit(LITE_CQ_FAILED, &dev->cq_flags);
	ret = lite_cq_create(dev, dev->cq_depth);
	if (ret) {
		pr_err("%s: ib_create_cq(%d) failed: %d\n", name, dev->cq_depth,
		       ret);
		return ret;
	}
	pr_info("%s: a new CQ (%d completions) replaces the one that failed\n",
		name, dev->cq->cqe);
	return 0;
}

/**
 * lite_cq_reserve() - room in @dev's CQ for @n more completions
 * @dev: the device
 * @n: the completions a peer's QPs can have at once (LITE_QP_CQES each)
 *
 * A CQ that overruns fails (mlx5): no QP is created without room for
 * every completion it can have.
 *
 * Context: any.
 * Return: 0, or -ENOSPC when the CQ has no room for them.
 */
int lite_cq_reserve(struct lite_dev *dev, int n)
{
	int room = atomic_read(&dev->cq_room);

	do {
		if (room < n)
			return -ENOSPC;
	} while (!atomic_try_cmpxchg(&dev->cq_room, &room, room - n));
	return 0;
}

/**
 * lite_cq_unreserve() - give back what lite_cq_reserve() reserved
 * @dev: the device
 * @n: as reserved; the QPs are destroyed
 */
void lite_cq_unreserve(struct lite_dev *dev, int n)
{
	atomic_add(n, &dev->cq_room);
}

/* A drain work request's completion (lite_cq_drain_qp()). */
struct lite_drain {
	struct ib_cqe		cqe;
	struct completion	done;
	refcount_t		refs;	/* the drainer's and the completion's */
};

static void lite_drain_put(struct lite_drain *d)
{
	if (refcount_dec_and_test(&d->refs))
		kfree(d);
}

static void lite_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_drain *d = container_of(wc->wr_cqe, struct lite_drain, cqe);

	complete(&d->done);
	lite_drain_put(d);
}

/*
 * Until @d's completion ran; false when the CQ failed first. A flush may
 * raise no event (rxe reports flushed sends unsolicited): poll each tick.
 */
static bool lite_drain_wait(struct lite_dev *dev, struct lite_drain *d)
{
	while (!wait_for_completion_timeout(&d->done, HZ / 10)) {
		if (lite_cq_failed(dev))
			return false;
		irq_poll_sched(&dev->cq_iop);
	}
	return true;
}

/**
 * lite_cq_drain_qp() - flush @qp, wait until every completion of it ran
 * @dev: the device whose CQ @qp completes to
 * @qp: a QP in INIT or later
 * @rq: its receive queue too (ib_drain_qp(); else ib_drain_sq())
 *
 * As ib_drain_qp(): move @qp to ERR, post a work request on each queue
 * and wait for their completions, which come after every earlier one's.
 * But it gives up once the CQ failed (IB_EVENT_CQ_ERR), whose completions
 * never come. What it gave up on cannot come later either: mlx5 removes a
 * kernel QP's completions from its CQ when the QP is reset or destroyed
 * (hw/mlx5/qp.c, mlx5_ib_cq_clean()), and rxe, whose CQ goes on after it
 * dropped a completion, delivers a drain's in milliseconds. Where the
 * provider refuses our work requests (mlx5 after a fatal error takes its
 * own drain's only), its drain runs instead: ib_drain_sq()/ib_drain_rq(),
 * which mlx5 then completes itself.
 *
 * Context: process context; sleeps.
 * Return: 0, or -EIO when the CQ failed before the drain ended.
 */
int lite_cq_drain_qp(struct lite_dev *dev, struct ib_qp *qp, bool rq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_rdma_wr swr = { .wr = { .opcode = IB_WR_RDMA_WRITE } };
	struct ib_recv_wr rwr = {};
	struct lite_drain *d[2] = {};
	bool posted[2] = {};
	int i, n = rq ? 2 : 1, ret = 0;

	lite_cq_await_begin(dev);
	for (i = 0; i < n; i++) {
		d[i] = kzalloc(sizeof(*d[i]), GFP_KERNEL);
		if (!d[i])
			break;
		d[i]->cqe.done = lite_drain_done;
		init_completion(&d[i]->done);
		refcount_set(&d[i]->refs, 2);
	}
	if (d[0] && (!rq || d[1]) && !ib_modify_qp(qp, &attr, IB_QP_STATE)) {
		swr.wr.wr_cqe = &d[0]->cqe;
		posted[0] = !ib_post_send(qp, &swr.wr, NULL);
		if (rq) {
			rwr.wr_cqe = &d[1]->cqe;
			posted[1] = !ib_post_recv(qp, &rwr, NULL);
		}
	}
	for (i = 0; i < n; i++) {
		if (!posted[i]) {
			kfree(d[i]);
			if (lite_cq_failed(dev))
				ret = -EIO;	/* the core's would wait forever */
			else if (i)
				ib_drain_rq(qp);
			else
				ib_drain_sq(qp);
			continue;
		}
		if (!ret && !lite_drain_wait(dev, d[i]))
			ret = -EIO;
		lite_drain_put(d[i]);
	}
	lite_cq_await_end(dev);
	if (ret)
		pr_warn("%s: QP %u not drained: the CQ failed\n",
			dev_name(&dev->ibdev->dev), qp->qp_num);
	return ret;
}

/**
 * lite_cq_poll() - process what the CQ holds now, unless someone else is
 *
 * For threads that spin for a completion: theirs, or whatever woke them,
 * is handled at once. Does nothing when no device is attached.
 * Context: process context.
 */
void lite_cq_poll(void)
{
	struct lite_dev *dev;

	local_bh_disable();
	rcu_read_lock();
	dev = rcu_dereference(lite_cq_dev);
	if (dev && spin_trylock(&dev->cq_lock)) {
		lite_cq_process(dev, LITE_CQ_BATCH);
		spin_unlock(&dev->cq_lock);
	}
	rcu_read_unlock();
	local_bh_enable();
}

/**
 * lite_cq_settle() - take every completion the CQ holds, then call @fn
 * @dev: the device
 * @fn: called with @arg under the pollers' lock, with bottom halves off
 * @arg: its argument
 *
 * For a QP just reset or destroyed after a drain that gave up: neither
 * rxe nor mlx5 writes completions of it any more, but rxe leaves those
 * already written in the CQ (mlx5 cleans them out, but a batch polled
 * before may still be handled). Once this returns, none of them is
 * handled later, and @fn may take what they would have ended.
 *
 * Context: process context.
 */
void lite_cq_settle(struct lite_dev *dev, void (*fn)(void *), void *arg)
{
	spin_lock_bh(&dev->cq_lock);
	if (dev->cq)
		while (lite_cq_process(dev, LITE_CQ_BUDGET) == LITE_CQ_BUDGET)
			;
	fn(arg);
	spin_unlock_bh(&dev->cq_lock);
}
