// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lite/module/wire_check.c in user space: hand-written messages at
 * the edges of what each check accepts. One line per case; exit status 1
 * if any case failed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kshim.h"
#include "wire_valid.h"
#include "../include/uapi/lite.h"

#define RING		LITE_RPC_RING_SIZE

static int passed, failed;

static void expect(const char *name, int want, int got)
{
	bool ok = want == got;

	if (ok)
		passed++;
	else
		failed++;
	printf("%s %s -> %s", ok ? "ok  " : "FAIL", name,
	       got ? "EPROTO" : "accepted");
	if (got && got != -EPROTO)
		printf(" (%d)", got);
	if (!ok)
		printf(", expected %s", want ? "EPROTO" : "accepted");
	putchar('\n');
}

static void expect_val(const char *name, unsigned long long want,
		       unsigned long long got)
{
	if (want == got) {
		passed++;
		printf("ok   %s = %llu\n", name, got);
	} else {
		failed++;
		printf("FAIL %s = %llu, expected %llu\n", name, got, want);
	}
}

/*
 * @check(@type, @len) accepts exactly @len bytes: not one more, not one
 * less. @fmt names each case from the type and the length it tries.
 */
static void expect_len(const char *fmt, u16 type, u32 len,
		       int (*check)(u16 type, u32 len))
{
	static const int delta[] = { 0, 1, -1 };
	char name[80];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(delta); i++) {
		snprintf(name, sizeof(name), fmt, type, len + delta[i]);
		expect(name, delta[i] ? -EPROTO : 0, check(type, len + delta[i]));
	}
}

/* ---- control messages ---------------------------------------------------- */

/* A header and room for the largest payload, as a receive buffer holds. */
static union {
	struct lite_ctrl_hdr	hdr;
	u8			bytes[LITE_RX_BUF_SIZE];
} msg;

/* A request of @type with @plen payload bytes from PEER; its length. */
static u32 ctrl_msg(u16 type, u32 plen)
{
	memset(&msg, 0, sizeof(msg));
	msg.hdr = valid_ctrl_hdr(type, plen);
	return sizeof(msg.hdr) + plen;
}

static int ctrl(u32 len)
{
	u16 type;
	u32 plen;

	return lite_check_ctrl_hdr(&msg, len, PEER, PEER_GEN, &type, &plen);
}

static void test_ctrl_hdr(void)
{
	u16 type = 0xdead;
	u32 len, plen = 0xdead;

	len = ctrl_msg(LITE_CTRL_ALLOC, sizeof(struct lite_ctrl_alloc));
	expect("ctrl: ALLOC request",
	       0, lite_check_ctrl_hdr(&msg, len, PEER, PEER_GEN, &type, &plen));
	expect_val("ctrl: ALLOC request: type", LITE_CTRL_ALLOC, type);
	expect_val("ctrl: ALLOC request: payload", sizeof(struct lite_ctrl_alloc), plen);

	len = ctrl_msg(LITE_CTRL_FREE | LITE_CTRL_RESP, 0);
	expect("ctrl: header alone (40 bytes)", 0, ctrl(len));
	expect("ctrl: 39 bytes", -EPROTO, ctrl(len - 1));
	expect("ctrl: 0 bytes", -EPROTO, ctrl(0));

	len = ctrl_msg(LITE_CTRL_FREE, 8);
	expect("ctrl: one byte more than the header says", -EPROTO, ctrl(len + 1));
	expect("ctrl: one byte less than the header says", -EPROTO, ctrl(len - 1));
	msg.hdr.magic = cpu_to_le32(LITE_CTRL_MAGIC + 1);
	expect("ctrl: bad magic", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_FREE, 8);
	msg.hdr.budget_ms = cpu_to_le32(LITE_CTRL_BUDGET_MAX_MS);
	expect("ctrl: request with the longest budget", 0, ctrl(len));
	msg.hdr.budget_ms = cpu_to_le32(LITE_CTRL_BUDGET_MAX_MS + 1);
	expect("ctrl: request with a budget over the longest", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_FREE | LITE_CTRL_RESP, 0);
	msg.hdr.budget_ms = cpu_to_le32(1);
	expect("ctrl: response with a budget", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_FREE, 8);
	msg.hdr.src_node = cpu_to_le16(PEER + 1);
	expect("ctrl: another node's id", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_FREE, 8);
	msg.hdr.src_gen = cpu_to_le32(PEER_GEN - 1);
	expect("ctrl: an older generation", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_FREE, 8);
	msg.hdr.status = cpu_to_le32(EINVAL);
	expect("ctrl: request with a status", -EPROTO, ctrl(len));

	len = ctrl_msg(0, 0);
	expect("ctrl: type 0", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_RESP, 0);
	expect("ctrl: type 0 response", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_NR_TYPES, 0);
	expect("ctrl: type LITE_CTRL_NR_TYPES", -EPROTO, ctrl(len));
	len = ctrl_msg(LITE_CTRL_NR_TYPES - 1, 0);
	expect("ctrl: type LITE_CTRL_NR_TYPES - 1", 0, ctrl(len));
	len = ctrl_msg(0x4000 | LITE_CTRL_FREE, 0);
	expect("ctrl: stray type bit", -EPROTO, ctrl(len));

	len = ctrl_msg(LITE_CTRL_RESP | LITE_CTRL_ASK, 0);
	expect("ctrl: response, status 0", 0,
	       lite_check_ctrl_hdr(&msg, len, PEER, PEER_GEN, &type, &plen));
	expect_val("ctrl: response: type keeps LITE_CTRL_RESP",
		   LITE_CTRL_RESP | LITE_CTRL_ASK, type);
	msg.hdr.status = cpu_to_le32(MAX_ERRNO - 1);
	expect("ctrl: response, status MAX_ERRNO - 1", 0, ctrl(len));
	msg.hdr.status = cpu_to_le32(MAX_ERRNO);
	type = 0xdead;
	expect("ctrl: response, status MAX_ERRNO", -EPROTO,
	       lite_check_ctrl_hdr(&msg, len, PEER, PEER_GEN, &type, &plen));
	expect_val("ctrl: refused: type untouched", 0xdead, type);
	msg.hdr.status = cpu_to_le32(-EINVAL);
	expect("ctrl: response, negative status", -EPROTO, ctrl(len));
}

static void test_ctrl_len(void)
{
	static const struct {
		u16 type;
		u32 len;
	} req[] = {
		{ LITE_CTRL_ALLOC,	sizeof(struct lite_ctrl_alloc) },
		{ LITE_CTRL_FREE,	sizeof(struct lite_ctrl_lmr) },
		{ LITE_CTRL_PUBLISH,	sizeof(struct lite_ctrl_publish) },
		{ LITE_CTRL_ASK,	sizeof(struct lite_ctrl_ask) },
		{ LITE_CTRL_REVOKE,	sizeof(struct lite_ctrl_lmr) },
		{ LITE_CTRL_MEMSET,	sizeof(struct lite_ctrl_memset) },
		{ LITE_CTRL_MEMMOVE,	sizeof(struct lite_ctrl_memmove) },
		{ LITE_CTRL_RPC_OPEN,	sizeof(struct lite_ctrl_rpc_open) },
		{ LITE_CTRL_ATOMIC,	sizeof(struct lite_ctrl_atomic) },
		{ LITE_CTRL_LOCK_ASK,	sizeof(struct lite_ctrl_lock) },
		{ LITE_CTRL_LOCK,	sizeof(struct lite_ctrl_lock) },
		{ LITE_CTRL_UNLOCK,	sizeof(struct lite_ctrl_lock) },
		{ LITE_CTRL_BARRIER,	sizeof(struct lite_ctrl_barrier) },
		{ LITE_CTRL_WAKE,	sizeof(struct lite_ctrl_wake) },
		{ LITE_CTRL_CTX_GONE,	sizeof(struct lite_ctrl_lock) },
		{ LITE_CTRL_LOCK_CREATE, sizeof(struct lite_ctrl_lock) },
		{ LITE_CTRL_LOCK_DESTROY, sizeof(struct lite_ctrl_lock) },
		{ LITE_CTRL_CANCEL,	sizeof(struct lite_ctrl_cancel) },
		{ LITE_CTRL_RPC_FORGET,	sizeof(struct lite_ctrl_rpc_forget) },
	};
	char name[80];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(req); i++) {
		expect_len("ctrl len: type %u request, %u bytes", req[i].type,
			   req[i].len, lite_check_ctrl_len);
		snprintf(name, sizeof(name), "ctrl len: type %u failed response, 0 bytes",
			 req[i].type);
		expect(name, 0, lite_check_ctrl_len(LITE_CTRL_RESP | req[i].type, 0));
	}
	/* It names the creating user since issue 11: no longer empty. */
	expect("ctrl len: LOCK_CREATE request, 0 bytes", -EPROTO,
	       lite_check_ctrl_len(LITE_CTRL_LOCK_CREATE, 0));
	/* Every type has a size: a new one missing from the table fails. */
	for (i = 1; i < LITE_CTRL_NR_TYPES; i++) {
		snprintf(name, sizeof(name), "ctrl len: type %zu request, 0 bytes", i);
		expect(name, -EPROTO, lite_check_ctrl_len(i, 0));
		snprintf(name, sizeof(name), "ctrl types: type %zu has a name", i);
		expect(name, 1, lite_ctrl_types[i].name != NULL);
	}
	expect("ctrl len: type 0", -EPROTO, lite_check_ctrl_len(0, 0));
	expect("ctrl len: type LITE_CTRL_NR_TYPES", -EPROTO,
	       lite_check_ctrl_len(LITE_CTRL_NR_TYPES, 0));

#define RESP(t)	(LITE_CTRL_RESP | LITE_CTRL_##t)
	expect("ctrl len: ALLOC response, a description of 0 chunks", 0,
	       lite_check_ctrl_len(RESP(ALLOC), DESC_LEN(0)));
	expect("ctrl len: ALLOC response, a description of 1 chunk", 0,
	       lite_check_ctrl_len(RESP(ALLOC), DESC_LEN(1)));
	expect("ctrl len: ALLOC response, half a chunk address", -EPROTO,
	       lite_check_ctrl_len(RESP(ALLOC), DESC_LEN(1) - 4));
	expect("ctrl len: ASK response, short of a description", -EPROTO,
	       lite_check_ctrl_len(RESP(ASK), DESC_LEN(0) - 1));
	expect("ctrl len: ASK response, LITE_LMR_MAX_CHUNKS chunks", 0,
	       lite_check_ctrl_len(RESP(ASK), DESC_LEN(LITE_LMR_MAX_CHUNKS)));
	expect("ctrl len: ASK response, one chunk more", -EPROTO,
	       lite_check_ctrl_len(RESP(ASK), DESC_LEN(LITE_LMR_MAX_CHUNKS + 1)));
	expect("ctrl len: RPC_OPEN response, a ring", 0,
	       lite_check_ctrl_len(RESP(RPC_OPEN), sizeof(struct lite_ctrl_rpc_ring)));
	expect("ctrl len: RPC_OPEN response, 8 bytes", -EPROTO,
	       lite_check_ctrl_len(RESP(RPC_OPEN), 8));
	expect("ctrl len: LOCK response, a u64", 0,
	       lite_check_ctrl_len(RESP(LOCK), sizeof(struct lite_ctrl_u64)));
	expect("ctrl len: LOCK_CREATE response, a u64", 0,
	       lite_check_ctrl_len(RESP(LOCK_CREATE), sizeof(struct lite_ctrl_u64)));
	/* Since version 8, a waiter's LOCK_ASK about its ticket. */
	expect("ctrl len: LOCK_ASK response, a u64", 0,
	       lite_check_ctrl_len(RESP(LOCK_ASK), sizeof(struct lite_ctrl_u64)));
	expect("ctrl len: LOCK_ASK response, 4 bytes", -EPROTO,
	       lite_check_ctrl_len(RESP(LOCK_ASK), 4));
	expect("ctrl len: FREE response, 8 bytes", -EPROTO,
	       lite_check_ctrl_len(RESP(FREE), 8));
#undef RESP
}

/* ---- LMR descriptions ---------------------------------------------------- */

static union {
	struct lite_lmr_desc	d;
	u8			bytes[LITE_RX_BUF_SIZE];
} desc;

/* A description of @size bytes in chunks of 1 << @shift; its length. */
static u32 desc_make(u64 size, u8 shift, u32 n)
{
	memset(&desc, 0, sizeof(desc));
	valid_lmr_desc(&desc.d, sizeof(desc), size, shift, n);
	return DESC_LEN(n);
}

static void test_lmr_desc(void)
{
	u32 len, max = LITE_LMR_MAX_CHUNKS;

	len = desc_make(3 * 4096 + 1, 12, 4);
	expect("desc: 3 pages + 1 byte in 4 chunks", 0, lite_check_lmr_desc(&desc.d, len));
	expect("desc: one byte longer than needed", 0, lite_check_lmr_desc(&desc.d, len + 1));
	expect("desc: last chunk address cut short", -EPROTO,
	       lite_check_lmr_desc(&desc.d, len - 1));
	expect("desc: header alone", -EPROTO,
	       lite_check_lmr_desc(&desc.d, sizeof(struct lite_lmr_desc)));
	expect("desc: 39 bytes", -EPROTO,
	       lite_check_lmr_desc(&desc.d, sizeof(struct lite_lmr_desc) - 1));
	expect("desc: 0 bytes", -EPROTO, lite_check_lmr_desc(&desc.d, 0));

	len = desc_make(3 * 4096 + 1, 12, 3);
	expect("desc: chunk count one short", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(3 * 4096 + 1, 12, 5);
	expect("desc: chunk count one over", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(4096, 12, 1);
	expect("desc: one page", 0, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(1, 12, 1);
	expect("desc: one byte", 0, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(0, 12, 0);
	expect("desc: size 0", -EPROTO, lite_check_lmr_desc(&desc.d, len));

	len = desc_make(4096, 11, 2);
	expect("desc: chunk_shift 11", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(8 << 20, 23, 1);
	expect("desc: chunk_shift 23", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(LITE_LMR_MAX_SIZE, 22, 256);
	expect("desc: 1 GiB in 4 MiB chunks", 0, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(LITE_LMR_MAX_SIZE + 1, 22, 257);
	expect("desc: 1 GiB + 1", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(~0ULL, 22, 0);
	expect("desc: size 2^64 - 1", -EPROTO,
	       lite_check_lmr_desc(&desc.d, len));
	len = desc_make(LITE_LMR_MAX_SIZE, 12, LITE_LMR_MAX_SIZE >> 12);
	expect("desc: 1 GiB in pages (too many chunks to send)", -EPROTO,
	       lite_check_lmr_desc(&desc.d, sizeof(desc)));
	len = desc_make((u64)max << 12, 12, max);
	expect("desc: LITE_LMR_MAX_CHUNKS pages", 0, lite_check_lmr_desc(&desc.d, len));
	expect_val("desc: LITE_LMR_MAX_CHUNKS pages: length",
		   LITE_CTRL_MAX_PAYLOAD, len);
	len = desc_make((u64)(max + 1) << 12, 12, max + 1);
	expect("desc: LITE_LMR_MAX_CHUNKS + 1 pages", -EPROTO,
	       lite_check_lmr_desc(&desc.d, sizeof(desc)));

	len = desc_make(4096, 12, 1);
	desc.d.perm = 0;
	expect("desc: no permission", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	desc.d.perm = cpu_to_le32(LITE_PERM_ALL);
	expect("desc: LITE_PERM_ALL", 0, lite_check_lmr_desc(&desc.d, len));
	desc.d.perm = cpu_to_le32(LITE_PERM_ALL + 1);
	expect("desc: unknown permission bit", -EPROTO, lite_check_lmr_desc(&desc.d, len));
	len = desc_make(4096, 12, 1);
	desc.d.lmr_id = 0;
	expect("desc: LMR id 0", -EPROTO, lite_check_lmr_desc(&desc.d, len));
}

/* ---- RPC requests -------------------------------------------------------- */

static int place(u32 byte_len, u32 off, u32 pos)
{
	u32 span;

	return lite_check_rpc_place(byte_len, off, pos, RING, &span);
}

static void test_rpc_place(void)
{
	u32 span = 0xdead;

	expect("rpc: 100 bytes where due",
	       0, lite_check_rpc_place(100, 128, 128, RING, &span));
	expect_val("rpc: 100 bytes where due: span", 128, span);
	expect("rpc: header alone", 0, place(32, 0, 0));
	expect("rpc: 31 bytes", -EPROTO, place(31, 0, 0));
	expect("rpc: 0 bytes", -EPROTO, place(0, 0, 0));
	expect("rpc: not where due", -EPROTO, place(100, 256, 128));
	expect("rpc: the whole ring", 0, place(RING, 0, 0));
	expect("rpc: more than the ring", -EPROTO, place(RING + 1, 0, 0));
	expect("rpc: 64 bytes in the last 64", 0, place(64, RING - 64, RING - 64));
	expect("rpc: 65 bytes in the last 64", -EPROTO, place(65, RING - 64, RING - 64));
	expect("rpc: offset at the ring's end", -EPROTO, place(32, RING, RING));
	expect("rpc: offset past the ring's end", -EPROTO, place(32, RING + 64, RING + 64));

	expect("rpc: 65 bytes wrap from the last 64",
	       0, lite_check_rpc_place(65, 0, RING - 64, RING, &span));
	expect_val("rpc: wrap: span covers the skipped tail", 64 + 128, span);
	expect("rpc: a wrap that skips a tail big enough", -EPROTO,
	       place(64, 0, RING - 128));
	/* The sender's flow control keeps it from sending this; not checked. */
	expect("rpc: the whole ring after a wrap",
	       0, lite_check_rpc_place(RING, 0, 64, RING, &span));
	expect_val("rpc: the whole ring after a wrap: span", 2 * RING - 64, span);
	expect("rpc: wrap of RING - 64 bytes from RING - 128", 0,
	       lite_check_rpc_place(RING - 64, 0, RING - 128, RING, &span));
	expect_val("rpc: wrap: span", RING + 64, span);

	/* 32-bit sums that wrapped in the old inline check */
	expect("rpc: byte_len 2^32 - 16 (ALIGN wraps to 0)", -EPROTO,
	       place(0xfffffff0U, 0, 0));
	expect("rpc: 4 GiB - 4 MiB in the last 64 (off + span wraps to 0)", -EPROTO,
	       place(0xffc00040U, RING - 64, RING - 64));
	span = 0xdead;
	lite_check_rpc_place(31, 0, 0, RING, &span);
	expect_val("rpc: refused: span untouched", 0xdead, span);
}

static void test_rpc_hdr(void)
{
	struct lite_rpc_hdr h = valid_rpc_hdr(100);

	expect("rpc hdr: 100-byte call", 0, lite_check_rpc_hdr(&h, 132));
	expect("rpc hdr: byte_len one over", -EPROTO, lite_check_rpc_hdr(&h, 133));
	expect("rpc hdr: byte_len one short", -EPROTO, lite_check_rpc_hdr(&h, 131));
	h.len = 0;
	expect("rpc hdr: empty payload", 0, lite_check_rpc_hdr(&h, 32));
	expect("rpc hdr: byte_len 31", -EPROTO, lite_check_rpc_hdr(&h, 31));
	h.len = cpu_to_le32(-32);
	expect("rpc hdr: byte_len 0, len 2^32 - 32", -EPROTO, lite_check_rpc_hdr(&h, 0));
	h.len = 0;
	h.call_id = cpu_to_le32(LITE_CALL_ID_MAX);
	expect("rpc hdr: call id LITE_CALL_ID_MAX", 0, lite_check_rpc_hdr(&h, 32));
	h.call_id = cpu_to_le32(LITE_CALL_ID_MAX + 1);
	expect("rpc hdr: call id past the immediate's 28 bits", -EPROTO,
	       lite_check_rpc_hdr(&h, 32));
	h.call_id = 0;
	expect("rpc hdr: one-way", 0, lite_check_rpc_hdr(&h, 32));
	h.reserved = cpu_to_le32(1);
	expect("rpc hdr: reserved set", -EPROTO, lite_check_rpc_hdr(&h, 32));
	h.reserved = 0;
	h.magic = cpu_to_le32(LITE_CTRL_MAGIC);
	expect("rpc hdr: bad magic", -EPROTO, lite_check_rpc_hdr(&h, 32));
}

/* ---- the manager's messages ---------------------------------------------- */

static int mgr_hdr(u16 type, u32 len)
{
	struct lite_msg_hdr h = valid_mgr_hdr(type, len);
	u16 t;
	u32 l;

	return lite_check_mgr_hdr(&h, &t, &l);
}

static void test_mgr_hdr(void)
{
	struct lite_msg_hdr h = valid_mgr_hdr(LITE_MSG_QP_INFO,
					      sizeof(struct lite_msg_qp_info));
	u16 t, type = 0;
	u32 len = 0;

	for (t = LITE_MSG_WELCOME; t <= LITE_MSG_ECHO; t++)
		expect_len("mgr: type %u, %u bytes", t, valid_mgr_len(t), mgr_hdr);
	expect("mgr: QP_INFO header", 0, lite_check_mgr_hdr(&h, &type, &len));
	expect_val("mgr: QP_INFO header: type", LITE_MSG_QP_INFO, type);
	expect_val("mgr: QP_INFO header: length", LITE_MSG_MAX_PAYLOAD, len);
	expect("mgr: JOIN (a node never gets one)", -EPROTO,
	       mgr_hdr(LITE_MSG_JOIN, sizeof(struct lite_msg_join)));
	expect("mgr: type 0", -EPROTO, mgr_hdr(0, 0));
	expect("mgr: type 9", -EPROTO, mgr_hdr(LITE_MSG_ECHO + 1, 0));
	expect("mgr: a version 1 WELCOME (8 bytes, no MAC)", -EPROTO,
	       mgr_hdr(LITE_MSG_WELCOME, 8));
	expect("mgr: type 0xffff", -EPROTO, mgr_hdr(0xffff, 0));
	expect("mgr: 4 GiB payload", -EPROTO, mgr_hdr(LITE_MSG_PEER_UP, 0xffffffff));
	h.magic = cpu_to_le32(LITE_CTRL_MAGIC);
	expect("mgr: bad magic", -EPROTO, lite_check_mgr_hdr(&h, &type, &len));
	h.magic = cpu_to_le32(LITE_PROTO_MAGIC);
	h.version = cpu_to_le16(LITE_PROTO_VERSION + 1);
	expect("mgr: next version", -EPROTO, lite_check_mgr_hdr(&h, &type, &len));
	h.version = cpu_to_le16(LITE_PROTO_VERSION);
	h.reserved = cpu_to_le32(1);
	expect("mgr: reserved set", -EPROTO, lite_check_mgr_hdr(&h, &type, &len));
}

static void test_welcome(void)
{
	struct lite_msg_welcome w = valid_welcome();

	expect("welcome: node 2, K 4, generation 1", 0, lite_check_mgr_welcome(&w, K));
	expect("welcome: K not what we asked for", -EPROTO,
	       lite_check_mgr_welcome(&w, K + 1));
	w.generation = 0;
	expect("welcome: generation 0", -EPROTO, lite_check_mgr_welcome(&w, K));
	w.generation = cpu_to_le32(0xffffffff);
	expect("welcome: generation 2^32 - 1", 0, lite_check_mgr_welcome(&w, K));
	w.node_id = 0;
	expect("welcome: node 0", -EPROTO, lite_check_mgr_welcome(&w, K));
	w.node_id = cpu_to_le16(LITE_MAX_NODES - 1);
	expect("welcome: node 63", 0, lite_check_mgr_welcome(&w, K));
	w.node_id = cpu_to_le16(LITE_MAX_NODES);
	expect("welcome: node 64", -EPROTO, lite_check_mgr_welcome(&w, K));
	w.node_id = cpu_to_le16(2);
	w.qps_per_peer = 0;
	expect("welcome: K 0", -EPROTO, lite_check_mgr_welcome(&w, K));
}

static void test_peer_up(void)
{
	const struct lite_port_addr eth_v2 = {
		.link_layer = LITE_LINK_ETHERNET, .gid_type = LITE_GID_ROCE_V2,
	}, *eth = &eth_v2;
	const struct lite_port_addr ib = {
		.link_layer = LITE_LINK_IB, .gid_type = LITE_GID_IB,
	};
	const struct lite_port_addr eth_v1 = {
		.link_layer = LITE_LINK_ETHERNET, .gid_type = LITE_GID_ROCE_V1,
	};
	struct lite_msg_peer_up up = valid_peer_up();

	expect("peer_up: node 2 over RoCE", 0, lite_check_mgr_peer_up(&up, SELF, eth));
	expect("peer_up: we are on IB", -EPROTO,
	       lite_check_mgr_peer_up(&up, SELF, &ib));
	expect("peer_up: we use RoCE v1", -EPROTO,
	       lite_check_mgr_peer_up(&up, SELF, &eth_v1));
	up.addr.rd_atom = 0;
	expect("peer_up: rd_atom 0", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up.addr.rd_atom = 1;
	expect("peer_up: rd_atom 1", 0, lite_check_mgr_peer_up(&up, SELF, eth));
	up = valid_peer_up();
	expect("peer_up: about ourselves", -EPROTO, lite_check_mgr_peer_up(&up, 2, eth));
	up.node_id = 0;
	expect("peer_up: node 0", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up.node_id = cpu_to_le16(LITE_MAX_NODES - 1);
	expect("peer_up: node 63", 0, lite_check_mgr_peer_up(&up, SELF, eth));
	up.node_id = cpu_to_le16(LITE_MAX_NODES);
	expect("peer_up: node 64", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up = valid_peer_up();
	up.generation = 0;
	expect("peer_up: generation 0", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up = valid_peer_up();
	up.reserved = cpu_to_le16(1);
	expect("peer_up: reserved set", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up = valid_peer_up();
	up.addr.reserved[1] = 1;
	expect("peer_up: address reserved set", -EPROTO,
	       lite_check_mgr_peer_up(&up, SELF, eth));
	up = valid_peer_up();
	up.addr.mtu = 0;
	expect("peer_up: mtu 0", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up.addr.mtu = IB_MTU_256;
	expect("peer_up: mtu 256", 0, lite_check_mgr_peer_up(&up, SELF, eth));
	up.addr.mtu = IB_MTU_4096;
	expect("peer_up: mtu 4096", 0, lite_check_mgr_peer_up(&up, SELF, eth));
	up.addr.mtu = IB_MTU_4096 + 1;
	expect("peer_up: mtu 6", -EPROTO, lite_check_mgr_peer_up(&up, SELF, eth));
	up = valid_peer_up();
	memset(up.name, 'x', LITE_NAME_LEN - 1);
	expect("peer_up: 31-character name", 0, lite_check_mgr_peer_up(&up, SELF, eth));
	memset(up.name, 'x', LITE_NAME_LEN);
	expect("peer_up: name without its NUL", -EPROTO,
	       lite_check_mgr_peer_up(&up, SELF, eth));
}

static void test_qp_info(void)
{
	struct lite_msg_qp_info q = valid_qp_info(K);

	expect("qp_info: K QPs from node 2", 0, lite_check_mgr_qp_info(&q, SELF, K));
	expect("qp_info: from ourselves", -EPROTO, lite_check_mgr_qp_info(&q, 2, K));
	expect("qp_info: nr_qps is not K", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K + 1));
	q.src_node = 0;
	expect("qp_info: from node 0", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K));
	q.src_node = cpu_to_le16(LITE_MAX_NODES);
	expect("qp_info: from node 64", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.reserved = cpu_to_le16(1);
	expect("qp_info: reserved set", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.qp[K - 1].qpn = cpu_to_le32(0xffffff);
	q.qp[K - 1].psn = cpu_to_le32(0xffffff);
	expect("qp_info: 24-bit qpn and psn", 0, lite_check_mgr_qp_info(&q, SELF, K));
	q.qp[K - 1].qpn = cpu_to_le32(0x1000000);
	expect("qp_info: 25-bit qpn", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.qp[0].psn = cpu_to_le32(0x1000000);
	expect("qp_info: 25-bit psn", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.qp[K].psn = cpu_to_le32(1);
	expect("qp_info: an entry past nr_qps", -EPROTO, lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.qp[1].flags = LITE_QP_EP_SET | LITE_QP_EP_RTR;
	q.qp[1].epoch = cpu_to_le32(7);
	memset(&q.qp[2], 0, sizeof(q.qp[2]));
	expect("qp_info: one QP connected, one not news", 0,
	       lite_check_mgr_qp_info(&q, SELF, K));
	q.qp[2].psn = cpu_to_le32(1);
	expect("qp_info: an entry without SET but a psn", -EPROTO,
	       lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.qp[0].flags |= 0x04;
	expect("qp_info: an unknown entry flag", -EPROTO,
	       lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	q.qp[0].reserved[2] = 1;
	expect("qp_info: an entry's reserved byte", -EPROTO,
	       lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(K);
	memset(q.qp, 0, sizeof(q.qp));
	expect("qp_info: no entry SET", -EPROTO,
	       lite_check_mgr_qp_info(&q, SELF, K));
	q = valid_qp_info(LITE_MAX_QPS_PER_PEER);
	expect("qp_info: 16 QPs", 0,
	       lite_check_mgr_qp_info(&q, SELF, LITE_MAX_QPS_PER_PEER));
	q = valid_qp_info(0);
	expect("qp_info: 0 QPs, K 0", -EPROTO, lite_check_mgr_qp_info(&q, SELF, 0));
	q = valid_qp_info(LITE_MAX_QPS_PER_PEER + 1);
	expect("qp_info: 17 QPs, K 17", -EPROTO,
	       lite_check_mgr_qp_info(&q, SELF, LITE_MAX_QPS_PER_PEER + 1));
}

static void test_peer_down(void)
{
	struct lite_msg_peer_down d = valid_peer_down();

	expect("peer_down: node 2", 0, lite_check_mgr_peer_down(&d, SELF));
	expect("peer_down: ourselves", -EPROTO, lite_check_mgr_peer_down(&d, 2));
	d.generation = 0;
	expect("peer_down: generation 0 (stale, not malformed)", 0,
	       lite_check_mgr_peer_down(&d, SELF));
	d.reserved = cpu_to_le16(1);
	expect("peer_down: reserved set", -EPROTO, lite_check_mgr_peer_down(&d, SELF));
	d.reserved = 0;
	d.node_id = 0;
	expect("peer_down: node 0", -EPROTO, lite_check_mgr_peer_down(&d, SELF));
	d.node_id = cpu_to_le16(LITE_MAX_NODES);
	expect("peer_down: node 64", -EPROTO, lite_check_mgr_peer_down(&d, SELF));
}

int main(void)
{
	test_ctrl_hdr();
	test_ctrl_len();
	test_lmr_desc();
	test_rpc_place();
	test_rpc_hdr();
	test_mgr_hdr();
	test_welcome();
	test_peer_up();
	test_qp_info();
	test_peer_down();
	printf("test_wire: %d passed, %d failed\n", passed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
