// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The corpus, the jobs and the command line of mr_job.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mr_job.h"
#include "opt_table.h"

#define WORD_MIN	3U
#define WORD_SPAN	8U	/* lengths WORD_MIN .. WORD_MIN + WORD_SPAN - 1 */

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory", ENOMEM);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory", ENOMEM);
	return p;
}

static void text_reserve(struct mr_text *t, size_t n)
{
	if (t->len + n <= t->cap)
		return;
	t->cap = t->cap ? t->cap : 256;
	while (t->cap < t->len + n)
		t->cap *= 2;
	t->buf = xrealloc(t->buf, t->cap);
}

void mr_text_add(struct mr_text *t, const void *p, size_t n)
{
	text_reserve(t, n);
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

void mr_text_printf(struct mr_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	text_reserve(t, n + 1);
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, n + 1, fmt, ap);
	va_end(ap);
	t->len += n;
}

/* Append @v in decimal (printf is most of a small reduce's time). */
static void text_u64(struct mr_text *t, uint64_t v)
{
	char d[20], *p = d + sizeof(d);

	do
		*--p = '0' + v % 10;
	while (v /= 10);
	mr_text_add(t, p, d + sizeof(d) - p);
}

void mr_text_free(struct mr_text *t)
{
	free(t->buf);
	*t = (struct mr_text){ 0 };
}

uint64_t mr_hash(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int mr_key_cmp(const char *a, unsigned int alen, const char *b,
	       unsigned int blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return (alen > blen) - (alen < blen);
}

void mr_ctab_grow(struct mr_ctab *t)
{
	size_t n = t->e ? 2 * (t->mask + 1) : 4096, i, j;
	struct mr_centry *e = calloc(n, sizeof(*e));

	if (!e)
		die("out of memory (combine table)", ENOMEM);
	for (i = 0; t->e && i <= t->mask; i++) {
		if (!t->e[i].key)
			continue;
		for (j = t->e[i].hash & (n - 1); e[j].key; j = (j + 1) & (n - 1))
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->mask = n - 1;
}

void mr_ctab_init(struct mr_ctab *t, const struct mr_job *job)
{
	if (!job->combine || job->value_size > MR_COMBINE_MAX)
		die("a combine table for a job without combine, or with values over 16 bytes",
		    EINVAL);
	*t = (struct mr_ctab){ .job = job };
	mr_ctab_grow(t);
}

void mr_ctab_free(struct mr_ctab *t)
{
	free(t->e);
	*t = (struct mr_ctab){ 0 };
}

/*
 * The vocabulary: spellings, and how a word is drawn with Zipf(1)
 * probabilities. A draw takes m, the top 53 bits of the split's generator,
 * as u = m 2^-53 W (W the sum of the weights, in doubles) and picks the
 * first word whose cumulative weight exceeds u, else the last. The same
 * pick without floating point in the draw: word i is picked for
 * end[i - 1] <= m < end[i], end[i] the least m whose u reaches word i's
 * cumulative weight (u grows with m); a guide by m's top bits narrows the
 * search. The corpus is the one the doubles' binary search made (out_fnv
 * in tests/unit/mapreduce), faster under TCG, where every double compare
 * is a call into soft-float and the search ran over 2 MiB of weights.
 */
#define DRAW_BITS	53
#define GUIDE_BITS	12
static struct {
	char	(*word)[WORD_MIN + WORD_SPAN];
	uint8_t	*len;
	uint64_t *end;
	unsigned int guide[(1U << GUIDE_BITS) + 1];
	unsigned int n;
} vocab;

/* u for @m, as the doubles' draw computed it (mr_vocab_init only). */
static double draw_u(uint64_t m, double total)
{
	return m * 0x1p-53 * total;
}

/* The least m whose u is not below @cdf (1 << DRAW_BITS: none is). */
static uint64_t draw_end(double cdf, double total)
{
	const uint64_t top = 1ULL << DRAW_BITS;
	double e = cdf / total * (double)top;
	uint64_t m = e >= (double)top ? top : (uint64_t)e;

	/* e is within a few units of the answer: step to it. */
	while (m > 0 && !(cdf > draw_u(m - 1, total)))
		m--;
	while (m < top && cdf > draw_u(m, total))
		m++;
	return m;
}

/* The first word in @lo..@hi whose end is past @m, else @hi. */
static unsigned int draw_search(uint64_t m, unsigned int lo, unsigned int hi)
{
	unsigned int mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (vocab.end[mid] > m)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void mr_vocab_init(const struct mr_opts *o)
{
	double *cdf, sum = 0;
	unsigned int i, j;
	uint64_t s, r;

	vocab.n = o->vocab;
	vocab.word = xmalloc((size_t)vocab.n * sizeof(*vocab.word));
	vocab.len = xmalloc(vocab.n);
	vocab.end = xmalloc((size_t)vocab.n * sizeof(*vocab.end));
	cdf = xmalloc((size_t)vocab.n * sizeof(*cdf));
	for (i = 0; i < vocab.n; i++) {
		s = o->seed ^ ((uint64_t)i << 32 | i);
		r = splitmix64(&s);
		vocab.len[i] = WORD_MIN + r % WORD_SPAN;
		for (j = 0; j < vocab.len[i]; j++) {
			if (j % 12 == 0)
				r = splitmix64(&s);
			vocab.word[i][j] = 'a' + (r & 0x1f) % 26;
			r >>= 5;
		}
		sum += 1.0 / (i + 1);
		cdf[i] = sum;
	}
	for (i = 0; i < vocab.n; i++)
		vocab.end[i] = draw_end(cdf[i], sum);
	free(cdf);
	for (i = 0; i < 1U << GUIDE_BITS; i++)
		vocab.guide[i] = draw_search((uint64_t)i << (DRAW_BITS - GUIDE_BITS),
					     0, vocab.n - 1);
	vocab.guide[1U << GUIDE_BITS] = vocab.n - 1;
}

/* A word index drawn with Zipf(1) probabilities. */
static unsigned int zipf_draw(uint64_t *s)
{
	uint64_t m = splitmix64(s) >> (64 - DRAW_BITS);
	unsigned int g = m >> (DRAW_BITS - GUIDE_BITS);

	/* Picks grow with m: m's bucket picks from its start's to the next's. */
	return draw_search(m, vocab.guide[g], vocab.guide[g + 1]);
}

unsigned int mr_splits(const struct mr_opts *o)
{
	uint64_t chunk = (uint64_t)o->chunk_kib << 10;

	return (o->size + chunk - 1) / chunk;
}

void mr_splits_of(const struct mr_opts *o, unsigned int n, unsigned int nodes,
		  unsigned int *lo, unsigned int *hi)
{
	uint64_t s = mr_splits(o);

	*lo = s * n / nodes;
	*hi = s * (n + 1) / nodes;
}

char *mr_split_make(const struct mr_opts *o, unsigned int idx, size_t *len)
{
	size_t chunk = (size_t)o->chunk_kib << 10, cap = chunk + 64, n = 0;
	uint64_t s = o->seed * 0xd1b54a32d192ed03ULL + idx;
	char *buf = xmalloc(cap);
	unsigned int w, words = 0;

	while (n < chunk) {
		w = zipf_draw(&s);
		memcpy(buf + n, vocab.word[w], vocab.len[w]);
		n += vocab.len[w];
		buf[n++] = ++words % MR_DOC_WORDS ? ' ' : '\n';
	}
	*len = n;
	return buf;
}

/* The next word of @p .. @end (NULL at the end); its length in @len. */
static const char *next_word(const char **p, const char *end, unsigned int *len,
			     int *ends_doc)
{
	const char *w = *p, *q;

	while (w < end && (*w == ' ' || *w == '\n'))
		w++;
	if (w == end)
		return NULL;
	for (q = w; q < end && *q != ' ' && *q != '\n'; q++)
		;
	*len = q - w;
	*ends_doc = q == end || *q == '\n';
	*p = q;
	return w;
}

static void wc_map(const char *split, size_t len, unsigned int idx,
		   mr_emit_fn emit, void *ctx)
{
	const char *p = split, *end = split + len, *w;
	const uint64_t one = 1;
	unsigned int wl;
	int eod;

	(void)idx;
	while ((w = next_word(&p, end, &wl, &eod)))
		emit(ctx, w, wl, &one, sizeof(one));
}

static void wc_combine(void *acc, const void *val)
{
	uint64_t a, v;

	memcpy(&a, acc, sizeof(a));
	memcpy(&v, val, sizeof(v));
	a += v;
	memcpy(acc, &a, sizeof(a));
}

static void wc_reduce(const char *key, unsigned int klen, const void **vals,
		      size_t n, struct mr_text *out)
{
	uint64_t c;

	(void)key;
	(void)klen;
	(void)n;
	memcpy(&c, vals[0], sizeof(c));
	text_u64(out, c);
}

/* The words of one document seen so far: 2 * MR_DOC_WORDS slots. */
struct doc_set {
	const char	*w[2 * MR_DOC_WORDS];
	unsigned int	len[2 * MR_DOC_WORDS];
	unsigned int	gen[2 * MR_DOC_WORDS], cur;
};

/* 1 if @w was not in the set yet (it is now). */
static int doc_set_add(struct doc_set *d, const char *w, unsigned int wl)
{
	unsigned int i = mr_hash(w, wl) & (2 * MR_DOC_WORDS - 1);

	while (d->gen[i] == d->cur) {
		if (d->len[i] == wl && !memcmp(d->w[i], w, wl))
			return 0;
		i = (i + 1) & (2 * MR_DOC_WORDS - 1);
	}
	d->gen[i] = d->cur;
	d->w[i] = w;
	d->len[i] = wl;
	return 1;
}

static void ii_map(const char *split, size_t len, unsigned int idx,
		   mr_emit_fn emit, void *ctx)
{
	const char *p = split, *end = split + len, *w;
	uint32_t doc = idx * MR_DOCS_MAX;
	struct doc_set *d = calloc(1, sizeof(*d));
	unsigned int wl;
	int eod;

	if (!d)
		die("out of memory", ENOMEM);
	d->cur = 1;
	while ((w = next_word(&p, end, &wl, &eod))) {
		if (doc_set_add(d, w, wl))
			emit(ctx, w, wl, &doc, sizeof(doc));
		if (eod) {
			doc++;
			d->cur++;	/* empties the set */
		}
	}
	free(d);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void ii_reduce(const char *key, unsigned int klen, const void **vals,
		      size_t n, struct mr_text *out)
{
	uint32_t *docs = xmalloc(n * sizeof(*docs));
	size_t i;

	(void)key;
	(void)klen;
	for (i = 0; i < n; i++)
		memcpy(&docs[i], vals[i], sizeof(*docs));
	qsort(docs, n, sizeof(*docs), u32_cmp);
	text_u64(out, n);
	for (i = 0; i < n; i++) {
		mr_text_add(out, i ? "," : "\t", 1);
		text_u64(out, docs[i]);
	}
	free(docs);
}

static const struct mr_job jobs[] = {
	{ "wordcount", sizeof(uint64_t), wc_map, wc_combine, wc_reduce },
	{ "invindex", sizeof(uint32_t), ii_map, NULL, ii_reduce },
};

const struct mr_job *mr_job_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
		if (!strcmp(jobs[i].name, name))
			return &jobs[i];
	return NULL;
}

static void bad_arg(const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage);
	exit(2);
}

/* Where the options' values go. */
#define MO	struct mr_opts

static const char *const shuffle_names[] = { "write", "rpc" };
static const char *const copy_names[] = { "zerocopy", "heap" };
static const char *const combine_names[] = { "map", "compress" };

/*
 * No help texts: each program's usage is its synopsis. A choice's what
 * is what bad_value() says it takes. --job is looked up in jobs[].
 */
static const struct opt_def common_opts[] = {
	{ "job", 0, "JOB", .type = OPT_T_OWN },
	{ "", 'm', "MIB", OPT_U64(MO, size, 1, 1U << 16) },
	{ "chunk", 0, "KIB", OPT_UINT(MO, chunk_kib, 4, 1U << 16) },
	{ "vocab", 0, "N", OPT_UINT(MO, vocab, 1, 1U << 26) },
	{ "", 'S', "SEED", OPT_U64(MO, seed, 0, UINT64_MAX) },
	{ "", 'o', "FILE", OPT_STR(MO, out) },
	{ "help", 'h', NULL, .type = OPT_T_OWN },
	{ .name = NULL }
};

/* lite-mapreduce's own. */
static const struct opt_def lite_opts[] = {
	{ "", 'n', "NODES", OPT_UINT(MO, nodes, 1, 1024) },
	{ "", 't', "THREADS", OPT_UINT(MO, threads, 1, 256) },
	{ "shuffle", 0, "rpc|write", .what = "write or rpc",
	  OPT_CHOICE(MO, rpc, shuffle_names) },
	{ "inbox", 0, "MIB", OPT_UINT(MO, inbox_mib, 1, 1024) },
	{ "inbox-copy", 0, "heap|zerocopy", .what = "heap or zerocopy",
	  OPT_CHOICE(MO, heap_copy, copy_names) },
	{ "id", 0, "ID", OPT_U64(MO, id, 1, UINT64_MAX >> 1) },
	{ .name = NULL }
};

/* mrmpi-mapreduce's own. */
static const struct opt_def mrmpi_opts[] = {
	{ "combine", 0, "map|compress", .what = "map or compress",
	  OPT_CHOICE(MO, compress, combine_names) },
	{ .name = NULL }
};

static void bad_value(const struct opt_parser *p, const struct opt_def *o,
		      const char *arg, const char *why)
{
	(void)why;
	if (o->type == OPT_T_CHOICE)
		fprintf(stderr, "%s: --%s %s: %s\n", p->prog, o->name, arg,
			o->what);
	else
		fprintf(stderr, "%s: bad number '%s'\n", p->prog, arg);
}

void mr_parse_args(int argc, char **argv, struct mr_opts *o,
		   enum mr_prog which, const char *usage)
{
	struct opt_parser p = {
		.prog = prog, .num = OPT_NUM_C, .bad = bad_value,
		.usage = usage,
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const struct opt_def *d;
	char name[32];

	*o = (struct mr_opts){
		.job = mr_job_find("wordcount"),
		.size = 64,	/* MiB until parsed */
		.chunk_kib = 1024,
		.vocab = 1U << 18,
		.seed = 1,
		.threads = cpus > 0 ? cpus : 1,
		.rpc = 1,
		.inbox_mib = 128,
		.id = 0x4d52000000ULL,	/* "MR" */
	};
	opt_add(&p, common_opts, o);
	/* Each program knows the others' options only to refuse them. */
	opt_add(&p, lite_opts, which == MR_PROG_LITE ? o : NULL);
	opt_add(&p, mrmpi_opts, which == MR_PROG_MRMPI ? o : NULL);
	while ((d = opt_next(&p, argc, argv))) {
		/* The option as written: argv[optind - 1] may be its value. */
		if (*d->name)
			snprintf(name, sizeof(name), "--%s", d->name);
		else
			snprintf(name, sizeof(name), "-%c", d->key);
		if (which != MR_PROG_LITE && opt_in(d, lite_opts))
			bad_arg(usage, "%s: an option of lite-mapreduce only",
				name);
		if (which != MR_PROG_MRMPI && opt_in(d, mrmpi_opts))
			bad_arg(usage, "%s: an option of mrmpi-mapreduce only",
				name);
		if (d->key == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		if (!strcmp(d->name, "job")) {
			o->job = mr_job_find(optarg);
			if (!o->job)
				bad_arg(usage, "no job '%s' (wordcount, invindex)",
					optarg);
		}
	}
	o->size <<= 20;
	if (optind != argc)
		bad_arg(usage, "unexpected argument '%s'", argv[optind]);
	if (mr_splits(o) > UINT32_MAX / MR_DOCS_MAX)
		bad_arg(usage, "%s", "too many splits for 32-bit document numbers: raise --chunk");
}

void mr_result(const struct mr_opts *o, unsigned int nodes, uint64_t keys,
	       const struct mr_text *output, double seconds,
	       const char *extra)
{
	printf("result prog=%s job=%s bytes=%llu splits=%u nodes=%u keys=%llu out_bytes=%zu out_fnv=%016llx seconds=%.6f%s%s\n",
	       prog, o->job->name, (unsigned long long)o->size, mr_splits(o),
	       nodes, (unsigned long long)keys, output->len,
	       (unsigned long long)mr_hash(output->buf, output->len), seconds,
	       *extra ? " " : "", extra);
	fflush(stdout);
}

int mr_write_output(const char *path, const struct mr_text *output)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	if (fwrite(output->buf, 1, output->len, f) != output->len) {
		err = errno ? errno : EIO;
		fclose(f);
		return -err;
	}
	return fclose(f) ? -errno : 0;
}
