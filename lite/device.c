// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA device LITE runs on: found through ib_register_client, one per
 * node. Its PD reaches only LITE's memory pool (pool.c), unless loaded with
 * unsafe_global_rkey=1; one CQ serves every QP of the pool (cq.c).
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "lite_priv.h"

/*
 * rx and tx entries of every QP of every peer, with room for the hello and
 * the drain WRs, and of the two loopback QPs (pool.c's and atomic.c's:
 * 2 + 2 + drains)
 */
#define LITE_CQ_DEPTH \
	((LITE_MAX_NODES - 1) * LITE_MAX_QPS_PER_PEER * \
	 (LITE_RX_DEPTH + LITE_TX_DEPTH + 3) + 8)

/* Fault injection: the fallbacks for devices without atomics, on any. */
static bool lite_fault_no_atomic;
module_param_named(fault_no_atomic, lite_fault_no_atomic, bool, 0444);
MODULE_PARM_DESC(fault_no_atomic, "tests: act as if the device had no RDMA atomics (atomic_cap NONE): QPs without remote atomic access, atomics on the owner's CPU (default: N)");

static DEFINE_MUTEX(lite_dev_lock);
static struct lite_dev *lite_dev;	/* protected by lite_dev_lock */
static bool lite_dev_dying;		/* protected by lite_dev_lock */

static void lite_dev_free(struct lite_dev *dev)
{
	if (!dev)
		return;
	lite_cq_destroy(dev);
	if (dev->pd)
		ib_dealloc_pd(dev->pd);
	kfree(dev);
}

static void lite_dev_event_work(struct work_struct *work)
{
	struct lite_dev *dev = container_of(work, struct lite_dev, event_work);

	lite_membership_dev_event(dev, xchg(&dev->events, 0));
}

/*
 * Port state, address table and fatal events of our port; what they ask
 * (re-reading the port, re-resolving peers, reconnecting QPs) sleeps, so
 * it runs in a work item.
 */
static void lite_dev_event(struct ib_event_handler *handler,
			   struct ib_event *event)
{
	struct lite_dev *dev = container_of(handler, struct lite_dev,
					    event_handler);
	int ev;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
		ev = LITE_DEV_EV_PORT;
		break;
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		ev = LITE_DEV_EV_ADDR;
		break;
	case IB_EVENT_DEVICE_FATAL:
		ev = LITE_DEV_EV_FATAL;
		break;
	default:
		return;
	}
	if (ev != LITE_DEV_EV_FATAL && event->element.port_num != dev->port)
		return;
	pr_info("%s port %u: %s\n", dev_name(&dev->ibdev->dev), dev->port,
		ib_event_msg(event->event));
	set_bit(ev, &dev->events);
	lite_ctrl_queue_membership(&dev->event_work);
}

static int lite_add_one(struct ib_device *ibdev)
{
	struct lite_dev *dev;
	int cqe, ret;

	if (*lite_param_device && strcmp(dev_name(&ibdev->dev), lite_param_device))
		return -EOPNOTSUPP;
	if (lite_param_port < rdma_start_port(ibdev) ||
	    lite_param_port > rdma_end_port(ibdev)) {
		pr_warn("%s has no port %u\n", dev_name(&ibdev->dev), lite_param_port);
		return -EOPNOTSUPP;
	}

	mutex_lock(&lite_dev_lock);
	if (lite_dev) {
		mutex_unlock(&lite_dev_lock);
		return -EOPNOTSUPP;	/* one device per node */
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	dev->ibdev = ibdev;
	atomic_set(&dev->users, 1);
	dev->port = lite_param_port;
	dev->gid_index = lite_param_gid_index;
	dev->link_layer = rdma_port_get_link_layer(ibdev, dev->port);

	dev->pd = ib_alloc_pd(ibdev, lite_param_unsafe_global_rkey ?
				 IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(dev->pd)) {
		ret = PTR_ERR(dev->pd);
		dev->pd = NULL;
		pr_err("%s: ib_alloc_pd failed: %d\n", dev_name(&ibdev->dev), ret);
		goto err_free;
	}
	cqe = min(LITE_CQ_DEPTH, ibdev->attrs.max_cqe);
	ret = lite_cq_create(dev, cqe);
	if (ret) {
		pr_err("%s: ib_create_cq(%d) failed: %d\n", dev_name(&ibdev->dev), cqe, ret);
		goto err_free;
	}
	INIT_WORK(&dev->event_work, lite_dev_event_work);
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev, lite_dev_event);
	ib_register_event_handler(&dev->event_handler);
	lite_dev = dev;
	lite_dev_dying = false;
	mutex_unlock(&lite_dev_lock);
	pr_info("using %s port %u\n", dev_name(&ibdev->dev), dev->port);
	if (lite_param_unsafe_global_rkey)
		pr_warn("unsafe_global_rkey=1: every peer can read and write all memory of this node that %s can reach, not only LITE's (docs/security.md)\n",
			dev_name(&ibdev->dev));
	return 0;

err_free:
	lite_dev_free(dev);
err_unlock:
	mutex_unlock(&lite_dev_lock);
	return ret;
}

static void lite_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct lite_dev *dev;

	mutex_lock(&lite_dev_lock);
	if (!lite_dev || lite_dev->ibdev != ibdev) {
		mutex_unlock(&lite_dev_lock);
		return;
	}
	lite_dev_dying = true;
	dev = lite_dev;
	mutex_unlock(&lite_dev_lock);
	/* Waiters sleep from now on: the CQ goes with the device. */
	lite_cq_stop_spinners(dev);
	ib_unregister_event_handler(&dev->event_handler);
	cancel_work_sync(&dev->event_work);

	/* Everything built on the device goes first: peers, QPs, socket. */
	lite_membership_exit();

	mutex_lock(&lite_dev_lock);
	dev = lite_dev;
	lite_dev = NULL;
	mutex_unlock(&lite_dev_lock);
	/* RPC calls whose peer left still sync their reply buffers. */
	lite_dev_put(dev);
	wait_var_event(&dev->users, !atomic_read(&dev->users));
	pr_info("detached from %s\n", dev_name(&ibdev->dev));
	lite_dev_free(dev);
}

static struct ib_client lite_client = {
	.name	= "lite",
	.add	= lite_add_one,
	.remove	= lite_remove_one,
};

/**
 * lite_device_get() - the device LITE runs on, with its addressing refreshed
 *
 * Context: process context; the caller holds the membership lock, which
 * device removal takes before freeing the device.
 * Return: the device, or an ERR_PTR: -ENODEV when none is attached,
 * -ENETDOWN when its port is not ACTIVE, -EADDRNOTAVAIL without a GID.
 */
struct lite_dev *lite_device_get(void)
{
	struct ib_port_attr attr;
	struct lite_dev *dev;
	int ret;

	mutex_lock(&lite_dev_lock);
	dev = lite_dev_dying ? NULL : lite_dev;
	mutex_unlock(&lite_dev_lock);
	if (!dev)
		return ERR_PTR(-ENODEV);

	ret = ib_query_port(dev->ibdev, dev->port, &attr);
	if (ret)
		return ERR_PTR(ret);
	if (attr.state != IB_PORT_ACTIVE)
		return ERR_PTR(-ENETDOWN);
	dev->lid = attr.lid;
	dev->mtu = attr.active_mtu;
	ret = rdma_query_gid(dev->ibdev, dev->port, dev->gid_index, &dev->gid);
	if (ret || (dev->link_layer == IB_LINK_LAYER_ETHERNET &&
		    ipv6_addr_any((struct in6_addr *)dev->gid.raw)))
		return ERR_PTR(-EADDRNOTAVAIL);
	return dev;
}

/**
 * lite_dev_atomics() - may LITE's QPs and memory use RDMA atomics on @dev?
 * @dev: the device
 *
 * Not where the device has none: mlx5 refuses a QP's RTR with remote
 * atomic access on a function without them.
 */
bool lite_dev_atomics(const struct lite_dev *dev)
{
	return dev->ibdev->attrs.atomic_cap != IB_ATOMIC_NONE &&
	       !lite_fault_no_atomic;
}

/* Keep @dev (and its ib_device) until lite_dev_put(). */
void lite_dev_hold(struct lite_dev *dev)
{
	atomic_inc(&dev->users);
}

/* Any context. */
void lite_dev_put(struct lite_dev *dev)
{
	if (atomic_dec_and_test(&dev->users))
		wake_up_var(&dev->users);
}

int lite_device_init(void)
{
	return ib_register_client(&lite_client);
}

void lite_device_exit(void)
{
	ib_unregister_client(&lite_client);
}

/**
 * lite_dev_port_addr() - how peers address our port
 * @dev: the device, its addressing refreshed by lite_device_get()
 * @addr: filled
 */
void lite_dev_port_addr(struct lite_dev *dev, struct lite_port_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	memcpy(addr->gid, dev->gid.raw, sizeof(addr->gid));
	addr->lid = cpu_to_le16(dev->lid);
	addr->link_layer = dev->link_layer == IB_LINK_LAYER_ETHERNET ?
			   LITE_LINK_ETHERNET : LITE_LINK_IB;
	addr->mtu = dev->mtu;
}
