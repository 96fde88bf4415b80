// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the three nodes of the cluster run at once, on an LMR of NODE:
 * fetch-add (fetch_add, compare_swap and swap on it), lock-counter (a
 * counter in it, read and written under a lock); and the barrier.
 */
#include <errno.h>
#include <stdio.h>

#include "test_sync.h"

#define SYNC_NODES		3	/* nodes running fetch-add etc. */
#define SYNC_LMR_SIZE		4096
#define FA_PASSWORD		77
#define LOCK_PASSWORD		88
#define CAS_OFFSET		8	/* fetch-add: the word raced for */
#define SWAP_OFFSET		16	/* fetch-add: the word swapped */
#define LOCK_WORD_OFFSET	8	/* lock-counter: the lock's number */
#define NO_SUCH_LOCK		1000	/* + a lock number: none */
#define ASK_TIMEOUT_S		30	/* for the owner to publish */

/* ---- fetch-add and lock-counter: an LMR on NODE, used from every node --- */

static int lmr_new(unsigned int node, unsigned int flags, int password)
{
	int lh = lite_alloc(node, SYNC_LMR_SIZE, flags, password);

	step(lh, "allocate a %s%u-byte LMR on node %u",
	     flags & LITE_ALLOC_ATOMIC ? "atomic " : "", SYNC_LMR_SIZE, node);
	return lh;
}

/* Everything but ADMIN, which is never published; ATOMIC if it is one. */
static void lmr_share(int lh, uint64_t id, int password)
{
	unsigned int perm = 0;

	lite_lmr_info(lh, NULL, NULL, &perm);
	expect(lite_publish(lh, id, perm & ~LITE_PERM_ADMIN, password), 0,
	       "publish it as %llu", (unsigned long long)id);
}

/* Map @id of @node; its owner may not have published it yet. */
static int lmr_ask(unsigned int node, uint64_t id, unsigned int perm,
		   int password)
{
	double end = now() + ASK_TIMEOUT_S;
	int lh;

	/* Not published yet looks like a wrong password: EACCES; EAGAIN
	 * when the owner throttles this user's failed asks. */
	while (((lh = lite_ask(node, id, perm, password)) == -EACCES ||
		lh == -EAGAIN) && now() < end)
		sleep_ms(100);
	expect(lh, 0, "ask node %u for %llu", node, (unsigned long long)id);
	return lh;
}

static bool lmr_read64(int lh, uint64_t off, uint64_t *v, int password)
{
	return step(lite_read(lh, off, v, sizeof(*v), password,
			      LITE_PRIO_NORMAL),
		    "read 8 bytes at %llu", (unsigned long long)off);
}

/* The other nodes wait in the barrier for this one, even after a failure. */
static void sync_barrier(const char *when)
{
	expect(lite_barrier(SYNC_NODES), 0, "barrier(%u) %s", SYNC_NODES,
	       when);
}

/* ---- fetch-add ---------------------------------------------------------- */

/* On the owner's handle: these fail before they change anything. */
static void fetch_add_errors(int lh)
{
	uint64_t old;

	expect(lite_fetch_add(lh, 4, 1, &old, FA_PASSWORD), EINVAL,
	       "fetch_add at offset 4, not 8-aligned");
	expect(lite_fetch_add(lh, 0, 1, &old, FA_PASSWORD + 1), EACCES,
	       "fetch_add with the wrong password");
}

static void fetch_add_loop(int lh, unsigned int iter)
{
	uint64_t old, prev = 0;
	double start = now();
	unsigned int i;

	for (i = 0; i < iter; i++) {
		if (!step(lite_fetch_add(lh, 0, 1, &old, FA_PASSWORD),
			  "fetch_add %u of %u", i + 1, iter))
			return;
		/* Only increments: each node sees the value grow. */
		if (i && old <= prev) {
			fail("fetch_add %u: old value %llu after %llu", i + 1,
			     (unsigned long long)old,
			     (unsigned long long)prev);
			return;
		}
		prev = old;
	}
	pass("%u fetch_adds, old values increasing", iter);
	info("%u fetch_adds in %.1f ms", iter, (now() - start) * 1e3);
}

static void fetch_add_total(int lh, unsigned int iter)
{
	uint64_t total, want = (uint64_t)SYNC_NODES * iter;

	if (!lmr_read64(lh, 0, &total, FA_PASSWORD))
		return;
	info("total %llu", (unsigned long long)total);
	if (total == want)
		pass("total == %u x %u", SYNC_NODES, iter);
	else
		fail("total: got %llu, want %llu", (unsigned long long)total,
		     (unsigned long long)want);
}

/* Every node tries to swap its id into the zero at CAS_OFFSET once. */
static bool cas_round(int lh, unsigned int me)
{
	uint64_t old;

	if (!step(lite_compare_swap(lh, CAS_OFFSET, 0, me, &old, FA_PASSWORD),
		  "compare_swap of 0 for %u", me))
		return false;
	if (!old) {
		info("cas won");
		return true;
	}
	info("cas lost to node %llu", (unsigned long long)old);
	if (old == me || old >= MAX_NODES)
		fail("compare_swap: old value %llu is no other node's id",
		     (unsigned long long)old);
	return false;
}

/*
 * Swap values unique to this node (id << 32 | i) into the word at
 * SWAP_OFFSET: every value put in comes out exactly once, to a swapper
 * or as the final value.
 */
static void swap_loop(int lh, unsigned int me, unsigned int iter)
{
	uint64_t put = 0, got = 0, old, v;
	unsigned int i;

	for (i = 1; i <= iter; i++) {
		v = (uint64_t)me << 32 | i;
		if (!step(lite_swap(lh, SWAP_OFFSET, v, &old, FA_PASSWORD),
			  "swap %u of %u", i, iter))
			return;
		if (old == v) {
			fail("swap %u: got back the value it put in", i);
			return;
		}
		put += v;
		got += old;
	}
	pass("%u swaps", iter);
	info("swap put %llu got %llu", (unsigned long long)put,
	     (unsigned long long)got);
}

static void swap_final(int lh)
{
	uint64_t v;

	if (lmr_read64(lh, SWAP_OFFSET, &v, FA_PASSWORD))
		info("swap final %llu", (unsigned long long)v);
}

/* The owner, after everyone swapped: the word holds the winner's id. */
static void cas_winner(int lh, unsigned int me, bool won)
{
	uint64_t v;

	if (!lmr_read64(lh, CAS_OFFSET, &v, FA_PASSWORD))
		return;
	if (!v || v >= MAX_NODES)
		fail("compare_swap race: the word holds %llu, no node's id",
		     (unsigned long long)v);
	else if (won != (v == me))
		fail("compare_swap race: the word holds %llu, but this node "
		     "%s", (unsigned long long)v, won ? "won" : "lost");
	else
		pass("compare_swap race: node %llu holds the word",
		     (unsigned long long)v);
}

int cmd_fetch_add(unsigned int owner, uint64_t id, unsigned int iter)
{
	unsigned int me = this_node();
	bool mine = me == owner, won = false;
	int lh;

	if (mine) {
		lh = lmr_new(owner, LITE_ALLOC_ATOMIC, FA_PASSWORD);
		if (lh > 0) {
			lmr_share(lh, id, FA_PASSWORD);
			fetch_add_errors(lh);
		}
	} else {
		lh = lmr_ask(owner, id, LITE_PERM_READ | LITE_PERM_WRITE |
			     LITE_PERM_ATOMIC, FA_PASSWORD);
	}
	if (lh > 0)
		fetch_add_loop(lh, iter);
	sync_barrier("after the fetch_adds");
	if (mine && lh > 0)
		fetch_add_total(lh, iter);
	if (lh > 0)
		won = cas_round(lh, me);
	sync_barrier("after the compare_swaps");
	if (mine && lh > 0)
		cas_winner(lh, me, won);
	if (lh > 0)
		swap_loop(lh, me, iter);
	sync_barrier("after the swaps");
	if (mine && lh > 0)
		swap_final(lh);
	return finish();
}

/* ---- lock-counter ------------------------------------------------------- */

/* Owner: a lock, and an LMR that tells the others its number. */
static int lock_setup_owner(unsigned int node, uint64_t id, int *lh)
{
	int lock = lite_lock_create(node);
	uint32_t word;

	*lh = -1;
	if (!expect(lock, 0, "create a lock on node %u", node))
		return lock;
	*lh = lmr_new(node, 0, LOCK_PASSWORD);
	if (*lh < 0)
		return -1;
	word = lock;
	if (step(lite_write(*lh, LOCK_WORD_OFFSET, &word, sizeof(word),
			    LOCK_PASSWORD, LITE_PRIO_NORMAL),
		 "write the lock number"))
		lmr_share(*lh, id, LOCK_PASSWORD);
	return lock;
}

/* The others: the owner's LMR, and the lock number in it. */
static int lock_setup_other(unsigned int node, uint64_t id, int *lh)
{
	uint32_t word;

	*lh = lmr_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE,
		      LOCK_PASSWORD);
	if (*lh < 0 ||
	    !step(lite_read(*lh, LOCK_WORD_OFFSET, &word, sizeof(word),
			    LOCK_PASSWORD, LITE_PRIO_NORMAL),
		  "read the lock number") ||
	    !expect(lite_lock_ask(node, word), 0, "lock_ask(%u, %u)", node,
		    word))
		return -1;
	return word;
}

static void lock_errors(unsigned int node, int lock)
{
	expect(lite_unlock(node, lock), EPERM, "unlock of lock %d, not held",
	       lock);
	if (expect(lite_lock(node, lock), 0, "lock %d", lock)) {
		expect(lite_lock(node, lock), EDEADLK, "lock %d again", lock);
		expect(lite_unlock(node, lock), 0, "unlock %d", lock);
	}
	expect(lite_lock_ask(node, lock + NO_SUCH_LOCK), ENOENT,
	       "lock_ask(%u, %d), never created", node, lock + NO_SUCH_LOCK);
	expect(lite_lock(node, lock + NO_SUCH_LOCK), ENOENT,
	       "lock %d, never created", lock + NO_SUCH_LOCK);
}

/* Read, add one, write back: only the lock keeps increments from racing. */
static bool counter_bump(int lh)
{
	uint64_t v;

	if (!lmr_read64(lh, 0, &v, LOCK_PASSWORD))
		return false;
	v++;
	return step(lite_write(lh, 0, &v, sizeof(v), LOCK_PASSWORD,
			       LITE_PRIO_NORMAL), "write the counter");
}

static void counter_loop(int lh, unsigned int node, int lock,
			 unsigned int iter)
{
	double start = now();
	unsigned int i;
	bool bumped;

	for (i = 0; i < iter; i++) {
		if (!step(lite_lock(node, lock), "lock %d, round %u", lock,
			  i + 1))
			return;
		bumped = counter_bump(lh);
		if (!step(lite_unlock(node, lock), "unlock %d, round %u", lock,
			  i + 1) || !bumped)
			return;
	}
	pass("%u increments under lock %d", iter, lock);
	info("%u lock/read/write/unlock rounds in %.1f ms", iter,
	     (now() - start) * 1e3);
}

int cmd_lock_counter(unsigned int owner, uint64_t id,
		     unsigned int iter)
{
	unsigned int me = this_node();
	bool mine = me == owner;
	uint64_t v, want = (uint64_t)SYNC_NODES * iter;
	int lh, lock;

	if (mine)
		lock = lock_setup_owner(owner, id, &lh);
	else
		lock = lock_setup_other(owner, id, &lh);
	if (lock >= 0)
		lock_errors(owner, lock);
	sync_barrier("before counting");
	if (lh > 0 && lock >= 0)
		counter_loop(lh, owner, lock, iter);
	sync_barrier("after counting");
	if (mine && lh > 0 && lmr_read64(lh, 0, &v, LOCK_PASSWORD)) {
		info("counter %llu", (unsigned long long)v);
		if (v == want)
			pass("counter == %u x %u", SYNC_NODES, iter);
		else
			fail("counter: got %llu, want %llu",
			     (unsigned long long)v, (unsigned long long)want);
	}
	return finish();
}

/* ---- barrier ------------------------------------------------------------ */

int cmd_barrier(unsigned int nr)
{
	unsigned long long after;
	int ret;

	info("before %llu", unix_ms());
	ret = lite_barrier(nr);
	after = unix_ms();
	expect(ret, 0, "barrier(%u)", nr);
	info("after %llu", after);
	return finish();
}
