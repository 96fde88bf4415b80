// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * soak_worker: the traffic behind 'make soak' (tests/soak/run), through
 * liblite (lite.h) only. Three modes:
 *
 *   soak_worker home NODES
 *	on the stable node (node 1, never churned): allocates the data LMR
 *	(one region of SLOTS slots per node), the counter LMR and its lock,
 *	publishes both, serves RPC echo, prints "ready LOCK" and stays until
 *	SIGTERM (its LMRs live as long as it does).
 *   soak_worker run NODES LOG [-b BOUND_S] [-i ID] [-p PAUSE_MS] [-s SEED]
 *	on every node: continuous traffic until SIGTERM, or until this node
 *	leaves the cluster (exit status 3). Every operation and every
 *	acknowledgement is appended to LOG (one line each, written before the
 *	next operation starts), so a later incarnation on the same node
 *	continues the sequence numbers and 'verify' can hold the home's
 *	memory against what was acknowledged. ID (1 .. NODES, default this
 *	node's id) names the worker's region and its increments: the manager
 *	may give a rejoining node another id than it had, so the controller
 *	passes the host's number.
 *   soak_worker verify NODES BOUND_S LOG...
 *	on the stable node while 'home' runs: reads the data and counter
 *	LMRs, replays the logs and prints the summary. Exit status 1 when an
 *	invariant does not hold.
 *
 * The traffic, one operation at a time, picked at random:
 *   write   a slot of this node's region of the data LMR on node 1 (64
 *	     bytes derived from (node, seq); slot = seq % SLOTS), then a read
 *	     back that must return it;
 *   pwrite  random bytes into this node's region of another node's local
 *	     LMR (published by that node's worker), then a read back;
 *   rpc     an echo call with a random payload to a random other node,
 *	     whose reply must be the payload;
 *   inc     the lock-protected counter on node 1: lock, read the count c,
 *	     write this increment's tag into entry c + 1, write c + 1 to the
 *	     count, unlock.
 *
 * Durability rule checked by 'verify': an acknowledged operation (the call
 * returned success) on memory of the stable node is never lost. Memory of
 * a node that leaves goes with it (its worker's LMR is freed), so pwrites
 * are checked only by their read back. An operation that failed may or may
 * not have taken effect (a timeout says nothing about the remote side):
 * verify accepts its value too, and counts how many did.
 *
 * Every call is bounded: BOUND_S (default 30, three times the module's
 * 10 s timeouts) for data operations, asks and RPC, 4 * BOUND_S for
 * lite_lock (a FIFO queue behind up to NODES - 1 holders; SIGALRM ends a
 * longer wait with EINTR). A watchdog thread logs a call still running
 * past its bound ("hung"); verify also counts completed calls that took
 * longer.
 *
 * Log lines ("op" lines carry the positive errno, 0 on success, and the
 * call's duration in ms):
 *   start NODE PID			stop | left
 *   op ID KIND ERRNO MS		hung ID KIND MS
 *   wt SEQ | wr SEQ ERRNO		a data write tried / its outcome
 *   it TAG VALUE | ir TAG VALUE ERRNO	an increment tried / its outcome
 *   bad WHAT				a read back that differed
 *
 * The parts: soak_worker.c (this: home, the command line),
 * soak_worker.h (the LMRs' layout, what the parts share),
 * soak_worker_util.c (the log, the watched calls, the echo server, the
 * data written), soak_worker_run.c (run), soak_worker_verify.c (verify).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak_worker.h"

/* ---- home ---- */

static int home(unsigned int nodes)
{
	uint64_t hdr[2] = { SOAK_MAGIC };
	int data, ctr, lock, ret, i;

	(void)nodes;
	signals_setup();
	if (lite_node_id() != SOAK_HOME)
		die("home runs on node %d, this is node %d", SOAK_HOME,
		    lite_node_id());
	data = lite_alloc(SOAK_HOME, DATA_SIZE, 0, SOAK_PASSWORD);
	ctr = lite_alloc(SOAK_HOME, CTR_SIZE, 0, SOAK_PASSWORD);
	lock = lite_lock_create(SOAK_HOME);
	if (data < 0 || ctr < 0 || lock < 0)
		die("alloc %d, alloc %d, lock_create %d", data, ctr, lock);
	hdr[1] = lock;
	ret = lite_write(ctr, 0, hdr, sizeof(hdr), SOAK_PASSWORD,
			 LITE_PRIO_NORMAL);
	if (!ret)
		ret = lite_publish(data, SOAK_ID_DATA, LITE_PERM_READ |
				   LITE_PERM_WRITE, SOAK_PASSWORD);
	if (!ret)
		ret = lite_publish(ctr, SOAK_ID_CTR, LITE_PERM_READ |
				   LITE_PERM_WRITE, SOAK_PASSWORD);
	if (!ret)
		ret = lite_rpc_register(SOAK_PORT, SOAK_MAX_MSG, "soak-echo");
	if (ret)
		die("setting up the home: %s", errname(-ret));
	for (i = 0; i < HOME_SERVERS; i++)
		start_thread(echo_server, NULL);
	printf("ready %d\n", lock);
	fflush(stdout);
	for (;;) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		if (!sigwait(&set, &sig))
			break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int nodes;

	if (argc < 3)
		die("usage: soak_worker home|run|verify NODES ...");
	nodes = strtoul(argv[2], NULL, 10);
	if (!nodes || nodes >= SOAK_MAX_NODES)
		die("NODES must be 1 .. %d", SOAK_MAX_NODES - 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "home"))
		return home(nodes);
	if (!strcmp(argv[1], "run") && argc >= 4) {
		optind = 4;
		return run(nodes, argv[3], argc, argv);
	}
	if (!strcmp(argv[1], "verify"))
		return verify(nodes, argc - 3, argv + 3);
	die("usage: soak_worker home|run|verify NODES ...");
}
