// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Messages and nonces the tests build on: fixture.h. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"

void fixture_join(struct lite_msg *m, const char *name, unsigned int k)
{
	lite_msg_init(m, LITE_MSG_JOIN);
	m->join.addr.gid[0] = 0xfe;
	m->join.addr.gid[1] = 0x80;
	m->join.addr.link_layer = LITE_LINK_ETHERNET;
	m->join.addr.mtu = 3;
	m->join.addr.gid_type = LITE_GID_ROCE_V2;
	m->join.addr.rd_atom = 16;
	m->join.qps_per_peer = htole16(k);
	m->join.ib_port = 1;
	snprintf(m->join.name, sizeof(m->join.name), "%s", name);
}

int fixture_random(void *ctx, void *buf, size_t len)
{
	unsigned int *count = ctx;

	memset(buf, 0, len);
	memcpy(buf, count, sizeof(*count));
	(*count)++;
	return 0;
}
