/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parts of ioctl_stress share (ioctl_stress.c says what it does
 * and where each part is): the limits of the run, its state, and the
 * functions one part calls in another.
 */
#ifndef LITE_TESTS_IOCTL_STRESS_H
#define LITE_TESTS_IOCTL_STRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../include/uapi/lite.h"
#include "check.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)
#define PAGE			4096ULL
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define NR_FDS			4	/* open files of /dev/lite */
#define MAX_PEERS		16
#define MAX_HANDLES		48
#define MAX_PUBS		16
#define MAX_PORTS		8
#define MAX_DESCS		16
#define MAX_LOCKS		16
#define MAX_MAPS		8
#define MAX_KIDS		2
#define MAX_REPORTS		100	/* unexpected results printed */

#define ARENA_SIZE		(4 * MiB)	/* scratch, mapped for good */
#define ARENA_ROOM		(2 * MiB)	/* room after each pointer */
#define RO_SIZE			(32 * MiB)	/* read-only zeros */
#define GUARD_SIZE		(64 * MiB)	/* PROT_NONE, after the edge */
#define MAP_MAX			(1 * MiB)	/* largest map of ours */
#define LMR_MAX			(1 * MiB)	/* largest LMR it allocates */
#define MSG_MAX			(64 * KiB)	/* largest port it registers */
#define PORT_BASE		48	/* every run registers these ports */
#define NR_PORTS		8
#define IDENT_BASE		0x57e5500000000000ULL
#define NR_IDENTS		32
#define CHILD_MS		2000	/* a child starts no op after this */
#define CHILD_OPS		64
#define KID_KILL_MS		120000	/* a child still running is killed */
#define KID_GONE_MS		60000	/* ... and given up on after this */
#define KERNEL_PTR		0xffff888000000000ULL
#define NONCANON_PTR		0x0000800000000000ULL

struct handle {
	bool		used;
	bool		old;	/* inherited by a child: not its to drop */
	int		slot;	/* the open file that got it */
	uint32_t	lh;
	uint32_t	node;
	uint32_t	perm;
	int32_t		pw;
	uint64_t	size;
};

struct pub {
	bool		used;
	uint64_t	ident;
	uint32_t	node;	/* the owner, where it is published */
	uint32_t	perm;
	int32_t		pw;
	uint64_t	size;
};

struct port {
	bool		used;
	int		slot;
	uint32_t	port;
};

struct desc {
	bool		used;
	int		slot;
	uint64_t	desc;
};

struct lock {
	bool		used;
	bool		old;
	uint32_t	node;
	uint32_t	id;
};

struct map {
	bool		used;
	bool		zc;	/* a zero-copy buffer of /dev/lite */
	bool		ro;	/* mapped PROT_READ */
	bool		inherit;	/* a forked child has it too */
	uint8_t		*addr;
	size_t		len;
};

struct kid {
	pid_t		pid;	/* 0: none */
	bool		killed;
	uint64_t	start_ms;
};

/* A handle to use: maybe from the table, maybe on another file, made up. */
struct target {
	int		slot;
	uint32_t	lh;
	uint32_t	node;
	uint32_t	perm;
	int32_t		pw;
	uint64_t	size;
};

/* The run: what it holds, where, and its counts. */
struct stress {
	struct rng	r;
	bool		child;
	bool		root;
	int		fds[NR_FDS];
	uint32_t	me;
	uint32_t	peers[MAX_PEERS];
	unsigned int	nr_peers;
	struct handle	h[MAX_HANDLES];
	struct pub	pubs[MAX_PUBS];
	struct port	ports[MAX_PORTS];
	struct desc	descs[MAX_DESCS];
	struct lock	locks[MAX_LOCKS];
	struct map	maps[MAX_MAPS];
	struct kid	kids[MAX_KIDS];
	uint8_t		*arena;
	uint8_t		*ro;
	uint8_t		*ro_arg;	/* a page, read-only but when filled */
	uint8_t		*edge;		/* one RW page, the guard right after */
	uint8_t		*guard;
	uint64_t	stale;		/* just unmapped: the next buffer */
	uint64_t	stale_len;
	uint64_t	cookie;
	unsigned long	ops, forks, closes, maps_done, unexpected;
	unsigned int	reports;
};

extern struct stress st;

/* ioctl_stress_util.c */
uint64_t rnd(uint64_t n);
uint64_t rnd64(void);
bool chance(unsigned int pct);
uint64_t min_u64(uint64_t a, uint64_t b);
uint64_t now_ms(void);
void nap_ms(unsigned int ms);
void on_alarm(int sig);
void set_timer(unsigned int ms);
void say(const char *fmt, ...) CHECK_FMT(1, 2);
void unexpected(const char *fmt, ...) CHECK_FMT(1, 2);
int pick_used(const void *tab, size_t stride, unsigned int n);
int pick_unused(const void *tab, size_t stride, unsigned int n);
unsigned int ioc_nr(unsigned long cmd);
const char *ioc_name(unsigned long cmd);
bool errno_ok(int err);
void check_mm(const char *what, int err);
void check_result(unsigned long cmd, bool faults, bool ro, int ret, int err);
uint64_t fault_addr_high(void);
int lite_ioctl(int fd, unsigned long cmd, void *arg);
/* 1..30 for a LITE_IOC_*: ioc_cmds[_IOC_NR(cmd)] == cmd. */
extern const unsigned long ioc_cmds[_IOC_NR(LITE_IOC_MCALL) + 1];

#define PICK(tab)	pick_used(tab, sizeof((tab)[0]), ARRAY_SIZE(tab))
#define UNUSED(tab)	pick_unused(tab, sizeof((tab)[0]), ARRAY_SIZE(tab))

/* ioctl_stress_args.c */
int pick_slot(void);
uint32_t pick_node(void);
uint32_t pick_port(void);
uint32_t pick_prio(void);
uint32_t pick_reserved(void);
int32_t pick_pw(int32_t pw);
uint32_t pick_perm(uint32_t have);
uint64_t pick_ident(void);
uint64_t pick_off(uint64_t size);
uint64_t pick_len(uint64_t size, uint64_t off);
unsigned int pick_count_edges(unsigned int n, uint32_t limit, uint32_t *v);
uint32_t pick_msg_size(void);
struct map *pick_map(void);
uint64_t fault_addr(void);
uint64_t bad_addr(bool write);
uint64_t dst_addr(uint64_t len, bool lasting);
uint64_t src_addr(uint64_t len);
void add_handle(int slot, uint32_t lh, uint32_t node, uint64_t size,
		int32_t pw, uint32_t perm);
void drop_handle(int slot, uint32_t lh);
void forget_slot(int slot);
void add_pub(uint64_t ident, const struct target *t, uint32_t perm, int32_t pw);
void add_port(int slot, uint32_t port);
void add_desc(int slot, uint64_t desc);
bool pick_target(struct target *t, uint32_t want_perm);
bool pick_handle(struct target *t, uint32_t want_perm, uint32_t *handle);

/* ioctl_stress_lmr.c */
void lite_unmap_handle(int slot, uint32_t lh);
void op_alloc(void);
void op_free(unsigned long cmd);
void op_rw(unsigned long cmd);
void op_memset(void);
void op_memcpy(unsigned long cmd);
void op_publish(void);
void op_ask(void);
void op_lmr_info(void);
void op_atomic(void);
void op_post(void);
void op_poll(void);

/* ioctl_stress_rpc.c */
void op_register(void);
void op_query_port(void);
void op_call(unsigned long cmd);
void op_mcall(void);
void op_reply(void);
void op_recv(unsigned long cmd);

/* ioctl_stress_cluster.c */
void op_cluster(void);
void op_join(void);
void lock_destroy(int slot, struct lock *l);
void op_lock_create(void);
void op_lock(unsigned long cmd);
void op_barrier(void);
void op_unknown(void);

/* ioctl_stress_proc.c */
int dev_open(void);
void act_reopen(void);
void act_fork(void);
void reap_kids(void);
void act_stop_cont(void);
void act_timer(void);
void map_forget(struct map *m);
void act_map(void);

/* ioctl_stress.c */
void child_main(uint64_t seed) __attribute__((noreturn));

#endif /* LITE_TESTS_IOCTL_STRESS_H */
