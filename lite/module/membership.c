// SPDX-License-Identifier: GPL-2.0
/*
 * Cluster membership: the TCP connection to lite-manager and the peer table.
 * Joining reads the manager's CHALLENGE, sends JOIN and waits for WELCOME,
 * every message from JOIN on authenticated (auth.c); a kernel thread then
 * handles
 * PEER_UP (create the peer's QPs, send QP_INFO), QP_INFO (connect them,
 * qp_conn.c) and PEER_DOWN (tear them down); a peer's work item resets
 * and reconnects the QPs an error broke, under the same lock. Every message from the network is validated
 * before use; a protocol violation disconnects from the manager.
 * Protocol: include/lite_proto.h and docs/protocol.md.
 */
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/utsname.h>
#include <linux/wait.h>
#include <net/sock.h>
#include <rdma/ib_cache.h>

#include "lite_priv.h"
#include "wire_check.h"

#define LITE_JOIN_TIMEOUT	(10 * HZ)
/*
 * The manager connection's keepalive: idle 10 s, then 3 probes 5 s apart.
 * TCP_USER_TIMEOUT gives up after as long when data is unacked, where
 * keepalive does not probe and retransmissions would last ~15 min.
 */
#define LITE_KEEPIDLE		10
#define LITE_KEEPINTVL		5
#define LITE_KEEPCNT		3
#define LITE_USER_TIMEOUT_MS	((LITE_KEEPIDLE + LITE_KEEPINTVL * LITE_KEEPCNT) * 1000)
/*
 * Rejoining by itself: every second for the first minute, then every 5 s;
 * each try first connects for at most 2 s to see the manager answers.
 */
#define LITE_REJOIN_FAST	HZ
#define LITE_REJOIN_FAST_TRIES	60
#define LITE_REJOIN_SLOW	(5 * HZ)
#define LITE_REJOIN_PROBE	(2 * HZ)

static struct lite_cluster {
	/*
	 * One leave at a time (a fatal device event during rmmod): a second
	 * must not free the socket the first one's thread still reads.
	 */
	struct mutex		leave;
	struct mutex		lock;	/* everything below */
	struct lite_dev		*dev;
	struct socket		*sock;
	struct task_struct	*thread;
	bool			lost;	/* the manager connection (not under lock) */
	unsigned long		rx_msgs;	/* read from it; only its thread writes */
	u16			node_id;	/* 0: not joined */
	u32			gen;
	u16			k;
	struct lite_auth	auth;	/* the manager connection's MACs */
	struct lite_peer	*peers[LITE_MAX_NODES];	/* + peers_lock to change */
	spinlock_t		peers_lock;	/* peers[] for lite_peer_get() */
} lite_cluster = {
	.leave = __MUTEX_INITIALIZER(lite_cluster.leave),
	.lock = __MUTEX_INITIALIZER(lite_cluster.lock),
	.peers_lock = __SPIN_LOCK_UNLOCKED(lite_cluster.peers_lock),
};

union lite_msg_body {
	LITE_MSG_PAYLOADS;
};

/*
 * What rejoining after a lost manager connection needs: the last join's
 * manager, RDMA port, key and node id. Set by a join, kept by the leave
 * that precedes a rejoin, forgotten by every other leave (rmmod, a fatal
 * device error, lite-join). Under lite_cluster.lock.
 */
struct lite_rejoin_args {
	struct sockaddr_in	sin;
	u32			ib_port;
	u16			node_id;	/* asked for again */
	u8			key[LITE_KEY_LEN];
};

static void lite_rejoin_work(struct work_struct *work);

static struct lite_rejoin {
	struct delayed_work	work;
	bool			armed;
	unsigned int		tries;
	struct lite_rejoin_args	args;
} lite_rejoin = {
	.work = __DELAYED_WORK_INITIALIZER(lite_rejoin.work, lite_rejoin_work, 0),
};

static void lite_echo_expire(struct work_struct *work);

/*
 * The ECHO awaiting the manager's answer, if any. Under lite_cluster.lock;
 * a join forgets it, so that a late expiry never ends the next connection.
 */
static struct lite_echo {
	struct delayed_work	work;
	u64			cookie;	/* 0: none awaited */
	u64			last;	/* the last cookie sent */
	unsigned long		period;		/* echo_ms, as it was at the send */
	unsigned long		deadline;	/* jiffies: no answer by then... */
	unsigned long		rx_mark;	/* ...and no message since: stalled */
} lite_echo = {
	.work = __DELAYED_WORK_INITIALIZER(lite_echo.work, lite_echo_expire, 0),
};

/* Queue a rejoin attempt in @delay jiffies, if one is wanted. */
static void lite_rejoin_queue(unsigned long delay)
{
	mutex_lock(&lite_cluster.lock);
	if (lite_rejoin.armed)
		mod_delayed_work(system_long_wq, &lite_rejoin.work, delay);
	mutex_unlock(&lite_cluster.lock);
}

/* No more rejoining; any attempt under way has ended on return. */
static void lite_rejoin_stop(void)
{
	mutex_lock(&lite_cluster.lock);
	lite_rejoin.armed = false;
	mutex_unlock(&lite_cluster.lock);
	/* An attempt itself never calls here (it leaves with lite_membership_leave()). */
	cancel_delayed_work_sync(&lite_rejoin.work);
	mutex_lock(&lite_cluster.lock);
	memzero_explicit(&lite_rejoin.args, sizeof(lite_rejoin.args));
	mutex_unlock(&lite_cluster.lock);
}

/* Joined, and the manager connection broke (lite-join --status). */
bool lite_membership_lost(void)
{
	return READ_ONCE(lite_cluster.lost);
}

u16 lite_node_id(void)
{
	return READ_ONCE(lite_cluster.node_id);
}

u32 lite_node_gen(void)
{
	return READ_ONCE(lite_cluster.gen);
}

/* @node's current generation (this node's too), or 0: not reachable. */
u32 lite_node_gen_of(u16 node)
{
	struct lite_peer *peer;
	u32 gen;

	if (node == lite_node_id())
		return lite_node_gen();
	peer = lite_peer_get(node, 0);
	if (!peer)
		return 0;
	gen = peer->gen;
	lite_peer_put(peer);
	return gen;
}

unsigned int lite_qps_per_peer(void)
{
	return READ_ONCE(lite_cluster.k);
}

/**
 * lite_nr_nodes() - nodes this one can reach, itself included
 * @connected: set to a bitmap of those node ids
 *
 * Context: any; does not sleep.
 * Return: 0 when not joined, else 1 + the number of peers whose QPs are up.
 */
unsigned int lite_nr_nodes(u64 *connected)
{
	u16 self = lite_node_id();
	unsigned long flags;
	unsigned int i, n;

	*connected = 0;
	if (!self)
		return 0;
	/*
	 * Not under lite_cluster.lock, which the membership thread holds
	 * while it tears a peer down: a BARRIER or CLUSTER call never waits
	 * for that.
	 */
	*connected |= BIT_ULL(self);
	n = 1;
	spin_lock_irqsave(&lite_cluster.peers_lock, flags);
	for (i = 1; i < LITE_MAX_NODES; i++) {
		struct lite_peer *p = lite_cluster.peers[i];

		if (p && READ_ONCE(p->state) == LITE_PEER_UP) {
			*connected |= BIT_ULL(i);
			n++;
		}
	}
	spin_unlock_irqrestore(&lite_cluster.peers_lock, flags);
	return n;
}

/**
 * lite_peer_dev() - the device a connected peer is reached through
 * @id: its node id
 * @gen: the generation the caller knows it by; 0 for the current one
 *
 * Return: the device, or NULL when @id is not reachable.
 */
struct lite_dev *lite_peer_dev(u16 id, u32 gen)
{
	struct lite_peer *peer = lite_peer_get(id, gen);
	struct lite_dev *dev;

	if (!peer)
		return NULL;
	dev = peer->dev;
	lite_peer_put(peer);
	return dev;
}

/**
 * lite_peer_dev_hold() - lite_peer_dev() for the current generation, with
 * a reference (lite_dev_put()) that keeps the device until it is dropped
 * @id: the peer's node id
 *
 * Return: the device, or NULL when @id is not reachable.
 */
struct lite_dev *lite_peer_dev_hold(u16 id)
{
	struct lite_peer *peer = lite_peer_get(id, 0);
	struct lite_dev *dev;

	if (!peer)
		return NULL;
	/* The peer's reference keeps the device: removal waits for it. */
	dev = peer->dev;
	lite_dev_hold(dev);
	lite_peer_put(peer);
	return dev;
}

/**
 * lite_peer_get() - a reference on a connected peer
 * @id: its node id
 * @gen: the generation the caller knows it by; 0 for the current one
 *
 * Context: any; does not sleep.
 * Return: the peer, or NULL when @id is not a member whose QPs are up (or
 * is a later incarnation than @gen).
 */
struct lite_peer *lite_peer_get(u16 id, u32 gen)
{
	struct lite_peer *peer;
	unsigned long flags;

	if (!id || id >= LITE_MAX_NODES)
		return NULL;
	spin_lock_irqsave(&lite_cluster.peers_lock, flags);
	peer = lite_cluster.peers[id];
	if (peer && (READ_ONCE(peer->state) != LITE_PEER_UP ||
		     (gen && peer->gen != gen)))
		peer = NULL;
	if (peer)
		refcount_inc(&peer->refs);
	spin_unlock_irqrestore(&lite_cluster.peers_lock, flags);
	return peer;
}

/* Woken when a peer's QPs were all ready (lite_peer_set_up()). */
static DECLARE_WAIT_QUEUE_HEAD(lite_peer_up_wq);

/**
 * lite_peer_set_up() - every QP of @peer was READY once: it is UP
 * @peer: the peer
 *
 * Context: any; does not sleep.
 */
void lite_peer_set_up(struct lite_peer *peer)
{
	WRITE_ONCE(peer->state, LITE_PEER_UP);
	wake_up_all(&lite_peer_up_wq);
}

/* Is @id, generation @gen, in the table and still connecting its QPs? */
static bool lite_peer_coming(u16 id, u32 gen)
{
	struct lite_peer *peer;
	unsigned long flags;
	bool coming;

	if (!id || id >= LITE_MAX_NODES)
		return false;
	spin_lock_irqsave(&lite_cluster.peers_lock, flags);
	peer = lite_cluster.peers[id];
	coming = peer && peer->gen == gen &&
		 (READ_ONCE(peer->state) == LITE_PEER_CREATED ||
		  READ_ONCE(peer->state) == LITE_PEER_CONNECTING);
	spin_unlock_irqrestore(&lite_cluster.peers_lock, flags);
	return coming;
}

/**
 * lite_peer_wait_up() - wait while @id is still connecting its QPs
 * @id: a node id (1..LITE_MAX_NODES-1)
 * @gen: its generation
 * @timeout: how long at most, in jiffies
 *
 * A request can arrive before every QP of the sender is ready here: the
 * sender is UP once all of its QPs are, and its request comes on one of
 * them. Served at once, the request would find the requester not UP, and
 * its answer would be dropped (its caller waiting out its whole timeout);
 * the other QPs' handshakes end moments later.
 *
 * Context: process context; sleeps up to @timeout.
 */
void lite_peer_wait_up(u16 id, u32 gen, unsigned long timeout)
{
	wait_event_timeout(lite_peer_up_wq, !lite_peer_coming(id, gen),
			   timeout);
}

/**
 * lite_peer_alive() - is @id (generation @gen, 0: any) a member right now?
 * @id: a node id
 * @gen: its generation
 *
 * A peer leaves the table before its *_peer_down() hooks run. A caller
 * that records something for @id under a lock its hook takes, after this
 * said true, therefore knows the hook will see it.
 *
 * Context: any; does not sleep.
 */
bool lite_peer_alive(u16 id, u32 gen)
{
	struct lite_peer *peer = lite_peer_get(id, gen);

	if (peer)
		lite_peer_put(peer);
	return peer != NULL;
}

/* Send a message, with its MAC where its type has one (in @body's end). */
static int lite_send_msg(struct socket *sock, u16 type, void *body,
			 size_t len)
{
	struct lite_msg_hdr hdr = {
		.magic		= cpu_to_le32(LITE_PROTO_MAGIC),
		.version	= cpu_to_le16(LITE_PROTO_VERSION),
		.type		= cpu_to_le16(type),
		.length		= cpu_to_le32(len),
	};
	struct kvec vec[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)body, .iov_len = len },
	};
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int ret;

	if (lite_msg_has_mac(type))
		lite_auth_seal(&lite_cluster.auth, &hdr, body, len);
	ret = kernel_sendmsg(sock, &msg, vec, 2, sizeof(hdr) + len);
	if (ret < 0)
		return ret;
	return ret == sizeof(hdr) + len ? 0 : -EIO;
}

static int lite_recv_all(struct socket *sock, void *buf, size_t len)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	int ret;

	ret = kernel_recvmsg(sock, &msg, &vec, 1, len, MSG_WAITALL);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -ECONNRESET;
}

/* Read one message, MAC checked; return its type, or a negative errno. */
static int lite_recv_msg(struct socket *sock, union lite_msg_body *body)
{
	struct lite_msg_hdr hdr;
	u16 type;
	u32 len;
	int ret;

	ret = lite_recv_all(sock, &hdr, sizeof(hdr));
	if (ret)
		return ret;
	if (lite_check_mgr_hdr(&hdr, &type, &len)) {
		pr_err("manager: bad message header (magic %#x version %u type %u length %u)\n",
		       le32_to_cpu(hdr.magic), le16_to_cpu(hdr.version),
		       le16_to_cpu(hdr.type), le32_to_cpu(hdr.length));
		return -EPROTO;
	}
	ret = lite_recv_all(sock, body, len);
	if (ret)
		return ret;
	if (lite_msg_has_mac(type) &&
	    lite_auth_verify(&lite_cluster.auth, &hdr, body, len)) {
		pr_err("manager: message type %u with a wrong MAC (another cluster key, or not our manager); disconnecting\n",
		       type);
		return -EACCES;
	}
	return type;
}

/* The services' membership events, in the order they subscribed. */
#define LITE_MAX_MEMBER_OPS	8
static const struct lite_member_ops *lite_member_subs[LITE_MAX_MEMBER_OPS] __ro_after_init;
static unsigned int lite_nr_member_subs __ro_after_init;

#define lite_member_notify(event, ...)					\
	do {								\
		unsigned int i_;					\
									\
		for (i_ = 0; i_ < lite_nr_member_subs; i_++)		\
			if (lite_member_subs[i_]->event)		\
				lite_member_subs[i_]->event(__VA_ARGS__); \
	} while (0)

/**
 * lite_member_subscribe() - tell @ops of membership changes from now on
 * @ops: the service's; lives as long as the module
 *
 * Context: module load, before the device is taken (main.c).
 */
void __init lite_member_subscribe(const struct lite_member_ops *ops)
{
	if (WARN_ON(lite_nr_member_subs == ARRAY_SIZE(lite_member_subs)))
		return;
	lite_member_subs[lite_nr_member_subs++] = ops;
}

static void lite_peer_remove(u16 id)
{
	struct lite_peer *peer = lite_cluster.peers[id];
	u32 peer_gen = peer ? peer->gen : 0;

	if (!peer)
		return;
	spin_lock_irq(&lite_cluster.peers_lock);
	lite_cluster.peers[id] = NULL;
	spin_unlock_irq(&lite_cluster.peers_lock);
	lite_ctrl_peer_down(id);
	lite_peer_destroy(peer);
	/* Its QPs are gone: nothing it sent can land any more. */
	lite_member_notify(peer_down, id, peer_gen);
}

/* QP_INFO with our entries for @peer (lite_peer_fill_qp_info() & co.). */
static int lite_send_qp_info(struct lite_peer *peer,
			     struct lite_msg_qp_info *info)
{
	int ret;

	info->src_node = cpu_to_le16(lite_cluster.node_id);
	info->src_gen = cpu_to_le32(lite_cluster.gen);
	info->dst_gen = cpu_to_le32(peer->gen);
	if (READ_ONCE(lite_cluster.lost))
		ret = -ENOTCONN;
	else
		ret = lite_send_msg(lite_cluster.sock, LITE_MSG_QP_INFO, info,
				    sizeof(*info));
	if (ret && !READ_ONCE(lite_cluster.lost)) {
		/*
		 * A message lost (or half sent) breaks the connection's framing
		 * and MACs: end it, as the manager will. The membership thread
		 * notices; lite-join then rejoins.
		 */
		lite_peer_err(peer, "cannot send QP_INFO to the manager (%d): leaving it; its QPs wait until lite-join rejoins\n",
			      ret);
		WRITE_ONCE(lite_cluster.lost, true);
		kernel_sock_shutdown(lite_cluster.sock, SHUT_RDWR);
	}
	return ret;
}

/*
 * lite_echo_send() - after our port came back, does the manager connection
 * carry data again?
 *
 * While the link was down the manager's TCP may have sent us data (a
 * PEER_DOWN, a peer's QP_INFO) that now waits for a retransmission; those
 * back off exponentially, and the next one can come after the manager's
 * user timeout has ended the connection, ~25 s after the first. Until
 * then no QP_INFO reaches us, and peers whose QPs to us broke in the
 * outage stay unconnected. The manager's answer to an ECHO queues behind
 * that data: none within echo_ms (its round trip, normally), and we rejoin
 * now rather than when its timeout ends the connection (lite_echo_expire()).
 */
static void lite_echo_send(struct lite_dev *dev)
{
	unsigned int ms = min(READ_ONCE(lite_param_echo_ms), LITE_USER_TIMEOUT_MS);
	struct lite_msg_echo echo = {};
	struct ib_port_attr attr;
	int ret;

	mutex_lock(&lite_cluster.lock);
	/* Off, not joined, leaving (no thread), lost already, or one awaited. */
	if (!ms || lite_cluster.dev != dev || !lite_cluster.thread ||
	    READ_ONCE(lite_cluster.lost) || lite_echo.cookie)
		goto out;
	if (ib_query_port(dev->ibdev, dev->port, &attr) ||
	    attr.state != IB_PORT_ACTIVE)
		goto out;
	lite_echo.cookie = ++lite_echo.last;
	lite_echo.period = msecs_to_jiffies(ms);
	lite_echo.deadline = jiffies + lite_echo.period;
	lite_echo.rx_mark = READ_ONCE(lite_cluster.rx_msgs);
	echo.cookie = cpu_to_le64(lite_echo.cookie);
	ret = lite_send_msg(lite_cluster.sock, LITE_MSG_ECHO, &echo,
			    sizeof(echo));
	if (ret) {
		pr_warn("cannot send ECHO to the manager (%d): leaving its connection, to rejoin\n",
			ret);
		lite_echo.cookie = 0;
		WRITE_ONCE(lite_cluster.lost, true);
		kernel_sock_shutdown(lite_cluster.sock, SHUT_RDWR);
		goto out;
	}
	mod_delayed_work(system_long_wq, &lite_echo.work, lite_echo.period);
out:
	mutex_unlock(&lite_cluster.lock);
}

/*
 * The manager has not answered our ECHO in time. Only a connection that
 * delivered nothing since is stalled: messages still arriving (their
 * handling can hold the lock for seconds after an outage) mean the answer
 * is behind them, so wait another period.
 */
static void lite_echo_expire(struct work_struct *work)
{
	unsigned long rx;

	mutex_lock(&lite_cluster.lock);
	if (!lite_echo.cookie || !lite_cluster.thread ||
	    READ_ONCE(lite_cluster.lost)) {
		lite_echo.cookie = 0;
		goto out;
	}
	/* An earlier ECHO's run, late: this one's has its own. */
	if (time_before(jiffies, lite_echo.deadline))
		goto out;
	rx = READ_ONCE(lite_cluster.rx_msgs);
	if (rx != lite_echo.rx_mark) {
		lite_echo.rx_mark = rx;
		lite_echo.deadline = jiffies + lite_echo.period;
		mod_delayed_work(system_long_wq, &lite_echo.work,
				 lite_echo.period);
		goto out;
	}
	pr_warn("the manager did not answer our ECHO within %u ms of our port coming back, and sent nothing else: its connection is stalled; leaving it, to rejoin now (echo_ms)\n",
		jiffies_to_msecs(lite_echo.period));
	lite_echo.cookie = 0;
	WRITE_ONCE(lite_cluster.lost, true);
	/* The membership thread's read fails: it queues the rejoin. */
	kernel_sock_shutdown(lite_cluster.sock, SHUT_RDWR);
out:
	mutex_unlock(&lite_cluster.lock);
}

/* The manager's answer: not awaited (a late one, or a bogus one) is logged. */
static int lite_handle_echo(const struct lite_msg_echo *echo)
{
	u64 cookie = le64_to_cpu(echo->cookie);

	if (!cookie || cookie != lite_echo.cookie) {
		pr_warn_ratelimited("manager: ECHO %llu not awaited (awaiting %llu): ignored\n",
				    cookie, lite_echo.cookie);
		return 0;
	}
	lite_echo.cookie = 0;
	cancel_delayed_work(&lite_echo.work);
	return 0;
}

/**
 * lite_peer_recover_work() - reset and reconnect the QPs of a peer that
 * an error broke (qp_conn.c)
 * @peer: the peer; its queuer took a reference, which this drops
 *
 * Context: a work item on lite_dev_wq (lite_dev_ops.peer_recover).
 */
void lite_peer_recover_work(struct lite_peer *peer)
{
	struct lite_msg_qp_info *info;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	mutex_lock(&lite_cluster.lock);
	/* Gone from the table: its teardown destroyed the QPs meanwhile. */
	if (lite_cluster.peers[peer->id] == peer) {
		if (!info)
			lite_peer_recover_later(peer, 0);	/* out of memory */
		else if (lite_peer_recover(peer, info))
			lite_send_qp_info(peer, info);
	}
	mutex_unlock(&lite_cluster.lock);
	kfree(info);
	lite_peer_put(peer);
}

/*
 * The port came back, or its address table changed: is our address still
 * the one peers know? Takes the port's MTU as it is now. Under the lock.
 */
static bool lite_dev_reread(struct lite_dev *dev)
{
	const struct ib_gid_attr *gid_attr;
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(dev->ibdev, dev->port, &attr);
	if (ret || attr.state != IB_PORT_ACTIVE) {
		pr_warn("port %u is not active (%d): QPs that fail meanwhile are reconnected once it is\n",
			dev->port, ret ?: attr.state);
		return false;
	}
	gid_attr = lite_dev_gid_attr(dev);
	if (!IS_ERR(gid_attr))
		rdma_put_gid_attr(gid_attr);
	if (IS_ERR(gid_attr) ||
	    (dev->link_layer != IB_LINK_LAYER_ETHERNET && attr.lid != dev->lid)) {
		pr_err("our address changed since the join (GID index %u no longer %pI6, or LID %u not %u): leave and rejoin (lite-join) to announce it\n",
		       dev->gid_index, dev->gid.raw, attr.lid, dev->lid);
		return false;
	}
	if (attr.active_mtu != dev->mtu) {
		pr_info("port %u: active MTU now %d (was %d)\n", dev->port,
			ib_mtu_enum_to_int(attr.active_mtu),
			ib_mtu_enum_to_int(dev->mtu));
		dev->mtu = attr.active_mtu;
	}
	return true;
}

/* A peer and its next hop as resolved now, for lite_dev_readdress(). */
struct lite_readdress {
	struct lite_peer	*peer;
	struct lite_av		av;
	int			ret;
};

/*
 * Re-resolve every peer's next hop; a peer whose next hop changed gets its
 * QPs reconnected (qp_conn.c) with the new one. The resolves (up to 5 s
 * each) run without the membership lock: peers come and go meanwhile.
 */
static void lite_dev_readdress(struct lite_dev *dev)
{
	struct lite_readdress *ra;
	unsigned int i, q, n = 0;

	ra = kcalloc(LITE_MAX_NODES, sizeof(*ra), GFP_KERNEL);
	if (!ra)
		return;		/* QPs that break still reconnect */
	mutex_lock(&lite_cluster.lock);
	if (lite_cluster.dev == dev && lite_dev_reread(dev)) {
		for (i = 1; i < LITE_MAX_NODES; i++) {
			if (!lite_cluster.peers[i])
				continue;
			ra[n].peer = lite_cluster.peers[i];
			refcount_inc(&ra[n++].peer->refs);
		}
	}
	mutex_unlock(&lite_cluster.lock);
	for (i = 0; i < n; i++)
		ra[i].ret = lite_av_resolve(dev, &ra[i].peer->addr, &ra[i].av);

	mutex_lock(&lite_cluster.lock);
	for (i = 0; i < n; i++) {
		struct lite_peer *peer = ra[i].peer;
		const struct lite_av *av = &ra[i].av;

		if (lite_cluster.peers[peer->id] != peer)
			continue;	/* gone meanwhile */
		if (ra[i].ret) {
			lite_peer_warn(peer, "its next hop cannot be resolved now (%d): its QPs stay as they are\n",
				       ra[i].ret);
			continue;
		}
		if (av->mtu == peer->av.mtu && av->hop_limit == peer->av.hop_limit &&
		    ether_addr_equal(av->dmac, peer->av.dmac))
			continue;
		lite_peer_info(peer, "its next hop changed (%pM, MTU %d): reconnecting its QPs\n",
			       av->dmac, ib_mtu_enum_to_int(av->mtu));
		peer->av = *av;
		for (q = 0; q < peer->nr_qps; q++)
			lite_qp_break(&peer->qps[q], "next hop changed");
	}
	mutex_unlock(&lite_cluster.lock);
	for (i = 0; i < n; i++)
		lite_peer_put(ra[i].peer);
	kfree(ra);
}

/**
 * lite_membership_dev_event() - act on events of our device (device.c)
 * @dev: the device
 * @events: LITE_DEV_EV_* bits
 *
 * Context: process context (a work item), no lock held.
 */
void lite_membership_dev_event(struct lite_dev *dev, unsigned long events)
{
	bool joined;

	mutex_lock(&lite_cluster.lock);
	joined = lite_cluster.dev == dev;
	mutex_unlock(&lite_cluster.lock);
	/*
	 * Not joined: nothing to do. A device taken later, or anew after its
	 * driver reset it, is device.c's; the next join uses it.
	 */
	if (!joined)
		return;
	if (test_bit(LITE_DEV_EV_FATAL, &events)) {
		pr_err("%s: fatal device error: leaving the cluster (lite-join rejoins once the driver has reset the device and its port is up)\n",
		       dev_name(&dev->ibdev->dev));
		lite_membership_exit();
		return;
	}
	/* Not if a join meanwhile got a new CQ (lite_device_get()). */
	if (test_bit(LITE_DEV_EV_CQ_ERR, &events) && lite_cq_failed(dev)) {
		pr_err("%s: the CQ failed: leaving the cluster (lite-join rejoins, with a new CQ)\n",
		       dev_name(&dev->ibdev->dev));
		lite_membership_exit();
		return;
	}
	/* First: the peers' QP_INFO for us may wait behind a stalled manager. */
	if (test_bit(LITE_DEV_EV_PORT, &events))
		lite_echo_send(dev);
	lite_dev_readdress(dev);
}

static int lite_handle_peer_up(const struct lite_msg_peer_up *up)
{
	u16 id = le16_to_cpu(up->node_id);
	u32 gen = le32_to_cpu(up->generation);
	struct lite_msg_qp_info info;
	struct lite_port_addr self;
	struct lite_peer *peer;

	lite_dev_port_addr(lite_cluster.dev, &self);
	if (lite_check_mgr_peer_up(up, lite_cluster.node_id, &self)) {
		pr_err("manager: invalid PEER_UP for node %u (link layer %u, GID type %u; ours %u, %u)\n",
		       id, up->addr.link_layer, up->addr.gid_type,
		       self.link_layer, self.gid_type);
		return -EPROTO;
	}
	if (lite_cluster.peers[id]) {
		if (lite_cluster.peers[id]->gen == gen) {
			pr_err("manager: duplicate PEER_UP for node %u\n", id);
			return -EPROTO;
		}
		lite_peer_remove(id);	/* an older incarnation */
	}
	peer = lite_peer_create(lite_cluster.dev, id, gen, up, lite_cluster.k,
				lite_cluster.node_id, lite_cluster.gen);
	if (IS_ERR(peer))
		return 0;	/* our failure, not the manager's: stay joined */
	spin_lock_irq(&lite_cluster.peers_lock);
	lite_cluster.peers[id] = peer;
	spin_unlock_irq(&lite_cluster.peers_lock);
	lite_peer_fill_qp_info(peer, &info);
	lite_peer_info(peer, "announced (%s)\n", peer->name);
	return lite_send_qp_info(peer, &info);
}

static int lite_handle_qp_info(const struct lite_msg_qp_info *info)
{
	u16 src = le16_to_cpu(info->src_node);
	struct lite_msg_qp_info answer;
	struct lite_peer *peer;

	if (lite_check_mgr_qp_info(info, lite_cluster.node_id, lite_cluster.k)) {
		pr_err("manager: invalid QP_INFO from node %u\n", src);
		return -EPROTO;
	}
	peer = lite_cluster.peers[src];
	if (!peer || peer->gen != le32_to_cpu(info->src_gen) ||
	    le16_to_cpu(info->dst_node) != lite_cluster.node_id ||
	    le32_to_cpu(info->dst_gen) != lite_cluster.gen) {
		lite_node_info(src, le32_to_cpu(info->src_gen),
			       "stale QP_INFO dropped\n");
		return 0;
	}
	if (lite_peer_take_qp_info(peer, info, &answer))
		return lite_send_qp_info(peer, &answer);
	return 0;
}

static int lite_handle_peer_down(const struct lite_msg_peer_down *down)
{
	u16 id = le16_to_cpu(down->node_id);
	struct lite_peer *peer;

	if (lite_check_mgr_peer_down(down, lite_cluster.node_id)) {
		pr_err("manager: invalid PEER_DOWN for node %u\n", id);
		return -EPROTO;
	}
	peer = lite_cluster.peers[id];
	if (peer && peer->gen == le32_to_cpu(down->generation)) {
		lite_peer_info(peer, "left (%s)\n", peer->name);
		lite_peer_remove(id);
	}
	return 0;
}

static int lite_handle_msg(int type, const union lite_msg_body *body)
{
	switch (type) {
	case LITE_MSG_PEER_UP:
		return lite_handle_peer_up(&body->peer_up);
	case LITE_MSG_QP_INFO:
		return lite_handle_qp_info(&body->qp_info);
	case LITE_MSG_PEER_DOWN:
		return lite_handle_peer_down(&body->peer_down);
	case LITE_MSG_ECHO:
		return lite_handle_echo(&body->echo);
	default:
		pr_err("manager: message type %d after joining\n", type);
		return -EPROTO;
	}
}

static int lite_membership_thread(void *unused)
{
	union lite_msg_body *body;
	int ret = -ENOMEM;

	body = kmalloc(sizeof(*body), GFP_KERNEL);
	while (body && !kthread_should_stop()) {
		ret = lite_recv_msg(lite_cluster.sock, body);
		if (ret < 0)
			break;
		/* Before the lock, which an ECHO's expiry may be waiting on. */
		WRITE_ONCE(lite_cluster.rx_msgs, lite_cluster.rx_msgs + 1);
		mutex_lock(&lite_cluster.lock);
		ret = lite_handle_msg(ret, body);
		mutex_unlock(&lite_cluster.lock);
		if (ret < 0)
			break;
	}
	kfree(body);
	if (!kthread_should_stop()) {
		/*
		 * The manager dropped us, or will: the next JOIN leaves first.
		 * We rejoin by ourselves once the manager answers again.
		 */
		WRITE_ONCE(lite_cluster.lost, true);
		pr_warn("disconnected from the manager (%d); peers stay connected, no membership changes until this node rejoins (by itself once the manager answers, or lite-join)\n",
			ret);
		lite_rejoin_queue(0);
	}
	/*
	 * Done: lite_membership_exit(), which owns the socket, still stops
	 * us; it holds the task (lite_membership_join()), so that is safe
	 * after we returned.
	 */
	return 0;
}

static void lite_fill_join(struct lite_dev *dev, u16 want_id,
			   struct lite_msg_join *join)
{
	memset(join, 0, sizeof(*join));
	lite_dev_port_addr(dev, &join->addr);
	join->requested_id = cpu_to_le16(want_id);
	join->qps_per_peer = cpu_to_le16(lite_param_qps_per_peer);
	join->ib_port = dev->port;
	strscpy(join->name, utsname()->nodename, sizeof(join->name));
}

/*
 * Take the CHALLENGE, send JOIN, wait for WELCOME; fills the cluster's id,
 * generation and K.
 */
static int lite_join_handshake(struct socket *sock, struct lite_dev *dev,
			       u16 want_id)
{
	union lite_msg_body *body;
	struct lite_msg_join join;
	u16 id, k;
	int ret;

	body = kmalloc(sizeof(*body), GFP_KERNEL);
	if (!body)
		return -ENOMEM;
	ret = lite_recv_msg(sock, body);
	if (ret == LITE_MSG_CHALLENGE) {
		memcpy(lite_cluster.auth.manager_nonce, body->challenge.nonce,
		       LITE_NONCE_LEN);
		lite_fill_join(dev, want_id, &join);
		memcpy(join.nonce, lite_cluster.auth.node_nonce, LITE_NONCE_LEN);
		ret = lite_send_msg(sock, LITE_MSG_JOIN, &join, sizeof(join));
		if (!ret)
			ret = lite_recv_msg(sock, body);
	} else if (ret >= 0 && ret != LITE_MSG_REJECT) {
		pr_err("manager: expected CHALLENGE, got type %d\n", ret);
		ret = -EPROTO;
	} else if (ret == -EAGAIN) {
		pr_err("manager: no CHALLENGE within 10 s (a manager older than protocol version 2?)\n");
		ret = -ETIMEDOUT;
	}
	if (ret == LITE_MSG_REJECT) {
		u32 err = le32_to_cpu(body->reject.error);

		body->reject.reason[LITE_REASON_LEN - 1] = '\0';
		pr_err("manager refused the join: %s (%u)\n",
		       body->reject.reason, err);
		ret = err > 0 && err < MAX_ERRNO ? -(int)err : -ECONNREFUSED;
	} else if (ret == LITE_MSG_WELCOME) {
		id = le16_to_cpu(body->welcome.node_id);
		k = le16_to_cpu(body->welcome.qps_per_peer);
		if (lite_check_mgr_welcome(&body->welcome, lite_param_qps_per_peer)) {
			pr_err("manager: invalid WELCOME (id %u, K %u, generation %u)\n",
			       id, k, le32_to_cpu(body->welcome.generation));
			ret = -EPROTO;
		} else {
			lite_cluster.node_id = id;
			lite_cluster.gen = le32_to_cpu(body->welcome.generation);
			lite_cluster.k = k;
			ret = 0;
		}
	} else if (ret >= 0) {
		pr_err("manager: expected WELCOME, got type %d\n", ret);
		ret = -EPROTO;
	}
	kfree(body);
	return ret;
}

/*
 * Join through the manager at @sin, asking for @want_id (0: any). Under
 * the lock; what lite_membership_join() does once it has parsed its
 * arguments, and what a rejoin does.
 */
static int lite_join_at(const struct sockaddr_in *sin, u32 ib_port,
			const u8 *key, u16 want_id, u32 *node_id)
{
	struct task_struct *thread;
	struct lite_dev *dev;
	struct socket *sock;
	int ret;

	mutex_lock(&lite_cluster.lock);
	if (lite_cluster.sock) {
		ret = -EISCONN;
		goto out_unlock;
	}
	dev = lite_device_get();
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_unlock;
	}
	/* Before talking to the manager, which drops a slow JOIN. */
	ret = lite_pool_start(dev);
	if (ret)
		goto out_unlock;
	lite_member_notify(start, dev);
	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (ret)
		goto err_pool;
	sock->sk->sk_sndtimeo = LITE_JOIN_TIMEOUT;
	sock->sk->sk_rcvtimeo = LITE_JOIN_TIMEOUT;
	ret = kernel_connect(sock, (struct sockaddr *)sin, sizeof(*sin), 0);
	if (ret) {
		pr_err("cannot reach the manager at %pI4:%u: %d\n",
		       &sin->sin_addr, ntohs(sin->sin_port), ret);
		goto err_release;
	}
	lite_cluster.dev = dev;
	ret = lite_auth_init(&lite_cluster.auth, key);
	if (ret) {
		pr_err("hmac(sha256) unavailable: %d\n", ret);
		goto err_release;
	}
	ret = lite_join_handshake(sock, dev, want_id);
	if (ret)
		goto err_release;
	sock->sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;
	/*
	 * The manager drops a node it has not heard from for ~25 s (its
	 * keepalive and user timeout); ours finds out as soon, even after a
	 * link outage the manager's FIN or RST was lost in, and with a
	 * QP_INFO unacked, so that we rejoin.
	 */
	sock_set_keepalive(sock->sk);
	tcp_sock_set_keepidle(sock->sk, LITE_KEEPIDLE);
	tcp_sock_set_keepintvl(sock->sk, LITE_KEEPINTVL);
	tcp_sock_set_keepcnt(sock->sk, LITE_KEEPCNT);
	tcp_sock_set_user_timeout(sock->sk, LITE_USER_TIMEOUT_MS);
	lite_cluster.sock = sock;
	lite_echo.cookie = 0;	/* one awaited on the last connection */
	thread = kthread_create(lite_membership_thread, NULL, "lite_member");
	if (IS_ERR(thread)) {
		ret = PTR_ERR(thread);
		lite_cluster.sock = NULL;
		goto err_release;
	}
	/* It may end before kthread_stop(): hold it before it runs. */
	get_task_struct(thread);
	lite_cluster.thread = thread;
	lite_rejoin.args = (struct lite_rejoin_args){
		.sin = *sin,
		.ib_port = ib_port,
		.node_id = lite_cluster.node_id,
	};
	memcpy(lite_rejoin.args.key, key, LITE_KEY_LEN);
	lite_rejoin.armed = true;
	lite_rejoin.tries = 0;
	wake_up_process(thread);
	lite_member_notify(joined, dev);
	*node_id = lite_cluster.node_id;
	pr_info("joined the cluster at %pI4:%u as node %u (generation %u, %u QPs per peer)\n",
		&sin->sin_addr, ntohs(sin->sin_port), lite_cluster.node_id,
		lite_cluster.gen, lite_cluster.k);
	mutex_unlock(&lite_cluster.lock);
	return 0;

err_release:
	lite_auth_free(&lite_cluster.auth);
	lite_cluster.node_id = 0;
	lite_cluster.dev = NULL;
	sock_release(sock);
err_pool:
	lite_member_notify(leave);
	lite_pool_stop();
out_unlock:
	mutex_unlock(&lite_cluster.lock);
	return ret;
}

/**
 * lite_membership_join() - join the cluster whose manager is at @manager
 * @manager: IPv4 address of lite-manager, as text
 * @port: its TCP port
 * @ib_port: RDMA port to use; 0 for the module parameter, which is the only
 *	port this node serves
 * @key: the cluster key (LITE_KEY_LEN bytes), kept while joined
 * @node_id: set to the id the manager assigned
 *
 * Connections to the other members are then built in the background; see
 * lite_nr_nodes(). Should the manager connection be lost, the node rejoins
 * by itself (lite_rejoin_work()) with the same arguments.
 *
 * Context: process context; sleeps up to 10 s for the manager.
 * Return: 0, -EISCONN when already joined, -EINVAL for a bad address or
 * port, -ENODEV/-ENETDOWN/-EADDRNOTAVAIL when the RDMA port is unusable, a
 * socket error, the manager's refusal as -errno (-EACCES: another cluster
 * key), or -EPROTO.
 */
int lite_membership_join(const char *manager, u16 port, u32 ib_port,
			 const u8 *key, u32 *node_id)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (!port || !in4_pton(manager, -1, (u8 *)&sin.sin_addr.s_addr, '\0', NULL))
		return -EINVAL;
	if (ib_port && ib_port != lite_param_port)
		return -EINVAL;

	/*
	 * The manager connection was lost, so the manager dropped this node
	 * (its peers did too): leave what is left of that membership first.
	 */
	if (READ_ONCE(lite_cluster.lost)) {
		pr_info("leaving the cluster whose manager connection was lost, to rejoin\n");
		lite_membership_exit();
	}
	return lite_join_at(&sin, ib_port, key, 0, node_id);
}

/*
 * Does the manager at @sin serve? It must send its CHALLENGE within 2 s
 * of a connection: a listening socket alone accepts connections into its
 * backlog while its manager exits or hangs, and leaving for that one
 * would lose the membership we still have.
 */
static int lite_manager_probe(const struct sockaddr_in *sin)
{
	union lite_msg_body *body;
	struct socket *sock;
	int ret;

	body = kmalloc(sizeof(*body), GFP_KERNEL);
	if (!body)
		return -ENOMEM;
	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (ret)
		goto out;
	sock->sk->sk_sndtimeo = LITE_REJOIN_PROBE;
	sock->sk->sk_rcvtimeo = LITE_REJOIN_PROBE;
	ret = kernel_connect(sock, (struct sockaddr *)sin, sizeof(*sin), 0);
	if (!ret) {
		ret = lite_recv_msg(sock, body);
		ret = ret == LITE_MSG_CHALLENGE ? 0 : ret < 0 ? ret : -EPROTO;
	}
	sock_release(sock);
out:
	kfree(body);
	return ret;
}

static void lite_membership_leave(void);

/*
 * lite_rejoin_work() - rejoin after the manager connection was lost
 *
 * The manager dropped this node (or will): its keepalive or user timeout
 * ran out while our link was down, or it stopped. Once the manager accepts
 * a connection again, leave what is left of the old membership and join as
 * lite-join would, asking for our old id (the manager gives it back, also
 * while it still holds our old connection). Until then the old peers stay
 * connected, as they were. Tried every second for a minute, then every
 * 5 s, until joined, or until a leave other than this one's.
 *
 * Context: a work item on system_long_wq; takes the membership locks.
 */
static void lite_rejoin_work(struct work_struct *work)
{
	struct lite_rejoin_args *a;
	unsigned int tries;
	u32 id;
	int ret;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	mutex_lock(&lite_cluster.lock);
	/* Joined again meanwhile (lite-join), or left for good. */
	if (!lite_rejoin.armed ||
	    (lite_cluster.sock && !READ_ONCE(lite_cluster.lost))) {
		mutex_unlock(&lite_cluster.lock);
		kfree(a);
		return;
	}
	if (a)
		*a = lite_rejoin.args;
	tries = ++lite_rejoin.tries;
	mutex_unlock(&lite_cluster.lock);
	if (!a) {
		ret = -ENOMEM;
		goto again;
	}
	ret = lite_manager_probe(&a->sin);
	if (ret)
		goto again;
	if (READ_ONCE(lite_cluster.lost)) {
		pr_info("the manager at %pI4:%u answers again: leaving the old membership, to rejoin as node %u\n",
			&a->sin.sin_addr, ntohs(a->sin.sin_port), a->node_id);
		lite_membership_leave();
	}
	ret = lite_join_at(&a->sin, a->ib_port, a->key, a->node_id, &id);
	if (ret == -EADDRINUSE) {
		/* Another node has our id now: any id will do. */
		ret = lite_join_at(&a->sin, a->ib_port, a->key, 0, &id);
	}
	if (!ret || ret == -EISCONN) {
		if (!ret)
			pr_info("rejoined as node %u after %u tries\n", id, tries);
		kfree_sensitive(a);
		return;
	}
again:
	kfree_sensitive(a);
	if (tries == 1 || !(tries % LITE_REJOIN_FAST_TRIES))
		pr_warn("rejoining the cluster failed (%d, try %u); trying again every %u s\n",
			ret, tries, tries < LITE_REJOIN_FAST_TRIES ?
			LITE_REJOIN_FAST / HZ : LITE_REJOIN_SLOW / HZ);
	lite_rejoin_queue(tries < LITE_REJOIN_FAST_TRIES ? LITE_REJOIN_FAST :
			  LITE_REJOIN_SLOW);
}

/*
 * Leave the cluster: close the manager connection (the manager tells the
 * others) and tear down every peer's QPs. Keeps what a rejoin needs.
 */
static void lite_membership_leave(void)
{
	struct task_struct *thread;
	unsigned int i;

	mutex_lock(&lite_cluster.leave);
	mutex_lock(&lite_cluster.lock);
	thread = lite_cluster.thread;
	lite_cluster.thread = NULL;
	if (lite_cluster.sock)
		kernel_sock_shutdown(lite_cluster.sock, SHUT_RDWR);
	mutex_unlock(&lite_cluster.lock);

	/* The thread takes the lock per message: stop it unlocked. */
	if (thread) {
		kthread_stop(thread);
		put_task_struct(thread);
	}
	/* None is sent from here on: lite_echo_send() wants the thread. */
	cancel_delayed_work_sync(&lite_echo.work);

	mutex_lock(&lite_cluster.lock);
	for (i = 1; i < LITE_MAX_NODES; i++)
		lite_peer_remove(i);
	/* No peer can reach our memory any more: free what we own. */
	lite_ctrl_flush();
	lite_member_notify(leave);	/* and no new LMRs */
	lite_pool_stop();
	lite_auth_free(&lite_cluster.auth);
	if (lite_cluster.sock) {
		sock_release(lite_cluster.sock);
		lite_cluster.sock = NULL;
		pr_info("left the cluster (was node %u)\n", lite_cluster.node_id);
	}
	lite_cluster.node_id = 0;
	lite_member_notify(left);	/* RPC receivers see node_id 0, fail */
	lite_cluster.gen = 0;
	lite_cluster.k = 0;
	lite_cluster.dev = NULL;
	WRITE_ONCE(lite_cluster.lost, false);
	mutex_unlock(&lite_cluster.lock);
	mutex_unlock(&lite_cluster.leave);
}

/**
 * lite_membership_exit() - leave the cluster for good: no rejoin by itself
 * until the next join
 *
 * Context: process context, no membership lock held. Safe to call when
 * not joined, and twice.
 */
void lite_membership_exit(void)
{
	lite_rejoin_stop();
	lite_membership_leave();
}
