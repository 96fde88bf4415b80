/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lite_dsm.ko's shared declarations: regions, their cached pages, the
 * messages between the nodes' modules. docs/dsm.md has the protocol.
 */
#ifndef LITE_DSM_H
#define LITE_DSM_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "layout.h"
#include "uapi/lite_dsm.h"

#define DSM_MAX_HOMES		16
#define DSM_HOME_MAX_BYTES	(1ULL << 30)	/* LITE's largest LMR */
#define DSM_KEY_LEN		32

/* A cached page's state on this node (docs/dsm.md, state diagram). */
enum dsm_state {
	DSM_CLEAN = 1,	/* same as the home's at fetch: mapped read-only */
	DSM_DIRTY,	/* written since: has a twin, may be mapped writable */
};

struct dsm_page {
	struct page		*page;
	void			*twin;	/* DIRTY: the page as it was fetched */
	pgoff_t			idx;
	enum dsm_state		state;
	struct list_head	link;	/* the region's clean or dirty list */
};

/* A lock of a region as this node sees it. */
struct dsm_lock {
	struct file		*holder;	/* NULL when free on this node */
	pid_t			holder_pid;
	bool			releasing;	/* a RELEASE is under way */
	bool			known;		/* home and id are valid */
	u32			home;
	u32			id;
};

/*
 * A region attached on this node: one per name, shared by every open
 * file and mapping of it here. @mapping is its own address space, so
 * that invalidating its pages zaps only its PTEs.
 */
struct dsm_region {
	struct kref		ref;
	struct list_head	link;		/* dsm_regions */
	char			name[LITE_DSM_NAME_MAX];
	u64			size;
	u64			npages;
	u32			uid;
	u32			meta;		/* node keeping its metadata */
	u64			id;		/* its id on @meta */
	s32			password;
	u32			nr_homes;
	u32			homes[DSM_MAX_HOMES];
	u32			lh[DSM_MAX_HOMES];	/* LITE handles, by home */
	struct address_space	mapping;
	void			*stage;		/* DSM_BLOCK_BYTES, under @lock */

	struct mutex		lock;		/* pages, lists, counts */
	struct xarray		pages;		/* idx -> struct dsm_page */
	struct list_head	clean;		/* oldest first */
	struct list_head	dirty;
	unsigned long		nr_pages;	/* cached here */
	int			lost;		/* -EIO: an early flush failed */

	spinlock_t		locks_lock;	/* the holders in @locks */
	wait_queue_head_t	lock_wq;
	struct dsm_lock		*locks[LITE_DSM_LOCKS];
};

/* What an open /dev/lite_dsm holds. */
struct dsm_file {
	struct mutex		lock;
	struct dsm_region	*region;	/* from ATTACH until close */
	bool			detached;
	atomic_t		maps;		/* VMAs of this file */
};

/* main.c */
extern unsigned int dsm_param_port;
extern unsigned int dsm_param_max_cached_mb;
extern unsigned int dsm_param_wb_inflight;
u32 dsm_current_uid(void);

/* page.c: the coherence protocol on one node */
extern const struct vm_operations_struct dsm_vm_ops;
int dsm_flush(struct dsm_region *r);
int dsm_invalidate(struct dsm_region *r);
void dsm_drop_all(struct dsm_region *r);
int dsm_acquire(struct file *f, struct dsm_region *r, u32 n);
int dsm_release(struct file *f, struct dsm_region *r, u32 n);
int dsm_barrier(struct dsm_region *r, u32 nr);
void dsm_release_all(struct file *f, struct dsm_region *r);
void dsm_region_init_pages(struct dsm_region *r);
long dsm_evict_clean(struct dsm_region *r, long n);

/* meta.c: names, homes and lock ids, kept by each region's meta node */
struct dsm_region *dsm_region_attach(const char *name, u64 size, u32 uid,
				     bool *created);
void dsm_region_put(struct dsm_region *r);
void dsm_evict_others(struct dsm_region *self, long n);
int dsm_lock_lookup(struct dsm_region *r, u32 n, u32 *home, u32 *id);
int dsm_meta_init(void);
void dsm_meta_exit(void);

/* Messages, on LITE RPC port dsm_param_port; little-endian. */
#define DSM_MSG_MAGIC		0x4d534444	/* "DDSM" */
#define DSM_MSG_VERSION		2	/* 2: pages placed in blocks */

enum dsm_msg_type {
	DSM_MSG_ATTACH = 1,
	DSM_MSG_LOCK,
	DSM_MSG_DETACH,
};

struct dsm_msg_hdr {
	__le32	magic;
	__le16	type;
	__le16	version;
	__le32	node;		/* the sender */
	__le32	reserved;
	u8	key[DSM_KEY_LEN];	/* the cluster key: only kernels know it */
};

struct dsm_msg_attach {
	struct dsm_msg_hdr	hdr;
	char			name[LITE_DSM_NAME_MAX];
	__le64			size;
	__le32			uid;
	__le32			reserved;
};

struct dsm_msg_attach_reply {
	__le32	status;		/* 0 or a negative errno */
	__le32	nr_homes;
	__le64	id;
	__le64	ident;		/* home i published its LMR as ident + i */
	__le32	password;
	__le32	created;
	__le32	homes[DSM_MAX_HOMES];
};

struct dsm_msg_lock {
	struct dsm_msg_hdr	hdr;
	__le64			id;
	__le32			lock;
	__le32			reserved;
};

struct dsm_msg_lock_reply {
	__le32	status;
	__le32	home;
	__le32	id;
	__le32	reserved;
};

struct dsm_msg_detach {
	struct dsm_msg_hdr	hdr;
	__le64			id;
};

struct dsm_msg_status {
	__le32	status;
	__le32	reserved;
};

#define DSM_MSG_MAX		sizeof(struct dsm_msg_attach)
#define DSM_REPLY_MAX		sizeof(struct dsm_msg_attach_reply)

#endif /* LITE_DSM_H */
