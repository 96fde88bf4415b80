// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the cluster's calls: this node's id and the number of
 * nodes, joining (refused: this node is a member already), and the
 * cluster-wide locks and barrier, with a server holding or waiting too.
 */
#include "kt.h"

#include <linux/jiffies.h>

void kt_get_node_id(struct kt *t)
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

void kt_get_total_node(struct kt *t)
{
	int n = liteapi_get_total_node();

	if (kt_nodes)
		KT_EQ(n, kt_nodes);
	KT_TRUE(n >= 1 + kt_nr_servers);
	KT_TRUE(n < LITE_MAX_NODES);
}

void kt_establish_conn(struct kt *t)
{
	/* The manager needs the cluster key, which this call cannot give. */
	KT_EQ(liteapi_establish_conn("127.0.0.1", 18500, 0), -ENOKEY);
	KT_EQ(liteapi_establish_conn(NULL, 0, 0), -ENOKEY);
	KT_EQ(liteapi_get_node_id(), t->me);
}

void kt_establish_conn_key(struct kt *t)
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

void kt_create_lock(struct kt *t)
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

void kt_ask_lock(struct kt *t)
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

void kt_lock(struct kt *t)
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

void kt_unlock(struct kt *t)
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

void kt_dist_barrier(struct kt *t)
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
