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

#include "diff.h"
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
	u64			ident;		/* home i's LMR: ident + i */
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
	/* jiffies until which no DIFF goes to each home (0: none) */
	unsigned long		diff_off[DSM_MAX_HOMES];

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
extern unsigned int dsm_param_diff_writes;
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
struct dsm_msg_hdr;
void dsm_msg_hdr_fill(struct dsm_msg_hdr *h, u16 type);
int dsm_meta_init(void);
void dsm_meta_exit(void);

/* diff.c: write-back by DIFF messages, both ends */
struct dsm_diff_msg;

/* The DIFFs of one flush. */
struct dsm_diffs {
	struct dsm_region	*r;
	struct dsm_diff_msg	*cur[DSM_MAX_HOMES];	/* being encoded */
	struct dsm_diff_msg	*spare;		/* sent, to reuse */
	struct list_head	sent;		/* in flight, oldest first */
	unsigned int		nr_sent;
	int			err;		/* -EIO: one was lost */
};

void dsm_diffs_init(struct dsm_diffs *ds, struct dsm_region *r);
struct dsm_diff *dsm_diffs_get(struct dsm_diffs *ds, u32 home);
void dsm_diffs_send(struct dsm_diffs *ds, u32 home, struct dsm_diff *d);
int dsm_diffs_finish(struct dsm_diffs *ds);
struct dsm_msg_diff;
int dsm_serve_diff(const struct dsm_msg_diff *req, u32 len);
int dsm_diff_wq_init(void);
void dsm_diff_wq_exit(void);

/* Messages, on LITE RPC port dsm_param_port; little-endian. */
#define DSM_MSG_MAGIC		0x4d534444	/* "DDSM" */
/* 2: pages placed in blocks; 3: DIFF */
#define DSM_MSG_VERSION		3

enum dsm_msg_type {
	DSM_MSG_ATTACH = 1,
	DSM_MSG_LOCK,
	DSM_MSG_DETACH,
	DSM_MSG_DIFF,
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

/*
 * Changed runs for a home to apply to its LMR (diff.h has their format);
 * the reply is a struct dsm_msg_status, sent once they are applied.
 */
struct dsm_msg_diff {
	struct dsm_msg_hdr	hdr;
	__le64			id;	/* the region at its meta node: logs */
	__le64			ident;	/* the LMR, as published on its home */
	__le32			password;	/* the LMR's */
	__le32			runs;
	__le32			bytes;	/* of the runs, which follow */
	__le32			reserved;
};

struct dsm_msg_status {
	__le32	status;
	__le32	reserved;
};

/*
 * The largest request, a DIFF: with LITE's headers (its struct
 * lite_rpc_tx and wire header, under 256 bytes) one 128 KiB allocation
 * in the sender's lite.ko; about two blocks of scattered runs.
 */
#define DSM_MSG_MAX		(128 * 1024 - 256)
#define DSM_DIFF_CAP		(DSM_MSG_MAX - sizeof(struct dsm_msg_diff))
#define DSM_REPLY_MAX		sizeof(struct dsm_msg_attach_reply)

#endif /* LITE_DSM_H */
