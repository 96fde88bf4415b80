/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages that ../module/wire_check.c accepts, for test_wire and fuzz_wire: the
 * unit test alters one field at a time, the fuzzer XORs its input onto
 * them. Include it after kshim.h.
 */
#ifndef LITE_FUZZ_WIRE_VALID_H
#define LITE_FUZZ_WIRE_VALID_H

#include "../module/wire_check.h"

#define PEER		3	/* the sender of control messages */
#define PEER_GEN	9
#define SELF		1	/* this node, for the manager's messages */
#define K		4	/* QPs per peer */

/* The bytes of an LMR description of @n chunks. */
#define DESC_LEN(n)	(sizeof(struct lite_lmr_desc) + (n) * sizeof(__le64))

/* A request of @type from PEER with @plen payload bytes. */
struct lite_ctrl_hdr valid_ctrl_hdr(u16 type, u32 plen);
/*
 * An LMR description of @size bytes in @n chunks of 1 << @shift, in @room
 * bytes at @d: the chunk addresses that fit are filled in.
 */
void valid_lmr_desc(struct lite_lmr_desc *d, size_t room, u64 size, u8 shift,
		    u32 n);
/* An RPC call with @plen payload bytes. */
struct lite_rpc_hdr valid_rpc_hdr(u32 plen);
/* A header of the manager's, of @type with @len payload bytes. */
struct lite_msg_hdr valid_mgr_hdr(u16 type, u32 len);
/*
 * The payload length of each manager message type a node receives
 * (LITE_MSG_WELCOME .. LITE_MSG_ECHO), written out here rather than
 * taken from wire_check.c, which is what it checks. Any other type gets
 * the largest (QP_INFO's): where a fuzzed header's length starts from.
 */
u32 valid_mgr_len(u16 type);
/* The manager's messages to SELF about node 2. */
struct lite_msg_welcome valid_welcome(void);
struct lite_msg_peer_up valid_peer_up(void);
struct lite_msg_qp_info valid_qp_info(unsigned int nr_qps);
struct lite_msg_peer_down valid_peer_down(void);

#endif /* LITE_FUZZ_WIRE_VALID_H */
