// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Locks and the barrier between users: contended locks with interrupted
 * waits, another uid's lock refused, destroy; barriers of two uids never
 * meet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_security.h"

#define LOCK_SLEEP_US		2000	/* most a holder sleeps */

/* The counters of lock-contend, in its atomic LMR. */
#define CNT_HOLDERS		0
#define CNT_ROUNDS		8
#define CNT_EINTR		16
#define CNT_SIZE		4096

/* ---- locks ----------------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
}

/* A handler without SA_RESTART: a blocked wait returns EINTR. */
static void catch_signal(int sig)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void block_signal(int sig, bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/*
 * A contender: ROUNDS times lock, count itself in, sleep, count itself
 * out, unlock. SIGUSR1 is let in only while it waits for the lock: an
 * interrupted atomic could not be told from a lost one.
 */
int cmd_lock_worker(unsigned int node, unsigned int lock, uint64_t id,
		    unsigned int rounds, unsigned int k)
{
	struct rng r = { .state = id ^ ((uint64_t)k << 32) };
	unsigned int i, eintr = 0, done = 0;
	uint64_t old;
	int lh, ret = 0;

	/* Blocked since the parent spawned us: a signal waits for this. */
	catch_signal(SIGUSR1);
	block_signal(SIGUSR1, true);
	lh = lite_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE |
		      LITE_PERM_ATOMIC, PASSWORD);
	if (!step(lh, "worker %u: ask the counters", k))
		return 1;
	for (i = 0; i < rounds; i++) {
		for (;;) {
			block_signal(SIGUSR1, false);
			ret = lite_lock(node, lock);
			block_signal(SIGUSR1, true);
			if (ret != -EINTR)
				break;
			eintr++;
		}
		if (!step(ret, "worker %u: lock, round %u", k, i + 1))
			break;
		if (!step(lite_fetch_add(lh, CNT_HOLDERS, 1, &old, PASSWORD),
			  "worker %u: count in", k))
			break;
		if (old)
			fail("worker %u, round %u: %llu other holder(s) of "
			     "lock %u", k, i + 1, (unsigned long long)old,
			     lock);
		sleep_us(rng_below(&r, LOCK_SLEEP_US + 1));
		if (!step(lite_fetch_add(lh, CNT_HOLDERS, UINT64_MAX, &old,
					 PASSWORD), "worker %u: count out", k))
			break;
		if (old != 1)
			fail("worker %u, round %u: %llu holders at unlock "
			     "time, want 1", k, i + 1,
			     (unsigned long long)old);
		step(lite_fetch_add(lh, CNT_ROUNDS, 1, NULL, PASSWORD),
		     "worker %u: count the round", k);
		if (!step(lite_unlock(node, lock), "worker %u: unlock, round "
			  "%u", k, i + 1))
			break;
		done++;
	}
	step(lite_fetch_add(lh, CNT_EINTR, eintr, NULL, PASSWORD),
	     "worker %u: count its interruptions", k);
	info("worker %u: %u rounds, %u waits interrupted", k, done, eintr);
	return nr_failures() ? 1 : 0;
}

/* Blocks for the lock (the parent holds it), then lets it go. */
int cmd_lock_waiter(unsigned int node, unsigned int lock)
{
	expect(lite_lock(node, lock), 0, "waiter: lock %u, once handed over",
	       lock);
	expect(lite_unlock(node, lock), 0, "waiter: unlock %u", lock);
	return nr_failures() ? 1 : 0;
}

/*
 * Signal the workers at random once they contend (the first round is
 * counted), a few times each per round; reap them.
 */
static void lock_signal_workers(int lh, pid_t *pids, unsigned int nproc,
				unsigned int budget, unsigned int *sent)
{
	struct rng r = { .state = (uint64_t)getpid() };
	unsigned int alive = 0, i;
	uint64_t rounds = 0;
	int status;

	for (i = 0; i < nproc; i++)
		alive += pids[i] > 0;
	while (alive) {
		sleep_us(5000 + rng_below(&r, 45000));
		if (!rounds && lite_fetch_add(lh, CNT_ROUNDS, 0, &rounds,
					      PASSWORD))
			rounds = 1;	/* cannot tell: signal anyway */
		if (budget && rounds) {
			i = rng_below(&r, nproc);
			if (pids[i] > 0 && !kill(pids[i], SIGUSR1)) {
				(*sent)++;
				budget--;
			}
		}
		for (i = 0; i < nproc; i++) {
			char what[32];

			if (pids[i] <= 0 ||
			    waitpid(pids[i], &status, WNOHANG) != pids[i])
				continue;
			snprintf(what, sizeof(what), "worker %u", i);
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				pass("%s: exited 0", what);
			else
				fail("%s: status 0x%x", what, status);
			pids[i] = 0;
			alive--;
		}
	}
}

int cmd_lock_contend(unsigned int node, unsigned int nproc,
		     unsigned int rounds)
{
	uint64_t id = 0x10c0000000ULL + (uint64_t)getpid() * 16, holders = 1;
	uint64_t total = 0, eintr = 0;
	char a_node[16], a_lock[16], a_id[32], a_rounds[16], a_k[16];
	unsigned int i, sent = 0;
	pid_t *pids, waiter;
	int lock, lh;

	if (me_or_fail() < 0)
		return finish();
	lock = lite_lock_create(node);
	if (!expect(lock, 0, "create a lock on node %u", node))
		return finish();
	info("lock %d", lock);
	lh = lite_alloc(node, CNT_SIZE, LITE_ALLOC_ATOMIC, PASSWORD);
	if (!expect(lh, 0, "alloc the counters (atomic) on node %u", node) ||
	    !expect(lite_publish(lh, id, LITE_PERM_READ | LITE_PERM_WRITE |
				 LITE_PERM_ATOMIC, PASSWORD), 0,
		    "publish them for the workers"))
		return finish();
	pids = calloc(nproc, sizeof(*pids));
	if (!pids) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}
	snprintf(a_node, sizeof(a_node), "%u", node);
	snprintf(a_lock, sizeof(a_lock), "%d", lock);
	snprintf(a_id, sizeof(a_id), "%llu", (unsigned long long)id);
	snprintf(a_rounds, sizeof(a_rounds), "%u", rounds);
	/* Inherited through exec: held back until a worker has its handler. */
	block_signal(SIGUSR1, true);
	for (i = 0; i < nproc; i++) {
		snprintf(a_k, sizeof(a_k), "%u", i);
		pids[i] = spawn_self((char *const[]){ (char *)self_name,
			"lock-worker", a_node, a_lock, a_id, a_rounds, a_k,
			NULL });
	}
	/* Bounded, so that every worker gets through in the end. */
	lock_signal_workers(lh, pids, nproc, nproc * rounds / 2 + 1, &sent);
	free(pids);
	if (step(lite_fetch_add(lh, CNT_HOLDERS, 0, &holders, PASSWORD),
		 "read the holder count") &&
	    step(lite_fetch_add(lh, CNT_ROUNDS, 0, &total, PASSWORD),
		 "read the round count") &&
	    step(lite_fetch_add(lh, CNT_EINTR, 0, &eintr, PASSWORD),
		 "read the interruption count")) {
		if (!holders && total == (uint64_t)nproc * rounds)
			pass("%u processes x %u rounds, never two holders",
			     nproc, rounds);
		else
			fail("%llu of %u rounds counted, %llu holders left",
			     (unsigned long long)total, nproc * rounds,
			     (unsigned long long)holders);
		info("%u signals sent, %llu waits interrupted (EINTR, "
		     "retried)", sent, (unsigned long long)eintr);
	}

	/* Destroy: refused while held and waited for, then gone. */
	if (!expect(lite_lock(node, lock), 0, "lock %d", lock))
		goto out;
	waiter = spawn_self((char *const[]){ (char *)self_name, "lock-waiter",
					     a_node, a_lock, NULL });
	sleep_us(500 * 1000);
	expect(lock_destroy(node, lock), EBUSY,
	       "destroy lock %d while held, a waiter queued", lock);
	puts("held");
	read_line();
	expect(lite_unlock(node, lock), 0, "unlock %d: the waiter gets it",
	       lock);
	expect_child(waiter, "waiter");
	expect(lock_destroy(node, lock), 0, "destroy lock %d, now free", lock);
	expect(lock_destroy(node, lock), ENOENT, "destroy it again");
	expect(lite_lock_ask(node, lock), ENOENT, "lock_ask after destroy");
	expect(lite_lock(node, lock), ENOENT, "lock after destroy");
out:
	expect(lite_free(lh), 0, "free the counters");
	return finish();
}

int cmd_lock_foreign(unsigned int node, unsigned int lock)
{
	if (me_or_fail() < 0)
		return finish();
	/* Were it let in, it would wait: the alarm ends that with EINTR. */
	catch_signal(SIGALRM);
	expect(lite_lock_ask(node, lock), EACCES,
	       "uid %u: lock_ask another uid's lock %u",
	       (unsigned int)getuid(), lock);
	alarm(20);
	expect(lite_lock(node, lock), EACCES, "lock another uid's lock %u",
	       lock);
	alarm(0);
	expect(lite_unlock(node, lock), EACCES,
	       "unlock another uid's lock %u", lock);
	expect(lock_destroy(node, lock), EACCES,
	       "destroy another uid's lock %u", lock);
	use_new_lock(node, "a lock of its own", "its own");
	return finish();
}

/* ---- barrier --------------------------------------------------------- */

int cmd_barrier(unsigned int nr)
{
	if (me_or_fail() < 0)
		return finish();
	info("before %.0f", now_ms());
	expect(lite_barrier(nr), 0, "uid %u: barrier(%u)",
	       (unsigned int)getuid(), nr);
	info("after %.0f", now_ms());
	return finish();
}
