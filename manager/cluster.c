// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The manager's protocol state machine: see cluster.h. */
#define _GNU_SOURCE	/* strerrorname_np */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"

static const char *err_name(int err)
{
	const char *name = strerrorname_np(-err);

	return name ? name : "unknown error";
}

static const char *link_name(unsigned int link_layer)
{
	return link_layer == LITE_LINK_IB ? "IB" : "Ethernet";
}

/* A RoCE GID's address family: 4 (IPv4-mapped) or 6; 0 on IB. */
static unsigned int gid_family(const struct lite_port_addr *a)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (a->link_layer != LITE_LINK_ETHERNET)
		return 0;
	return memcmp(a->gid, v4mapped, sizeof(v4mapped)) ? 6 : 4;
}

static const char *gid_type_name(unsigned int gid_type)
{
	switch (gid_type) {
	case LITE_GID_ROCE_V1:
		return "RoCE v1";
	case LITE_GID_ROCE_V2:
		return "RoCE v2";
	default:
		return "IB";
	}
}

/* M as it goes to TO: with TO's next MAC, where its type has one. */
static void send_msg(struct lite_cluster *c, struct lite_sess *to,
		     const struct lite_msg *m)
{
	struct lite_msg sealed;

	if (!lite_msg_has_mac(le16toh(m->hdr.type))) {
		c->ops->send(c->ctx, to, m, lite_msg_size(m));
		return;
	}
	memcpy(&sealed, m, lite_msg_size(m));
	lite_msg_seal(c->cfg.key, LITE_MAC_TO_NODE, &to->tx, &sealed);
	c->ops->send(c->ctx, to, &sealed, lite_msg_size(&sealed));
}

const char *lite_sess_label(const struct lite_sess *s, char *buf, size_t len)
{
	switch (s->state) {
	case LITE_SESS_MEMBER:
		snprintf(buf, len, "peer %s (node %u)", s->peer, s->node_id);
		break;
	case LITE_SESS_NEW:
		snprintf(buf, len, "peer %s (not joined)", s->peer);
		break;
	default:
		snprintf(buf, len, "peer %s (gone)", s->peer);
		break;
	}
	return buf;
}

/*
 * The one way a connection is refused: log it and, if the peer is still
 * waiting for WELCOME, tell it why. A member gets no REJECT: that message
 * means "join refused", and a member's own errors are in our log.
 */
static int refuse(struct lite_cluster *c, struct lite_sess *s, int err,
		  const char *what, const char *reason)
{
	char label[LITE_PEER_STRLEN + 32];
	struct lite_msg m;

	c->ops->log(c->ctx, "%s: %s%s (%s); closing",
		    lite_sess_label(s, label, sizeof(label)), what, reason,
		    err_name(err));
	if (s->state == LITE_SESS_NEW) {
		lite_msg_init(&m, LITE_MSG_REJECT);
		m.reject.error = htole32(-err);
		/* m is zeroed, so the reason stays NUL-padded. */
		snprintf(m.reject.reason, sizeof(m.reject.reason), "%s",
			 reason);
		send_msg(c, s, &m);
	}
	return err;
}

int lite_sess_fail(struct lite_cluster *c, struct lite_sess *s, int err,
		   const char *fmt, ...)
{
	char reason[LITE_REASON_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return refuse(c, s, err, "", reason);
}

int lite_cluster_init(struct lite_cluster *c,
		      const struct lite_cluster_cfg *cfg,
		      const struct lite_cluster_ops *ops, void *ctx)
{
	if (cfg->max_nodes < 1 || cfg->max_nodes > LITE_MAX_NODE_ID ||
	    cfg->k > LITE_MAX_QPS_PER_PEER || cfg->ib_port > 255)
		return -EINVAL;
	*c = (struct lite_cluster){
		.cfg = *cfg,
		.ops = ops,
		.ctx = ctx,
		.k = cfg->k,
	};
	return 0;
}

void lite_cluster_cleanup(struct lite_cluster *c)
{
	*c = (struct lite_cluster){ .ops = NULL };
}

void lite_sess_init(struct lite_sess *s, const char *peer, void *owner)
{
	*s = (struct lite_sess){
		.state = LITE_SESS_NEW,
		.owner = owner,
	};
	lite_framer_init(&s->framer);
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
}

int lite_sess_start(struct lite_cluster *c, struct lite_sess *s)
{
	struct lite_msg m;
	int ret;

	lite_msg_init(&m, LITE_MSG_CHALLENGE);
	ret = c->ops->random(c->ctx, m.challenge.nonce, LITE_NONCE_LEN);
	if (ret)
		return ret;
	memcpy(s->rx.manager_nonce, m.challenge.nonce, LITE_NONCE_LEN);
	memcpy(s->tx.manager_nonce, m.challenge.nonce, LITE_NONCE_LEN);
	send_msg(c, s, &m);
	return 0;
}

/*
 * M's MAC, in S's receive state; a JOIN brings the node's nonce, which
 * every later MAC of the connection covers too.
 */
static int check_mac(struct lite_cluster *c, struct lite_sess *s,
		     const struct lite_msg *m)
{
	unsigned int type = le16toh(m->hdr.type);
	char what[32];

	if (!lite_msg_has_mac(type))
		return 0;
	if (s->state == LITE_SESS_NEW) {
		if (type != LITE_MSG_JOIN)
			return 0;	/* refused as out of order */
		memcpy(s->rx.node_nonce, m->join.nonce, LITE_NONCE_LEN);
		memcpy(s->tx.node_nonce, m->join.nonce, LITE_NONCE_LEN);
	}
	if (!lite_msg_verify(c->cfg.key, LITE_MAC_TO_MANAGER, &s->rx, m))
		return 0;
	snprintf(what, sizeof(what), "%s: ", lite_msg_type_name(type));
	return refuse(c, s, -EACCES, what,
		      "bad MAC (another cluster key, or a replay)");
}

static void peer_up_of(struct lite_msg *m, const struct lite_sess *s)
{
	lite_msg_init(m, LITE_MSG_PEER_UP);
	m->peer_up.node_id = htole16(s->node_id);
	m->peer_up.generation = htole32(s->gen);
	m->peer_up.addr = s->addr;
	memcpy(m->peer_up.name, s->name, sizeof(m->peer_up.name));
}

/*
 * The member whose id J asks for, if it is the same node joining again:
 * the same name and the same RDMA address (GID, LID, link layer). A node
 * whose link was down long enough that it gave up its manager connection
 * rejoins before our keepalive noticed the old one is dead; without this,
 * it would get another id and the others would list it twice until then.
 */
static struct lite_sess *rejoining(const struct lite_cluster *c,
				   const struct lite_msg_join *j)
{
	unsigned int want = le16toh(j->requested_id);
	struct lite_sess *old;

	if (!want || want > c->cfg.max_nodes)
		return NULL;
	old = c->member[want];
	if (!old || strncmp(old->name, j->name, sizeof(old->name)) ||
	    memcmp(old->addr.gid, j->addr.gid, sizeof(old->addr.gid)) ||
	    old->addr.lid != j->addr.lid ||
	    old->addr.link_layer != j->addr.link_layer)
		return NULL;
	return old;
}

/*
 * Every check that needs the cluster; fills REASON on failure. OLD, the
 * session J replaces (rejoining()), does not count as a member.
 */
static int admit(struct lite_cluster *c, const struct lite_msg_join *j,
		 const struct lite_sess *old, char *reason, size_t len)
{
	unsigned int k = le16toh(j->qps_per_peer);
	unsigned int want = le16toh(j->requested_id);
	const char *why;
	int ret;

	ret = lite_check_join(j, &why);
	if (ret) {
		snprintf(reason, len, "%s", why);
		return ret;
	}
	if (c->cfg.ib_port && j->ib_port != c->cfg.ib_port) {
		snprintf(reason, len, "ib_port %u, but this cluster uses port %u",
			 j->ib_port, c->cfg.ib_port);
		return -EINVAL;
	}
	if (c->k && k != c->k) {
		snprintf(reason, len,
			 "qps_per_peer %u, but the cluster's K is %u", k, c->k);
		return -EINVAL;
	}
	if (c->link_layer && j->addr.link_layer != c->link_layer) {
		snprintf(reason, len, "link layer %s, but the cluster is %s",
			 link_name(j->addr.link_layer),
			 link_name(c->link_layer));
		return -EINVAL;
	}
	/* RoCE v1 and v2 ends cannot talk: v1 frames are not UDP/IP. */
	if (c->gid_type && j->addr.gid_type != c->gid_type) {
		snprintf(reason, len,
			 "GID type %s, but the cluster uses %s (choose the GID index, docs/hardware.md)",
			 gid_type_name(j->addr.gid_type),
			 gid_type_name(c->gid_type));
		return -EINVAL;
	}
	/* A node resolves a peer's next hop from its own GID's address. */
	if (c->link_layer && gid_family(&j->addr) != c->gid_family) {
		snprintf(reason, len,
			 "GID is an IPv%u address, but the cluster's are IPv%u (see fabric_ip)",
			 gid_family(&j->addr), c->gid_family);
		return -EINVAL;
	}
	if (c->nr_members - !!old >= c->cfg.max_nodes) {
		snprintf(reason, len, "cluster full (%u nodes)",
			 c->cfg.max_nodes);
		return -ENOSPC;
	}
	if (want > c->cfg.max_nodes) {
		snprintf(reason, len, "requested_id %u above the maximum %u",
			 want, c->cfg.max_nodes);
		return -EINVAL;
	}
	if (want && c->member[want] && c->member[want] != old) {
		snprintf(reason, len, "node id %u is in use", want);
		return -EADDRINUSE;
	}
	return 0;
}

static int sess_join(struct lite_cluster *c, struct lite_sess *s,
		     const struct lite_msg_join *j)
{
	unsigned int id = le16toh(j->requested_id);
	struct lite_sess *old = rejoining(c, j);
	char reason[LITE_REASON_LEN];
	struct lite_msg m;
	int ret;

	ret = admit(c, j, old, reason, sizeof(reason));
	if (ret)
		return refuse(c, s, ret, "JOIN refused: ", reason);
	if (old) {
		/* PEER_DOWN for the old generation goes out before PEER_UP. */
		c->ops->log(c->ctx,
			    "node %u (%s) joins again from %s while its connection from %s (generation %u) is open: closing that one",
			    id, old->name, s->peer, old->peer, old->gen);
		lite_sess_leave(c, old);
		if (c->ops->drop)
			c->ops->drop(c->ctx, old);
	}

	/* Lowest free id, so ids follow join order and come back on rejoin. */
	for (unsigned int i = 1; !id && i <= c->cfg.max_nodes; i++)
		if (!c->member[i])
			id = i;
	if (++c->last_gen == 0)
		c->last_gen = 1;
	s->state = LITE_SESS_MEMBER;
	s->node_id = id;
	s->gen = c->last_gen;
	s->addr = j->addr;
	memcpy(s->name, j->name, sizeof(s->name));
	c->member[id] = s;
	c->nr_members++;
	if (!c->k)
		c->k = le16toh(j->qps_per_peer);
	if (!c->link_layer) {
		c->link_layer = j->addr.link_layer;
		c->gid_type = j->addr.gid_type;
		c->gid_family = gid_family(&j->addr);
	}
	c->ops->log(c->ctx, "node %u (%s) joined from %s, generation %u",
		    id, s->name, s->peer, s->gen);

	lite_msg_init(&m, LITE_MSG_WELCOME);
	m.welcome.node_id = htole16(id);
	m.welcome.qps_per_peer = htole16(c->k);
	m.welcome.generation = htole32(s->gen);
	send_msg(c, s, &m);

	for (unsigned int i = 1; i <= LITE_MAX_NODE_ID; i++) {
		struct lite_sess *e = c->member[i];

		if (!e || e == s)
			continue;
		peer_up_of(&m, e);
		send_msg(c, s, &m);
		peer_up_of(&m, s);
		send_msg(c, e, &m);
	}
	return 0;
}

static void log_repeats(struct lite_cluster *c, struct lite_sess *s)
{
	if (!s->drop_repeats)
		return;
	c->ops->log(c->ctx,
		    "node %u (%s): %lu more QP_INFO for node %u generation %u dropped",
		    s->node_id, s->name, s->drop_repeats, s->drop_dst,
		    s->drop_gen);
	s->drop_repeats = 0;
}

static int sess_qp_info(struct lite_cluster *c, struct lite_sess *s,
			const struct lite_msg *m)
{
	const struct lite_msg_qp_info *q = &m->qp_info;
	unsigned int dst = le16toh(q->dst_node);
	uint32_t dst_gen = le32toh(q->dst_gen);
	struct lite_sess *d;
	const char *why;
	int ret;

	ret = lite_check_qp_info(q, c->k, s->node_id, s->gen, &why);
	if (ret)
		return refuse(c, s, ret, "QP_INFO: ", why);

	/* dst is in 1..63 now. A stale dst is a legal race: drop, keep s. */
	d = c->member[dst];
	if (!d || d->gen != dst_gen) {
		char now[32] = "not a member";

		/* Once per (dst, gen): a flood must not flood the log. */
		if (s->drop_dst == dst && s->drop_gen == dst_gen) {
			s->drop_repeats++;
			return 0;
		}
		log_repeats(c, s);
		s->drop_dst = dst;
		s->drop_gen = dst_gen;
		if (d)
			snprintf(now, sizeof(now), "now generation %u", d->gen);
		c->ops->log(c->ctx,
			    "node %u (%s): QP_INFO for node %u generation %u dropped (%s)",
			    s->node_id, s->name, dst, dst_gen, now);
		return 0;
	}
	/* Unchanged but for the MAC: the header was checked to be canonical. */
	send_msg(c, d, m);
	return 0;
}

static int sess_message(struct lite_cluster *c, struct lite_sess *s,
			const struct lite_msg *m)
{
	unsigned int type = le16toh(m->hdr.type);
	char reason[LITE_REASON_LEN];

	if (s->state == LITE_SESS_NEW) {
		if (type == LITE_MSG_JOIN)
			return sess_join(c, s, &m->join);
		snprintf(reason, sizeof(reason),
			 "first message is %s, expected JOIN",
			 lite_msg_type_name(type));
		return refuse(c, s, -EPROTO, "", reason);
	}
	switch (type) {
	case LITE_MSG_QP_INFO:
		return sess_qp_info(c, s, m);
	case LITE_MSG_ECHO:
		/* Back as it came; the outbuf's bound stops a flood. */
		send_msg(c, s, m);
		return 0;
	case LITE_MSG_JOIN:
		return refuse(c, s, -EPROTO, "", "second JOIN");
	default:
		snprintf(reason, sizeof(reason),
			 "%s is a manager-to-node message",
			 lite_msg_type_name(type));
		return refuse(c, s, -EPROTO, "", reason);
	}
}

/* A bad header's reason, with the offending value where it helps. */
static void hdr_reason(const struct lite_msg_hdr *h, int err, const char *why,
		       char *buf, size_t len)
{
	switch (err) {
	case -EPROTONOSUPPORT:
		snprintf(buf, len, "protocol version %u; this manager speaks %u",
			 le16toh(h->version), LITE_PROTO_VERSION);
		break;
	case -ENOMSG:
		snprintf(buf, len, "unknown message type %u", le16toh(h->type));
		break;
	case -EMSGSIZE:
	case -EBADMSG:
		if (le32toh(h->magic) == LITE_PROTO_MAGIC) {
			snprintf(buf, len, "%s length %u: %s",
				 lite_msg_type_name(le16toh(h->type)),
				 le32toh(h->length), why);
			break;
		}
		/* fall through */
	default:
		snprintf(buf, len, "%s", why);
		break;
	}
}

int lite_sess_input(struct lite_cluster *c, struct lite_sess *s,
		    const void *data, size_t len)
{
	const unsigned char *p = data;
	char reason[LITE_REASON_LEN];
	const struct lite_msg *m;
	const char *why;
	size_t used;
	int ret;

	while (len) {
		if (s->state == LITE_SESS_GONE)
			return -EPIPE;
		ret = lite_framer_push(&s->framer, p, len, &used, &m, &why);
		p += used;
		len -= used;
		if (ret < 0) {
			hdr_reason(&s->framer.msg.hdr, ret, why, reason,
				   sizeof(reason));
			return refuse(c, s, ret, "", reason);
		}
		if (ret == 1) {
			ret = check_mac(c, s, m);
			if (!ret)
				ret = sess_message(c, s, m);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void lite_sess_leave(struct lite_cluster *c, struct lite_sess *s)
{
	struct lite_msg m;

	if (s->state == LITE_SESS_MEMBER) {
		c->member[s->node_id] = NULL;
		c->nr_members--;
		log_repeats(c, s);
		c->ops->log(c->ctx, "node %u (%s) left", s->node_id, s->name);
		lite_msg_init(&m, LITE_MSG_PEER_DOWN);
		m.peer_down.node_id = htole16(s->node_id);
		m.peer_down.generation = htole32(s->gen);
		for (unsigned int i = 1; i <= LITE_MAX_NODE_ID; i++)
			if (c->member[i])
				send_msg(c, c->member[i], &m);
		/* An empty cluster is a new cluster: its first node sets K. */
		if (!c->nr_members) {
			c->k = c->cfg.k;
			c->link_layer = 0;
			c->gid_type = 0;
			c->gid_family = 0;
		}
	}
	s->state = LITE_SESS_GONE;
}
