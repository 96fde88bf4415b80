/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * LITE-Log: a distributed shared log on two LMRs of one node (its home),
 * written by clients on any node with LITE's one-sided operations only.
 *
 * Layout. The meta LMR (atomic) holds the tail word and the index; the
 * data LMR holds the records, each a header and the payload, 8-aligned.
 *
 *   tail word (meta offset 0):  records reserved << 40 | data bytes reserved
 *   index[seq] (meta 64 + 8 seq): 0 (not yet), SKIPPED, or the committed
 *                                 record's (offset / 8 + 1) << 24 | length
 *
 * Append: one fetch-and-add on the tail reserves a sequence number and the
 * record's bytes at once; one RDMA write puts header and payload there;
 * one compare-and-swap of index[seq] from 0 publishes it. A record is in
 * the log exactly when that swap succeeded, so a reader that sees an index
 * entry finds the whole record behind it.
 *
 * Holes. A client that dies between the reservation and the swap leaves
 * index[seq] at 0. A reader waits for such an entry at most hole_ms (set
 * when opening), then swaps it from 0 to SKIPPED itself: the sequence
 * number is then empty for every reader, and the late appender, whose
 * swap fails, appends its record again under a new number. Either way each
 * acknowledged append is in the log exactly once and no reader blocks for
 * longer than hole_ms on one entry.
 */
#ifndef LITE_LOG_H
#define LITE_LOG_H

#include <stdint.h>

#define LLOG_MAX_RECORD		(64U << 10)	/* payload bytes */
#define LLOG_MAX_RECORDS	(1U << 24)	/* sequence numbers */
/*
 * Within this many numbers of its capacity, an append reads the tail
 * before taking a number (one more remote operation per append): give a
 * log's index that much room beyond the records it is meant to hold.
 */
#define LLOG_FULL_MARGIN	4096

struct llog;

/*
 * Create a log on this node (its home): room for @records records and
 * @data_bytes bytes of headers and payloads, published under @id and @id+1
 * with @password. The LMRs live as long as this process.
 */
struct llog *llog_create(uint64_t id, uint64_t data_bytes, uint32_t records,
			 int password);

/* Open the log @home published under @id; readers wait hole_ms for holes. */
struct llog *llog_open(unsigned int home, uint64_t id, int password,
		       unsigned int hole_ms);

void llog_close(struct llog *log);

/*
 * Append @len (1 .. LLOG_MAX_RECORD) bytes; the record's sequence number
 * goes to @seq. 0, or a negative errno: -ENOSPC when the log is full, or
 * what LITE returned.
 */
int llog_append(struct llog *log, const void *buf, uint32_t len,
		uint64_t *seq);

/*
 * Where appends spent their time: the mean per attempt of each phase
 * (LLOG_PHASE_*: reserving the number, writing the record, committing it),
 * in ms, over the attempts that reached the commit (@n; an attempt whose
 * number a reader gave up counts, then its append's retry).
 */
enum { LLOG_PHASE_RESERVE, LLOG_PHASE_WRITE, LLOG_PHASE_COMMIT, LLOG_PHASES };
void llog_phases(const struct llog *log, double ms[LLOG_PHASES], uint64_t *n);

/*
 * Take a sequence number for a @len-byte record and stop there, as a client
 * that dies mid-append would: for tests of the hole rule.
 */
int llog_reserve_only(struct llog *log, uint32_t len, uint64_t *seq);

/* How many sequence numbers are reserved (committed, pending or skipped). */
int llog_reserved(struct llog *log, uint64_t *records);

/*
 * Read record @seq into @buf (@size bytes). Returns its length, or
 * -ENOENT: a skipped sequence number (a hole), -EAGAIN: @seq not reserved
 * yet, -EMSGSIZE: @size too small, -EBADMSG: a record that fails its check.
 */
int llog_read(struct llog *log, uint64_t seq, void *buf, uint32_t size);

/*
 * Visit records @from .. @to - 1 (at most those reserved when the scan
 * starts) in order, reading the index and the records in large pieces:
 * @fn gets each record's payload, or NULL and 0 for a skipped number, and
 * stops the scan by returning non-zero (which llog_scan returns). Holes
 * are waited for as by llog_read. Returns 0, that value, or a negative
 * errno (-EBADMSG: a record that fails its check).
 */
typedef int (*llog_scan_fn)(void *arg, uint64_t seq, const void *rec,
			    uint32_t len);
int llog_scan(struct llog *log, uint64_t from, uint64_t to, llog_scan_fn fn,
	      void *arg);

#endif /* LITE_LOG_H */
