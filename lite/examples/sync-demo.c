// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sync-demo: LITE RPC, atomics, a lock and the barrier through the original
 * LITE API (lite-lib.h). Run the same command on every node of a joined
 * cluster of NODES nodes, at about the same time:
 *
 *   sync-demo NODES ITER
 *
 * The last node serves an echo port; every other node sends it ITER
 * requests and checks the replies byte for byte. Then every node adds 1 to
 * a counter on node 1 ITER times with fetch_add, and ITER times with a
 * read-modify-write under a distributed lock. Node 1 checks both counters
 * reach NODES x ITER. Barriers separate the phases. One line per step;
 * exit status 1 on the first failure.
 *
 *   cc sync-demo.c $(pkg-config --cflags --libs lite)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite-lib.h"

#define ECHO_PORT	7
#define MAX_MSG		4096
#define COUNTER_ID	0x73796e63ULL	/* "sync" */
#define PASSWORD	2024
#define OFF_FETCH_ADD	0	/* the fetch_add counter */
#define OFF_LOCKED	8	/* the counter under the lock */
#define OFF_LOCK_NUM	16	/* the lock's number, for the others */

static void check(int ok, const char *what)
{
	printf("sync-demo: %s: %s\n", what, ok ? "ok" : "FAILED");
	if (!ok)
		exit(1);
}

static void barrier(unsigned int nodes, const char *what)
{
	check(userspace_liteapi_dist_barrier(nodes) == 0, what);
}

static void echo_server(unsigned int requests)
{
	static char buf[MAX_MSG];
	uintptr_t desc;
	unsigned int i;
	int len;

	for (i = 0; i < requests; i++) {
		len = userspace_liteapi_receive_message(ECHO_PORT, buf,
							sizeof(buf), &desc,
							BLOCK_CALL);
		if (len < 0 ||
		    userspace_liteapi_reply_message(buf, len, desc) < 0)
			check(0, "receive and echo a request");
	}
	check(1, "echoed every request");
}

static void echo_client(unsigned int server, unsigned int iter)
{
	static char req[MAX_MSG], rep[MAX_MSG];
	unsigned int i, size, j;
	int len;

	check(userspace_liteapi_query_port(server, ECHO_PORT) == 0,
	      "query_port on the server");
	for (i = 0; i < iter; i++) {
		size = 1 + rand() % MAX_MSG;
		for (j = 0; j < size; j++)
			req[j] = rand();
		len = userspace_liteapi_send_reply_imm(server, ECHO_PORT, req,
						       size, rep, sizeof(rep));
		if (len != (int)size || memcmp(req, rep, size))
			check(0, "byte-exact echo");
	}
	check(1, "every echo byte-exact");
}

int main(int argc, char *argv[])
{
	unsigned int nodes, iter, me, i;
	remote_spinlock_t lock;
	uint64_t value, old;
	int lh, lock_num;

	if (argc != 3 || atoi(argv[1]) < 2 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: sync-demo NODES ITER\n");
		return 2;
	}
	nodes = atoi(argv[1]);
	iter = atoi(argv[2]);
	me = userspace_liteapi_get_node_id();
	check(me > 0 && me <= nodes, "this node joined the cluster");
	srand(me);

	/* Node 1 owns the counters and the lock; the server registers. */
	if (me == 1) {
		lh = userspace_liteapi_alloc_remote_mem(1, 4096, true, PASSWORD);
		check(lh > 0, "allocate the atomic counter LMR");
		check(userspace_liteapi_add_ask_mr_table(COUNTER_ID, lh,
				MR_READ_FLAG | MR_WRITE_FLAG | MR_ATOMIC_FLAG,
				PASSWORD) == 0, "publish it");
		lock_num = userspace_liteapi_create_lock(1, &lock);
		check(lock_num >= 0 && lock_num == lock.lock_num,
		      "create the lock");
		check(userspace_liteapi_rdma_write(lh, &lock_num,
				sizeof(lock_num), OFF_LOCK_NUM, PASSWORD) == 0,
		      "store the lock's number");
	}
	if (me == nodes)
		check(userspace_liteapi_register_application(ECHO_PORT,
				MAX_MSG, 1, "sync-demo", 9) == ECHO_PORT,
		      "register the echo port");
	barrier(nodes, "barrier: set up");

	if (me == nodes)
		echo_server((nodes - 1) * iter);
	else
		echo_client(nodes, iter);
	barrier(nodes, "barrier: echoes done");

	if (me != 1) {
		lh = userspace_liteapi_ask_lmr(1, COUNTER_ID,
				MR_READ_FLAG | MR_WRITE_FLAG | MR_ATOMIC_FLAG,
				PASSWORD);
		check(lh > 0, "ask_lmr the counter LMR");
		check(userspace_liteapi_rdma_read(lh, &lock_num,
				sizeof(lock_num), OFF_LOCK_NUM, PASSWORD) == 0,
		      "read the lock's number");
		check(userspace_liteapi_ask_lock(1, lock_num, &lock) == lock_num,
		      "ask_lock");
	}
	for (i = 0; i < iter; i++) {
		if (userspace_liteapi_fetch_add(lh, &old, 1) < 0)
			check(0, "fetch_add");
		if (userspace_liteapi_lock(&lock) < 0 ||
		    userspace_liteapi_rdma_read(lh, &value, sizeof(value),
						OFF_LOCKED, PASSWORD) < 0)
			check(0, "lock and read");
		value++;
		if (userspace_liteapi_rdma_write(lh, &value, sizeof(value),
						 OFF_LOCKED, PASSWORD) < 0 ||
		    userspace_liteapi_unlock(&lock) < 0)
			check(0, "write and unlock");
	}
	check(1, "counted");
	barrier(nodes, "barrier: counting done");

	if (me == 1) {
		userspace_liteapi_rdma_read(lh, &old, sizeof(old),
					    OFF_FETCH_ADD, PASSWORD);
		userspace_liteapi_rdma_read(lh, &value, sizeof(value),
					    OFF_LOCKED, PASSWORD);
		printf("sync-demo: fetch_add counter %llu, locked counter %llu, want %u\n",
		       (unsigned long long)old, (unsigned long long)value,
		       nodes * iter);
		check(old == nodes * iter, "fetch_add counter exact");
		check(value == nodes * iter, "lock-protected counter exact");
	}
	/* Node 1's LMR lives as long as its process: keep it for the others. */
	barrier(nodes, "barrier: checked");
	printf("sync-demo: all ok\n");
	return 0;
}
