// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The stand-in for liblite (shim.h): only what lite_log.c and logload.c
 * call. Two "queue pairs" (threads) land the posted writes, each after
 * its delay, in three pieces in random order with pauses between; reads
 * and atomics happen at once. At most SHIM_ASYNC_MAX writes may be posted
 * and not reaped (then -EAGAIN), as the module's async_max, only smaller.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lite.h>

#include "shim.h"

#define SHIM_LMRS	8
#define SHIM_HANDLES	64
#define SHIM_QPS	2
#define SHIM_ASYNC_MAX	8
#define SHIM_PIECES	3

struct shim_lmr {
	uint8_t		*p;
	uint64_t	size;
	uint64_t	id;
	bool		published;
};

struct shim_op {
	struct shim_op	*next;		/* in work, then in done */
	struct shim_op	*lnext;		/* in landing */
	struct shim_lmr	*lmr;
	uint64_t	off, size;
	uint8_t		*data;
	uint64_t	id;
	int		status;
	unsigned int	delay_us;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cq_cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t qps_once = PTHREAD_ONCE_INIT;
static struct shim_lmr lmrs[SHIM_LMRS];
static struct shim_lmr *handles[SHIM_HANDLES];
/* Posted (work: not taken by a queue pair yet), not landed, completed. */
static struct shim_op *work, *work_tail, *landing, *done;
static unsigned int outstanding;	/* posted, not reaped */
static unsigned int delay_max = 300, delay_next, fail_next;
static bool delay_next_set;
static unsigned long raced, full;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Under mu. */
static uint64_t shim_rand(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static void shim_sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

void shim_delay_max(unsigned int us)
{
	pthread_mutex_lock(&mu);
	delay_max = us;
	pthread_mutex_unlock(&mu);
}

void shim_delay_next(unsigned int us)
{
	pthread_mutex_lock(&mu);
	delay_next = us;
	delay_next_set = true;
	pthread_mutex_unlock(&mu);
}

void shim_fail_next(int err)
{
	pthread_mutex_lock(&mu);
	fail_next = -err;
	pthread_mutex_unlock(&mu);
}

unsigned long shim_raced_reads(void)
{
	return __atomic_load_n(&raced, __ATOMIC_RELAXED);
}

unsigned long shim_full_posts(void)
{
	return __atomic_load_n(&full, __ATOMIC_RELAXED);
}

static struct shim_lmr *shim_get(int lh, uint64_t off, uint64_t size)
{
	struct shim_lmr *l;

	if (lh <= 0 || lh >= SHIM_HANDLES)
		return NULL;
	pthread_mutex_lock(&mu);
	l = handles[lh];
	pthread_mutex_unlock(&mu);
	if (!l || off > l->size || size > l->size - off)
		return NULL;
	return l;
}

/* A queue pair: lands the writes it takes, each late and torn. */
static void *shim_qp(void *arg)
{
	uint64_t cut[SHIM_PIECES + 1], order[SHIM_PIECES], k, j, t;
	struct shim_op *op, **pp;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!work)
			pthread_cond_wait(&work_cond, &mu);
		op = work;
		work = op->next;
		if (!work)
			work_tail = NULL;
		cut[0] = 0;
		cut[SHIM_PIECES] = op->size;
		for (k = 1; k < SHIM_PIECES; k++)
			cut[k] = cut[k - 1] + shim_rand(op->size - cut[k - 1] + 1);
		for (k = 0; k < SHIM_PIECES; k++)
			order[k] = k;
		for (k = SHIM_PIECES - 1; k > 0; k--) {
			j = shim_rand(k + 1);
			t = order[k];
			order[k] = order[j];
			order[j] = t;
		}
		pthread_mutex_unlock(&mu);
		shim_sleep_us(op->delay_us);
		for (k = 0; !op->status && k < SHIM_PIECES; k++) {
			j = order[k];
			memcpy(op->lmr->p + op->off + cut[j], op->data + cut[j],
			       cut[j + 1] - cut[j]);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			shim_sleep_us(op->delay_us / 8);
		}
		pthread_mutex_lock(&mu);
		for (pp = &landing; *pp != op; pp = &(*pp)->lnext)
			;
		*pp = op->lnext;
		op->next = done;
		done = op;
		pthread_cond_broadcast(&cq_cond);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void shim_start_qps(void)
{
	pthread_t tid;
	int i;

	for (i = 0; i < SHIM_QPS; i++)
		if (!pthread_create(&tid, NULL, shim_qp, NULL))
			pthread_detach(tid);
}

int lite_node_id(void)
{
	return 1;
}

int lite_barrier(unsigned int nr)
{
	return nr <= 1 ? 0 : -EINVAL;
}

static int shim_new_handle(struct shim_lmr *l)
{
	int lh;

	for (lh = 1; lh < SHIM_HANDLES; lh++)
		if (!handles[lh]) {
			handles[lh] = l;
			return lh;
		}
	return -EMFILE;
}

int lite_alloc(unsigned int node, uint64_t size, unsigned int flags,
	       int password)
{
	int i, ret = -ENOSPC;

	(void)flags;
	(void)password;
	if (node != 1)
		return -EINVAL;
	pthread_mutex_lock(&mu);
	for (i = 0; i < SHIM_LMRS; i++) {
		if (lmrs[i].p)
			continue;
		lmrs[i].p = calloc(1, size);
		lmrs[i].size = size;
		ret = lmrs[i].p ? shim_new_handle(&lmrs[i]) : -ENOMEM;
		break;
	}
	pthread_mutex_unlock(&mu);
	return ret;
}

int lite_publish(int lh, uint64_t identifier, unsigned int perm, int password)
{
	struct shim_lmr *l = shim_get(lh, 0, 0);

	(void)perm;
	(void)password;
	if (!l)
		return -EINVAL;
	l->id = identifier;
	l->published = true;
	return 0;
}

int lite_ask(unsigned int node, uint64_t identifier, unsigned int perm,
	     int password)
{
	int i, ret = -ENOENT;

	(void)perm;
	(void)password;
	if (node != 1)
		return -ENOTCONN;
	pthread_mutex_lock(&mu);
	for (i = 0; i < SHIM_LMRS; i++)
		if (lmrs[i].published && lmrs[i].id == identifier) {
			ret = shim_new_handle(&lmrs[i]);
			break;
		}
	pthread_mutex_unlock(&mu);
	return ret;
}

/* The memory stays: a write may still land in it. */
int lite_unmap(int lh)
{
	if (!shim_get(lh, 0, 0))
		return -EINVAL;
	pthread_mutex_lock(&mu);
	handles[lh] = NULL;
	pthread_mutex_unlock(&mu);
	return 0;
}

int lite_free(int lh)
{
	return lite_unmap(lh);
}

int lite_lmr_info(int lh, unsigned int *node, uint64_t *size,
		  unsigned int *perm)
{
	struct shim_lmr *l = shim_get(lh, 0, 0);

	if (!l)
		return -EINVAL;
	if (node)
		*node = 1;
	if (size)
		*size = l->size;
	if (perm)
		*perm = LITE_PERM_READ | LITE_PERM_WRITE | LITE_PERM_ATOMIC;
	return 0;
}

int lite_read(int lh, uint64_t offset, void *buf, uint64_t size,
	      int password, int prio)
{
	struct shim_lmr *l = shim_get(lh, offset, size);
	struct shim_op *op;

	(void)password;
	(void)prio;
	if (!l)
		return -EINVAL;
	pthread_mutex_lock(&mu);
	for (op = landing; op; op = op->lnext)
		if (op->lmr == l && op->off < offset + size &&
		    offset < op->off + op->size)
			raced++;
	pthread_mutex_unlock(&mu);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy(buf, l->p + offset, size);
	return 0;
}

int lite_write(int lh, uint64_t offset, const void *buf, uint64_t size,
	       int password, int prio)
{
	struct shim_lmr *l = shim_get(lh, offset, size);

	(void)password;
	(void)prio;
	if (!l)
		return -EINVAL;
	memcpy(l->p + offset, buf, size);
	return 0;
}

int lite_post_write(int lh, uint64_t offset, const void *buf, uint64_t size,
		    int password, uint64_t id)
{
	struct shim_lmr *l = shim_get(lh, offset, size);
	struct shim_op *op;

	(void)password;
	if (!l || !size || size > LITE_ASYNC_MAX_SIZE)
		return -EINVAL;
	pthread_once(&qps_once, shim_start_qps);
	op = calloc(1, sizeof(*op));
	if (op)
		op->data = malloc(size);
	if (!op || !op->data) {
		free(op);
		return -ENOMEM;
	}
	memcpy(op->data, buf, size);	/* as LITE: @buf is free at once */
	op->lmr = l;
	op->off = offset;
	op->size = size;
	op->id = id;
	pthread_mutex_lock(&mu);
	if (outstanding >= SHIM_ASYNC_MAX) {
		full++;
		pthread_mutex_unlock(&mu);
		free(op->data);
		free(op);
		return -EAGAIN;
	}
	outstanding++;
	op->delay_us = delay_next_set ? delay_next : shim_rand(delay_max + 1);
	delay_next_set = false;
	op->status = -(int)fail_next;
	fail_next = 0;
	op->lnext = landing;	/* not landed: reads of it race */
	landing = op;
	if (work_tail)
		work_tail->next = op;
	else
		work = op;
	work_tail = op;
	pthread_cond_signal(&work_cond);
	pthread_mutex_unlock(&mu);
	return 0;
}

int lite_poll(struct lite_completion *out, unsigned int max, int timeout_ms)
{
	struct timespec until;
	struct shim_op *op;
	unsigned int n = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mu);
	while (!done && outstanding && timeout_ms &&
	       !pthread_cond_timedwait(&cq_cond, &mu, &until))
		;
	for (; done && n < max; n++) {
		op = done;
		done = op->next;
		out[n] = (struct lite_completion) {
			.id = op->id, .status = op->status,
		};
		outstanding--;
		free(op->data);
		free(op);
	}
	pthread_mutex_unlock(&mu);
	return n;
}

int lite_fetch_add(int lh, uint64_t offset, uint64_t add, uint64_t *old,
		   int password)
{
	struct shim_lmr *l = shim_get(lh, offset, 8);
	uint64_t v;

	(void)password;
	if (!l || offset % 8)
		return -EINVAL;
	v = __atomic_fetch_add((uint64_t *)(l->p + offset), add,
			       __ATOMIC_SEQ_CST);
	if (old)
		*old = v;
	return 0;
}

int lite_compare_swap(int lh, uint64_t offset, uint64_t compare,
		      uint64_t swap, uint64_t *old, int password)
{
	struct shim_lmr *l = shim_get(lh, offset, 8);

	(void)password;
	if (!l || offset % 8)
		return -EINVAL;
	__atomic_compare_exchange_n((uint64_t *)(l->p + offset), &compare,
				    swap, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	if (old)
		*old = compare;	/* the value found, swapped or not */
	return 0;
}
