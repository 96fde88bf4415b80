/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks of the messages LITE receives from the network (wire_check.c).
 * Each returns 0 or -EPROTO and reads nothing but its arguments and the
 * table of control types. In user space (fuzz/), include fuzz/kshim.h
 * before this header.
 */
#ifndef LITE_WIRE_CHECK_H
#define LITE_WIRE_CHECK_H

#include <linux/types.h>

#include "wire.h"
#include "../include/lite_proto.h"

/* Control messages and LMR descriptions from other nodes (wire.h) */
struct lite_ctrl_type_info {
	const char	*name;
	u16		req_size;
	u16		resp_size;	/* but for LMR descriptions */
};
extern const struct lite_ctrl_type_info lite_ctrl_types[LITE_CTRL_NR_TYPES];

int lite_check_ctrl_hdr(const void *buf, u32 len, u16 peer_id, u32 peer_gen,
			u16 *type, u32 *plen);
int lite_check_ctrl_len(u16 type, u32 plen);
int lite_check_lmr_desc(const struct lite_lmr_desc *d, u32 len);

/* RPC requests in a ring (wire.h) */
int lite_check_rpc_place(u32 byte_len, u32 off, u32 pos, u32 ring_size,
			 u32 *span);
int lite_check_rpc_hdr(const struct lite_rpc_hdr *hdr, u32 byte_len);

/* Messages from the manager (include/lite_proto.h) */
int lite_check_mgr_hdr(const struct lite_msg_hdr *hdr, u16 *type, u32 *len);
int lite_check_mgr_welcome(const struct lite_msg_welcome *w, unsigned int k);
int lite_check_mgr_peer_up(const struct lite_msg_peer_up *up, u16 self_id,
			   const struct lite_port_addr *self);
int lite_check_mgr_qp_info(const struct lite_msg_qp_info *info, u16 self_id,
			   unsigned int k);
int lite_check_mgr_peer_down(const struct lite_msg_peer_down *down,
			     u16 self_id);

#endif /* LITE_WIRE_CHECK_H */
