// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Handles that die: a freed LMR is never read or written through another
 * node's old handle, even when its memory is reused, and a process whose
 * node's RDMA device vanishes gets answers, not a hang.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_security.h"

#define REVOKE_SIZE		(256 * KiB)
#define REVOKE_REUSE		8	/* LMRs the owner refills after free */
#define REVOKE_AFTER		5	/* accesses checked after the first error */

/* ---- revoke-owner, revoke-mapper ------------------------------------- */

#define SEED_P(id)	((id) * 2 + 1)	/* published, and written back */
#define SEED_Q(id)	((id) * 2 + 2)	/* the owner's reuse of the memory */

int cmd_revoke_owner(unsigned int node, uint64_t id)
{
	uint8_t *buf = malloc(REVOKE_SIZE);
	int lh, reuse[REVOKE_REUSE], n = 0, i, me;

	me = me_or_fail();
	if (me < 0 || !buf)
		return finish();
	if ((unsigned int)me != node) {
		fprintf(stderr, "%s: revoke-owner runs on node %u, this is "
			"node %d\n", self_name, node, me);
		return 2;
	}
	lh = lite_alloc(me, REVOKE_SIZE, 0, PASSWORD);
	if (!expect(lh, 0, "alloc 256 KiB on this node"))
		return finish();
	fill(buf, REVOKE_SIZE, SEED_P(id));
	if (!expect(lite_write(lh, 0, buf, REVOKE_SIZE, PASSWORD,
			       LITE_PRIO_NORMAL), 0, "fill it with P") ||
	    !expect(lite_publish(lh, id, LITE_PERM_READ | LITE_PERM_WRITE,
				 PASSWORD), 0, "publish it as %llu",
		    (unsigned long long)id))
		return finish();
	puts("ready");
	read_line();
	expect(lite_free(lh), 0, "free it while the mapper reads and writes");
	/* Likely the same pages again: they must never show through. */
	for (i = 0; i < REVOKE_REUSE; i++) {
		reuse[n] = lite_alloc(me, REVOKE_SIZE, 0, PASSWORD);
		if (!step(reuse[n], "reuse: alloc 256 KiB"))
			break;
		fill(buf, REVOKE_SIZE, SEED_Q(id));
		step(lite_write(reuse[n], 0, buf, REVOKE_SIZE, PASSWORD,
				LITE_PRIO_NORMAL), "reuse: fill with Q");
		n++;
	}
	puts("freed");
	while (read_line())
		;
	/* The revoked handle wrote P back in a loop: none of it got here. */
	for (i = 0; i < n; i++) {
		if (step(lite_read(reuse[i], 0, buf, REVOKE_SIZE, PASSWORD,
				   LITE_PRIO_NORMAL), "reuse: read back"))
			expect_pattern(buf, REVOKE_SIZE, SEED_Q(id),
				       "reused LMR %d still holds Q", i);
		step(lite_free(reuse[i]), "reuse: free");
	}
	free(buf);
	return finish();
}

/* A read that succeeded: only P may be in it. */
static void revoke_judge_read(const uint8_t *buf, uint64_t id,
			      unsigned long nth)
{
	uint8_t *p = malloc(REVOKE_SIZE), *q = malloc(REVOKE_SIZE);
	size_t i, diff = 0, as_q = 0, zero = 0, first = 0;

	if (!p || !q) {
		fail("malloc: %s", strerror(errno));
		goto out;
	}
	fill(p, REVOKE_SIZE, SEED_P(id));
	fill(q, REVOKE_SIZE, SEED_Q(id));
	for (i = 0; i < REVOKE_SIZE; i++) {
		if (buf[i] == p[i])
			continue;
		if (!diff++)
			first = i;
		as_q += buf[i] == q[i];
		zero += !buf[i];
	}
	if (diff)
		fail("read %lu succeeded with data other than P: %zu bytes "
		     "differ from 0x%zx (%zu as the owner's new data Q, %zu "
		     "zero)", nth, diff, first, as_q, zero);
out:
	free(p);
	free(q);
}

int cmd_revoke_mapper(unsigned int node, uint64_t id)
{
	static const int dead[] = { EKEYREVOKED, ENOTCONN };
	uint8_t *buf = malloc(REVOKE_SIZE), *pat = malloc(REVOKE_SIZE);
	unsigned long reads = 0, writes = 0;
	bool told = false, after;
	int h, ret = 0, err, i;

	if (me_or_fail() < 0 || !buf || !pat)
		return finish();
	fill(pat, REVOKE_SIZE, SEED_P(id));
	h = lite_ask(node, id, LITE_PERM_READ | LITE_PERM_WRITE, PASSWORD);
	if (!expect(h, 0, "ask %llu on node %u", (unsigned long long)id,
		    node))
		return finish();
	ret = lite_read(h, 0, buf, REVOKE_SIZE, PASSWORD, LITE_PRIO_NORMAL);
	if (!step(ret, "first read") ||
	    !expect_pattern(buf, REVOKE_SIZE, SEED_P(id), "it holds P"))
		return finish();
	puts("mapped");
	/*
	 * Until the first error. Once the script says the owner freed the
	 * LMR, an access that starts must fail; before, it may race.
	 */
	for (;;) {
		after = told;
		ret = lite_read(h, 0, buf, REVOKE_SIZE, PASSWORD,
				LITE_PRIO_NORMAL);
		if (ret < 0)
			break;
		revoke_judge_read(buf, id, ++reads);
		if (after) {
			fail("read %lu succeeded after the owner freed the "
			     "LMR", reads);
			break;
		}
		ret = lite_write(h, 0, pat, REVOKE_SIZE, PASSWORD,
				 LITE_PRIO_NORMAL);
		if (ret < 0)
			break;
		writes++;
		if (!told && line_ready()) {
			read_line();
			told = true;
		}
	}
	info("%lu reads and %lu writes succeeded before the first error",
	     reads, writes);
	err = EKEYREVOKED;
	if (ret < 0 && expect_any(ret, dead, ARRAY_SIZE(dead),
				  "first failed access"))
		err = -ret;
	if (!told)
		read_line();
	/* Dead for good: the same answer every time, after the reuse too. */
	for (i = 0; i < REVOKE_AFTER; i++) {
		expect(lite_read(h, 0, buf, REVOKE_SIZE, PASSWORD,
				 LITE_PRIO_NORMAL), err, "read again (%d)",
		       i + 1);
		expect(lite_write(h, 0, pat, REVOKE_SIZE, PASSWORD,
				  LITE_PRIO_NORMAL), err, "write again (%d)",
		       i + 1);
	}
	expect(lite_unmap(h), 0, "unmap the dead handle");
	free(buf);
	free(pat);
	return finish();
}

/* ---- devgone --------------------------------------------------------- */

int cmd_devgone(unsigned int remote)
{
	uint8_t buf[4096];
	int me, local, far, ret;

	me = me_or_fail();
	if (me < 0)
		return finish();
	local = lite_alloc(me, 64 * KiB, 0, PASSWORD);
	far = lite_alloc(remote, 64 * KiB, 0, PASSWORD);
	if (!expect(local, 0, "alloc 64 KiB on this node (%d)", me) ||
	    !expect(far, 0, "alloc 64 KiB on node %u", remote) ||
	    !round_trip(local, buf, sizeof(buf), 0xde60, "local LMR") ||
	    !round_trip(far, buf, sizeof(buf), 0xde61, "remote LMR"))
		return finish();
	puts("ready");
	read_line();
	/* An answer, not a hang; which one depends on how far the leave got. */
	ret = lite_read(far, 0, buf, sizeof(buf), PASSWORD, LITE_PRIO_NORMAL);
	if (ret < 0)
		pass("read the remote LMR without a device -> %s",
		     errname(-ret));
	else
		fail("read the remote LMR without a device succeeded");
	ret = lite_read(local, 0, buf, sizeof(buf), PASSWORD,
			LITE_PRIO_NORMAL);
	if (ret < 0)
		info("read the local LMR without a device -> %s",
		     errname(-ret));
	else
		expect_pattern(buf, sizeof(buf), 0xde60,
			       "read the local LMR without a device: intact");
	info("free remote -> %s", got_name(lite_free(far)));
	info("free local -> %s", got_name(lite_free(local)));
	pass("exits with both handles (the file's release cleans up)");
	return finish();
}
