// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * share and ask: an LMR published with every set of permissions, asked
 * from another node with every subset of them, and revoked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_lmr.h"

#define SHARE_SIZE		MiB
#define SHARE_SCRATCH		(SHARE_SIZE - 64 * KiB)	/* askers write here */
#define SHARE_SLOT		KiB	/* scratch per (published, asked) */
#define SHARE_LMR_PASSWORD	1000	/* of the LMRs share and ask allocate */
#define PUB_PASSWORD(p)		(1000 + (int)(p))
#define REPUB_PASSWORD(p, q)	(2000 + (int)((p) * 8 + (q)))
#define WRONG_PASSWORD		999

/* ---- share / ask: publication and permissions across nodes ------------ */

/* A negative test that unexpectedly returned a handle: drop it. */
static void drop_handle(int ret)
{
	if (ret > 0)
		lite_unmap(ret);
}

static const char *perm_name(unsigned int perm)
{
	static char buf[4][16];
	static unsigned int next;
	char *s = buf[next++ % 4];

	snprintf(s, sizeof(buf[0]), "%c%c%c%s%s",
		 perm & LITE_PERM_READ ? 'R' : '-',
		 perm & LITE_PERM_WRITE ? 'W' : '-',
		 perm & LITE_PERM_SHARE ? 'S' : '-',
		 perm & LITE_PERM_ADMIN ? "A" : "",
		 perm & LITE_PERM_ATOMIC ? "+atomic" : "");
	return s;
}

/* The published LMR's contents, known to both sides from ID alone. */
static void share_pattern(uint64_t id, uint8_t *buf)
{
	struct rng r = { .state = id ^ 0x6c6974652d6c6d72ULL };

	rng_fill(&r, buf, SHARE_SIZE);
}

/* The next line from the script, or exit 2 if it is not @want. */
static void wait_for(const char *want)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "test_lmr: stdin closed, expected '%s'\n",
			want);
		exit(2);
	}
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, want)) {
		fprintf(stderr, "test_lmr: expected '%s' on stdin, got '%s'\n",
			want, line);
		exit(2);
	}
}

int cmd_share(unsigned int node, uint64_t id)
{
	uint8_t *pattern = malloc(SHARE_SIZE), *in = malloc(SHARE_SIZE);
	char line[64];
	unsigned int p;
	int me, lh;

	if (!pattern || !in) {
		fail("malloc: %s", strerror(errno));
		return finish();
	}
	me = lite_node_id();
	if (!expect(me, 0, "this node has joined (lite_node_id %d)", me))
		return finish();
	if ((unsigned int)me != node) {
		fprintf(stderr, "test_lmr: share runs on node %u, this is "
			"node %d\n", node, me);
		return 2;
	}
	lh = lite_alloc(me, SHARE_SIZE, 0, SHARE_LMR_PASSWORD);
	if (!expect(lh, 0, "alloc 1 MiB on this node to share"))
		return finish();
	share_pattern(id, pattern);
	if (!expect(lite_write(lh, 0, pattern, SHARE_SIZE, SHARE_LMR_PASSWORD,
			       LITE_PRIO_NORMAL), 0,
		    "fill it with the pattern of ID %llu",
		    (unsigned long long)id) ||
	    !step(lite_read(lh, 0, in, SHARE_SIZE, SHARE_LMR_PASSWORD,
			    LITE_PRIO_NORMAL), "read it back") ||
	    !expect_bytes(in, pattern, SHARE_SIZE, 0, "it holds the pattern"))
		return finish();
	for (p = 1; p <= PERM_RWS; p++)
		expect(lite_publish(lh, id + p, p, PUB_PASSWORD(p)), 0,
		       "publish as ID+%u with %s, password %d", p,
		       perm_name(p), PUB_PASSWORD(p));
	expect(lite_publish(lh, id + 1, LITE_PERM_READ, PUB_PASSWORD(1)),
	       EEXIST, "publish as ID+1 again");
	if (nr_failures())
		return finish();

	puts("ready");
	wait_for("revoke");
	expect(lite_free(lh), 0, "free the published LMR");
	expect(lite_read(lh, 0, in, 64, SHARE_LMR_PASSWORD, LITE_PRIO_NORMAL),
	       ENOENT, "read the freed handle");
	puts("revoked");
	while (fgets(line, sizeof(line), stdin))
		;
	free(pattern);
	free(in);
	return finish();
}

struct ask_test {
	unsigned int	node;		/* the publisher */
	uint64_t	id;
	int		local;		/* an LMR on this node, for memcpy */
	uint8_t		*pattern;
	uint8_t		buf[4096];
	uint8_t		marker[512];
};

/* Can @h's write of the marker at @slot be seen? Through @h or a reader. */
static void ask_check_marker(struct ask_test *t, int h, unsigned int p,
			     unsigned int q, uint64_t slot, const char *label)
{
	int reader = h;

	if (!(q & LITE_PERM_READ)) {
		if (!(p & LITE_PERM_READ))
			return;	/* nobody may read this publication */
		reader = lite_ask(t->node, t->id + p, LITE_PERM_READ,
				  PUB_PASSWORD(p));
		if (!step(reader, "%s: ask READ to check the write", label))
			return;
	}
	if (step(lite_read(reader, slot, t->buf, sizeof(t->marker),
			   PUB_PASSWORD(p), LITE_PRIO_NORMAL),
		 "%s: read the written slot back", label))
		expect_bytes(t->buf, t->marker, sizeof(t->marker), slot,
			     "%s: the write landed", label);
	if (reader != h)
		lite_unmap(reader);
}

/* Ask publication ID+p for q (a subset of p) and use the handle. */
static void ask_case(struct ask_test *t, unsigned int p, unsigned int q)
{
	bool r = q & LITE_PERM_READ, w = q & LITE_PERM_WRITE;
	uint64_t off = 4096 * (p * 8 + q);
	uint64_t slot = SHARE_SCRATCH + SHARE_SLOT * (p * 8 + q);
	uint64_t repub = t->id + p * 8 + q;
	struct rng rng = { .state = t->id * 64 + p * 8 + q };
	unsigned int node, perm, extra;
	char label[64];
	uint64_t size;
	int h, h2, ret;

	snprintf(label, sizeof(label), "ID+%u (%s) asked %s", p, perm_name(p),
		 perm_name(q));
	h = lite_ask(t->node, t->id + p, q, PUB_PASSWORD(p));
	if (!expect(h, 0, "%s", label))
		return;

	if (step(lite_lmr_info(h, &node, &size, &perm), "%s: lmr_info",
		 label)) {
		if (node == t->node && size == SHARE_SIZE && perm == q)
			pass("%s: lmr_info: node %u, 1 MiB, %s", label, node,
			     perm_name(q));
		else
			fail("%s: lmr_info: want node %u, 1 MiB, %s; got node "
			     "%u, %llu B, perm 0x%x", label, t->node,
			     perm_name(q), node, (unsigned long long)size,
			     perm);
	}

	ret = lite_read(h, off, t->buf, 4096, PUB_PASSWORD(p),
			LITE_PRIO_NORMAL);
	if (expect(ret, r ? 0 : EPERM, "%s: read", label) && r)
		expect_bytes(t->buf, t->pattern + off, 4096, off,
			     "%s: read sees the publisher's data", label);
	if (r)
		expect(lite_read(h, off, t->buf, 64, WRONG_PASSWORD,
				 LITE_PRIO_NORMAL), EACCES,
		       "%s: read with a wrong password", label);

	rng_fill(&rng, t->marker, sizeof(t->marker));
	ret = lite_write(h, slot, t->marker, sizeof(t->marker),
			 PUB_PASSWORD(p), LITE_PRIO_NORMAL);
	if (expect(ret, w ? 0 : EPERM, "%s: write", label) && w)
		ask_check_marker(t, h, p, q, slot, label);
	if (w)
		expect(lite_write(h, slot, t->marker, 64, WRONG_PASSWORD,
				  LITE_PRIO_NORMAL), EACCES,
		       "%s: write with a wrong password", label);
	expect(lite_memset(h, slot + 512, 0x5a, 256), w ? 0 : EPERM,
	       "%s: memset", label);
	expect(lite_memcpy(h, slot + 768, t->local, 0, 64), w ? 0 : EPERM,
	       "%s: memcpy into it", label);
	ret = lite_memcpy(t->local, 0, h, off, 4096);
	if (expect(ret, r ? 0 : EPERM, "%s: memcpy out of it", label) && r &&
	    step(lite_read(t->local, 0, t->buf, 4096, SHARE_LMR_PASSWORD,
			   LITE_PRIO_NORMAL), "%s: read the local copy", label))
		expect_bytes(t->buf, t->pattern + off, 4096, 0,
			     "%s: memcpy copied the publisher's data", label);

	ret = lite_publish(h, repub, q, REPUB_PASSWORD(p, q));
	if (expect(ret, q & LITE_PERM_SHARE ? 0 : EPERM, "%s: republish",
		   label) && (q & LITE_PERM_SHARE)) {
		h2 = lite_ask(t->node, repub, q, REPUB_PASSWORD(p, q));
		if (expect(h2, 0, "%s: ask the republication", label))
			lite_unmap(h2);
		/* ADMIN is never published (EINVAL): take a bit q lacks. */
		extra = !r ? LITE_PERM_READ :
			!w ? LITE_PERM_WRITE : LITE_PERM_ATOMIC;
		expect(lite_publish(h, repub + 64, q | extra,
				    REPUB_PASSWORD(p, q)), EPERM,
		       "%s: republish as %s", label, perm_name(q | extra));
	}

	expect(lite_free(h), EPERM, "%s: free without ADMIN", label);
	if (expect(lite_unmap(h), 0, "%s: unmap", label))
		expect(lite_read(h, off, t->buf, 64, PUB_PASSWORD(p),
				 LITE_PRIO_NORMAL), ENOENT,
		       "%s: read after unmap", label);
}

static void ask_refusals(struct ask_test *t, unsigned int p)
{
	static const unsigned int bits[] = {
		LITE_PERM_READ, LITE_PERM_WRITE, LITE_PERM_SHARE,
		LITE_PERM_ADMIN, LITE_PERM_ATOMIC,
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (p & bits[i])
			continue;
		ret = lite_ask(t->node, t->id + p, p | bits[i],
			       PUB_PASSWORD(p));
		expect(ret, EPERM, "ID+%u (%s) asked %s", p, perm_name(p),
		       perm_name(p | bits[i]));
		drop_handle(ret);
	}
	ret = lite_ask(t->node, t->id + p, p, WRONG_PASSWORD);
	expect(ret, EACCES, "ID+%u (%s) asked with a wrong password", p,
	       perm_name(p));
	drop_handle(ret);
}

int cmd_ask(unsigned int node, uint64_t id)
{
	struct ask_test t = { .node = node, .id = id };
	unsigned int p, q;
	int me, keep, ret;

	t.pattern = malloc(SHARE_SIZE);
	if (!t.pattern) {
		fail("malloc: %s", strerror(errno));
		return finish();
	}
	share_pattern(id, t.pattern);
	me = lite_node_id();
	if (!expect(me, 0, "this node has joined (lite_node_id %d)", me))
		return finish();
	t.local = lite_alloc(me, 64 * KiB, 0, SHARE_LMR_PASSWORD);
	if (!expect(t.local, 0, "alloc 64 KiB on this node"))
		return finish();

	for (p = 1; p <= PERM_RWS; p++) {
		for (q = 1; q <= p; q++)
			if ((q & p) == q)
				ask_case(&t, p, q);
		ask_refusals(&t, p);
	}
	ret = lite_ask(node, id, LITE_PERM_READ, PUB_PASSWORD(0));
	/* Same answer as a wrong password: asking reveals nothing. */
	expect(ret, EACCES, "ask ID+0, never published");
	drop_handle(ret);
	ret = lite_ask(0, id + 1, LITE_PERM_READ, PUB_PASSWORD(1));
	expect(ret, EINVAL, "ask on node 0");
	drop_handle(ret);

	keep = lite_ask(node, id + 1, LITE_PERM_READ, PUB_PASSWORD(1));
	if (!expect(keep, 0, "ask ID+1 READ to keep") ||
	    !step(lite_read(keep, 0, t.buf, 4096, PUB_PASSWORD(1),
			    LITE_PRIO_NORMAL), "read through the kept handle"))
		return finish();
	puts("mapped");
	wait_for("check-revoked");
	expect(lite_read(keep, 0, t.buf, 4096, PUB_PASSWORD(1),
			 LITE_PRIO_NORMAL), EKEYREVOKED,
	       "read after the owner freed the LMR");
	ret = lite_ask(node, id + 1, LITE_PERM_READ, PUB_PASSWORD(1));
	expect(ret, EACCES, "ask ID+1 after the owner freed the LMR");
	drop_handle(ret);
	expect(lite_unmap(keep), 0, "unmap the revoked handle");
	expect(lite_free(t.local), 0, "free the local LMR");
	free(t.pattern);
	return finish();
}
