// SPDX-License-Identifier: GPL-2.0
/*
 * LITE's memory pool: the only memory of this node a peer can reach.
 *
 * The pool is a list of regions. A region is a few 4 MiB blocks registered
 * with the device as one memory region by fast registration (IB_WR_REG_MR,
 * 4 MiB pages), so all of LITE's memory is a handful of rkeys and a few
 * translation entries each, and nothing else of the node is reachable.
 * LMRs, RPC rings and RPC reply buffers are carved from it in pieces of a
 * power of two bytes, 4 KiB .. 4 MiB, aligned to their size, so a piece
 * never crosses a block. A region's iova is its rkey << 32: the address
 * of a byte names the key that reaches it, and an LMR description needs no
 * key per chunk.
 *
 * The pool grows a region at a time up to pool_max_mb and gives back every
 * empty region but one. When the node leaves, its regions are deregistered
 * and unmapped (the device may be going); their pages are freed when the
 * last piece still held (by a local handle, an abandoned call) goes.
 *
 * With unsafe_global_rkey=1 nothing is registered: peers reach pieces by
 * DMA address through the PD's global rkey, as they reach every other
 * page the device can DMA to. For devices without fast registration only.
 *
 * Peers write and read the pool at any time while the CPU works on it, so
 * the CPU and the device must always see the same bytes: no sync around a
 * CPU access could order it against a one-sided RDMA from a peer. A block
 * is therefore either pages mapped for streaming DMA where such a mapping
 * needs no sync (cache-coherent DMA that is never bounced, and devices
 * whose DMA is virtual, rxe and siw), or, where streaming DMA may be
 * bounced or is not coherent, a coherent allocation (dma_alloc_coherent())
 * on the device (lite_pool_coherent_dev()). Either way nothing in LITE
 * needs to sync pool memory.
 */
#include <linux/dma-map-ops.h>	/* dev_is_dma_coherent() */
#include <linux/dma-mapping.h>
#include <linux/genalloc.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "lite_priv.h"

#define LITE_BLOCK_SHIFT	22	/* 4 MiB: order 10, the buddy's largest */
#define LITE_BLOCK_SIZE		(1UL << LITE_BLOCK_SHIFT)
/* gen_pool returns 0 for "none": a region's pieces are numbered from here. */
#define LITE_PIECE_BASE		LITE_BLOCK_SIZE
/* An address's upper half is its key: a region spans at most 4 GiB. */
#define LITE_REGION_MAX_BLOCKS	(1U << (32 - LITE_BLOCK_SHIFT))
#define LITE_REG_TIMEOUT	(10 * HZ)

static unsigned int lite_pool_region_mb = 64;
module_param_named(pool_region_mb, lite_pool_region_mb, uint, 0644);
MODULE_PARM_DESC(pool_region_mb, "LITE memory registered at once, in MiB, a multiple of 4 (default: 64)");

static unsigned int lite_pool_max_mb;
module_param_named(pool_max_mb, lite_pool_max_mb, uint, 0644);
MODULE_PARM_DESC(pool_max_mb, "most memory the pool (LMRs, RPC rings and reply buffers) holds, in MiB (default 0: three quarters of RAM)");

struct lite_block {
	void		*cpu;		/* where the CPU reaches it; NULL: none */
	u64		dma;		/* where the device does */
	union {
		struct page	*page;		/* streaming: its pages */
		dma_addr_t	handle;		/* coherent: the allocation's */
	};
};

struct lite_region {
	struct list_head	link;		/* lite_pool.regions, while live */
	struct llist_node	free_link;	/* lite_pool_frees */
	refcount_t		refs;		/* the list's, one per piece */
	atomic64_t		used;		/* bytes in pieces */
	struct gen_pool		*space;		/* LITE_PIECE_BASE + offset */
	struct ib_mr		*mr;		/* until unmapped */
	bool			fastreg;	/* else the global rkey */
	bool			atomic;		/* registered with remote atomics */
	u32			rkey;
	u64			iova;		/* of byte 0, for peers */
	bool			mapped;		/* streaming blocks, until unmapped */
	struct device		*coherent;	/* held: coherent blocks from it */
	unsigned int		nr_blocks;
	struct lite_block	blocks[];
};

/*
 * Fault injection: the fallbacks for what some devices lack, run on any
 * (docs/hardware.md).
 */
static unsigned int lite_fault_page_kib;
module_param_named(fault_page_size_kib, lite_fault_page_kib, uint, 0444);
MODULE_PARM_DESC(fault_page_size_kib, "tests: register LITE memory in MR pages of at most this many KiB, as a device whose page_size_cap lacks the larger ones (irdma: 2048) (default: 0, the device's largest up to 4096)");

static bool lite_fault_refuse_atomic_reg;
module_param_named(fault_refuse_atomic_reg, lite_fault_refuse_atomic_reg, bool, 0444);
MODULE_PARM_DESC(fault_refuse_atomic_reg, "tests: refuse fast registration with remote atomic access, as mlx5 firmware with umr_modify_atomic_disabled does (default: N)");

static bool lite_fault_pool_coherent;
module_param_named(fault_pool_coherent, lite_fault_pool_coherent, bool, 0444);
MODULE_PARM_DESC(fault_pool_coherent, "tests: allocate LITE memory DMA-coherent, as where streaming DMA is bounced (SEV and TDX guests, swiotlb=force); on a device without DMA (rxe), on the DMA device under its net device (default: N)");

static struct {
	struct mutex		grow_lock;	/* start, stop, growth, shrinking */
	spinlock_t		lock;		/* the fields below */
	struct list_head	regions;
	u64			bytes;		/* in the live regions */
	struct lite_dev		*dev;		/* NULL: stopped */
	struct ib_qp		*qp;		/* carries the registrations */
	unsigned int		page_shift;	/* of the MRs' pages */
	bool			atomic_refused;	/* registering with atomics */
	struct device		*coherent;	/* held: blocks allocated on it */
} lite_pool = {
	.grow_lock	= __MUTEX_INITIALIZER(lite_pool.grow_lock),
	.lock		= __SPIN_LOCK_UNLOCKED(lite_pool.lock),
	.regions	= LIST_HEAD_INIT(lite_pool.regions),
};

static void lite_pool_shrink_work(struct work_struct *work);
static DECLARE_WORK(lite_pool_shrink, lite_pool_shrink_work);
/* Regions whose last piece went, maybe with interrupts off: freed here. */
static LLIST_HEAD(lite_pool_frees);
static void lite_pool_free_work(struct work_struct *work);
static DECLARE_WORK(lite_pool_free_regions, lite_pool_free_work);

static u64 lite_pool_max(void)
{
	unsigned int mb = READ_ONCE(lite_pool_max_mb);

	return mb ? (u64)mb << 20 : (totalram_pages() << PAGE_SHIFT) / 4 * 3;
}

/*
 * Under grow_lock, or once the region is out of the list. Coherent blocks
 * stay allocated (and DMA-able) until lite_region_free(): no rkey reaches
 * them any more.
 */
static void lite_region_unmap(struct lite_region *r, struct ib_device *ibdev)
{
	unsigned int i;

	if (r->mr) {
		ib_dereg_mr(r->mr);
		r->mr = NULL;
	}
	for (i = 0; r->mapped && i < r->nr_blocks; i++)
		ib_dma_unmap_page(ibdev, r->blocks[i].dma, LITE_BLOCK_SIZE,
				  DMA_BIDIRECTIONAL);
	r->mapped = false;
}

/*
 * Unmapped, no piece left; process context (gen_pool_destroy vfrees,
 * dma_free_coherent may sleep).
 */
static void lite_region_free(struct lite_region *r)
{
	struct lite_block *b;
	unsigned int i;

	if (r->space)
		gen_pool_destroy(r->space);
	for (i = 0; i < r->nr_blocks; i++) {
		b = &r->blocks[i];
		if (!b->cpu)
			continue;
		if (r->coherent)
			dma_free_coherent(r->coherent, LITE_BLOCK_SIZE, b->cpu,
					  b->handle);
		else
			__free_pages(b->page, LITE_BLOCK_SHIFT - PAGE_SHIFT);
	}
	put_device(r->coherent);
	kfree(r);
}

static void lite_pool_free_work(struct work_struct *work)
{
	struct lite_region *r, *tmp;

	llist_for_each_entry_safe(r, tmp, llist_del_all(&lite_pool_frees),
				  free_link)
		lite_region_free(r);
}

/* Any context. */
static void lite_region_put(struct lite_region *r)
{
	if (refcount_dec_and_test(&r->refs) &&
	    llist_add(&r->free_link, &lite_pool_frees))
		queue_work(system_long_wq, &lite_pool_free_regions);
}

/* A registration in flight: the waiter's and the completion's. */
struct lite_reg_wait {
	struct ib_cqe		cqe;
	struct completion	done;
	enum ib_wc_status	status;
	refcount_t		refs;
};

static void lite_pool_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct lite_reg_wait *w = container_of(wc->wr_cqe, struct lite_reg_wait,
					       cqe);

	w->status = wc->status;
	complete(&w->done);
	if (refcount_dec_and_test(&w->refs))
		kfree(w);
}

/*
 * Under grow_lock: a failed registration left the QP in error (or still
 * busy); the next one gets a fresh QP.
 */
static void lite_pool_qp_reset(struct lite_dev *dev)
{
	struct ib_qp *qp = lite_qp_create_loopback(dev, 1);

	if (IS_ERR(qp)) {
		pr_err("cannot recreate the registration QP: %ld\n",
		       PTR_ERR(qp));
		return;		/* the old one stays; growth keeps failing */
	}
	ib_destroy_qp(lite_pool.qp);
	lite_pool.qp = qp;
}

/*
 * The MRs' page size: the largest the device offers up to a block (4 MiB;
 * irdma offers 4 KiB, 2 MiB and 1 GiB), or 0 if none.
 */
static unsigned int lite_pool_page_shift(const struct lite_dev *dev)
{
	u64 cap = dev->ibdev->attrs.page_size_cap &
		  GENMASK_ULL(LITE_BLOCK_SHIFT, PAGE_SHIFT);

	if (lite_fault_page_kib)
		cap &= GENMASK_ULL(ilog2(lite_fault_page_kib) + 10, 0);
	return cap ? __fls(cap) : 0;
}

/* MR pages per 4 MiB block. */
static unsigned int lite_pool_pages_per_block(void)
{
	return 1U << (LITE_BLOCK_SHIFT - lite_pool.page_shift);
}

/**
 * lite_pool_atomic_refused() - did the device refuse registering LITE
 * memory with remote atomic access? (Atomics then run on the CPU.)
 */
bool lite_pool_atomic_refused(void)
{
	return READ_ONCE(lite_pool.atomic_refused);
}

/* Post @wr on the registration QP; the fault parameter refuses atomics. */
static int lite_pool_post_reg(struct ib_reg_wr *wr)
{
	if ((wr->access & IB_ACCESS_REMOTE_ATOMIC) &&
	    lite_fault_refuse_atomic_reg)
		return -EINVAL;		/* what mlx5's post returns then */
	return ib_post_send(lite_pool.qp, &wr->wr, NULL);
}

/* Register @r's blocks as one MR on @dev; under grow_lock. */
static int lite_region_register(struct lite_region *r, struct lite_dev *dev)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		     IB_ACCESS_REMOTE_WRITE;
	unsigned int ppb = lite_pool_pages_per_block();
	struct ib_reg_wr wr = {
		.wr = {
			.opcode		= IB_WR_REG_MR,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.access	= access,
	};
	struct lite_reg_wait *w;
	struct scatterlist *sgl;
	unsigned int i;
	int n, ret;

	if (lite_dev_atomics(dev) && !lite_pool.atomic_refused)
		wr.access |= IB_ACCESS_REMOTE_ATOMIC;
	r->mr = ib_alloc_mr(dev->pd, IB_MR_TYPE_MEM_REG, r->nr_blocks * ppb);
	if (IS_ERR(r->mr)) {
		ret = PTR_ERR(r->mr);
		r->mr = NULL;
		return ret;
	}
	/* Block i must be MR pages i * ppb.. for the iova below to hold. */
	for (i = 0; i < r->nr_blocks; i++) {
		if (r->blocks[i].dma & ((1ULL << lite_pool.page_shift) - 1)) {
			pr_err("a block of LITE memory at DMA address %#llx is not aligned to the MR pages\n",
			       r->blocks[i].dma);
			return -EINVAL;
		}
	}
	sgl = kmalloc_array(r->nr_blocks, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, r->nr_blocks);
	for (i = 0; i < r->nr_blocks; i++) {
		sg_dma_address(&sgl[i]) = r->blocks[i].dma;
		sg_dma_len(&sgl[i]) = LITE_BLOCK_SIZE;
	}
	n = ib_map_mr_sg(r->mr, sgl, r->nr_blocks, NULL,
			 1UL << lite_pool.page_shift);
	kfree(sgl);
	if (n != r->nr_blocks)
		return n < 0 ? n : -EINVAL;
	/* Our own iova, as ib_map_mr_sg_zbva() sets 0: see the top. */
	r->mr->iova = (u64)r->mr->rkey << 32;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->cqe.done = lite_pool_reg_done;
	init_completion(&w->done);
	refcount_set(&w->refs, 2);
	wr.wr.wr_cqe = &w->cqe;
	wr.mr = r->mr;
	wr.key = r->mr->rkey;
	lite_cq_await_begin(dev);
	ret = lite_pool_post_reg(&wr);
	if (ret == -EINVAL && (wr.access & IB_ACCESS_REMOTE_ATOMIC)) {
		/* Some mlx5 firmware: no atomics through fast registration. */
		pr_warn("%s refuses fast registration with remote atomic access: LITE memory is registered without it, atomics run on the CPU\n",
			dev_name(&dev->ibdev->dev));
		WRITE_ONCE(lite_pool.atomic_refused, true);
		wr.access &= ~IB_ACCESS_REMOTE_ATOMIC;
		ret = lite_pool_post_reg(&wr);
	}
	if (ret) {
		lite_cq_await_end(dev);
		kfree(w);
		return ret;
	}
	/* A local operation: the device completes it without a peer. */
	if (!wait_for_completion_timeout(&w->done, LITE_REG_TIMEOUT)) {
		pr_err("registering %u MiB of LITE memory: no completion in %u s\n",
		       r->nr_blocks << (LITE_BLOCK_SHIFT - 20),
		       LITE_REG_TIMEOUT / HZ);
		ret = -ETIMEDOUT;
	} else if (w->status != IB_WC_SUCCESS) {
		pr_err("registering %u MiB of LITE memory failed: %s\n",
		       r->nr_blocks << (LITE_BLOCK_SHIFT - 20),
		       ib_wc_status_msg(w->status));
		ret = -EIO;
	}
	lite_cq_await_end(dev);
	if (refcount_dec_and_test(&w->refs))
		kfree(w);
	if (ret) {
		lite_pool_qp_reset(dev);
		return ret;
	}
	r->fastreg = true;
	r->atomic = !!(wr.access & IB_ACCESS_REMOTE_ATOMIC);
	r->rkey = r->mr->rkey;
	r->iova = r->mr->iova;
	return 0;
}

/*
 * Block @i of @r: coherent memory on r->coherent, or zeroed pages (mapped
 * later). Either way it starts zeroed.
 */
static int lite_block_alloc(struct lite_region *r, unsigned int i,
			    struct lite_dev *dev)
{
	/* A user's allocation may fail; it never wakes the OOM killer. */
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct lite_block *b = &r->blocks[i];

	if (r->coherent) {
		b->cpu = dma_alloc_coherent(r->coherent, LITE_BLOCK_SIZE,
					    &b->handle, gfp);
		if (!b->cpu)
			return -ENOMEM;
		/* A virtual DMA device takes the CPU's address (tests). */
		b->dma = ib_uses_virt_dma(dev->ibdev) ? (uintptr_t)b->cpu :
							b->handle;
		return 0;
	}
	b->page = alloc_pages_node(dev->node, gfp | __GFP_ZERO,
				   LITE_BLOCK_SHIFT - PAGE_SHIFT);
	if (!b->page)
		return -ENOMEM;
	b->cpu = page_address(b->page);
	return 0;
}

/* A new region on @dev: allocated, mapped, registered; under grow_lock. */
static struct lite_region *lite_region_new(struct lite_dev *dev,
					   unsigned int nr_blocks)
{
	struct ib_device *ibdev = dev->ibdev;
	struct lite_region *r;
	unsigned int i;
	int ret = -ENOMEM;

	r = kzalloc(struct_size(r, blocks, nr_blocks), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->nr_blocks = nr_blocks;
	refcount_set(&r->refs, 1);
	atomic64_set(&r->used, 0);
	INIT_LIST_HEAD(&r->link);
	if (lite_pool.coherent)
		r->coherent = get_device(lite_pool.coherent);
	for (i = 0; i < nr_blocks; i++) {
		if (lite_block_alloc(r, i, dev))
			break;
		cond_resched();
	}
	/* Short of 4 MiB blocks: a smaller region will do. */
	if (!i) {
		if (r->coherent)
			pr_warn_ratelimited("no 4 MiB block of coherent DMA memory from %s: the pool cannot grow\n",
					    dev_name(r->coherent));
		goto err;
	}
	r->nr_blocks = nr_blocks = i;
	for (i = 0; !r->coherent && i < nr_blocks; i++) {
		r->blocks[i].dma = ib_dma_map_page(ibdev, r->blocks[i].page, 0,
						   LITE_BLOCK_SIZE,
						   DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(ibdev, r->blocks[i].dma)) {
			while (i--)
				ib_dma_unmap_page(ibdev, r->blocks[i].dma,
						  LITE_BLOCK_SIZE,
						  DMA_BIDIRECTIONAL);
			goto err;
		}
	}
	r->mapped = !r->coherent;
	r->space = gen_pool_create(PAGE_SHIFT, NUMA_NO_NODE);
	if (!r->space ||
	    gen_pool_add(r->space, LITE_PIECE_BASE,
			 (size_t)nr_blocks << LITE_BLOCK_SHIFT, NUMA_NO_NODE))
		goto err_unmap;
	if (lite_pool.qp) {
		ret = lite_region_register(r, dev);
		if (ret)
			goto err_unmap;
	} else {
		r->rkey = dev->pd->unsafe_global_rkey;
	}
	return r;

err_unmap:
	lite_region_unmap(r, ibdev);
err:
	lite_region_free(r);
	return ERR_PTR(ret);
}

/* Under lite_pool.lock: a piece of @size bytes from a live region. */
static bool lite_pool_take(u64 size, struct lite_piece *p)
{
	struct genpool_data_align align = { .align = size };
	struct lite_region *r;
	unsigned long addr;

	list_for_each_entry(r, &lite_pool.regions, link) {
		addr = gen_pool_alloc_algo(r->space, size,
					   gen_pool_first_fit_align, &align);
		if (!addr)
			continue;
		refcount_inc(&r->refs);
		atomic64_add(size, &r->used);
		*p = (struct lite_piece) {
			.region = r, .off = addr - LITE_PIECE_BASE, .size = size,
		};
		return true;
	}
	return false;
}

/*
 * Under grow_lock: add a region, unless the pool is stopped (-ENOTCONN)
 * or at its cap (-ENOMEM).
 */
static int lite_pool_grow(void)
{
	unsigned int nr = max(1U, READ_ONCE(lite_pool_region_mb) >>
				  (LITE_BLOCK_SHIFT - 20));
	struct lite_dev *dev = lite_pool.dev;
	struct lite_region *r;

	if (!dev)
		return -ENOTCONN;
	nr = min3(nr, LITE_REGION_MAX_BLOCKS,
		  dev->ibdev->attrs.max_fast_reg_page_list_len /
		  lite_pool_pages_per_block() ?: 1U);
	if (lite_pool.bytes + ((u64)nr << LITE_BLOCK_SHIFT) > lite_pool_max())
		return -ENOMEM;
	r = lite_region_new(dev, nr);
	if (IS_ERR(r))
		return PTR_ERR(r);
	spin_lock_bh(&lite_pool.lock);
	list_add_tail(&r->link, &lite_pool.regions);
	lite_pool.bytes += (u64)r->nr_blocks << LITE_BLOCK_SHIFT;
	spin_unlock_bh(&lite_pool.lock);
	return 0;
}

/**
 * lite_pool_alloc() - a piece of LITE memory peers can reach
 * @size: a power of two, PAGE_SIZE .. 4 MiB
 * @zero: clear it (it may hold what an earlier user left)
 * @p: filled with the piece
 *
 * Context: process context; may register a new region.
 * Return: 0, -EINVAL, -ENOMEM (memory or pool_max_mb exhausted) or
 * -ENOTCONN (the node is not joined).
 */
int lite_pool_alloc(u64 size, bool zero, struct lite_piece *p)
{
	bool got;
	int ret;

	if (size < PAGE_SIZE || size > LITE_BLOCK_SIZE || !is_power_of_2(size))
		return -EINVAL;
	for (;;) {
		spin_lock_bh(&lite_pool.lock);
		got = lite_pool.dev && lite_pool_take(size, p);
		spin_unlock_bh(&lite_pool.lock);
		if (got)
			break;
		mutex_lock(&lite_pool.grow_lock);
		/* Someone else may have grown it meanwhile. */
		spin_lock_bh(&lite_pool.lock);
		got = lite_pool.dev && lite_pool_take(size, p);
		spin_unlock_bh(&lite_pool.lock);
		ret = got ? 0 : lite_pool_grow();
		mutex_unlock(&lite_pool.grow_lock);
		if (ret)
			return ret;
		if (got)
			break;
	}
	if (zero)
		memset(lite_piece_kaddr(p, 0), 0, size);
	return 0;
}

/**
 * lite_pool_free() - give a piece back
 * @p: the piece; nothing may reach it any more (no peer holds its address
 *	or every peer that did has left)
 *
 * Context: any.
 */
void lite_pool_free(struct lite_piece *p)
{
	struct lite_region *r = p->region;

	if (!r)
		return;
	gen_pool_free(r->space, LITE_PIECE_BASE + p->off, p->size);
	if (!atomic64_sub_return(p->size, &r->used))
		queue_work(system_long_wq, &lite_pool_shrink);
	p->region = NULL;
	lite_region_put(r);
}

/* Deregister and free every empty region but one. */
static void lite_pool_shrink_work(struct work_struct *work)
{
	struct lite_region *r, *tmp;
	LIST_HEAD(empty);
	bool kept = false;

	mutex_lock(&lite_pool.grow_lock);
	spin_lock_bh(&lite_pool.lock);
	list_for_each_entry_safe(r, tmp, &lite_pool.regions, link) {
		if (atomic64_read(&r->used))
			continue;
		if (!kept) {
			kept = true;
			continue;
		}
		list_move(&r->link, &empty);
		lite_pool.bytes -= (u64)r->nr_blocks << LITE_BLOCK_SHIFT;
	}
	spin_unlock_bh(&lite_pool.lock);
	list_for_each_entry_safe(r, tmp, &empty, link) {
		list_del_init(&r->link);
		lite_region_unmap(r, lite_pool.dev->ibdev);
		lite_region_put(r);
	}
	mutex_unlock(&lite_pool.grow_lock);
}

/* Tests on a device without DMA: the DMA device under its net device. */
static struct device *lite_pool_netdev_dma_dev(struct lite_dev *dev)
{
	const struct ib_gid_attr *attr = lite_dev_gid_attr(dev);
	struct net_device *ndev;
	struct device *d = NULL;

	if (IS_ERR(attr))
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev))
		for (d = ndev->dev.parent; d; d = d->parent)
			if (d->dma_mask && *d->dma_mask)
				break;
	d = get_device(d);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return d;
}

/*
 * The device to allocate the pool's blocks coherent on (held), NULL for
 * pages mapped for streaming DMA, or an ERR_PTR. Streaming needs no sync
 * only where the device's DMA is virtual (rxe, siw), or cache-coherent and
 * never bounced. Where swiotlb may bounce it (forced in SEV and TDX guests
 * and by swiotlb=force; a device that cannot address all memory; an
 * untrusted device behind an IOMMU), dma_max_mapping_size() is below a
 * block: mapping a block would fail, and the NIC would see another copy
 * of it if it did not.
 */
static struct device *lite_pool_coherent_dev(struct lite_dev *dev)
{
	struct device *d = dev->ibdev->dma_device;
	const char *name = dev_name(&dev->ibdev->dev);

	if (ib_uses_virt_dma(dev->ibdev)) {
		if (!lite_fault_pool_coherent)
			return NULL;
		d = lite_pool_netdev_dma_dev(dev);
		if (!d) {
			pr_err("fault_pool_coherent: no DMA device under %s's net device\n",
			       name);
			return ERR_PTR(-ENODEV);
		}
		pr_info("fault_pool_coherent: LITE memory is allocated DMA-coherent on %s\n",
			dev_name(d));
		return d;
	}
	if (lite_fault_pool_coherent)
		pr_info("fault_pool_coherent: LITE memory is allocated DMA-coherent on %s\n",
			dev_name(d));
	else if (dma_max_mapping_size(d) < LITE_BLOCK_SIZE)
		pr_info("%s: streaming DMA may be bounced (swiotlb: an SEV or TDX guest, swiotlb=force, a DMA mask short of memory), at most %zu KiB at once: LITE memory is allocated DMA-coherent\n",
			name, dma_max_mapping_size(d) >> 10);
	else if (!dev_is_dma_coherent(d))
		pr_info("%s: DMA is not cache-coherent: LITE memory is allocated DMA-coherent\n",
			name);
	else
		return NULL;
	return get_device(d);
}

/**
 * lite_pool_start() - the pool for @dev, from joining on
 * @dev: the device, with its addressing refreshed (lite_device_get())
 *
 * Context: process context, membership lock held.
 * Return: 0, or a negative errno with the reason logged.
 */
int lite_pool_start(struct lite_dev *dev)
{
	const struct ib_device_attr *attrs = &dev->ibdev->attrs;
	struct device *coherent;
	struct ib_qp *qp = NULL;

	coherent = lite_pool_coherent_dev(dev);
	if (IS_ERR(coherent))
		return PTR_ERR(coherent);
	if (!lite_param_unsafe_global_rkey) {
		if (!(attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
		    !lite_pool_page_shift(dev)) {
			pr_err("%s cannot fast-register pages of 4 KiB to 4 MiB; load lite with unsafe_global_rkey=1 to expose all its DMA-able memory instead (docs/security.md)\n",
			       dev_name(&dev->ibdev->dev));
			put_device(coherent);
			return -EOPNOTSUPP;
		}
		if (attrs->max_fast_reg_page_list_len <
		    1U << (LITE_BLOCK_SHIFT - lite_pool_page_shift(dev))) {
			pr_err("%s cannot fast-register a 4 MiB block in %lu KiB pages (page lists of %u)\n",
			       dev_name(&dev->ibdev->dev),
			       1UL << (lite_pool_page_shift(dev) - 10),
			       attrs->max_fast_reg_page_list_len);
			put_device(coherent);
			return -EOPNOTSUPP;
		}
		if (lite_pool_page_shift(dev) != LITE_BLOCK_SHIFT)
			pr_info("LITE memory is registered in %lu KiB pages, the largest %s offers up to 4 MiB\n",
				1UL << (lite_pool_page_shift(dev) - 10),
				dev_name(&dev->ibdev->dev));
		qp = lite_qp_create_loopback(dev, 1);
		if (IS_ERR(qp)) {
			pr_err("cannot create the registration QP: %ld\n",
			       PTR_ERR(qp));
			put_device(coherent);
			return PTR_ERR(qp);
		}
	}
	mutex_lock(&lite_pool.grow_lock);
	lite_pool.qp = qp;
	lite_pool.coherent = coherent;
	lite_pool.page_shift = lite_pool_page_shift(dev);
	lite_pool.atomic_refused = false;
	spin_lock_bh(&lite_pool.lock);
	lite_pool.dev = dev;
	spin_unlock_bh(&lite_pool.lock);
	mutex_unlock(&lite_pool.grow_lock);
	return 0;
}

/**
 * lite_pool_stop() - no peer can reach this node's memory any more
 *
 * Every region is deregistered and unmapped now; a region's pages go when
 * its last piece does. Safe to call when not started.
 *
 * Context: process context, after every peer's QPs were destroyed.
 */
void lite_pool_stop(void)
{
	struct lite_region *r, *tmp;
	struct lite_dev *dev;
	LIST_HEAD(all);

	flush_work(&lite_pool_shrink);
	mutex_lock(&lite_pool.grow_lock);
	spin_lock_bh(&lite_pool.lock);
	dev = lite_pool.dev;
	lite_pool.dev = NULL;
	list_splice_init(&lite_pool.regions, &all);
	lite_pool.bytes = 0;
	spin_unlock_bh(&lite_pool.lock);
	list_for_each_entry_safe(r, tmp, &all, link) {
		list_del_init(&r->link);
		lite_region_unmap(r, dev->ibdev);
		lite_region_put(r);
	}
	if (lite_pool.qp) {
		ib_destroy_qp(lite_pool.qp);
		lite_pool.qp = NULL;
	}
	put_device(lite_pool.coherent);
	lite_pool.coherent = NULL;
	mutex_unlock(&lite_pool.grow_lock);
}

/* Where byte @off of piece @p is, for the CPU. */
void *lite_piece_kaddr(const struct lite_piece *p, u64 off)
{
	u64 at = p->off + off;

	return p->region->blocks[at >> LITE_BLOCK_SHIFT].cpu +
	       (at & (LITE_BLOCK_SIZE - 1));
}

/* Its DMA address, for local work requests (the PD's local_dma_lkey). */
u64 lite_piece_dma(const struct lite_piece *p, u64 off)
{
	u64 at = p->off + off;

	return p->region->blocks[at >> LITE_BLOCK_SHIFT].dma +
	       (at & (LITE_BLOCK_SIZE - 1));
}

/* Its address for peers, with lite_piece_rkey(). */
u64 lite_piece_addr(const struct lite_piece *p, u64 off)
{
	return p->region->fastreg ? p->region->iova + p->off + off :
				    lite_piece_dma(p, off);
}

u32 lite_piece_rkey(const struct lite_piece *p)
{
	return p->region->rkey;
}

/**
 * lite_pool_show() - the live regions, one line each, for debugfs
 * @buf: where to write
 * @size: its size
 *
 * Return: bytes written.
 */
size_t lite_pool_show(char *buf, size_t size)
{
	struct lite_region *r;
	size_t n = 0;

	spin_lock_bh(&lite_pool.lock);
	list_for_each_entry(r, &lite_pool.regions, link)
		n += scnprintf(buf + n, size - n,
			       "rkey 0x%08x iova 0x%016llx len %lu used %lld page_kib %lu atomic %d%s%s\n",
			       r->rkey, r->fastreg ? r->iova : r->blocks[0].dma,
			       (unsigned long)r->nr_blocks << LITE_BLOCK_SHIFT,
			       atomic64_read(&r->used),
			       r->fastreg ? 1UL << (lite_pool.page_shift - 10) : 0,
			       r->atomic, r->fastreg ? "" : " unsafe-global",
			       r->coherent ? " coherent" : "");
	spin_unlock_bh(&lite_pool.lock);
	return n;
}

/* Module exit: every piece is gone; so are the works they queued. */
void lite_pool_exit(void)
{
	cancel_work_sync(&lite_pool_shrink);
	flush_work(&lite_pool_free_regions);
	WARN_ON_ONCE(!list_empty(&lite_pool.regions) ||
		     !llist_empty(&lite_pool_frees));
}
