// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/lite: the user-space entry point. One ioctl per operation, argument
 * structs from include/uapi/lite.h; every field is checked before use.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "lite_priv.h"
#include "lite_api.h"
#include "include/uapi/lite.h"

static long lite_ioctl_join(void __user *uarg)
{
	struct lite_ioc_join arg;
	int ret;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved || arg.port == 0 || arg.port > U16_MAX ||
	    strnlen(arg.manager, sizeof(arg.manager)) == sizeof(arg.manager))
		return -EINVAL;
	ret = lite_membership_join(arg.manager, arg.port, arg.ib_port,
				   &arg.node_id);
	if (ret)
		return ret;
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long lite_ioctl_cluster(void __user *uarg)
{
	struct lite_ioc_cluster arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved)
		return -EINVAL;
	arg.nr_nodes = lite_nr_nodes(&arg.connected);
	arg.node_id = lite_node_id();
	arg.qps_per_peer = lite_qps_per_peer();
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long lite_ioctl_alloc(struct lite_ctx *ctx, void __user *uarg)
{
	struct lite_ioc_alloc arg;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	ret = lite_api_alloc(ctx, arg.node, arg.size, arg.flags, arg.password,
			     &arg.handle);
	if (ret)
		return ret;
	if (put_user(arg.handle, &((struct lite_ioc_alloc __user *)uarg)->handle)) {
		lite_api_free(ctx, arg.handle);
		return -EFAULT;
	}
	return 0;
}

static long lite_ioctl_handle(struct lite_ctx *ctx, void __user *uarg,
			      bool free)
{
	struct lite_ioc_handle arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved)
		return -EINVAL;
	return free ? lite_api_free(ctx, arg.handle) :
		      lite_api_unmap(ctx, arg.handle);
}

static long lite_ioctl_rw(struct lite_ctx *ctx, void __user *uarg, bool write)
{
	struct lite_ioc_rw arg;
	struct iov_iter iter;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved || arg.priority > LITE_PRIO_LOW)
		return -EINVAL;
	if (arg.size > LITE_LMR_MAX_SIZE)
		return -ERANGE;	/* longer than any LMR */
	if (!access_ok(u64_to_user_ptr(arg.addr), arg.size))
		return -EFAULT;
	iov_iter_ubuf(&iter, write ? ITER_SOURCE : ITER_DEST,
		      u64_to_user_ptr(arg.addr), arg.size);
	return lite_api_rw(ctx, arg.handle, arg.password, arg.offset, &iter,
			   arg.size, write);
}

static long lite_ioctl_memset(struct lite_ctx *ctx, void __user *uarg)
{
	struct lite_ioc_memset arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	return lite_api_memset(ctx, arg.handle, arg.offset, arg.value, arg.size);
}

static long lite_ioctl_memcpy(struct lite_ctx *ctx, void __user *uarg)
{
	struct lite_ioc_memcpy arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	return lite_api_memcpy(ctx, arg.dst, arg.dst_offset, arg.src,
			       arg.src_offset, arg.size);
}

static long lite_ioctl_publish(struct lite_ctx *ctx, void __user *uarg)
{
	struct lite_ioc_publish arg;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved)
		return -EINVAL;
	return lite_api_publish(ctx, arg.handle, arg.identifier, arg.perm,
				arg.password);
}

static long lite_ioctl_ask(struct lite_ctx *ctx, void __user *uarg)
{
	struct lite_ioc_ask arg;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	ret = lite_api_ask(ctx, arg.node, arg.identifier, arg.perm,
			   arg.password, &arg.handle);
	if (ret)
		return ret;
	if (put_user(arg.handle, &((struct lite_ioc_ask __user *)uarg)->handle)) {
		lite_api_unmap(ctx, arg.handle);
		return -EFAULT;
	}
	return 0;
}

static long lite_ioctl_lmr_info(struct lite_ctx *ctx, void __user *uarg)
{
	struct lite_ioc_lmr_info arg;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved)
		return -EINVAL;
	ret = lite_api_lmr_info(ctx, arg.handle, &arg.node, &arg.size,
				&arg.perm);
	if (ret)
		return ret;
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long lite_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct lite_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case LITE_IOC_JOIN:
		return lite_ioctl_join(uarg);
	case LITE_IOC_CLUSTER:
		return lite_ioctl_cluster(uarg);
	case LITE_IOC_ALLOC:
		return lite_ioctl_alloc(ctx, uarg);
	case LITE_IOC_FREE:
		return lite_ioctl_handle(ctx, uarg, true);
	case LITE_IOC_UNMAP:
		return lite_ioctl_handle(ctx, uarg, false);
	case LITE_IOC_WRITE:
		return lite_ioctl_rw(ctx, uarg, true);
	case LITE_IOC_READ:
		return lite_ioctl_rw(ctx, uarg, false);
	case LITE_IOC_MEMSET:
		return lite_ioctl_memset(ctx, uarg);
	case LITE_IOC_MEMCPY:
	case LITE_IOC_MEMMOVE:	/* both handle overlap */
		return lite_ioctl_memcpy(ctx, uarg);
	case LITE_IOC_PUBLISH:
		return lite_ioctl_publish(ctx, uarg);
	case LITE_IOC_ASK:
		return lite_ioctl_ask(ctx, uarg);
	case LITE_IOC_LMR_INFO:
		return lite_ioctl_lmr_info(ctx, uarg);
	default:
		return -ENOTTY;
	}
}

static int lite_open(struct inode *inode, struct file *file)
{
	file->private_data = lite_ctx_create();
	return file->private_data ? 0 : -ENOMEM;
}

static int lite_release(struct inode *inode, struct file *file)
{
	lite_ctx_destroy(file->private_data);
	return 0;
}

/* alloc_memory: zero-copy buffers (ubuf.c). */
static int lite_mmap(struct file *file, struct vm_area_struct *vma)
{
	return lite_api_mmap(file->private_data, vma);
}

static const struct file_operations lite_fops = {
	.owner		= THIS_MODULE,	/* rmmod waits for the last close */
	.open		= lite_open,
	.release	= lite_release,
	.mmap		= lite_mmap,
	.unlocked_ioctl	= lite_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice lite_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= LITE_DEV_NAME,
	.fops	= &lite_fops,
	.mode	= 0666,
};

int lite_chardev_init(void)
{
	return misc_register(&lite_misc);
}

void lite_chardev_exit(void)
{
	misc_deregister(&lite_misc);
}
