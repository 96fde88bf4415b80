// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of sharing LMRs: publication under an identifier, asking for
 * it (here and from a server), with what permissions and password, and
 * what deregistering and unmapping do to every node's mappings.
 */
#include "kt.h"

#include <linux/string.h>

/* 4 KiB LMRs on this node (*@l) and on s1 (*@a); false if one failed. */
static bool kt_alloc_me_s1(struct kt *t, int *l, int *a)
{
	*l = kt_alloc(t, t->me, 4096, false);
	*a = kt_alloc(t, t->s1, 4096, false);
	return *l > 0 && *a > 0;
}

void kt_add_askmr_table(struct kt *t)
{
	u64 id = t->ident + 100;
	int l, r, h = 0;

	if (!kt_alloc_me_s1(t, &l, &r))
		goto out;
	KT_EQ(liteapi_add_askmr_table(id, l, KT_RW, KT_PW), 0);
	KT_EQ(liteapi_add_askmr_table(id, l, LITE_PERM_READ, KT_PW), -EEXIST);
	/* Identifiers are per node: s1 may have its own id. */
	KT_EQ(liteapi_add_askmr_table(id, r, LITE_PERM_READ | LITE_PERM_SHARE,
				      KT_PW), 0);
	KT_EQ(liteapi_add_askmr_table(id + 1, r, LITE_PERM_ADMIN, KT_PW), -EINVAL);
	KT_EQ(liteapi_add_askmr_table(id + 1, r, 0, KT_PW), -EINVAL);
	KT_EQ(liteapi_add_askmr_table(id + 1, r, 0x20, KT_PW), -EINVAL);
	/* ATOMIC on an LMR that is not atomic: its handle has no such bit. */
	KT_EQ(liteapi_add_askmr_table(id + 1, r, LITE_PERM_ATOMIC, KT_PW), -EPERM);
	KT_EQ(liteapi_add_askmr_table(id + 1, KT_BAD_HANDLE, LITE_PERM_READ, KT_PW),
	      -ENOENT);
	/* What was published is what askers get. */
	h = liteapi_ask_mr(t->s1, id, LITE_PERM_READ | LITE_PERM_SHARE, KT_PW);
	KT_TRUE(h > 0);
	/* Re-publishing through a mapping: at most its own bits. */
	KT_EQ(liteapi_add_askmr_table(id + 2, h, KT_RW, KT_PW), -EPERM);
	KT_EQ(liteapi_add_askmr_table(id + 2, h, LITE_PERM_READ, KT_PW + 1), 0);
	kt_put(&h);
	h = liteapi_ask_mr(t->s1, id + 2, LITE_PERM_READ, KT_PW + 1);
	KT_TRUE(h > 0);
	kt_put(&h);
	/* Freeing the LMR withdraws its publications. */
	kt_put(&l);
	kt_put(&r);
	KT_EQ(liteapi_ask_mr(t->me, id, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id + 2, LITE_PERM_READ, KT_PW + 1), -EACCES);
out:
	kt_put(&l);
	kt_put(&r);
}

void kt_ask_mr(struct kt *t)
{
	struct kt_req r = { .op = KT_OP_ASK_WRITE, .password = KT_PW };
	u64 id = t->ident + 200;
	int l, a, hl = 0, ha = 0;

	if (!kt_alloc_me_s1(t, &l, &a))
		goto out;
	hl = kt_publish_ask(t, l, t->me, id, KT_RW);
	KT_TRUE(hl > 0 && hl != l);
	kt_pattern(t->ref, 4096, 21);
	KT_EQ(liteapi_rdma_write_offset(hl, t->ref, 4096, 0, 0, KT_PW), 0);
	KT_TRUE(kt_same(t, l, 0, t->ref, 4096));
	KT_EQ(liteapi_rdma_write_offset(a, t->ref, 4096, 0, 0, KT_PW), 0);
	ha = kt_publish_ask(t, a, t->s1, id + 1, LITE_PERM_READ);
	KT_TRUE(ha > 0);
	KT_TRUE(kt_same(t, ha, 0, t->ref, 4096));
	/* A read-only mapping: no write, memset, memcpy into it, free. */
	KT_EQ(liteapi_rdma_write_offset(ha, t->ref, 8, 0, 0, KT_PW), -EPERM);
	KT_EQ(liteapi_remote_memset(ha, 0, 0, 8), -EPERM);
	KT_EQ(liteapi_rdma_mr_memcpy(ha, 0, l, 0, 8), -EPERM);
	KT_EQ(liteapi_deregister_mr(ha), -EPERM);
	KT_TRUE(kt_same(t, a, 0, t->ref, 4096));
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, LITE_PERM_READ, KT_PW + 1), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id + 77, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, KT_RW, KT_PW), -EPERM);
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, 0, KT_PW), -EINVAL);
	KT_EQ(liteapi_ask_mr(t->s1, id + 1, 0x20, KT_PW), -EINVAL);
	KT_EQ(liteapi_ask_mr(0, id + 1, LITE_PERM_READ, KT_PW), -EINVAL);
	KT_EQ(liteapi_ask_mr(KT_NO_NODE, id + 1, LITE_PERM_READ, KT_PW), -ENOTCONN);
	/* Another node asks for this node's LMR and writes into it. */
	r.node = t->me;
	r.ident = id;
	r.arg = KT_RW;
	r.arg2 = 0x77;
	if (KT_EQ(kt_call(t, t->s2, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp))) {
		KT_EQ(kt_resp(t)->ret[0], 0);	/* ask */
		KT_EQ(kt_resp(t)->ret[1], 0);	/* write */
		KT_EQ(kt_resp(t)->ret[2], -EACCES);	/* ask, wrong password */
	}
	memset(t->ref, 0x77, 64);
	KT_TRUE(kt_same(t, l, 0, t->ref, 64));
	/* ... and for more than s1 published: refused there. */
	r.node = t->s1;
	r.ident = id + 1;
	if (KT_EQ(kt_call(t, t->s2, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp)))
		KT_EQ(kt_resp(t)->ret[0], -EPERM);
	kt_server_clean(t, t->s2);
out:
	kt_put(&hl);
	kt_put(&ha);
	kt_put(&l);
	kt_put(&a);
}

/* Server @node asks for (@owner, @ident) READ and keeps the handle. */
static void kt_keep(struct kt *t, unsigned int node, unsigned int owner,
		    u64 ident)
{
	struct kt_req r = {
		.op = KT_OP_ASK_KEEP, .node = owner, .ident = ident,
		.password = KT_PW,
	};

	if (KT_EQ(kt_call(t, node, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp))) {
		KT_EQ(kt_resp(t)->ret[0], 0);	/* ask */
		KT_EQ(kt_resp(t)->ret[1], 0);	/* read */
	}
}

/* The handle server @node kept must fail with @want, and go. */
static void kt_kept_is(struct kt *t, unsigned int node, int want)
{
	struct kt_req r = { .op = KT_OP_USE_KEPT };

	if (KT_EQ(kt_call(t, node, &r, 0, sizeof(struct kt_resp)),
		  sizeof(struct kt_resp))) {
		KT_EQ(kt_resp(t)->ret[0], want);	/* read */
		KT_EQ(kt_resp(t)->ret[1], 0);		/* umap */
	}
}

void kt_deregister_mr(struct kt *t)
{
	u64 id = t->ident + 300;
	int l, a, hl = 0, ha = 0;

	if (!kt_alloc_me_s1(t, &l, &a))
		goto out;
	hl = kt_publish_ask(t, l, t->me, id, LITE_PERM_READ);
	ha = kt_publish_ask(t, a, t->s1, id, LITE_PERM_READ);
	KT_TRUE(hl > 0 && ha > 0);
	/* Mappings elsewhere: s1 maps ours, s2 maps s1's. */
	kt_keep(t, t->s1, t->me, id);
	kt_keep(t, t->s2, t->s1, id);
	KT_EQ(liteapi_deregister_mr(hl), -EPERM);	/* no ADMIN */
	if (!KT_EQ(liteapi_deregister_mr(l), 0) ||
	    !KT_EQ(liteapi_deregister_mr(a), 0))
		goto out;
	KT_EQ(liteapi_deregister_mr(l), -ENOENT);
	KT_EQ(liteapi_rdma_read_offset(l, t->buf, 8, 0, 0, KT_PW), -ENOENT);
	/* Every mapping, on every node, is revoked. */
	KT_EQ(liteapi_rdma_read_offset(hl, t->buf, 8, 0, 0, KT_PW), -EKEYREVOKED);
	KT_EQ(liteapi_rdma_read_offset(ha, t->buf, 8, 0, 0, KT_PW), -EKEYREVOKED);
	kt_kept_is(t, t->s1, -EKEYREVOKED);
	kt_kept_is(t, t->s2, -EKEYREVOKED);
	KT_EQ(liteapi_ask_mr(t->s1, id, LITE_PERM_READ, KT_PW), -EACCES);
	KT_EQ(liteapi_deregister_mr(KT_BAD_HANDLE), -ENOENT);
out:
	kt_put(&hl);
	kt_put(&ha);
	/* Already freed (-ENOENT) unless a step above failed. */
	kt_put(&l);
	kt_put(&a);
}

void kt_umap_lmr(struct kt *t)
{
	unsigned int node[2] = { t->me, t->s1 };
	u64 id = t->ident + 400;
	int i, l, h, h2;

	for (i = 0; i < 2; i++) {
		l = kt_alloc_filled(t, node[i], 4096, 40 + i);
		if (l <= 0)
			continue;
		h = kt_publish_ask(t, l, node[i], id + i, LITE_PERM_READ);
		KT_TRUE(h > 0);
		KT_EQ(liteapi_umap_lmr(h), 0);
		KT_EQ(liteapi_umap_lmr(h), -ENOENT);
		KT_EQ(liteapi_rdma_read_offset(h, t->buf, 8, 0, 0, KT_PW), -ENOENT);
		/* The LMR stays, with its data and its publication. */
		KT_TRUE(kt_same(t, l, 0, t->ref, 4096));
		h2 = liteapi_ask_mr(node[i], id + i, LITE_PERM_READ, KT_PW);
		KT_TRUE(h2 > 0);
		KT_TRUE(kt_same(t, h2, 0, t->ref, 4096));
		/* Unmapping the creator's handle frees the LMR. */
		KT_EQ(liteapi_umap_lmr(l), 0);
		KT_EQ(liteapi_rdma_read_offset(h2, t->buf, 8, 0, 0, KT_PW),
		      -EKEYREVOKED);
		KT_EQ(liteapi_umap_lmr(h2), 0);
		KT_EQ(liteapi_umap_lmr(l), -ENOENT);
	}
	KT_EQ(liteapi_umap_lmr(KT_BAD_HANDLE), -ENOENT);
	KT_EQ(liteapi_umap_lmr(0), -ENOENT);
}
