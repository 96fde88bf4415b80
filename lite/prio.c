// SPDX-License-Identifier: GPL-2.0
/*
 * Priorities of data operations and RPCs (docs/rpc.md, "Priorities").
 * While any high-priority operation of this node is in flight, a
 * low-priority one waits before it starts, up to prio_low_max_wait_us, so
 * the shared QPs and the peer's receive path carry the high stream first.
 * Normal priority is never held back. Nothing is reordered on the wire.
 */
#include <linux/module.h>
#include <linux/wait.h>

#include "lite_priv.h"
#include "include/uapi/lite.h"

static unsigned int lite_prio_low_max_wait_us = 2000;
module_param_named(prio_low_max_wait_us, lite_prio_low_max_wait_us, uint, 0644);
MODULE_PARM_DESC(prio_low_max_wait_us, "longest a low-priority operation waits for high-priority ones (default: 2000; 0: priorities off)");

static atomic_t lite_prio_high = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(lite_prio_wq);

/**
 * lite_prio_begin() - an operation of priority @prio starts
 * @prio: LITE_PRIO_*
 *
 * Context: process context; a low-priority caller may sleep.
 */
void lite_prio_begin(int prio)
{
	unsigned int wait_us = READ_ONCE(lite_prio_low_max_wait_us);

	if (prio == LITE_PRIO_HIGH && wait_us)
		atomic_inc(&lite_prio_high);
	else if (prio == LITE_PRIO_LOW && wait_us && atomic_read(&lite_prio_high))
		wait_event_timeout(lite_prio_wq, !atomic_read(&lite_prio_high),
				   usecs_to_jiffies(wait_us));
}

/**
 * lite_prio_end() - the operation lite_prio_begin(@prio) started has ended
 * @prio: LITE_PRIO_*
 */
void lite_prio_end(int prio)
{
	/* Switching priorities off with operations in flight must not skew. */
	if (prio == LITE_PRIO_HIGH && atomic_add_unless(&lite_prio_high, -1, 0) &&
	    !atomic_read(&lite_prio_high))
		wake_up_all(&lite_prio_wq);
}
