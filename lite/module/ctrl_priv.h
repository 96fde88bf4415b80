/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two sides of the control messages share: ctrl.c (requests
 * out, responses in, sending) and ctrl_serve.c (requests in, served).
 */
#ifndef LITE_CTRL_PRIV_H
#define LITE_CTRL_PRIV_H

#include <linux/types.h>

#include "wire.h"

struct lite_peer;

/*
 * Requests whose requester may give up on them: the serving node stops
 * (at their budget, or on CANCEL) and undoes what they made. The rest
 * (FREE, REVOKE, the locks' hand-offs...) are carried out whatever their
 * requester does, or memory and locks would be left behind.
 */
static inline bool lite_ctrl_abandonable(u16 type)
{
	return type == LITE_CTRL_ALLOC || type == LITE_CTRL_MEMSET ||
	       type == LITE_CTRL_MEMMOVE || type == LITE_CTRL_LOCK_CREATE;
}

int lite_ctrl_send(struct lite_peer *peer, u16 type, u64 req_id, int status,
		   const void *payload, u32 len);
void lite_ctrl_complete(u16 src, u64 req_id, int status, const void *payload,
			u32 len);
void lite_ctrl_tx_drain(void);
int lite_ctrl_dispatch(u16 src, u32 src_gen, u16 type, const void *req,
		       u32 len, void *resp, u32 *resp_len);
void lite_ctrl_serve_peer_down(u16 node);

#endif /* LITE_CTRL_PRIV_H */
