// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_sync: RPC, atomics, locks and the barrier through liblite (lite.h
 * only), run on the nodes of a joined 3-node cluster by the integration
 * test.
 *
 *   test_sync echo-server PORT SECONDS   serve PORT until QUIT or SECONDS
 *   test_sync echo-client NODE PORT THREADS
 *   test_sync quit NODE PORT             stop the echo server
 *   test_sync call-departed NODE PORT    a call to a node that left
 *   test_sync fetch-add NODE ID ITER     on all 3 nodes; NODE owns the LMR
 *   test_sync lock-counter NODE ID ITER  on all 3 nodes; NODE owns the lock
 *   test_sync barrier NR
 *   test_sync recv-block PORT            a receiver whose node leaves
 *   test_sync silent PORT SECONDS        takes one request, never replies
 *   test_sync deaf PORT SECONDS          registers PORT, never receives
 *   test_sync flood NODE PORT            one-way messages of FLOOD_SIZE
 *                                        until one fails (a full ring)
 *   test_sync late PORT GO_FILE COUNT    registers PORT, receives COUNT
 *                                        SEQ messages once GO_FILE exists
 *   test_sync backlog NODE PORT COUNT    COUNT SEQ messages to a late
 *                                        receiver: the 1025th waits
 *   test_sync stall NODE DELAY_MS hog|one
 *                                        posts writes to NODE from
 *                                        DELAY_MS on (its link is down)
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; "info ..." lines
 * only inform; the last line is "PASS: 0 failure(s)" or "FAIL: N
 * failure(s)". Exit status: 1 if a check failed, 2 on a usage error.
 * echo-server, recv-block, silent, deaf and late print "ready" once their
 * port is registered, stall once its LMR is allocated.
 *
 * Lines the script looks for:
 *   echo-server  "ok   one-way ordering from node N (K messages)" for each
 *                echo-client that finished its one-way messages
 *   fetch-add    "info total N" (owner), "info cas won" on exactly one node
 *                (the others print "info cas lost to node N"), "info swap
 *                put P got G" (sums of the values a node swapped in and got
 *                back; over all nodes, put == got + "info swap final F" of
 *                the owner when no swap was lost or doubled)
 *   lock-counter "info counter N" (owner)
 *   barrier      "info before MS", "info after MS" (Unix time in ms)
 *   recv-block   "info recv returned -ERRNO (NAME)"
 *   call-departed "info elapsed S s"
 *   flood        "info sent N then NAME after S s" (NAME: the errno)
 *   backlog      "info backlog: message 1025 waited S s; ..."
 *   stall        "info stall: posting" (hog), "info stall: one post
 *                returned NAME after S s" (one)
 *
 * Messages the echo server acts on: a request whose first 8 bytes are
 * "BIGREPLY" gets LITE_RPC_MAX_MSG bytes back; one starting with
 * "SMALLBUF" is echoed with a reply that is allowed to fail with EMSGSIZE
 * (its caller's buffer is too small); the one-way messages "QUIT",
 * "SEQ:" + u32 sequence number and "SEQ-END" + u32 count.
 *
 * The commands by concern: test_sync_server.c (echo-server),
 * test_sync_client.c (echo-client, quit), test_sync_atomic.c (fetch-add,
 * lock-counter, barrier), test_sync_faults.c (call-departed, recv-block,
 * silent, deaf, flood, late, backlog, stall); here the helpers they share
 * (test_sync.h) and the command line.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_sync.h"

#define MAX_THREADS		32

/* ---- helpers ------------------------------------------------------------ */

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned long long unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void *xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p) {
		fail("malloc(%zu): %s", size, strerror(errno));
		exit(finish());
	}
	return p;
}

/* This node's id; a node that has not joined cannot run any command. */
unsigned int this_node(void)
{
	int id = lite_node_id();

	if (id <= 0) {
		fail("this node's id: %s", got_name(id));
		exit(finish());
	}
	return id;
}

/* The BIGREPLY answer: known to both sides. */
void big_pattern(uint8_t *buf)
{
	unsigned int i;

	for (i = 0; i < LITE_RPC_MAX_MSG; i++)
		buf[i] = i % 251;
}

bool is_magic(const uint8_t *msg, int len, const char *magic)
{
	return len >= MAGIC_LEN && !memcmp(msg, magic, MAGIC_LEN);
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_sync echo-server PORT SECONDS\n"
		"       test_sync echo-client NODE PORT THREADS\n"
		"       test_sync quit NODE PORT\n"
		"       test_sync call-departed NODE PORT\n"
		"       test_sync silent PORT SECONDS\n"
		"       test_sync deaf PORT SECONDS\n"
		"       test_sync flood NODE PORT\n"
		"       test_sync late PORT GO_FILE COUNT\n"
		"       test_sync backlog NODE PORT COUNT\n"
		"       test_sync stall NODE DELAY_MS hog|one\n"
		"       test_sync fetch-add NODE ID ITER    (on 3 nodes)\n"
		"       test_sync lock-counter NODE ID ITER (on 3 nodes)\n"
		"       test_sync barrier NR\n"
		"       test_sync recv-block PORT\n");
}

#define NODE(i)		parse_num(argv[i], "NODE", 1, UINT_MAX)
#define PORT(i)		parse_num(argv[i], "PORT", 0, LITE_MAX_PORT - 1)
#define ID(i)		parse_num(argv[i], "ID", 0, UINT64_MAX)
#define ITER(i)		parse_num(argv[i], "ITER", 0, 100000000)
#define MS(i)		parse_num(argv[i], "DELAY_MS", 0, 600000)
#define COUNT(i)	parse_num(argv[i], "COUNT", 1, 1000000)

int main(int argc, char *argv[])
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int nargs = argc - 2;

	check_start("test_sync", usage);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "echo-server") && nargs == 2)
		return cmd_echo_server(PORT(2),
				       parse_num(argv[3], "SECONDS", 1,
						 INT_MAX));
	if (!strcmp(cmd, "echo-client") && nargs == 3)
		return cmd_echo_client(NODE(2), PORT(3),
				       parse_num(argv[4], "THREADS", 1,
						 MAX_THREADS));
	if (!strcmp(cmd, "quit") && nargs == 2)
		return cmd_quit(NODE(2), PORT(3));
	if (!strcmp(cmd, "silent") && nargs == 2)
		return cmd_silent(PORT(2), parse_num(argv[3], "SECONDS", 1,
						     INT_MAX));
	if (!strcmp(cmd, "deaf") && nargs == 2)
		return cmd_deaf(PORT(2), parse_num(argv[3], "SECONDS", 1,
						   INT_MAX));
	if (!strcmp(cmd, "flood") && nargs == 2)
		return cmd_flood(NODE(2), PORT(3));
	if (!strcmp(cmd, "late") && nargs == 3)
		return cmd_late(PORT(2), argv[3], COUNT(4));
	if (!strcmp(cmd, "backlog") && nargs == 3)
		return cmd_backlog(NODE(2), PORT(3), COUNT(4));
	if (!strcmp(cmd, "stall") && nargs == 3 &&
	    (!strcmp(argv[4], "hog") || !strcmp(argv[4], "one")))
		return cmd_stall(NODE(2), MS(3), argv[4]);
	if (!strcmp(cmd, "call-departed") && nargs == 2)
		return cmd_call_departed(NODE(2), PORT(3));
	if (!strcmp(cmd, "fetch-add") && nargs == 3)
		return cmd_fetch_add(NODE(2), ID(3), ITER(4));
	if (!strcmp(cmd, "lock-counter") && nargs == 3)
		return cmd_lock_counter(NODE(2), ID(3), ITER(4));
	if (!strcmp(cmd, "barrier") && nargs == 1)
		return cmd_barrier(parse_num(argv[2], "NR", 1, UINT_MAX));
	if (!strcmp(cmd, "recv-block") && nargs == 1)
		return cmd_recv_block(PORT(2));
	usage(stderr);
	return 2;
}
