// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/lite: the user-space entry point. One ioctl per operation, argument
 * structs from include/uapi/lite.h; every field is checked before use.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>

#include "lite_priv.h"
#include "lite_ctx.h"
#include "../include/uapi/lite.h"

/*
 * Every handler works on the kernel's copy of its argument struct: the
 * dispatcher (lite_ioctl()) copies it in and, for an _IOWR command, back
 * out when the handler succeeded. A handler that made something the
 * caller must learn of (a handle, a lock, an RPC descriptor) names how to
 * take it back should that copy fail, so nothing is left that nobody
 * holds.
 */
static long lite_ioctl_join(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_join *arg = data;

	if (arg->reserved || arg->port == 0 || arg->port > U16_MAX ||
	    strnlen(arg->manager, sizeof(arg->manager)) == sizeof(arg->manager))
		return -EINVAL;
	return lite_membership_join(arg->manager, arg->port, arg->ib_port,
				    arg->key, &arg->node_id);
}

static long lite_ioctl_cluster(struct lite_ctx *ctx, void *data,
			       unsigned int cmd)
{
	struct lite_ioc_cluster *arg = data;

	arg->nr_nodes = lite_nr_nodes(&arg->connected);
	arg->flags = lite_atomic_on_nic() ? LITE_CLUSTER_NIC_ATOMICS : 0;
	if (lite_membership_lost())
		arg->flags |= LITE_CLUSTER_MANAGER_LOST;
	arg->node_id = lite_node_id();
	arg->qps_per_peer = lite_qps_per_peer();
	return 0;
}

static long lite_ioctl_alloc(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_alloc *arg = data;

	return lite_api_alloc(ctx, arg->node, arg->size, arg->flags,
			      arg->password, &arg->handle);
}

static void lite_ioctl_alloc_undo(struct lite_ctx *ctx, void *data)
{
	lite_api_free(ctx, ((struct lite_ioc_alloc *)data)->handle);
}

static long lite_ioctl_handle(struct lite_ctx *ctx, void *data,
			      unsigned int cmd)
{
	struct lite_ioc_handle *arg = data;

	if (arg->reserved)
		return -EINVAL;
	return cmd == LITE_IOC_FREE ? lite_api_free(ctx, arg->handle) :
				      lite_api_unmap(ctx, arg->handle);
}

/* A user buffer as an iov_iter; sizes are checked by the callee. */
static int lite_ubuf_iter(struct iov_iter *iter, u64 addr, u32 size,
			  bool source)
{
	if (!access_ok(u64_to_user_ptr(addr), size))
		return -EFAULT;
	iov_iter_ubuf(iter, source ? ITER_SOURCE : ITER_DEST,
		      u64_to_user_ptr(addr), size);
	return 0;
}

static long lite_ioctl_rw(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_rw *arg = data;
	bool write = cmd == LITE_IOC_WRITE;
	struct iov_iter iter;
	int ret;

	if (arg->reserved || arg->priority > LITE_PRIO_LOW)
		return -EINVAL;
	if (arg->size > LITE_LMR_MAX_SIZE)
		return -ERANGE;	/* longer than any LMR: fits the u32 below */
	ret = lite_ubuf_iter(&iter, arg->addr, arg->size, write);
	if (ret)
		return ret;
	return lite_api_rw(ctx, arg->handle, arg->password, arg->offset, &iter,
			   arg->size, write, arg->priority);
}

static long lite_ioctl_post(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_post *arg = data;

	if (arg->reserved ||
	    (arg->op != LITE_POST_READ && arg->op != LITE_POST_WRITE))
		return -EINVAL;
	if (!arg->size || arg->size > LITE_ASYNC_MAX_SIZE)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(arg->addr), arg->size))
		return -EFAULT;
	return lite_api_post(ctx, arg->handle, arg->password, arg->offset,
			     arg->addr, false, arg->size,
			     arg->op == LITE_POST_WRITE, arg->id);
}

#define LITE_POLL_MAX		4096
#define LITE_POLL_BATCH		16	/* completions reaped per copy out */

static long lite_ioctl_poll(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_completion c[LITE_POLL_BATCH];
	struct lite_ioc_poll *arg = data;
	struct lite_completion __user *out;
	unsigned int nr = 0;
	int ret, n;

	if (arg->reserved || arg->flags & ~LITE_POLL_FENCE ||
	    arg->max > LITE_POLL_MAX ||
	    (arg->flags & LITE_POLL_FENCE && arg->max))
		return -EINVAL;
	out = u64_to_user_ptr(arg->addr);
	if (!access_ok(out, (size_t)arg->max * sizeof(*out)))
		return -EFAULT;
	if (arg->flags & LITE_POLL_FENCE) {
		ret = lite_api_fence(ctx, arg->timeout_ms);
	} else {
		/* Wait once; then take what is there, a batch at a time. */
		ret = n = lite_api_poll(ctx, c,
					min_t(u32, arg->max, LITE_POLL_BATCH),
					arg->timeout_ms);
		while (n > 0) {
			/* Lost on a fault: the caller gave a bad array. */
			if (copy_to_user(out + nr, c, n * sizeof(*c)))
				return -EFAULT;
			nr += n;
			n = 0;
			if (nr < arg->max)
				n = lite_api_poll(ctx, c,
						  min_t(u32, arg->max - nr,
							LITE_POLL_BATCH), 0);
		}
		if (ret > 0)
			ret = 0;
	}
	arg->nr = nr;
	arg->outstanding = lite_api_outstanding(ctx);
	return ret;
}

static long lite_ioctl_memset(struct lite_ctx *ctx, void *data,
			      unsigned int cmd)
{
	struct lite_ioc_memset *arg = data;

	return lite_api_memset(ctx, arg->handle, arg->offset, arg->value,
			       arg->size);
}

/* LITE_IOC_MEMCPY and LITE_IOC_MEMMOVE: both handle overlap. */
static long lite_ioctl_memcpy(struct lite_ctx *ctx, void *data,
			      unsigned int cmd)
{
	struct lite_ioc_memcpy *arg = data;

	return lite_api_memcpy(ctx, arg->dst, arg->dst_offset, arg->src,
			       arg->src_offset, arg->size);
}

static long lite_ioctl_publish(struct lite_ctx *ctx, void *data,
			       unsigned int cmd)
{
	struct lite_ioc_publish *arg = data;

	if (arg->reserved)
		return -EINVAL;
	return lite_api_publish(ctx, arg->handle, arg->identifier, arg->perm,
				arg->password);
}

static long lite_ioctl_ask(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_ask *arg = data;

	return lite_api_ask(ctx, arg->node, arg->identifier, arg->perm,
			    arg->password, &arg->handle);
}

static void lite_ioctl_ask_undo(struct lite_ctx *ctx, void *data)
{
	lite_api_unmap(ctx, ((struct lite_ioc_ask *)data)->handle);
}

static long lite_ioctl_lmr_info(struct lite_ctx *ctx, void *data,
				unsigned int cmd)
{
	struct lite_ioc_lmr_info *arg = data;

	if (arg->reserved)
		return -EINVAL;
	return lite_api_lmr_info(ctx, arg->handle, &arg->node, &arg->size,
				 &arg->perm);
}

static long lite_ioctl_register(struct lite_ctx *ctx, void *data,
				unsigned int cmd)
{
	struct lite_ioc_register *arg = data;

	if (strnlen(arg->name, sizeof(arg->name)) == sizeof(arg->name))
		return -EINVAL;
	return lite_rpc_register(ctx, arg->port, arg->max_size, arg->name);
}

static long lite_ioctl_query_port(struct lite_ctx *ctx, void *data,
				  unsigned int cmd)
{
	struct lite_ioc_query_port *arg = data;

	if (arg->reserved)
		return -EINVAL;
	return lite_rpc_query_port(arg->node, arg->port, &arg->max_size);
}

/* LITE_IOC_CALL, and LITE_IOC_SEND: one way, no reply. */
static long lite_ioctl_call(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_rpc_call *arg = data;
	bool one_way = cmd == LITE_IOC_SEND;
	struct iov_iter src, dst;
	int ret;

	if (arg->priority > LITE_PRIO_LOW)
		return -EINVAL;
	if (arg->size > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	if (one_way && (arg->reply_addr || arg->reply_max || arg->reply_len))
		return -EINVAL;
	if (arg->reply_max > LITE_RPC_MAX_MSG)
		return -EINVAL;
	ret = lite_ubuf_iter(&src, arg->addr, arg->size, true);
	if (ret)
		return ret;
	if (one_way)
		return lite_rpc_send(arg->node, arg->port, &src, arg->size,
				     arg->priority);
	ret = lite_ubuf_iter(&dst, arg->reply_addr, arg->reply_max, false);
	if (ret)
		return ret;
	ret = lite_rpc_call(lite_ctx_user(ctx), arg->node, arg->port, &src,
			    arg->size, &dst, arg->reply_max, arg->priority);
	if (ret < 0)
		return ret;
	arg->reply_len = ret;
	return 0;
}

static long lite_ioctl_mcall(struct lite_ctx *ctx, void *data,
			     unsigned int cmd)
{
	struct lite_ioc_mcall_dst ud[LITE_MCAST_MAX];
	struct lite_ioc_rpc_mcall *arg = data;
	struct lite_ioc_mcall_dst __user *uds;
	struct lite_rpc_mdst *dsts;
	struct iov_iter src;
	unsigned int i;
	u64 reply;
	long ret;

	if (arg->reserved || !arg->nr || arg->nr > LITE_MCAST_MAX ||
	    arg->priority > LITE_PRIO_LOW || arg->reply_max > LITE_RPC_MAX_MSG)
		return -EINVAL;
	if (arg->size > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	uds = u64_to_user_ptr(arg->dsts);
	if (copy_from_user(ud, uds, arg->nr * sizeof(ud[0])))
		return -EFAULT;
	for (i = 0; i < arg->nr; i++)
		if (ud[i].reserved)
			return -EINVAL;
	ret = lite_ubuf_iter(&src, arg->addr, arg->size, true);
	if (ret)
		return ret;
	/* Every slot, checked at once: at most 16 MiB, no overflow. */
	if (!access_ok(u64_to_user_ptr(arg->reply_addr),
		       (u64)arg->nr * arg->reply_max))
		return -EFAULT;
	dsts = kcalloc(arg->nr, sizeof(*dsts), GFP_KERNEL);
	if (!dsts)
		return -ENOMEM;
	for (i = 0; i < arg->nr; i++) {
		dsts[i].node = ud[i].node;
		reply = arg->reply_addr + (u64)i * arg->reply_max;
		iov_iter_ubuf(&dsts[i].dst, ITER_DEST, u64_to_user_ptr(reply),
			      arg->reply_max);
	}
	ret = lite_rpc_mcall(lite_ctx_user(ctx), dsts, arg->nr, arg->port,
			     &src, arg->size, arg->reply_max, arg->priority);
	for (i = 0; ret >= 0 && i < arg->nr; i++) {
		ud[i].status = dsts[i].status;
		ud[i].reply_len = dsts[i].len;
	}
	kfree(dsts);
	if (ret >= 0 && copy_to_user(uds, ud, arg->nr * sizeof(ud[0])))
		return -EFAULT;
	return ret;
}

static long lite_ioctl_recv(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_rpc_recv *arg = data;
	struct iov_iter dst;
	int ret;

	if (arg->flags & ~LITE_RECV_NONBLOCK || arg->priority > LITE_PRIO_LOW)
		return -EINVAL;
	ret = lite_ubuf_iter(&dst, arg->addr, arg->size, false);
	if (ret)
		return ret;
	ret = lite_rpc_recv(ctx, arg->port, &dst, arg->size,
			    arg->flags & LITE_RECV_NONBLOCK, &arg->descriptor,
			    &arg->src_node);
	if (ret < 0)
		return ret;
	arg->len = ret;
	return 0;
}

static long lite_ioctl_reply(struct lite_ctx *ctx, void *data,
			     unsigned int cmd)
{
	const struct lite_ioc_rpc_reply *arg = data;
	struct iov_iter src;
	int ret;

	if (arg->priority > LITE_PRIO_LOW)
		return -EINVAL;
	if (arg->size > LITE_RPC_MAX_MSG)
		return -EMSGSIZE;
	ret = lite_ubuf_iter(&src, arg->addr, arg->size, true);
	if (ret)
		return ret;
	return lite_rpc_reply(ctx, arg->descriptor, &src, arg->size,
			      arg->priority);
}

/*
 * The request was consumed but its descriptor cannot reach the caller:
 * refuse the call now rather than let its caller wait for the timeout.
 */
static void lite_ioctl_recv_undo(struct lite_ctx *ctx, void *data)
{
	const struct lite_ioc_rpc_recv *arg = data;

	if (arg->descriptor != LITE_DESC_NO_REPLY)
		lite_rpc_token_drop(ctx, arg->descriptor);
}

static long lite_ioctl_reply_recv(struct lite_ctx *ctx, void *data,
				  unsigned int cmd)
{
	struct lite_ioc_rpc_reply_recv *arg = data;
	long ret;

	ret = lite_ioctl_reply(ctx, &arg->reply, cmd);
	if (ret)
		return ret;
	return lite_ioctl_recv(ctx, &arg->recv, cmd);
}

static void lite_ioctl_reply_recv_undo(struct lite_ctx *ctx, void *data)
{
	lite_ioctl_recv_undo(ctx, &((struct lite_ioc_rpc_reply_recv *)data)->recv);
}

static long lite_ioctl_atomic(struct lite_ctx *ctx, void *data,
			      unsigned int cmd)
{
	struct lite_ioc_atomic *arg = data;

	if (arg->reserved)
		return -EINVAL;
	return lite_api_atomic(ctx, arg->handle, arg->password, arg->op,
			       arg->offset, arg->value, arg->compare,
			       &arg->old);
}

static long lite_ioctl_lock(struct lite_ctx *ctx, void *data, unsigned int cmd)
{
	struct lite_ioc_lock *arg = data;

	if (arg->reserved[0] || arg->reserved[1])
		return -EINVAL;
	switch (cmd) {
	case LITE_IOC_LOCK_CREATE:
		return lite_lock_create(ctx, arg->node, &arg->lock);
	case LITE_IOC_LOCK_ASK:
		return lite_lock_ask(ctx, arg->node, arg->lock);
	case LITE_IOC_LOCK:
		return lite_lock(ctx, arg->node, arg->lock);
	case LITE_IOC_LOCK_DESTROY:
		return lite_lock_destroy(ctx, arg->node, arg->lock);
	default:
		return lite_unlock(ctx, arg->node, arg->lock);
	}
}

static void lite_ioctl_lock_undo(struct lite_ctx *ctx, void *data)
{
	struct lite_ioc_lock *arg = data;

	lite_lock_destroy(ctx, arg->node, arg->lock);
}

static long lite_ioctl_barrier(struct lite_ctx *ctx, void *data,
			       unsigned int cmd)
{
	struct lite_ioc_barrier *arg = data;

	if (arg->reserved)
		return -EINVAL;
	return lite_barrier(ctx, arg->nr);
}

/* Room for the largest argument struct. */
union lite_ioc_arg {
	struct lite_ioc_join		join;
	struct lite_ioc_cluster		cluster;
	struct lite_ioc_alloc		alloc;
	struct lite_ioc_handle		handle;
	struct lite_ioc_rw		rw;
	struct lite_ioc_memset		memset;
	struct lite_ioc_memcpy		memcpy;
	struct lite_ioc_publish		publish;
	struct lite_ioc_ask		ask;
	struct lite_ioc_lmr_info	lmr_info;
	struct lite_ioc_register	reg;
	struct lite_ioc_query_port	query_port;
	struct lite_ioc_rpc_call	call;
	struct lite_ioc_rpc_recv	recv;
	struct lite_ioc_rpc_reply	reply;
	struct lite_ioc_rpc_reply_recv	reply_recv;
	struct lite_ioc_atomic		atomic;
	struct lite_ioc_lock		lock;
	struct lite_ioc_barrier		barrier;
	struct lite_ioc_post		post;
	struct lite_ioc_poll		poll;
	struct lite_ioc_rpc_mcall	mcall;
};

struct lite_ioctl_desc {
	unsigned int	cmd;
	unsigned int	flags;
	long		(*fn)(struct lite_ctx *ctx, void *data, unsigned int cmd);
	/* Takes back what fn made when its result cannot be copied out. */
	void		(*undo)(struct lite_ctx *ctx, void *data);
};

#define LITE_IOCTL_ADMIN	0x1	/* CAP_NET_ADMIN, before anything is read */
/* Copied out on an error too: a failed fence still says what is left. */
#define LITE_IOCTL_OUT_ALWAYS	0x2

#define LITE_IOC_FITS(ioc)	(_IOC_SIZE(ioc) <= sizeof(union lite_ioc_arg))
#define LITE_IOCTL_FLAGS(ioc, f, u, fl)					\
	[_IOC_NR(ioc)] = {						\
		.cmd = (ioc) + BUILD_BUG_ON_ZERO(!LITE_IOC_FITS(ioc)),	\
		.flags = (fl), .fn = (f), .undo = (u),			\
	}
#define LITE_IOCTL(ioc, f, u)	LITE_IOCTL_FLAGS(ioc, f, u, 0)

static const struct lite_ioctl_desc lite_ioctls[] = {
	LITE_IOCTL_FLAGS(LITE_IOC_JOIN,	 lite_ioctl_join, NULL, LITE_IOCTL_ADMIN),
	LITE_IOCTL(LITE_IOC_CLUSTER,	 lite_ioctl_cluster, NULL),
	LITE_IOCTL(LITE_IOC_ALLOC,	 lite_ioctl_alloc, lite_ioctl_alloc_undo),
	LITE_IOCTL(LITE_IOC_FREE,	 lite_ioctl_handle, NULL),
	LITE_IOCTL(LITE_IOC_UNMAP,	 lite_ioctl_handle, NULL),
	LITE_IOCTL(LITE_IOC_WRITE,	 lite_ioctl_rw, NULL),
	LITE_IOCTL(LITE_IOC_READ,	 lite_ioctl_rw, NULL),
	LITE_IOCTL(LITE_IOC_MEMSET,	 lite_ioctl_memset, NULL),
	LITE_IOCTL(LITE_IOC_MEMCPY,	 lite_ioctl_memcpy, NULL),
	LITE_IOCTL(LITE_IOC_MEMMOVE,	 lite_ioctl_memcpy, NULL),
	LITE_IOCTL(LITE_IOC_PUBLISH,	 lite_ioctl_publish, NULL),
	LITE_IOCTL(LITE_IOC_ASK,	 lite_ioctl_ask, lite_ioctl_ask_undo),
	LITE_IOCTL(LITE_IOC_LMR_INFO,	 lite_ioctl_lmr_info, NULL),
	LITE_IOCTL(LITE_IOC_REGISTER,	 lite_ioctl_register, NULL),
	LITE_IOCTL(LITE_IOC_QUERY_PORT,	 lite_ioctl_query_port, NULL),
	LITE_IOCTL(LITE_IOC_CALL,	 lite_ioctl_call, NULL),
	LITE_IOCTL(LITE_IOC_SEND,	 lite_ioctl_call, NULL),
	LITE_IOCTL(LITE_IOC_RECV,	 lite_ioctl_recv, lite_ioctl_recv_undo),
	LITE_IOCTL(LITE_IOC_REPLY,	 lite_ioctl_reply, NULL),
	LITE_IOCTL(LITE_IOC_REPLY_RECV,	 lite_ioctl_reply_recv,
		   lite_ioctl_reply_recv_undo),
	LITE_IOCTL(LITE_IOC_ATOMIC,	 lite_ioctl_atomic, NULL),
	LITE_IOCTL(LITE_IOC_LOCK_CREATE, lite_ioctl_lock, lite_ioctl_lock_undo),
	LITE_IOCTL(LITE_IOC_LOCK_ASK,	 lite_ioctl_lock, NULL),
	LITE_IOCTL(LITE_IOC_LOCK,	 lite_ioctl_lock, NULL),
	LITE_IOCTL(LITE_IOC_UNLOCK,	 lite_ioctl_lock, NULL),
	LITE_IOCTL(LITE_IOC_BARRIER,	 lite_ioctl_barrier, NULL),
	LITE_IOCTL(LITE_IOC_LOCK_DESTROY, lite_ioctl_lock, NULL),
	LITE_IOCTL(LITE_IOC_POST,	 lite_ioctl_post, NULL),
	LITE_IOCTL_FLAGS(LITE_IOC_POLL,	 lite_ioctl_poll, NULL,
			 LITE_IOCTL_OUT_ALWAYS),
	LITE_IOCTL(LITE_IOC_MCALL,	 lite_ioctl_mcall, NULL),
};

static long lite_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct lite_ioctl_desc *d;
	unsigned int nr = _IOC_NR(cmd);
	size_t size = _IOC_SIZE(cmd);
	union lite_ioc_arg karg;
	long ret;

	if (_IOC_TYPE(cmd) != LITE_IOC_MAGIC || nr >= ARRAY_SIZE(lite_ioctls))
		return -ENOTTY;
	d = &lite_ioctls[array_index_nospec(nr, ARRAY_SIZE(lite_ioctls))];
	/* The whole number: direction and size as the uapi header says. */
	if (!d->fn || d->cmd != cmd)
		return -ENOTTY;
	if (d->flags & LITE_IOCTL_ADMIN && !capable(CAP_NET_ADMIN))
		return -EPERM;
	if (copy_from_user(&karg, uarg, size)) {
		ret = -EFAULT;
		goto out;
	}
	ret = d->fn(file->private_data, &karg, cmd);
	if (!(_IOC_DIR(cmd) & _IOC_READ) ||
	    (ret < 0 && !(d->flags & LITE_IOCTL_OUT_ALWAYS)))
		goto out;
	if (copy_to_user(uarg, &karg, size) && ret >= 0) {
		if (d->undo)
			d->undo(file->private_data, &karg);
		ret = -EFAULT;
	}
out:
	/* A join's key, even in part, stays with the membership only. */
	memzero_explicit(&karg, size);
	return ret;
}

static int lite_open(struct inode *inode, struct file *file)
{
	/* Like the RLIMITs: what the opener may, the file may. */
	file->private_data = lite_ctx_create(!capable(CAP_SYS_RESOURCE));
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

/* Group "lite" comes from user space (udev rule, lite-ae install). */
static ushort lite_dev_mode = 0660;
module_param_named(dev_mode, lite_dev_mode, ushort, 0444);
MODULE_PARM_DESC(dev_mode, "mode of /dev/lite (default: 0660; no bits for others)");

static struct miscdevice lite_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= LITE_DEV_NAME,
	.fops	= &lite_fops,
};

int lite_chardev_init(void)
{
	/* Every ioctl works on a read-only open too: others get nothing. */
	if (lite_dev_mode & ~0660) {
		pr_err("dev_mode %#o: only owner and group read/write bits\n",
		       lite_dev_mode);
		return -EINVAL;
	}
	lite_misc.mode = lite_dev_mode;
	return misc_register(&lite_misc);
}

void lite_chardev_exit(void)
{
	misc_deregister(&lite_misc);
}
