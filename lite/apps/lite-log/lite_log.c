// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LITE-Log over liblite's public calls (lite.h): the layout and the rules
 * are in lite_log.h.
 */
#include <errno.h>
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
#define LLOG_LEN_BITS		24
#define LLOG_POLL_US		200	/* between looks at a pending entry */

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
	return ((e >> LLOG_LEN_BITS) - 1) * 8;
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

/* Take a sequence number and @size bytes of the data LMR for them. */
static int llog_reserve(struct llog *log, uint64_t size, uint64_t *seq,
			uint64_t *off)
{
	uint64_t tail, reserved;
	int ret;

	/*
	 * Near full, look before taking a number: appends to a full log must
	 * not go on adding to the tail, whose number field would wrap.
	 * Elsewhere the one fetch-and-add is the whole reservation.
	 */
	if (__atomic_load_n(&log->seen, __ATOMIC_RELAXED) + LLOG_FULL_MARGIN >=
	    log->records) {
		ret = llog_reserved(log, &reserved);
		if (ret < 0)
			return ret;
		if (reserved >= log->records)
			return -ENOSPC;
	}
	ret = lite_fetch_add(log->meta, LLOG_TAIL_OFF,
			     1ULL << LLOG_SEQ_SHIFT | size, &tail,
			     log->password);
	if (ret < 0)
		return ret;
	*seq = tail >> LLOG_SEQ_SHIFT;
	*off = tail & LLOG_BYTES_MASK;
	if (*seq > __atomic_load_n(&log->seen, __ATOMIC_RELAXED))
		__atomic_store_n(&log->seen, *seq, __ATOMIC_RELAXED);
	if (*seq >= log->records)
		return -ENOSPC;
	if (*off + size > log->data_bytes) {
		llog_skip(log, *seq);
		return -ENOSPC;
	}
	return 0;
}

int llog_reserve_only(struct llog *log, uint32_t len, uint64_t *seq)
{
	uint64_t off;

	return llog_reserve(log, llog_rec_size(len), seq, &off);
}

int llog_append(struct llog *log, const void *buf, uint32_t len,
		uint64_t *seq)
{
	uint64_t size = llog_rec_size(len), off, old, t;
	struct llog_hdr *rec;
	int ret;

	if (!len || len > LLOG_MAX_RECORD)
		return -EINVAL;
	rec = calloc(1, size);
	if (!rec)
		return -ENOMEM;
	memcpy(rec + 1, buf, len);
	*rec = (struct llog_hdr) {
		.magic = LLOG_MAGIC, .len = len, .crc = llog_crc(buf, len),
	};
	for (;;) {
		t = llog_now_ns();
		ret = llog_reserve(log, size, seq, &off);
		if (ret < 0)
			break;
		llog_phase(log, LLOG_PHASE_RESERVE, &t);
		rec->seq = *seq;
		ret = lite_write(log->data, off, rec, size, log->password,
				 LITE_PRIO_NORMAL);
		if (ret < 0) {
			llog_skip(log, *seq);
			break;
		}
		llog_phase(log, LLOG_PHASE_WRITE, &t);
		ret = lite_compare_swap(log->meta, llog_index_off(*seq), 0,
					llog_entry(off, len), &old,
					log->password);
		if (ret < 0)
			break;
		llog_phase(log, LLOG_PHASE_COMMIT, &t);
		__atomic_fetch_add(&log->phase_n, 1, __ATOMIC_RELAXED);
		if (!old)
			break;
		/* A reader gave our number up while we wrote: append again. */
	}
	free(rec);
	return ret < 0 ? ret : 0;
}

static uint64_t llog_now_ms(void)
{
	return llog_now_ns() / 1000000;
}

/*
 * Index entry @seq (reserved): wait up to hole_ms while it is 0, then give
 * the number up. Returns 0 with the entry, or a negative errno.
 */
static int llog_entry_wait(struct llog *log, uint64_t seq, uint64_t *e)
{
	uint64_t deadline = llog_now_ms() + log->hole_ms;
	struct timespec pause = { 0, LLOG_POLL_US * 1000 };
	int ret;

	for (;;) {
		ret = lite_read(log->meta, llog_index_off(seq), e, sizeof(*e),
				log->password, LITE_PRIO_NORMAL);
		if (ret < 0 || *e)
			return ret < 0 ? ret : 0;
		if (llog_now_ms() >= deadline)
			break;
		nanosleep(&pause, NULL);
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

/* Check the record @e of @seq, read into @rec. */
static int llog_check(const struct llog_hdr *rec, uint64_t seq, uint64_t e)
{
	uint32_t len = llog_entry_len(e);

	if (rec->magic != LLOG_MAGIC || rec->len != len || rec->seq != seq ||
	    rec->crc != llog_crc(rec + 1, len))
		return -EBADMSG;
	return 0;
}

int llog_read(struct llog *log, uint64_t seq, void *buf, uint32_t size)
{
	uint64_t reserved, e, off;
	struct llog_hdr *rec;
	uint32_t len;
	int ret;

	ret = llog_reserved(log, &reserved);
	if (ret < 0)
		return ret;
	if (seq >= reserved)
		return -EAGAIN;
	ret = llog_entry_wait(log, seq, &e);
	if (ret < 0)
		return ret;
	if (e == LLOG_SKIPPED)
		return -ENOENT;
	len = llog_entry_len(e);
	off = llog_entry_off(e);
	if (llog_entry_bad(log, e))
		return -EBADMSG;
	if (len > size)
		return -EMSGSIZE;
	rec = malloc(llog_rec_size(len));
	if (!rec)
		return -ENOMEM;
	ret = lite_read(log->data, off, rec, llog_rec_size(len), log->password,
			LITE_PRIO_NORMAL);
	if (ret >= 0)
		ret = llog_check(rec, seq, e);
	if (ret >= 0) {
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

int llog_scan(struct llog *log, uint64_t from, uint64_t to, llog_scan_fn fn,
	      void *arg)
{
	struct llog_window w = { .buf = malloc(LLOG_SCAN_WINDOW) };
	uint64_t *ent = malloc(LLOG_SCAN_ENTRIES * sizeof(*ent));
	const struct llog_hdr *rec;
	uint64_t tail, seq, e, off, n, i;
	uint32_t len;
	int ret;

	ret = w.buf && ent ? 0 : -ENOMEM;
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
		for (ret = 0, i = 0; i < n && !ret; i++) {
			e = ent[i];
			if (!e) {
				ret = llog_entry_wait(log, seq + i, &e);
				w.len = 0;	/* committed just now */
			}
			if (ret)
				break;
			if (e == LLOG_SKIPPED) {
				ret = fn(arg, seq + i, NULL, 0);
				continue;
			}
			if (llog_entry_bad(log, e)) {
				ret = -EBADMSG;
				break;
			}
			len = llog_entry_len(e);
			off = llog_entry_off(e);
			rec = llog_window_get(log, &w, off, llog_rec_size(len),
					      &ret);
			if (!rec)
				break;
			ret = llog_check(rec, seq + i, e);
			if (!ret)
				ret = fn(arg, seq + i, rec + 1, len);
		}
	}
out:
	free(ent);
	free(w.buf);
	return ret;
}
