// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LITE-MapReduce runtime of lite_mr.h: setup, the map threads, the
 * merge on node 1 and the steps of a run (lite_mr_priv.h names the rest).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lite.h>

#include "app_lite.h"
#include "lite_mr_priv.h"

void mr_barrier(const struct lite_mr *mr, const char *what)
{
	int ret = lite_barrier(mr->c.nodes);

	if (ret < 0) {
		fprintf(stderr, "%s: lite_barrier (%s): %s\n", prog, what,
			strerror(-ret));
		exit(1);
	}
}

/* Post writes (or reads, !@write) of @size bytes in WINDOW pieces. */
int mr_post_range(int lh, uint64_t off, void *buf, uint64_t size, int write)
{
	return app_post_range(lh, off, buf, size, WINDOW, PASSWORD, write,
			      FENCE_MS);
}

void mr_rec_add(struct mr_text *t, const char *key, uint32_t klen,
		    const void *val, uint32_t vlen)
{
	uint32_t hdr[2] = { klen, vlen };

	mr_text_add(t, hdr, sizeof(hdr));
	mr_text_add(t, key, klen);
	mr_text_add(t, val, vlen);
}

/* The record at @p: its key, value and the next record. */
const char *mr_rec_get(const char *p, const char **key, uint32_t *klen,
			   const char **val, uint32_t *vlen)
{
	uint32_t hdr[2];

	memcpy(hdr, p, sizeof(hdr));
	*klen = hdr[0];
	*vlen = hdr[1];
	*key = p + REC_HDR;
	*val = *key + *klen;
	return *val + *vlen;
}

static struct mr_text *part_of(struct map_thread *m, uint64_t h)
{
	unsigned int nodes = m->mr->c.nodes;

	return &m->part[(h % nodes) * G + (h / nodes) % G];
}

static void map_emit(void *ctx, const char *key, unsigned int klen,
		     const void *val, unsigned int vlen)
{
	struct map_thread *m = ctx;
	const struct mr_job *job = m->mr->job;
	uint64_t h = mr_hash(key, klen);

	if (!klen || klen > MR_KEY_MAX || vlen != job->value_size)
		die("the job emitted a bad pair", EINVAL);
	if (job->combine)
		mr_ctab_add(&m->tab, key, klen, h, val);
	else
		mr_rec_add(part_of(m, h), key, klen, val, vlen);
}

static void *map_main(void *arg)
{
	struct map_thread *m = arg;
	const struct mr_job *job = m->mr->job;
	const struct mr_centry *e;
	unsigned int i;
	size_t j;

	if (job->combine)
		mr_ctab_init(&m->tab, job);
	while ((i = atomic_fetch_add(m->next, 1)) < m->n)
		job->map(m->splits[i], m->lens[i], m->first + i, map_emit, m);
	if (!job->combine)
		return NULL;
	for (j = 0; j <= m->tab.mask; j++) {
		e = &m->tab.e[j];
		if (e->key)
			mr_rec_add(part_of(m, e->hash), e->key, e->klen, e->val,
				   job->value_size);
	}
	mr_ctab_free(&m->tab);
	return NULL;
}

/*
 * Map node @p + 1's control LMR and inbox (@perm), and check the control
 * LMR is of this run: 0, or 1 after saying why not.
 */
static int map_peer(struct lite_mr *mr, unsigned int p, unsigned int perm)
{
	const struct lite_mr_conf *conf = &mr->c;
	uint64_t size, tag;
	int ret;

	ret = lite_ask(p + 1, conf->id + 2 * p, perm, PASSWORD);
	if (ret >= 0) {
		mr->ctrl[p] = ret;
		ret = lite_ask(p + 1, conf->id + 2 * p + 1, perm, PASSWORD);
	}
	if (ret < 0) {
		fprintf(stderr, "%s: lite_ask node %u: %s\n", prog, p + 1,
			strerror(-ret));
		exit(1);
	}
	mr->inbox[p] = ret;
	size = app_lmr_size(mr->ctrl[p]);
	if (size != mr->ctrl_bytes) {
		fprintf(stderr, "%s: node %u's control LMR has %llu bytes, not %llu: another node count?\n",
			prog, p + 1, (unsigned long long)size,
			(unsigned long long)mr->ctrl_bytes);
		return 1;
	}
	ret = lite_read(mr->ctrl[p], 0, &tag, CTRL_TAG, PASSWORD,
			LITE_PRIO_NORMAL);
	if (ret < 0)
		die("lite_read (run tag)", ret);
	if (tag != conf->tag) {
		fprintf(stderr, "%s: node %u runs another job, input, shuffle or --inbox than this node (run tag %016llx, ours %016llx)\n",
			prog, p + 1, (unsigned long long)tag,
			(unsigned long long)conf->tag);
		return 1;
	}
	return 0;
}

struct lite_mr *lite_mr_init(const struct mr_job *job,
			     const struct lite_mr_conf *conf)
{
	struct lite_mr *mr = calloc(1, sizeof(*mr));
	unsigned int p, perm = LITE_PERM_READ | LITE_PERM_WRITE;
	int ret, bad = 0;

	if (!mr)
		die("out of memory", ENOMEM);
	if (job->combine && job->value_size > COMBINE_MAX)
		die("a combining job's values are at most 16 bytes", EINVAL);
	mr->job = job;
	mr->c = *conf;
	mr->ctrl = xmalloc(conf->nodes * sizeof(int));
	mr->inbox = xmalloc(conf->nodes * sizeof(int));
	mr->ctrl_bytes = ctrl_off_outlen(mr, conf->nodes);
	mr->matrix = xmalloc(mr->ctrl_bytes);

	ret = lite_alloc(conf->me + 1, mr->ctrl_bytes, 0, PASSWORD);
	if (ret < 0)
		die("lite_alloc (control LMR)", ret);
	mr->ctrl[conf->me] = ret;
	ret = lite_alloc(conf->me + 1, conf->inbox_bytes, 0, PASSWORD);
	if (ret < 0)
		die("lite_alloc (inbox LMR; a smaller --inbox?)", ret);
	mr->inbox[conf->me] = ret;
	ret = lite_write(mr->ctrl[conf->me], 0, &conf->tag, CTRL_TAG, PASSWORD,
			 LITE_PRIO_NORMAL);
	if (ret < 0)
		die("lite_write (run tag)", ret);
	ret = lite_publish(mr->ctrl[conf->me], conf->id + 2 * conf->me, perm,
			   PASSWORD);
	if (ret >= 0)
		ret = lite_publish(mr->inbox[conf->me],
				   conf->id + 2 * conf->me + 1, perm, PASSWORD);
	if (ret < 0)
		die("lite_publish", ret);
	if (conf->rpc) {
		ret = lite_rpc_register(LITE_MR_RPC_PORT, LITE_RPC_MAX_MSG,
					"lite-mapreduce");
		if (ret < 0)
			die("lite_rpc_register", ret);
	}
	mr_barrier(mr, "published");

	for (p = 0; p < conf->nodes; p++)
		if (p != conf->me)
			bad |= map_peer(mr, p, perm);
	/* Every node sees every tag: all of them stop here, or none. */
	if (bad)
		exit(1);
	return mr;
}

/*
 * The smallest head among the nodes' output streams: -1 when all ended, -2
 * when one is corrupt.
 */
static int merge_next(const char **pos, const char **end, unsigned int n)
{
	const char *key, *val, *bkey = NULL;
	uint32_t klen, vlen, blen = 0;
	unsigned int s;
	int best = -1;

	for (s = 0; s < n; s++) {
		if (pos[s] == end[s])
			continue;
		if ((size_t)(end[s] - pos[s]) < REC_HDR ||
		    mr_rec_get(pos[s], &key, &klen, &val, &vlen) > end[s] ||
		    !klen || klen > MR_KEY_MAX) {
			fprintf(stderr, "%s: node %u's output is corrupt\n",
				prog, s + 1);
			return -2;
		}
		if (best < 0 || mr_key_cmp(key, klen, bkey, blen) < 0) {
			best = s;
			bkey = key;
			blen = klen;
		}
	}
	return best;
}

/*
 * Node 1: read every node's output (lengths in its control LMR) and merge
 * them into @output. Returns the number of keys, or -1 (with a message)
 * when a node's output did not fit its inbox, could not be read or is
 * corrupt: the caller still meets the others at the last barrier.
 */
static int64_t merge(struct lite_mr *mr, const struct mr_text *own,
		     struct mr_text *output)
{
	unsigned int nodes = mr->c.nodes, s;
	const char **pos = xmalloc(nodes * sizeof(*pos));
	const char **end = xmalloc(nodes * sizeof(*end));
	char **buf = calloc(nodes, sizeof(*buf));
	uint64_t *len = xmalloc(nodes * sizeof(*len));
	const char *key, *val;
	uint32_t klen, vlen;
	int64_t keys = 0;
	int ret, best;

	if (!buf)
		die("out of memory", ENOMEM);
	ret = lite_read(mr->ctrl[0], ctrl_off_outlen(mr, 0), len,
			nodes * sizeof(*len), PASSWORD, LITE_PRIO_NORMAL);
	if (ret < 0) {
		fprintf(stderr, "%s: lite_read (output lengths): %s\n", prog,
			strerror(-ret));
		keys = -1;
		memset(len, 0, nodes * sizeof(*len));
	}
	for (s = 0; s < nodes; s++) {
		if (s == 0) {
			pos[0] = own->buf;
			end[0] = own->buf + own->len;
			continue;
		}
		if (len[s] > mr->c.inbox_bytes) {
			fprintf(stderr, "%s: node %u's output could not be stored (too large for its inbox, or a failed write: see its log)\n",
				prog, s + 1);
			keys = -1;
			len[s] = 0;
		}
		buf[s] = xmalloc(len[s]);
		pos[s] = buf[s];
		end[s] = buf[s] + len[s];
		ret = keys < 0 ? 0 : mr_post_range(mr->inbox[s], 0, buf[s], len[s], 0);
		if (ret < 0) {
			fprintf(stderr, "%s: reading node %u's output: %s\n",
				prog, s + 1, strerror(-ret));
			keys = -1;
		}
	}
	/* Also drains what was posted before a failure. */
	ret = lite_fence(FENCE_MS);
	if (ret < 0) {
		fprintf(stderr, "%s: lite_fence (outputs): %s\n", prog,
			strerror(-ret));
		keys = -1;
	}
	while (keys >= 0 && (best = merge_next(pos, end, nodes)) != -1) {
		if (best == -2) {
			keys = -1;
			break;
		}
		pos[best] = mr_rec_get(pos[best], &key, &klen, &val, &vlen);
		mr_text_add(output, key, klen);
		mr_text_add(output, "\t", 1);
		mr_text_add(output, val, vlen);
		mr_text_add(output, "\n", 1);
		keys++;
	}
	for (s = 0; s < nodes; s++)
		free(buf[s]);
	free(buf);
	free(len);
	free(end);
	free(pos);
	return keys;
}

static double secs(uint64_t from, uint64_t to)
{
	return (to - from) / 1e9;
}

void lite_mr_run(struct lite_mr *mr, char **splits, const size_t *lens,
		 unsigned int n, unsigned int first, struct mr_text *output,
		 uint64_t *keys, struct lite_mr_stats *st)
{
	unsigned int t, d, threads = mr->c.threads, me = mr->c.me;
	struct map_thread *m = calloc(threads, sizeof(*m));
	struct mr_text own = { 0 };
	atomic_uint next = 0;
	uint64_t t0, t1, t2, t3, total, outlen = 0;
	int64_t merged = 0;
	char *in;
	int ret;

	if (!m)
		die("out of memory", ENOMEM);
	*st = (struct lite_mr_stats){ 0 };
	mr_barrier(mr, "start");
	t0 = now_ns();
	for (t = 0; t < threads; t++) {
		m[t] = (struct map_thread){ .mr = mr, .splits = splits,
					    .lens = lens, .n = n,
					    .first = first, .next = &next };
		m[t].part = calloc((size_t)mr->c.nodes * G, sizeof(*m[t].part));
		if (!m[t].part)
			die("out of memory", ENOMEM);
		ret = pthread_create(&m[t].tid, NULL, map_main, &m[t]);
		if (ret)
			die("pthread_create", ret);
	}
	for (t = 0; t < threads; t++)
		pthread_join(m[t].tid, NULL);
	t1 = now_ns();

	mr_exchange_sizes(mr, m);
	for (d = 0; d < mr->c.nodes; d++)
		for (t = 0; t < G && d != me; t++)
			st->sent_bytes += *cell(mr, me, d, t);
	total = mr_inbox_off(mr, me, mr->c.nodes, G);
	if (mr->c.rpc) {
		in = xmalloc(total);
		mr_shuffle_rpc(mr, m, in);
	} else {
		mr_shuffle_write(mr, m);
		mr_barrier(mr, "shuffle");
		in = mr->c.heap_copy ? xmalloc(total) :
				       lite_alloc_buffer(total ? total : 1);
		if (!in)
			die("lite_alloc_buffer (inbox copy)", errno);
		if (total) {
			ret = lite_read(mr->inbox[me], 0, in, total, PASSWORD,
					LITE_PRIO_NORMAL);
			if (ret < 0)
				die("lite_read (own inbox)", ret);
		}
	}
	for (t = 0; t < threads; t++) {
		for (d = 0; d < mr->c.nodes * G; d++)
			mr_text_free(&m[t].part[d]);
		free(m[t].part);
	}
	free(m);
	t2 = now_ns();

	st->keys = mr_reduce(mr, in, &own);
	t3 = now_ns();

	/* Every node's sorted output into its inbox, its length to node 1. */
	if (me) {
		ret = 0;
		outlen = own.len <= mr->c.inbox_bytes ? own.len : UINT64_MAX;
		if (outlen == UINT64_MAX)
			fprintf(stderr, "%s: this node's output (%zu bytes) does not fit its inbox (--inbox)\n",
				prog, own.len);
		else if (own.len)
			ret = lite_write(mr->inbox[me], 0, own.buf, own.len,
					 PASSWORD, LITE_PRIO_NORMAL);
		if (ret < 0) {
			fprintf(stderr, "%s: lite_write (output): %s\n", prog,
				strerror(-ret));
			outlen = UINT64_MAX;	/* node 1 then fails the run */
		}
		ret = lite_write(mr->ctrl[0], ctrl_off_outlen(mr, me), &outlen,
				 sizeof(outlen), PASSWORD, LITE_PRIO_NORMAL);
		if (ret < 0)
			die("lite_write (output length)", ret);
	}
	mr_barrier(mr, "outputs");
	if (!me)
		merged = merge(mr, &own, output);
	*keys = merged < 0 ? 0 : merged;
	mr_barrier(mr, "end");
	st->map_s = secs(t0, t1);
	st->shuffle_s = secs(t1, t2);
	st->reduce_s = secs(t2, t3);
	st->merge_s = secs(t3, now_ns());
	if (mr->c.rpc || mr->c.heap_copy)
		free(in);
	else
		lite_free_buffer(in, total ? total : 1);
	if (merged < 0 || outlen == UINT64_MAX)
		exit(1);
	mr_text_free(&own);
}

void lite_mr_exit(struct lite_mr *mr)
{
	unsigned int p;
	int ret;

	for (p = 0; p < mr->c.nodes; p++) {
		if (p == mr->c.me)
			continue;
		ret = lite_unmap(mr->ctrl[p]);
		if (ret >= 0)
			ret = lite_unmap(mr->inbox[p]);
		if (ret < 0)
			die("lite_unmap", ret);
	}
	ret = lite_free(mr->ctrl[mr->c.me]);
	if (ret >= 0)
		ret = lite_free(mr->inbox[mr->c.me]);
	if (ret < 0)
		die("lite_free", ret);
	free(mr->matrix);
	free(mr->inbox);
	free(mr->ctrl);
	free(mr);
}
