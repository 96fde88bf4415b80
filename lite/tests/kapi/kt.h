/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of lite_kapi_test.ko share (kt_main.c says what it does
 * and where each part is): the module parameters, the request protocol
 * between the client and the servers, the client's state and the helpers
 * of its checks (kt_util.c), the checks themselves, the server's start
 * and stop.
 */
#ifndef KT_H
#define KT_H

/* Every part includes this first: its lines start "lite_kapi_test: ". */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/types.h>

#include "../../include/lite_kapi.h"
#include "../../include/lite_proto.h"

/* The module parameters the parts read (kt_main.c). */
extern unsigned int kt_servers[LITE_MAX_NODES];
extern int kt_nr_servers;
extern unsigned int kt_nodes;
extern unsigned int kt_port;
extern unsigned int kt_max_msg;
extern unsigned int kt_hold_ms;

#define KT_PW		0x5eed
#define KT_BAD_HANDLE	0x7ffffff0U
#define KT_NO_NODE	(LITE_MAX_NODES - 1)	/* a valid id nobody has */
#define KT_TIMEOUT_MS	20000
#define KT_XOR		0x5a
#define KT_RW		(LITE_PERM_READ | LITE_PERM_WRITE)
#define KT_RWA		(KT_RW | LITE_PERM_ATOMIC)

/* ---- the request protocol between client and servers ------------------- */

enum kt_op {
	KT_OP_STATUS = 1,	/* reply: struct kt_resp with the counters */
	KT_OP_ECHO,		/* reply: @arg bytes (node @node: @arg2), payload ^ KT_XOR */
	KT_OP_NOTE,		/* one-way: count it, sum its bytes */
	KT_OP_ASK_WRITE,	/* ask (@node, @ident, @arg perm), write 64 x @arg2 */
	KT_OP_ASK_KEEP,		/* ask (@node, @ident, READ), keep the handle */
	KT_OP_USE_KEPT,		/* read through the kept handle, then unmap it */
	KT_OP_ADD,		/* one-way: @arg fetch_and_add(1) on the publication */
	KT_OP_BARRIER,		/* reply, fetch_and_add(1), dist_barrier(@arg) */
	KT_OP_LOCK_HOLD,	/* lock (@node, @arg), reply, sleep @arg2 ms, unlock */
	KT_OP_CALL_BACK,	/* reply, then to (@node, @arg): two messages, one call */
	KT_OP_SWAP,		/* one-way: @arg swaps of (id << 32 | k) on the publication */
	KT_OP_SWAPPED,		/* reply: the last SWAP's sum of old values, count */
};

struct kt_req {
	u32	op;
	u32	node;
	u32	arg;
	u32	arg2;
	u64	ident;
	s32	password;
	u32	reserved;
};

struct kt_resp {
	u32	node;		/* the server's liteapi_get_node_id() */
	s32	ret[3];
	u64	val[2];
};

/* The call-back's payloads: two one-way messages, then a call. */
#define KT_CB_MSG_LEN	64
#define KT_CB_CALL_LEN	32

/* ---- checking --------------------------------------------------------- */

struct kt {
	unsigned int	me;
	unsigned int	s1, s2;		/* servers[0], servers[1] (or [0]) */
	unsigned int	cport, free_port;
	u64		ident;		/* publications: ident + n */
	u8		*buf, *ref;	/* KT_BUF bytes each */
	struct kt_req	*req;		/* + payload, max_msg bytes */
	u8		*rbuf;		/* replies: KT_BUF bytes */
	const char	*cur;		/* the check running */
	int		nfail;
};

#define KT_BUF		(1U << 20)
#define KT_BIG		((8U << 20) + 4096)	/* crosses a 4 MiB chunk */

/* t->ref holds KT_MC_N images of KT_MC_SIZE (kt_lmr.c) beside KT_BUF. */
#define KT_MC_SIZE	65536
#define KT_MC_N		5

bool kt_eq_(struct kt *t, int line, const char *expr, long long got,
	    long long want);
bool kt_true_(struct kt *t, int line, const char *expr, bool cond);

/* Evaluate @expr once, log and count a failure when it is not @want. */
#define KT_EQ(expr, want)	kt_eq_(t, __LINE__, #expr, (expr), (want))
#define KT_TRUE(cond)		kt_true_(t, __LINE__, #cond, (cond))

void kt_pattern(u8 *p, size_t len, u32 seed);
int kt_alloc(struct kt *t, unsigned int node, u64 size, bool atomic);
int kt_alloc_filled(struct kt *t, unsigned int node, u64 size, u32 seed);
void kt_put(int *lh);
bool kt_same(struct kt *t, int lh, u64 off, const u8 *want, u64 len);
int kt_publish_ask(struct kt *t, int lh, unsigned int node, u64 ident,
		   u32 perm);
int kt_call(struct kt *t, unsigned int node, const struct kt_req *r,
	    u32 plen, u32 room);
static inline struct kt_resp *kt_resp(struct kt *t)
{
	return (struct kt_resp *)t->rbuf;
}

bool kt_status(struct kt *t, unsigned int node, struct kt_resp *st);
void kt_server_clean(struct kt *t, unsigned int node);

/* The checks, named after the call each covers (kt_checks[], kt_main.c). */

/* kt_cluster.c */
void kt_get_node_id(struct kt *t);
void kt_get_total_node(struct kt *t);
void kt_establish_conn(struct kt *t);
void kt_establish_conn_key(struct kt *t);
void kt_create_lock(struct kt *t);
void kt_ask_lock(struct kt *t);
void kt_lock(struct kt *t);
void kt_unlock(struct kt *t);
void kt_dist_barrier(struct kt *t);

/* kt_lmr.c */
void kt_alloc_remote_mem(struct kt *t);
void kt_rdma_write_offset(struct kt *t);
void kt_rdma_read_offset(struct kt *t);
void kt_remote_memset(struct kt *t);
void kt_rdma_mr_memcpy(struct kt *t);
void kt_rdma_mr_memmov(struct kt *t);

/* kt_async.c */
void kt_rdma_write_async(struct kt *t);
void kt_rdma_read_async(struct kt *t);
void kt_poll(struct kt *t);
void kt_fence(struct kt *t);

/* kt_share.c */
void kt_add_askmr_table(struct kt *t);
void kt_ask_mr(struct kt *t);
void kt_deregister_mr(struct kt *t);
void kt_umap_lmr(struct kt *t);

/* kt_rpc.c */
void kt_register_application(struct kt *t);
void kt_query_port(struct kt *t);
void kt_send_reply_imm(struct kt *t);
void kt_send_reply_imm_multicast(struct kt *t);
void kt_send_message(struct kt *t);
void kt_receive_message(struct kt *t);
void kt_reply_message(struct kt *t);

/* kt_atomic.c */
void kt_rdma_fetch_and_add(struct kt *t);
void kt_rdma_compare_and_swp(struct kt *t);
void kt_rdma_swp(struct kt *t);

/* role=server (kt_server.c) */
int kt_server(void);
void kt_server_stop(void);

#endif /* KT_H */
