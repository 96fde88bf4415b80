// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctls on LMRs: ALLOC, FREE, UNMAP, READ, WRITE, MEMSET, MEMCPY,
 * MEMMOVE, PUBLISH, ASK, LMR_INFO, ATOMIC, POST and POLL.
 */
#define _GNU_SOURCE
#include <string.h>

#include "ioctl_stress.h"

/* ---- the ioctls ------------------------------------------------------ */

void lite_unmap_handle(int slot, uint32_t lh)
{
	struct lite_ioc_handle a = { .handle = lh };

	lite_ioctl(st.fds[slot], LITE_IOC_UNMAP, &a);
	drop_handle(slot, lh);
}

static uint64_t pick_alloc_size(void)
{
	switch (rnd(20)) {
	case 0:
		return 0;
	case 1:
		return LITE_LMR_MAX_SIZE + 1 + rnd(PAGE);
	case 2:
		return UINT64_MAX - rnd(2);
	case 3:
		return 1ULL << (31 + rnd(33));
	case 4:
		return LMR_MAX;
	case 5:
	case 6:
		return 1 + rnd(LMR_MAX);
	case 7:
		return 8;
	default:
		return rnd(2) ? 1 + rnd(4 * KiB) : PAGE * (1 + rnd(16));
	}
}

void op_alloc(void)
{
	struct lite_ioc_alloc a = {
		.node = pick_node(), .size = pick_alloc_size(),
		.password = (int32_t)rnd64(),
	};
	int slot = pick_slot();

	if (slot < 0)
		return;
	if (chance(25))
		a.flags = LITE_ALLOC_ATOMIC;
	if (chance(3))
		a.flags = 1U << rnd(32);
	if (chance(5))
		a.handle = rnd64();	/* out only */
	if (!lite_ioctl(st.fds[slot], LITE_IOC_ALLOC, &a))
		add_handle(slot, a.handle, a.node, a.size, a.password,
			   a.flags & LITE_ALLOC_ATOMIC ? LITE_PERM_ALL :
			   LITE_PERM_ALL & ~LITE_PERM_ATOMIC);
}

void op_free(unsigned long cmd)
{
	struct lite_ioc_handle a = { 0 };
	struct target t;

	if (!pick_handle(&t, 0, &a.handle))
		return;
	a.reserved = pick_reserved();
	if (!lite_ioctl(st.fds[t.slot], cmd, &a))
		drop_handle(t.slot, t.lh);
}

void op_rw(unsigned long cmd)
{
	bool write = cmd == LITE_IOC_WRITE;
	struct lite_ioc_rw a = { 0 };
	struct target t;

	if (!pick_handle(&t, write ? LITE_PERM_WRITE : LITE_PERM_READ,
			 &a.handle))
		return;
	a.password = pick_pw(t.pw);
	a.offset = pick_off(t.size);
	a.size = pick_len(t.size, a.offset);
	a.addr = write ? src_addr(a.size) : dst_addr(a.size, false);
	a.priority = pick_prio();
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], cmd, &a);
}

void op_memset(void)
{
	struct lite_ioc_memset a = { 0 };
	struct target t;

	if (!pick_handle(&t, LITE_PERM_WRITE, &a.handle))
		return;
	a.value = chance(95) ? rnd(256) : 256 + rnd(UINT32_MAX - 256);
	a.offset = pick_off(t.size);
	a.size = pick_len(t.size, a.offset);
	lite_ioctl(st.fds[t.slot], LITE_IOC_MEMSET, &a);
}

void op_memcpy(unsigned long cmd)
{
	struct lite_ioc_memcpy a = { 0 };
	struct target d, s;

	if (!pick_target(&d, LITE_PERM_WRITE) ||
	    !pick_target(&s, LITE_PERM_READ))
		return;
	a.dst = d.lh;
	a.src = chance(15) ? d.lh : s.lh;	/* overlap */
	a.dst_offset = pick_off(d.size);
	a.src_offset = pick_off(s.size);
	a.size = pick_len(min_u64(d.size, s.size),
			  rnd(2) ? a.dst_offset : a.src_offset);
	lite_ioctl(st.fds[d.slot], cmd, &a);
}

void op_publish(void)
{
	struct lite_ioc_publish a = { 0 };
	struct target t;

	if (!pick_handle(&t, LITE_PERM_SHARE, &a.handle))
		return;
	a.identifier = pick_ident();
	a.perm = pick_perm(t.perm);
	a.password = chance(70) ? t.pw : (int32_t)rnd64();
	a.reserved = pick_reserved();
	if (!lite_ioctl(st.fds[t.slot], LITE_IOC_PUBLISH, &a))
		add_pub(a.identifier, &t, a.perm, a.password);
}

void op_ask(void)
{
	struct lite_ioc_ask a = { 0 };
	int i = PICK(st.pubs), slot = pick_slot();
	uint64_t size = PAGE;

	if (slot < 0)
		return;
	if (i >= 0 && chance(80)) {
		a.node = chance(90) ? st.pubs[i].node : pick_node();
		a.identifier = st.pubs[i].ident;
		a.perm = pick_perm(st.pubs[i].perm);
		a.password = pick_pw(st.pubs[i].pw);
		size = st.pubs[i].size;
	} else {
		a.node = pick_node();
		a.identifier = pick_ident();
		a.perm = pick_perm(LITE_PERM_ALL);
		a.password = (int32_t)rnd64();
	}
	if (chance(5))
		a.handle = rnd64();	/* out only */
	if (!lite_ioctl(st.fds[slot], LITE_IOC_ASK, &a))
		add_handle(slot, a.handle, a.node, size, a.password, a.perm);
}

void op_lmr_info(void)
{
	struct lite_ioc_lmr_info a = { 0 };
	struct target t;

	if (!pick_target(&t, 0))
		return;
	rng_fill(&st.r, &a, sizeof(a));	/* the out fields: anything */
	a.handle = t.lh;
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], LITE_IOC_LMR_INFO, &a);
}

void op_atomic(void)
{
	struct lite_ioc_atomic a = { 0 };
	struct target t;

	if (!pick_handle(&t, LITE_PERM_ATOMIC, &a.handle))
		return;
	a.op = chance(92) ? 1 + rnd(3) : (rnd(2) ? 0 : 4 + rnd(UINT32_MAX - 4));
	a.offset = chance(80) && t.size >= 8 ? rnd(t.size / 8) * 8 :
					       pick_off(t.size);
	a.value = rnd(2) ? rnd(16) : rnd64();
	a.compare = rnd(2) ? rnd(16) : rnd64();
	a.old = rnd64();	/* out only */
	a.password = pick_pw(t.pw);
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], LITE_IOC_ATOMIC, &a);
}

void op_post(void)
{
	struct lite_ioc_post a = { 0 };
	struct target t;

	if (!pick_handle(&t, 0, &a.handle))
		return;
	a.op = chance(94) ? 1 + rnd(2) : (rnd(2) ? 0 : 3 + rnd(100));
	a.password = pick_pw(t.pw);
	a.offset = pick_off(t.size);
	a.size = chance(85) ? 1 + rnd(t.size > a.offset ?
				      min_u64(t.size - a.offset, 64 * KiB) :
				      PAGE) :
			      pick_len(t.size, a.offset);
	/* A read lands when reaped, by whoever reaps: lasting memory. */
	a.addr = a.op == LITE_POST_WRITE ? src_addr(a.size) :
					   dst_addr(a.size, true);
	a.id = ++st.cookie;
	a.reserved = pick_reserved();
	lite_ioctl(st.fds[t.slot], LITE_IOC_POST, &a);
}

static int32_t pick_timeout(void)
{
	switch (rnd(10)) {
	case 0:
		return -1;	/* until a signal: the timer */
	case 1:
		return INT32_MIN;
	case 2:
		return 100 + rnd(900);
	case 3:
	case 4:
		return 1 + rnd(20);
	default:
		return 0;
	}
}

static void poll_check(const struct lite_ioc_poll *a)
{
	struct lite_completion c;
	uint32_t i;

	if (a->nr > a->max) {
		unexpected("POLL nr %u > max %u", a->nr, a->max);
		return;
	}
	/* Only the arena is known readable here; maybe not aligned. */
	if (a->addr < (uintptr_t)st.arena ||
	    a->addr >= (uintptr_t)st.arena + ARENA_SIZE)
		return;
	for (i = 0; i < a->nr; i++) {
		memcpy(&c, (const void *)(uintptr_t)(a->addr + i * sizeof(c)),
		       sizeof(c));
		if (c.status > 0 || (c.status && !errno_ok(-c.status)))
			unexpected("POLL completion status errno %s",
				   errname(-c.status));
	}
}

void op_poll(void)
{
	struct lite_ioc_poll a = { 0 };
	int slot = pick_slot();

	if (slot < 0)
		return;
	a.max = chance(90) ? rnd(65) : (uint32_t[]){ 4096, 4097,
						       UINT32_MAX }[rnd(3)];
	a.addr = dst_addr((uint64_t)a.max * sizeof(struct lite_completion),
			  false);
	a.timeout_ms = pick_timeout();
	if (chance(12)) {
		a.flags = LITE_POLL_FENCE;
		if (chance(80))
			a.max = 0;
	}
	if (chance(3))
		a.flags |= 1U << (1 + rnd(31));
	a.nr = rnd64();	/* out only */
	a.outstanding = rnd64();
	a.reserved = pick_reserved();
	if (!lite_ioctl(st.fds[slot], LITE_IOC_POLL, &a))
		poll_check(&a);
}
