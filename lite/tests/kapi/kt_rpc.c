// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of RPC: registering a port, asking for another node's, calls
 * of every size to each server and to both at once (multicast), one-way
 * messages, and the client's own port receiving and replying to a
 * server's call back.
 */
#include "kt.h"

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/string.h>

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

void kt_register_application(struct kt *t)
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

void kt_query_port(struct kt *t)
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

void kt_send_reply_imm(struct kt *t)
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

void kt_send_reply_imm_multicast(struct kt *t)
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

void kt_send_message(struct kt *t)
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

void kt_receive_message(struct kt *t)
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

void kt_reply_message(struct kt *t)
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
