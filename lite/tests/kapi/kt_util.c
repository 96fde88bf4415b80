// SPDX-License-Identifier: GPL-2.0
/* The helpers of the client's checks (kt.h). */
#include "kt.h"

#include <linux/string.h>

bool kt_eq_(struct kt *t, int line, const char *expr, long long got,
	    long long want)
{
	if (got == want)
		return true;
	t->nfail++;
	pr_err("FAIL: %s: line %d: %s = %lld, expected %lld\n", t->cur, line,
	       expr, got, want);
	return false;
}

bool kt_true_(struct kt *t, int line, const char *expr, bool cond)
{
	if (cond)
		return true;
	t->nfail++;
	pr_err("FAIL: %s: line %d: not true: %s\n", t->cur, line, expr);
	return false;
}

void kt_pattern(u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)((i + seed) * 2654435761U >> 13);
}

/* An LMR of @size bytes on @node with KT_PW; <= 0 (and a failure) if not. */
int kt_alloc(struct kt *t, unsigned int node, u64 size, bool atomic)
{
	int lh = liteapi_alloc_remote_mem(node, size, atomic, KT_PW);

	if (lh <= 0) {
		t->nfail++;
		pr_err("FAIL: %s: alloc of %llu bytes on node %u: %d\n", t->cur,
		       size, node, lh);
	}
	return lh;
}

/*
 * An LMR of @size bytes on @node written with kt_pattern(@seed), which
 * t->ref holds too; <= 0 (and a failure) if it could not be had.
 */
int kt_alloc_filled(struct kt *t, unsigned int node, u64 size, u32 seed)
{
	int lh = kt_alloc(t, node, size, false);

	if (lh <= 0)
		return lh;
	kt_pattern(t->ref, size, seed);
	KT_EQ(liteapi_rdma_write_offset(lh, t->ref, size, 0, 0, KT_PW), 0);
	return lh;
}

/* Drop a handle: frees the LMR when it is the creator's. */
void kt_put(int *lh)
{
	if (*lh > 0)
		liteapi_umap_lmr(*lh);
	*lh = 0;
}

/* Does [@off, @off + @len) of @lh read as @want? */
bool kt_same(struct kt *t, int lh, u64 off, const u8 *want, u64 len)
{
	int ret = liteapi_rdma_read_offset(lh, t->buf, len, LITE_PRIO_NORMAL,
					   off, KT_PW);

	return ret == 0 && !memcmp(t->buf, want, len);
}

/* Publish @lh under @ident with @perm and ask for it back with @perm. */
int kt_publish_ask(struct kt *t, int lh, unsigned int node, u64 ident,
		   u32 perm)
{
	if (!KT_EQ(liteapi_add_askmr_table(ident, lh, perm, KT_PW), 0))
		return -EINVAL;
	return liteapi_ask_mr(node, ident, perm, KT_PW);
}

/*
 * A request to a server: @r, @plen bytes of payload (already in place
 * after t->req), the reply into t->rbuf (@room bytes).
 */
int kt_call(struct kt *t, unsigned int node, const struct kt_req *r,
	    u32 plen, u32 room)
{
	*t->req = *r;
	return liteapi_send_reply_imm(node, kt_port, t->req, sizeof(*r) + plen,
				      t->rbuf, room, LITE_PRIO_NORMAL);
}

/* STATUS of @node into *@st; false (and a failure) when the call fails. */
bool kt_status(struct kt *t, unsigned int node, struct kt_resp *st)
{
	struct kt_req r = { .op = KT_OP_STATUS };

	if (!KT_EQ(kt_call(t, node, &r, 0, sizeof(*st)), sizeof(*st)))
		return false;
	*st = *kt_resp(t);
	return KT_EQ(st->node, node);
}

/* The server's own checks, counted in its STATUS, must not have failed. */
void kt_server_clean(struct kt *t, unsigned int node)
{
	struct kt_resp st;

	if (kt_status(t, node, &st))
		KT_EQ(st.ret[0], 0);
}
