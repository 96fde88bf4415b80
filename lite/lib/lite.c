// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * liblite: the calls of lite.h, each one ioctl (or mmap) on /dev/lite.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lite_key.h>

#include "export.h"
#include "lite.h"

/* -1 until the first call opens the device; never closed afterwards. */
static atomic_int lite_dev = -1;

/*
 * Open /dev/lite on first use. A failed open is not remembered, so a
 * program may start before the module is loaded. Racing threads each
 * open it, one wins and the others close theirs: every handle lives on a
 * single open file.
 */
static int lite_dev_fd(void)
{
	int fd = atomic_load_explicit(&lite_dev, memory_order_acquire);
	int unset = -1;

	if (fd >= 0)
		return fd;
	fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!atomic_compare_exchange_strong_explicit(&lite_dev, &unset, fd,
						     memory_order_acq_rel,
						     memory_order_acquire)) {
		close(fd);
		fd = unset;
	}
	return fd;
}

/* The return convention of every call: negative errno, mirrored in errno. */
static int lite_ret(int ret)
{
	if (ret < 0)
		errno = -ret;
	return ret;
}

static int lite_ioctl(unsigned long request, void *arg)
{
	int fd = lite_dev_fd();

	if (fd < 0)
		return fd;
	if (ioctl(fd, request, arg) < 0)
		return -errno;
	return 0;
}

/*
 * The ABI's handles are __u32 but the API returns them as int: release
 * (with @release, FREE or UNMAP) a handle that does not fit rather than
 * return it negative.
 */
static int lite_handle_ret(uint32_t handle, unsigned long release)
{
	struct lite_ioc_handle h = { .handle = handle };

	if (handle <= INT_MAX)
		return (int)handle;
	lite_ioctl(release, &h);
	return -EOVERFLOW;
}

static int lite_cluster(struct lite_ioc_cluster *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = lite_ioctl(LITE_IOC_CLUSTER, c);
	if (ret)
		return ret;
	return c->node_id ? 0 : -ENOTCONN;
}

LITE_EXPORT int lite_join_key(const char *manager_ip, int port, int ib_port,
			      const char *key_file)
{
	struct lite_ioc_join j = { .port = port, .ib_port = ib_port };
	struct stat st;
	size_t len;
	int ret;

	if (!manager_ip)
		return lite_ret(-EFAULT);
	/* Caught here: copying would truncate the one, casting wrap the others. */
	len = strnlen(manager_ip, sizeof(j.manager));
	if (len == sizeof(j.manager) || port < 0 || ib_port < 0)
		return lite_ret(-EINVAL);
	memcpy(j.manager, manager_ip, len);
	ret = lite_key_read_file(key_file ? key_file : LITE_KEY_FILE, j.key,
				 &st);
	if (!ret)
		ret = lite_ioctl(LITE_IOC_JOIN, &j);
	explicit_bzero(j.key, sizeof(j.key));
	return lite_ret(ret ? ret : (int)j.node_id);
}

LITE_EXPORT int lite_join(const char *manager_ip, int port, int ib_port)
{
	return lite_join_key(manager_ip, port, ib_port, NULL);
}

LITE_EXPORT int lite_node_id(void)
{
	struct lite_ioc_cluster c;
	int ret = lite_cluster(&c);

	return lite_ret(ret ? ret : (int)c.node_id);
}

LITE_EXPORT int lite_nr_nodes(void)
{
	struct lite_ioc_cluster c;
	int ret = lite_cluster(&c);

	return lite_ret(ret ? ret : (int)c.nr_nodes);
}

LITE_EXPORT int lite_alloc(unsigned int node, uint64_t size,
			   unsigned int flags, int password)
{
	struct lite_ioc_alloc a = {
		.node = node,
		.flags = flags,
		.size = size,
		.password = password,
	};
	int ret;

	ret = lite_ioctl(LITE_IOC_ALLOC, &a);
	return lite_ret(ret ? ret : lite_handle_ret(a.handle, LITE_IOC_FREE));
}

LITE_EXPORT int lite_free(int lh)
{
	struct lite_ioc_handle h = { .handle = lh };

	return lite_ret(lite_ioctl(LITE_IOC_FREE, &h));
}

LITE_EXPORT int lite_unmap(int lh)
{
	struct lite_ioc_handle h = { .handle = lh };

	return lite_ret(lite_ioctl(LITE_IOC_UNMAP, &h));
}

static int lite_rw(unsigned long request, int lh, uint64_t offset,
		   const void *buf, uint64_t size, int password, int prio)
{
	struct lite_ioc_rw rw = {
		.handle = lh,
		.password = password,
		.offset = offset,
		.size = size,
		.addr = (uintptr_t)buf,
		.priority = prio,
	};

	return lite_ret(lite_ioctl(request, &rw));
}

LITE_EXPORT int lite_write(int lh, uint64_t offset, const void *buf,
			   uint64_t size, int password, int prio)
{
	return lite_rw(LITE_IOC_WRITE, lh, offset, buf, size, password, prio);
}

LITE_EXPORT int lite_read(int lh, uint64_t offset, void *buf, uint64_t size,
			  int password, int prio)
{
	return lite_rw(LITE_IOC_READ, lh, offset, buf, size, password, prio);
}

static int lite_post(uint32_t op, int lh, uint64_t offset, const void *buf,
		     uint64_t size, int password, uint64_t id)
{
	struct lite_ioc_post p = {
		.handle = lh,
		.password = password,
		.offset = offset,
		.size = size,
		.addr = (uintptr_t)buf,
		.id = id,
		.op = op,
	};

	return lite_ret(lite_ioctl(LITE_IOC_POST, &p));
}

LITE_EXPORT int lite_post_write(int lh, uint64_t offset, const void *buf,
				uint64_t size, int password, uint64_t id)
{
	return lite_post(LITE_POST_WRITE, lh, offset, buf, size, password, id);
}

LITE_EXPORT int lite_post_read(int lh, uint64_t offset, void *buf,
			       uint64_t size, int password, uint64_t id)
{
	return lite_post(LITE_POST_READ, lh, offset, buf, size, password, id);
}

LITE_EXPORT int lite_poll(struct lite_completion *out, unsigned int max,
			  int timeout_ms)
{
	struct lite_ioc_poll p = {
		.addr = (uintptr_t)out,
		.max = max,
		.timeout_ms = timeout_ms,
	};
	int ret = lite_ioctl(LITE_IOC_POLL, &p);

	return lite_ret(ret ? ret : (int)p.nr);
}

LITE_EXPORT int lite_fence(int timeout_ms)
{
	struct lite_ioc_poll p = {
		.timeout_ms = timeout_ms,
		.flags = LITE_POLL_FENCE,
	};

	return lite_ret(lite_ioctl(LITE_IOC_POLL, &p));
}

LITE_EXPORT int lite_memset(int lh, uint64_t offset, int byte, uint64_t size)
{
	/* As memset(3): -1 means 0xff, not an error. */
	struct lite_ioc_memset m = {
		.handle = lh,
		.value = (unsigned char)byte,
		.offset = offset,
		.size = size,
	};

	return lite_ret(lite_ioctl(LITE_IOC_MEMSET, &m));
}

static int lite_copy(unsigned long request, int dst, uint64_t dst_off,
		     int src, uint64_t src_off, uint64_t size)
{
	struct lite_ioc_memcpy c = {
		.dst = dst,
		.src = src,
		.dst_offset = dst_off,
		.src_offset = src_off,
		.size = size,
	};

	return lite_ret(lite_ioctl(request, &c));
}

LITE_EXPORT int lite_memcpy(int dst, uint64_t dst_off, int src,
			    uint64_t src_off, uint64_t size)
{
	return lite_copy(LITE_IOC_MEMCPY, dst, dst_off, src, src_off, size);
}

LITE_EXPORT int lite_memmove(int dst, uint64_t dst_off, int src,
			     uint64_t src_off, uint64_t size)
{
	return lite_copy(LITE_IOC_MEMMOVE, dst, dst_off, src, src_off, size);
}

LITE_EXPORT int lite_publish(int lh, uint64_t identifier, unsigned int perm,
			     int password)
{
	struct lite_ioc_publish p = {
		.identifier = identifier,
		.handle = lh,
		.perm = perm,
		.password = password,
	};

	return lite_ret(lite_ioctl(LITE_IOC_PUBLISH, &p));
}

LITE_EXPORT int lite_ask(unsigned int node, uint64_t identifier,
			 unsigned int perm, int password)
{
	struct lite_ioc_ask a = {
		.identifier = identifier,
		.node = node,
		.perm = perm,
		.password = password,
	};
	int ret;

	ret = lite_ioctl(LITE_IOC_ASK, &a);
	return lite_ret(ret ? ret : lite_handle_ret(a.handle, LITE_IOC_UNMAP));
}

LITE_EXPORT int lite_lmr_info(int lh, unsigned int *node, uint64_t *size,
			      unsigned int *perm)
{
	struct lite_ioc_lmr_info info = { .handle = lh };
	int ret;

	ret = lite_ioctl(LITE_IOC_LMR_INFO, &info);
	if (ret)
		return lite_ret(ret);
	if (node)
		*node = info.node;
	if (size)
		*size = info.size;
	if (perm)
		*perm = info.perm;
	return 0;
}

/* @size rounded up to whole pages, or 0 if that overflows. */
static size_t lite_buffer_len(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (size > SIZE_MAX - (page - 1))
		return 0;
	return (size + page - 1) & ~(page - 1);
}

LITE_EXPORT void *lite_alloc_buffer(size_t size)
{
	size_t len = lite_buffer_len(size);
	void *buf;
	int fd;

	if (!size || !len) {
		errno = size ? ENOMEM : EINVAL;
		return NULL;
	}
	fd = lite_dev_fd();
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return buf == MAP_FAILED ? NULL : buf;
}

LITE_EXPORT int lite_free_buffer(void *buf, size_t size)
{
	size_t len = lite_buffer_len(size);

	if (!buf || !size || !len)
		return lite_ret(-EINVAL);
	if (munmap(buf, len))
		return lite_ret(-errno);
	return 0;
}

LITE_EXPORT int lite_rpc_register(unsigned int port, unsigned int max_size,
				  const char *name)
{
	struct lite_ioc_register r = { .port = port, .max_size = max_size };
	size_t len = name ? strnlen(name, sizeof(r.name)) : 0;

	/* As lite_join: a name cut short would name something else. */
	if (len == sizeof(r.name))
		return lite_ret(-EINVAL);
	if (len)
		memcpy(r.name, name, len);
	return lite_ret(lite_ioctl(LITE_IOC_REGISTER, &r));
}

LITE_EXPORT int lite_rpc_query_port(unsigned int node, unsigned int port)
{
	struct lite_ioc_query_port q = { .node = node, .port = port };
	int ret;

	ret = lite_ioctl(LITE_IOC_QUERY_PORT, &q);
	return lite_ret(ret ? ret : (int)q.max_size);
}

LITE_EXPORT int lite_rpc_call(unsigned int node, unsigned int port,
			      const void *req, unsigned int size, void *reply,
			      unsigned int reply_max, int prio)
{
	struct lite_ioc_rpc_call c = {
		.node = node,
		.port = port,
		.addr = (uintptr_t)req,
		.size = size,
		.priority = prio,
		.reply_addr = (uintptr_t)reply,
		.reply_max = reply_max,
	};
	int ret;

	ret = lite_ioctl(LITE_IOC_CALL, &c);
	return lite_ret(ret ? ret : (int)c.reply_len);
}

LITE_EXPORT int lite_rpc_mcall(const unsigned int *nodes, unsigned int n,
			       unsigned int port, const void *req,
			       unsigned int size, void *replies,
			       unsigned int reply_max, unsigned int *reply_len,
			       int *status, int prio)
{
	struct lite_ioc_mcall_dst d[LITE_MCAST_MAX] = { 0 };
	struct lite_ioc_rpc_mcall c = {
		.dsts = (uintptr_t)d,
		.nr = n,
		.port = port,
		.addr = (uintptr_t)req,
		.size = size,
		.priority = prio,
		.reply_addr = (uintptr_t)replies,
		.reply_max = reply_max,
	};
	unsigned int i;
	int fd, ret;

	if (!n || n > LITE_MCAST_MAX || !nodes || !status)
		return lite_ret(-EINVAL);
	for (i = 0; i < n; i++)
		d[i].node = nodes[i];
	fd = lite_dev_fd();
	if (fd < 0)
		return lite_ret(fd);
	ret = ioctl(fd, LITE_IOC_MCALL, &c);
	if (ret < 0)
		return lite_ret(-errno);
	for (i = 0; i < n; i++) {
		status[i] = d[i].status;
		if (reply_len)
			reply_len[i] = d[i].reply_len;
	}
	return ret;
}

LITE_EXPORT int lite_rpc_send(unsigned int node, unsigned int port,
			      const void *msg, unsigned int size, int prio)
{
	struct lite_ioc_rpc_call c = {
		.node = node,
		.port = port,
		.addr = (uintptr_t)msg,
		.size = size,
		.priority = prio,
	};

	return lite_ret(lite_ioctl(LITE_IOC_SEND, &c));
}

static void lite_recv_init(struct lite_ioc_rpc_recv *r, unsigned int port,
			   void *buf, unsigned int size, unsigned int flags,
			   int prio)
{
	*r = (struct lite_ioc_rpc_recv) {
		.port = port,
		.flags = flags,
		.addr = (uintptr_t)buf,
		.size = size,
		.priority = prio,
	};
}

/* The outputs of a RECV that succeeded; returns the message's length. */
static int lite_recv_done(const struct lite_ioc_rpc_recv *r,
			  uint64_t *descriptor, unsigned int *src_node)
{
	if (descriptor)
		*descriptor = r->descriptor;
	if (src_node)
		*src_node = r->src_node;
	return (int)r->len;
}

LITE_EXPORT int lite_rpc_recv(unsigned int port, void *buf, unsigned int size,
			      uint64_t *descriptor, unsigned int *src_node,
			      unsigned int flags, int prio)
{
	struct lite_ioc_rpc_recv r;
	int ret;

	lite_recv_init(&r, port, buf, size, flags, prio);
	ret = lite_ioctl(LITE_IOC_RECV, &r);
	return lite_ret(ret ? ret : lite_recv_done(&r, descriptor, src_node));
}

LITE_EXPORT int lite_rpc_reply(uint64_t descriptor, const void *buf,
			       unsigned int size, int prio)
{
	struct lite_ioc_rpc_reply r = {
		.descriptor = descriptor,
		.addr = (uintptr_t)buf,
		.size = size,
		.priority = prio,
	};

	return lite_ret(lite_ioctl(LITE_IOC_REPLY, &r));
}

LITE_EXPORT int lite_rpc_reply_recv(uint64_t descriptor, const void *rbuf,
				    unsigned int rsize, unsigned int port,
				    void *buf, unsigned int size,
				    uint64_t *next_descriptor,
				    unsigned int *src_node, int prio)
{
	struct lite_ioc_rpc_reply_recv rr = {
		.reply = {
			.descriptor = descriptor,
			.addr = (uintptr_t)rbuf,
			.size = rsize,
			.priority = prio,
		},
	};
	int ret;

	lite_recv_init(&rr.recv, port, buf, size, 0, prio);
	ret = lite_ioctl(LITE_IOC_REPLY_RECV, &rr);
	return lite_ret(ret ? ret :
			lite_recv_done(&rr.recv, next_descriptor, src_node));
}

static int lite_atomic(int lh, unsigned int op, uint64_t offset,
		       uint64_t value, uint64_t compare, uint64_t *old,
		       int password)
{
	struct lite_ioc_atomic a = {
		.handle = lh,
		.op = op,
		.offset = offset,
		.value = value,
		.compare = compare,
		.password = password,
	};
	int ret;

	ret = lite_ioctl(LITE_IOC_ATOMIC, &a);
	if (ret)
		return lite_ret(ret);
	if (old)
		*old = a.old;
	return 0;
}

LITE_EXPORT int lite_fetch_add(int lh, uint64_t offset, uint64_t add,
			       uint64_t *old, int password)
{
	return lite_atomic(lh, LITE_ATOMIC_FETCH_ADD, offset, add, 0, old,
			   password);
}

LITE_EXPORT int lite_compare_swap(int lh, uint64_t offset, uint64_t compare,
				  uint64_t swap, uint64_t *old, int password)
{
	return lite_atomic(lh, LITE_ATOMIC_CMP_SWP, offset, swap, compare, old,
			   password);
}

LITE_EXPORT int lite_swap(int lh, uint64_t offset, uint64_t value,
			  uint64_t *old, int password)
{
	return lite_atomic(lh, LITE_ATOMIC_SWAP, offset, value, 0, old,
			   password);
}

static int lite_lock_op(unsigned long request, unsigned int node,
			unsigned int lock)
{
	struct lite_ioc_lock l = { .node = node, .lock = lock };

	return lite_ret(lite_ioctl(request, &l));
}

LITE_EXPORT int lite_lock_create(unsigned int node)
{
	struct lite_ioc_lock l = { .node = node };
	int ret;

	ret = lite_ioctl(LITE_IOC_LOCK_CREATE, &l);
	if (!ret && l.lock > INT_MAX)
		ret = -EOVERFLOW;	/* no negative lock numbers */
	return lite_ret(ret ? ret : (int)l.lock);
}

LITE_EXPORT int lite_lock_ask(unsigned int node, unsigned int lock)
{
	return lite_lock_op(LITE_IOC_LOCK_ASK, node, lock);
}

LITE_EXPORT int lite_lock(unsigned int node, unsigned int lock)
{
	return lite_lock_op(LITE_IOC_LOCK, node, lock);
}

LITE_EXPORT int lite_unlock(unsigned int node, unsigned int lock)
{
	return lite_lock_op(LITE_IOC_UNLOCK, node, lock);
}

LITE_EXPORT int lite_lock_destroy(unsigned int node, unsigned int lock)
{
	return lite_lock_op(LITE_IOC_LOCK_DESTROY, node, lock);
}

LITE_EXPORT int lite_barrier(unsigned int nr)
{
	struct lite_ioc_barrier b = { .nr = nr };

	return lite_ret(lite_ioctl(LITE_IOC_BARRIER, &b));
}
