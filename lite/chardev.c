// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/lite: the user-space entry point. One ioctl per operation, argument
 * structs from include/uapi/lite.h; every field is checked before use.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "lite_priv.h"
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

static long lite_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case LITE_IOC_JOIN:
		return lite_ioctl_join(uarg);
	case LITE_IOC_CLUSTER:
		return lite_ioctl_cluster(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations lite_fops = {
	.owner		= THIS_MODULE,	/* rmmod waits for the last close */
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
