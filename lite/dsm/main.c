// SPDX-License-Identifier: GPL-2.0
/*
 * lite_dsm.ko: distributed shared memory on LITE's exported kernel API.
 * This file is the front end: /dev/lite_dsm, its ioctls and mmap, and the
 * module's parameters. page.c keeps the pages coherent, meta.c names
 * regions and their locks. docs/dsm.md describes the whole.
 */
#include <linux/cred.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "dsm.h"

unsigned int dsm_param_port = 63;
module_param_named(port, dsm_param_port, uint, 0444);
MODULE_PARM_DESC(port, "LITE RPC port of the modules' messages, the same on every node (default: 63)");

unsigned int dsm_param_max_cached_mb = 128;
module_param_named(max_cached_mb, dsm_param_max_cached_mb, uint, 0644);
MODULE_PARM_DESC(max_cached_mb, "pages of all regions cached on this node, in MiB; clean ones are evicted beyond (default: 128)");

unsigned int dsm_param_wb_inflight = 16;
module_param_named(wb_inflight, dsm_param_wb_inflight, uint, 0644);
MODULE_PARM_DESC(wb_inflight, "RDMA writes of a write-back in flight at once, up to 64; 0 or 1: each waited for before the next (default: 16)");

unsigned int dsm_param_diff_writes = 16;
module_param_named(diff_writes, dsm_param_diff_writes, uint, 0644);
MODULE_PARM_DESC(diff_writes, "a block whose changed bytes would take more RDMA writes than this goes to its home as one DIFF message, which it applies; 0: never (default: 16)");

/* Group "lite" comes from user space, as for /dev/lite. */
static ushort dsm_dev_mode = 0660;
module_param_named(dev_mode, dsm_dev_mode, ushort, 0444);
MODULE_PARM_DESC(dev_mode, "mode of /dev/lite_dsm (default: 0660; no bits for others)");

u32 dsm_current_uid(void)
{
	return from_kuid_munged(&init_user_ns, current_euid());
}

static int dsm_open(struct inode *inode, struct file *filp)
{
	struct dsm_file *df = kzalloc(sizeof(*df), GFP_KERNEL);

	if (!df)
		return -ENOMEM;
	mutex_init(&df->lock);
	atomic_set(&df->maps, 0);
	filp->private_data = df;
	return 0;
}

/*
 * The last reference to the file: its mappings are gone (each held the
 * file), so only its locks and its reference to the region remain.
 */
static int dsm_file_release(struct inode *inode, struct file *filp)
{
	struct dsm_file *df = filp->private_data;

	if (df->region) {
		if (!df->detached)
			dsm_release_all(filp, df->region);
		dsm_region_put(df->region);
	}
	kfree(df);
	return 0;
}

static bool dsm_name_ok(const char *name)
{
	size_t len = strnlen(name, LITE_DSM_NAME_MAX);
	size_t i;

	if (!len || len == LITE_DSM_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (name[i] < 0x21 || name[i] > 0x7e)
			return false;
	return true;
}

/*
 * ATTACH. No user memory is touched under @df->lock: a fault takes the
 * mm's mmap_lock, which dsm_mmap() holds when it takes @df->lock.
 */
static long dsm_ioc_attach(struct file *filp, struct dsm_file *df,
			   void __user *arg)
{
	struct lite_dsm_ioc_attach a;
	struct inode *inode;
	struct dsm_region *r;
	bool created = false;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.mmap_size || a.nr_homes || a.meta_node || a.created ||
	    a.reserved || !dsm_name_ok(a.name) || !a.size)
		return -EINVAL;
	if (a.size > LITE_DSM_MAX_SIZE)
		return -EFBIG;
	mutex_lock(&df->lock);
	if (df->region) {
		mutex_unlock(&df->lock);
		return -EINVAL;
	}
	r = dsm_region_attach(a.name, a.size, dsm_current_uid(), &created);
	if (IS_ERR(r)) {
		mutex_unlock(&df->lock);
		return PTR_ERR(r);
	}
	a.mmap_size = r->npages << DSM_PAGE_SHIFT;
	a.nr_homes = r->nr_homes;
	a.meta_node = r->meta;
	a.created = created;
	df->region = r;
	/*
	 * Mappings join the region's own address space (page.c zaps it),
	 * which needs a host inode: mmap and the mm read it. The device's,
	 * held until the region goes.
	 */
	inode = file_inode(filp);
	ihold(inode);
	if (cmpxchg(&r->mapping.host, NULL, inode))
		iput(inode);
	filp->f_mapping = &r->mapping;
	mutex_unlock(&df->lock);
	/* Attached even if this fails: closing the file detaches it. */
	if (copy_to_user(arg, &a, sizeof(a)))
		return -EFAULT;
	return 0;
}

static long dsm_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct dsm_file *df = filp->private_data;
	void __user *uarg = (void __user *)arg;
	struct lite_dsm_ioc_barrier b;
	struct lite_dsm_ioc_lock l;
	struct dsm_region *r;
	long ret;

	if (cmd == LITE_DSM_IOC_ATTACH)
		return dsm_ioc_attach(filp, df, uarg);
	if (cmd != LITE_DSM_IOC_ACQUIRE && cmd != LITE_DSM_IOC_RELEASE &&
	    cmd != LITE_DSM_IOC_BARRIER && cmd != LITE_DSM_IOC_DETACH)
		return -ENOTTY;
	/* The region stays until the file goes: no lock needed to use it. */
	mutex_lock(&df->lock);
	r = df->detached ? NULL : df->region;
	mutex_unlock(&df->lock);
	if (!r)
		return -EBADFD;

	switch (cmd) {
	case LITE_DSM_IOC_ACQUIRE:
	case LITE_DSM_IOC_RELEASE:
		if (copy_from_user(&l, uarg, sizeof(l)))
			return -EFAULT;
		if (l.reserved || l.lock >= LITE_DSM_LOCKS)
			return -EINVAL;
		return cmd == LITE_DSM_IOC_ACQUIRE ?
		       dsm_acquire(filp, r, l.lock) :
		       dsm_release(filp, r, l.lock);
	case LITE_DSM_IOC_BARRIER:
		if (copy_from_user(&b, uarg, sizeof(b)))
			return -EFAULT;
		if (b.reserved || !b.nr || b.nr > LITE_DSM_BARRIER_MAX)
			return -EINVAL;
		return dsm_barrier(r, b.nr);
	case LITE_DSM_IOC_DETACH:
		mutex_lock(&df->lock);
		if (atomic_read(&df->maps)) {
			ret = -EBUSY;
		} else if (df->detached) {
			ret = -EBADFD;
		} else {
			df->detached = true;
			ret = 0;
		}
		mutex_unlock(&df->lock);
		if (!ret) {
			/* Its writes reach the homes now, its locks are freed. */
			dsm_release_all(filp, r);
			mutex_lock(&r->lock);
			ret = dsm_flush(r);
			mutex_unlock(&r->lock);
		}
		return ret;
	default:
		return -ENOTTY;
	}
}

static int dsm_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct dsm_file *df = filp->private_data;
	struct dsm_region *r;
	u64 pages = vma_pages(vma);
	int ret = 0;

	mutex_lock(&df->lock);
	r = df->region;
	if (!r || df->detached)
		ret = -EBADFD;
	else if (!(vma->vm_flags & VM_SHARED))
		ret = -EINVAL;	/* a private copy would not be coherent */
	else if (vma->vm_pgoff > r->npages || pages > r->npages - vma->vm_pgoff)
		ret = -EINVAL;
	if (!ret) {
		/* Growth by mremap is refused (EFAULT): pages end at size. */
		vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_ops = &dsm_vm_ops;
		vma->vm_private_data = r;
		kref_get(&r->ref);
		atomic_inc(&df->maps);
	}
	mutex_unlock(&df->lock);
	return ret;
}

static const struct file_operations dsm_fops = {
	.owner		= THIS_MODULE,
	.open		= dsm_open,
	.release	= dsm_file_release,
	.unlocked_ioctl	= dsm_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= dsm_mmap,
	.llseek		= noop_llseek,
};

static struct miscdevice dsm_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= LITE_DSM_DEV_NAME,
	.fops	= &dsm_fops,
};

static int __init dsm_init(void)
{
	int ret;

	BUILD_BUG_ON(PAGE_SIZE != LITE_DSM_PAGE_SIZE);
	if (dsm_dev_mode & ~0660) {
		pr_err("dev_mode %#o: only owner and group read/write bits\n",
		       dsm_dev_mode);
		return -EINVAL;
	}
	ret = dsm_diff_wq_init();
	if (ret)
		return ret;
	ret = dsm_meta_init();
	if (ret)
		goto out_wq;
	dsm_misc.mode = dsm_dev_mode;
	ret = misc_register(&dsm_misc);
	if (!ret)
		return 0;
	dsm_meta_exit();
out_wq:
	dsm_diff_wq_exit();
	return ret;
}

static void __exit dsm_exit(void)
{
	misc_deregister(&dsm_misc);
	dsm_meta_exit();
	dsm_diff_wq_exit();
}

module_init(dsm_init);
module_exit(dsm_exit);
MODULE_DESCRIPTION("LITE-Kernel-DSM: release-consistent shared memory over LITE");
MODULE_LICENSE("GPL");
