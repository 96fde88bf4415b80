/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The manager's protocol state machine: membership (node ids, generations,
 * the cluster's K and link layer) and what each connection may send, without
 * sockets. The daemon feeds it received bytes and tells it when a connection
 * is gone; it answers through two callbacks, send and log. The fuzz harness
 * drives the same code with in-memory callbacks.
 */
#ifndef LITE_MANAGER_CLUSTER_H
#define LITE_MANAGER_CLUSTER_H

#include <stdint.h>

#include "auth.h"
#include "framer.h"
#include "proto.h"

/* "IP:PORT" of an IPv6 peer with brackets, or any test label. */
#define LITE_PEER_STRLEN 64

enum lite_sess_state {
	LITE_SESS_NEW,		/* CHALLENGE sent, only a JOIN may come */
	LITE_SESS_MEMBER,	/* joined: holds node_id/gen */
	LITE_SESS_GONE,		/* left: ignored from now on */
};

/* One connection's protocol state. */
struct lite_sess {
	enum lite_sess_state state;
	struct lite_framer framer;
	unsigned int node_id;
	uint32_t gen;
	struct lite_port_addr addr;	/* as the node sent it */
	char name[LITE_NAME_LEN];	/* validated, NUL-padded */
	char peer[LITE_PEER_STRLEN];	/* for log lines */
	struct lite_mac_state rx, tx;	/* nonces, message counts */
	/* Drops to one stale (dst, gen) are logged once, then counted. */
	unsigned int drop_dst;
	uint32_t drop_gen;
	unsigned long drop_repeats;
	void *owner;			/* the daemon's connection */
};

struct lite_cluster_cfg {
	unsigned int max_nodes;	/* ids 1..max_nodes */
	unsigned int k;		/* 0: the first member's */
	unsigned int ib_port;	/* 0: any */
	uint8_t key[LITE_KEY_LEN];	/* the cluster key */
};

struct lite_cluster_ops {
	/*
	 * Queue one whole message to TO. Must not call back into the cluster:
	 * a connection that cannot take more is closed later, by the caller.
	 */
	void (*send)(void *ctx, struct lite_sess *to, const void *msg,
		     size_t len);
	void (*log)(void *ctx, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	/* LEN unpredictable bytes for a nonce; 0 or -errno. */
	int (*random)(void *ctx, void *buf, size_t len);
	/*
	 * Optional: close S's connection once the current event is over.
	 * S has left already (a rejoin of the same node replaced it); the
	 * caller's lite_sess_leave() on it does nothing more.
	 */
	void (*drop)(void *ctx, struct lite_sess *s);
};

struct lite_cluster {
	struct lite_cluster_cfg cfg;
	const struct lite_cluster_ops *ops;
	void *ctx;
	unsigned int k;			/* 0 until set */
	unsigned int link_layer;	/* 0 until set */
	unsigned int gid_type;		/* with link_layer */
	unsigned int gid_family;	/* RoCE: 4 or 6, with link_layer */
	uint32_t last_gen;		/* generations are never reused */
	unsigned int nr_members;
	struct lite_sess *member[LITE_MAX_NODES];	/* by node id */
};

/* -EINVAL if CFG is out of range. */
int lite_cluster_init(struct lite_cluster *c,
		      const struct lite_cluster_cfg *cfg,
		      const struct lite_cluster_ops *ops, void *ctx);
/* Nothing is owned; kept as the mirror of init. */
void lite_cluster_cleanup(struct lite_cluster *c);

void lite_sess_init(struct lite_sess *s, const char *peer, void *owner);

/* Send S its CHALLENGE: the first thing on every connection. 0 or -errno. */
int lite_sess_start(struct lite_cluster *c, struct lite_sess *s);

/*
 * Feed LEN received bytes. Returns 0, or a negative errno when the
 * connection must be closed: the reason is logged and, if the peer had not
 * joined yet, a REJECT is queued to it. Stop feeding after an error and
 * call lite_sess_leave().
 */
int lite_sess_input(struct lite_cluster *c, struct lite_sess *s,
		    const void *data, size_t len);

/*
 * Close S for a reason found outside the protocol (timeout, overflow):
 * log "<peer>: <reason>; closing" and, if S has not joined, queue a REJECT.
 * Returns ERR, a negative errno. Call lite_sess_leave() next.
 */
int lite_sess_fail(struct lite_cluster *c, struct lite_sess *s, int err,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The connection is gone. A member leaves: PEER_DOWN to every other one. */
void lite_sess_leave(struct lite_cluster *c, struct lite_sess *s);

/* "peer 1.2.3.4:5 (node 3)" or "peer 1.2.3.4:5 (not joined)". */
const char *lite_sess_label(const struct lite_sess *s, char *buf,
			    size_t len);

#endif /* LITE_MANAGER_CLUSTER_H */
