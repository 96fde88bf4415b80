/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two sides of the control messages share: ctrl.c (requests
 * out, responses in, sending) and ctrl_serve.c (requests in, served).
 */
#ifndef LITE_CTRL_PRIV_H
#define LITE_CTRL_PRIV_H

#include <linux/types.h>

struct lite_peer;

int lite_ctrl_send(struct lite_peer *peer, u16 type, u64 req_id, int status,
		   const void *payload, u32 len);
void lite_ctrl_complete(u16 src, u64 req_id, int status, const void *payload,
			u32 len);
void lite_ctrl_tx_drain(void);
int lite_ctrl_dispatch(u16 src, u32 src_gen, u16 type, const void *req,
		       u32 len, void *resp, u32 *resp_len);
void lite_ctrl_serve_peer_down(u16 node);

#endif /* LITE_CTRL_PRIV_H */
