// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctls of RPC: REGISTER, QUERY_PORT, CALL, SEND, MCALL, RECV, REPLY
 * and REPLY_RECV.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ioctl_stress.h"

void op_register(void)
{
	struct lite_ioc_register a = { .port = pick_port() };
	int slot = pick_slot();

	if (slot < 0)
		return;
	if (pick_count_edges(12, LITE_RPC_MAX_MSG, &a.max_size) > 1)
		a.max_size = 1 + rnd(MSG_MAX);	/* what RECV may write */
	snprintf(a.name, sizeof(a.name), "stress-%d-%u", (int)getpid(),
		 a.port);
	if (chance(4))
		memset(a.name, 'x', sizeof(a.name));	/* unterminated */
	if (!lite_ioctl(st.fds[slot], LITE_IOC_REGISTER, &a))
		add_port(slot, a.port);
}

void op_query_port(void)
{
	struct lite_ioc_query_port a = {
		.node = pick_node(), .port = pick_port(),
		.max_size = rnd64(), .reserved = pick_reserved(),
	};
	int slot = pick_slot();

	if (slot >= 0)
		lite_ioctl(st.fds[slot], LITE_IOC_QUERY_PORT, &a);
}

void op_call(unsigned long cmd)
{
	bool one_way = cmd == LITE_IOC_SEND;
	struct lite_ioc_rpc_call a = {
		.node = pick_node(), .port = pick_port(),
	};
	int slot = pick_slot(), ret;

	if (slot < 0)
		return;
	a.size = pick_msg_size();
	a.addr = src_addr(a.size);
	a.priority = pick_prio();
	if (!one_way || chance(5)) {
		a.reply_max = chance(90) ? rnd(rnd(2) ? 256 : MSG_MAX) :
					   pick_msg_size();
		a.reply_addr = dst_addr(a.reply_max, false);
	}
	if (chance(5))
		a.reply_len = rnd64();	/* out only; SEND: must be 0 */
	ret = lite_ioctl(st.fds[slot], cmd, &a);
	if (!ret && !one_way && a.reply_len > a.reply_max)
		unexpected("CALL reply_len %u > reply_max %u", a.reply_len,
			   a.reply_max);
}

/* Where MCALL may write @nr replies of up to @max bytes, @max apart. */
static uint64_t mcall_slots(uint32_t nr, uint32_t max)
{
	uint64_t need = (uint64_t)nr * max;

	if (need <= ARENA_ROOM && chance(90))
		return (uintptr_t)st.arena + rnd(ARENA_SIZE - need + 1);
	switch (rnd(4)) {	/* 16 MiB of faults behind each */
	case 0:
		return (uintptr_t)st.guard + rnd(MiB);
	case 1:
		return (uintptr_t)st.edge + PAGE - rnd(64);
	case 2:
		return (uintptr_t)st.ro + rnd(MiB);
	default:
		return KERNEL_PTR + rnd(1ULL << 30);
	}
}

static void mcall_fill(struct lite_ioc_mcall_dst *d, uint32_t nr)
{
	uint32_t all[MAX_PEERS + 1], n = 0, i;

	all[n++] = st.me;
	for (i = 0; i < st.nr_peers; i++)
		all[n++] = st.peers[i];
	for (i = 0; i < nr; i++) {
		d[i] = (struct lite_ioc_mcall_dst) {
			.node = i < n && chance(90) ? all[i] : pick_node(),
			.status = (int32_t)rnd64(), .reply_len = rnd64(),
			.reserved = pick_reserved(),
		};
	}
}

static void mcall_check(const struct lite_ioc_mcall_dst *d, uint32_t nr,
			uint32_t max, int ret)
{
	int ok = 0;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		if (!d[i].status) {
			ok++;
			if (d[i].reply_len > max)
				unexpected("MCALL reply_len %u > reply_max %u",
					   d[i].reply_len, max);
		} else if (d[i].status > 0 || !errno_ok(-d[i].status)) {
			unexpected("MCALL status errno %s",
				   errname(-d[i].status));
		}
	}
	if (ok != ret)
		unexpected("MCALL returned %d, %d statuses 0", ret, ok);
}

void op_mcall(void)
{
	struct lite_ioc_mcall_dst d[LITE_MCAST_MAX];
	struct lite_ioc_rpc_mcall a = { .port = pick_port() };
	int slot = pick_slot(), ret;
	bool good_dsts = chance(92);

	if (slot < 0)
		return;
	a.nr = chance(90) ? 1 + rnd(min_u64(st.nr_peers + 1 + rnd(2),
					    LITE_MCAST_MAX)) :
			    (uint32_t[]){ 0, LITE_MCAST_MAX, LITE_MCAST_MAX + 1,
					  UINT32_MAX }[rnd(4)];
	if (a.nr <= LITE_MCAST_MAX)
		mcall_fill(d, a.nr);
	a.dsts = good_dsts ? (uintptr_t)d : fault_addr();
	a.size = pick_msg_size();
	a.addr = src_addr(a.size);
	a.priority = pick_prio();
	a.reply_max = chance(90) ? rnd(rnd(2) ? 256 : MSG_MAX) :
				   pick_msg_size();
	a.reply_addr = mcall_slots(a.nr <= LITE_MCAST_MAX ? a.nr : 1,
				   a.reply_max);
	a.reserved = pick_reserved();
	ret = lite_ioctl(st.fds[slot], LITE_IOC_MCALL, &a);
	if (ret < 0)
		return;
	if (!good_dsts || a.nr > LITE_MCAST_MAX)
		unexpected("MCALL of %u at %#llx succeeded", a.nr,
			   (unsigned long long)a.dsts);
	else
		mcall_check(d, a.nr, a.reply_max, ret);
}

/* A port of ours on its file (mostly), else anything on any file. */
static int pick_recv_port(uint32_t *port)
{
	int i = PICK(st.ports);

	if (i >= 0 && chance(80) && st.fds[st.ports[i].slot] >= 0) {
		*port = st.ports[i].port;
		return st.ports[i].slot;
	}
	*port = pick_port();
	return pick_slot();
}

static void fill_recv(struct lite_ioc_rpc_recv *a, uint32_t port)
{
	rng_fill(&st.r, a, sizeof(*a));	/* the out fields: anything */
	a->port = port;
	a->flags = chance(90) ? LITE_RECV_NONBLOCK :
		   chance(50) ? 0 : 1U << (1 + rnd(31));
	switch (rnd(10)) {
	case 0:
		a->size = 0;
		break;
	case 1:
		a->size = UINT32_MAX - rnd(2);
		break;
	case 2:
		a->size = 1 + rnd(16);
		break;
	default:
		a->size = 1 + rnd(MSG_MAX);
	}
	a->addr = dst_addr(a->size, false);
	a->priority = pick_prio();
}

static void recv_done(int slot, const struct lite_ioc_rpc_recv *a,
		      const char *name)
{
	if (a->len > a->size)
		unexpected("%s len %u > size %u", name, a->len, a->size);
	if (a->descriptor != LITE_DESC_NO_REPLY)
		add_desc(slot, a->descriptor);
}

/* A descriptor received on @*slot's file (mostly), else made up. */
static uint64_t pick_desc(int *slot)
{
	int i = PICK(st.descs);
	uint64_t d;

	if (i >= 0 && chance(85) && st.fds[st.descs[i].slot] >= 0) {
		*slot = chance(90) ? st.descs[i].slot : pick_slot();
		d = st.descs[i].desc;
		if (*slot == st.descs[i].slot)
			st.descs[i].used = false;	/* answered now */
		return d;
	}
	*slot = pick_slot();
	switch (rnd(4)) {
	case 0:
		return LITE_DESC_NO_REPLY;
	case 1:
		return (uint64_t)INT_MAX + 1 + rnd(1000);
	default:
		return rnd(1000);
	}
}

static void fill_reply(struct lite_ioc_rpc_reply *a, uint64_t desc)
{
	a->descriptor = desc;
	a->size = chance(85) ? rnd(rnd(2) ? 64 : PAGE) : pick_msg_size();
	a->addr = src_addr(a->size);
	a->priority = pick_prio();
}

void op_reply(void)
{
	struct lite_ioc_rpc_reply a;
	int slot;
	uint64_t desc = pick_desc(&slot);

	if (slot < 0)
		return;
	fill_reply(&a, desc);
	lite_ioctl(st.fds[slot], LITE_IOC_REPLY, &a);
}

/* RECV, or REPLY_RECV: an answer to a descriptor, then the receive. */
void op_recv(unsigned long cmd)
{
	struct lite_ioc_rpc_reply_recv a;
	bool reply = cmd == LITE_IOC_REPLY_RECV;
	uint32_t port;
	int slot = pick_recv_port(&port), dslot;
	uint64_t desc = reply ? pick_desc(&dslot) : 0;

	if (slot < 0)
		return;
	fill_recv(&a.recv, port);
	if (reply)
		fill_reply(&a.reply, desc);
	if (!lite_ioctl(st.fds[slot], cmd, reply ? (void *)&a : &a.recv))
		recv_done(slot, &a.recv, ioc_name(cmd));
}
