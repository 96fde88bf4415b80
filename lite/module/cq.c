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
 */
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>

#include "lite_priv.h"

#define LITE_CQ_BUDGET	64	/* completions per softirq round */
#define LITE_CQ_REARM	(IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS)

/* The device whose CQ spinning threads poll; cleared before it goes. */
static struct lite_dev __rcu *lite_cq_dev;

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
		/* > 0: completions arrived before the CQ was armed again. */
		again = ib_req_notify_cq(dev->cq, LITE_CQ_REARM) > 0;
	}
	spin_unlock(&dev->cq_lock);
	if (again)
		irq_poll_sched(iop);
	return done;
}

static void lite_cq_event(struct ib_cq *cq, void *ctx)
{
	struct lite_dev *dev = ctx;

	irq_poll_sched(&dev->cq_iop);
}

static void lite_cq_async_event(struct ib_event *ev, void *ctx)
{
	pr_warn("CQ event: %s\n", ib_event_msg(ev->event));
}

/**
 * lite_cq_create() - create @dev's CQ with room for @cqe completions
 * @dev: the device
 * @cqe: its depth
 *
 * Return: 0 or a negative errno.
 */
int lite_cq_create(struct lite_dev *dev, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	spin_lock_init(&dev->cq_lock);
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
	dev->cq = cq;
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
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
	if (!dev->cq)
		return;
	lite_cq_stop_spinners(dev);
	irq_poll_disable(&dev->cq_iop);
	ib_destroy_cq(dev->cq);
	dev->cq = NULL;
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
