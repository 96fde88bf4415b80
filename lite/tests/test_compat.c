// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_compat: every one of the 41 calls of the original LITE's lite-lib.h,
 * with the return values the original gave (docs/lite-api-compat.md). Built
 * the way an outside program is, against the installed library only:
 *
 *   cc -Wall -Wextra -Werror test_compat.c $(pkg-config --cflags --libs lite)
 *
 *   test_compat NODES MANAGER_IP PORT   on every node of a joined cluster of
 *                                       NODES nodes at once, unprivileged
 *   test_compat --join-root MANAGER_IP PORT
 *                                       as root on a node that has joined
 *
 * Node 1 owns the shared LMRs and the lock; node NODES serves RPC; every
 * node allocates on the next one. One "ok:" line per check group, "FAIL:"
 * and exit status 1 on the first failed check.
 */
#include <limits.h>

#include "lite-lib.h"

#define PW		7007
#define ID_DATA		0x636f6d7064617461ULL	/* "compdata" */
#define ID_CTR		0x636f6d7063747200ULL
#define ID_CAS		0x636f6d7063617300ULL
#define ID_OWN		0x636f6d706f776e00ULL
#define PORT		41
#define PORT_UNUSED	42
#define ITER		20
#define MSG_MAX		4096
#define MAGIC		0xc0a7c0deU
#define NMSG		8	/* two-way messages per client */
#define OFF_LOCKED	64	/* the lock-protected counter in ID_DATA */

/*
 * Ours, on purpose: liblite must keep calling its own lite_node_id(), not
 * this one (a program's names must not take the library's over).
 */
int lite_node_id(void);
int lite_node_id(void)
{
	return 1000;
}

static unsigned int me, nodes;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("FAIL: node %u line %d: %s (errno %d: %s)\n", me,	\
		       __LINE__, #cond, errno, strerror(errno));	\
		exit(1);						\
	}								\
} while (0)

static void ok(const char *what)
{
	printf("ok: node %u: %s\n", me, what);
	fflush(stdout);
}

static void barrier(const char *what)
{
	CHECK(userspace_liteapi_dist_barrier(nodes) == 0);
	ok(what);
}

/* ---- messages: a header, then a pattern both sides can check ---------- */

struct msg {
	uint32_t magic;
	uint32_t len;
	uint32_t from;
	uint32_t seq;
};

static void msg_fill(char *buf, unsigned int len, unsigned int seq)
{
	struct msg h = { MAGIC, len, me, seq };
	unsigned int i;

	memcpy(buf, &h, sizeof(h));
	for (i = sizeof(h); i < len; i++)
		buf[i] = (char)(me * 31 + seq * 7 + i);
}

/* The length of a well-formed message at @buf, or -1. */
static int msg_len(const char *buf)
{
	struct msg h;
	unsigned int i;

	memcpy(&h, buf, sizeof(h));
	if (h.magic != MAGIC || h.len < sizeof(h) || h.len > MSG_MAX)
		return -1;
	for (i = sizeof(h); i < h.len; i++)
		if (buf[i] != (char)(h.from * 31 + h.seq * 7 + i))
			return -1;
	return h.len;
}

/* ---- the server (node NODES) ---------------------------------------------- */

/*
 * Receive with the variant @v picks (plain, _high, _low, _fast, _record);
 * *@fast tells whether one-way descriptors read 0 rather than the flag.
 */
static int recv_variant(unsigned int v, char *buf, uintptr_t *d, bool *fast)
{
	int len, rl = -7;
	double dl;

	*fast = v % 5 >= 3;
	switch (v % 5) {
	case 0:
		return userspace_liteapi_receive_message(PORT, buf, MSG_MAX, d,
							 BLOCK_CALL);
	case 1:
		return userspace_liteapi_receive_message_high(PORT, buf,
							      MSG_MAX, d,
							      BLOCK_CALL);
	case 2:
		return userspace_liteapi_receive_message_low(PORT, buf, MSG_MAX,
							     d, BLOCK_CALL);
	case 3:
		len = userspace_liteapi_receive_message_fast(PORT, buf, MSG_MAX,
							     d, &rl,
							     BLOCK_CALL);
		CHECK(len == rl);
		return len;
	default:
		dl = userspace_liteapi_receive_message_fast_record(PORT, buf,
								   MSG_MAX, d,
								   &rl,
								   BLOCK_CALL);
		CHECK(dl == (double)rl);
		return rl;
	}
}

static int reply_variant(unsigned int v, char *buf, int len, uintptr_t d)
{
	switch (v % 3) {
	case 0:
		return userspace_liteapi_reply_message(buf, len, d);
	case 1:
		return userspace_liteapi_reply_message_high(buf, len, d);
	default:
		return userspace_liteapi_reply_message_low(buf, len, d);
	}
}

static void check_two_way(const char *buf, int len, uintptr_t d)
{
	CHECK(len > 0 && msg_len(buf) == len);
	CHECK(d != 0 && d != IMM_SEND_ONLY_FLAG);
}

static void serve_calls(unsigned int total, unsigned int *v)
{
	static char buf[MSG_MAX], rbuf[MSG_MAX];
	uintptr_t d = 0, d2;
	unsigned int i;
	bool fast;
	int len;

	len = recv_variant((*v)++, buf, &d, &fast);
	for (i = 0; i < total; i++) {
		check_two_way(buf, len, d);
		memcpy(rbuf, buf, len);
		if (i == total - 1) {
			CHECK(reply_variant(i, rbuf, len, d) == 0);
		} else if (i % 4 == 3) {
			/* The original's reply_and_receive returns 0, not a length. */
			d2 = 0;
			CHECK(userspace_liteapi_reply_and_receive_message(rbuf,
					len, d, PORT, buf, MSG_MAX, &d2) == 0);
			d = d2;
			len = msg_len(buf);
		} else {
			CHECK(reply_variant(i, rbuf, len, d) == 0);
			len = recv_variant((*v)++, buf, &d, &fast);
		}
	}
	ok("served every call (receive_message, _high, _low, _fast, _fast_record; reply_message, _high, _low; reply_and_receive_message returns 0)");
}

static void serve_one_way(unsigned int total, unsigned int *v)
{
	static char buf[MSG_MAX];
	unsigned int i;
	uintptr_t d;
	bool fast;
	int len;

	for (i = 0; i < total; i++) {
		len = recv_variant((*v)++, buf, &d, &fast);
		CHECK(len > 0 && msg_len(buf) == len);
		CHECK(d == (fast ? 0 : IMM_SEND_ONLY_FLAG));
		/* Nothing to reply to (the original dereferenced it). */
		CHECK(userspace_liteapi_reply_message(buf, 8, d) == -1 &&
		      errno == EINVAL);
	}
	ok("one-way messages: descriptor IMM_SEND_ONLY_FLAG, 0 through _fast");
}

/* After a one-way message: reply_and_receive only receives. */
static void serve_after_one_way(void)
{
	static char buf[MSG_MAX];
	uintptr_t d = 0;
	int len;

	CHECK(userspace_liteapi_reply_and_receive_message(buf, 8, 0, PORT, buf,
							   MSG_MAX, &d) == 0);
	len = msg_len(buf);
	check_two_way(buf, len, d);
	CHECK(userspace_liteapi_reply_message_low(buf, len, d) == 0);
	ok("reply_and_receive_message with a one-way message's descriptor 0");
}

static void server_setup(void)
{
	static char buf[MSG_MAX];
	char name[48];
	uintptr_t d = 12345;
	int rl = 12345;

	memset(name, 'n', sizeof(name));
	CHECK(userspace_liteapi_register_application(PORT, MSG_MAX, 16,
						     "compat", 6) == PORT);
	CHECK(userspace_liteapi_register_application(PORT, MSG_MAX, 16,
						     "compat", 6) == -1 &&
	      errno == EADDRINUSE);
	CHECK(userspace_liteapi_register_application(PORT_UNUSED, MSG_MAX, 16,
						     name, 33) == -1 &&
	      errno == ENAMETOOLONG);
	ok("register_application returns the port; taken port, long name: -1");
	CHECK(userspace_liteapi_receive_message(PORT, buf, MSG_MAX, &d, 0) == 0);
	CHECK(userspace_liteapi_receive_message_fast(PORT, buf, MSG_MAX, &d,
						     &rl, 0) == 0);
	CHECK(d == 0 && rl == 0);
	ok("non-blocking receive with nothing waiting returns 0");
}

/* ---- the clients ------------------------------------------------------------ */

static void call(unsigned int kind, unsigned int size, unsigned int seq)
{
	static char req[MSG_MAX], rep[MSG_MAX];
	int ret, rl = -7;

	msg_fill(req, size, seq);
	memset(rep, 0, sizeof(rep));
	switch (kind) {
	case 0:
		ret = userspace_liteapi_send_reply_imm(nodes, PORT, req, size,
						       rep, MSG_MAX);
		break;
	case 1:
		ret = userspace_liteapi_send_reply_imm_high(nodes, PORT, req,
							    size, rep, MSG_MAX);
		break;
	case 2:
		ret = userspace_liteapi_send_reply_imm_low(nodes, PORT, req,
							   size, rep, MSG_MAX);
		break;
	default:
		ret = userspace_liteapi_send_reply_imm_fast(nodes, PORT, req,
							    size, rep, &rl,
							    MSG_MAX);
		CHECK(rl == ret);
		break;
	}
	CHECK(ret == (int)size && !memcmp(req, rep, size));
}

static void client_calls(void)
{
	static const unsigned int kind[NMSG] = { 0, 1, 2, 3, 0, 3, 0, 1 };
	static const unsigned int size[NMSG] = {
		100, 200, 300, 400, 4000, 16, 1000, 2048
	};
	static char buf[MSG_MAX];
	unsigned int i;
	int rl = -7;

	CHECK(userspace_liteapi_query_port(nodes, PORT) == 0);
	CHECK(userspace_liteapi_query_port(nodes, PORT_UNUSED) == -1 &&
	      errno == ECONNREFUSED);
	ok("query_port: 0 for a registered port, -1 otherwise");
	/* At LIMITATION the original refused before sending anything. */
	CHECK(userspace_liteapi_send_reply_imm(nodes, PORT, buf, LIMITATION,
					       buf, MSG_MAX) == -1);
	CHECK(userspace_liteapi_send_reply_imm_fast(nodes, PORT, buf, 100, buf,
						    &rl, LIMITATION) == -1);
	CHECK(userspace_liteapi_send(nodes, PORT, buf, LIMITATION) == -1);
	ok("sizes at LIMITATION refused with -1");
	for (i = 0; i < NMSG; i++)
		call(kind[i], size[i], i);
	ok("send_reply_imm, _high, _low, _fast return the reply's length");
}

static void client_one_way(void)
{
	static char buf[MSG_MAX];
	unsigned int i, n = me == 1 ? 3 : 1;

	for (i = 0; i < n; i++) {
		msg_fill(buf, 50 + 10 * i, 100 + i);
		CHECK(userspace_liteapi_send(nodes, PORT, buf,
					     50 + 10 * i) == 0);
	}
	ok("send (one-way) returns 0");
}

/* ---- memory regions, atomics, locks ----------------------------------------- */

static void check_region(unsigned int nx, char *zbuf)
{
	static char in[3 * 4096];
	uint64_t v = 0;
	int lh, i;

	lh = userspace_liteapi_alloc_remote_mem(nx, 16384, false, PW);
	CHECK(lh > 0);
	CHECK(userspace_liteapi_rdma_write(lh, zbuf, 4096, 0, PW) == 0);
	CHECK(userspace_liteapi_rdma_write_high(lh, zbuf + 1, 4096, 4096,
						PW) == 0);
	CHECK(userspace_liteapi_rdma_write_low(lh, zbuf + 2, 4096, 8192,
					       PW) == 0);
	CHECK(userspace_liteapi_rdma_read(lh, in, 4096, 0, PW) == 0);
	CHECK(!memcmp(in, zbuf, 4096));
	CHECK(userspace_liteapi_rdma_read_high(lh, in, 4096, 4096, PW) == 0);
	CHECK(!memcmp(in, zbuf + 1, 4096));
	CHECK(userspace_liteapi_rdma_read_low(lh, in, 4096, 8192, PW) == 0);
	CHECK(!memcmp(in, zbuf + 2, 4096));
	ok("rdma_write, _high, _low and rdma_read, _high, _low return 0");

	CHECK(userspace_liteapi_memset(lh, 100, 50) == 0);
	CHECK(userspace_liteapi_remote_memset(lh, 5000, 60) == 0);
	CHECK(userspace_liteapi_rdma_read(lh, in, 3 * 4096, 0, PW) == 0);
	for (i = 0; i < 3 * 4096; i++) {
		char want = i < 4096 ? zbuf[i] : i < 8192 ?
			zbuf[i - 4096 + 1] : zbuf[i - 8192 + 2];

		if ((i >= 100 && i < 150) || (i >= 5000 && i < 5060))
			want = 0;
		CHECK(in[i] == want);
	}
	ok("memset and remote_memset zero the range, return 0");

	CHECK(userspace_liteapi_rdma_write(lh, zbuf, 4096, 16384 - 100,
					   PW) == -1 && errno == ERANGE);
	CHECK(userspace_liteapi_rdma_read(lh, in, 16, 0, PW + 1) == -1 &&
	      errno == EACCES);
	CHECK(userspace_liteapi_rdma_read(999999, in, 16, 0, PW) == -1 &&
	      errno == ENOENT);
	CHECK(userspace_liteapi_memset(lh, -1, 5) == -1 && errno == EINVAL);
	CHECK(userspace_liteapi_fetch_add(lh, &v, 1) == -1);
	CHECK(userspace_liteapi_compare_swp(999999, &v, 0, 1) == -1 &&
	      errno == ENOENT);
	ok("errors: -1 with errno");

	/* Published with ADMIN too: the original never gave ADMIN away. */
	CHECK(userspace_liteapi_add_ask_mr_table(ID_OWN + me, lh,
			MR_READ_FLAG | MR_WRITE_FLAG | MR_ADMIN_FLAG, PW) == 0);
	CHECK(userspace_liteapi_add_ask_mr_table(ID_OWN + me, lh,
			MR_READ_FLAG, PW) == -1 && errno == EEXIST);
	ok("add_ask_mr_table returns 0");
}

/* compare_swp and fetch_add, alone on an atomic LMR on @node. */
static void check_atomics(unsigned int node)
{
	uint64_t o = 42, v = 0;
	int a;

	a = userspace_liteapi_alloc_remote_mem(node, 8, true, PW);
	CHECK(a > 0);
	CHECK(userspace_liteapi_compare_swp(a, &o, 5, 7) == 1 && o == 0);
	CHECK(userspace_liteapi_compare_swp(a, &o, 0, 7) == 0 && o == 0);
	CHECK(userspace_liteapi_compare_swp(a, &o, 7, 9) == 0 && o == 7);
	CHECK(userspace_liteapi_compare_swp(a, &o, 7, 11) == 1 && o == 9);
	CHECK(userspace_liteapi_fetch_add(a, &o, 10) == 0 && o == 9);
	CHECK(userspace_liteapi_rdma_read(a, &v, 8, 0, PW) == 0 && v == 19);
}

static void count(int ctr, int cas, int data, remote_spinlock_t *lk)
{
	uint64_t o, guess = 0, prev = 0, v;
	unsigned int i, retries = 0;
	int r;

	for (i = 0; i < ITER; i++) {
		CHECK(userspace_liteapi_fetch_add(ctr, &o, 1) == 0);
		CHECK(o < (uint64_t)nodes * ITER && (i == 0 || o > prev));
		prev = o;
	}
	ok("fetch_add returns 0, old values rise");
	/* A CAS loop on the return value: 1 means retry with the old value. */
	for (i = 0; i < ITER; i++) {
		for (;;) {
			r = userspace_liteapi_compare_swp(cas, &o, guess,
							  guess + 1);
			CHECK(r == 0 || r == 1);
			if (!r) {
				CHECK(o == guess);
				guess++;
				break;
			}
			CHECK(o != guess);
			guess = o;
			retries++;
		}
	}
	printf("ok: node %u: CAS loop: %u increments, %u retries\n", me, ITER,
	       retries);
	for (i = 0; i < ITER; i++) {
		CHECK(userspace_liteapi_lock(lk) == 0);
		CHECK(userspace_liteapi_rdma_read(data, &v, 8, OFF_LOCKED,
						  PW) == 0);
		v++;
		CHECK(userspace_liteapi_rdma_write(data, &v, 8, OFF_LOCKED,
						   PW) == 0);
		CHECK(userspace_liteapi_unlock(lk) == 0);
	}
	CHECK(userspace_liteapi_lock(lk) == 0);
	CHECK(userspace_liteapi_lock(lk) == -1 && errno == EDEADLK);
	CHECK(userspace_liteapi_unlock(lk) == 0);
	CHECK(userspace_liteapi_unlock(lk) == -1 && errno == EPERM);
	ok("lock and unlock return 0; relock and stray unlock -1");
}

/* ---- the whole run ------------------------------------------------------------ */

static int run(char *ip, int port)
{
	int ctr = 0, cas = 0, data = 0, lock_num = -1, n, lh;
	remote_spinlock_t lk;
	unsigned int v = 0, total, nx;
	uint64_t val;
	char *zbuf;
	int i;

	CHECK(userspace_syscall_test() == 0);
	me = userspace_liteapi_get_node_id();
	CHECK(me >= 1 && me <= nodes);
	CHECK(userspace_liteapi_get_total_node() == (int)nodes);
	ok("syscall_test 0, get_node_id, get_total_node (not the program's lite_node_id)");
	/* Not root: no CAP_NET_ADMIN, no key. */
	CHECK(userspace_liteapi_join(ip, port, 0) == -1 &&
	      (errno == EPERM || errno == EACCES));
	ok("join as an unprivileged user: -1");
	CHECK(stick_this_thread_to_core(0) == 0);
	CHECK(stick_this_thread_to_core(-1) == EINVAL);
	CHECK(stick_this_thread_to_core(INT_MAX) == EINVAL);
	ok("stick_this_thread_to_core: 0, EINVAL");
	zbuf = userspace_liteapi_alloc_memory(3 * 4096);
	CHECK(zbuf != NULL);
	for (i = 0; i < 3 * 4096; i++)
		zbuf[i] = (char)(i * 13 + me);
	ok("alloc_memory");

	if (me == 1) {
		static char init[4096];

		ctr = userspace_liteapi_alloc_remote_mem(1, 8, true, PW);
		cas = userspace_liteapi_alloc_remote_mem(1, 8, true, PW);
		CHECK(ctr > 0 && cas > 0);
		CHECK(userspace_liteapi_add_ask_mr_table(ID_CTR, ctr,
				MR_READ_FLAG | MR_WRITE_FLAG | MR_ATOMIC_FLAG,
				PW) == 0);
		CHECK(userspace_liteapi_add_ask_mr_table(ID_CAS, cas,
				MR_READ_FLAG | MR_WRITE_FLAG | MR_ATOMIC_FLAG,
				PW) == 0);
		lock_num = userspace_liteapi_create_lock(1, &lk);
		CHECK(lock_num >= 0 && lk.lock_num == lock_num);
		ok("create_lock returns the lock's number");
		memcpy(init, &lock_num, sizeof(lock_num));
		data = userspace_liteapi_wrap_alloc(init, sizeof(init), ID_DATA,
						    PW);
		CHECK(data > 0);
		ok("wrap_alloc returns a handle");
	}
	if (me == nodes)
		server_setup();
	barrier("barrier: set up");

	/* Asked for more than published: granted what is (the original did). */
	lh = userspace_liteapi_ask_lmr(1, ID_DATA, MR_READ_FLAG | MR_WRITE_FLAG |
				       MR_SHARE_FLAG | MR_ATOMIC_FLAG, PW);
	CHECK(lh > 0);
	if (me != 1)
		data = lh;
	CHECK(userspace_liteapi_rdma_read(data, &n, sizeof(n), 0, PW) == 0);
	if (me != 1) {
		lock_num = n;
		CHECK(userspace_liteapi_ask_lock(1, lock_num, &lk) == lock_num);
		ctr = userspace_liteapi_ask_lmr(1, ID_CTR, MR_READ_FLAG |
				MR_WRITE_FLAG | MR_ATOMIC_FLAG, PW);
		cas = userspace_liteapi_ask_lmr(1, ID_CAS, MR_READ_FLAG |
				MR_WRITE_FLAG | MR_ATOMIC_FLAG, PW);
		CHECK(ctr > 0 && cas > 0);
	}
	CHECK(n == lock_num);
	ok("ask_lmr returns a handle; ask_lock the lock's number");

	nx = me % nodes + 1;
	check_region(nx, zbuf);
	check_atomics(me);
	check_atomics(nx);
	ok("compare_swp: 0 swapped, 1 differed, old value stored either way; fetch_add 0");
	CHECK(userspace_liteapi_ask_lmr(1, ID_DATA, MR_READ_FLAG, PW + 1) == -1 &&
	      errno == EACCES);
	ok("ask_lmr with a wrong password: -1");
	barrier("barrier: memory checked");

	count(ctr, cas, data, &lk);
	barrier("barrier: counted");
	if (me == 1) {
		total = nodes * ITER;
		CHECK(userspace_liteapi_rdma_read(ctr, &val, 8, 0, PW) == 0 &&
		      val == total);
		CHECK(userspace_liteapi_rdma_read(cas, &val, 8, 0, PW) == 0 &&
		      val == total);
		CHECK(userspace_liteapi_rdma_read(data, &val, 8, OFF_LOCKED,
						  PW) == 0 && val == total);
		printf("ok: node 1: fetch_add, CAS-loop and locked counters all %u\n",
		       total);
	}

	if (me == nodes)
		serve_calls((nodes - 1) * NMSG, &v);
	else
		client_calls();
	barrier("barrier: calls done");
	if (me == nodes)
		serve_one_way(nodes >= 3 ? 4 : 3, &v);
	else if (me == 1 || me == 2)
		client_one_way();
	barrier("barrier: one-way messages received");
	if (me == nodes) {
		serve_after_one_way();
	} else if (me == 1) {
		call(0, 90, 200);
		ok("a call answered through reply_and_receive_message");
	}
	barrier("barrier: all done");
	printf("ok: node %u: all ok\n", me);
	return 0;
}

/* As root on a node that has joined: the original's join returned an id. */
static int join_root(char *ip, int port)
{
	int id;

	CHECK(userspace_syscall_test() == 0);
	id = userspace_liteapi_get_node_id();
	me = id;
	CHECK(id > 0);
	CHECK(userspace_liteapi_join(ip, port, 0) == id);
	CHECK(userspace_liteapi_join("not-an-address", port, 0) == -1 &&
	      errno == EINVAL);
	printf("ok: node %u: join as root on a joined node returns its id\n",
	       me);
	return 0;
}

int main(int argc, char *argv[])
{
	/* A lost message must fail the test, not hang it. */
	alarm(240);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "--join-root"))
		return join_root(argv[2], atoi(argv[3]));
	if (argc == 4 && atoi(argv[1]) >= 2) {
		nodes = atoi(argv[1]);
		return run(argv[2], atoi(argv[3]));
	}
	fprintf(stderr, "usage: test_compat NODES MANAGER_IP PORT\n"
		"       test_compat --join-root MANAGER_IP PORT\n");
	return 2;
}
