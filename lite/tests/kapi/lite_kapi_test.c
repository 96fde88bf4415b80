// SPDX-License-Identifier: GPL-2.0
/*
 * Behaviour tests of LITE's exported kernel API (include/lite_kapi.h).
 *
 * Two roles, one module:
 *
 *   insmod lite_kapi_test.ko role=server            (on node2 and node3)
 *   insmod lite_kapi_test.ko role=client servers=2,3 nodes=3   (on node1)
 *
 * A server registers @port and runs a kthread that receives requests
 * (struct kt_req) and acts on them: echo, ask and write, atomics, locks,
 * the barrier, calls back to the client. rmmod stops it. The client's
 * multicast calls reach both servers' kthreads at once.
 *
 * The client runs every check of kt_checks[] at load time. Each logs
 * "lite_kapi_test: ok: <name>" or "lite_kapi_test: FAIL: <name>: <why>";
 * a check is named after the liteapi_* call it covers, so a test can
 * compare the ok lines with the exported symbols. Loading fails (-EIO)
 * when a check failed (-EINVAL: bad parameters); @only runs one check, @inject_fail makes every
 * check fail (to prove the harness sees failures).
 *
 * Adding a check: one function "static void kt_<call>(struct kt *t)"
 * using KT_EQ()/KT_TRUE(), and one KT_CHECK() line in kt_checks[].
 *
 * Everything a check allocates it frees. What the kernel API cannot give
 * back stays with lite.ko's kernel context until lite.ko is unloaded:
 * registered ports (no unregister call) and created locks (no destroy
 * call). A second load therefore finds its ports registered already,
 * which it accepts.
 */
#define pr_fmt(fmt) "lite_kapi_test: " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../include/lite_kapi.h"
#include "../../include/lite_proto.h"

static char *role = "client";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "client (runs the checks) or server");

/* What the checks and the server read, beside role, only and inject_fail. */
static unsigned int kt_servers[LITE_MAX_NODES];
static int kt_nr_servers;
static unsigned int kt_nodes;
static unsigned int kt_port = 60;
static unsigned int kt_max_msg = 65536;
static unsigned int kt_hold_ms = 300;

module_param_array_named(servers, kt_servers, uint, &kt_nr_servers, 0444);
MODULE_PARM_DESC(servers, "client: nodes running role=server (at least one; two for 3-node checks)");
module_param_named(nodes, kt_nodes, uint, 0444);
MODULE_PARM_DESC(nodes, "client: expected liteapi_get_total_node() (0: not checked)");
module_param_named(port, kt_port, uint, 0444);
MODULE_PARM_DESC(port, "the servers' RPC port; the client uses port + 1, and port + 2 as a port nobody registered (default 60)");
module_param_named(max_msg, kt_max_msg, uint, 0444);
MODULE_PARM_DESC(max_msg, "server: largest request on its port (default 65536)");
module_param_named(hold_ms, kt_hold_ms, uint, 0444);
MODULE_PARM_DESC(hold_ms, "client: how long a server holds the contended lock (default 300)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "client: run only the check of this name");

static bool inject_fail;
module_param(inject_fail, bool, 0444);
MODULE_PARM_DESC(inject_fail, "client: fail every check that runs (tests the test)");

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

static bool kt_eq_(struct kt *t, int line, const char *expr, long long got,
		   long long want)
{
	if (got == want)
		return true;
	t->nfail++;
	pr_err("FAIL: %s: line %d: %s = %lld, expected %lld\n", t->cur, line,
	       expr, got, want);
	return false;
}

static bool kt_true_(struct kt *t, int line, const char *expr, bool cond)
{
	if (cond)
		return true;
	t->nfail++;
	pr_err("FAIL: %s: line %d: not true: %s\n", t->cur, line, expr);
	return false;
}

/* Evaluate @expr once, log and count a failure when it is not @want. */
#define KT_EQ(expr, want)	kt_eq_(t, __LINE__, #expr, (expr), (want))
#define KT_TRUE(cond)		kt_true_(t, __LINE__, #cond, (cond))

static void kt_pattern(u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)((i + seed) * 2654435761U >> 13);
}

/* An LMR of @size bytes on @node with KT_PW; <= 0 (and a failure) if not. */
static int kt_alloc(struct kt *t, unsigned int node, u64 size, bool atomic)
{
	int lh = liteapi_alloc_remote_mem(node, size, atomic, KT_PW);

	if (lh <= 0) {
		t->nfail++;
		pr_err("FAIL: %s: alloc of %llu bytes on node %u: %d\n", t->cur,
		       size, node, lh);
	}
	return lh;
}

/* Drop a handle: frees the LMR when it is the creator's. */
static void kt_put(int *lh)
{
	if (*lh > 0)
		liteapi_umap_lmr(*lh);
	*lh = 0;
}

/* Does [@off, @off + @len) of @lh read as @want? */
static bool kt_same(struct kt *t, int lh, u64 off, const u8 *want, u64 len)
{
	int ret = liteapi_rdma_read_offset(lh, t->buf, len, LITE_PRIO_NORMAL,
					   off, KT_PW);

	return ret == 0 && !memcmp(t->buf, want, len);
}

/* Publish @lh under @ident with @perm and ask for it back with @perm. */
static int kt_publish_ask(struct kt *t, int lh, unsigned int node, u64 ident,
			  u32 perm)
{
	if (!KT_EQ(liteapi_add_askmr_table(ident, lh, perm, KT_PW), 0))
		return -EINVAL;
	return liteapi_ask_mr(node, ident, perm, KT_PW);
}

/*
 * A request to a server: @r, @plen bytes of payload (already in place
 * after t->req), the reply into t->rbuf (@room bytes).
 */
static int kt_call(struct kt *t, unsigned int node, const struct kt_req *r,
		   u32 plen, u32 room)
{
	*t->req = *r;
	return liteapi_send_reply_imm(node, kt_port, t->req, sizeof(*r) + plen,
				      t->rbuf, room, LITE_PRIO_NORMAL);
}

static struct kt_resp *kt_resp(struct kt *t)
{
	return (struct kt_resp *)t->rbuf;
}

/* STATUS of @node into *@st; false (and a failure) when the call fails. */
static bool kt_status(struct kt *t, unsigned int node, struct kt_resp *st)
{
	struct kt_req r = { .op = KT_OP_STATUS };

	if (!KT_EQ(kt_call(t, node, &r, 0, sizeof(*st)), sizeof(*st)))
		return false;
	*st = *kt_resp(t);
	return KT_EQ(st->node, node);
}

/* The server's own checks, counted in its STATUS, must not have failed. */
static void kt_server_clean(struct kt *t, unsigned int node)
{
	struct kt_resp st;

	if (kt_status(t, node, &st))
		KT_EQ(st.ret[0], 0);
}

/* Poll @p for a message for at most KT_TIMEOUT_MS. */
static int kt_recv_poll(struct kt *t, void *p, u32 size, u64 *desc)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_TIMEOUT_MS);
	int ret;

	do {
		ret = liteapi_receive_message(t->cport, p, size, desc, 0);
		if (ret != -EAGAIN)
			return ret;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return ret;
}

/* ---- the checks, one per exported call -------------------------------- */

static void kt_get_node_id(struct kt *t)
{
	struct kt_resp st;
	int i;

	KT_TRUE(t->me >= 1 && t->me < LITE_MAX_NODES);
	KT_EQ(liteapi_get_node_id(), t->me);
	/* Each server names itself with the id we reach it under. */
	for (i = 0; i < kt_nr_servers; i++) {
		KT_TRUE(kt_servers[i] != t->me);
		kt_status(t, kt_servers[i], &st);
	}
}

static void kt_get_total_node(struct kt *t)
{
	int n = liteapi_get_total_node();

	if (kt_nodes)
		KT_EQ(n, kt_nodes);
	KT_TRUE(n >= 1 + kt_nr_servers);
	KT_TRUE(n < LITE_MAX_NODES);
}

static void kt_establish_conn(struct kt *t)
{
	/* The manager needs the cluster key, which this call cannot give. */
	KT_EQ(liteapi_establish_conn("127.0.0.1", 18500, 0), -ENOKEY);
	KT_EQ(liteapi_establish_conn(NULL, 0, 0), -ENOKEY);
	KT_EQ(liteapi_get_node_id(), t->me);
}

static void kt_establish_conn_key(struct kt *t)
{
	static const u8 key[32];

	KT_EQ(liteapi_establish_conn_key("127.0.0.1", 18500, 0, key), -EISCONN);
	KT_EQ(liteapi_establish_conn_key(NULL, 18500, 0, key), -EINVAL);
	KT_EQ(liteapi_establish_conn_key("127.0.0.1", 18500, 0, NULL), -EINVAL);
	KT_EQ(liteapi_establish_conn_key("not-an-ip", 18500, 0, key), -EINVAL);
	KT_EQ(liteapi_establish_conn_key("127.0.0.1", 0, 0, key), -EINVAL);
	KT_EQ(liteapi_establish_conn_key("127.0.0.1", 65536, 0, key), -EINVAL);
	KT_EQ(liteapi_establish_conn_key("127.0.0.1", 18500, -1, key), -EINVAL);
	KT_EQ(liteapi_establish_conn_key("127.0.0.1", 18500, 99, key), -EINVAL);
	/* Still a member, under the same id. */
	KT_EQ(liteapi_get_node_id(), t->me);
}

static void kt_alloc_remote_mem(struct kt *t)
{
	int l, r, a;

	l = kt_alloc(t, t->me, 4096, false);
	r = kt_alloc(t, t->s1, 4096, false);
	a = kt_alloc(t, t->s1, 8, true);
	KT_TRUE(l != r && r != a && l != a);
	/* New LMRs read as zeros. */
	memset(t->ref, 0, 4096);
	KT_TRUE(kt_same(t, l, 0, t->ref, 4096));
	KT_TRUE(kt_same(t, r, 0, t->ref, 4096));
	KT_TRUE(kt_same(t, a, 0, t->ref, 8));
	KT_EQ(liteapi_alloc_remote_mem(0, 4096, false, KT_PW), -EINVAL);
	KT_EQ(liteapi_alloc_remote_mem(LITE_MAX_NODES, 4096, false, KT_PW), -EINVAL);
	KT_EQ(liteapi_alloc_remote_mem(KT_NO_NODE, 4096, false, KT_PW), -ENOTCONN);
	KT_EQ(liteapi_alloc_remote_mem(t->s1, 0, false, KT_PW), -EINVAL);
	KT_EQ(liteapi_alloc_remote_mem(t->s1, LITE_LMR_MAX_SIZE + 1, false, KT_PW),
	      -EFBIG);
	kt_put(&l);
	kt_put(&r);
	kt_put(&a);
}

static int kt_write(unsigned int lh, void *p, u64 size, int prio, u64 off,
		    int pw)
{
	return liteapi_rdma_write_offset(lh, p, size, prio, off, pw);
}

/* Errors shared by read and write: the same checks on either direction. */
static void kt_rw_errors(struct kt *t, int lh, u64 size, bool write)
{
	int (*rw)(unsigned int lh, void *p, u64 size, int prio, u64 off, int pw);

	rw = write ? kt_write : liteapi_rdma_read_offset;
	KT_EQ(rw(KT_BAD_HANDLE, t->buf, 8, 0, 0, KT_PW), -ENOENT);
	KT_EQ(rw(lh, t->buf, 20, 0, size - 10, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 0, 0, size + 1, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 8, 0, U64_MAX - 3, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 8, 0, 0, KT_PW + 1), -EACCES);
	KT_EQ(rw(lh, t->buf, 8, 3, 0, KT_PW), -EINVAL);
	KT_EQ(rw(lh, t->buf, 8, -1, 0, KT_PW), -EINVAL);
	KT_EQ(rw(lh, t->buf, LITE_LMR_MAX_SIZE + 1, 0, 0, KT_PW), -ERANGE);
	KT_EQ(rw(lh, t->buf, 0, 0, 0, KT_PW), 0);
}

static void kt_rdma_write_offset(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	u64 off = (4U << 20) - 32768;
	int i, lh;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], KT_BIG, false);
		if (lh <= 0)
			continue;
		/* 64 KiB across the 4 MiB chunk boundary. */
		kt_pattern(t->ref, 65536, i + 1);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, 65536,
						LITE_PRIO_NORMAL, off, KT_PW), 0);
		KT_TRUE(kt_same(t, lh, off, t->ref, 65536));
		/* Untouched bytes stay zero. */
		KT_EQ(liteapi_rdma_read_offset(lh, t->buf, 64, 0, off - 64, KT_PW), 0);
		KT_TRUE(!memchr_inv(t->buf, 0, 64));
		/* Every priority; the very last bytes. */
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, 100, LITE_PRIO_HIGH,
						0, KT_PW), 0);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref + 100, 100,
						LITE_PRIO_LOW, KT_BIG - 100,
						KT_PW), 0);
		KT_TRUE(kt_same(t, lh, 0, t->ref, 100));
		KT_TRUE(kt_same(t, lh, KT_BIG - 100, t->ref + 100, 100));
		kt_rw_errors(t, lh, KT_BIG, true);
		kt_put(&lh);
	}
}

static void kt_rdma_read_offset(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s2 };
	int i, lh;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], KT_BUF, false);
		if (lh <= 0)
			continue;
		kt_pattern(t->ref, KT_BUF, 7 + i);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, KT_BUF, 0, 0, KT_PW), 0);
		/* The whole, and an unaligned piece, at each priority. */
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_BUF));
		memset(t->buf, 0, 1000);
		KT_EQ(liteapi_rdma_read_offset(lh, t->buf, 1000, LITE_PRIO_HIGH,
					       12345, KT_PW), 0);
		KT_TRUE(!memcmp(t->buf, t->ref + 12345, 1000));
		KT_EQ(liteapi_rdma_read_offset(lh, t->buf, 1, LITE_PRIO_LOW,
					       KT_BUF - 1, KT_PW), 0);
		KT_EQ(t->buf[0], t->ref[KT_BUF - 1]);
		kt_rw_errors(t, lh, KT_BUF, false);
		kt_put(&lh);
	}
}

#define KT_AS_N		8		/* operations in flight */
#define KT_AS_LEN	8192		/* bytes each */
#define KT_AS_SIZE	(KT_AS_N * KT_AS_LEN)

/*
 * Reap the completions of ids @base .. @base + @n - 1 (@n <= KT_AS_N) with
 * liteapi_poll(), @max (1 .. KT_AS_N) per call at most: each must come
 * once, with status 0.
 */
static void kt_reap(struct kt *t, u64 base, unsigned int n, unsigned int max)
{
	struct lite_completion c[KT_AS_N];
	unsigned long seen = 0;
	unsigned int got = 0;
	int ret, i;

	while (got < n) {
		ret = liteapi_poll(c, max, KT_TIMEOUT_MS);
		if (!KT_TRUE(ret >= 1 && ret <= max))
			return;
		for (i = 0; i < ret; i++) {
			KT_EQ(c[i].status, 0);
			if (KT_TRUE(c[i].id >= base && c[i].id < base + n &&
				    !(seen & BIT(c[i].id - base))))
				seen |= BIT(c[i].id - base);
		}
		got += ret;
	}
	KT_EQ(seen, BIT(n) - 1);
}

static int kt_write_async(unsigned int lh, void *p, u64 size, u64 off, int pw,
			  u64 id)
{
	return liteapi_rdma_write_async(lh, p, size, off, pw, id);
}

/* Errors shared by posted reads and writes: nothing gets queued. */
static void kt_async_errors(struct kt *t, int lh, u64 size, bool write)
{
	int (*post)(unsigned int lh, void *p, u64 size, u64 off, int pw, u64 id);
	struct lite_completion c;

	post = write ? kt_write_async : liteapi_rdma_read_async;
	KT_EQ(post(KT_BAD_HANDLE, t->buf, 8, 0, KT_PW, 1), -ENOENT);
	KT_EQ(post(lh, t->buf, 8, 0, KT_PW + 1, 1), -EACCES);
	KT_EQ(post(lh, t->buf, 0, 0, KT_PW, 1), -EINVAL);
	KT_EQ(post(lh, t->buf, LITE_ASYNC_MAX_SIZE + 1, 0, KT_PW, 1), -EINVAL);
	KT_EQ(post(lh, t->buf, 16, size - 8, KT_PW, 1), -ERANGE);
	KT_EQ(post(lh, t->buf, 8, U64_MAX - 3, KT_PW, 1), -ERANGE);
	KT_EQ(post(lh, NULL, 8, 0, KT_PW, 1), -EINVAL);
	KT_EQ(liteapi_poll(&c, 1, 0), 0);
}

static void kt_rdma_write_async(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	u64 base = t->ident + 800;
	int i, j, lh, ro;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], KT_AS_SIZE, false);
		if (lh <= 0)
			continue;
		kt_pattern(t->ref, KT_AS_SIZE, 50 + i);
		/* All in flight at once; each source is copied when posted. */
		for (j = 0; j < KT_AS_N; j++) {
			memcpy(t->buf, t->ref + j * KT_AS_LEN, KT_AS_LEN);
			KT_EQ(liteapi_rdma_write_async(lh, t->buf, KT_AS_LEN,
						       j * KT_AS_LEN, KT_PW,
						       base + j), 0);
			memset(t->buf, 0, KT_AS_LEN);
		}
		kt_reap(t, base, KT_AS_N, KT_AS_N);
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_AS_SIZE));
		/* One byte, the very last. */
		KT_EQ(liteapi_rdma_write_async(lh, "z", 1, KT_AS_SIZE - 1, KT_PW,
					       base), 0);
		kt_reap(t, base, 1, 1);
		t->ref[KT_AS_SIZE - 1] = 'z';
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_AS_SIZE));
		kt_async_errors(t, lh, KT_AS_SIZE, true);
		/* A read-only mapping takes no write. */
		ro = kt_publish_ask(t, lh, node[i], base + i, LITE_PERM_READ);
		if (KT_TRUE(ro > 0))
			KT_EQ(liteapi_rdma_write_async(ro, t->buf, 8, 0, KT_PW,
						       base), -EPERM);
		KT_TRUE(kt_same(t, lh, 0, t->ref, KT_AS_SIZE));
		kt_put(&ro);
		kt_put(&lh);
	}
}

static void kt_rdma_read_async(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s2 };
	u64 base = t->ident + 820;
	int i, j, lh;
	u8 *dst;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], KT_AS_SIZE, false);
		if (lh <= 0)
			continue;
		kt_pattern(t->ref, KT_AS_SIZE, 55 + i);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, KT_AS_SIZE, 0, 0,
						KT_PW), 0);
		/* Piece j lands at its own address: the slots in reverse. */
		memset(t->rbuf, 0, KT_AS_SIZE);
		for (j = 0; j < KT_AS_N; j++) {
			dst = t->rbuf + (KT_AS_N - 1 - j) * KT_AS_LEN;
			KT_EQ(liteapi_rdma_read_async(lh, dst, KT_AS_LEN,
						      j * KT_AS_LEN, KT_PW,
						      base + j), 0);
		}
		kt_reap(t, base, KT_AS_N, KT_AS_N);
		for (j = 0; j < KT_AS_N; j++)
			if (memcmp(t->rbuf + (KT_AS_N - 1 - j) * KT_AS_LEN,
				   t->ref + j * KT_AS_LEN, KT_AS_LEN))
				KT_EQ(j, -1);	/* piece j differs */
		/* Unaligned, odd length. */
		memset(t->buf, 0, 1000);
		KT_EQ(liteapi_rdma_read_async(lh, t->buf, 999, 12345, KT_PW,
					      base), 0);
		kt_reap(t, base, 1, 1);
		KT_TRUE(!memcmp(t->buf, t->ref + 12345, 999));
		KT_EQ(t->buf[999], 0);
		kt_async_errors(t, lh, KT_AS_SIZE, false);
		kt_put(&lh);
	}
}

static void kt_poll(struct kt *t)
{
	struct lite_completion c[KT_AS_N];
	u64 base = t->ident + 840;
	unsigned long t0;
	int j, lh;

	/* Nothing in flight: nothing to wait for, whatever the timeout. */
	KT_EQ(liteapi_poll(c, KT_AS_N, 0), 0);
	t0 = jiffies;
	KT_EQ(liteapi_poll(c, KT_AS_N, 5000), 0);
	KT_TRUE(jiffies_to_msecs(jiffies - t0) < 2500);
	KT_EQ(liteapi_poll(NULL, 0, 0), 0);
	KT_EQ(liteapi_poll(NULL, 1, 0), -EINVAL);
	lh = kt_alloc(t, t->s1, KT_AS_SIZE, false);
	if (lh <= 0)
		return;
	kt_pattern(t->ref, KT_AS_SIZE, 58);
	KT_EQ(liteapi_rdma_write_offset(lh, t->ref, KT_AS_SIZE, 0, 0, KT_PW), 0);
	/* @max 0 waits for a completion and reaps none: it stays queued. */
	memset(t->buf, 0, KT_AS_SIZE);
	KT_EQ(liteapi_rdma_read_async(lh, t->buf, 64, 0, KT_PW, base), 0);
	KT_EQ(liteapi_poll(c, 0, KT_TIMEOUT_MS), 0);
	KT_EQ(liteapi_poll(c, KT_AS_N, KT_TIMEOUT_MS), 1);
	KT_EQ(c[0].id, base);
	KT_EQ(c[0].status, 0);
	KT_TRUE(!memcmp(t->buf, t->ref, 64));
	/* At most @max per call: six in flight, reaped two at a time. */
	memset(t->buf, 0, KT_AS_SIZE);
	for (j = 0; j < 6; j++)
		KT_EQ(liteapi_rdma_read_async(lh, t->buf + j * KT_AS_LEN,
					      KT_AS_LEN, j * KT_AS_LEN, KT_PW,
					      base + j), 0);
	kt_reap(t, base, 6, 2);
	KT_TRUE(!memcmp(t->buf, t->ref, 6 * KT_AS_LEN));
	KT_EQ(liteapi_poll(c, KT_AS_N, 0), 0);
	kt_put(&lh);
}

static void kt_fence(struct kt *t)
{
	struct lite_completion c;
	u64 base = t->ident + 860;
	int l, lh, j, n, ret = 0;

	KT_EQ(liteapi_fence(0), 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	lh = kt_alloc(t, t->s2, KT_AS_SIZE, false);
	l = kt_alloc(t, t->me, 4096, false);
	if (lh <= 0 || l <= 0)
		goto out;
	/* Writes, the fence; reads of what they wrote, the fence. */
	kt_pattern(t->ref, KT_AS_SIZE, 59);
	for (j = 0; j < KT_AS_N; j++)
		KT_EQ(liteapi_rdma_write_async(lh, t->ref + j * KT_AS_LEN,
					       KT_AS_LEN, j * KT_AS_LEN, KT_PW,
					       base + j), 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	KT_EQ(liteapi_poll(&c, 1, 0), 0);	/* it reaped them */
	memset(t->rbuf, 0, KT_AS_SIZE);
	for (j = 0; j < KT_AS_N; j++)
		KT_EQ(liteapi_rdma_read_async(lh, t->rbuf + j * KT_AS_LEN,
					      KT_AS_LEN, j * KT_AS_LEN, KT_PW,
					      base + KT_AS_N + j), 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	KT_TRUE(!memcmp(t->rbuf, t->ref, KT_AS_SIZE));
	KT_EQ(liteapi_poll(&c, 1, 0), 0);
	/* A full queue refuses with -EAGAIN; the fence empties it. */
	for (n = 0; n < 65536; n++) {
		ret = liteapi_rdma_write_async(l, t->ref, 1, n % 4096, KT_PW,
					       base + n);
		if (ret)
			break;
	}
	KT_EQ(ret, -EAGAIN);
	KT_TRUE(n > 0);
	KT_EQ(liteapi_fence(KT_TIMEOUT_MS), 0);
	KT_EQ(liteapi_poll(&c, 1, 0), 0);
	/* Local copies complete when posted: no wait needed. */
	KT_EQ(liteapi_rdma_write_async(l, t->ref, 8, 0, KT_PW, base), 0);
	KT_EQ(liteapi_fence(0), 0);
	KT_TRUE(kt_same(t, l, 0, t->ref, 8));
out:
	kt_put(&lh);
	kt_put(&l);
}

static void kt_remote_memset(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	int i, lh;

	for (i = 0; i < 2; i++) {
		lh = kt_alloc(t, node[i], 8192, false);
		if (lh <= 0)
			continue;
		kt_pattern(t->ref, 8192, 3);
		KT_EQ(liteapi_rdma_write_offset(lh, t->ref, 8192, 0, 0, KT_PW), 0);
		KT_EQ(liteapi_remote_memset(lh, 100, 0xab, 1000), 0);
		memset(t->ref + 100, 0xab, 1000);
		KT_EQ(liteapi_remote_memset(lh, 8191, 0, 1), 0);
		t->ref[8191] = 0;
		KT_EQ(liteapi_remote_memset(lh, 0, 7, 0), 0);
		KT_TRUE(kt_same(t, lh, 0, t->ref, 8192));
		KT_EQ(liteapi_remote_memset(lh, 0, 256, 8), -EINVAL);
		KT_EQ(liteapi_remote_memset(lh, 0, -1, 8), -EINVAL);
		KT_EQ(liteapi_remote_memset(lh, 8000, 0, 193), -ERANGE);
		KT_EQ(liteapi_remote_memset(KT_BAD_HANDLE, 0, 0, 8), -ENOENT);
		KT_TRUE(kt_same(t, lh, 0, t->ref, 8192));
		kt_put(&lh);
	}
}

#define KT_MC_SIZE	65536
#define KT_MC_N		5

/* Copy with @fn and apply the same copy to the reference images in @ref. */
static void kt_copy(struct kt *t, int (*fn)(unsigned int, u64, unsigned int,
					    u64, u64), const int *lh, u8 *ref,
		    int d, u64 doff, int s, u64 soff, u64 len)
{
	KT_EQ(fn(lh[d], doff, lh[s], soff, len), 0);
	memmove(ref + d * KT_MC_SIZE + doff, ref + s * KT_MC_SIZE + soff, len);
}

/* LMRs on this node (0, 1), on s1 (2, 3) and on s2 (4), with patterns. */
static bool kt_mc_setup(struct kt *t, int *lh)
{
	unsigned int node[KT_MC_N] = { t->me, t->me, t->s1, t->s1, t->s2 };
	int i;

	for (i = 0; i < KT_MC_N; i++) {
		lh[i] = kt_alloc(t, node[i], KT_MC_SIZE, false);
		if (lh[i] <= 0)
			return false;
		kt_pattern(t->ref + i * KT_MC_SIZE, KT_MC_SIZE, 100 + i);
		if (!KT_EQ(liteapi_rdma_write_offset(lh[i], t->ref + i * KT_MC_SIZE,
						     KT_MC_SIZE, 0, 0, KT_PW), 0))
			return false;
	}
	return true;
}

static void kt_mc_verify(struct kt *t, const int *lh)
{
	int i;

	for (i = 0; i < KT_MC_N; i++)
		if (!kt_same(t, lh[i], 0, t->ref + i * KT_MC_SIZE, KT_MC_SIZE))
			KT_EQ(i, -1);	/* LMR i differs from its image */
}

static void kt_mc_teardown(int *lh)
{
	int i;

	for (i = 0; i < KT_MC_N; i++)
		kt_put(&lh[i]);
}

static void kt_rdma_mr_memcpy(struct kt *t)
{
	int (*fn)(unsigned int, u64, unsigned int, u64, u64) = liteapi_rdma_mr_memcpy;
	int lh[KT_MC_N] = { 0 };

	if (kt_mc_setup(t, lh)) {
		kt_copy(t, fn, lh, t->ref, 2, 1000, 0, 0, 16384);	/* local -> remote */
		kt_copy(t, fn, lh, t->ref, 0, 40000, 2, 2000, 8192);	/* remote -> local */
		kt_copy(t, fn, lh, t->ref, 4, 1, 2, 3, 30000);		/* s1 -> s2 */
		kt_copy(t, fn, lh, t->ref, 3, 0, 2, 0, KT_MC_SIZE);	/* on s1 */
		kt_copy(t, fn, lh, t->ref, 1, 5, 0, 7, 777);		/* on this node */
		KT_EQ(fn(lh[2], 0, lh[0], 0, 0), 0);
		kt_mc_verify(t, lh);
		KT_EQ(fn(lh[2], KT_MC_SIZE - 10, lh[0], 0, 11), -ERANGE);
		KT_EQ(fn(lh[2], 0, lh[4], KT_MC_SIZE - 10, 11), -ERANGE);
		KT_EQ(fn(KT_BAD_HANDLE, 0, lh[0], 0, 8), -ENOENT);
		KT_EQ(fn(lh[0], 0, KT_BAD_HANDLE, 0, 8), -ENOENT);
		kt_mc_verify(t, lh);
	}
	kt_mc_teardown(lh);
}

static void kt_rdma_mr_memmov(struct kt *t)
{
	int (*fn)(unsigned int, u64, unsigned int, u64, u64) = liteapi_rdma_mr_memmov;
	int lh[KT_MC_N] = { 0 };

	if (kt_mc_setup(t, lh)) {
		/* Overlapping, both ways, in a local and in a remote LMR. */
		kt_copy(t, fn, lh, t->ref, 0, 100, 0, 0, 30000);
		kt_copy(t, fn, lh, t->ref, 0, 0, 0, 5000, 30000);
		kt_copy(t, fn, lh, t->ref, 2, 4096, 2, 1, 40000);
		kt_copy(t, fn, lh, t->ref, 2, 3, 2, 4000, 50000);
		/* Between nodes it is a copy. */
		kt_copy(t, fn, lh, t->ref, 4, 10, 0, 20, 20000);
		kt_mc_verify(t, lh);
		KT_EQ(fn(lh[2], 1, lh[2], 0, KT_MC_SIZE), -ERANGE);
		KT_EQ(fn(KT_BAD_HANDLE, 0, lh[2], 0, 8), -ENOENT);
		kt_mc_verify(t, lh);
	}
	kt_mc_teardown(lh);
}

/* 4 KiB LMRs on this node (*@l) and on s1 (*@a); false if one failed. */
static bool kt_alloc_me_s1(struct kt *t, int *l, int *a)
{
	*l = kt_alloc(t, t->me, 4096, false);
	*a = kt_alloc(t, t->s1, 4096, false);
	return *l > 0 && *a > 0;
}

static void kt_add_askmr_table(struct kt *t)
{
	u64 id = t->ident + 100;
	int l, r, h = 0;

	if (!kt_alloc_me_s1(t, &l, &r))
		goto out;
	KT_EQ(liteapi_add_askmr_table(id, l, KT_RW, KT_PW), 0);
	KT_EQ(liteapi_add_askmr_table(id, l, LITE_PERM_READ, KT_PW), -EEXIST);
	/* Identifiers are per node: s1 may have its own id. */
	KT_EQ(liteapi_add_askmr_table(id, r, LITE_PERM_READ | LITE_PERM_SHARE,
				      KT_PW), 0);
	KT_EQ(liteapi_add_askmr_table(id + 1, r, LITE_PERM_ADMIN, KT_PW), -EINVAL);
	KT_EQ(liteapi_add_askmr_table(id + 1, r, 0, KT_PW), -EINVAL);
	KT_EQ(liteapi_add_askmr_table(id + 1, r, 0x20, KT_PW), -EINVAL);
	/* ATOMIC on an LMR that is not atomic: its handle has no such bit. */
	KT_EQ(liteapi_add_askmr_table(id + 1, r, LITE_PERM_ATOMIC, KT_PW), -EPERM);
	KT_EQ(liteapi_add_askmr_table(id + 1, KT_BAD_HANDLE, LITE_PERM_READ, KT_PW),
	      -ENOENT);
	/* What was published is what askers get. */
	h = liteapi_ask_mr(t->s1, id, LITE_PERM_READ | LITE_PERM_SHARE, KT_PW);
	KT_TRUE(h > 0);
	/* Re-publishing through a mapping: at most its own bits. */
	KT_EQ(liteapi_add_askmr_table(id + 2, h, KT_RW, KT_PW), -EPERM);
	KT_EQ(liteapi_add_askmr_table(id + 2, h, LITE_PERM_READ, KT_PW + 1), 0);
	kt_put(&h);
	h = liteapi_ask_mr(t->s1, id + 2, LITE_PERM_READ, KT_PW + 1);
	KT_TRUE(h > 0);
	kt_put(&h);
	/* Freeing the LMR withdraws its publications. */
	kt_put(&l);
	kt_put(&r);
	KT_EQ(liteapi_ask_mr(t->me, id, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id + 2, LITE_PERM_READ, KT_PW + 1), -EACCES);
out:
	kt_put(&l);
	kt_put(&r);
}

static void kt_ask_mr(struct kt *t)
{
	struct kt_req r = { .op = KT_OP_ASK_WRITE, .password = KT_PW };
	u64 id = t->ident + 200;
	int l, a, hl = 0, ha = 0;

	if (!kt_alloc_me_s1(t, &l, &a))
		goto out;
	hl = kt_publish_ask(t, l, t->me, id, KT_RW);
	KT_TRUE(hl > 0 && hl != l);
	kt_pattern(t->ref, 4096, 21);
	KT_EQ(liteapi_rdma_write_offset(hl, t->ref, 4096, 0, 0, KT_PW), 0);
	KT_TRUE(kt_same(t, l, 0, t->ref, 4096));
	KT_EQ(liteapi_rdma_write_offset(a, t->ref, 4096, 0, 0, KT_PW), 0);
	ha = kt_publish_ask(t, a, t->s1, id + 1, LITE_PERM_READ);
	KT_TRUE(ha > 0);
	KT_TRUE(kt_same(t, ha, 0, t->ref, 4096));
	/* A read-only mapping: no write, memset, memcpy into it, free. */
	KT_EQ(liteapi_rdma_write_offset(ha, t->ref, 8, 0, 0, KT_PW), -EPERM);
	KT_EQ(liteapi_remote_memset(ha, 0, 0, 8), -EPERM);
	KT_EQ(liteapi_rdma_mr_memcpy(ha, 0, l, 0, 8), -EPERM);
	KT_EQ(liteapi_deregister_mr(ha), -EPERM);
	KT_TRUE(kt_same(t, a, 0, t->ref, 4096));
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, LITE_PERM_READ, KT_PW + 1), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id + 77, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, KT_RW, KT_PW), -EPERM);
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, 0, KT_PW), -EINVAL);
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, 0x20, KT_PW), -EINVAL);
	KT_EQ(liteapi_ask_mr(0, id + 1, LITE_PERM_READ, KT_PW), -EINVAL);
	KT_EQ(liteapi_ask_mr(KT_NO_NODE, id + 1, LITE_PERM_READ, KT_PW), -ENOTCONN);
	/* Another node asks for this node's LMR and writes into it. */
	r.node = t->me;
	r.ident = id;
	r.arg = KT_RW;
	r.arg2 = 0x77;
	if (KT_EQ(kt_call(t, t->s2, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp))) {
		KT_EQ(kt_resp(t)->ret[0], 0);	/* ask */
		KT_EQ(kt_resp(t)->ret[1], 0);	/* write */
		KT_EQ(kt_resp(t)->ret[2], -EACCES);	/* ask, wrong password */
	}
	memset(t->ref, 0x77, 64);
	KT_TRUE(kt_same(t, l, 0, t->ref, 64));
	/* ... and for more than s1 published: refused there. */
	r.node = t->s1;
	r.ident = id + 1;
	if (KT_EQ(kt_call(t, t->s2, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp)))
		KT_EQ(kt_resp(t)->ret[0], -EPERM);
	kt_server_clean(t, t->s2);
out:
	kt_put(&hl);
	kt_put(&ha);
	kt_put(&l);
	kt_put(&a);
}

/* Server @node asks for (@owner, @ident) READ and keeps the handle. */
static void kt_keep(struct kt *t, unsigned int node, unsigned int owner,
		    u64 ident)
{
	struct kt_req r = {
		.op = KT_OP_ASK_KEEP, .node = owner, .ident = ident,
		.password = KT_PW,
	};

	if (KT_EQ(kt_call(t, node, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp))) {
		KT_EQ(kt_resp(t)->ret[0], 0);	/* ask */
		KT_EQ(kt_resp(t)->ret[1], 0);	/* read */
	}
}

/* The handle server @node kept must fail with @want, and go. */
static void kt_kept_is(struct kt *t, unsigned int node, int want)
{
	struct kt_req r = { .op = KT_OP_USE_KEPT };

	if (KT_EQ(kt_call(t, node, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp))) {
		KT_EQ(kt_resp(t)->ret[0], want);	/* read */
		KT_EQ(kt_resp(t)->ret[1], 0);		/* umap */
	}
}

static void kt_deregister_mr(struct kt *t)
{
	u64 id = t->ident + 300;
	int l, a, hl = 0, ha = 0;

	if (!kt_alloc_me_s1(t, &l, &a))
		goto out;
	hl = kt_publish_ask(t, l, t->me, id, LITE_PERM_READ);
	ha = kt_publish_ask(t, a, t->s1, id, LITE_PERM_READ);
	KT_TRUE(hl > 0 && ha > 0);
	/* Mappings elsewhere: s1 maps ours, s2 maps s1's. */
	kt_keep(t, t->s1, t->me, id);
	kt_keep(t, t->s2, t->s1, id);
	KT_EQ(liteapi_deregister_mr(hl), -EPERM);	/* no ADMIN */
	if (!KT_EQ(liteapi_deregister_mr(l), 0) ||
	    !KT_EQ(liteapi_deregister_mr(a), 0))
		goto out;
	KT_EQ(liteapi_deregister_mr(l), -ENOENT);
	KT_EQ(liteapi_rdma_read_offset(l, t->buf, 8, 0, 0, KT_PW), -ENOENT);
	/* Every mapping, on every node, is revoked. */
	KT_EQ(liteapi_rdma_read_offset(hl, t->buf, 8, 0, 0, KT_PW), -EKEYREVOKED);
	KT_EQ(liteapi_rdma_read_offset(ha, t->buf, 8, 0, 0, KT_PW), -EKEYREVOKED);
	kt_kept_is(t, t->s1, -EKEYREVOKED);
	kt_kept_is(t, t->s2, -EKEYREVOKED);
	KT_EQ(liteapi_ask_mr(t->s1, id, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_deregister_mr(KT_BAD_HANDLE), -ENOENT);
out:
	kt_put(&hl);
	kt_put(&ha);
	/* Already freed (-ENOENT) unless a step above failed. */
	kt_put(&l);
	kt_put(&a);
}

static void kt_umap_lmr(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	u64 id = t->ident + 400;
	int i, l, h, h2;

	for (i = 0; i < 2; i++) {
		l = kt_alloc(t, node[i], 4096, false);
		if (l <= 0)
			continue;
		kt_pattern(t->ref, 4096, 40 + i);
		KT_EQ(liteapi_rdma_write_offset(l, t->ref, 4096, 0, 0, KT_PW), 0);
		h = kt_publish_ask(t, l, node[i], id + i, LITE_PERM_READ);
		KT_TRUE(h > 0);
		KT_EQ(liteapi_umap_lmr(h), 0);
		KT_EQ(liteapi_umap_lmr(h), -ENOENT);
		KT_EQ(liteapi_rdma_read_offset(h, t->buf, 8, 0, 0, KT_PW), -ENOENT);
		/* The LMR stays, with its data and its publication. */
		KT_TRUE(kt_same(t, l, 0, t->ref, 4096));
		h2 = liteapi_ask_mr(node[i], id + i, LITE_PERM_READ, KT_PW);
		KT_TRUE(h2 > 0);
		KT_TRUE(kt_same(t, h2, 0, t->ref, 4096));
		/* Unmapping the creator's handle frees the LMR. */
		KT_EQ(liteapi_umap_lmr(l), 0);
		KT_EQ(liteapi_rdma_read_offset(h2, t->buf, 8, 0, 0, KT_PW),
		      -EKEYREVOKED);
		KT_EQ(liteapi_umap_lmr(h2), 0);
		KT_EQ(liteapi_umap_lmr(l), -ENOENT);
	}
	KT_EQ(liteapi_umap_lmr(KT_BAD_HANDLE), -ENOENT);
	KT_EQ(liteapi_umap_lmr(0), -ENOENT);
}

static void kt_register_application(struct kt *t)
{
	u64 desc;
	int ret;

	ret = liteapi_register_application(t->cport, 4096, "lite_kapi_test");
	if (ret == -EADDRINUSE)
		pr_info("port %u: registered by the kernel already (an earlier load)\n",
			t->cport);
	else
		KT_EQ(ret, 0);
	KT_EQ(liteapi_register_application(t->cport, 4096, "again"), -EADDRINUSE);
	/* The kernel's context owns it: nothing queued, not "no such port". */
	KT_EQ(liteapi_receive_message(t->cport, t->buf, 4096, &desc, 0), -EAGAIN);
	KT_EQ(liteapi_register_application(LITE_MAX_PORT, 4096, "x"), -EINVAL);
	KT_EQ(liteapi_register_application(t->free_port, 0, "x"), -EINVAL);
	KT_EQ(liteapi_register_application(t->free_port, LITE_RPC_MAX_MSG + 1, "x"),
	      -EINVAL);
	/* Those refusals registered nothing. */
	KT_EQ(liteapi_receive_message(t->free_port, t->buf, 8, &desc, 0), -ENOENT);
}

static void kt_query_port(struct kt *t)
{
	int i;

	for (i = 0; i < kt_nr_servers; i++) {
		KT_EQ(liteapi_query_port(kt_servers[i], kt_port), kt_max_msg);
		KT_EQ(liteapi_query_port(kt_servers[i], t->free_port), -ECONNREFUSED);
		KT_EQ(liteapi_query_port(kt_servers[i], LITE_MAX_PORT), -EINVAL);
	}
	KT_EQ(liteapi_query_port(0, kt_port), -EINVAL);
	KT_EQ(liteapi_query_port(LITE_MAX_NODES, kt_port), -EINVAL);
	KT_EQ(liteapi_query_port(KT_NO_NODE, kt_port), -ENOTCONN);
}

/* ECHO of @len bytes to @node, a reply of @rlen: checked byte for byte. */
static void kt_echo(struct kt *t, unsigned int node, u32 len, u32 rlen)
{
	struct kt_req r = { .op = KT_OP_ECHO, .arg = rlen };
	u8 *p = (u8 *)(t->req + 1), *q = t->rbuf + sizeof(struct kt_resp);
	u32 i;

	kt_pattern(p, len, len ^ node);
	memset(t->rbuf, 0, sizeof(struct kt_resp) + rlen);
	if (!KT_EQ(kt_call(t, node, &r, len, sizeof(struct kt_resp) + rlen),
		   sizeof(struct kt_resp) + rlen))
		return;
	KT_EQ(kt_resp(t)->node, node);
	for (i = 0; i < rlen; i++)
		if ((q[i] ^ KT_XOR) != (i < len ? p[i] : (u8)i))
			break;
	KT_EQ(i, rlen);	/* the first byte that differs */
}

static void kt_send_reply_imm(struct kt *t)
{
	u32 most = kt_max_msg - sizeof(struct kt_req);
	struct kt_req r = { .op = KT_OP_ECHO, .arg = 1000 };
	struct kt_resp st;
	int i;

	for (i = 0; i < kt_nr_servers; i++) {
		kt_echo(t, kt_servers[i], 1, 1);
		kt_echo(t, kt_servers[i], 1000, 1000);
		kt_echo(t, kt_servers[i], most, most);
		kt_echo(t, kt_servers[i], 10, 0);
		kt_echo(t, kt_servers[i], 3000, 70000);
		/* A reply above our room: not sent, -EMSGSIZE on both sides. */
		KT_EQ(kt_call(t, kt_servers[i], &r, 10, 64), -EMSGSIZE);
		if (kt_status(t, kt_servers[i], &st))
			KT_EQ(st.ret[1], -EMSGSIZE);
		/* A request above the port's max_size. */
		KT_EQ(kt_call(t, kt_servers[i], &r, most + 1, KT_BUF), -EMSGSIZE);
		KT_EQ(liteapi_send_reply_imm(kt_servers[i], t->free_port, t->req, 8,
					     t->rbuf, 64, 0), -ECONNREFUSED);
		KT_EQ(liteapi_send_reply_imm(kt_servers[i], kt_port, t->req, 0,
					     t->rbuf, 64, 0), -EINVAL);
		KT_EQ(liteapi_send_reply_imm(kt_servers[i], kt_port, t->req, 8,
					     t->rbuf, 64, 3), -EINVAL);
		KT_EQ(liteapi_send_reply_imm(KT_NO_NODE, kt_port, t->req, 8,
					     t->rbuf, 64, 0), -ENOTCONN);
		kt_echo(t, kt_servers[i], 5, 5);	/* still serving */
		kt_server_clean(t, kt_servers[i]);
	}
}

/* The reply in slot @i of a multicast: ECHO's, @len bytes after kt_resp. */
static void kt_mc_echo_is(struct kt *t, unsigned int i, u32 room,
			  unsigned int node, u32 plen, u32 len)
{
	const u8 *p = (const u8 *)(t->req + 1);
	u8 *q = t->rbuf + i * room;
	u32 k;

	KT_EQ(((struct kt_resp *)q)->node, node);
	q += sizeof(struct kt_resp);
	for (k = 0; k < len; k++)
		if ((q[k] ^ KT_XOR) != (k < plen ? p[k] : (u8)k))
			break;
	KT_EQ(k, len);	/* the first byte that differs */
}

static void kt_send_reply_imm_multicast(struct kt *t)
{
	unsigned int dst[LITE_MCAST_MAX + 1], len[LITE_MCAST_MAX + 1], i;
	int st[LITE_MCAST_MAX + 1];
	const u32 plen = 300, rlen = 500;
	const u32 room = sizeof(struct kt_resp) + rlen;
	struct kt_req r = {
		.op = KT_OP_ECHO, .node = t->s2, .arg = rlen, .arg2 = 200,
	};
	u32 size = sizeof(r) + plen;
	struct kt_resp s;

	if (!KT_TRUE(t->s1 != t->s2))	/* needs two servers */
		return;
	kt_pattern((u8 *)(t->req + 1), plen, 77);
	*t->req = r;
	/* Both reply, each into its slot: s1 rlen bytes, s2 200. */
	dst[0] = t->s1;
	dst[1] = t->s2;
	memset(t->rbuf, 0, 2 * room);
	memset(st, 1, sizeof(st));
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st, 0), 2);
	KT_EQ(st[0], 0);
	KT_EQ(st[1], 0);
	KT_EQ(len[0], room);
	KT_EQ(len[1], sizeof(struct kt_resp) + 200);
	kt_mc_echo_is(t, 0, room, t->s1, plen, rlen);
	kt_mc_echo_is(t, 1, room, t->s2, plen, 200);
	/* One node's reply above the room: its own -EMSGSIZE only. */
	t->req->arg2 = rlen + 1;
	dst[0] = t->s2;
	dst[1] = t->s1;
	memset(t->rbuf, 0, 2 * room);
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st,
					       LITE_PRIO_HIGH), 1);
	KT_EQ(st[0], -EMSGSIZE);
	KT_EQ(len[0], 0);
	KT_EQ(st[1], 0);
	KT_EQ(len[1], room);
	kt_mc_echo_is(t, 1, room, t->s1, plen, rlen);
	if (kt_status(t, t->s2, &s))
		KT_EQ(s.ret[1], -EMSGSIZE);	/* the server was told */
	/* Non-members (this node too) get -ENOTCONN; s2 still replies. */
	*t->req = r;
	dst[0] = KT_NO_NODE;
	dst[1] = t->s2;
	dst[2] = t->me;
	KT_EQ(liteapi_send_reply_imm_multicast(3, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st,
					       LITE_PRIO_LOW), 1);
	KT_EQ(st[0], -ENOTCONN);
	KT_EQ(st[1], 0);
	KT_EQ(st[2], -ENOTCONN);
	KT_EQ(len[0] + len[2], 0);
	KT_EQ(len[1], sizeof(struct kt_resp) + 200);
	kt_mc_echo_is(t, 1, room, t->s2, plen, 200);
	/* A port registered on neither server: -ECONNREFUSED for each. */
	dst[0] = t->s1;
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, t->free_port, t->req,
					       size, t->rbuf, room, len, st, 0),
	      0);
	KT_EQ(st[0], -ECONNREFUSED);
	KT_EQ(st[1], -ECONNREFUSED);
	/* Whole-call errors: nothing sent, @len and @status untouched. */
	for (i = 0; i <= LITE_MCAST_MAX; i++)
		dst[i] = i + 1;
	memset(st, 1, sizeof(st));
	memset(len, 1, sizeof(len));
	KT_EQ(liteapi_send_reply_imm_multicast(0, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st, 0), -EINVAL);
	KT_EQ(liteapi_send_reply_imm_multicast(LITE_MCAST_MAX + 1, dst, kt_port,
					       t->req, size, t->rbuf, room,
					       len, st, 0), -EINVAL);
	dst[0] = t->s1;
	dst[1] = t->s1;
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st, 0), -EINVAL);
	dst[1] = 0;
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st, 0), -EINVAL);
	dst[1] = LITE_MAX_NODES;
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st, 0), -EINVAL);
	dst[1] = t->s2;
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, 0,
					       t->rbuf, room, len, st, 0), -EINVAL);
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->req, size,
					       t->rbuf, room, len, st, 3), -EINVAL);
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, LITE_MAX_PORT, t->req,
					       size, t->rbuf, room, len, st, 0),
	      -EINVAL);
	KT_EQ(liteapi_send_reply_imm_multicast(2, dst, kt_port, t->ref,
					       LITE_RPC_MAX_MSG + 1, t->rbuf,
					       room, len, st, 0), -EMSGSIZE);
	KT_EQ(st[0], 0x01010101);
	KT_EQ(len[0], 0x01010101);
	kt_server_clean(t, t->s1);
	kt_server_clean(t, t->s2);
}

static void kt_send_message(struct kt *t)
{
	static const u32 len[] = { 1, 100, 4096, 20000, 3 };
	u8 *p = (u8 *)(t->req + 1);
	struct kt_req r = { .op = KT_OP_NOTE };
	struct kt_resp before, after;
	u64 sum = 0;
	u32 i, j;

	if (!kt_status(t, t->s1, &before))
		return;
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		kt_pattern(p, len[i], i);
		for (j = 0; j < len[i]; j++)
			sum += p[j];
		*t->req = r;
		KT_EQ(liteapi_send_message(t->s1, kt_port, t->req,
					   sizeof(r) + len[i], i % 3), 0);
	}
	/* Messages and calls share the ring: STATUS comes after the notes. */
	if (kt_status(t, t->s1, &after)) {
		KT_EQ(after.val[0] - before.val[0], ARRAY_SIZE(len));
		KT_EQ(after.val[1] - before.val[1], sum);
	}
	KT_EQ(liteapi_send_message(t->s1, kt_port, t->req, 0, 0), -EINVAL);
	KT_EQ(liteapi_send_message(t->s1, kt_port, t->req, kt_max_msg + 1, 0), -EMSGSIZE);
	KT_EQ(liteapi_send_message(t->s1, kt_port, t->req, 8, 3), -EINVAL);
	KT_EQ(liteapi_send_message(t->s1, t->free_port, t->req, 8, 0),
	      -ECONNREFUSED);
	KT_EQ(liteapi_send_message(0, kt_port, t->req, 8, 0), -EINVAL);
	if (kt_status(t, t->s1, &before))
		KT_EQ(before.val[0], after.val[0]);	/* no note from those */
}

/*
 * Ask @node to call us back: two one-way messages of KT_CB_MSG_LEN (the
 * first received into too small a buffer: consumed with -EMSGSIZE), then a
 * call of KT_CB_CALL_LEN whose descriptor is returned in *@desc.
 */
static bool kt_call_back(struct kt *t, unsigned int node, u32 room, u64 *desc)
{
	struct kt_req r = {
		.op = KT_OP_CALL_BACK, .node = t->me, .arg = t->cport,
		.arg2 = room,
	};
	u8 want[KT_CB_MSG_LEN];

	if (!KT_EQ(kt_call(t, node, &r, 0, sizeof(struct kt_resp)),
		   sizeof(struct kt_resp)))
		return false;
	KT_EQ(kt_recv_poll(t, t->buf, KT_CB_MSG_LEN - 1, desc), -EMSGSIZE);
	/* The same ring, in order: the next one is on its way. */
	memset(t->buf, 0, KT_CB_MSG_LEN);
	KT_EQ(liteapi_receive_message(t->cport, t->buf, 4096, desc, 1),
	      KT_CB_MSG_LEN);
	KT_EQ(*desc, LITE_DESC_NO_REPLY);
	memset(want, 'B', sizeof(want));
	KT_TRUE(!memcmp(t->buf, want, KT_CB_MSG_LEN));
	*desc = LITE_DESC_NO_REPLY;
	if (!KT_EQ(kt_recv_poll(t, t->buf, 4096, desc), KT_CB_CALL_LEN))
		return false;
	memset(want, 'C', KT_CB_CALL_LEN);
	KT_TRUE(!memcmp(t->buf, want, KT_CB_CALL_LEN));
	return KT_TRUE(*desc != LITE_DESC_NO_REPLY);
}

static void kt_receive_message(struct kt *t)
{
	struct kt_resp st;
	u8 reply[KT_CB_CALL_LEN];
	u64 desc;
	int i;

	KT_EQ(liteapi_receive_message(t->cport, t->buf, 4096, &desc, 0), -EAGAIN);
	KT_EQ(liteapi_receive_message(t->free_port, t->buf, 4096, &desc, 0),
	      -ENOENT);
	KT_EQ(liteapi_receive_message(t->free_port, t->buf, 4096, &desc, 1),
	      -ENOENT);
	KT_EQ(liteapi_receive_message(LITE_MAX_PORT, t->buf, 4096, &desc, 0),
	      -EINVAL);
	if (!kt_call_back(t, t->s1, sizeof(reply), &desc))
		return;
	for (i = 0; i < KT_CB_CALL_LEN; i++)
		reply[i] = t->buf[i] ^ KT_XOR;
	KT_EQ(liteapi_reply_message(reply, sizeof(reply), desc, 0), 0);
	if (kt_status(t, t->s1, &st))
		KT_EQ(st.ret[2], 0);	/* the server got our reply intact */
	KT_EQ(liteapi_receive_message(t->cport, t->buf, 4096, &desc, 0), -EAGAIN);
}

static void kt_reply_message(struct kt *t)
{
	struct kt_resp st;
	u8 reply[2 * KT_CB_CALL_LEN] = { 0 };
	u64 desc;
	int i;

	KT_EQ(liteapi_reply_message(reply, 8, 12345678, 0), -EALREADY);
	KT_EQ(liteapi_reply_message(reply, 8, LITE_DESC_NO_REPLY, 0), -EALREADY);
	/* Once: the second reply finds no request. */
	if (kt_call_back(t, t->s2, sizeof(reply), &desc)) {
		for (i = 0; i < KT_CB_CALL_LEN; i++)
			reply[i] = t->buf[i] ^ KT_XOR;
		KT_EQ(liteapi_reply_message(reply, KT_CB_CALL_LEN, desc, 3), -EINVAL);
		KT_EQ(liteapi_reply_message(reply, KT_CB_CALL_LEN, desc, 0), 0);
		KT_EQ(liteapi_reply_message(reply, KT_CB_CALL_LEN, desc, 0),
		      -EALREADY);
		if (kt_status(t, t->s2, &st))
			KT_EQ(st.ret[2], 0);
	}
	/* Above the caller's room: not sent; both sides get -EMSGSIZE. */
	if (kt_call_back(t, t->s2, KT_CB_CALL_LEN, &desc)) {
		KT_EQ(liteapi_reply_message(reply, KT_CB_CALL_LEN + 1, desc, 0),
		      -EMSGSIZE);
		KT_EQ(liteapi_reply_message(reply, KT_CB_CALL_LEN, desc, 0),
		      -EALREADY);
		if (kt_status(t, t->s2, &st))
			KT_EQ(st.ret[2], -EMSGSIZE);
	}
	/* The servers' replies: each ECHO tries a second one (-EALREADY). */
	kt_server_clean(t, t->s1);
	kt_server_clean(t, t->s2);
}

/* Atomic-operation errors shared by fetch_and_add and compare_and_swp. */
static void kt_atomic_errors(struct kt *t, int plain,
			     int (*op)(int lh, u64 v, u64 *old, int pw))
{
	u64 old;

	KT_EQ(op(KT_BAD_HANDLE, 1, &old, KT_PW), -ENOENT);
	KT_EQ(op(plain, 1, &old, KT_PW), -EPERM);	/* not an atomic LMR */
}

static int kt_faa(int lh, u64 v, u64 *old, int pw)
{
	return liteapi_rdma_fetch_and_add(lh, v, old, pw);
}

static int kt_cas(int lh, u64 v, u64 *old, int pw)
{
	return liteapi_rdma_compare_and_swp(lh, 0, v, old, pw);
}

/* Read the counter at the start of @lh until it is @want (or time is up). */
static u64 kt_wait_counter(struct kt *t, int lh, u64 want)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_TIMEOUT_MS);
	u64 v = 0;

	do {
		if (liteapi_rdma_read_offset(lh, &v, sizeof(v), 0, 0, KT_PW))
			break;
		if (v >= want)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	return v;
}

/*
 * @body on an atomic LMR @a and a plain one @plain, 64 bytes each, on this
 * node (@i 0), then on @other (@i 1): a failed alloc, a failure already,
 * leaves its handle <= 0. Both handles are dropped after.
 */
static void kt_atomic_pairs(struct kt *t, unsigned int other,
			    void (*body)(struct kt *t, int i, unsigned int node,
					 int a, int plain))
{
	unsigned int node[2] = { t->me, other };
	int i, a, plain;

	for (i = 0; i < 2; i++) {
		a = kt_alloc(t, node[i], 64, true);
		plain = kt_alloc(t, node[i], 64, false);
		body(t, i, node[i], a, plain);
		kt_put(&a);
		kt_put(&plain);
	}
}

#define KT_ADDS		200

static void kt_fetch_and_add_on(struct kt *t, int i, unsigned int node,
				int a, int plain)
{
	struct kt_req r = {
		.op = KT_OP_ADD, .node = t->s1, .ident = t->ident + 500,
		.arg = KT_ADDS, .password = KT_PW,
	};
	int j, sent = 0;
	u64 old, v;

	if (a > 0 && plain > 0) {
		KT_EQ(liteapi_rdma_fetch_and_add(a, 5, &old, KT_PW), 0);
		KT_EQ(old, 0);
		KT_EQ(liteapi_rdma_fetch_and_add(a, 3, &old, KT_PW), 0);
		KT_EQ(old, 5);
		KT_EQ(liteapi_rdma_fetch_and_add(a, -8ULL, &old, KT_PW), 0);
		KT_EQ(old, 8);
		KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
		KT_EQ(v, 0);
		KT_EQ(liteapi_rdma_fetch_and_add(a, 1, &old, KT_PW + 1),
		      -EACCES);
		kt_atomic_errors(t, plain, kt_faa);
	}
	if (i == 1 && a > 0 &&
	    KT_EQ(liteapi_add_askmr_table(r.ident, a, KT_RWA, KT_PW), 0)) {
		/* Every node adds at once, to an LMR on s1. */
		for (j = 0; j < kt_nr_servers; j++) {
			*t->req = r;
			sent += KT_EQ(liteapi_send_message(kt_servers[j], kt_port,
							   t->req, sizeof(r), 0), 0);
		}
		for (j = 0; j < KT_ADDS; j++)
			if (!KT_EQ(liteapi_rdma_fetch_and_add(a, 1, &old, KT_PW),
				   0))
				break;
		v = kt_wait_counter(t, a, (u64)KT_ADDS * (1 + sent));
		KT_EQ(v, (u64)KT_ADDS * (1 + sent));
		for (j = 0; j < kt_nr_servers; j++)
			kt_server_clean(t, kt_servers[j]);
	}
}

static void kt_rdma_fetch_and_add(struct kt *t)
{
	kt_atomic_pairs(t, t->s1, kt_fetch_and_add_on);
}

static void kt_compare_and_swp_on(struct kt *t, int i, unsigned int node,
				  int a, int plain)
{
	u64 old, v;

	if (a <= 0 || plain <= 0)
		return;
	KT_EQ(liteapi_rdma_compare_and_swp(a, 0, 42, &old, KT_PW), 0);
	KT_EQ(old, 0);
	/* A wrong guess changes nothing. */
	KT_EQ(liteapi_rdma_compare_and_swp(a, 41, 7, &old, KT_PW), 0);
	KT_EQ(old, 42);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, 42);
	KT_EQ(liteapi_rdma_compare_and_swp(a, 42, U64_MAX, &old, KT_PW), 0);
	KT_EQ(old, 42);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, U64_MAX);
	KT_EQ(liteapi_rdma_compare_and_swp(a, U64_MAX, 1, &old, KT_PW + 1),
	      -EACCES);
	kt_atomic_errors(t, plain, kt_cas);
}

static void kt_rdma_compare_and_swp(struct kt *t)
{
	kt_atomic_pairs(t, t->s2, kt_compare_and_swp_on);
}

static int kt_swp(int lh, u64 v, u64 *old, int pw)
{
	return liteapi_rdma_swp(lh, v, old, pw);
}

#define KT_SWAPS	100

/* What swapping in (@node << 32 | k), k = 1 .. KT_SWAPS, puts in. */
static u64 kt_swap_in(unsigned int node)
{
	return KT_SWAPS * ((u64)node << 32) + KT_SWAPS * (KT_SWAPS + 1) / 2;
}

/*
 * Every node swaps distinct values into one word on s1 at once: every
 * value put in comes out exactly once (as somebody's old value, or as the
 * last one), so the sums match.
 */
static void kt_swp_race(struct kt *t, int a)
{
	struct kt_req r = {
		.op = KT_OP_SWAP, .node = t->s1, .ident = t->ident + 700,
		.arg = KT_SWAPS, .password = KT_PW,
	};
	u64 in = kt_swap_in(t->me), out = 0, old;
	bool sent[2] = { false, false };
	int j;
	u32 k;

	if (!KT_EQ(liteapi_rdma_swp(a, 0, &old, KT_PW), 0) ||
	    !KT_EQ(liteapi_add_askmr_table(r.ident, a, KT_RWA, KT_PW), 0))
		return;
	for (j = 0; j < kt_nr_servers && j < 2; j++) {
		*t->req = r;
		sent[j] = KT_EQ(liteapi_send_message(kt_servers[j], kt_port, t->req,
						     sizeof(r), 0), 0);
	}
	for (k = 1; k <= KT_SWAPS; k++) {
		if (!KT_EQ(liteapi_rdma_swp(a, (u64)t->me << 32 | k, &old,
					    KT_PW), 0))
			return;
		out += old;
	}
	/* SWAPPED queues behind SWAP: the server has finished. */
	for (j = 0; j < kt_nr_servers && j < 2; j++) {
		struct kt_req q = { .op = KT_OP_SWAPPED };

		if (!sent[j] ||
		    !KT_EQ(kt_call(t, kt_servers[j], &q, 0, sizeof(struct kt_resp)),
			   sizeof(struct kt_resp)))
			continue;
		KT_EQ(kt_resp(t)->val[1], KT_SWAPS);
		out += kt_resp(t)->val[0];
		in += kt_swap_in(kt_servers[j]);
		kt_server_clean(t, kt_servers[j]);
	}
	KT_EQ(liteapi_rdma_read_offset(a, &old, 8, 0, 0, KT_PW), 0);
	KT_EQ(out + old, in);
}

static void kt_swp_on(struct kt *t, int i, unsigned int node, int a,
		      int plain)
{
	u64 old, v;
	int ro;

	if (a <= 0 || plain <= 0)
		return;
	KT_EQ(liteapi_rdma_swp(a, 42, &old, KT_PW), 0);
	KT_EQ(old, 0);
	KT_EQ(liteapi_rdma_swp(a, U64_MAX, &old, KT_PW), 0);
	KT_EQ(old, 42);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, U64_MAX);
	/* The same value: still a swap. */
	KT_EQ(liteapi_rdma_swp(a, U64_MAX, &old, KT_PW), 0);
	KT_EQ(old, U64_MAX);
	KT_EQ(liteapi_rdma_swp(a, 7, &old, KT_PW), 0);
	KT_EQ(old, U64_MAX);
	/* Only the first 8 bytes. */
	memset(t->ref, 0, 56);
	KT_TRUE(kt_same(t, a, 8, t->ref, 56));
	KT_EQ(liteapi_rdma_swp(a, 1, &old, KT_PW + 1), -EACCES);
	ro = kt_publish_ask(t, a, node, t->ident + 710 + i, LITE_PERM_READ);
	if (KT_TRUE(ro > 0))
		KT_EQ(liteapi_rdma_swp(ro, 1, &old, KT_PW), -EPERM);
	kt_put(&ro);
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, 7);
	kt_atomic_errors(t, plain, kt_swp);
	if (i == 1)
		kt_swp_race(t, a);
}

static void kt_rdma_swp(struct kt *t)
{
	kt_atomic_pairs(t, t->s1, kt_swp_on);
}

static void kt_create_lock(struct kt *t)
{
	int l1 = liteapi_create_lock(t->me), l2 = liteapi_create_lock(t->me);
	int r1 = liteapi_create_lock(t->s1), r2 = liteapi_create_lock(t->s1);

	KT_TRUE(l1 >= 0 && l2 >= 0 && l1 != l2);
	KT_TRUE(r1 >= 0 && r2 >= 0 && r1 != r2);
	/* Usable at once, by anyone who knows (node, id). */
	KT_EQ(liteapi_ask_lock(t->me, l2), 0);
	KT_EQ(liteapi_ask_lock(t->s1, r2), 0);
	KT_EQ(liteapi_create_lock(0), -EINVAL);
	KT_EQ(liteapi_create_lock(LITE_MAX_NODES), -EINVAL);
	KT_EQ(liteapi_create_lock(KT_NO_NODE), -ENOTCONN);
}

static void kt_ask_lock(struct kt *t)
{
	int l = liteapi_create_lock(t->me), r = liteapi_create_lock(t->s2);

	KT_TRUE(l >= 0 && r >= 0);
	KT_EQ(liteapi_ask_lock(t->me, l), 0);
	KT_EQ(liteapi_ask_lock(t->s2, r), 0);
	KT_EQ(liteapi_ask_lock(t->me, 0xfffffff), -ENOENT);
	KT_EQ(liteapi_ask_lock(t->s2, 0xfffffff), -ENOENT);
	KT_EQ(liteapi_ask_lock(0, l), -EINVAL);
	KT_EQ(liteapi_ask_lock(KT_NO_NODE, l), -ENOTCONN);
}

static void kt_lock(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	struct kt_req r = { .op = KT_OP_LOCK_HOLD, .arg2 = kt_hold_ms };
	unsigned long t0;
	int i, id;

	for (i = 0; i < 2; i++) {
		id = liteapi_create_lock(node[i]);
		if (!KT_TRUE(id >= 0))
			continue;
		KT_EQ(liteapi_lock(node[i], id), 0);
		KT_EQ(liteapi_lock(node[i], id), -EDEADLK);
		KT_EQ(liteapi_unlock(node[i], id), 0);
		/* Another node holds it for hold_ms: we wait until it lets go. */
		r.node = node[i];
		r.arg = id;
		if (!KT_EQ(kt_call(t, t->s2, &r, 0, sizeof(struct kt_resp)),
			   sizeof(struct kt_resp)) ||
		    !KT_EQ(kt_resp(t)->ret[0], 0))
			continue;
		t0 = jiffies;
		KT_EQ(liteapi_unlock(node[i], id), -EPERM);
		KT_EQ(liteapi_lock(node[i], id), 0);
		KT_TRUE(jiffies_to_msecs(jiffies - t0) >= kt_hold_ms / 2);
		KT_EQ(liteapi_unlock(node[i], id), 0);
		kt_server_clean(t, t->s2);	/* its unlock worked */
	}
	KT_EQ(liteapi_lock(t->me, 0xfffffff), -ENOENT);
	KT_EQ(liteapi_lock(t->s1, 0xfffffff), -ENOENT);
	KT_EQ(liteapi_lock(0, 0), -EINVAL);
}

static void kt_unlock(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s2 };
	int i, id;

	for (i = 0; i < 2; i++) {
		id = liteapi_create_lock(node[i]);
		if (!KT_TRUE(id >= 0))
			continue;
		KT_EQ(liteapi_unlock(node[i], id), -EPERM);
		KT_EQ(liteapi_lock(node[i], id), 0);
		KT_EQ(liteapi_unlock(node[i], id), 0);
		KT_EQ(liteapi_unlock(node[i], id), -EPERM);
		/* Free again: taken at once. */
		KT_EQ(liteapi_lock(node[i], id), 0);
		KT_EQ(liteapi_unlock(node[i], id), 0);
		KT_EQ(liteapi_unlock(node[i], 0xfffffff), -ENOENT);
	}
	KT_EQ(liteapi_unlock(0, 0), -EINVAL);
}

static void kt_dist_barrier(struct kt *t)
{
	struct kt_req r = {
		.op = KT_OP_BARRIER, .node = t->me, .ident = t->ident + 600,
		.arg = 1 + kt_nr_servers, .password = KT_PW,
	};
	int a, i, arrived = 0;
	u64 v;

	KT_EQ(liteapi_dist_barrier(0), -EINVAL);
	KT_EQ(liteapi_dist_barrier(1025), -EINVAL);
	KT_EQ(liteapi_dist_barrier(1), 0);
	a = kt_alloc(t, t->me, 64, true);
	if (a <= 0 || !KT_EQ(liteapi_add_askmr_table(r.ident, a, KT_RWA, KT_PW), 0))
		goto out;
	/* Each server adds 1 to our counter, then waits at the barrier. */
	for (i = 0; i < kt_nr_servers; i++)
		arrived += KT_EQ(kt_call(t, kt_servers[i], &r, 0,
					 sizeof(struct kt_resp)),
				 sizeof(struct kt_resp));
	if (arrived != kt_nr_servers)
		goto out;	/* the barrier would never fill */
	KT_EQ(liteapi_dist_barrier(1 + kt_nr_servers), 0);
	/* Nobody passes before everybody arrived: both adds are in. */
	KT_EQ(liteapi_rdma_read_offset(a, &v, 8, 0, 0, KT_PW), 0);
	KT_EQ(v, kt_nr_servers);
	for (i = 0; i < kt_nr_servers; i++)
		kt_server_clean(t, kt_servers[i]);
out:
	kt_put(&a);
}

/**
 * struct kt_check - one check of the client
 * @name: the exported call it covers ("liteapi_..."): its ok/FAIL lines
 * @fn: the check; counts its failures in t->nfail through KT_EQ/KT_TRUE
 * @call: the call itself, so that a check of an undeclared call fails to
 *	build
 */
struct kt_check {
	const char	*name;
	void		(*fn)(struct kt *t);
	const void	*call;
};

#define KT_CHECK(call)	{ "liteapi_" #call, kt_##call, liteapi_##call }

/* In this order: the RPC checks need the client's port registered first. */
static const struct kt_check kt_checks[] = {
	KT_CHECK(get_node_id),
	KT_CHECK(get_total_node),
	KT_CHECK(establish_conn),
	KT_CHECK(establish_conn_key),
	KT_CHECK(alloc_remote_mem),
	KT_CHECK(rdma_write_offset),
	KT_CHECK(rdma_read_offset),
	KT_CHECK(rdma_write_async),
	KT_CHECK(rdma_read_async),
	KT_CHECK(poll),
	KT_CHECK(fence),
	KT_CHECK(remote_memset),
	KT_CHECK(rdma_mr_memcpy),
	KT_CHECK(rdma_mr_memmov),
	KT_CHECK(add_askmr_table),
	KT_CHECK(ask_mr),
	KT_CHECK(deregister_mr),
	KT_CHECK(umap_lmr),
	KT_CHECK(register_application),
	KT_CHECK(query_port),
	KT_CHECK(send_reply_imm),
	KT_CHECK(send_reply_imm_multicast),
	KT_CHECK(send_message),
	KT_CHECK(receive_message),
	KT_CHECK(reply_message),
	KT_CHECK(rdma_fetch_and_add),
	KT_CHECK(rdma_compare_and_swp),
	KT_CHECK(rdma_swp),
	KT_CHECK(create_lock),
	KT_CHECK(ask_lock),
	KT_CHECK(lock),
	KT_CHECK(unlock),
	KT_CHECK(dist_barrier),
};

static int kt_client(void)
{
	const struct kt_check *c;
	struct kt *t;
	int failed = 0, ran = 0;
	size_t i;

	if (kt_nr_servers < 1 || kt_port + 2 >= LITE_MAX_PORT ||
	    kt_max_msg <= sizeof(struct kt_req) + KT_CB_MSG_LEN ||
	    kt_max_msg > LITE_RPC_MAX_MSG - sizeof(struct kt_resp))
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->me = liteapi_get_node_id();
	t->s1 = kt_servers[0];
	t->s2 = kt_servers[kt_nr_servers > 1 ? 1 : 0];
	t->cport = kt_port + 1;
	t->free_port = kt_port + 2;
	t->ident = get_random_u64() & ~0xffffULL;
	t->buf = kvmalloc(KT_BUF, GFP_KERNEL);
	t->ref = kvmalloc(KT_MC_N * KT_MC_SIZE + KT_BUF, GFP_KERNEL);
	t->req = kvmalloc(kt_max_msg + 1, GFP_KERNEL);
	t->rbuf = kvmalloc(KT_BUF, GFP_KERNEL);
	if (!t->buf || !t->ref || !t->req || !t->rbuf) {
		failed = -ENOMEM;
		goto out;
	}
	pr_info("client: start: node %u, servers %u and %u, port %u\n",
		t->me, t->s1, t->s2, kt_port);
	for (i = 0; i < ARRAY_SIZE(kt_checks); i++) {
		c = &kt_checks[i];
		if (only && strcmp(only, c->name))
			continue;
		t->cur = c->name;
		t->nfail = 0;
		c->fn(t);
		if (inject_fail) {
			t->nfail++;
			pr_err("FAIL: %s: injected (inject_fail=1)\n", c->name);
		}
		ran++;
		if (t->nfail)
			failed++;
		else
			pr_info("ok: %s\n", c->name);
	}
	pr_info("client: %d of %d checks failed\n", failed, ran);
	if (!ran)
		pr_err("FAIL: no check named '%s'\n", only);
	failed = failed || !ran ? -EIO : 0;
out:
	kvfree(t->buf);
	kvfree(t->ref);
	kvfree(t->req);
	kvfree(t->rbuf);
	kfree(t);
	return failed;
}

/* ---- the server -------------------------------------------------------- */

static struct kt_srv {
	struct task_struct	*task;
	void			*buf;		/* requests, max_msg bytes */
	u8			*out;		/* replies */
	int			kept;		/* KT_OP_ASK_KEEP's handle */
	int			fails;		/* of its own checks */
	int			last_reply;	/* liteapi_reply_message() */
	int			cb;		/* the last call-back: 0 or errno */
	u64			notes, note_sum;
	u64			swap_sum, swaps;	/* KT_OP_SWAP's */
} kt_srv;

#define KT_SRV_OUT	(LITE_RPC_MAX_MSG)

static void kt_srv_fail(const char *what, int got, int want)
{
	kt_srv.fails++;
	pr_err("server: FAIL: %s: %d, expected %d\n", what, got, want);
}

/* Reply @len bytes of kt_srv.out; a second reply must find nothing. */
static void kt_srv_reply(u64 desc, u32 len)
{
	int ret;

	((struct kt_resp *)kt_srv.out)->node = liteapi_get_node_id();
	kt_srv.last_reply = liteapi_reply_message(kt_srv.out, len, desc, 0);
	ret = liteapi_reply_message(kt_srv.out, len, desc, 0);
	if (ret != -EALREADY)
		kt_srv_fail("second reply", ret, -EALREADY);
}

/* Ask for (@r->node, @r->ident) with @perm and add 1, @n times. */
static void kt_srv_add(const struct kt_req *r, u32 n)
{
	int lh = liteapi_ask_mr(r->node, r->ident, KT_RWA, r->password);
	u64 old;
	int ret;

	if (lh <= 0) {
		kt_srv_fail("ask of the counter", lh, 1);
		return;
	}
	while (n--) {
		ret = liteapi_rdma_fetch_and_add(lh, 1, &old, r->password);
		if (ret) {
			kt_srv_fail("fetch_and_add", ret, 0);
			break;
		}
	}
	liteapi_umap_lmr(lh);
}

/*
 * Ask for (@r->node, @r->ident) and swap in (our id << 32 | k) for k = 1
 * .. @n, summing the old values: see kt_rdma_swp().
 */
static void kt_srv_swap(const struct kt_req *r, u32 n)
{
	int lh = liteapi_ask_mr(r->node, r->ident, KT_RWA, r->password);
	u64 me = liteapi_get_node_id(), old;
	int ret;
	u32 k;

	kt_srv.swap_sum = 0;
	kt_srv.swaps = 0;
	if (lh <= 0) {
		kt_srv_fail("ask of the swap word", lh, 1);
		return;
	}
	for (k = 1; k <= n; k++) {
		ret = liteapi_rdma_swp(lh, me << 32 | k, &old, r->password);
		if (ret) {
			kt_srv_fail("swp", ret, 0);
			break;
		}
		kt_srv.swap_sum += old;
		kt_srv.swaps++;
	}
	liteapi_umap_lmr(lh);
}

/* Call the client back: see kt_call_back(). */
static void kt_srv_call_back(const struct kt_req *r)
{
	u8 msg[KT_CB_MSG_LEN], *back = kt_srv.out + sizeof(struct kt_resp);
	u32 room = min_t(u32, r->arg2, KT_SRV_OUT - sizeof(struct kt_resp));
	int ret, i;

	memset(msg, 'A', sizeof(msg));
	ret = liteapi_send_message(r->node, r->arg, msg, sizeof(msg), 0);
	memset(msg, 'B', sizeof(msg));
	if (!ret)
		ret = liteapi_send_message(r->node, r->arg, msg, sizeof(msg), 0);
	memset(msg, 'C', KT_CB_CALL_LEN);
	if (!ret)
		ret = liteapi_send_reply_imm(r->node, r->arg, msg, KT_CB_CALL_LEN,
					     back, room, 0);
	if (ret == KT_CB_CALL_LEN) {
		for (i = 0; i < KT_CB_CALL_LEN; i++)
			if (back[i] != ('C' ^ KT_XOR))
				break;
		ret = i == KT_CB_CALL_LEN ? 0 : -EILSEQ;
	} else if (ret >= 0) {
		ret = -EILSEQ;
	}
	kt_srv.cb = ret;
}

static void kt_srv_handle(u32 len, u64 desc)
{
	const struct kt_req *r = kt_srv.buf;
	struct kt_resp *resp = (struct kt_resp *)kt_srv.out;
	const u8 *p = (const u8 *)(r + 1);
	u32 plen = len - sizeof(*r), n, i;
	u8 *q = kt_srv.out + sizeof(*resp);
	int lh;

	memset(resp, 0, sizeof(*resp));
	switch (r->op) {
	case KT_OP_STATUS:
		resp->ret[0] = kt_srv.fails;
		resp->ret[1] = kt_srv.last_reply;
		resp->ret[2] = kt_srv.cb;
		resp->val[0] = kt_srv.notes;
		resp->val[1] = kt_srv.note_sum;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_ECHO:
		n = r->node && r->node == liteapi_get_node_id() ? r->arg2 : r->arg;
		n = min_t(u32, n, KT_SRV_OUT - sizeof(*resp));
		for (i = 0; i < n; i++)
			q[i] = (i < plen ? p[i] : (u8)i) ^ KT_XOR;
		kt_srv_reply(desc, sizeof(*resp) + n);
		break;
	case KT_OP_NOTE:
		kt_srv.notes++;
		for (i = 0; i < plen; i++)
			kt_srv.note_sum += p[i];
		break;
	case KT_OP_ASK_WRITE:
		lh = liteapi_ask_mr(r->node, r->ident, r->arg, r->password);
		resp->ret[0] = lh < 0 ? lh : 0;
		if (lh > 0) {
			memset(q, r->arg2, 64);
			resp->ret[1] = liteapi_rdma_write_offset(lh, q, 64, 0, 0,
								 r->password);
			liteapi_umap_lmr(lh);
		}
		lh = liteapi_ask_mr(r->node, r->ident, r->arg, r->password + 1);
		resp->ret[2] = lh;
		if (lh > 0)
			liteapi_umap_lmr(lh);
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_ASK_KEEP:
		if (kt_srv.kept > 0)
			liteapi_umap_lmr(kt_srv.kept);
		lh = liteapi_ask_mr(r->node, r->ident, LITE_PERM_READ, r->password);
		kt_srv.kept = max(lh, 0);
		resp->ret[0] = lh < 0 ? lh : 0;
		if (lh > 0)
			resp->ret[1] = liteapi_rdma_read_offset(lh, q, 8, 0, 0,
								r->password);
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_USE_KEPT:
		resp->ret[0] = liteapi_rdma_read_offset(kt_srv.kept, q, 8, 0, 0,
							KT_PW);
		resp->ret[1] = liteapi_umap_lmr(kt_srv.kept);
		kt_srv.kept = 0;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	case KT_OP_ADD:
		kt_srv_add(r, min_t(u32, r->arg, 100000));
		break;
	case KT_OP_BARRIER:
		kt_srv_reply(desc, sizeof(*resp));
		kt_srv_add(r, 1);
		lh = liteapi_dist_barrier(r->arg);
		if (lh)
			kt_srv_fail("dist_barrier", lh, 0);
		break;
	case KT_OP_LOCK_HOLD:
		resp->ret[0] = liteapi_lock(r->node, r->arg);
		kt_srv_reply(desc, sizeof(*resp));
		if (resp->ret[0])
			break;
		msleep_interruptible(min_t(u32, r->arg2, 10000));
		lh = liteapi_unlock(r->node, r->arg);
		if (lh)
			kt_srv_fail("unlock", lh, 0);
		break;
	case KT_OP_CALL_BACK:
		kt_srv_reply(desc, sizeof(*resp));
		kt_srv_call_back(r);
		break;
	case KT_OP_SWAP:
		kt_srv_swap(r, min_t(u32, r->arg, 100000));
		break;
	case KT_OP_SWAPPED:
		resp->val[0] = kt_srv.swap_sum;
		resp->val[1] = kt_srv.swaps;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	default:
		resp->ret[0] = -EOPNOTSUPP;
		kt_srv_reply(desc, sizeof(*resp));
		break;
	}
}

/**
 * kt_srv_thread() - serve requests on @port until the module is removed
 * @unused: nothing
 *
 * kt_server_stop() sends SIGKILL, which ends any wait in LITE (receive,
 * call, lock, barrier) with -EINTR, then kthread_stop().
 *
 * Return: 0.
 */
static int kt_srv_thread(void *unused)
{
	u64 desc;
	int n;

	/* rmmod interrupts whatever the thread waits for with SIGKILL. */
	allow_signal(SIGKILL);
	while (!kthread_should_stop() && !signal_pending(current)) {
		n = liteapi_receive_message(kt_port, kt_srv.buf, kt_max_msg, &desc, 1);
		if (n >= (int)sizeof(struct kt_req)) {
			kt_srv_handle(n, desc);
		} else if (n >= 0) {
			if (desc != LITE_DESC_NO_REPLY)
				liteapi_reply_message(NULL, 0, desc, 0);
		} else if (n != -EINTR && n != -EMSGSIZE) {
			/* Not a member (any more): wait for it to join again. */
			pr_warn_ratelimited("server: receive: %d\n", n);
			msleep_interruptible(100);
		}
	}
	flush_signals(current);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int kt_server(void)
{
	u64 desc;
	int ret;

	if (kt_port >= LITE_MAX_PORT || kt_max_msg < sizeof(struct kt_req) ||
	    kt_max_msg > LITE_RPC_MAX_MSG)
		return -EINVAL;
	ret = liteapi_register_application(kt_port, kt_max_msg, "lite_kapi_test");
	if (ret && ret != -EADDRINUSE)
		return ret;
	kt_srv.buf = kvmalloc(kt_max_msg, GFP_KERNEL);
	kt_srv.out = kvmalloc(KT_SRV_OUT, GFP_KERNEL);
	if (!kt_srv.buf || !kt_srv.out) {
		ret = -ENOMEM;
		goto err;
	}
	/* An earlier load's port: ours (the kernel's) if receiving works. */
	while ((ret = liteapi_receive_message(kt_port, kt_srv.buf, kt_max_msg, &desc,
					      0)) >= 0 || ret == -EMSGSIZE)
		if (ret >= 0 && desc != LITE_DESC_NO_REPLY)
			liteapi_reply_message(NULL, 0, desc, 0);
	if (ret != -EAGAIN) {
		pr_err("server: port %u is not the kernel's: %d\n", kt_port, ret);
		goto err;
	}
	kt_srv.task = kthread_run(kt_srv_thread, NULL, "lite_kapi_srv");
	if (IS_ERR(kt_srv.task)) {
		ret = PTR_ERR(kt_srv.task);
		goto err;
	}
	pr_info("server: start: node %d, port %u (requests up to %u bytes)\n",
		liteapi_get_node_id(), kt_port, kt_max_msg);
	return 0;
err:
	kvfree(kt_srv.buf);
	kvfree(kt_srv.out);
	return ret;
}

static void kt_server_stop(void)
{
	send_sig(SIGKILL, kt_srv.task, 1);
	kthread_stop(kt_srv.task);
	if (kt_srv.kept > 0)
		liteapi_umap_lmr(kt_srv.kept);
	kvfree(kt_srv.buf);
	kvfree(kt_srv.out);
	pr_info("server: stopped (%d failed checks)\n", kt_srv.fails);
}

static bool kt_is_server;

static int __init kt_init(void)
{
	if (!liteapi_get_node_id()) {
		pr_err("this node has not joined a LITE cluster\n");
		return -ENOTCONN;
	}
	if (!strcmp(role, "server")) {
		kt_is_server = true;
		return kt_server();
	}
	if (strcmp(role, "client"))
		return -EINVAL;
	return kt_client();
}

static void __exit kt_exit(void)
{
	if (kt_is_server)
		kt_server_stop();
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("LITE kernel API behaviour tests");
MODULE_LICENSE("GPL");
