// SPDX-License-Identifier: GPL-2.0
/*
 * The coherence protocol on one node (docs/dsm.md): home-based release
 * consistency at 4 KiB pages, with twins and diffs.
 *
 * A page is absent, CLEAN (fetched from its home, mapped read-only) or
 * DIRTY (written since: a twin holds it as fetched, and it may be mapped
 * writable). A fault on an absent page fetches, with one RDMA read, the
 * absent pages of its block around it (layout.h: a block's pages are
 * contiguous in one home's LMR), and caches them all CLEAN; only the
 * faulting one is mapped, the others are found by their own faults. The
 * first write to a CLEAN page comes through page_mkwrite, which makes the
 * twin. A release writes each DIRTY page's changed byte runs to its home
 * by RDMA writes, runs that continue one another in the LMR joined into
 * one write of up to a block, several in flight, or, for a block whose
 * runs would take many writes, in a DIFF message its home applies
 * (diff.c); and makes it CLEAN. An acquire or a barrier then drops every
 * cached page, so the next access fetches what the homes hold.
 *
 * Locking: region->lock (a mutex) guards the pages, their states and
 * lists, and region->stage; it is held across a fault's fetch and a whole
 * flush, so neither meets an invalidation, an eviction or the other. It
 * is taken before a page's lock, and before dsm_wb_lock. A fault returns
 * its page locked (VM_FAULT_LOCKED) and the core unlocks it once the PTE
 * is in, so taking and dropping a page's lock under region->lock waits out
 * every fault that found the page before; zapping after that leaves no
 * stale PTE.
 */
#include <linux/highmem.h>
#include <linux/list_sort.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "../include/lite_kapi.h"
#include "dsm.h"

/* Pages cached on this node, over all regions: max_cached_mb bounds it. */
static atomic_long_t dsm_cached = ATOMIC_LONG_INIT(0);

/* Pages evicted at once when the cache is full. */
#define DSM_EVICT_BATCH		32

/* The node of page @idx's home, for messages. */
static u32 dsm_home_node(const struct dsm_region *r, pgoff_t idx)
{
	return r->homes[dsm_place(idx, r->nr_homes).home];
}

/* Remove every PTE of pages [@idx, @idx + @n) of @r; @n 0: to the end. */
static void dsm_zap(struct dsm_region *r, pgoff_t idx, pgoff_t n)
{
	unmap_mapping_range(&r->mapping, (loff_t)idx << DSM_PAGE_SHIFT,
			    (loff_t)n << DSM_PAGE_SHIFT, 1);
}

/* Wait out a fault that found @p before we took region->lock. */
static void dsm_page_settle(struct dsm_page *p)
{
	lock_page(p->page);
	unlock_page(p->page);
}

static void dsm_page_free(struct dsm_region *r, struct dsm_page *p)
{
	xa_erase(&r->pages, p->idx);
	list_del(&p->link);
	put_page(p->page);
	kfree(p->twin);
	kfree(p);
	r->nr_pages--;
	atomic_long_dec(&dsm_cached);
}

/* Write-back ------------------------------------------------------------ */

/*
 * Writes in flight go through LITE's one completion queue of the kernel
 * API (liteapi_rdma_write_async, liteapi_poll), which every module using
 * it shares: one flush at a time posts and reaps (dsm_wb_lock), and each
 * write's cookie says it is ours, of which flush, in which slot.
 */
#define DSM_WB_INFLIGHT_MAX	64
#define DSM_WB_COOKIE_TAG	0x4453d5b0ULL	/* the cookie's top half */
#define DSM_WB_POLL_MS		100
/* A flush waits this long without any completion before it gives up. */
#define DSM_WB_TIMEOUT		(30 * HZ)

static DEFINE_MUTEX(dsm_wb_lock);
static u32 dsm_wb_seq;				/* under dsm_wb_lock */
static struct dsm_wb dsm_wb_slots[DSM_WB_INFLIGHT_MAX];	/* len 0: free */

/* One flush's write-back. */
struct dsm_flush {
	struct dsm_region	*r;
	unsigned int		max;		/* in flight at most */
	unsigned int		inflight;
	bool			locked;		/* holds dsm_wb_lock */
	u32			seq;
	int			err;
	struct dsm_diffs	diffs;
};

static u64 dsm_wb_cookie(u32 seq, unsigned int slot)
{
	return DSM_WB_COOKIE_TAG << 32 | (u64)(seq & 0xffffff) << 8 | slot;
}

/* Copy @wb's bytes from the region's pages into region->stage. */
static int dsm_wb_gather(struct dsm_region *r, const struct dsm_wb *wb)
{
	u32 done = 0, in = wb->start, n;
	pgoff_t idx = wb->idx;
	struct dsm_page *p;

	while (done < wb->len) {
		p = xa_load(&r->pages, idx);
		if (WARN_ON_ONCE(!p))
			return -EFAULT;
		n = min_t(u32, wb->len - done, PAGE_SIZE - in);
		memcpy(r->stage + done, page_address(p->page) + in, n);
		done += n;
		in = 0;
		idx++;
	}
	return 0;
}

static void dsm_wb_lost(struct dsm_flush *f, const struct dsm_wb *wb, int ret)
{
	struct dsm_region *r = f->r;

	if (!f->err)
		pr_warn_ratelimited("region %s: %u bytes from page %llu to node %u: %d: writes lost\n",
				    r->name, wb->len, wb->idx,
				    r->homes[wb->home], ret);
	f->err = -EIO;
}

/* @wb's bytes to its home, one RDMA write waited for. */
static void dsm_wb_write(struct dsm_flush *f, const struct dsm_wb *wb)
{
	struct dsm_region *r = f->r;
	int ret = dsm_wb_gather(r, wb);

	if (!ret)
		ret = liteapi_rdma_write_offset(r->lh[wb->home], r->stage,
						wb->len, LITE_PRIO_NORMAL,
						wb->off, r->password);
	if (ret)
		dsm_wb_lost(f, wb, ret);
}

/*
 * A completion reaped. Not ours: another module's, which it will not see
 * now. Of an earlier flush that gave up on it: ignored. A write of ours
 * that failed where LITE's waited-for writes retry (-EIO: flushed on a QP
 * broken under it, or failed itself, which LITE does not tell apart here;
 * -EAGAIN: its QP was being reconnected) goes again once, waited for:
 * the same bytes, still in the pages (region->lock is held until every
 * write completed), so one that landed lands again unchanged.
 */
static void dsm_wb_done(struct dsm_flush *f, const struct lite_completion *c)
{
	unsigned int slot = c->id & 0xff;
	struct dsm_wb wb;

	if (c->id >> 32 != DSM_WB_COOKIE_TAG) {
		pr_warn_once("reaped a completion of another user of LITE's kernel API (id %#llx): it is lost to it\n",
			     c->id);
		return;
	}
	if (((c->id >> 8) & 0xffffff) != (f->seq & 0xffffff) ||
	    slot >= DSM_WB_INFLIGHT_MAX || !dsm_wb_slots[slot].len)
		return;
	wb = dsm_wb_slots[slot];
	dsm_wb_slots[slot].len = 0;
	f->inflight--;
	if (c->status == -EIO || c->status == -EAGAIN)
		dsm_wb_write(f, &wb);
	else if (c->status)
		dsm_wb_lost(f, &wb, c->status);
}

/*
 * Reap until at most @left of @f's writes are in flight. The wait is not
 * interruptible: a release must not return before its writes completed.
 * Without a completion for DSM_WB_TIMEOUT, those in flight count as lost.
 */
static void dsm_wb_reap(struct dsm_flush *f, unsigned int left)
{
	unsigned long deadline = jiffies + DSM_WB_TIMEOUT;
	struct lite_completion c[8];
	unsigned int i;
	int n;

	while (f->inflight > left) {
		n = liteapi_poll(c, ARRAY_SIZE(c), DSM_WB_POLL_MS);
		if (n == -EINTR)	/* a signal pending: look, do not wait */
			n = liteapi_poll(c, ARRAY_SIZE(c), 0);
		if (n > 0) {
			for (i = 0; i < n; i++)
				dsm_wb_done(f, &c[i]);
			deadline = jiffies + DSM_WB_TIMEOUT;
			continue;
		}
		if (time_after(jiffies, deadline)) {
			pr_warn("region %s: %u writes not completed in %u s: lost\n",
				f->r->name, f->inflight, DSM_WB_TIMEOUT / HZ);
			for (i = 0; i < DSM_WB_INFLIGHT_MAX; i++)
				dsm_wb_slots[i].len = 0;
			f->inflight = 0;
			f->err = -EIO;
			return;
		}
		schedule_timeout_uninterruptible(1);
	}
}

/*
 * dsm_wb_page()'s sender: post @wb without waiting when writes may be in
 * flight, else (or when LITE cannot take it now) write it and wait.
 */
static void dsm_wb_send(const struct dsm_wb *wb, void *arg)
{
	struct dsm_flush *f = arg;
	struct dsm_region *r = f->r;
	unsigned int slot;
	int ret;

	if (f->max <= 1) {
		dsm_wb_write(f, wb);
		return;
	}
	if (!f->locked) {
		mutex_lock(&dsm_wb_lock);
		f->locked = true;
		f->seq = ++dsm_wb_seq;
	}
	dsm_wb_reap(f, f->max - 1);	/* before the stage is filled */
	for (slot = 0; slot < DSM_WB_INFLIGHT_MAX; slot++)
		if (!dsm_wb_slots[slot].len)
			break;
	if (WARN_ON_ONCE(slot == DSM_WB_INFLIGHT_MAX)) {	/* one per write */
		dsm_wb_write(f, wb);
		return;
	}
	ret = dsm_wb_gather(r, wb);
	if (ret) {
		dsm_wb_lost(f, wb, ret);
		return;
	}
	/* The data is copied before this returns: the stage is free again. */
	ret = liteapi_rdma_write_async(r->lh[wb->home], r->stage, wb->len,
				       wb->off, r->password,
				       dsm_wb_cookie(f->seq, slot));
	if (ret) {	/* the queue is full, no buffer, the home is gone... */
		dsm_wb_write(f, wb);
		return;
	}
	dsm_wb_slots[slot] = *wb;
	f->inflight++;
}

/* dsm_wb_ops for DIFFs: diff.c's, with this flush's. */
static struct dsm_diff *dsm_wb_diff(u32 home, void *arg)
{
	return dsm_diffs_get(&((struct dsm_flush *)arg)->diffs, home);
}

static void dsm_wb_diff_send(u32 home, struct dsm_diff *d, void *arg)
{
	dsm_diffs_send(&((struct dsm_flush *)arg)->diffs, home, d);
}

static const struct dsm_wb_ops dsm_wb_ops = {
	.write		= dsm_wb_send,
	.diff		= dsm_wb_diff,
	.diff_send	= dsm_wb_diff_send,
};

/* diff_writes=0: by writes only. */
static const struct dsm_wb_ops dsm_wb_ops_writes = {
	.write		= dsm_wb_send,
};

static int dsm_page_cmp(void *priv, const struct list_head *a,
			const struct list_head *b)
{
	pgoff_t x = list_entry(a, struct dsm_page, link)->idx;
	pgoff_t y = list_entry(b, struct dsm_page, link)->idx;

	return x < y ? -1 : x > y;
}

/**
 * dsm_flush() - the release half: every DIRTY page's writes to its home
 * @r: the region; its lock is held
 *
 * In page order, a block's DIRTY pages at a time: each is write-protected
 * first (its PTEs zapped: a write after that faults and waits for
 * region->lock), then they are diffed and made CLEAN. A block's changed
 * runs join the writes being gathered (layout.h), sent up to wb_inflight
 * at a time, or, when they would take more than diff_writes writes, its
 * home's DIFF (diff.h, diff.c). Every write has completed and every DIFF
 * is applied when this returns. A page whose home did not take its bytes
 * is made CLEAN too: its writes are lost, and so reported.
 *
 * Return: 0, or -EIO when a home failed (or an earlier eviction's flush did).
 */
int dsm_flush(struct dsm_region *r)
{
	u32 max_writes = READ_ONCE(dsm_param_diff_writes);
	struct dsm_flush f = {
		.r = r, .err = r->lost,
		.max = min_t(unsigned int, READ_ONCE(dsm_param_wb_inflight),
			     DSM_WB_INFLIGHT_MAX),
	};
	const u8 *now[DSM_BLOCK_PAGES], *was[DSM_BLOCK_PAGES];
	struct dsm_page *pages[DSM_BLOCK_PAGES], *p, *tmp;
	u64 idx[DSM_BLOCK_PAGES];
	struct dsm_wb wb = {};
	unsigned int n = 0, i;
	int err;

	r->lost = 0;
	dsm_diffs_init(&f.diffs, r);
	list_sort(NULL, &r->dirty, dsm_page_cmp);
	list_for_each_entry_safe(p, tmp, &r->dirty, link) {
		dsm_page_settle(p);
		dsm_zap(r, p->idx, 1);
		pages[n] = p;
		idx[n] = p->idx;
		now[n] = page_address(p->page);
		was[n] = p->twin;
		/* The block's last DIRTY page: its pages go together. */
		if (++n < DSM_BLOCK_PAGES && !list_is_last(&p->link, &r->dirty) &&
		    tmp->idx >> DSM_BLOCK_SHIFT == p->idx >> DSM_BLOCK_SHIFT)
			continue;
		dsm_wb_block(&wb, r->nr_homes, n, idx, now, was, max_writes,
			     max_writes ? &dsm_wb_ops : &dsm_wb_ops_writes, &f);
		for (i = 0; i < n; i++) {
			kfree(pages[i]->twin);
			pages[i]->twin = NULL;
			pages[i]->state = DSM_CLEAN;
			list_move_tail(&pages[i]->link, &r->clean);
		}
		n = 0;
	}
	if (wb.len)
		dsm_wb_send(&wb, &f);
	err = dsm_diffs_finish(&f.diffs);
	if (f.locked) {
		dsm_wb_reap(&f, 0);
		mutex_unlock(&dsm_wb_lock);
	}
	return f.err ?: err;
}

/**
 * dsm_invalidate() - the acquire half: flush, then drop every cached page
 * @r: the region; its lock is held
 *
 * Invalidating everything is correct for data-race-free programs without
 * write notices; its cost is a fetch per block touched after an acquire
 * (docs/dsm.md).
 *
 * Return: what dsm_flush() returned.
 */
int dsm_invalidate(struct dsm_region *r)
{
	struct dsm_page *p, *tmp;
	int ret = dsm_flush(r);

	list_for_each_entry(p, &r->clean, link)
		dsm_page_settle(p);
	dsm_zap(r, 0, 0);
	list_for_each_entry_safe(p, tmp, &r->clean, link)
		dsm_page_free(r, p);
	return ret;
}

/* Evict up to @n of @r's oldest CLEAN pages; region->lock is held. */
static long dsm_evict(struct dsm_region *r, long n)
{
	struct dsm_page *p, *tmp;
	long done = 0;

	list_for_each_entry_safe(p, tmp, &r->clean, link) {
		if (done >= n)
			break;
		dsm_page_settle(p);
		dsm_zap(r, p->idx, 1);
		dsm_page_free(r, p);
		done++;
	}
	return done;
}

/**
 * dsm_evict_clean() - evict CLEAN pages of a region another caller holds
 * @r: the region, whose lock the caller could take without waiting
 * @n: at most this many
 *
 * Return: how many were evicted.
 */
long dsm_evict_clean(struct dsm_region *r, long n)
{
	return dsm_evict(r, n);
}

static long dsm_cap(void)
{
	return (long)READ_ONCE(dsm_param_max_cached_mb) <<
	       (20 - DSM_PAGE_SHIFT);
}

static bool dsm_room(long n)
{
	return atomic_long_read(&dsm_cached) + n <= dsm_cap();
}

/*
 * Room for @n more pages under max_cached_mb: evict @r's clean pages,
 * else write its dirty ones back (a release may come early) and evict
 * them, else other regions' clean pages.
 */
static int dsm_make_room(struct dsm_region *r, long n)
{
	long batch = max_t(long, n, DSM_EVICT_BATCH);

	if (dsm_room(n))
		return 0;
	if (list_empty(&r->clean) && !list_empty(&r->dirty)) {
		int ret = dsm_flush(r);

		if (ret)
			r->lost = ret;	/* told at the next release */
	}
	dsm_evict(r, batch);
	if (!dsm_room(n))
		dsm_evict_others(r, batch);
	return dsm_room(n) ? 0 : -ENOSPC;
}

/*
 * Pages [@lo, @hi) of @r, absent and of one block (contiguous in one
 * home's LMR), read by one RDMA read and cached CLEAN; region->lock held.
 * One page is read into itself, more into region->stage and copied.
 * Return: 0, or a negative errno with nothing cached.
 */
static int dsm_fetch(struct dsm_region *r, pgoff_t lo, pgoff_t hi)
{
	struct dsm_place pl = dsm_place(lo, r->nr_homes);
	struct dsm_page *pages[DSM_BLOCK_PAGES] = {};
	unsigned int n = hi - lo, i, stored = 0;
	void *buf;
	int ret = -ENOMEM;

	for (i = 0; i < n; i++) {
		pages[i] = kzalloc(sizeof(*pages[i]), GFP_KERNEL);
		if (!pages[i])
			goto out;
		pages[i]->idx = lo + i;
		pages[i]->page = alloc_page(GFP_KERNEL);
		if (!pages[i]->page)
			goto out;
	}
	buf = n == 1 ? page_address(pages[0]->page) : r->stage;
	/* High priority: the faulting thread polls until the read is done. */
	ret = liteapi_rdma_read_offset(r->lh[pl.home], buf,
				       (u64)n << DSM_PAGE_SHIFT,
				       LITE_PRIO_HIGH, pl.off, r->password);
	if (ret)
		goto out;
	for (; stored < n; stored++) {
		if (n > 1)
			memcpy(page_address(pages[stored]->page),
			       buf + ((size_t)stored << DSM_PAGE_SHIFT),
			       PAGE_SIZE);
		ret = xa_err(xa_store(&r->pages, lo + stored, pages[stored],
				      GFP_KERNEL));
		if (ret)
			goto out;
	}
	for (i = 0; i < n; i++) {
		pages[i]->state = DSM_CLEAN;
		list_add_tail(&pages[i]->link, &r->clean);
	}
	r->nr_pages += n;
	atomic_long_add(n, &dsm_cached);
	return 0;
out:
	while (stored--)
		xa_erase(&r->pages, lo + stored);
	for (i = 0; i < n && pages[i]; i++) {
		if (pages[i]->page)
			put_page(pages[i]->page);
		kfree(pages[i]);
	}
	return ret;
}

/*
 * Page @idx of @r is absent: fetch it with the absent pages around it in
 * its block, when the cache has room for them all, else alone.
 */
static int dsm_fetch_around(struct dsm_region *r, pgoff_t idx)
{
	pgoff_t first = round_down(idx, DSM_BLOCK_PAGES);
	pgoff_t end = min_t(u64, first + DSM_BLOCK_PAGES, r->npages);
	pgoff_t lo = idx, hi = idx + 1;
	int ret;

	while (lo > first && !xa_load(&r->pages, lo - 1))
		lo--;
	while (hi < end && !xa_load(&r->pages, hi))
		hi++;
	/* Making room changes no absent page: region->lock is held. */
	if (hi - lo > 1 && !dsm_make_room(r, hi - lo)) {
		ret = dsm_fetch(r, lo, hi);
		if (ret != -ENOMEM)
			return ret;
	}
	ret = dsm_make_room(r, 1);
	return ret ?: dsm_fetch(r, idx, idx + 1);
}

static vm_fault_t dsm_fault(struct vm_fault *vmf)
{
	struct dsm_region *r = vmf->vma->vm_private_data;
	pgoff_t idx = vmf->pgoff;
	struct dsm_page *p;
	int ret = 0;

	if (idx >= r->npages)
		return VM_FAULT_SIGBUS;
	/* Only a fatal signal stops this: the task dies, SIGBUS or not. */
	if (mutex_lock_killable(&r->lock))
		return VM_FAULT_SIGBUS;
	p = xa_load(&r->pages, idx);
	if (!p) {
		ret = dsm_fetch_around(r, idx);
		p = ret ? NULL : xa_load(&r->pages, idx);
	} else if (p->state == DSM_CLEAN) {
		list_move_tail(&p->link, &r->clean);
	}
	if (ret) {
		mutex_unlock(&r->lock);
		if (!fatal_signal_pending(current))
			pr_warn_ratelimited("region %s: page %lu from node %u: %d: SIGBUS\n",
					    r->name, idx, dsm_home_node(r, idx),
					    ret);
		return ret == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	}
	get_page(p->page);
	lock_page(p->page);
	mutex_unlock(&r->lock);
	vmf->page = p->page;
	return VM_FAULT_LOCKED;
}

/* The first write to a CLEAN page since it was fetched or flushed. */
static vm_fault_t dsm_page_mkwrite(struct vm_fault *vmf)
{
	struct dsm_region *r = vmf->vma->vm_private_data;
	struct dsm_page *p;
	void *twin;

	if (mutex_lock_killable(&r->lock))
		return VM_FAULT_SIGBUS;
	p = xa_load(&r->pages, vmf->pgoff);
	if (!p || p->page != vmf->page) {
		/* Invalidated or evicted meanwhile: fault it in again. */
		mutex_unlock(&r->lock);
		return VM_FAULT_NOPAGE;
	}
	if (p->state == DSM_CLEAN) {
		twin = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!twin) {
			mutex_unlock(&r->lock);
			return VM_FAULT_OOM;
		}
		memcpy(twin, page_address(p->page), PAGE_SIZE);
		p->twin = twin;
		p->state = DSM_DIRTY;
		list_move_tail(&p->link, &r->dirty);
	}
	lock_page(p->page);
	mutex_unlock(&r->lock);
	return VM_FAULT_LOCKED;
}

/* fork and split VMAs: each VMA holds the region and counts as a map. */
static void dsm_vm_open(struct vm_area_struct *vma)
{
	struct dsm_region *r = vma->vm_private_data;
	struct dsm_file *df = vma->vm_file->private_data;

	kref_get(&r->ref);
	atomic_inc(&df->maps);
}

static void dsm_vm_close(struct vm_area_struct *vma)
{
	struct dsm_file *df = vma->vm_file->private_data;

	atomic_dec(&df->maps);
	/* Never the last reference: the file, which the VMA holds, has one. */
	dsm_region_put(vma->vm_private_data);
}

const struct vm_operations_struct dsm_vm_ops = {
	.open		= dsm_vm_open,
	.close		= dsm_vm_close,
	.fault		= dsm_fault,
	.page_mkwrite	= dsm_page_mkwrite,
};

/* Locks ------------------------------------------------------------------ */

static struct dsm_lock *dsm_lock_of(struct dsm_region *r, u32 n)
{
	struct dsm_lock *l, *new;

	spin_lock(&r->locks_lock);
	l = r->locks[n];
	spin_unlock(&r->locks_lock);
	if (l)
		return l;
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	spin_lock(&r->locks_lock);
	if (!r->locks[n]) {
		r->locks[n] = new;
		new = NULL;
	}
	l = r->locks[n];
	spin_unlock(&r->locks_lock);
	kfree(new);
	return l;
}

/*
 * LITE's locks are held by the node (its kernel context), so this node's
 * takers of one lock queue here first, one of them at a time going on.
 */
static int dsm_lock_local(struct dsm_region *r, struct dsm_lock *l,
			  struct file *f)
{
	int ret;

	for (;;) {
		spin_lock(&r->locks_lock);
		if (!l->holder) {
			WRITE_ONCE(l->holder, f);
			l->holder_pid = current->pid;
			l->releasing = false;
			spin_unlock(&r->locks_lock);
			return 0;
		}
		ret = l->holder == f && l->holder_pid == current->pid ?
		      -EDEADLK : 0;
		spin_unlock(&r->locks_lock);
		if (ret)
			return ret;
		if (wait_event_interruptible(r->lock_wq,
					     !READ_ONCE(l->holder)))
			return -EINTR;
	}
}

static void dsm_unlock_local(struct dsm_region *r, struct dsm_lock *l)
{
	spin_lock(&r->locks_lock);
	WRITE_ONCE(l->holder, NULL);
	spin_unlock(&r->locks_lock);
	wake_up_all(&r->lock_wq);
}

/**
 * dsm_acquire() - take lock @n of @r for @f, then see every write released
 * under any lock before (invalidate)
 * @f: the open file that will hold it
 * @r: its region
 * @n: 0 .. LITE_DSM_LOCKS - 1
 *
 * Return: 0, -EDEADLK, -EINTR, or what LITE or the meta node returned.
 */
int dsm_acquire(struct file *f, struct dsm_region *r, u32 n)
{
	struct dsm_lock *l = dsm_lock_of(r, n);
	int ret;

	if (!l)
		return -ENOMEM;
	ret = dsm_lock_local(r, l, f);
	if (ret)
		return ret;
	/* Only the local holder reads or sets known, home and id. */
	if (!l->known) {
		ret = dsm_lock_lookup(r, n, &l->home, &l->id);
		l->known = !ret;
	}
	if (!ret)
		ret = liteapi_lock(l->home, l->id);
	if (!ret) {
		mutex_lock(&r->lock);
		ret = dsm_invalidate(r);
		mutex_unlock(&r->lock);
		if (ret)	/* EIO: fail as a whole, the lock not held */
			liteapi_unlock(l->home, l->id);
	}
	if (ret)
		dsm_unlock_local(r, l);
	return ret;
}

/**
 * dsm_release() - make this node's writes reach their homes, then free
 * lock @n of @r
 * @f: the open file holding it (any of its threads may release)
 * @r: its region
 * @n: 0 .. LITE_DSM_LOCKS - 1
 *
 * The lock is freed even when a home failed (-EIO: those writes are lost).
 *
 * Return: 0, -EPERM (not held through @f), -EIO, or LITE's unlock error.
 */
int dsm_release(struct file *f, struct dsm_region *r, u32 n)
{
	struct dsm_lock *l;
	int err, ret;

	spin_lock(&r->locks_lock);
	l = r->locks[n];
	ret = l && l->holder == f && !l->releasing ? 0 : -EPERM;
	if (!ret)
		l->releasing = true;
	spin_unlock(&r->locks_lock);
	if (ret)
		return ret;
	mutex_lock(&r->lock);
	err = dsm_flush(r);
	mutex_unlock(&r->lock);
	ret = liteapi_unlock(l->home, l->id);
	dsm_unlock_local(r, l);
	return err ?: ret;
}

/**
 * dsm_release_all() - release every lock @f holds in @r (close, DETACH)
 * @f: the open file
 * @r: its region
 */
void dsm_release_all(struct file *f, struct dsm_region *r)
{
	u32 n;

	for (n = 0; n < LITE_DSM_LOCKS; n++)
		if (READ_ONCE(r->locks[n]) && READ_ONCE(r->locks[n]->holder) == f)
			dsm_release(f, r, n);
}

/**
 * dsm_barrier() - release, wait for @nr callers cluster-wide, acquire
 * @r: the region
 * @nr: 1 .. LITE_DSM_BARRIER_MAX
 *
 * Return: 0, -EIO (this node's writes did not all reach their homes; the
 * barrier was still passed), or what liteapi_dist_barrier() returned.
 */
int dsm_barrier(struct dsm_region *r, u32 nr)
{
	int err, ret;

	mutex_lock(&r->lock);
	err = dsm_flush(r);
	mutex_unlock(&r->lock);
	ret = liteapi_dist_barrier(nr);
	if (!ret) {
		mutex_lock(&r->lock);
		ret = dsm_invalidate(r);
		mutex_unlock(&r->lock);
	}
	return err ?: ret;
}

/**
 * dsm_drop_all() - at the region's end on this node: write back, drop all
 * @r: the region, which nothing maps any more
 */
void dsm_drop_all(struct dsm_region *r)
{
	struct dsm_page *p, *tmp;
	u32 n;

	mutex_lock(&r->lock);
	dsm_flush(r);
	list_for_each_entry_safe(p, tmp, &r->clean, link)
		dsm_page_free(r, p);
	mutex_unlock(&r->lock);
	for (n = 0; n < LITE_DSM_LOCKS; n++)
		kfree(r->locks[n]);
}

/**
 * dsm_region_init_pages() - the page side of a new region
 * @r: the region
 */
void dsm_region_init_pages(struct dsm_region *r)
{
	BUILD_BUG_ON(DSM_PAGE_BYTES != PAGE_SIZE);
	/* A block is one liteapi_rdma_write_async() at most. */
	BUILD_BUG_ON(DSM_BLOCK_BYTES > LITE_ASYNC_MAX_SIZE);
	BUILD_BUG_ON(DSM_WB_INFLIGHT_MAX > 256);	/* the cookie's slot byte */
	address_space_init_once(&r->mapping);
	mutex_init(&r->lock);
	xa_init(&r->pages);
	INIT_LIST_HEAD(&r->clean);
	INIT_LIST_HEAD(&r->dirty);
	spin_lock_init(&r->locks_lock);
	init_waitqueue_head(&r->lock_wq);
}
