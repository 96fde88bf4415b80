// SPDX-License-Identifier: GPL-2.0
/*
 * Address vectors: how our RC QPs address a port.
 *
 * On InfiniBand the LID is the whole address. On RoCE the QP context needs
 * the GID and the Ethernet address of the next hop, and ib_core resolves
 * that address only for QPs created from user space (ib_resolve_eth_dmac()
 * in _ib_modify_qp(): "kernel users have to provide already resolved
 * rdma_ah_attr's"). mlx4, mlx5, bnxt_re and irdma copy ah_attr.roce.dmac
 * into the QP context as given, so a zero MAC sends every frame to
 * 00:00:00:00:00:00; only rxe, which routes by IP, would not notice. So the
 * module resolves it itself, with rdma_resolve_ip() bound to the GID's own
 * net device (as rdma_cm does for its users): a neighbour on the subnet
 * gives its MAC, a routed peer the gateway's, and the route its hop limit.
 */
#include <linux/etherdevice.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "lite_priv.h"

/*
 * A neighbour that does not answer ARP or ND within this is unreachable:
 * longer than the kernel's own verdict (3 probes a second apart).
 */
#define LITE_AV_RESOLVE_MS	5000
#define LITE_AV_HOP_LIMIT	64	/* our own port; and when no route says */

struct lite_av_wait {
	struct completion	done;
	int			status;
};

static void lite_av_resolved(int status, struct sockaddr *src,
			     struct rdma_dev_addr *da, void *context)
{
	struct lite_av_wait *w = context;

	w->status = status;
	complete(&w->done);
}

/* Resolve @dgid's next hop from the source GID @sgid_attr into @av. */
static int lite_av_resolve_ip(const struct ib_gid_attr *sgid_attr,
			      const union ib_gid *dgid, struct lite_av *av)
{
	struct sockaddr_storage src, dst;
	struct rdma_dev_addr da = {
		.net		= &init_net,	/* replaced by the GID's netdev's */
		.sgid_attr	= sgid_attr,
	};
	struct lite_av_wait w;
	int ret;

	rdma_gid2ip((struct sockaddr *)&src, &sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&dst, dgid);
	init_completion(&w.done);
	ret = rdma_resolve_ip((struct sockaddr *)&src,
			      (struct sockaddr *)&dst, &da, LITE_AV_RESOLVE_MS,
			      lite_av_resolved, true, &w);
	if (ret)
		return ret;
	/* ib_core times the request out itself; this is a backstop. */
	if (wait_for_completion_timeout(&w.done,
			msecs_to_jiffies(LITE_AV_RESOLVE_MS + 1000))) {
		ret = w.status;
	} else {
		/* On return the callback has run or never will. */
		rdma_addr_cancel(&da);
		ret = -ETIMEDOUT;
	}
	if (ret)
		return ret;
	/* RoCE v1 frames are not routed: a gateway cannot forward them. */
	if (sgid_attr->gid_type == IB_GID_TYPE_ROCE &&
	    da.network != RDMA_NETWORK_IB)
		return -EHOSTUNREACH;
	ether_addr_copy(av->dmac, da.dst_dev_addr);
	av->hop_limit = da.hoplimit > 0 && da.hoplimit <= 255 ? da.hoplimit :
			LITE_AV_HOP_LIMIT;
	return 0;
}

/**
 * lite_av_resolve() - the address vector's parts towards a port
 * @dev: our device
 * @addr: the port (a peer's, or our own)
 * @av: filled: the path MTU; on Ethernet the GID type, the next hop's MAC
 *	(our own for our own port: rxe loops a packet back only when it is
 *	addressed to itself) and the hop limit
 *
 * Context: process context; sleeps up to about five seconds (ARP or ND).
 * Return: 0, or a negative errno when a RoCE peer's MAC is not known (the
 * caller must not connect to it): -EADDRNOTAVAIL if our GID changed since
 * the node joined (peers know us by the old one).
 */
int lite_av_resolve(struct lite_dev *dev, const struct lite_port_addr *addr,
		    struct lite_av *av)
{
	const struct ib_gid_attr *sgid_attr;
	union ib_gid dgid;
	u16 vlan;
	int ret;

	memset(av, 0, sizeof(*av));
	av->mtu = min_t(enum ib_mtu, dev->mtu, addr->mtu);
	if (addr->link_layer != LITE_LINK_ETHERNET)
		return 0;
	sgid_attr = lite_dev_gid_attr(dev);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	av->gid_type = sgid_attr->gid_type;
	memcpy(dgid.raw, addr->gid, sizeof(dgid.raw));
	if (!memcmp(dgid.raw, dev->gid.raw, sizeof(dgid.raw))) {
		ret = rdma_read_gid_l2_fields(sgid_attr, &vlan, av->dmac);
		av->hop_limit = LITE_AV_HOP_LIMIT;
	} else {
		ret = lite_av_resolve_ip(sgid_attr, &dgid, av);
	}
	rdma_put_gid_attr(sgid_attr);
	if (!ret && is_zero_ether_addr(av->dmac))
		ret = -EHOSTUNREACH;
	return ret;
}

/**
 * lite_fill_av() - the address vector that reaches @addr from @dev
 * @dev: our device
 * @addr: a port's address (a peer's, or our own)
 * @av: its next hop, from lite_av_resolve()
 * @ah: filled; on Ethernet with our GID's entry held in ah->grh.sgid_attr,
 *	so the QP binds the entry checked here even if the table changes:
 *	the caller drops it (rdma_put_gid_attr()) after ib_modify_qp()
 *
 * Return: 0, -EHOSTUNREACH on Ethernet without a next-hop MAC (a RoCE NIC
 * would send to the zero MAC), or -EADDRNOTAVAIL if our GID's entry no
 * longer holds the GID and type we joined with.
 */
int lite_fill_av(struct lite_dev *dev, const struct lite_port_addr *addr,
		 const struct lite_av *av, struct rdma_ah_attr *ah)
{
	const struct ib_gid_attr *sgid_attr;
	union ib_gid dgid;

	ah->type = rdma_ah_find_type(dev->ibdev, dev->port);
	rdma_ah_set_port_num(ah, dev->port);
	rdma_ah_set_sl(ah, READ_ONCE(lite_param_sl));
	if (addr->link_layer != LITE_LINK_ETHERNET) {
		rdma_ah_set_dlid(ah, le16_to_cpu(addr->lid));
		return 0;
	}
	if (is_zero_ether_addr(av->dmac))
		return -EHOSTUNREACH;
	sgid_attr = lite_dev_gid_attr(dev);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	memcpy(dgid.raw, addr->gid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah, &dgid, 0, dev->gid_index, av->hop_limit,
			READ_ONCE(lite_param_tclass));
	ah->grh.sgid_attr = sgid_attr;	/* after: rdma_ah_set_grh() clears it */
	ether_addr_copy(ah->roce.dmac, av->dmac);
	return 0;
}

/**
 * lite_av_show() - @peer's QPs and their address vectors, one line per QP
 * @m: the seq_file
 * @peer: a peer whose QPs are up, held by the caller
 *
 * The fields are what LITE passed to ib_modify_qp() (rxe's query_qp does
 * not return the MAC), with where each QP is in its handshake (qp_conn.c)
 * and how often it was reconnected.
 */
void lite_av_show(struct seq_file *m, struct lite_peer *peer)
{
	const struct lite_av *av = &peer->av;
	unsigned int i;

	for (i = 0; i < peer->nr_qps; i++) {
		const struct lite_qp *lqp = &peer->qps[i];

		seq_printf(m, "peer=%u qp=%u qpn=%u dqpn=%u state=%s epoch=%u recoveries=%u mtu=%d timeout=%u retry=%u rnr_retry=%u min_rnr_timer=%u rd_atomic=%u dest_rd_atomic=%u sgid_index=%u",
			   peer->id, i, lqp->qpn, lqp->dqpn,
			   lite_qp_state_name(READ_ONCE(lqp->state)),
			   READ_ONCE(lqp->epoch),
			   READ_ONCE(lqp->recoveries),
			   ib_mtu_enum_to_int(av->mtu),
			   READ_ONCE(lite_param_qp_timeout),
			   READ_ONCE(lite_param_qp_retry),
			   LITE_RNR_INFINITE, LITE_MIN_RNR_TIMER,
			   lite_qp_rd_atomic(peer->dev, &peer->addr),
			   peer->dev->rd_atom,
			   READ_ONCE(peer->dev->gid_index));
		if (peer->addr.link_layer == LITE_LINK_ETHERNET)
			seq_printf(m, " gid_type=%s dgid=%pI6 dmac=%pM hop_limit=%u tclass=%u",
				   av->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
				   "roce_v2" : "roce_v1",
				   peer->addr.gid, av->dmac, av->hop_limit,
				   READ_ONCE(lite_param_tclass));
		else
			seq_printf(m, " dlid=%u",
				   le16_to_cpu(peer->addr.lid));
		seq_printf(m, " sl=%u\n", READ_ONCE(lite_param_sl));
	}
}
