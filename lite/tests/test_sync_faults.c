// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * When the other side is gone or does not take part: a call to a node
 * that left, a receiver whose node leaves, a server that never answers or
 * never receives, a sender whose ring fills up, one whose receiver starts
 * late, and posts to a node that does not acknowledge them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test_sync.h"

#define FLOOD_SIZE		(60 * KiB)	/* flood: ~68 fill a ring */
#define DEPART_TIMEOUT_S	60
#define RING_MSGS		1024	/* a ring's backlog (docs/rpc.md) */
#define WAITED_S		1.0	/* a call that took this long waited */
#define LATE_TIMEOUT_S		60	/* late: all messages within */
#define STALL_BYTES		4096	/* stall: each post */
#define STALL_POSTS		1000	/* stall: hog posts at most */

/* ---- call-departed, recv-block, silent, deaf, flood --------------------- */

int cmd_call_departed(unsigned int node, unsigned int port)
{
	static const int gone[] = { ENOTCONN, ETIMEDOUT, ECONNREFUSED };
	double start = now(), elapsed;
	char rep[64];
	int ret;

	ret = lite_rpc_call(node, port, "departed", 8, rep, sizeof(rep),
			    LITE_PRIO_NORMAL);
	elapsed = now() - start;
	expect_any(ret, gone, ARRAY_SIZE(gone), "call to departed node %u",
		   node);
	info("elapsed %.1f s", elapsed);
	if (elapsed <= DEPART_TIMEOUT_S)
		pass("call to departed node %u returned within %d s", node,
		     DEPART_TIMEOUT_S);
	else
		fail("call to departed node %u: returned after %.1f s, more "
		     "than %d s", node, elapsed, DEPART_TIMEOUT_S);
	return finish();
}


/*
 * Register @port as @name, print "ready" and wait for one request: its
 * length or error in *@ret, its sender in *@src. False if the port could
 * not be registered (a failed check).
 */
static bool recv_one(unsigned int port, const char *name, int *ret,
		     unsigned int *src)
{
	static uint8_t buf[4096];
	uint64_t desc;

	if (!expect(lite_rpc_register(port, sizeof(buf), name), 0,
		    "register port %u", port))
		return false;
	puts("ready");
	*ret = lite_rpc_recv(port, buf, sizeof(buf), &desc, src, 0,
			     LITE_PRIO_NORMAL);
	return true;
}

int cmd_recv_block(unsigned int port)
{
	unsigned int src;
	int ret;

	if (!recv_one(port, "test_sync recv", &ret, &src))
		return finish();
	if (ret < 0)
		info("recv returned %d (%s)", ret, errname(-ret));
	else
		info("recv returned %d (a message from node %u)", ret, src);
	if (ret == -ENOTCONN || ret == -ENODEV)
		pass("blocked recv woke with %s", errname(-ret));
	else
		fail("blocked recv: want ENOTCONN or ENODEV, got %s",
		     got_name(ret));
	return finish();
}

/* A server that takes one request and never answers it (caller timeouts). */
int cmd_silent(unsigned int port, unsigned int seconds)
{
	unsigned int src;
	int ret;

	if (!recv_one(port, "test_sync silent", &ret, &src))
		return finish();
	step(ret, "receive the request that will not be answered");
	sleep(seconds);
	return finish();
}

/* A receiver that never receives: its senders' ring fills up. */
int cmd_deaf(unsigned int port, unsigned int seconds)
{
	if (!expect(lite_rpc_register(port, FLOOD_SIZE, "test_sync deaf"), 0,
		    "register port %u", port))
		return finish();
	puts("ready");
	fflush(stdout);
	sleep(seconds);
	return finish();
}

/* One-way messages to (@node, @port) until one fails. */
int cmd_flood(unsigned int node, unsigned int port)
{
	static uint8_t msg[FLOOD_SIZE];
	double start = now(), t0;
	unsigned int sent = 0;
	int ret;

	for (;;) {
		t0 = now();
		ret = lite_rpc_send(node, port, msg, sizeof(msg),
				    LITE_PRIO_NORMAL);
		if (ret)
			break;
		sent++;
	}
	info("sent %u then %s after %.1f s (the last send waited %.1f s)",
	     sent, errname(-ret), now() - start, now() - t0);
	return finish();
}

/* ---- late, backlog ------------------------------------------------------ */

/*
 * A receiver that starts once @go_file exists (the script creates it
 * after the sender said the ring is full), then takes @count one-way SEQ
 * messages: all there, in order, none twice.
 */
int cmd_late(unsigned int port, const char *go_file, unsigned int count)
{
	uint8_t buf[SEQ_END_LEN];
	double end;
	unsigned int i;
	uint32_t seq;
	int ret = 0;

	if (!expect(lite_rpc_register(port, sizeof(buf), "test_sync late"), 0,
		    "register port %u", port))
		return finish();
	puts("ready");
	fflush(stdout);
	end = now() + LATE_TIMEOUT_S;
	while (access(go_file, F_OK) && now() < end)
		sleep_ms(10);
	end = now() + LATE_TIMEOUT_S;
	for (i = 0; i < count && now() < end; ) {
		ret = lite_rpc_recv(port, buf, sizeof(buf), NULL, NULL,
				    LITE_RECV_NONBLOCK, LITE_PRIO_NORMAL);
		if (ret == -EAGAIN) {
			sleep_ms(1);
			continue;
		}
		if (!step(ret, "receive message %u", i))
			return finish();
		memcpy(&seq, buf + 4, sizeof(seq));
		if (ret != SEQ_LEN || memcmp(buf, MSG_SEQ, 4) || seq != i) {
			fail("message %u: %d bytes, sequence %u", i, ret, seq);
			return finish();
		}
		i++;
	}
	if (i == count)
		pass("late receiver: %u one-way messages, in order", count);
	else
		fail("late receiver: %u of %u messages in %d s", i, count,
		     LATE_TIMEOUT_S);
	return finish();
}

/*
 * @count one-way SEQ messages of 8 bytes to (@node, @port), whose receiver
 * starts late (cmd_late(), once the script saw RING_MSGS sent): the ring
 * takes RING_MSGS of them, then the next send waits for room (not when 4 MiB of them are out), and once the
 * receiver takes them every send succeeds.
 */
int cmd_backlog(unsigned int node, unsigned int port, unsigned int count)
{
	double start = now(), t, slowest = 0, at_limit = 0;
	unsigned int i, slowest_at = 0;
	uint8_t msg[SEQ_LEN];
	uint32_t seq;

	memcpy(msg, MSG_SEQ, 4);
	for (i = 0; i < count; i++) {
		seq = i;
		memcpy(msg + 4, &seq, sizeof(seq));
		t = now();
		if (!step(lite_rpc_send(node, port, msg, sizeof(msg),
					LITE_PRIO_NORMAL),
			  "one-way message %u to node %u", i, node))
			return finish();
		t = now() - t;
		if (i == RING_MSGS - 1) {
			/* The script starts the receiver after this line. */
			info("backlog: %u messages sent", RING_MSGS);
			fflush(stdout);
		}
		if (i == RING_MSGS)
			at_limit = t;
		else if (i < RING_MSGS && t > slowest) {
			slowest = t;
			slowest_at = i;
		}
	}
	pass("%u one-way messages to node %u in %.1f s", count, node,
	     now() - start);
	info("backlog: message %u waited %.1f s; the slowest before it, %u, %.2f s",
	     RING_MSGS + 1, at_limit, slowest_at + 1, slowest);
	if (count <= RING_MSGS)
		return finish();
	if (at_limit >= WAITED_S && slowest < WAITED_S)
		pass("the ring held %u messages, then the next waited for room",
		     RING_MSGS);
	else
		fail("want message %u, and none before it, to wait %.0f s or more",
		     RING_MSGS + 1, WAITED_S);
	return finish();
}

/* ---- stall -------------------------------------------------------------- */

/*
 * Posts to @node, whose link the script takes down after "ready", so that
 * nothing posted completes for a while. "hog" posts STALL_BYTES writes
 * until a post fails or STALL_POSTS are out, and is SIGKILLed by the
 * script while a post waits for a send queue entry. "one" posts a single
 * write: it must not wait for the entries the hog holds (another user's).
 */
int cmd_stall(unsigned int node, unsigned int delay_ms, const char *mode)
{
	static uint8_t buf[STALL_BYTES];
	unsigned int i;
	double t;
	int lh, ret;

	lh = lite_alloc(node, STALL_BYTES, 0, 0);
	if (!expect(lh, 0, "allocate %u bytes on node %u", STALL_BYTES, node))
		return finish();
	puts("ready");
	sleep_ms(delay_ms);
	if (!strcmp(mode, "one")) {
		t = now();
		ret = lite_post_write(lh, 0, buf, sizeof(buf), 0, 1);
		t = now() - t;
		info("stall: one post returned %s after %.1f s", got_name(ret),
		     t);
		expect(ret, 0, "post a write to node %u", node);
		if (t < WAITED_S)
			pass("the post did not wait for another user's posts");
		else
			fail("the post waited %.1f s for another user's posts", t);
		return finish();
	}
	info("stall: posting");
	for (i = 0; i < STALL_POSTS; i++) {
		t = now();
		ret = lite_post_write(lh, 0, buf, sizeof(buf), 0, i);
		if (ret)
			break;
	}
	info("stall: %u posts, then %s after %.1f s", i, got_name(ret),
	     now() - t);
	return finish();
}
