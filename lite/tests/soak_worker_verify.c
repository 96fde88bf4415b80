// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verify: the logs of every run replayed against the data and counter
 * LMRs of the stable node; the summary and the invariants.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak_worker.h"

/* ---- verify ---- */

enum { ST_NONE, ST_TRIED, ST_FAILED, ST_ACKED };

/* What the logs say about one node's writes and increments, by seq. */
struct hist {
	uint8_t *wst;		/* ST_* of data write seq */
	uint64_t nw;
	uint8_t *ist;		/* ST_* of increment seq */
	uint32_t *ival;		/* its value (entry in the counter) */
	uint64_t ni;
};

static void *grow(void *p, uint64_t *n, uint64_t want, size_t elem)
{
	uint64_t m = *n ? *n : 1024;
	uint8_t *q;

	if (want < *n)
		return p;
	while (m <= want)
		m *= 2;
	q = realloc(p, m * elem);
	if (!q)
		die("out of memory");
	memset(q + *n * elem, 0, (m - *n) * elem);
	*n = m;
	return q;
}

static void set_wst(struct hist *h, uint64_t seq, uint8_t st)
{
	h->wst = grow(h->wst, &h->nw, seq, 1);
	h->wst[seq] = st;
}

static void set_ist(struct hist *h, uint64_t seq, uint8_t st, uint32_t v)
{
	uint64_t n = h->ni;

	h->ist = grow(h->ist, &h->ni, seq, 1);
	h->ival = grow(h->ival, &n, seq, sizeof(*h->ival));
	h->ist[seq] = st;
	h->ival[seq] = v;
}

struct tally {
	uint64_t ok[NR_KINDS], err[NR_KINDS];
	uint64_t errs[NR_KINDS][256];	/* by errno */
	uint64_t hung, unreturned, bad, starts, lefts, stops;
	uint64_t max_ms[NR_KINDS];
	unsigned int failures;
};

static int kind_of(const char *name)
{
	unsigned int k;

	for (k = 0; k < NR_KINDS; k++)
		if (!strcmp(kind_name[k], name))
			return k;
	return -1;
}

/* One worker log; @node from its "start" lines. */
static void replay(const char *path, struct hist *hs, struct tally *t)
{
	FILE *f = fopen(path, "r");
	char line[512], name[32];
	uint64_t a, b, hung_id = 0;
	unsigned int node = 0;
	int e, k, pid;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "start %u %d", &node, &pid) == 2) {
			if (!node || node >= SOAK_MAX_NODES)
				die("%s: bad node in '%s'", path, line);
			if (hung_id)
				t->unreturned++;
			hung_id = 0;
			t->starts++;
		} else if (!node) {
			continue;	/* setup output before the first start */
		} else if (sscanf(line, "op %" SCNu64 " %31s %d %" SCNu64,
				  &a, name, &e, &b) == 4) {
			k = kind_of(name);
			if (k < 0 || e < 0 || e > 255)
				die("%s: bad line '%s'", path, line);
			if (e) {
				t->err[k]++;
				t->errs[k][e]++;
			} else {
				t->ok[k]++;
			}
			if (b > t->max_ms[k])
				t->max_ms[k] = b;
			if (b > bound_ms(k, bound_s))
				t->hung++;
			if (a == hung_id)
				hung_id = 0;
		} else if (sscanf(line, "hung %" SCNu64, &a) == 1) {
			hung_id = a;
			printf("hung call on node %u: %s\n", node, line);
		} else if (sscanf(line, "wt %" SCNu64, &a) == 1) {
			set_wst(&hs[node], a, ST_TRIED);
		} else if (sscanf(line, "wr %" SCNu64 " %d", &a, &e) == 2) {
			set_wst(&hs[node], a, e ? ST_FAILED : ST_ACKED);
		} else if (sscanf(line, "it %" SCNu64 " %" SCNu64, &a, &b) == 2) {
			set_ist(&hs[a >> 48], a & 0xffffffffffffULL, ST_TRIED, b);
		} else if (sscanf(line, "ir %" SCNu64 " %" SCNu64 " %d", &a, &b,
				  &e) == 3) {
			set_ist(&hs[a >> 48], a & 0xffffffffffffULL,
				e ? ST_FAILED : ST_ACKED, b);
		} else if (!strncmp(line, "bad ", 4)) {
			t->bad++;
			printf("FAIL node %u: %s\n", node, line);
		} else if (!strcmp(line, "left")) {
			t->lefts++;
		} else if (!strcmp(line, "stop")) {
			t->stops++;
		}
	}
	if (hung_id)
		t->unreturned++;
	fclose(f);
}

/* Each node's region of the data LMR against its acknowledged writes. */
static void check_data(const uint8_t *data, struct hist *hs,
		       unsigned int nodes, struct tally *t)
{
	uint64_t acked = 0, lost = 0, landed = 0, s, q;
	unsigned int n;

	for (n = 1; n <= nodes; n++) {
		struct hist *h = &hs[n];

		for (s = 0; s < SLOTS; s++) {
			const uint8_t *slot = data + data_off(n, s);
			int64_t got = slot_decode(slot, n);
			uint64_t last = 0;	/* last acked seq in this slot */

			for (q = s ? s : SLOTS; q < h->nw; q += SLOTS)
				if (h->wst[q] == ST_ACKED)
					last = q;
			if (last)
				acked++;
			if (got < 0) {
				printf("FAIL data: node %u slot %" PRIu64 " holds no write of it\n",
				       n, s);
				t->failures++;
			} else if (got == (int64_t)last) {
				continue;
			} else if ((uint64_t)got > last && (uint64_t)got < h->nw &&
				   (uint64_t)got % SLOTS == s &&
				   (h->wst[got] == ST_TRIED ||
				    h->wst[got] == ST_FAILED)) {
				landed++;	/* failed or cut short, yet done */
			} else {
				printf("FAIL data: node %u slot %" PRIu64 " holds write %" PRId64
				       ", the last acknowledged one is %" PRIu64 "\n",
				       n, s, got, last);
				lost++;
				t->failures++;
			}
		}
	}
	printf("data: %" PRIu64 " slots with an acknowledged write, %" PRIu64
	       " lost, %" PRIu64 " hold a write that was not acknowledged\n",
	       acked, lost, landed);
}

/* The counter against the acknowledged increments. */
static void check_counter(const uint8_t *ctr, struct hist *hs,
			  unsigned int nodes, struct tally *t)
{
	uint64_t count, tag, v, s, acked = 0, landed = 0, missing = 0;
	unsigned int n, bad = 0;

	memcpy(&count, ctr + CTR_COUNT_OFF, sizeof(count));
	if (count > CTR_MAX) {
		printf("FAIL counter: %" PRIu64 " is past its end\n", count);
		t->failures++;
		return;
	}
	for (v = 1; v <= count; v++) {
		memcpy(&tag, ctr + CTR_TAG_OFF(v), sizeof(tag));
		n = tag >> 48;
		s = tag & 0xffffffffffffULL;
		if (!n || n > nodes || s >= hs[n].ni || !hs[n].ist[s] ||
		    hs[n].ival[s] != v) {
			if (bad++ < 10)
				printf("FAIL counter: increment %" PRIu64 " has tag %#" PRIx64
				       ", which no worker tried with that value\n", v, tag);
			t->failures++;
			continue;
		}
		if (hs[n].ist[s] == ST_ACKED)
			acked++;
		else
			landed++;
	}
	/* Every acknowledged increment must be in there. */
	for (n = 1; n <= nodes; n++) {
		for (s = 1; s < hs[n].ni; s++) {
			if (hs[n].ist[s] != ST_ACKED)
				continue;
			v = hs[n].ival[s];
			tag = 0;
			if (v <= count)
				memcpy(&tag, ctr + CTR_TAG_OFF(v), sizeof(tag));
			if (tag != (((uint64_t)n << 48) | s)) {
				if (missing++ < 10)
					printf("FAIL counter: node %u's acknowledged increment %" PRIu64
					       " (to %" PRIu64 ") is not in the counter\n", n, s, v);
				t->failures++;
			}
		}
	}
	printf("counter: %" PRIu64 " = %" PRIu64 " acknowledged increments + %" PRIu64
	       " whose last write failed yet landed; %" PRIu64 " acknowledged ones missing\n",
	       count, acked, landed, missing);
}

int verify(unsigned int nodes, int argc, char **argv)
{
	static struct hist hs[SOAK_MAX_NODES];
	static struct tally t;
	uint8_t *data = malloc(DATA_SIZE), *ctr = malloc(CTR_SIZE);
	uint64_t ops = 0, errs = 0;
	int dh, ch, ret, i;
	unsigned int k, e;

	if (argc < 2)
		die("usage: soak_worker verify NODES BOUND_S LOG...");
	bound_s = strtoul(argv[0], NULL, 10);
	if (!data || !ctr || !bound_s)
		die("bad bound or out of memory");
	dh = lite_ask(SOAK_HOME, SOAK_ID_DATA, LITE_PERM_READ, SOAK_PASSWORD);
	ch = lite_ask(SOAK_HOME, SOAK_ID_CTR, LITE_PERM_READ, SOAK_PASSWORD);
	if (dh < 0 || ch < 0)
		die("asking for the home's LMRs: %s, %s (is 'home' running?)",
		    errname(-dh), errname(-ch));
	ret = lite_read(dh, 0, data, DATA_SIZE, SOAK_PASSWORD, LITE_PRIO_NORMAL);
	if (!ret)
		ret = lite_read(ch, 0, ctr, CTR_SIZE, SOAK_PASSWORD,
				LITE_PRIO_NORMAL);
	if (ret)
		die("reading the home's LMRs: %s", errname(-ret));
	for (i = 1; i < argc; i++)
		replay(argv[i], hs, &t);

	for (k = 0; k < NR_KINDS; k++) {
		ops += t.ok[k] + t.err[k];
		errs += t.err[k];
	}
	printf("operations: %" PRIu64 " (%" PRIu64 " failed) in %" PRIu64
	       " worker runs (%" PRIu64 " stopped, %" PRIu64 " saw their node leave)\n",
	       ops, errs, t.starts, t.stops, t.lefts);
	for (k = 0; k < NR_KINDS; k++) {
		if (!t.ok[k] && !t.err[k])
			continue;
		printf("  %-7s %8" PRIu64 " ok %6" PRIu64 " failed  max %" PRIu64 " ms",
		       kind_name[k], t.ok[k], t.err[k], t.max_ms[k]);
		for (e = 1; e < 256; e++)
			if (t.errs[k][e])
				printf("  %s=%" PRIu64, errname(e), t.errs[k][e]);
		printf("\n");
	}
	printf("errors by errno:");
	for (e = 1; e < 256; e++) {
		uint64_t sum = 0;

		for (k = 0; k < NR_KINDS; k++)
			sum += t.errs[k][e];
		if (sum)
			printf(" %s=%" PRIu64, errname(e), sum);
	}
	printf("%s\n", errs ? "" : " none");
	printf("hung calls (past their bound of %u s, lock %u s): %" PRIu64
	       " returned late, %" PRIu64 " never returned\n", bound_s,
	       bound_ms(K_LOCK, bound_s) / 1000, t.hung, t.unreturned);
	printf("bad read-backs or echoes: %" PRIu64 "\n", t.bad);
	check_data(data, hs, nodes, &t);
	check_counter(ctr, hs, nodes, &t);
	t.failures += t.bad + t.hung + t.unreturned;
	printf("%s: %u invariant violation(s)\n", t.failures ? "FAIL" : "PASS",
	       t.failures);
	return t.failures ? 1 : 0;
}
