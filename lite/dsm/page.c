// SPDX-License-Identifier: GPL-2.0
/*
 * The coherence protocol on one node (docs/dsm.md): home-based release
 * consistency at 4 KiB pages, with twins and diffs.
 *
 * A page is absent, CLEAN (fetched from its home by one RDMA read, mapped
 * read-only) or DIRTY (written since: a twin holds it as fetched, and it
 * may be mapped writable). The first write to a CLEAN page comes through
 * page_mkwrite, which makes the twin. A release writes each DIRTY page's
 * changed byte runs to its home by RDMA writes and makes it CLEAN; an
 * acquire or a barrier then drops every cached page, so the next access
 * fetches what the homes hold.
 *
 * Locking: region->lock (a mutex) guards the pages, their states and
 * lists; it is taken before a page's lock. A fault returns its page locked
 * (VM_FAULT_LOCKED) and the core unlocks it once the PTE is in, so taking
 * and dropping a page's lock under region->lock waits out every fault
 * that found the page before; zapping after that leaves no stale PTE.
 */
#include <linux/highmem.h>
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

static u64 dsm_home_off(const struct dsm_region *r, pgoff_t idx)
{
	return (u64)(idx / r->nr_homes) << DSM_PAGE_SHIFT;
}

static u32 dsm_home_lh(const struct dsm_region *r, pgoff_t idx)
{
	return r->lh[idx % r->nr_homes];
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

/*
 * Write @p's changed bytes to its home: each run of bytes that differ
 * from the twin, exactly. Bytes equal to the twin are never written, so a
 * neighbour's bytes that another node changed (false sharing) stay its.
 */
static int dsm_write_diff(struct dsm_region *r, struct dsm_page *p)
{
	const u8 *now = page_address(p->page), *was = p->twin;
	u64 base = dsm_home_off(r, p->idx);
	u32 lh = dsm_home_lh(r, p->idx);
	unsigned int i = 0, start;
	int ret;

	while (i < PAGE_SIZE) {
		if (IS_ALIGNED(i, sizeof(u64)) &&
		    *(const u64 *)(now + i) == *(const u64 *)(was + i)) {
			i += sizeof(u64);
			continue;
		}
		if (now[i] == was[i]) {
			i++;
			continue;
		}
		start = i;
		while (i < PAGE_SIZE && now[i] != was[i])
			i++;
		ret = liteapi_rdma_write_offset(lh, now + start, i - start,
						LITE_PRIO_NORMAL, base + start,
						r->password);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * dsm_flush() - the release half: every DIRTY page's writes to its home
 * @r: the region; its lock is held
 *
 * Each page is write-protected first (its PTEs zapped: a write after that
 * faults and waits for region->lock), then diffed and made CLEAN. A page
 * whose home did not take its writes is made CLEAN too: its writes are
 * lost, and so reported.
 *
 * Return: 0, or -EIO when a home failed (or an earlier eviction's flush did).
 */
int dsm_flush(struct dsm_region *r)
{
	struct dsm_page *p, *tmp;
	int ret, err = r->lost;

	r->lost = 0;
	list_for_each_entry_safe(p, tmp, &r->dirty, link) {
		dsm_page_settle(p);
		dsm_zap(r, p->idx, 1);
		ret = dsm_write_diff(r, p);
		if (ret && !err) {
			pr_warn_ratelimited("region %s: page %lu to node %u: %d: writes lost\n",
					    r->name, p->idx,
					    r->homes[p->idx % r->nr_homes], ret);
			err = -EIO;
		}
		kfree(p->twin);
		p->twin = NULL;
		p->state = DSM_CLEAN;
		list_move_tail(&p->link, &r->clean);
	}
	return err;
}

/**
 * dsm_invalidate() - the acquire half: flush, then drop every cached page
 * @r: the region; its lock is held
 *
 * Invalidating everything is correct for data-race-free programs without
 * write notices; its cost is a fetch per page touched after an acquire
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

/*
 * Room for one more page under max_cached_mb: evict @r's clean pages,
 * else write its dirty ones back (a release may come early) and evict
 * them, else other regions' clean pages.
 */
static int dsm_make_room(struct dsm_region *r)
{
	if (atomic_long_read(&dsm_cached) < dsm_cap())
		return 0;
	if (list_empty(&r->clean) && !list_empty(&r->dirty)) {
		int ret = dsm_flush(r);

		if (ret)
			r->lost = ret;	/* told at the next release */
	}
	dsm_evict(r, DSM_EVICT_BATCH);
	if (atomic_long_read(&dsm_cached) >= dsm_cap())
		dsm_evict_others(r, DSM_EVICT_BATCH);
	return atomic_long_read(&dsm_cached) < dsm_cap() ? 0 : -ENOSPC;
}

/* A new CLEAN page @idx of @r, read from its home; region->lock held. */
static int dsm_page_new(struct dsm_region *r, pgoff_t idx,
			struct dsm_page **out)
{
	struct dsm_page *p;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->page = alloc_page(GFP_KERNEL);
	if (!p->page) {
		kfree(p);
		return -ENOMEM;
	}
	p->idx = idx;
	ret = liteapi_rdma_read_offset(dsm_home_lh(r, idx),
				       page_address(p->page), PAGE_SIZE,
				       LITE_PRIO_NORMAL, dsm_home_off(r, idx),
				       r->password);
	if (!ret)
		ret = xa_err(xa_store(&r->pages, idx, p, GFP_KERNEL));
	if (ret) {
		put_page(p->page);
		kfree(p);
		return ret;
	}
	p->state = DSM_CLEAN;
	list_add_tail(&p->link, &r->clean);
	r->nr_pages++;
	atomic_long_inc(&dsm_cached);
	*out = p;
	return 0;
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
		ret = dsm_make_room(r);
		if (!ret)
			ret = dsm_page_new(r, idx, &p);
	} else if (p->state == DSM_CLEAN) {
		list_move_tail(&p->link, &r->clean);
	}
	if (ret) {
		mutex_unlock(&r->lock);
		if (!fatal_signal_pending(current))
			pr_warn_ratelimited("region %s: page %lu from node %u: %d: SIGBUS\n",
					    r->name, idx,
					    r->homes[idx % r->nr_homes], ret);
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
	address_space_init_once(&r->mapping);
	mutex_init(&r->lock);
	xa_init(&r->pages);
	INIT_LIST_HEAD(&r->clean);
	INIT_LIST_HEAD(&r->dirty);
	spin_lock_init(&r->locks_lock);
	init_waitqueue_head(&r->lock_wq);
}
