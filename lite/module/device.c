// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA device LITE runs on, one per node: of the devices ib_core
 * announces (ib_register_client), the one device= names, else the first
 * whose port is ACTIVE when it appears or becomes so later (at load, or
 * once its driver registered it anew after a reset). Its PD reaches only
 * LITE's memory pool (pool.c), unless loaded with unsafe_global_rkey=1;
 * one CQ serves every QP of the pool (cq.c).
 */
#include <linux/inet.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "lite_priv.h"

/*
 * How often devices whose port is not ACTIVE are looked at again while
 * none is taken: a PORT_ACTIVE event can be lost (mlx5 raises none until
 * its registration has finished, which our add runs inside of).
 */
#define LITE_DEV_RESCAN		(5 * HZ)

/* Fault injection: the fallbacks for devices without atomics, on any. */
static bool lite_fault_no_atomic;
module_param_named(fault_no_atomic, lite_fault_no_atomic, bool, 0444);
MODULE_PARM_DESC(fault_no_atomic, "tests: act as if the device had no RDMA atomics (atomic_cap NONE): QPs without remote atomic access, atomics on the owner's CPU (default: N)");

/* fabric_ip as a GID (IPv4-mapped or IPv6); all zero without one. */
static union ib_gid lite_fabric_gid;

/*
 * A device LITE could run on (lite_dev_usable()), taken or not: its
 * handler sees its port come up, so that one not ACTIVE when it appeared
 * (at load, or re-registered after a reset) is taken once it is.
 */
struct lite_cand {
	struct list_head	list;		/* lite_cands */
	struct ib_device	*ibdev;
	struct ib_event_handler	handler;
};

static DEFINE_MUTEX(lite_dev_lock);
static struct lite_dev *lite_dev;	/* protected by lite_dev_lock */
static bool lite_dev_dying;		/* protected by lite_dev_lock */
static bool lite_dev_exiting;		/* protected by lite_dev_lock */
static LIST_HEAD(lite_cands);		/* protected by lite_dev_lock */

static void lite_dev_scan(struct work_struct *work);
static DECLARE_DELAYED_WORK(lite_dev_scan_work, lite_dev_scan);

/* Read-only once the module is loaded: its pointers cannot be changed. */
struct lite_dev_ops lite_dev_ops __ro_after_init;
struct lite_rx_ops lite_rx_ops __ro_after_init;

/*
 * Work that takes the membership lock: device events and peers' QP
 * reconnections (qp_conn.c). lite_ctrl_flush() runs under that lock, so
 * not on ctrl.c's queue. Also looking for a device to take.
 */
struct workqueue_struct *lite_dev_wq __ro_after_init;

static void lite_dev_free(struct lite_dev *dev)
{
	if (!dev)
		return;
	lite_cq_destroy(dev);
	lite_cq_fini(dev);
	/* The CQ's error event may have queued it; no event comes now. */
	cancel_work_sync(&dev->event_work);
	if (dev->pd)
		ib_dealloc_pd(dev->pd);
	kfree(dev);
}

static void lite_dev_event_work(struct work_struct *work)
{
	struct lite_dev *dev = container_of(work, struct lite_dev, event_work);

	lite_dev_ops.event(dev, xchg(&dev->events, 0));
}

/**
 * lite_dev_raise() - hand @ev to the layer above, from a work item
 * @dev: the device
 * @ev: a LITE_DEV_EV_* number
 *
 * Context: any.
 */
void lite_dev_raise(struct lite_dev *dev, int ev)
{
	set_bit(ev, &dev->events);
	queue_work(lite_dev_wq, &dev->event_work);
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
		/* Unusable until its driver resets it: it registers anew. */
		WRITE_ONCE(dev->fatal, true);
		break;
	default:
		return;
	}
	if (ev != LITE_DEV_EV_FATAL && event->element.port_num != dev->port)
		return;
	pr_info("%s port %u: %s\n", dev_name(&dev->ibdev->dev), dev->port,
		ib_event_msg(event->event));
	lite_dev_raise(dev, ev);
}

/*
 * Can LITE run on @ibdev at all (device=, the port, RDMA reads, a CQ for
 * one peer's QPs)? Whether its port is up is asked when it is taken.
 */
static bool lite_dev_usable(struct ib_device *ibdev)
{
	const char *name = dev_name(&ibdev->dev);
	int one = lite_param_qps_per_peer * LITE_QP_CQES + LITE_CQ_LOOPBACK;

	if (*lite_param_device && strcmp(name, lite_param_device))
		return false;
	if (lite_param_port < rdma_start_port(ibdev) ||
	    lite_param_port > rdma_end_port(ibdev)) {
		pr_warn("%s has no port %u: not used\n", name, lite_param_port);
		return false;
	}
	/* Reads are how LITE moves data: a device without them is no use. */
	if (ibdev->attrs.max_qp_rd_atom < 1 ||
	    ibdev->attrs.max_qp_init_rd_atom < 1) {
		pr_warn("%s takes no RDMA reads (max_qp_rd_atom %d, max_qp_init_rd_atom %d): not used\n",
			name, ibdev->attrs.max_qp_rd_atom,
			ibdev->attrs.max_qp_init_rd_atom);
		return false;
	}
	if (ibdev->attrs.max_cqe < one) {
		pr_warn("%s: a CQ holds at most %d completions, fewer than one peer's %u QPs need (%d): not used\n",
			name, ibdev->attrs.max_cqe, lite_param_qps_per_peer,
			one);
		return false;
	}
	return true;
}

/*
 * Is @ibdev's port one to take now? With device=, the device named is
 * taken whatever its port's state (joins wait for it, lite_device_get());
 * without, only a device whose port is ACTIVE: a host's other RDMA
 * devices (a management port, a down link) are not LITE's fabric.
 */
static bool lite_dev_port_ready(struct ib_device *ibdev, bool say)
{
	struct ib_port_attr attr;
	int ret;

	if (*lite_param_device)
		return true;
	ret = ib_query_port(ibdev, lite_param_port, &attr);
	if (!ret && attr.state == IB_PORT_ACTIVE)
		return true;
	if (say && ret)
		pr_info("%s port %u cannot be read (%d): taken once it is ACTIVE (device=%s takes it now)\n",
			dev_name(&ibdev->dev), lite_param_port, ret,
			dev_name(&ibdev->dev));
	else if (say)
		pr_info("%s port %u is not ACTIVE (state %d): taken once it is (device=%s takes it now)\n",
			dev_name(&ibdev->dev), lite_param_port, attr.state,
			dev_name(&ibdev->dev));
	return false;
}

/*
 * The depth of our one CQ: a completion for every work request every QP
 * can have posted (or not yet polled), for every peer there can be and
 * the loopback QPs, or what the device's CQs hold if less (then peers
 * beyond its room are refused, lite_cq_reserve()).
 */
static int lite_dev_cq_depth(struct ib_device *ibdev)
{
	int need = (LITE_MAX_NODES - 1) * lite_param_qps_per_peer *
		   LITE_QP_CQES + LITE_CQ_LOOPBACK;
	int depth = min(need, ibdev->attrs.max_cqe);

	if (depth < need)
		pr_warn("%s: a CQ holds at most %d completions: room for %d peers of %u QPs, not %d; more are refused (a smaller qps_per_peer on every node makes room)\n",
			dev_name(&ibdev->dev), ibdev->attrs.max_cqe,
			(depth - LITE_CQ_LOOPBACK) /
			(int)(lite_param_qps_per_peer * LITE_QP_CQES),
			lite_param_qps_per_peer, LITE_MAX_NODES - 1);
	return depth;
}

/* Take @ibdev: its PD, CQ and event handler. Under lite_dev_lock. */
static int lite_dev_take(struct ib_device *ibdev)
{
	struct lite_dev *dev;
	int depth, ret;

	lockdep_assert_held(&lite_dev_lock);
	/* On the NIC's NUMA node, as the buffers it reads and writes. */
	dev = kzalloc_node(sizeof(*dev), GFP_KERNEL, dev_to_node(&ibdev->dev));
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	dev->node = dev_to_node(&ibdev->dev);
	atomic_set(&dev->users, 1);
	INIT_WORK(&dev->event_work, lite_dev_event_work);
	lite_cq_init(dev);
	dev->port = lite_param_port;
	dev->link_layer = rdma_port_get_link_layer(ibdev, dev->port);
	/*
	 * What our QPs take as responders; peers size their reads to it. A
	 * power of two: requesters round theirs up to one (mlx5, rxe).
	 */
	dev->rd_atom = rounddown_pow_of_two(min(ibdev->attrs.max_qp_rd_atom,
						LITE_RD_ATOMIC));

	dev->pd = ib_alloc_pd(ibdev, lite_param_unsafe_global_rkey ?
				 IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(dev->pd)) {
		ret = PTR_ERR(dev->pd);
		dev->pd = NULL;
		pr_err("%s: ib_alloc_pd failed: %d\n", dev_name(&ibdev->dev), ret);
		goto err_free;
	}
	depth = lite_dev_cq_depth(ibdev);
	ret = lite_cq_create(dev, depth);
	if (ret) {
		pr_err("%s: ib_create_cq(%d) failed: %d\n", dev_name(&ibdev->dev),
		       depth, ret);
		goto err_free;
	}
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev, lite_dev_event);
	ib_register_event_handler(&dev->event_handler);
	lite_dev = dev;
	lite_dev_dying = false;
	pr_info("using %s port %u\n", dev_name(&ibdev->dev), dev->port);
	if (lite_param_unsafe_global_rkey)
		pr_warn("unsafe_global_rkey=1: every peer can read and write all memory of this node that %s can reach, not only LITE's (docs/security.md)\n",
			dev_name(&ibdev->dev));
	return 0;

err_free:
	lite_dev_free(dev);
	return ret;
}

/*
 * No device taken: take the first candidate whose port is ready. Looks
 * again every LITE_DEV_RESCAN while one is not, as long as none is taken.
 */
static void lite_dev_scan(struct work_struct *work)
{
	struct lite_cand *c;
	bool waiting = false;

	mutex_lock(&lite_dev_lock);
	if (lite_dev || lite_dev_exiting)
		goto out;
	list_for_each_entry(c, &lite_cands, list) {
		if (!lite_dev_port_ready(c->ibdev, false)) {
			waiting = true;
			continue;
		}
		if (!lite_dev_take(c->ibdev))
			goto out;
	}
	if (waiting)
		queue_delayed_work(lite_dev_wq, &lite_dev_scan_work,
				   LITE_DEV_RESCAN);
out:
	mutex_unlock(&lite_dev_lock);
}

/*
 * A candidate's port came up: take it unless a device is taken. Through
 * the scan, which asks the port again (the event is queued: stale).
 */
static void lite_cand_event(struct ib_event_handler *handler,
			    struct ib_event *event)
{
	if (event->event == IB_EVENT_PORT_ACTIVE &&
	    event->element.port_num == lite_param_port)
		mod_delayed_work(lite_dev_wq, &lite_dev_scan_work, 0);
}

static int lite_add_one(struct ib_device *ibdev)
{
	struct lite_cand *c;

	if (!lite_dev_usable(ibdev))
		return -EOPNOTSUPP;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->ibdev = ibdev;
	/* First: a PORT_ACTIVE after the look below is seen. */
	INIT_IB_EVENT_HANDLER(&c->handler, ibdev, lite_cand_event);
	ib_register_event_handler(&c->handler);

	mutex_lock(&lite_dev_lock);
	list_add_tail(&c->list, &lite_cands);
	if (!lite_dev && !lite_dev_exiting) {
		/* Not sooner than a scan already queued. */
		if (!lite_dev_port_ready(ibdev, true))
			queue_delayed_work(lite_dev_wq, &lite_dev_scan_work,
					   LITE_DEV_RESCAN);
		else if (lite_dev_take(ibdev))
			pr_err("%s: not taken; tried again when its port next becomes ACTIVE\n",
			       dev_name(&ibdev->dev));
	}
	mutex_unlock(&lite_dev_lock);
	return 0;
}

static void lite_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct lite_cand *c, *found = NULL;
	struct lite_dev *dev;

	mutex_lock(&lite_dev_lock);
	list_for_each_entry(c, &lite_cands, list) {
		if (c->ibdev == ibdev) {
			found = c;
			break;
		}
	}
	/* No scan sees it from now on. */
	if (found)
		list_del(&found->list);
	if (!lite_dev || lite_dev->ibdev != ibdev) {
		mutex_unlock(&lite_dev_lock);
		goto out;
	}
	lite_dev_dying = true;
	dev = lite_dev;
	mutex_unlock(&lite_dev_lock);
	/* Waiters sleep from now on: the CQ goes with the device. */
	lite_cq_stop_spinners(dev);
	ib_unregister_event_handler(&dev->event_handler);
	cancel_work_sync(&dev->event_work);

	/* Everything built on the device goes first: peers, QPs, socket. */
	lite_dev_ops.removed();

	mutex_lock(&lite_dev_lock);
	dev = lite_dev;
	lite_dev = NULL;
	/* Another device whose port is up can be taken now. */
	if (!lite_dev_exiting)
		mod_delayed_work(lite_dev_wq, &lite_dev_scan_work, 0);
	mutex_unlock(&lite_dev_lock);
	/* RPC calls whose peer left still sync their reply buffers. */
	lite_dev_put(dev);
	wait_var_event(&dev->users, !atomic_read(&dev->users));
	pr_info("detached from %s\n", dev_name(&ibdev->dev));
	lite_dev_free(dev);
out:
	if (found) {
		ib_unregister_event_handler(&found->handler);
		kfree(found);
	}
}

static struct ib_client lite_client = {
	.name	= "lite",
	.add	= lite_add_one,
	.remove	= lite_remove_one,
};

/* Which GID to prefer on RoCE, 0 for none: routable v2 above all. */
static int lite_gid_rank(const struct ib_gid_attr *attr)
{
	const struct in6_addr *a = (const struct in6_addr *)attr->gid.raw;

	if (ipv6_addr_any(a))
		return 0;
	if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return 1;	/* RoCE v1: one L2 domain only */
	if (ipv6_addr_v4mapped(a))
		return 4;
	return ipv6_addr_type(a) & IPV6_ADDR_LINKLOCAL ? 2 : 3;
}

/*
 * The GID our QPs use: gid_index if given; on InfiniBand the port GID;
 * on RoCE the RoCE v2 GID of fabric_ip, or without one the best ranked
 * (lite_gid_rank()). The table changes as addresses come and go, so this
 * is asked at every join. Return: the entry, held, or an ERR_PTR.
 */
static const struct ib_gid_attr *lite_dev_pick_gid(struct lite_dev *dev)
{
	const struct ib_gid_attr *attr, *best = NULL;
	int i, rank, best_rank = 0;

	if (lite_param_gid_index >= 0)
		return rdma_get_gid_attr(dev->ibdev, dev->port,
					 lite_param_gid_index);
	if (dev->link_layer != IB_LINK_LAYER_ETHERNET)
		return rdma_get_gid_attr(dev->ibdev, dev->port, 0);
	if (!ipv6_addr_any((struct in6_addr *)lite_fabric_gid.raw)) {
		attr = rdma_find_gid_by_port(dev->ibdev, &lite_fabric_gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP,
					     dev->port, NULL);
		if (IS_ERR(attr))
			pr_err("%s port %u has no RoCE v2 GID for fabric_ip %s: is the address on the port's netdev?\n",
			       dev_name(&dev->ibdev->dev), dev->port,
			       lite_param_fabric_ip);
		return attr;
	}
	/* A GID index is a u8 in an address vector. */
	for (i = 0; i < 256; i++) {
		attr = rdma_get_gid_attr(dev->ibdev, dev->port, i);
		if (PTR_ERR_OR_ZERO(attr) == -EINVAL)
			break;		/* past the table's end */
		if (IS_ERR(attr))
			continue;	/* an empty entry */
		rank = lite_gid_rank(attr);
		if (rank > best_rank) {
			swap(attr, best);
			best_rank = rank;
		}
		if (attr)
			rdma_put_gid_attr(attr);
	}
	return best ?: ERR_PTR(-EADDRNOTAVAIL);
}

/**
 * lite_device_get() - the device LITE runs on, with its addressing refreshed
 *
 * Context: process context; the caller holds the membership lock, which
 * device removal takes before freeing the device.
 * Return: the device, or an ERR_PTR: -ENODEV when none is attached,
 * -ENETDOWN when its port is not ACTIVE, it had a fatal error or its
 * failed CQ cannot be replaced, -EADDRNOTAVAIL without a GID.
 */
struct lite_dev *lite_device_get(void)
{
	const struct ib_gid_attr *gid_attr;
	struct ib_port_attr attr;
	struct lite_dev *dev;
	int ret;

	mutex_lock(&lite_dev_lock);
	dev = lite_dev_dying ? NULL : lite_dev;
	mutex_unlock(&lite_dev_lock);
	if (!dev)
		return ERR_PTR(-ENODEV);
	if (READ_ONCE(dev->fatal)) {
		pr_err("%s had a fatal error: not used until its driver has reset it (it registers the device anew)\n",
		       dev_name(&dev->ibdev->dev));
		return ERR_PTR(-ENETDOWN);
	}
	/* Not joined: no QP is on the CQ, a failed one can be replaced. */
	if (lite_cq_renew(dev))
		return ERR_PTR(-ENETDOWN);

	ret = ib_query_port(dev->ibdev, dev->port, &attr);
	if (ret)
		return ERR_PTR(ret);
	if (attr.state != IB_PORT_ACTIVE)
		return ERR_PTR(-ENETDOWN);
	dev->lid = attr.lid;
	dev->mtu = attr.active_mtu;
	gid_attr = lite_dev_pick_gid(dev);
	if (IS_ERR(gid_attr)) {
		pr_err("%s port %u: no GID to use (gid_index %d): %ld\n",
		       dev_name(&dev->ibdev->dev), dev->port,
		       lite_param_gid_index, PTR_ERR(gid_attr));
		return ERR_PTR(-EADDRNOTAVAIL);
	}
	/* An address vector names the GID by a u8. */
	if (gid_attr->index > U8_MAX) {
		pr_err("GID index %u of %s is above 255: not usable in an address vector\n",
		       gid_attr->index, dev_name(&dev->ibdev->dev));
		rdma_put_gid_attr(gid_attr);
		return ERR_PTR(-EADDRNOTAVAIL);
	}
	/* Read by debugfs lite/qps without the membership lock. */
	WRITE_ONCE(dev->gid_index, gid_attr->index);
	dev->gid = gid_attr->gid;
	dev->gid_type = gid_attr->gid_type;
	rdma_put_gid_attr(gid_attr);
	pr_info("%s port %u: GID index %u, %pI6 (%s)\n",
		dev_name(&dev->ibdev->dev), dev->port, dev->gid_index,
		dev->gid.raw, dev->link_layer != IB_LINK_LAYER_ETHERNET ? "IB" :
		dev->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ? "RoCE v2" :
		"RoCE v1");
	return dev;
}

/**
 * lite_dev_gid_attr() - our GID's table entry, if it still holds our GID
 * @dev: the device, its GID chosen at the join (lite_device_get())
 *
 * The table changes as addresses come and go: an index can be reused,
 * even for the same address as RoCE v1.
 *
 * Return: the entry, held (rdma_put_gid_attr()), or ERR_PTR(-EADDRNOTAVAIL)
 * when it no longer holds the GID and type peers know us by.
 */
const struct ib_gid_attr *lite_dev_gid_attr(struct lite_dev *dev)
{
	const struct ib_gid_attr *attr;

	attr = rdma_get_gid_attr(dev->ibdev, dev->port, dev->gid_index);
	if (IS_ERR(attr))
		return ERR_PTR(-EADDRNOTAVAIL);
	if (memcmp(attr->gid.raw, dev->gid.raw, sizeof(attr->gid.raw)) ||
	    attr->gid_type != dev->gid_type) {
		rdma_put_gid_attr(attr);
		return ERR_PTR(-EADDRNOTAVAIL);
	}
	return attr;
}

/**
 * lite_parse_fabric_ip() - take @s (fabric_ip) as the address to pick a GID by
 * @s: an IPv4 or IPv6 address, or "" for none
 *
 * Return: 0, or -EINVAL when @s is neither.
 */
int lite_parse_fabric_ip(const char *s)
{
	struct in6_addr *a6 = (struct in6_addr *)lite_fabric_gid.raw;
	__be32 a4;

	memset(&lite_fabric_gid, 0, sizeof(lite_fabric_gid));
	if (!*s)
		return 0;
	if (in4_pton(s, -1, (u8 *)&a4, -1, NULL)) {
		ipv6_addr_set_v4mapped(a4, a6);
		return 0;
	}
	if (in6_pton(s, -1, a6->s6_addr, -1, NULL) && !ipv6_addr_any(a6))
		return 0;
	memset(&lite_fabric_gid, 0, sizeof(lite_fabric_gid));
	return -EINVAL;
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

/* No device is taken from now on; a scan queued or running is done. */
static void lite_dev_stop_scan(void)
{
	mutex_lock(&lite_dev_lock);
	lite_dev_exiting = true;
	mutex_unlock(&lite_dev_lock);
	cancel_delayed_work_sync(&lite_dev_scan_work);
}

int lite_device_init(void)
{
	int ret;

	lite_dev_wq = alloc_workqueue("lite_dev", WQ_UNBOUND, 0);
	if (!lite_dev_wq)
		return -ENOMEM;
	ret = ib_register_client(&lite_client);
	if (ret) {
		lite_dev_stop_scan();
		destroy_workqueue(lite_dev_wq);
		return ret;
	}
	mutex_lock(&lite_dev_lock);
	if (!lite_dev)
		pr_warn("no RDMA device to use yet: LITE takes %s%s\n",
			*lite_param_device ? lite_param_device :
			"the first whose port is or becomes ACTIVE",
			*lite_param_device ? " when it appears" :
			" (or the one device= names)");
	mutex_unlock(&lite_dev_lock);
	return 0;
}

void lite_device_exit(void)
{
	mutex_lock(&lite_dev_lock);
	lite_dev_exiting = true;
	mutex_unlock(&lite_dev_lock);
	/* Every device's remove: their handlers queue no scan after it. */
	ib_unregister_client(&lite_client);
	lite_dev_stop_scan();
	destroy_workqueue(lite_dev_wq);
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
	if (dev->link_layer != IB_LINK_LAYER_ETHERNET)
		addr->gid_type = LITE_GID_IB;
	else if (dev->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		addr->gid_type = LITE_GID_ROCE_V2;
	else
		addr->gid_type = LITE_GID_ROCE_V1;
	addr->rd_atom = dev->rd_atom;
}
