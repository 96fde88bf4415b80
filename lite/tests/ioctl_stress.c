// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioctl_stress: a bounded random sequence of raw /dev/lite ioctls, in the
 * spirit of syzkaller and trinity. Run by tests/debug/40-ioctl-stress as
 * an unprivileged user in group lite on every node of a joined cluster at
 * once (make test-debug: on the debug kernel, KASAN and lockdep).
 *
 *   ioctl_stress SECONDS SEED [PEER_NODE...]
 *
 * For SECONDS it issues every LITE_IOC_* on NR_FDS open files (JOIN only
 * now and then: without CAP_NET_ADMIN it must get EPERM), each choice
 * drawn from a generator seeded with SEED: mostly valid arguments (its
 * handles with their passwords, offsets inside its LMRs, this node's id
 * and the PEER_NODEs, the ports it registered, the descriptors it
 * received, its locks, real buffers), mixed with invalid ones (offsets
 * and lengths past the end, huge or wrapping u64, NULL, unmapped,
 * read-only, kernel and just-unmapped pointers, argument structs that
 * fault or straddle into a guard page, handles of another open file or
 * made up, wrong passwords, bad ports, priorities, flags and reserved
 * fields, unknown ioctl numbers with LITE's magic and known ones with the
 * wrong size or direction). In between, at random: close and reopen (or
 * dup) a file; fork a child that runs a short sequence on the inherited
 * files and _exits (reaped; SIGSTOP/SIGCONT now and then); mmap, munmap,
 * mremap, madvise and split zero-copy buffers of /dev/lite and plain
 * anonymous memory, used as buffers; change the period of a SIGALRM
 * interval timer whose empty handler (no SA_RESTART) interrupts blocking
 * calls with EINTR. Blocking calls are bounded by that timer, by
 * LITE_RECV_NONBLOCK and poll timeouts, and by the module's timeouts.
 *
 * Every ioctl must return 0 (MCALL: how many replied) or fail with an
 * errno LITE returns (errno_ok()); ENOTTY only for an unknown number,
 * EFAULT for an argument struct that faults, EPERM for JOIN. Anything
 * else prints "unexpected: IOCTL errno NAME (...)" and is counted; the
 * run goes on. The last line is
 *   stress: seconds=N seed=S ops=N forks=N closes=N maps=N unexpected=N
 * Exit status: 0 if nothing was unexpected, 1 otherwise, 2 on a usage or
 * setup error. The same SEED replays the same choices (what the kernel
 * answers, and so what follows, may still differ with timing).
 *
 * Its own memory is safe by construction: the kernel gets, for anything
 * it may write, either a buffer of ours with room for every byte, or an
 * address whose first byte faults (NULL, page 0, a PROT_NONE guard, a
 * read-only mapping, kernel and non-canonical addresses) or a scratch page
 * followed by the guard. A posted read is copied when reaped, maybe
 * later: it only ever gets memory that stays mapped for the whole run.
 *
 * The parts: ioctl_stress.c (this: the sequence, setup, the command
 * line), ioctl_stress.h (the run's state and tables, what the parts
 * share), ioctl_stress_util.c (the generator, output, the ioctls' errnos
 * and the check of every result), ioctl_stress_args.c (arguments, valid
 * and not, and the tables of what the run has), ioctl_stress_lmr.c,
 * ioctl_stress_rpc.c and ioctl_stress_cluster.c (the ioctls on LMRs, of
 * RPC, and of the cluster, its locks and barrier, and unknown numbers),
 * ioctl_stress_proc.c (open files, children, mappings).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ioctl_stress.h"

struct stress st;

/* ---- the sequence ---------------------------------------------------- */

/* One step: fn(), or fn_cmd(cmd) for an op that issues one of several ioctls. */
struct op {
	void		(*fn)(void);
	void		(*fn_cmd)(unsigned long cmd);
	unsigned long	cmd;
	unsigned int	weight;
	bool		parent_only;
};

#define OP(f, w)		{ .fn = f, .weight = w }
#define CMD_OP(f, c, w)		{ .fn_cmd = f, .cmd = LITE_IOC_##c, .weight = w }
#define PARENT_OP(f, w)		{ .fn = f, .weight = w, .parent_only = true }
static const struct op ops[] = {
	OP(op_cluster, 3), OP(op_join, 3), OP(op_alloc, 12),
	CMD_OP(op_free, FREE, 4), CMD_OP(op_free, UNMAP, 4),
	CMD_OP(op_rw, READ, 10), CMD_OP(op_rw, WRITE, 10), OP(op_memset, 4),
	CMD_OP(op_memcpy, MEMCPY, 3), CMD_OP(op_memcpy, MEMMOVE, 3),
	OP(op_publish, 5), OP(op_ask, 5), OP(op_lmr_info, 4),
	OP(op_register, 4), OP(op_query_port, 4), CMD_OP(op_call, CALL, 8),
	CMD_OP(op_call, SEND, 5), OP(op_mcall, 4), CMD_OP(op_recv, RECV, 10),
	OP(op_reply, 6), CMD_OP(op_recv, REPLY_RECV, 4), OP(op_atomic, 6),
	OP(op_lock_create, 3), CMD_OP(op_lock, LOCK_ASK, 2),
	CMD_OP(op_lock, LOCK, 3), CMD_OP(op_lock, UNLOCK, 3),
	CMD_OP(op_lock, LOCK_DESTROY, 3), OP(op_barrier, 2),
	OP(op_post, 10), OP(op_poll, 8), OP(op_unknown, 4),
	OP(act_reopen, 2), OP(act_timer, 1),
	PARENT_OP(act_fork, 1), PARENT_OP(act_stop_cont, 1),
	PARENT_OP(act_map, 5),
};

static void one_op(void)
{
	unsigned int total = 0, i;
	uint64_t x;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!st.child || !ops[i].parent_only)
			total += ops[i].weight;
	x = rnd(total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (st.child && ops[i].parent_only)
			continue;
		if (x < ops[i].weight) {
			if (ops[i].fn)
				ops[i].fn();
			else
				ops[i].fn_cmd(ops[i].cmd);
			return;
		}
		x -= ops[i].weight;
	}
}

/* What a child made: dropped before it goes, so that nothing piles up. */
static void child_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (st.h[i].used && !st.h[i].old && st.fds[st.h[i].slot] >= 0)
			lite_unmap_handle(st.h[i].slot, st.h[i].lh);
	for (i = 0; i < MAX_LOCKS; i++) {
		struct lite_ioc_lock a = { .node = st.locks[i].node,
					   .lock = st.locks[i].id };
		int slot = pick_slot();

		if (!st.locks[i].used || st.locks[i].old || slot < 0)
			continue;
		lite_ioctl(st.fds[slot], LITE_IOC_UNLOCK, &a);
		lock_destroy(slot, &st.locks[i]);
	}
}

/* A short sequence on the inherited files (maybe a new one), then _exit. */
void child_main(uint64_t seed)
{
	uint64_t deadline;
	unsigned int i, n;

	st.child = true;
	st.r.state = seed;
	st.unexpected = 0;
	st.reports = 0;
	memset(st.kids, 0, sizeof(st.kids));
	for (i = 0; i < MAX_MAPS; i++)
		if (!st.maps[i].inherit)
			map_forget(&st.maps[i]);
	for (i = 0; i < MAX_HANDLES; i++)
		st.h[i].old = true;
	for (i = 0; i < MAX_LOCKS; i++)
		st.locks[i].old = true;
	act_timer();	/* timers are not inherited */
	deadline = now_ms() + 1 + rnd(CHILD_MS);
	n = 1 + rnd(CHILD_OPS);
	while (n-- && now_ms() < deadline)
		one_op();
	child_cleanup();
	_exit(st.unexpected > 100 ? 100 : st.unexpected);
}

/* Let every child finish (they were stopped at most for a moment). */
static void wait_kids(void)
{
	unsigned int i;

	for (;;) {
		for (i = 0; i < MAX_KIDS && !st.kids[i].pid; i++)
			;
		if (i == MAX_KIDS)
			return;
		for (i = 0; i < MAX_KIDS; i++)
			if (st.kids[i].pid)
				kill(st.kids[i].pid, SIGCONT);
		reap_kids();
		nap_ms(10);
	}
}

/* The locks it created outlive its files: destroy them. */
static void cleanup(void)
{
	unsigned int i;
	int fd;

	wait_kids();
	for (i = 0; i < NR_FDS; i++) {
		if (st.fds[i] >= 0)
			close(st.fds[i]);
		st.fds[i] = -1;
	}
	fd = dev_open();
	for (i = 0; fd >= 0 && i < MAX_LOCKS; i++) {
		struct lite_ioc_lock a = { .node = st.locks[i].node,
					   .lock = st.locks[i].id };
		int ret;

		if (!st.locks[i].used)
			continue;
		ret = ioctl(fd, LITE_IOC_LOCK_DESTROY, &a);
		st.ops++;
		check_result(LITE_IOC_LOCK_DESTROY, false, false, ret, errno);
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < MAX_MAPS; i++)
		if (st.maps[i].used)
			munmap(st.maps[i].addr, st.maps[i].len);
}

/* ---- setup ----------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out, "usage: ioctl_stress SECONDS SEED [PEER_NODE...]\n");
}

static void *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "ioctl_stress: mmap %zu bytes: %s\n", len,
			strerror(errno));
		exit(2);
	}
	return p;
}

static void setup_memory(void)
{
	st.arena = map_or_die(ARENA_SIZE, PROT_READ | PROT_WRITE);
	st.ro = map_or_die(RO_SIZE, PROT_READ);
	st.ro_arg = map_or_die(PAGE, PROT_READ);
	st.edge = map_or_die(PAGE + GUARD_SIZE, PROT_NONE);
	st.guard = st.edge + PAGE;
	if (mprotect(st.edge, PAGE, PROT_READ | PROT_WRITE)) {
		perror("ioctl_stress: mprotect");
		exit(2);
	}
}

/* The open files, the node's id, the timer. */
static void setup_lite(void)
{
	struct lite_ioc_cluster c = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(ioc_cmds); i++) {
		if (_IOC_NR(ioc_cmds[i]) != i) {
			fprintf(stderr,
				"ioctl_stress: ioc_cmds[%u] is not number %u\n",
				i, i);
			exit(2);
		}
	}
	for (i = 0; i < NR_FDS; i++) {
		st.fds[i] = dev_open();
		if (st.fds[i] < 0) {
			perror("ioctl_stress: /dev/" LITE_DEV_NAME);
			exit(2);
		}
	}
	if (ioctl(st.fds[0], LITE_IOC_CLUSTER, &c) || !c.node_id) {
		fprintf(stderr, "ioctl_stress: this node has not joined\n");
		exit(2);
	}
	st.me = c.node_id;
	st.root = geteuid() == 0;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: blocking calls get EINTR */
	sigaction(SIGALRM, &sa, NULL);
	set_timer(30);
}

int main(int argc, char **argv)
{
	uint64_t secs, seed, end;
	int i;

	check_start("ioctl_stress", usage);
	if (argc < 3 || argc - 3 > MAX_PEERS) {
		usage(stderr);
		return 2;
	}
	secs = parse_num(argv[1], "SECONDS", 1, 7 * 24 * 3600);
	seed = parse_num(argv[2], "SEED", 0, UINT64_MAX);
	for (i = 3; i < argc; i++)
		st.peers[st.nr_peers++] = parse_num(argv[i], "PEER_NODE", 1,
						    63);
	st.r.state = seed;
	setup_memory();
	setup_lite();
	say("info ioctl_stress: node %u, %u peer(s), seed %llu, %llu s\n",
	    st.me, st.nr_peers, (unsigned long long)seed,
	    (unsigned long long)secs);
	end = now_ms() + secs * 1000;
	while (now_ms() < end) {
		one_op();
		reap_kids();
	}
	cleanup();
	set_timer(0);
	say("stress: seconds=%llu seed=%llu ops=%lu forks=%lu closes=%lu maps=%lu unexpected=%lu\n",
	    (unsigned long long)secs, (unsigned long long)seed, st.ops,
	    st.forks, st.closes, st.maps_done, st.unexpected);
	return st.unexpected ? 1 : 0;
}
