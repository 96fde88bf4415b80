// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The arguments of the ioctls, mostly valid, not always: files, nodes,
 * ports, priorities, passwords, permissions, offsets, lengths and
 * addresses; and the tables of what the run got (handles, publications,
 * ports, descriptors).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>

#include "ioctl_stress.h"

/* ---- arguments ------------------------------------------------------- */

int pick_slot(void)
{
	unsigned int start = rnd(NR_FDS), i;

	for (i = 0; i < NR_FDS; i++)
		if (st.fds[(start + i) % NR_FDS] >= 0)
			return (start + i) % NR_FDS;
	return -1;
}

uint32_t pick_node(void)
{
	unsigned int c = rnd(100);

	if (c < 45 || (c < 90 && !st.nr_peers))
		return st.me;
	if (c < 90)
		return st.peers[rnd(st.nr_peers)];
	switch (rnd(5)) {
	case 0:
		return 0;
	case 1:
		return 64;	/* LITE_MAX_NODES */
	case 2:
		return UINT32_MAX;
	case 3:
		return 1U << (6 + rnd(26));
	default:
		return 1 + rnd(63);	/* a member, or not */
	}
}

uint32_t pick_port(void)
{
	unsigned int c = rnd(100);

	if (c < 75)
		return PORT_BASE + rnd(NR_PORTS);
	if (c < 90)
		return rnd(LITE_MAX_PORT);
	return rnd(2) ? LITE_MAX_PORT + rnd(1000) : UINT32_MAX - rnd(2);
}

uint32_t pick_prio(void)
{
	if (chance(92))
		return rnd(3);
	return rnd(2) ? 3 + rnd(100) : UINT32_MAX - rnd(2);
}

uint32_t pick_reserved(void)
{
	return chance(96) ? 0 : 1U << rnd(32);
}

int32_t pick_pw(int32_t pw)
{
	if (chance(90))
		return pw;
	return rnd(2) ? (int32_t)((uint32_t)pw ^ (1U << rnd(32))) :
			(int32_t)rnd64();
}

/* Permission bits asked for: mostly within @have, not always. */
uint32_t pick_perm(uint32_t have)
{
	uint32_t p;

	switch (rnd(12)) {
	case 0:
		return 0;
	case 1:
		return LITE_PERM_ADMIN | LITE_PERM_READ;
	case 2:
		return (uint32_t)(LITE_PERM_ALL + 1) << rnd(27);
	case 3:
		return LITE_PERM_ALL & ~LITE_PERM_ADMIN;
	default:
		p = (1 + rnd(LITE_PERM_ALL)) & have & ~LITE_PERM_ADMIN;
		return p ? p : LITE_PERM_READ;
	}
}

uint64_t pick_ident(void)
{
	return chance(90) ? IDENT_BASE + rnd(NR_IDENTS) : rnd64();
}

/* An offset into an LMR of @size bytes, or past it. */
uint64_t pick_off(uint64_t size)
{
	switch (rnd(16)) {
	case 0:
		return size;
	case 1:
		return size + 1 + rnd(PAGE);
	case 2:
		return UINT64_MAX - rnd(PAGE);
	case 3:
		return 1ULL << (20 + rnd(44));
	case 4:
		return size > 8 ? size - 8 : 0;
	default:
		return size ? rnd(size) : 0;
	}
}

/* A length from @off in an object of @size bytes: mostly in it. */
uint64_t pick_len(uint64_t size, uint64_t off)
{
	uint64_t room = off < size ? size - off : 0;

	switch (rnd(16)) {
	case 0:
		return 0;
	case 1:
		return room;
	case 2:
		return room + 1;
	case 3:
		return LITE_LMR_MAX_SIZE + 1 + rnd(PAGE);
	case 4:
		return UINT64_MAX - rnd(PAGE);	/* addr + len wraps */
	case 5:
		return 1ULL << (20 + rnd(44));
	default:
		return 1 + rnd(room ? min_u64(room, 64 * KiB) : PAGE);
	}
}

/*
 * rnd(@n), returned; for 0 and 1 the edges of a count or size are put in
 * *@v: 0, or anything above @limit. The caller picks for the rest.
 */
unsigned int pick_count_edges(unsigned int n, uint32_t limit,
			      uint32_t *v)
{
	unsigned int c = rnd(n);

	if (c == 0)
		*v = 0;
	else if (c == 1)
		*v = limit + 1 + rnd(UINT32_MAX - limit - 1);
	return c;
}

/* A message size: mostly small, sometimes at or past the limits. */
uint32_t pick_msg_size(void)
{
	switch (rnd(16)) {
	case 0:
		return 0;
	case 1:
		return LITE_RPC_MAX_MSG;
	case 2:
		return LITE_RPC_MAX_MSG + 1 + rnd(PAGE);
	case 3:
		return UINT32_MAX - rnd(2);
	case 4:
		return MSG_MAX + 1;
	default:
		return 1 + rnd(rnd(2) ? 256 : 4096);
	}
}

struct map *pick_map(void)
{
	int i = PICK(st.maps);

	return i < 0 ? NULL : &st.maps[i];
}

/* An address whose first byte faults on any access. */
uint64_t fault_addr(void)
{
	switch (rnd(4)) {
	case 0:
		return 0;
	case 1:
		return 1 + rnd(PAGE - 1);	/* below mmap_min_addr */
	case 2:
		return (uintptr_t)st.guard + rnd(GUARD_SIZE / 2);
	default:
		return fault_addr_high();
	}
}

/*
 * A bad address: one that faults, the edge (a few scratch bytes, then
 * the guard) or, for an ioctl that writes there (@write), the read-only
 * zeros.
 */
uint64_t bad_addr(bool write)
{
	unsigned int c = rnd(10);

	if (c < 6 || (c >= 8 && !write))
		return fault_addr();
	if (c < 8)
		return (uintptr_t)st.edge + PAGE - rnd(64);
	return (uintptr_t)st.ro + rnd(RO_SIZE / 4);
}

/* The just-unmapped range, once, if there is one. */
static uint64_t take_stale(void)
{
	uint64_t a = st.stale;

	if (a)
		a += rnd(st.stale_len);
	st.stale = 0;
	return a;
}

/*
 * Where an ioctl may write @len bytes (READ, RECV, a reply, completions):
 * our memory with room for all of them, or a bad address. @lasting: the
 * write may come later (a posted read, copied when reaped, maybe by a
 * child): only memory mapped for the whole run, in every process.
 */
uint64_t dst_addr(uint64_t len, bool lasting)
{
	unsigned int c = rnd(100);
	struct map *m;
	uint64_t a;

	if (!lasting && (a = take_stale()))
		return a;
	if (c < 12 && !lasting && (m = pick_map()) && len <= m->len)
		return (uintptr_t)m->addr + rnd(m->len - len + 1);
	if (c < 85 && len <= ARENA_ROOM)
		return (uintptr_t)st.arena +
		       (rnd(4) ? rnd(ARENA_SIZE - ARENA_ROOM) :
				 rnd(ARENA_SIZE / PAGE / 2) * PAGE);
	return bad_addr(true);
}

/* Where an ioctl may read @len bytes: reading our memory harms nothing. */
uint64_t src_addr(uint64_t len)
{
	unsigned int c = rnd(100);
	struct map *m;
	uint64_t a = take_stale();

	if (a)
		return a;
	if (c < 12 && (m = pick_map()))
		return (uintptr_t)m->addr + rnd(m->len);
	if (c < 80)
		return (uintptr_t)st.arena +
		       rnd(ARENA_SIZE - min_u64(len, ARENA_ROOM));
	if (c < 88)
		return (uintptr_t)st.ro + rnd(RO_SIZE / 4);
	return bad_addr(false);
}

/* ---- the tables ------------------------------------------------------ */

void add_handle(int slot, uint32_t lh, uint32_t node, uint64_t size,
		int32_t pw, uint32_t perm)
{
	int i = UNUSED(st.h);

	if (i < 0) {	/* full: let one go */
		i = rnd(MAX_HANDLES);
		if (st.fds[st.h[i].slot] >= 0)
			lite_unmap_handle(st.h[i].slot, st.h[i].lh);
	}
	st.h[i] = (struct handle) {
		.used = true, .slot = slot, .lh = lh, .node = node,
		.size = size, .pw = pw, .perm = perm,
	};
}

void drop_handle(int slot, uint32_t lh)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (st.h[i].used && st.h[i].slot == slot && st.h[i].lh == lh)
			st.h[i].used = false;
}

/* Everything that belonged to the open file in @slot. */
void forget_slot(int slot)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (st.h[i].slot == slot)
			st.h[i].used = false;
	for (i = 0; i < MAX_PORTS; i++)
		if (st.ports[i].slot == slot)
			st.ports[i].used = false;
	for (i = 0; i < MAX_DESCS; i++)
		if (st.descs[i].slot == slot)
			st.descs[i].used = false;
}

void add_pub(uint64_t ident, const struct target *t, uint32_t perm,
	     int32_t pw)
{
	int i = UNUSED(st.pubs);

	if (i < 0)
		i = rnd(MAX_PUBS);
	st.pubs[i] = (struct pub) {
		.used = true, .ident = ident, .node = t->node, .perm = perm,
		.pw = pw, .size = t->size,
	};
}

void add_port(int slot, uint32_t port)
{
	int i = UNUSED(st.ports);

	if (i < 0)
		i = rnd(MAX_PORTS);
	st.ports[i] = (struct port) {
		.used = true, .slot = slot, .port = port,
	};
}

void add_desc(int slot, uint64_t desc)
{
	int i = UNUSED(st.descs);

	if (i < 0)	/* never answered: its caller times out */
		i = rnd(MAX_DESCS);
	st.descs[i] = (struct desc) {
		.used = true, .slot = slot, .desc = desc,
	};
}

/*
 * A handle: from the table on its own file, on another file, a small
 * number (valid on some file, maybe), or anything.
 */
bool pick_target(struct target *t, uint32_t want_perm)
{
	int i = -1, j, tries;
	unsigned int c = rnd(100);

	for (tries = 0; want_perm && tries < 4 && i < 0; tries++) {
		j = PICK(st.h);
		if (j >= 0 && (st.h[j].perm & want_perm) == want_perm)
			i = j;
	}
	if (i < 0)
		i = PICK(st.h);
	if (i >= 0 && c < 88) {
		*t = (struct target) {
			.slot = st.h[i].slot, .lh = st.h[i].lh,
			.node = st.h[i].node, .perm = st.h[i].perm,
			.pw = st.h[i].pw, .size = st.h[i].size,
		};
		if (c >= 76 || st.fds[t->slot] < 0)
			t->slot = pick_slot();
	} else {
		*t = (struct target) {
			.slot = pick_slot(), .node = pick_node(),
			.lh = rnd(2) ? 1 + rnd(64) : (uint32_t)rnd64(),
			.pw = (int32_t)rnd64(), .size = PAGE << rnd(9),
		};
	}
	return t->slot >= 0;
}

/* pick_target(), the handle's number in *@handle too. */
bool pick_handle(struct target *t, uint32_t want_perm,
		 uint32_t *handle)
{
	if (!pick_target(t, want_perm))
		return false;
	*handle = t->lh;
	return true;
}
