// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * run: this node's traffic (writes read back, writes to other nodes' LMRs,
 * RPC echo, the counter under the lock) until SIGTERM or until this node
 * leaves, every operation and its outcome in the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak_worker.h"

/* ---- run ---- */

struct echo_hdr {
	uint32_t magic;
	uint32_t node;
	uint64_t seq;
};

struct worker {
	unsigned int self;	/* LITE's node id: may change at a rejoin */
	unsigned int id;	/* the worker's own: its region, its tags */
	unsigned int nodes, pause_ms;
	int data, ctr;		/* on the home */
	unsigned int lock;
	int local;		/* this node's LMR, published for peers */
	int peer[SOAK_MAX_NODES];
	uint64_t retry_at[SOAK_MAX_NODES];	/* now_ms() to try again */
	uint64_t seq, incseq, callseq;
	struct rng rng;
};

/* Continue the sequence numbers of earlier incarnations on this node. */
static void log_resume(const char *path, struct worker *w)
{
	FILE *f = fopen(path, "r");
	char line[256];
	uint64_t a, b;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "wt %" SCNu64, &a) == 1 && a > w->seq)
			w->seq = a;
		if (sscanf(line, "it %" SCNu64 " %" SCNu64, &a, &b) == 2 &&
		    (a & 0xffffffffffffULL) > w->incseq)
			w->incseq = a & 0xffffffffffffULL;
	}
	fclose(f);
}

static int ask_retry(unsigned int node, uint64_t id)
{
	uint64_t end = now_ms() + SETUP_TIMEOUT_S * 1000;
	int lh;

	do {
		lh = lite_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE,
			      SOAK_PASSWORD);
		if (lh >= 0 || (lh != -ENOENT && lh != -ETIMEDOUT))
			return lh;
		sleep(1);
	} while (now_ms() < end);
	return lh;
}

/* After an error: did this node leave? Then this incarnation is over. */
static void check_joined(int ret)
{
	if (ret != -ENOTCONN && ret != -ENODEV)
		return;
	if (lite_node_id() > 0)
		return;
	logf_("left");
	exit(EXIT_LEFT);
}

static bool node_ready(struct worker *w, unsigned int n)
{
	return now_ms() >= w->retry_at[n];
}

static void node_backoff(struct worker *w, unsigned int n)
{
	w->retry_at[n] = now_ms() + RETRY_MS;
}

static void do_write(struct worker *w)
{
	uint8_t buf[SLOT_SIZE], back[SLOT_SIZE];
	uint64_t seq = ++w->seq, off = data_off(w->id, seq);
	int ret;

	slot_fill(buf, w->id, seq);
	logf_("wt %" PRIu64, seq);
	op_begin(K_WRITE);
	ret = op_end(lite_write(w->data, off, buf, SLOT_SIZE, SOAK_PASSWORD,
				LITE_PRIO_NORMAL));
	logf_("wr %" PRIu64 " %d", seq, -ret);
	if (ret) {
		check_joined(ret);
		return;
	}
	op_begin(K_READ);
	ret = op_end(lite_read(w->data, off, back, SLOT_SIZE, SOAK_PASSWORD,
			       LITE_PRIO_NORMAL));
	if (ret)
		check_joined(ret);
	else if (memcmp(back, buf, SLOT_SIZE))
		logf_("bad read-back of write %" PRIu64 " (slot %" PRIu64
		      "): got seq %" PRId64, seq, seq % SLOTS,
		      slot_decode(back, w->id));
}

static void peer_drop(struct worker *w, unsigned int n)
{
	if (w->peer[n] > 0)
		lite_unmap(w->peer[n]);
	w->peer[n] = 0;
	node_backoff(w, n);
}

static void do_pwrite(struct worker *w)
{
	uint8_t buf[PEER_REGION], back[PEER_REGION];
	unsigned int n = 1 + rng_below(&w->rng, w->nodes), len, at;
	uint64_t off;
	int ret;

	if (n == w->self || !node_ready(w, n))
		return;
	if (w->peer[n] <= 0) {
		op_begin(K_ASK);
		ret = op_end(lite_ask(n, SOAK_ID_PEER, LITE_PERM_READ |
				      LITE_PERM_WRITE, SOAK_PASSWORD));
		if (ret < 0) {
			check_joined(ret);
			node_backoff(w, n);
			return;
		}
		w->peer[n] = ret;
	}
	len = 8 + rng_below(&w->rng, PEER_REGION - 8);
	at = rng_below(&w->rng, PEER_REGION - len + 1);
	off = (uint64_t)w->id * PEER_REGION + at;
	rng_fill(&w->rng, buf, len);
	op_begin(K_PWRITE);
	ret = op_end(lite_write(w->peer[n], off, buf, len, SOAK_PASSWORD,
				LITE_PRIO_NORMAL));
	if (!ret) {
		op_begin(K_PREAD);
		ret = op_end(lite_read(w->peer[n], off, back, len,
				       SOAK_PASSWORD, LITE_PRIO_NORMAL));
		if (!ret && memcmp(back, buf, len))
			logf_("bad read-back from node %u's LMR at %" PRIu64
			      " (%u bytes)", n, off, len);
	}
	if (ret) {
		check_joined(ret);
		peer_drop(w, n);
	}
}

static void do_rpc(struct worker *w)
{
	uint8_t req[SOAK_MAX_MSG], reply[SOAK_MAX_MSG];
	unsigned int n = 1 + rng_below(&w->rng, w->nodes);
	unsigned int len = sizeof(struct echo_hdr) +
			   rng_below(&w->rng, SOAK_MAX_MSG -
				     sizeof(struct echo_hdr) + 1);
	struct echo_hdr h = { SOAK_ECHO_MAGIC, w->id, ++w->callseq };
	int ret;

	/* No QP leads to this node itself: such a call is refused. */
	if (n == w->self || !node_ready(w, n))
		return;
	memcpy(req, &h, sizeof(h));
	rng_fill(&w->rng, req + sizeof(h), len - sizeof(h));
	op_begin(K_RPC);
	ret = op_end(lite_rpc_call(n, SOAK_PORT, req, len, reply,
				   sizeof(reply), LITE_PRIO_NORMAL));
	if (ret < 0) {
		check_joined(ret);
		node_backoff(w, n);
	} else if ((unsigned int)ret != len || memcmp(reply, req, len)) {
		logf_("bad echo from node %u: %d bytes back for %u", n, ret,
		      len);
	}
}

static int lock_bounded(struct worker *w)
{
	int ret;

	alarm(bound_ms(K_LOCK, bound_s) / 1000 + 5);
	op_begin(K_LOCK);
	ret = op_end(lite_lock(SOAK_HOME, w->lock));
	alarm(0);
	return ret;
}

static void do_inc(struct worker *w)
{
	uint64_t count, tag, v;
	int ret, i;

	ret = lock_bounded(w);
	if (ret) {
		check_joined(ret);
		return;
	}
	op_begin(K_CREAD);
	ret = op_end(lite_read(w->ctr, CTR_COUNT_OFF, &count, sizeof(count),
			       SOAK_PASSWORD, LITE_PRIO_NORMAL));
	if (!ret && count < CTR_MAX) {
		v = count + 1;
		tag = ((uint64_t)w->id << 48) | ++w->incseq;
		logf_("it %" PRIu64 " %" PRIu64, tag, v);
		op_begin(K_CWRITE);
		ret = op_end(lite_write(w->ctr, CTR_TAG_OFF(v), &tag,
					sizeof(tag), SOAK_PASSWORD,
					LITE_PRIO_NORMAL));
		if (!ret) {
			op_begin(K_CWRITE);
			ret = op_end(lite_write(w->ctr, CTR_COUNT_OFF, &v,
						sizeof(v), SOAK_PASSWORD,
						LITE_PRIO_NORMAL));
		}
		logf_("ir %" PRIu64 " %" PRIu64 " %d", tag, v, -ret);
	}
	/* A lock we hold and cannot give back stops everyone: retry. */
	for (i = 0; i < 3; i++) {
		op_begin(K_UNLOCK);
		ret = op_end(lite_unlock(SOAK_HOME, w->lock));
		if (ret != -ETIMEDOUT)
			break;
	}
	check_joined(ret);
}

static void worker_setup(struct worker *w)
{
	uint64_t hdr[2];
	int ret;

	ret = lite_node_id();
	if (ret <= 0)
		die("this node has not joined: %s", errname(-ret));
	w->self = ret;
	if (!w->id)
		w->id = w->self;
	if (w->id >= SOAK_MAX_NODES || w->nodes >= SOAK_MAX_NODES)
		die("at most %d nodes", SOAK_MAX_NODES - 1);
	w->data = ask_retry(SOAK_HOME, SOAK_ID_DATA);
	w->ctr = ask_retry(SOAK_HOME, SOAK_ID_CTR);
	if (w->data < 0 || w->ctr < 0)
		die("asking node %d for the data and counter LMRs: %s, %s",
		    SOAK_HOME, errname(-w->data), errname(-w->ctr));
	ret = lite_read(w->ctr, 0, hdr, sizeof(hdr), SOAK_PASSWORD,
			LITE_PRIO_NORMAL);
	if (ret || hdr[0] != SOAK_MAGIC)
		die("reading the counter LMR's header: %s", errname(-ret));
	w->lock = hdr[1];
	w->local = lite_alloc(w->self, PEER_SIZE, 0, SOAK_PASSWORD);
	if (w->local < 0)
		die("lite_alloc: %s", errname(-w->local));
	ret = lite_publish(w->local, SOAK_ID_PEER, LITE_PERM_READ |
			   LITE_PERM_WRITE, SOAK_PASSWORD);
	if (ret)
		die("lite_publish: %s", errname(-ret));
	/* The home serves the port on node 1. */
	ret = lite_rpc_register(SOAK_PORT, SOAK_MAX_MSG, "soak-echo");
	if (!ret)
		start_thread(echo_server, NULL);
	else if (ret != -EADDRINUSE)
		die("lite_rpc_register: %s", errname(-ret));
}

int run(unsigned int nodes, const char *log, int argc, char **argv)
{
	struct worker w = { .nodes = nodes, .pause_ms = 10 };
	uint64_t seed = 0;
	int opt;

	while ((opt = getopt(argc, argv, "b:i:p:s:")) != -1) {
		switch (opt) {
		case 'i':
			w.id = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			bound_s = strtoul(optarg, NULL, 10);
			break;
		case 'p':
			w.pause_ms = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			die("usage: soak_worker run NODES LOG [-b BOUND_S] [-i ID] [-p PAUSE_MS] [-s SEED]");
		}
	}
	if (!bound_s)
		die("the bound must be > 0 s");
	signals_setup();
	log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		die("%s: %s", log, strerror(errno));
	log_resume(log, &w);
	start_thread(watchdog, NULL);
	worker_setup(&w);
	w.rng.state = seed ? seed : now_ms() ^ ((uint64_t)getpid() << 32);
	logf_("start %u %d", w.id, (int)getpid());
	printf("ready id %u node %u seq %" PRIu64 " inc %" PRIu64 "\n", w.id,
	       w.self, w.seq, w.incseq);
	fflush(stdout);
	alarm_unblock();
	while (!stopping) {
		unsigned int pick = rng_below(&w.rng, 100);

		if (pick < 40)
			do_write(&w);
		else if (pick < 55)
			do_pwrite(&w);
		else if (pick < 80)
			do_rpc(&w);
		else
			do_inc(&w);
		if (w.pause_ms)
			usleep(w.pause_ms * 1000);
	}
	logf_("stop");
	return 0;
}
