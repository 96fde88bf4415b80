// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * dsm_bench: LITE-Kernel-DSM's operations from user space, one at a time
 * (lite_dsm.ko through liblite-dsm: lite-dsm.h and nothing of liblite),
 * for the dsm figure. README.md ("What is measured") says what each sample
 * is; docs/dsm.md what the DSM does.
 *
 *   dsm_bench -o OP --nodes N --node I --run RUN [OPTIONS]
 *
 * OP is read_fault, block_fault, cached_fault, write_fault, acquire or
 * release (--pages LIST), each run on one node against pages whose home
 * is another node; or barrier, run on every node 1..N at once with the
 * same options (each calls the same number of barriers).
 *
 * The region ("dsm-bench-RUN", a new RUN for each run: a region lives
 * until its last node detaches) is placed as docs/dsm.md says: blocks of
 * 16 pages, block b on node b % N + 1. This program cannot ask the module
 * where a page lives (lite-dsm.h has no such call), so it computes that
 * from the placement, with N given: --nodes must be the number of nodes
 * in the LITE cluster (the homes), --node this node's LITE id. Its
 * layout: M = 16 N + (I mod N) whole blocks, then one block of a single
 * page, whose home is node (I mod N) + 1, never I:
 *
 *   block 0 .. M - 1     16 pages each, (N - 1) / N of them remote
 *   block M              1 page (the region ends there), remote
 *
 * A fault fetches the absent pages of its block around the faulting page
 * with one RDMA read (fetch-ahead), so a first touch of a whole block
 * moves 64 KiB and the touches of its other pages find them cached. The
 * single-page block is where a fault reads exactly one page: read_fault
 * measures that; block_fault the first touch of a whole remote block;
 * cached_fault a fault on a page the block's fetch brought in.
 *
 * Locks and the meta node: a region's locks live on its meta node,
 * 1 + jhash(name) % N (docs/dsm.md, Protocol; lite/dsm/meta.c). For the
 * lock to be another node's, the name is the first of "dsm-bench-RUN",
 * "dsm-bench-RUN.1" .. ".99" whose meta node is the single page's home
 * (so that a read fault's round, acquire, fault, release, involves one
 * other node), else the first whose meta node is not this node; jhash is
 * computed here as the kernel's (include/linux/jhash.h).
 * barrier uses "dsm-bench-RUN" on every node (its meta node does not
 * matter: the barrier is LITE's, coordinated by node 1) and a one-page
 * region.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lite-dsm.h"

#define PAGE		4096UL
#define BLOCK_PAGES	16	/* docs/dsm.md: DSM_BLOCK_PAGES in layout.h */
#define MAX_NODES	16	/* homes: the first 16 nodes */
#define NAME_PREFIX	"dsm-bench-"
#define NAME_MAX_LEN	63	/* the DSM's names: 1..63 characters */
/* RUN plus ".99" and the prefix within a name. */
#define RUN_MAX		(NAME_MAX_LEN - sizeof(NAME_PREFIX) + 1 - 3)
#define MAX_K		64	/* --pages: values in one list */

enum { OP_READ_FAULT, OP_BLOCK_FAULT, OP_CACHED_FAULT, OP_WRITE_FAULT,
       OP_ACQUIRE, OP_RELEASE, OP_BARRIER };
static const char *const op_names[] = {
	"read_fault", "block_fault", "cached_fault", "write_fault",
	"acquire", "release", "barrier",
};

enum { DIRTY_PAGE, DIRTY_BYTE };
static const char *const dirty_names[] = { "page", "byte" };

struct dsm_cfg {
	int op;
	unsigned int nodes;
	unsigned int node;
	const char *run;
	const char *pages;	/* release: the k list */
	int dirty;
	unsigned int lock;
	unsigned int barrier_warmup;
};

#define DC	struct dsm_cfg

static const struct opt_def dsm_opts[] = {
	{ "op", 'o', "OP", "read_fault, block_fault, cached_fault, "
	  "write_fault, acquire, release or barrier (default read_fault)",
	  OPT_CHOICE(DC, op, op_names) },
	{ "nodes", 0, "N", "nodes in the LITE cluster, the region's homes "
	  "(2..16; required)", OPT_UINT(DC, nodes, 2, MAX_NODES) },
	{ "node", 0, "I", "this node's LITE id, 1..N (required)",
	  OPT_UINT(DC, node, 1, MAX_NODES) },
	{ "run", 0, "RUN", "names the region dsm-bench-RUN: new for each "
	  "run, the same on every node of a barrier run (letters, digits, "
	  ". _ -; required)", OPT_STR(DC, run) },
	{ "pages", 0, "LIST", "release: dirty pages per release, "
	  "comma-separated (default 1,2,4,8,16,32,64,128,256)",
	  OPT_STR(DC, pages) },
	{ "dirty", 0, "HOW", "release: page (every byte of each page "
	  "changed) or byte (one byte of each page; default page)",
	  OPT_CHOICE(DC, dirty, dirty_names) },
	{ "lock", 0, "L", "the region's lock taken by acquire and release, "
	  "0..1023 (default 0)", OPT_UINT(DC, lock, 0, 1023) },
	{ "barrier-warmup", 0, "N", "barrier: untimed barriers before each "
	  "rep (a count, the same on every node; default 10)",
	  OPT_UINT(DC, barrier_warmup, 0, 1000000) },
	{ .name = NULL }
};

static struct dsm_cfg dc = { .lock = 0, .barrier_warmup = 10 };
static struct bench_cfg cfg;

static void dsm_params(void *ctx)
{
	struct dsm_cfg *c = ctx;

	bench_meta("op", "%s", op_names[c->op]);
	bench_meta("nodes", "%u", c->nodes);
	bench_meta("node", "%u", c->node);
	bench_meta("run", "%s", c->run ? c->run : "");
	if (c->op == OP_RELEASE) {
		bench_meta("pages", "%s", c->pages);
		bench_meta("dirty", "%s", dirty_names[c->dirty]);
	}
	bench_meta("lock", "%u", c->lock);
	if (c->op == OP_BARRIER)
		bench_meta("barrier_warmup", "%u", c->barrier_warmup);
}

static const struct bench_prog dsm_prog = {
	.name = "dsm_bench",
	.synopsis = "-o OP --nodes N --node I --run RUN [OPTIONS]",
	.notes = "LITE-Kernel-DSM (lite_dsm.ko loaded on every node, the\n"
		 "cluster joined). Every OP but barrier runs on one node; a\n"
		 "barrier run needs this program on each of nodes 1..N with\n"
		 "the same options. --warmup is in seconds (barrier: the\n"
		 "--barrier-warmup count instead). Rows: dsm_lat,OP,SIZE,PARAM:\n"
		 "SIZE the bytes a sample moves or dirties (acquire, barrier:\n"
		 "0), PARAM the dirty pages (release) or N (barrier).\n"
		 "Exit status: 0 done, 1 run-time failure, 2 usage error.\n",
	.opts = dsm_opts,
	.params = dsm_params,
	.ctx = &dc,
};

/* ---- where pages live (docs/dsm.md, Placement) ------------------------- */

static uint32_t rol32(uint32_t w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

/* The kernel's jhash() (include/linux/jhash.h), on a little-endian CPU. */
static uint32_t jhash(const void *key, uint32_t length, uint32_t initval)
{
	const uint8_t *k = key;
	uint32_t a, b, c;

	a = b = c = 0xdeadbeef + length + initval;
#define JHASH_MIX(a, b, c) do { \
	a -= c; a ^= rol32(c, 4); c += b; \
	b -= a; b ^= rol32(a, 6); a += c; \
	c -= b; c ^= rol32(b, 8); b += a; \
	a -= c; a ^= rol32(c, 16); c += b; \
	b -= a; b ^= rol32(a, 19); a += c; \
	c -= b; c ^= rol32(b, 4); b += a; } while (0)
	while (length > 12) {
		uint32_t w[3];

		memcpy(w, k, sizeof(w));
		a += w[0];
		b += w[1];
		c += w[2];
		JHASH_MIX(a, b, c);
		length -= 12;
		k += 12;
	}
#undef JHASH_MIX
	switch (length) {
	case 12: c += (uint32_t)k[11] << 24; /* fall through */
	case 11: c += (uint32_t)k[10] << 16; /* fall through */
	case 10: c += (uint32_t)k[9] << 8; /* fall through */
	case 9: c += k[8]; /* fall through */
	case 8: b += (uint32_t)k[7] << 24; /* fall through */
	case 7: b += (uint32_t)k[6] << 16; /* fall through */
	case 6: b += (uint32_t)k[5] << 8; /* fall through */
	case 5: b += k[4]; /* fall through */
	case 4: a += (uint32_t)k[3] << 24; /* fall through */
	case 3: a += (uint32_t)k[2] << 16; /* fall through */
	case 2: a += (uint32_t)k[1] << 8; /* fall through */
	case 1:
		a += k[0];
		c ^= b; c -= rol32(b, 14);
		a ^= c; a -= rol32(c, 11);
		b ^= a; b -= rol32(a, 25);
		c ^= b; c -= rol32(b, 16);
		a ^= c; a -= rol32(c, 4);
		b ^= a; b -= rol32(a, 14);
		c ^= b; c -= rol32(b, 24);
		break;
	default:	/* 0: nothing left to add */
		break;
	}
	return c;
}

/* The node keeping a region's metadata and locks (lite/dsm/meta.c). */
static unsigned int meta_node(const char *name)
{
	return 1 + jhash(name, strlen(name), 0) % dc.nodes;
}

/* The node block @b lives on: homes[b % N], homes[i] = node i + 1. */
static unsigned int block_home(uint64_t b)
{
	return b % dc.nodes + 1;
}

/* The region as this node uses it (see the top of this file). */
struct layout {
	char name[NAME_MAX_LEN + 1];
	size_t size;
	uint64_t blocks;		/* M: whole blocks */
	uint64_t single;		/* the single page's index: 16 M */
	uint64_t *remote;		/* the whole blocks of other homes */
	uint64_t nremote;
};

static struct layout lay;

static void layout_init(void)
{
	unsigned int k, m, pass;
	uint64_t b;
	int n;

	if (dc.op == OP_BARRIER) {
		snprintf(lay.name, sizeof(lay.name), NAME_PREFIX "%s", dc.run);
		lay.size = PAGE;
		return;
	}
	lay.blocks = 16ULL * dc.nodes + dc.node % dc.nodes;
	lay.single = lay.blocks * BLOCK_PAGES;
	lay.size = (lay.single + 1) * PAGE;
	lay.remote = calloc(lay.blocks, sizeof(*lay.remote));
	if (!lay.remote)
		bench_die("out of memory");
	for (b = 0; b < lay.blocks; b++)
		if (block_home(b) != dc.node)
			lay.remote[lay.nremote++] = b;
	/*
	 * Best, the single page's home (a read fault's round then involves
	 * that node alone besides this one), else any other node.
	 */
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < 100; k++) {
			n = k ? snprintf(lay.name, sizeof(lay.name),
					 NAME_PREFIX "%s.%u", dc.run, k)
			      : snprintf(lay.name, sizeof(lay.name),
					 NAME_PREFIX "%s", dc.run);
			if (n < 0 || (size_t)n >= sizeof(lay.name))
				bench_die("--run %s: too long", dc.run);
			m = meta_node(lay.name);
			if (pass ? m != dc.node : m == block_home(lay.blocks))
				return;
		}
	bench_die("no name dsm-bench-%s[.1..99] has its meta node elsewhere",
		  dc.run);
}

/* ---- the operations ---------------------------------------------------- */

static struct lite_dsm *d;
static uint8_t *base;
static volatile uint8_t sink;
/* release: the value the next dirtying writes (1..255, never the last). */
static uint8_t dirty_value;

static void check(int ret, const char *what)
{
	if (ret)
		bench_die("%s: %s", what, strerror(-ret));
}

static void acquire(void)
{
	check(lite_dsm_acquire(d, dc.lock), "lite_dsm_acquire");
}

static void release(void)
{
	check(lite_dsm_release(d, dc.lock), "lite_dsm_release");
}

static uint8_t *page_at(uint64_t idx)
{
	return base + idx * PAGE;
}

/* A load the compiler keeps: the first since an acquire faults. */
static void touch(const uint8_t *p)
{
	sink = *(const volatile uint8_t *)p;
}

/* Page @i (0-based) of the remote pages, in the remote blocks' order. */
static uint8_t *remote_page(uint64_t i)
{
	return page_at(lay.remote[i / BLOCK_PAGES] * BLOCK_PAGES +
		       i % BLOCK_PAGES);
}

/* Sample @n: the time since @t0, kept unless warming up (@ns NULL). */
static inline void took(uint64_t *ns, size_t *n, uint64_t t0)
{
	if (ns)
		ns[*n] = bench_now_ns() - t0;
	(*n)++;
}

/*
 * One round of @op: up to @room samples into @ns (NULL: warm-up, none
 * kept); returns how many it took. Every round but barrier's starts with
 * an acquire (the node's cached pages of the region dropped) and ends
 * with a release of the same lock.
 */
static size_t round_of(int op, uint64_t k, uint64_t *ns, size_t room)
{
	size_t n = 0;
	uint64_t t, i, b, j;
	uint8_t *p;

	if (!room)
		return 0;
	switch (op) {
	case OP_READ_FAULT:
		acquire();
		t = bench_now_ns();
		touch(page_at(lay.single));
		took(ns, &n, t);
		release();
		break;
	case OP_BLOCK_FAULT:
		acquire();
		for (b = 0; b < lay.nremote && n < room; b++) {
			p = page_at(lay.remote[b] * BLOCK_PAGES);
			t = bench_now_ns();
			touch(p);
			took(ns, &n, t);
		}
		release();
		break;
	case OP_CACHED_FAULT:
		acquire();
		for (b = 0; b < lay.nremote && n < room; b++) {
			p = page_at(lay.remote[b] * BLOCK_PAGES);
			touch(p);	/* fetches the block */
			for (j = 1; j < BLOCK_PAGES && n < room; j++) {
				t = bench_now_ns();
				touch(p + j * PAGE);
				took(ns, &n, t);
			}
		}
		release();
		break;
	case OP_WRITE_FAULT:
		acquire();
		for (b = 0; b < lay.nremote && n < room; b++) {
			p = page_at(lay.remote[b] * BLOCK_PAGES);
			/* Every page of the block cached and mapped read-only. */
			for (j = 0; j < BLOCK_PAGES; j++)
				touch(p + j * PAGE);
			for (j = 0; j < BLOCK_PAGES && n < room; j++) {
				volatile uint8_t *q = p + j * PAGE;

				/*
				 * The value it has: page_mkwrite and the twin,
				 * and nothing for the release to write back.
				 */
				t = bench_now_ns();
				*q = *q;
				took(ns, &n, t);
			}
		}
		release();
		break;
	case OP_ACQUIRE:
		t = bench_now_ns();
		acquire();
		took(ns, &n, t);
		release();
		break;
	case OP_RELEASE:
		acquire();
		/* Fetched (untimed), then every page written. */
		for (i = 0; i < k; i += BLOCK_PAGES)
			touch(remote_page(i));
		dirty_value = dirty_value % 255 + 1;
		for (i = 0; i < k; i++) {
			p = remote_page(i);
			if (dc.dirty == DIRTY_PAGE)
				memset(p, dirty_value, PAGE);
			else
				*(volatile uint8_t *)p = dirty_value;
		}
		t = bench_now_ns();
		release();
		took(ns, &n, t);
		break;
	case OP_BARRIER:
		t = bench_now_ns();
		check(lite_dsm_barrier(d, dc.nodes), "lite_dsm_barrier");
		took(ns, &n, t);
		break;
	}
	return n;
}

static const uint64_t op_size[] = {
	[OP_READ_FAULT] = PAGE, [OP_BLOCK_FAULT] = BLOCK_PAGES * PAGE,
	[OP_CACHED_FAULT] = PAGE, [OP_WRITE_FAULT] = PAGE,
	[OP_ACQUIRE] = 0, [OP_BARRIER] = 0,
};

static void run_point(uint64_t k, uint64_t *ns)
{
	unsigned int rep;
	uint64_t end, w;
	size_t n;

	for (rep = 0; rep < cfg.reps; rep++) {
		struct bench_point pt = {
			"dsm_lat", op_names[dc.op], op_size[dc.op], 0, rep + 1,
		};

		if (dc.op == OP_RELEASE) {
			pt.size = (dc.dirty == DIRTY_PAGE ? PAGE : 1) * k;
			pt.param = k;
		} else if (dc.op == OP_BARRIER) {
			pt.param = dc.nodes;
		}
		if (dc.op == OP_BARRIER) {
			for (w = 0; w < dc.barrier_warmup; w++)
				round_of(dc.op, k, NULL, 1);
		} else {
			end = bench_now_ns() + bench_sec_ns(cfg.warmup);
			while (bench_now_ns() < end)
				round_of(dc.op, k, NULL, cfg.iters);
		}
		for (n = 0; n < cfg.iters;)
			n += round_of(dc.op, k, ns + n, cfg.iters - n);
		bench_lat_row(&pt, ns, cfg.iters);
	}
}

/* ---- the command line --------------------------------------------------- */

static bool run_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > RUN_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("._-", s[i])))
			return false;
	return true;
}

/* --pages LIST into @ks; the count. */
static unsigned int parse_pages(const char *list, uint64_t *ks, uint64_t max)
{
	unsigned int n = 0;
	const char *p = list;
	char *end;

	for (;;) {
		unsigned long long v;

		if (n == MAX_K)
			bench_usage_error(&cfg, "--pages %s: more than %u values",
					  list, MAX_K);
		if (*p < '0' || *p > '9')
			bench_usage_error(&cfg, "--pages %s: not a list of numbers", list);
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v < 1 || v > max || (*end && *end != ','))
			bench_usage_error(&cfg, "--pages %s: values are 1..%" PRIu64,
					  list, max);
		ks[n++] = v;
		if (!*end)
			return n;
		p = end + 1;
	}
}

int main(int argc, char **argv)
{
	uint64_t ks[MAX_K] = { 1 }, *ns;
	unsigned int nk = 1, i;

	bench_parse(&cfg, &dsm_prog, argc, argv);
	if (cfg.peer)
		bench_usage_error(&cfg, "no operand: the nodes are --nodes and --node");
	if (cfg.sizes_given || cfg.duration_given || cfg.rate || cfg.threads > 1)
		bench_usage_error(&cfg, "--size, --duration, --rate and --threads "
				  "are not dsm_bench's (release: --pages)");
	if (!dc.nodes || !dc.node || !dc.run)
		bench_usage_error(&cfg, "--nodes, --node and --run are required");
	if (dc.node > dc.nodes)
		bench_usage_error(&cfg, "--node %u is not one of 1..%u", dc.node,
				  dc.nodes);
	if (!run_ok(dc.run))
		bench_usage_error(&cfg, "--run %s: 1..%zu letters, digits, . _ -",
				  dc.run, RUN_MAX);
	if (dc.pages && dc.op != OP_RELEASE)
		bench_usage_error(&cfg, "--pages is release's");
	if (!dc.pages)
		dc.pages = "1,2,4,8,16,32,64,128,256";
	layout_init();
	if (dc.op == OP_RELEASE)
		nk = parse_pages(dc.pages, ks, lay.nremote * BLOCK_PAGES);
	ns = calloc(cfg.iters, sizeof(*ns));
	if (!ns)
		bench_die("out of memory");

	d = lite_dsm_attach(lay.name, lay.size);
	if (!d)
		bench_die("lite_dsm_attach %s, %zu bytes: %s%s", lay.name,
			  lay.size, strerror(errno),
			  errno == ENOENT ? " (no /dev/lite_dsm: is lite_dsm.ko "
			  "loaded?)" : "");
	base = lite_dsm_base(d);

	bench_begin(&cfg, "client", "lite_dsm");
	bench_meta("region", "%s", lay.name);
	bench_meta("region_bytes", "%zu", lay.size);
	bench_meta("meta_node", "%u (computed: 1 + jhash(name) %% nodes)",
		   meta_node(lay.name));
	if (dc.op != OP_BARRIER) {
		bench_meta("whole_blocks", "%" PRIu64 " (%" PRIu64 " of other homes)",
			   lay.blocks, lay.nremote);
		bench_meta("single_page", "%" PRIu64 " (home node %u)", lay.single,
			   block_home(lay.blocks));
		bench_meta("first_remote_block", "%" PRIu64 " (home node %u)",
			   lay.remote[0], block_home(lay.remote[0]));
	}
	bench_header(BENCH_LAT);
	for (i = 0; i < nk; i++)
		run_point(ks[i], ns);
	check(lite_dsm_detach(d), "lite_dsm_detach");
	free(ns);
	free(lay.remote);
	return 0;
}
