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
 *                                 record's (offset / 8 + 1) << 24 | length,
 *                                 with bit 62 (STALE) once a reader gave
 *                                 up waiting for its bytes
 *
 * Append, two dependent steps: one fetch-and-add on the tail reserves a
 * sequence number and the record's bytes at once; then the record is
 * posted (an RDMA write not waited for) and index[seq] swapped from 0 to
 * the record's entry, which commits it, both in flight together; the
 * append returns once the write has completed too. The record carries its
 * own validity (magic, its sequence number, CRC-32C of the payload): LITE
 * may send the write and the swap on different queue pairs, so a reader
 * can find an entry committed before the record's bytes have landed.
 *
 * Holes. A client that dies between the reservation and the swap leaves
 * index[seq] at 0. A reader waits for such an entry at most hole_ms (set
 * when opening), then swaps it from 0 to SKIPPED itself: the sequence
 * number is then empty for every reader, and the late appender, whose
 * swap fails, appends its record again under a new number.
 *
 * Records in flight. A reader that finds an entry committed but the record
 * failing its check reads it again until it passes, within the same
 * hole_ms (counted from the reader's first look at the number). Past that
 * it reports the record lost (llog_read: -EBADMSG) and sets STALE, so
 * that later readers do not wait for it again; STALE never hides a record
 * whose bytes did land. An append returns 0 only after its write
 * completed, so a read that starts after it returned finds the record;
 * only a client that dies (or a write that fails) after the swap leaves a
 * number whose record never arrives, and that append did not return 0.
 * Either way each acknowledged append is in the log exactly once, no
 * reader returns a record that fails its check (a torn one does, but for
 * CRC-32C's one chance in 2^32), and no reader blocks for longer than
 * hole_ms on one number.
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
#define LLOG_MAX_BATCH		64	/* records per llog_append_many */

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
 * goes to @seq (UINT64_MAX on failure). 0, or a negative errno: -ENOSPC
 * when the log is full, or what LITE returned. A failed append may still
 * be in the log (a swap or write whose completion failed may have
 * happened), or be a number readers report lost.
 *
 * LITE-Log reaps the completions of its process (lite_poll): a program
 * that appends must not post or poll LITE operations of its own.
 */
int llog_append(struct llog *log, const void *buf, uint32_t len,
		uint64_t *seq);

/*
 * Append @n (1 .. LLOG_MAX_BATCH) records at once, all in flight
 * together: one fetch-and-add reserves @n consecutive numbers, the @n
 * writes are posted, then the @n entries swapped. Each record is committed
 * on its own, as by llog_append: one whose number a reader gave up goes
 * again under a later number, after the others. The k-th swap comes k
 * round trips after the numbers were taken: readers whose hole_ms is
 * shorter than that give numbers up, and their records go again. The
 * numbers go to @seq; on failure, UINT64_MAX for the records not known to
 * be in the log.
 */
struct llog_rec {
	const void	*buf;
	uint32_t	len;		/* 1 .. LLOG_MAX_RECORD */
};
int llog_append_many(struct llog *log, const struct llog_rec *recs,
		     unsigned int n, uint64_t *seq);
/*
 * logload's append (struct load's @append, with @arg the struct llog every
 * thread shares): the @n records of @len bytes at @recs in one
 * llog_append_many().
 */
int llog_load_append(void *log, const void *recs, uint32_t len,
		     unsigned int n);

/*
 * Where appends spent their time: the mean per attempt of each phase, in
 * ms, over the attempts that reached the commit (@n; an attempt whose
 * number a reader gave up counts, then its append's retry). Reserve: the
 * fetch-and-add. Commit: the compare-and-swap, the record's write in
 * flight. Write: posting the record, and after the commit waiting for its
 * write to complete (what of the write the commit did not hide). Records
 * appended together share their steps' time.
 */
enum { LLOG_PHASE_RESERVE, LLOG_PHASE_WRITE, LLOG_PHASE_COMMIT, LLOG_PHASES };
void llog_phases(const struct llog *log, double ms[LLOG_PHASES], uint64_t *n);

/*
 * Take a sequence number for a @len-byte record and stop there, as a client
 * that dies mid-append would: for tests of the hole rule.
 */
int llog_reserve_only(struct llog *log, uint32_t len, uint64_t *seq);

/*
 * Take a number and commit it without writing the record, as a client
 * that dies after its swap and before its record lands: for tests of the
 * lost-record rule.
 */
int llog_commit_only(struct llog *log, uint32_t len, uint64_t *seq);

/* How many sequence numbers are reserved (committed, pending or skipped). */
int llog_reserved(struct llog *log, uint64_t *records);

/*
 * Read record @seq into @buf (@size bytes). Returns its length, or
 * -ENOENT: a skipped sequence number (a hole), -EAGAIN: @seq not reserved
 * yet, -EMSGSIZE: @size too small, -EBADMSG: a committed record that
 * failed its check for hole_ms (lost: its appender died or its write
 * failed after the commit, or it is slower than hole_ms), or an entry
 * that points outside the data.
 */
int llog_read(struct llog *log, uint64_t seq, void *buf, uint32_t size);

/*
 * Visit records @from .. @to - 1 (at most those reserved when the scan
 * starts) in order, reading the index and the records in large pieces:
 * @fn gets each record's payload, or NULL and 0 for a skipped number, or
 * NULL and the record's length for a lost one (llog_read's -EBADMSG after
 * hole_ms), and stops the scan by returning non-zero (which llog_scan
 * returns). Holes and records in flight are waited for as by llog_read.
 * Returns 0, that value, or a negative errno (-EBADMSG: an entry that
 * points outside the data).
 */
typedef int (*llog_scan_fn)(void *arg, uint64_t seq, const void *rec,
			    uint32_t len);
int llog_scan(struct llog *log, uint64_t from, uint64_t to, llog_scan_fn fn,
	      void *arg);

#endif /* LITE_LOG_H */
