// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctls of the cluster: CLUSTER, JOIN (refused), the locks and the
 * barrier; and ioctl numbers with LITE's magic that LITE does not have.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "ioctl_stress.h"

void op_cluster(void)
{
	struct lite_ioc_cluster a = { 0 };
	int slot = pick_slot();

	if (slot < 0)
		return;
	if (chance(20))	/* out only: whatever was there before */
		rng_fill(&st.r, &a, sizeof(a));
	lite_ioctl(st.fds[slot], LITE_IOC_CLUSTER, &a);
}

/* Never for root: it could join (somewhere). Without the cap: EPERM. */
void op_join(void)
{
	struct lite_ioc_join a = { .port = 18500 };
	int slot = pick_slot();

	if (slot < 0 || st.root || !chance(10))
		return;
	snprintf(a.manager, sizeof(a.manager), "198.18.1.%u",
		 (unsigned int)rnd(4));
	if (chance(20))
		rng_fill(&st.r, &a, sizeof(a));
	lite_ioctl(st.fds[slot], LITE_IOC_JOIN, &a);
}

void lock_destroy(int slot, struct lock *l)
{
	struct lite_ioc_lock a = { .node = l->node, .lock = l->id };

	if (!lite_ioctl(st.fds[slot], LITE_IOC_LOCK_DESTROY, &a))
		l->used = false;
}

void op_lock_create(void)
{
	struct lite_ioc_lock a = { .node = pick_node(), .lock = rnd64() };
	int slot = pick_slot(), i = UNUSED(st.locks);

	if (slot < 0)
		return;
	if (i < 0) {	/* full: destroy one (unless it is busy) */
		i = rnd(MAX_LOCKS);
		lock_destroy(slot, &st.locks[i]);
		if (st.locks[i].used)
			return;
	}
	a.reserved[rnd(2)] = pick_reserved();
	if (!lite_ioctl(st.fds[slot], LITE_IOC_LOCK_CREATE, &a))
		st.locks[i] = (struct lock) {
			.used = true, .node = a.node, .id = a.lock,
		};
}

/* LOCK_ASK, LOCK, UNLOCK, LOCK_DESTROY: LOCK blocks until the timer. */
void op_lock(unsigned long cmd)
{
	struct lite_ioc_lock a = { 0 };
	int i = PICK(st.locks), slot = pick_slot();

	if (slot < 0)
		return;
	if (i >= 0 && chance(85)) {
		a.node = chance(95) ? st.locks[i].node : pick_node();
		a.lock = st.locks[i].id;
	} else {
		a.node = pick_node();
		a.lock = rnd(2) ? rnd(32) : (uint32_t)rnd64();
	}
	a.reserved[rnd(2)] = pick_reserved();
	if (!lite_ioctl(st.fds[slot], cmd, &a) && cmd == LITE_IOC_LOCK_DESTROY)
		for (i = 0; i < MAX_LOCKS; i++)
			if (st.locks[i].used && st.locks[i].node == a.node &&
			    st.locks[i].id == a.lock)
				st.locks[i].used = false;
}

void op_barrier(void)
{
	struct lite_ioc_barrier a = { .reserved = pick_reserved() };
	int slot = pick_slot();
	unsigned int c;

	if (slot < 0)
		return;
	c = pick_count_edges(10, 1024, &a.nr);
	if (c == 2)
		a.nr = 1 + rnd(1024);
	else if (c > 2)
		a.nr = 1 + rnd(st.nr_peers + 2);
	lite_ioctl(st.fds[slot], LITE_IOC_BARRIER, &a);
}

/* LITE's magic with an unknown number, or a known one of the wrong shape. */
static unsigned long unknown_cmd(void)
{
	unsigned long cmd;
	unsigned int nr;

	do {
		nr = 1 + rnd(ARRAY_SIZE(ioc_cmds) - 1);
		switch (rnd(4)) {
		case 0:
			cmd = _IOC(rnd(4), LITE_IOC_MAGIC,
				   rnd(2) ? 0 : 31 + rnd(225), rnd(256));
			break;
		case 1:	/* wrong size */
			cmd = _IOC(_IOC_DIR(ioc_cmds[nr]), LITE_IOC_MAGIC, nr,
				   (_IOC_SIZE(ioc_cmds[nr]) + 1 + rnd(64)) &
				   _IOC_SIZEMASK);
			break;
		case 2:	/* wrong direction */
			cmd = _IOC((_IOC_DIR(ioc_cmds[nr]) + 1 + rnd(3)) % 4,
				   LITE_IOC_MAGIC, nr, _IOC_SIZE(ioc_cmds[nr]));
			break;
		default:
			cmd = _IO(LITE_IOC_MAGIC, rnd(256));
		}
	} while (ioc_nr(cmd));
	return cmd;
}

void op_unknown(void)
{
	unsigned long cmd = unknown_cmd();
	int slot = pick_slot(), ret, err;
	uint64_t arg;

	if (slot < 0)
		return;
	arg = rnd(2) ? (uintptr_t)st.arena + rnd(PAGE) : bad_addr(true);
	ret = ioctl(st.fds[slot], cmd, (void *)(uintptr_t)arg);
	err = errno;
	st.ops++;
	check_result(cmd, false, false, ret, err);
}
