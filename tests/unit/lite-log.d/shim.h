/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A one-process stand-in for liblite, for LITE-Log's unit test: LMRs are
 * calloc'ed memory, atomics are the CPU's, and a posted write lands late,
 * in pieces and in any order (as RDMA on several queue pairs may), after
 * the compare-and-swap that follows it.
 */
#ifndef SHIM_H
#define SHIM_H

/* Every posted write waits 0 .. @us microseconds before it lands. */
void shim_delay_max(unsigned int us);
/* The next posted write waits @us microseconds before it lands. */
void shim_delay_next(unsigned int us);
/* The next posted write never lands and completes with @err. */
void shim_fail_next(int err);
/* Reads that overlapped a posted write not landed yet. */
unsigned long shim_raced_reads(void);
/* Posts refused with -EAGAIN (too much in flight). */
unsigned long shim_full_posts(void);

#endif /* SHIM_H */
