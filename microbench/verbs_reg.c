// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Memory registration cost, no peer. For each size: map and touch a
 * buffer (untimed, so page faults are not counted), then --reps times
 * time one ibv_reg_mr (local write, remote read and write: what the other
 * modes' servers register) and the ibv_dereg_mr that undoes it. Then,
 * --reps times, the whole cost of fresh remotely accessible memory, what a
 * LITE allocation does: mmap, touch every page (the kernel zeroes it),
 * ibv_reg_mr ("alloc-reg"), and ibv_dereg_mr + munmap ("dereg-free").
 * Each size gives one row per op whose samples are the --reps timings; rep
 * is 0 there, meaning "all reps pooled".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs.h"

#define REG_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static struct ibv_device *pick(struct ibv_device **list, int n,
			       const char *name)
{
	int i;

	if (!name)
		return n ? list[0] : NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_device *dev;
	struct ibv_context *ctx;
	int n;

	list = ibv_get_device_list(&n);
	/* ENOSYS: the kernel has no RDMA (no uverbs), so no device either. */
	if (!list && errno == ENOSYS)
		bench_die("reg: no RDMA device found (no RDMA support in "
			  "this kernel)");
	if (!list)
		bench_die("reg: cannot list RDMA devices: %s", strerror(errno));
	dev = pick(list, n, name);
	if (!dev && name)
		bench_die("reg: no RDMA device named %s", name);
	if (!dev)
		bench_die("reg: no RDMA device found");
	ctx = ibv_open_device(dev);
	if (!ctx)
		bench_die("reg: ibv_open_device(%s): %s",
			  ibv_get_device_name(dev), strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

static struct ibv_mr *reg(struct ibv_pd *pd, void *buf, size_t len)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, len, REG_ACCESS);

	if (!mr)
		bench_die("reg: ibv_reg_mr(%zu bytes): %s%s", len,
			  strerror(errno), errno == ENOMEM ?
			  " (RLIMIT_MEMLOCK? see ulimit -l)" : "");
	return mr;
}

static void dereg(struct ibv_mr *mr)
{
	int err = ibv_dereg_mr(mr);

	if (err)
		bench_die("reg: ibv_dereg_mr: %s", strerror(err));
}

/* Untimed pairs first, at least one when --warmup is not 0. */
static void warm_up(struct ibv_pd *pd, void *buf, size_t len, double s)
{
	uint64_t end = bench_now_ns() + bench_sec_ns(s);

	if (s <= 0)
		return;
	do
		dereg(reg(pd, buf, len));
	while (bench_now_ns() < end);
}

static void *alloc_or_die(size_t len)
{
	void *buf = vb_alloc(len);

	if (!buf)
		bench_die("reg: cannot allocate %zu bytes", len);
	return buf;
}

/* A row of the first step's times and one of the second's. */
static void two_rows(const struct bench_cfg *cfg, struct bench_point *pt,
		     uint64_t *ns, const char *first, const char *second)
{
	pt->op = first;
	bench_lat_row(pt, ns, cfg->reps);
	pt->op = second;
	bench_lat_row(pt, ns + cfg->reps, cfg->reps);
}

/* reg/dereg of one buffer mapped and touched beforehand. */
static void run_reg(const struct bench_cfg *cfg, struct ibv_pd *pd,
		    struct bench_point *pt, uint64_t *ns, size_t len)
{
	uint64_t *dns = ns + cfg->reps;
	void *buf = alloc_or_die(len);
	unsigned int r;

	warm_up(pd, buf, pt->size, cfg->warmup);
	for (r = 0; r < cfg->reps; r++) {
		uint64_t t0 = bench_now_ns(), t1, t2;
		struct ibv_mr *mr = reg(pd, buf, pt->size);

		t1 = bench_now_ns();
		dereg(mr);
		t2 = bench_now_ns();
		ns[r] = t1 - t0;
		dns[r] = t2 - t1;
	}
	two_rows(cfg, pt, ns, "reg", "dereg");
	vb_free(buf, len);
}

/* The same with the memory's allocation and release in the clock. */
static void run_alloc_reg(const struct bench_cfg *cfg, struct ibv_pd *pd,
			  struct bench_point *pt, uint64_t *ns, size_t len)
{
	uint64_t *dns = ns + cfg->reps;
	unsigned int r;

	for (r = 0; r < cfg->reps; r++) {
		uint64_t t0 = bench_now_ns(), t1, t2;
		void *buf = alloc_or_die(len);
		struct ibv_mr *mr = reg(pd, buf, pt->size);

		t1 = bench_now_ns();
		dereg(mr);
		vb_free(buf, len);
		t2 = bench_now_ns();
		ns[r] = t1 - t0;
		dns[r] = t2 - t1;
	}
	two_rows(cfg, pt, ns, "alloc-reg", "dereg-free");
}

static void run_size(const struct bench_cfg *cfg, struct ibv_pd *pd,
		     struct bench_point *pt, uint64_t *ns)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (pt->size + page - 1) / page * page;

	run_reg(cfg, pd, pt, ns, len);
	run_alloc_reg(cfg, pd, pt, ns, len);
}

int vb_reg(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	struct ibv_context *ctx = open_device(cfg->dev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct bench_point pt = {
		.bench = "verbs_reg", .param = vb_param(cfg, o), .rep = 0,
	};
	uint64_t *ns = bench_zalloc(2 * (size_t)cfg->reps, sizeof(*ns));
	unsigned int i;

	if (!pd)
		bench_die("reg: ibv_alloc_pd: %s", strerror(errno));
	bench_begin(cfg, "local", ibv_get_device_name(ctx->device));
	bench_header(BENCH_LAT);
	for (i = 0; i < cfg->nsizes; i++) {
		pt.size = cfg->sizes[i];
		run_size(cfg, pd, &pt, ns);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(ns);
	return 0;
}
