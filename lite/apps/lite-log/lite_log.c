// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LITE-Log over liblite's public calls (lite.h): the layout and the rules
 * are in lite_log.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lite.h>

#include "lite_log.h"

#define LLOG_MAGIC		0x474f4c4cU	/* "LLOG" */
#define LLOG_TAIL_OFF		0
#define LLOG_INDEX_OFF		64
#define LLOG_SEQ_SHIFT		40
#define LLOG_BYTES_MASK		((1ULL << LLOG_SEQ_SHIFT) - 1)
#define LLOG_SKIPPED		UINT64_MAX
#define LLOG_STALE		(1ULL << 62)	/* a reader gave up its bytes */
#define LLOG_LEN_BITS		24
#define LLOG_POLL_US		200	/* between looks at a pending entry */
#define LLOG_REAP		64	/* completions per lite_poll */
#define LLOG_REAP_MS		100	/* one lite_poll's wait, then again */

/* At the start of every record in the data LMR. */
struct llog_hdr {
	uint32_t	magic;
	uint32_t	len;		/* payload bytes */
	uint64_t	seq;
	uint32_t	crc;		/* of the payload (CRC-32C) */
	uint32_t	reserved;
};

struct llog {
	int		meta;		/* handle: tail word + index (atomic) */
	int		data;		/* handle: the records */
	int		password;
	uint32_t	records;	/* index entries */
	uint64_t	data_bytes;
	unsigned int	hole_ms;
	uint64_t	seen;		/* highest number taken here, a hint */
	uint64_t	phase_ns[LLOG_PHASES];	/* summed over appends */
	uint64_t	phase_n;	/* attempts timed */
};


static uint64_t llog_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Add the time since *@t to phase @p (threads share the log) and restart. */
static void llog_phase(struct llog *log, int p, uint64_t *t)
{
	uint64_t now = llog_now_ns();

	__atomic_fetch_add(&log->phase_ns[p], now - *t, __ATOMIC_RELAXED);
	*t = now;
}

static uint32_t llog_crc(const void *buf, uint32_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = ~0U;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0x82f63b78U & -(crc & 1));
	}
	return ~crc;
}

static uint64_t llog_rec_size(uint32_t len)
{
	return (sizeof(struct llog_hdr) + len + 7) & ~7ULL;
}

static uint64_t llog_entry(uint64_t off, uint32_t len)
{
	return (off / 8 + 1) << LLOG_LEN_BITS | len;
}

static uint64_t llog_entry_off(uint64_t e)
{
	return (((e & ~LLOG_STALE) >> LLOG_LEN_BITS) - 1) * 8;
}

static uint32_t llog_entry_len(uint64_t e)
{
	return e & ((1U << LLOG_LEN_BITS) - 1);
}

static uint64_t llog_index_off(uint64_t seq)
{
	return LLOG_INDEX_OFF + seq * sizeof(uint64_t);
}

static struct llog *llog_new(int meta, int data, int password,
			     unsigned int hole_ms)
{
	struct llog *log = calloc(1, sizeof(*log));
	uint64_t meta_size;

	if (!log)
		return NULL;
	if (lite_lmr_info(meta, NULL, &meta_size, NULL) < 0 ||
	    lite_lmr_info(data, NULL, &log->data_bytes, NULL) < 0 ||
	    meta_size <= LLOG_INDEX_OFF) {
		free(log);
		errno = EINVAL;
		return NULL;
	}
	log->meta = meta;
	log->data = data;
	log->password = password;
	log->hole_ms = hole_ms;
	log->records = (meta_size - LLOG_INDEX_OFF) / sizeof(uint64_t);
	return log;
}

struct llog *llog_create(uint64_t id, uint64_t data_bytes, uint32_t records,
			 int password)
{
	unsigned int perm = LITE_PERM_READ | LITE_PERM_WRITE | LITE_PERM_ATOMIC;
	int me = lite_node_id(), meta, data;
	struct llog *log;

	if (me < 0)
		return NULL;
	if (!records || records > LLOG_MAX_RECORDS ||
	    data_bytes > LLOG_BYTES_MASK) {
		errno = EINVAL;
		return NULL;
	}
	/* LMRs start zeroed: an empty tail, no entry committed. */
	meta = lite_alloc(me, llog_index_off(records), LITE_ALLOC_ATOMIC,
			  password);
	if (meta < 0)
		return NULL;
	data = lite_alloc(me, data_bytes, 0, password);
	if (data < 0 ||
	    lite_publish(meta, id, perm, password) < 0 ||
	    lite_publish(data, id + 1, LITE_PERM_READ | LITE_PERM_WRITE,
			 password) < 0)
		goto err;
	log = llog_new(meta, data, password, 0);
	if (log)
		return log;
err:
	if (data >= 0)
		lite_free(data);
	lite_free(meta);
	return NULL;
}

struct llog *llog_open(unsigned int home, uint64_t id, int password,
		       unsigned int hole_ms)
{
	unsigned int perm = LITE_PERM_READ | LITE_PERM_WRITE;
	int meta, data;
	struct llog *log;

	meta = lite_ask(home, id, perm | LITE_PERM_ATOMIC, password);
	if (meta < 0)
		return NULL;
	data = lite_ask(home, id + 1, perm, password);
	if (data < 0) {
		lite_unmap(meta);
		return NULL;
	}
	log = llog_new(meta, data, password, hole_ms);
	if (!log || llog_reserved(log, &log->seen) < 0) {
		free(log);
		lite_unmap(data);
		lite_unmap(meta);
		return NULL;
	}
	return log;
}

void llog_phases(const struct llog *log, double ms[LLOG_PHASES], uint64_t *n)
{
	int p;

	*n = __atomic_load_n(&log->phase_n, __ATOMIC_RELAXED);
	for (p = 0; p < LLOG_PHASES; p++)
		ms[p] = *n ? __atomic_load_n(&log->phase_ns[p], __ATOMIC_RELAXED) /
			     1e6 / *n : 0;
}

void llog_close(struct llog *log)
{
	if (!log)
		return;
	/* The creator's handles free the LMRs; anyone else's just go. */
	lite_unmap(log->data);
	lite_unmap(log->meta);
	free(log);
}

int llog_reserved(struct llog *log, uint64_t *records)
{
	uint64_t tail;
	int ret;

	ret = lite_read(log->meta, LLOG_TAIL_OFF, &tail, sizeof(tail),
			log->password, LITE_PRIO_NORMAL);
	if (ret < 0)
		return ret;
	*records = tail >> LLOG_SEQ_SHIFT;
	if (*records > log->records)
		*records = log->records;
	return 0;
}

/* Give up sequence number @seq: nobody waits for it. */
static void llog_skip(struct llog *log, uint64_t seq)
{
	lite_compare_swap(log->meta, llog_index_off(seq), 0, LLOG_SKIPPED,
			  NULL, log->password);
}

/*
 * Take @n consecutive sequence numbers and @size bytes of the data LMR for
 * them, in one fetch-and-add.
 */
static int llog_reserve(struct llog *log, unsigned int n, uint64_t size,
			uint64_t *seq, uint64_t *off)
{
	uint64_t tail, reserved, i;
	int ret;

	/*
	 * Near full, look before taking numbers: appends to a full log must
	 * not go on adding to the tail, whose number field would wrap.
	 * Elsewhere the one fetch-and-add is the whole reservation.
	 */
	if (__atomic_load_n(&log->seen, __ATOMIC_RELAXED) + LLOG_FULL_MARGIN >=
	    log->records) {
		ret = llog_reserved(log, &reserved);
		if (ret < 0)
			return ret;
		if (reserved + n > log->records)
			return -ENOSPC;
	}
	ret = lite_fetch_add(log->meta, LLOG_TAIL_OFF,
			     (uint64_t)n << LLOG_SEQ_SHIFT | size, &tail,
			     log->password);
	if (ret < 0)
		return ret;
	*seq = tail >> LLOG_SEQ_SHIFT;
	*off = tail & LLOG_BYTES_MASK;
	if (*seq + n - 1 > __atomic_load_n(&log->seen, __ATOMIC_RELAXED))
		__atomic_store_n(&log->seen, *seq + n - 1, __ATOMIC_RELAXED);
	if (*seq + n > log->records || *off + size > log->data_bytes) {
		/* Numbers past the index have no entry to give up. */
		for (i = *seq; i < *seq + n && i < log->records; i++)
			llog_skip(log, i);
		return -ENOSPC;
	}
	return 0;
}

int llog_reserve_only(struct llog *log, uint32_t len, uint64_t *seq)
{
	uint64_t off;

	return llog_reserve(log, 1, llog_rec_size(len), seq, &off);
}

int llog_commit_only(struct llog *log, uint32_t len, uint64_t *seq)
{
	uint64_t off;
	int ret;

	if (!len || len > LLOG_MAX_RECORD)
		return -EINVAL;
	ret = llog_reserve(log, 1, llog_rec_size(len), seq, &off);
	if (ret < 0)
		return ret;
	return lite_compare_swap(log->meta, llog_index_off(*seq), 0,
				 llog_entry(off, len), NULL, log->password);
}

/* One record of an append, from its reservation to its write's completion. */
struct llog_pend {
	struct llog_hdr	*rec;		/* header and payload, as written */
	uint64_t	size;		/* of *rec, 8-aligned */
	uint64_t	seq, off;
	int		status;		/* of the posted write, once done */
	bool		posted, done, committed;
};

/*
 * Completions go to the process, not to the thread that posted: one thread
 * at a time polls, for every thread, and hands each completion to its
 * record (the id is its struct llog_pend).
 */
static pthread_mutex_t llog_cq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t llog_cq_cond = PTHREAD_COND_INITIALIZER;
static bool llog_cq_polling;

/*
 * Wait until @p's write has completed (its status then in @p->status);
 * with @p NULL, for one round of polling (to make room for more posts).
 * 0, or a negative errno from lite_poll: then @p may still complete later.
 */
static int llog_reap(struct llog_pend *p)
{
	struct lite_completion c[LLOG_REAP];
	struct llog_pend *q;
	int n, i, ret = 0;

	pthread_mutex_lock(&llog_cq_lock);
	while (!p || !p->done) {
		if (llog_cq_polling) {
			pthread_cond_wait(&llog_cq_cond, &llog_cq_lock);
			if (!p)
				break;
			continue;
		}
		llog_cq_polling = true;
		pthread_mutex_unlock(&llog_cq_lock);
		n = lite_poll(c, LLOG_REAP, LLOG_REAP_MS);
		pthread_mutex_lock(&llog_cq_lock);
		llog_cq_polling = false;
		for (i = 0; i < n; i++) {
			q = (struct llog_pend *)(uintptr_t)c[i].id;
			q->status = c[i].status;
			q->done = true;
		}
		pthread_cond_broadcast(&llog_cq_cond);
		if (n < 0 && n != -EINTR) {
			ret = n;
			break;
		}
		if (!p)
			break;
	}
	if (p && p->done)
		p->done = false;	/* for its next post */
	pthread_mutex_unlock(&llog_cq_lock);
	return ret;
}

/* Post @p's write; the data is copied at once, the completion comes later. */
static int llog_post(struct llog *log, struct llog_pend *p)
{
	int ret;

	for (;;) {
		ret = lite_post_write(log->data, p->off, p->rec, p->size,
				      log->password, (uintptr_t)p);
		if (ret != -EAGAIN)
			break;
		/* This process has too much in flight: let some of it land. */
		ret = llog_reap(NULL);
		if (ret < 0)
			break;
	}
	p->posted = ret >= 0;
	return ret;
}

/*
 * One attempt at the @n records of @p: reserve, post every write, commit
 * each, wait for the writes. Records whose number a reader gave up before
 * our swap stay !committed, for the next attempt. 0 or a negative errno;
 * either way nothing of @p is in flight any more, unless lite_poll failed
 * (then *@keep: the memory of @p must stay).
 */
static int llog_attempt(struct llog *log, struct llog_pend **p,
			unsigned int n, bool *keep)
{
	uint64_t seq, off, size = 0, old, t = llog_now_ns();
	unsigned int i, tried;
	int ret, err;

	for (i = 0; i < n; i++)
		size += p[i]->size;
	ret = llog_reserve(log, n, size, &seq, &off);
	if (ret < 0)
		return ret;
	llog_phase(log, LLOG_PHASE_RESERVE, &t);
	for (i = 0; i < n; i++) {
		p[i]->seq = seq + i;
		p[i]->off = off;
		p[i]->rec->seq = seq + i;
		off += p[i]->size;
	}
	for (i = 0; i < n && ret >= 0; i++)
		ret = llog_post(log, p[i]);
	llog_phase(log, LLOG_PHASE_WRITE, &t);
	/* The swaps go while the writes are on their way: no order between. */
	for (tried = 0; tried < n && ret >= 0; tried++) {
		ret = lite_compare_swap(log->meta, llog_index_off(p[tried]->seq),
					0, llog_entry(p[tried]->off,
						      p[tried]->rec->len),
					&old, log->password);
		p[tried]->committed = ret >= 0 && !old;
	}
	/*
	 * After a failure, give up the numbers nobody will commit, the one
	 * whose swap failed too (if that swap did happen, this one fails).
	 */
	for (i = tried ? tried - 1 : 0; ret < 0 && i < n; i++)
		if (!p[i]->committed)
			llog_skip(log, p[i]->seq);
	llog_phase(log, LLOG_PHASE_COMMIT, &t);
	for (i = 0; i < n; i++) {
		if (!p[i]->posted)
			continue;
		err = llog_reap(p[i]);
		if (err < 0) {
			/* Not known to be written: not acknowledged. */
			for (; i < n; i++)
				p[i]->committed = false;
			*keep = true;
			return err;
		}
		p[i]->posted = false;
		/* Committed, but its bytes may never land: not acknowledged. */
		if (p[i]->status < 0) {
			p[i]->committed = false;
			if (ret >= 0)
				ret = p[i]->status;
		}
	}
	llog_phase(log, LLOG_PHASE_WRITE, &t);
	__atomic_fetch_add(&log->phase_n, tried, __ATOMIC_RELAXED);
	return ret < 0 ? ret : 0;
}

int llog_append_many(struct llog *log, const struct llog_rec *recs,
		     unsigned int n, uint64_t *seq)
{
	struct llog_pend *pend, *uncommitted[LLOG_MAX_BATCH];
	unsigned int i, left;
	bool keep = false;
	int ret = 0;

	if (!n || n > LLOG_MAX_BATCH)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		seq[i] = UINT64_MAX;
		if (!recs[i].len || recs[i].len > LLOG_MAX_RECORD)
			return -EINVAL;
	}
	pend = calloc(n, sizeof(*pend));
	for (i = 0; pend && i < n; i++) {
		pend[i].size = llog_rec_size(recs[i].len);
		pend[i].rec = calloc(1, pend[i].size);
		if (!pend[i].rec)
			break;
		memcpy(pend[i].rec + 1, recs[i].buf, recs[i].len);
		*pend[i].rec = (struct llog_hdr) {
			.magic = LLOG_MAGIC, .len = recs[i].len,
			.crc = llog_crc(recs[i].buf, recs[i].len),
		};
		uncommitted[i] = &pend[i];
	}
	if (!pend || i < n) {
		ret = -ENOMEM;
		goto out;
	}
	for (left = n; left && !ret;) {
		ret = llog_attempt(log, uncommitted, left, &keep);
		/* A reader gave some numbers up while we wrote: append again. */
		for (i = 0, left = 0; i < n; i++)
			if (!pend[i].committed)
				uncommitted[left++] = &pend[i];
	}
	for (i = 0; i < n; i++)
		if (pend[i].committed)
			seq[i] = pend[i].seq;
out:
	/* The completions of a failed lite_poll may come yet: they point here. */
	for (i = 0; pend && !keep && i < n; i++)
		free(pend[i].rec);
	if (!keep)
		free(pend);
	return ret;
}

int llog_load_append(void *log, const void *recs, uint32_t len,
		     unsigned int n)
{
	struct llog_rec r[LLOG_MAX_BATCH];
	uint64_t seq[LLOG_MAX_BATCH];
	unsigned int i;

	if (n > LLOG_MAX_BATCH)
		return -EINVAL;
	for (i = 0; i < n; i++)
		r[i] = (struct llog_rec) {
			.buf = (const char *)recs + (size_t)i * len, .len = len,
		};
	return llog_append_many(log, r, n, seq);
}

int llog_append(struct llog *log, const void *buf, uint32_t len,
		uint64_t *seq)
{
	struct llog_rec rec = { .buf = buf, .len = len };

	return llog_append_many(log, &rec, 1, seq);
}

static uint64_t llog_now_ms(void)
{
	return llog_now_ns() / 1000000;
}

/* Until when a reader waits on a number it looks at now. */
static uint64_t llog_deadline(const struct llog *log)
{
	return llog_now_ms() + log->hole_ms;
}

static void llog_pause(void)
{
	struct timespec pause = { 0, LLOG_POLL_US * 1000 };

	nanosleep(&pause, NULL);
}

/*
 * Index entry @seq (reserved): wait until @deadline while it is 0, then
 * give the number up. Returns 0 with the entry, or a negative errno.
 */
static int llog_entry_wait(struct llog *log, uint64_t seq, uint64_t deadline,
			   uint64_t *e)
{
	int ret;

	for (;;) {
		ret = lite_read(log->meta, llog_index_off(seq), e, sizeof(*e),
				log->password, LITE_PRIO_NORMAL);
		if (ret < 0 || *e)
			return ret < 0 ? ret : 0;
		if (llog_now_ms() >= deadline)
			break;
		llog_pause();
	}
	ret = lite_compare_swap(log->meta, llog_index_off(seq), 0,
				LLOG_SKIPPED, e, log->password);
	if (ret < 0)
		return ret;
	if (!*e)	/* ours: the number is given up */
		*e = LLOG_SKIPPED;
	return 0;
}

/* An entry that points outside the data LMR (a bad record's, or not ours). */
static bool llog_entry_bad(const struct llog *log, uint64_t e)
{
	uint32_t len = llog_entry_len(e);

	return len > LLOG_MAX_RECORD ||
	       llog_entry_off(e) + llog_rec_size(len) > log->data_bytes;
}

/*
 * Check the record @e of @seq, read into @rec. Its bytes start zeroed and
 * are written once, so a record not landed yet has no magic, and one
 * landing as we read fails the length, number or CRC.
 */
static int llog_check(const struct llog_hdr *rec, uint64_t seq, uint64_t e)
{
	uint32_t len = llog_entry_len(e);

	if (rec->magic != LLOG_MAGIC || rec->len != len || rec->seq != seq ||
	    rec->crc != llog_crc(rec + 1, len))
		return -EBADMSG;
	return 0;
}

/*
 * Read the record of committed entry @e of @seq into @rec (room for it),
 * again and again until it passes its check or @deadline passes: its
 * write may land after the commit. 0, -EBADMSG (lost; then marked STALE,
 * so that later readers do not wait for it), or a negative errno.
 */
static int llog_rec_wait(struct llog *log, uint64_t seq, uint64_t e,
			 struct llog_hdr *rec, uint64_t deadline)
{
	uint64_t size = llog_rec_size(llog_entry_len(e));
	int ret;

	for (;;) {
		ret = lite_read(log->data, llog_entry_off(e), rec, size,
				log->password, LITE_PRIO_NORMAL);
		if (ret < 0)
			return ret;
		if (!llog_check(rec, seq, e))
			return 0;
		if (e & LLOG_STALE || llog_now_ms() >= deadline)
			break;
		llog_pause();
	}
	/* Only readers set STALE, and a record that lands still reads. */
	if (!(e & LLOG_STALE))
		lite_compare_swap(log->meta, llog_index_off(seq), e,
				  e | LLOG_STALE, NULL, log->password);
	return -EBADMSG;
}

int llog_read(struct llog *log, uint64_t seq, void *buf, uint32_t size)
{
	uint64_t reserved, e, deadline;
	struct llog_hdr *rec;
	uint32_t len;
	int ret;

	ret = llog_reserved(log, &reserved);
	if (ret < 0)
		return ret;
	if (seq >= reserved)
		return -EAGAIN;
	deadline = llog_deadline(log);
	ret = llog_entry_wait(log, seq, deadline, &e);
	if (ret < 0)
		return ret;
	if (e == LLOG_SKIPPED)
		return -ENOENT;
	len = llog_entry_len(e);
	if (llog_entry_bad(log, e))
		return -EBADMSG;
	if (len > size)
		return -EMSGSIZE;
	rec = malloc(llog_rec_size(len));
	if (!rec)
		return -ENOMEM;
	ret = llog_rec_wait(log, seq, e, rec, deadline);
	if (!ret) {
		memcpy(buf, rec + 1, len);
		ret = len;
	}
	free(rec);
	return ret;
}

#define LLOG_SCAN_ENTRIES	1024
#define LLOG_SCAN_WINDOW	(1U << 20)	/* > the largest record */

struct llog_window {
	uint8_t		*buf;
	uint64_t	off;		/* of buf[0] in the data LMR */
	uint64_t	len;
	uint64_t	end;		/* bytes reserved when the scan began */
};

/* The record at (@off, @size), read with what follows it if not at hand. */
static const struct llog_hdr *llog_window_get(struct llog *log,
					      struct llog_window *w,
					      uint64_t off, uint64_t size,
					      int *err)
{
	uint64_t len;

	*err = 0;
	if (off >= w->off && off + size <= w->off + w->len)
		return (const void *)(w->buf + (off - w->off));
	len = w->end > off ? w->end - off : 0;
	if (len > LLOG_SCAN_WINDOW)
		len = LLOG_SCAN_WINDOW;
	if (len < size)
		len = size;
	*err = lite_read(log->data, off, w->buf, len, log->password,
			 LITE_PRIO_NORMAL);
	if (*err < 0)
		return NULL;
	w->off = off;
	w->len = len;
	return (const void *)w->buf;
}

/*
 * Visit entry @e of @seq, read with its index piece: wait for it as
 * llog_read does, read its record through @w (or alone into @one, while
 * it lands) and hand it to @fn.
 */
static int llog_scan_one(struct llog *log, struct llog_window *w,
			 struct llog_hdr *one, uint64_t seq, uint64_t e,
			 llog_scan_fn fn, void *arg)
{
	const struct llog_hdr *rec;
	uint64_t deadline = 0;
	uint32_t len;
	int ret;

	if (!e) {
		deadline = llog_deadline(log);
		ret = llog_entry_wait(log, seq, deadline, &e);
		if (ret)
			return ret;
		w->len = 0;	/* committed just now */
	}
	if (e == LLOG_SKIPPED)
		return fn(arg, seq, NULL, 0);
	if (llog_entry_bad(log, e))
		return -EBADMSG;
	len = llog_entry_len(e);
	rec = llog_window_get(log, w, llog_entry_off(e), llog_rec_size(len),
			      &ret);
	if (!rec)
		return ret;
	if (llog_check(rec, seq, e)) {
		/* Still landing, and what follows it may be too. */
		w->len = 0;
		if (!deadline)
			deadline = llog_deadline(log);
		ret = llog_rec_wait(log, seq, e, one, deadline);
		if (ret == -EBADMSG)
			return fn(arg, seq, NULL, len);
		if (ret < 0)
			return ret;
		rec = one;
	}
	return fn(arg, seq, rec + 1, len);
}

int llog_scan(struct llog *log, uint64_t from, uint64_t to, llog_scan_fn fn,
	      void *arg)
{
	struct llog_window w = { .buf = malloc(LLOG_SCAN_WINDOW) };
	uint64_t *ent = malloc(LLOG_SCAN_ENTRIES * sizeof(*ent));
	struct llog_hdr *one = malloc(llog_rec_size(LLOG_MAX_RECORD));
	uint64_t tail, seq, n, i;
	int ret;

	ret = w.buf && ent && one ? 0 : -ENOMEM;
	if (!ret)
		ret = lite_read(log->meta, LLOG_TAIL_OFF, &tail, sizeof(tail),
				log->password, LITE_PRIO_NORMAL);
	if (ret < 0)
		goto out;
	w.end = tail & LLOG_BYTES_MASK;
	if (to > tail >> LLOG_SEQ_SHIFT)
		to = tail >> LLOG_SEQ_SHIFT;
	if (to > log->records)
		to = log->records;
	for (seq = from; seq < to && !ret; seq += n) {
		n = to - seq < LLOG_SCAN_ENTRIES ? to - seq : LLOG_SCAN_ENTRIES;
		ret = lite_read(log->meta, llog_index_off(seq), ent,
				n * sizeof(*ent), log->password,
				LITE_PRIO_NORMAL);
		if (ret < 0)
			break;
		/*
		 * Records read before this index piece may predate commits
		 * it shows: read them again, after it.
		 */
		w.len = 0;
		for (i = 0; i < n && !ret; i++)
			ret = llog_scan_one(log, &w, one, seq + i, ent[i], fn,
					    arg);
	}
out:
	free(one);
	free(ent);
	free(w.buf);
	return ret;
}
