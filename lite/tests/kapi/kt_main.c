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
 * Adding a check: one function "void kt_<call>(struct kt *t)" using
 * KT_EQ()/KT_TRUE(), in the part of its concern and declared in kt.h, and
 * one KT_CHECK() line in kt_checks[].
 *
 * The parts, by concern: kt_main.c (this: the parameters, the list of
 * checks, the client's run, load and unload), kt.h (what the parts share:
 * the request protocol, the client's state, the check helpers of
 * kt_util.c), kt_cluster.c (membership, locks, the barrier), kt_lmr.c
 * (LMRs: allocation, reads and writes, memset, memcpy, memmove),
 * kt_async.c (posted reads and writes, poll, fence), kt_share.c
 * (publication, ask, deregister, unmap), kt_rpc.c (ports, calls,
 * multicast, messages, replies), kt_atomic.c (fetch-and-add,
 * compare-and-swap, swap) and kt_server.c (role=server).
 *
 * Everything a check allocates it frees. What the kernel API cannot give
 * back stays with lite.ko's kernel context until lite.ko is unloaded:
 * registered ports (no unregister call) and created locks (no destroy
 * call). A second load therefore finds its ports registered already,
 * which it accepts.
 */
#include "kt.h"

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *role = "client";
static char *only;
static bool inject_fail;

/* What the checks and the server read (kt.h). */
unsigned int kt_servers[LITE_MAX_NODES];
int kt_nr_servers;
unsigned int kt_nodes;
unsigned int kt_port = 60;
unsigned int kt_max_msg = 65536;
unsigned int kt_hold_ms = 300;

module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "client (runs the checks) or server");
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
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "client: run only the check of this name");
module_param(inject_fail, bool, 0444);
MODULE_PARM_DESC(inject_fail, "client: fail every check that runs (tests the test)");

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
