/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What lite-log and redis-log share, so that both logs get the same load
 * and the same check: the records (each names its writer and is filled
 * from that name), the appending threads with their latency summary, and
 * the exactly-once check of a scan.
 */
#ifndef LOGLOAD_H
#define LOGLOAD_H

#include <stdint.h>

/* What every record starts with; the rest is filled from it. */
struct rec_id {
	uint32_t	node;
	uint32_t	thread;
	uint64_t	i;
};

#define REC_MIN_SIZE	sizeof(struct rec_id)

/* Print "PROG: WHAT: strerror(|err|)" and exit 1. */
void die(const char *what, int err);
/* @s as a number of 0..@max, or exit 1 naming @name. */
unsigned long arg_ul(const char *s, const char *name, unsigned long max);
uint64_t now_ns(void);

/*
 * @threads threads each open their handle (@open(@arg)), then, once all
 * have, append @records records of @size bytes through @append, @depth at
 * a time (the last group may be smaller), then the node prints one line:
 * appends=N size=B threads=T depth=D seconds=S per_sec=R lat_median_us=M
 * lat_p99_us=P. A record's latency is its group's: from handing the group
 * to @append to its return. Opening is not timed: seconds run from the
 * moment every thread may append to the last one's last append. With
 * @sync_nodes, the nodes start together: after opening, each node meets
 * the others at lite_barrier(@sync_nodes) (LITE's, whichever log is
 * loaded; it is outside the timed region). Exits 1 when an open, the
 * barrier or an append fails.
 */
#define LOAD_MAX_DEPTH	64
struct load {
	uint32_t	node;		/* this node, written into each record */
	unsigned long	threads;
	uint64_t	records;	/* per thread */
	uint32_t	size;
	unsigned int	depth;		/* 1 .. LOAD_MAX_DEPTH */
	unsigned int	sync_nodes;	/* 0: no start barrier */
	void		*arg;
	/* Each thread's handle; none: every thread uses @arg. */
	void		*(*open)(void *arg);	/* returns NULL: exit */
	/* @n records of @len bytes, one after the other at @recs. */
	int		(*append)(void *h, const void *recs, uint32_t len,
				  unsigned int n);
	void		(*close)(void *h);	/* optional */
};
void load_run(const struct load *l);
/*
 * THREADS RECORDS SIZE [NODES [DEPTH]] from @argv (NULL after the last)
 * into @l, at most @max_records records of at most @max_size bytes;
 * exits 1 on a bad one. NODES 0 is no start barrier; DEPTH defaults to 1.
 */
void load_args(struct load *l, char **argv, unsigned long max_records,
	       unsigned long max_size);

/* The exactly-once check of records from nodes 1..nodes. */
struct rec_check {
	uint32_t	nodes, threads, size;
	uint64_t	records;
	uint8_t		*seen;		/* per (node, thread, i) */
	uint64_t	found, holes;
};
/* NODES THREADS RECORDS SIZE from @argv into @c, as load_args. */
void rec_check_args(struct rec_check *c, char **argv,
		    unsigned long max_records, unsigned long max_size);
void rec_check_init(struct rec_check *c);
/* One record (@rec NULL: a hole): 0, or 1 after saying what is wrong. */
int rec_check_one(struct rec_check *c, uint64_t seq, const void *rec,
		  uint32_t len);
/* 0 when every expected record was found, else 1 after saying so. */
int rec_check_done(struct rec_check *c);

/*
 * A program's command: its name, its arguments as usage shows them, the
 * argc it takes (the program's name and the command's included) and what
 * runs it.
 */
struct log_cmd {
	const char	*name, *args;
	int		min_argc, max_argc;
	int		(*run)(char **argv);
};
/*
 * Run the command of @cmds (ended by a NULL name) that argv[1] names and
 * return its exit status; with no such command or another argc, print the
 * usage of them all and return 2.
 */
int log_cmd_run(const struct log_cmd *cmds, int argc, char **argv);

#endif /* LOGLOAD_H */
