// SPDX-License-Identifier: GPL-2.0
/*
 * Regions by name, and the messages that make them (docs/dsm.md).
 *
 * A region's metadata lives on its meta node, 1 + jhash(name) % nodes:
 * its size, owner uid, homes and their LMRs, and its locks' LITE ids,
 * created on first use. The meta node creates the region: an LMR on each
 * home (zeroed by LITE), published under ident + home index with a random
 * password. Other nodes learn these by an ATTACH RPC and ask each home for
 * its LMR. Every message carries the cluster key: LITE's RPC ports are
 * open to user programs, and only kernels know the key.
 *
 * Locking: dsm_regions_lock (this node's attached regions) is taken
 * before dsm_meta_lock (the regions this node is meta node of).
 */
#include <crypto/algapi.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../include/lite_kapi.h"
#include "dsm.h"

static char *dsm_key_file = "/etc/lite/cluster.key";
module_param_named(key_file, dsm_key_file, charp, 0444);
MODULE_PARM_DESC(key_file, "the cluster key, 64 hex digits (default: /etc/lite/cluster.key)");

static u8 dsm_key[DSM_KEY_LEN];

static DEFINE_MUTEX(dsm_regions_lock);
static LIST_HEAD(dsm_regions);

/* A region this node is the meta node of. */
struct dsm_meta {
	struct list_head	link;
	char			name[LITE_DSM_NAME_MAX];
	u64			size;
	u64			id;
	u64			ident;
	u32			uid;
	s32			password;
	u32			nr_homes;
	u32			homes[DSM_MAX_HOMES];
	u32			lh[DSM_MAX_HOMES];	/* the LMRs, ours */
	u32			attached;	/* regions on nodes using it */
	s32			lock_ids[LITE_DSM_LOCKS];	/* -1: none yet */
};

/*
 * LITE has no call to destroy a lock: the locks of freed regions are kept
 * for the next ones.
 */
struct dsm_spare_lock {
	struct list_head	link;
	u32			id;
};

static DEFINE_MUTEX(dsm_meta_lock);
static LIST_HEAD(dsm_metas);
static LIST_HEAD(dsm_spare_locks);

static struct task_struct *dsm_server_task;
static bool dsm_stopping;

static int dsm_key_load(void)
{
	char text[2 * DSM_KEY_LEN + 2];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int ret;

	f = filp_open(dsm_key_file, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, text, sizeof(text), &pos);
	filp_close(f, NULL);
	if (n == sizeof(text) - 1 && text[n - 1] == '\n')
		n--;
	ret = n == 2 * DSM_KEY_LEN ? hex2bin(dsm_key, text, DSM_KEY_LEN) :
	      -EINVAL;
	memzero_explicit(text, sizeof(text));
	return ret;
}

static struct dsm_meta *dsm_meta_find_name(const char *name)
{
	struct dsm_meta *m;

	list_for_each_entry(m, &dsm_metas, link)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

static struct dsm_meta *dsm_meta_find_id(u64 id)
{
	struct dsm_meta *m;

	list_for_each_entry(m, &dsm_metas, link)
		if (m->id == id)
			return m;
	return NULL;
}

/* Free @m's LMRs (every mapping of them is revoked) and keep its locks. */
static void dsm_meta_free(struct dsm_meta *m)
{
	struct dsm_spare_lock *s;
	u32 i;

	for (i = 0; i < m->nr_homes; i++)
		liteapi_deregister_mr(m->lh[i]);
	for (i = 0; i < LITE_DSM_LOCKS; i++) {
		if (m->lock_ids[i] < 0)
			continue;
		s = kmalloc(sizeof(*s), GFP_KERNEL);
		if (!s)
			continue;	/* lost to this module until lite.ko goes */
		s->id = m->lock_ids[i];
		list_add(&s->link, &dsm_spare_locks);
	}
	kvfree(m);
}

/*
 * The bytes of home @i's LMR: its pages (layout.h), at least one page for
 * a home of no block (LITE has no empty LMR; every home has one).
 */
static u64 dsm_meta_home_bytes(const struct dsm_meta *m, u32 i)
{
	u64 npages = DIV_ROUND_UP(m->size, PAGE_SIZE);

	return max_t(u64, dsm_home_pages(npages, m->nr_homes, i), 1) <<
	       DSM_PAGE_SHIFT;
}

/*
 * A new region: homes are nodes 1..N (N of them reachable now, at most
 * DSM_MAX_HOMES); block b of DSM_BLOCK_PAGES pages lives on homes[b % N],
 * after that home's earlier blocks (dsm_place()).
 */
static int dsm_meta_create(struct dsm_meta *m)
{
	int nodes = liteapi_get_total_node();
	u32 i, done = 0;
	int ret;

	if (nodes <= 0)
		return -ENOTCONN;
	m->nr_homes = min_t(u32, nodes, DSM_MAX_HOMES);
	for (i = 0; i < m->nr_homes; i++)
		if (dsm_meta_home_bytes(m, i) > DSM_HOME_MAX_BYTES)
			return -EFBIG;
	m->password = get_random_u32() >> 1;
	m->ident = get_random_u64() & ~0xffULL;
	m->id = get_random_u64() | 1;
	for (i = 0; i < LITE_DSM_LOCKS; i++)
		m->lock_ids[i] = -1;
	for (i = 0; i < m->nr_homes; i++) {
		m->homes[i] = i + 1;
		ret = liteapi_alloc_remote_mem(m->homes[i],
					       dsm_meta_home_bytes(m, i), false,
					       m->password);
		if (ret < 0)
			goto undo;
		m->lh[i] = ret;
		done++;
		ret = liteapi_add_askmr_table(m->ident + i, m->lh[i],
					      LITE_PERM_READ | LITE_PERM_WRITE,
					      m->password);
		if (ret)
			goto undo;
	}
	return 0;
undo:
	pr_warn("region %s: its LMR on node %u: %d\n", m->name, m->homes[i],
		ret);
	while (done--)
		liteapi_deregister_mr(m->lh[done]);
	return ret;
}

static int dsm_serve_attach(const struct dsm_msg_attach *req,
			    struct dsm_msg_attach_reply *rep)
{
	u64 size = le64_to_cpu(req->size);
	u32 uid = le32_to_cpu(req->uid);
	struct dsm_meta *m;
	bool created = false;
	int ret;
	u32 i;

	if (strnlen(req->name, LITE_DSM_NAME_MAX) == LITE_DSM_NAME_MAX ||
	    !req->name[0] || !size || size > LITE_DSM_MAX_SIZE)
		return -EINVAL;
	m = dsm_meta_find_name(req->name);
	if (m && m->uid != uid)
		return -EACCES;
	if (m && m->size != size)
		return -EINVAL;
	if (!m) {
		m = kvzalloc(sizeof(*m), GFP_KERNEL);
		if (!m)
			return -ENOMEM;
		strscpy(m->name, req->name, sizeof(m->name));
		m->size = size;
		m->uid = uid;
		ret = dsm_meta_create(m);
		if (ret) {
			kvfree(m);
			return ret;
		}
		list_add(&m->link, &dsm_metas);
		created = true;
	}
	m->attached++;
	rep->nr_homes = cpu_to_le32(m->nr_homes);
	rep->id = cpu_to_le64(m->id);
	rep->ident = cpu_to_le64(m->ident);
	rep->password = cpu_to_le32(m->password);
	rep->created = cpu_to_le32(created);
	for (i = 0; i < m->nr_homes; i++)
		rep->homes[i] = cpu_to_le32(m->homes[i]);
	return 0;
}

static int dsm_serve_lock(const struct dsm_msg_lock *req,
			  struct dsm_msg_lock_reply *rep)
{
	struct dsm_meta *m = dsm_meta_find_id(le64_to_cpu(req->id));
	u32 n = le32_to_cpu(req->lock);
	struct dsm_spare_lock *s;
	int id;

	if (!m)
		return -ENOENT;
	if (n >= LITE_DSM_LOCKS)
		return -EINVAL;
	if (m->lock_ids[n] < 0) {
		s = list_first_entry_or_null(&dsm_spare_locks,
					     struct dsm_spare_lock, link);
		if (s) {
			list_del(&s->link);
			id = s->id;
			kfree(s);
		} else {
			id = liteapi_create_lock(liteapi_get_node_id());
			if (id < 0)
				return id;
		}
		m->lock_ids[n] = id;
	}
	rep->home = cpu_to_le32(liteapi_get_node_id());
	rep->id = cpu_to_le32(m->lock_ids[n]);
	return 0;
}

static int dsm_serve_detach(const struct dsm_msg_detach *req)
{
	struct dsm_meta *m = dsm_meta_find_id(le64_to_cpu(req->id));

	if (!m)
		return -ENOENT;
	if (m->attached && --m->attached)
		return 0;
	list_del(&m->link);
	dsm_meta_free(m);
	return 0;
}

/*
 * One request of @len bytes (at most DSM_MSG_MAX); @reply has
 * DSM_REPLY_MAX bytes. The meta node's requests are served under
 * dsm_meta_lock, a DIFF (diff.c) without it.
 * Return: the reply's length (its first field is the status).
 */
static u32 dsm_meta_serve(const void *req, int len, void *reply)
{
	const struct dsm_msg_hdr *h = req;
	struct dsm_msg_status *st = reply;
	/* The size of each; a DIFF's is at least this. */
	static const u32 sizes[] = {
		[DSM_MSG_ATTACH] = sizeof(struct dsm_msg_attach),
		[DSM_MSG_LOCK] = sizeof(struct dsm_msg_lock),
		[DSM_MSG_DETACH] = sizeof(struct dsm_msg_detach),
		[DSM_MSG_DIFF] = sizeof(struct dsm_msg_diff),
	};
	u32 rlen = sizeof(*st);
	u16 type;
	int ret;

	memset(reply, 0, DSM_REPLY_MAX);
	type = len >= (int)sizeof(*h) ? le16_to_cpu(h->type) : 0;
	if (!type || type >= ARRAY_SIZE(sizes) || len > DSM_MSG_MAX ||
	    (type == DSM_MSG_DIFF ? len < sizes[type] : len != sizes[type]) ||
	    le32_to_cpu(h->magic) != DSM_MSG_MAGIC ||
	    le16_to_cpu(h->version) != DSM_MSG_VERSION) {
		ret = -EPROTO;
	} else if (crypto_memneq(h->key, dsm_key, DSM_KEY_LEN)) {
		pr_warn_ratelimited("a request without the cluster key (from node %u?): refused\n",
				    le32_to_cpu(h->node));
		ret = -EACCES;
	} else if (type == DSM_MSG_DIFF) {
		ret = dsm_serve_diff(req, len);
	} else {
		mutex_lock(&dsm_meta_lock);
		if (type == DSM_MSG_ATTACH) {
			ret = dsm_serve_attach(req, reply);
			rlen = sizeof(struct dsm_msg_attach_reply);
		} else if (type == DSM_MSG_LOCK) {
			ret = dsm_serve_lock(req, reply);
			rlen = sizeof(struct dsm_msg_lock_reply);
		} else {
			ret = dsm_serve_detach(req);
		}
		mutex_unlock(&dsm_meta_lock);
	}
	st->status = cpu_to_le32(ret);
	return ret ? sizeof(*st) : rlen;
}

/**
 * dsm_msg_hdr_fill() - the header of a request of this node
 * @h: the header
 * @type: DSM_MSG_*
 *
 * It holds the cluster key: zero it (memzero_explicit()) once sent.
 */
void dsm_msg_hdr_fill(struct dsm_msg_hdr *h, u16 type)
{
	*h = (struct dsm_msg_hdr) {
		.magic = cpu_to_le32(DSM_MSG_MAGIC), .type = cpu_to_le16(type),
		.version = cpu_to_le16(DSM_MSG_VERSION),
		.node = cpu_to_le32(liteapi_get_node_id()),
	};
	memcpy(h->key, dsm_key, DSM_KEY_LEN);
}

/*
 * Send @req (its header filled in here) to @meta, or serve it here when
 * that is this node (LITE has no RPC to itself).
 * Return: the status the meta node replied, or the RPC's error.
 */
static int dsm_meta_call(u32 meta, u16 type, struct dsm_msg_hdr *h, u32 len,
			 void *reply, u32 rlen)
{
	u32 me = liteapi_get_node_id();
	int ret;

	dsm_msg_hdr_fill(h, type);
	if (meta == me) {
		void *buf = kmalloc(DSM_REPLY_MAX, GFP_KERNEL);

		if (!buf)
			return -ENOMEM;
		ret = dsm_meta_serve(h, len, buf);
		memcpy(reply, buf, min_t(u32, rlen, ret));
		kfree(buf);
	} else {
		ret = liteapi_send_reply_imm(meta, dsm_param_port, h, len,
					     reply, rlen, LITE_PRIO_NORMAL);
	}
	memzero_explicit(h->key, DSM_KEY_LEN);
	if (ret < 0)
		return ret;
	if (ret < (int)sizeof(struct dsm_msg_status))
		return -EPROTO;
	ret = (s32)le32_to_cpu(((struct dsm_msg_status *)reply)->status);
	if (ret > 0 || ret < -MAX_ERRNO)
		return -EPROTO;
	return ret;
}

static void dsm_meta_detach(u32 meta, u64 id)
{
	struct dsm_msg_detach req = { .id = cpu_to_le64(id) };
	struct dsm_msg_status rep;
	int ret;

	ret = dsm_meta_call(meta, DSM_MSG_DETACH, &req.hdr, sizeof(req), &rep,
			    sizeof(rep));
	if (ret)
		pr_warn("region %llx: detach at node %u: %d\n", id, meta, ret);
}

/**
 * dsm_lock_lookup() - the LITE lock behind lock @n of @r
 * @r: the region
 * @n: 0 .. LITE_DSM_LOCKS - 1
 * @home: out: the node it lives on
 * @id: out: its number there
 *
 * Return: 0 or a negative errno.
 */
int dsm_lock_lookup(struct dsm_region *r, u32 n, u32 *home, u32 *id)
{
	struct dsm_msg_lock req = {
		.id = cpu_to_le64(r->id), .lock = cpu_to_le32(n),
	};
	struct dsm_msg_lock_reply rep = {};
	int ret;

	ret = dsm_meta_call(r->meta, DSM_MSG_LOCK, &req.hdr, sizeof(req), &rep,
			    sizeof(rep));
	if (ret)
		return ret;
	*home = le32_to_cpu(rep.home);
	*id = le32_to_cpu(rep.id);
	return *home && *home < 64 ? 0 : -EPROTO;
}

/* Ask each home for its LMR; on failure drop what was asked. */
static int dsm_region_map(struct dsm_region *r, u64 ident)
{
	u32 i;
	int ret;

	for (i = 0; i < r->nr_homes; i++) {
		ret = liteapi_ask_mr(r->homes[i], ident + i,
				     LITE_PERM_READ | LITE_PERM_WRITE,
				     r->password);
		if (ret < 0) {
			pr_warn("region %s: the LMR of node %u: %d\n", r->name,
				r->homes[i], ret);
			while (i--)
				liteapi_umap_lmr(r->lh[i]);
			return ret;
		}
		r->lh[i] = ret;
	}
	return 0;
}

/* A new region on this node, from the meta node's answer. */
static struct dsm_region *dsm_region_new(const char *name, u64 size, u32 uid,
					 bool *created)
{
	u32 nodes = liteapi_get_total_node(), i;
	struct dsm_msg_attach_reply rep = {};
	struct dsm_msg_attach req = {
		.size = cpu_to_le64(size), .uid = cpu_to_le32(uid),
	};
	struct dsm_region *r;
	int ret;

	if (!nodes)
		return ERR_PTR(-ENOTCONN);
	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	/* A fault's fetch and a flush's writes of up to a block go through it. */
	r->stage = kvmalloc(DSM_BLOCK_BYTES, GFP_KERNEL);
	if (!r->stage) {
		ret = -ENOMEM;
		goto out;
	}
	strscpy(r->name, name, sizeof(r->name));
	strscpy(req.name, name, sizeof(req.name));
	r->meta = 1 + jhash(name, strlen(name), 0) % nodes;
	ret = dsm_meta_call(r->meta, DSM_MSG_ATTACH, &req.hdr, sizeof(req),
			    &rep, sizeof(rep));
	if (ret)
		goto out;
	r->id = le64_to_cpu(rep.id);
	r->ident = le64_to_cpu(rep.ident);
	r->nr_homes = le32_to_cpu(rep.nr_homes);
	r->password = le32_to_cpu(rep.password);
	ret = r->nr_homes && r->nr_homes <= DSM_MAX_HOMES ? 0 : -EPROTO;
	for (i = 0; !ret && i < r->nr_homes; i++) {
		r->homes[i] = le32_to_cpu(rep.homes[i]);
		if (!r->homes[i] || r->homes[i] >= 64)
			ret = -EPROTO;
	}
	if (!ret)
		ret = dsm_region_map(r, le64_to_cpu(rep.ident));
	if (ret) {
		dsm_meta_detach(r->meta, r->id);
		goto out;
	}
	r->size = size;
	r->npages = DIV_ROUND_UP(size, PAGE_SIZE);
	r->uid = uid;
	*created = le32_to_cpu(rep.created);
	dsm_region_init_pages(r);
	kref_init(&r->ref);
	return r;
out:
	kvfree(r->stage);
	kvfree(r);
	return ERR_PTR(ret);
}

/**
 * dsm_region_attach() - this node's region @name, attached (created on
 * its meta node when new)
 * @name: NUL-terminated, checked by the caller
 * @size: bytes
 * @uid: the caller's uid, which must own it
 * @created: out: whether this call created it
 *
 * Return: the region with a reference, or an ERR_PTR.
 */
struct dsm_region *dsm_region_attach(const char *name, u64 size, u32 uid,
				     bool *created)
{
	struct dsm_region *r;

	if (!liteapi_get_node_id())
		return ERR_PTR(-ENOTCONN);
	mutex_lock(&dsm_regions_lock);
	list_for_each_entry(r, &dsm_regions, link) {
		if (strcmp(r->name, name) || !kref_get_unless_zero(&r->ref))
			continue;
		mutex_unlock(&dsm_regions_lock);
		if (r->uid != uid || r->size != size) {
			int ret = r->uid != uid ? -EACCES : -EINVAL;

			dsm_region_put(r);
			return ERR_PTR(ret);
		}
		*created = false;
		return r;
	}
	r = dsm_region_new(name, size, uid, created);
	if (!IS_ERR(r))
		list_add(&r->link, &dsm_regions);
	mutex_unlock(&dsm_regions_lock);
	return r;
}

static void dsm_region_free(struct dsm_region *r)
{
	u32 i;

	dsm_drop_all(r);
	for (i = 0; i < r->nr_homes; i++)
		liteapi_umap_lmr(r->lh[i]);
	dsm_meta_detach(r->meta, r->id);
	if (r->mapping.host)
		iput(r->mapping.host);
	kvfree(r->stage);
	kvfree(r);
}

/* kref_put_mutex() calls this with dsm_regions_lock held; it drops it. */
static void dsm_region_unlink(struct kref *ref)
{
	struct dsm_region *r = container_of(ref, struct dsm_region, ref);

	list_del(&r->link);
	mutex_unlock(&dsm_regions_lock);
	dsm_region_free(r);
}

/**
 * dsm_region_put() - drop a reference; the last writes the region back
 * and detaches it at its meta node
 * @r: the region
 */
void dsm_region_put(struct dsm_region *r)
{
	kref_put_mutex(&r->ref, dsm_region_unlink, &dsm_regions_lock);
}

/**
 * dsm_evict_others() - evict clean pages of regions other than @self,
 * skipping those in use right now
 * @self: the caller's region, whose lock it holds
 * @n: at most this many pages
 */
void dsm_evict_others(struct dsm_region *self, long n)
{
	struct dsm_region *o;

	if (!mutex_trylock(&dsm_regions_lock))
		return;
	list_for_each_entry(o, &dsm_regions, link) {
		if (o == self || !mutex_trylock(&o->lock))
			continue;
		n -= dsm_evict_clean(o, n);
		mutex_unlock(&o->lock);
		if (n <= 0)
			break;
	}
	mutex_unlock(&dsm_regions_lock);
}

/* Serves the requests of other nodes, one at a time. */
static int dsm_server(void *unused)
{
	void *req = kvmalloc(DSM_MSG_MAX, GFP_KERNEL);
	void *reply = kmalloc(DSM_REPLY_MAX, GFP_KERNEL);
	u64 desc;
	u32 rlen;
	int len;

	allow_signal(SIGKILL);	/* dsm_meta_exit() wakes us from LITE's wait */
	while (req && reply && !READ_ONCE(dsm_stopping)) {
		len = liteapi_receive_message(dsm_param_port, req, DSM_MSG_MAX,
					      &desc, 1);
		if (len < 0) {
			if (signal_pending(current))
				flush_signals(current);
			else if (len == -ENOTCONN)	/* not joined (yet) */
				msleep_interruptible(200);
			continue;
		}
		rlen = dsm_meta_serve(req, len, reply);
		if (desc != LITE_DESC_NO_REPLY)
			liteapi_reply_message(reply, rlen, desc,
					      LITE_PRIO_NORMAL);
	}
	kvfree(req);
	kfree(reply);
	flush_signals(current);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * The port stays the kernel context's until lite.ko goes, so a reload of
 * this module finds it registered (EADDRINUSE): ours if we may receive on
 * it (a request left from before gets a refusal). Its request size stays
 * the first registration's: a lite_dsm before DIFFs registered less than
 * DSM_MSG_MAX, and DIFFs to this node then fail with EMSGSIZE at their
 * senders, who write those runs by RDMA instead (diff.c).
 */
static int dsm_port_claim(void)
{
	struct dsm_msg_status st = { .status = cpu_to_le32(-EAGAIN) };
	void *buf;
	u64 desc;
	int ret;

	ret = liteapi_register_application(dsm_param_port, DSM_MSG_MAX,
					   "lite_dsm");
	if (ret != -EADDRINUSE)
		return ret;
	buf = kvmalloc(DSM_MSG_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while ((ret = liteapi_receive_message(dsm_param_port, buf, DSM_MSG_MAX,
					      &desc, 0)) >= 0)
		if (desc != LITE_DESC_NO_REPLY)
			liteapi_reply_message(&st, sizeof(st), desc,
					      LITE_PRIO_NORMAL);
	kvfree(buf);
	if (ret == -ENOENT) {
		pr_err("LITE port %u belongs to another program: load with port=\n",
		       dsm_param_port);
		return -EADDRINUSE;
	}
	return 0;
}

/**
 * dsm_meta_init() - the key, the port and the server thread
 *
 * Return: 0 or a negative errno.
 */
int dsm_meta_init(void)
{
	int ret;

	if (dsm_param_port >= LITE_MAX_PORT)
		return -EINVAL;
	ret = dsm_key_load();
	if (ret) {
		pr_err("cannot read the cluster key from %s: %d\n",
		       dsm_key_file, ret);
		return ret;
	}
	ret = dsm_port_claim();
	if (ret)
		return ret;
	dsm_server_task = kthread_run(dsm_server, NULL, "lite_dsm");
	if (IS_ERR(dsm_server_task))
		return PTR_ERR(dsm_server_task);
	return 0;
}

/**
 * dsm_meta_exit() - stop serving; free the regions this node was meta
 * node of: their LMRs go, and every node's accesses to them fail (SIGBUS)
 */
void dsm_meta_exit(void)
{
	struct dsm_spare_lock *s, *stmp;
	struct dsm_meta *m, *tmp;

	WRITE_ONCE(dsm_stopping, true);
	send_sig(SIGKILL, dsm_server_task, 1);
	kthread_stop(dsm_server_task);
	mutex_lock(&dsm_meta_lock);
	list_for_each_entry_safe(m, tmp, &dsm_metas, link) {
		pr_info("region %s: freed with this node's lite_dsm (%u attached)\n",
			m->name, m->attached);
		list_del(&m->link);
		dsm_meta_free(m);
	}
	/* The locks themselves are lite.ko's: they go with it. */
	list_for_each_entry_safe(s, stmp, &dsm_spare_locks, link) {
		list_del(&s->link);
		kfree(s);
	}
	mutex_unlock(&dsm_meta_lock);
	memzero_explicit(dsm_key, sizeof(dsm_key));
}
