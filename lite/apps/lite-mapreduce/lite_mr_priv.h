/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of the LITE-MapReduce runtime share (lite_mr.h has the
 * protocol): lite_mr.c (setup, map, merge, a run's steps), lite_mr_shuffle.c
 * (the size matrix, the write and RPC shuffles), lite_mr_reduce.c.
 */
#ifndef LITE_MR_PRIV_H
#define LITE_MR_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "lite_mr.h"

#define PASSWORD	0x4d5252	/* "MRR" */
#define WINDOW		(1U << 20)	/* bytes per posted op, the most LITE takes */
#define FENCE_MS	120000
#define REC_HDR		8U		/* u32 key length, u32 value length */
#define RPC_HDR		16U		/* u32 source, u32 0, u64 inbox offset */
#define COMBINE_MAX	MR_COMBINE_MAX	/* value bytes a combining table holds */

#define G		LITE_MR_GROUPS


struct lite_mr {
	const struct mr_job *job;
	struct lite_mr_conf c;
	int		*ctrl;		/* [nodes]: control LMR handles */
	int		*inbox;		/* [nodes]: inbox LMR handles */
	uint64_t	*matrix;	/* [src][dst][G] bytes */
	uint64_t	ctrl_bytes;
};


struct map_thread {
	struct lite_mr	*mr;
	pthread_t	tid;
	char		**splits;
	const size_t	*lens;
	unsigned int	n, first;
	atomic_uint	*next;		/* the next split to take */
	struct mr_text	*part;		/* [nodes * G] records */
	struct mr_ctab	tab;		/* combine only (mr_job.h) */
};

/*
 * A control LMR: the publishing node's run tag (CTRL_TAG bytes), the size
 * matrix, then the output lengths (node 1's only are used).
 */
#define CTRL_TAG	sizeof(uint64_t)

static inline size_t ctrl_off_matrix(const struct lite_mr *mr, unsigned int src)
{
	return CTRL_TAG + (size_t)src * mr->c.nodes * G * sizeof(uint64_t);
}

static inline size_t ctrl_off_outlen(const struct lite_mr *mr, unsigned int src)
{
	return CTRL_TAG +
	       ((size_t)mr->c.nodes * mr->c.nodes * G + src) * sizeof(uint64_t);
}

static inline uint64_t *cell(const struct lite_mr *mr, unsigned int src,
		      unsigned int dst, unsigned int g)
{
	return &mr->matrix[((size_t)src * mr->c.nodes + dst) * G + g];
}

void mr_barrier(const struct lite_mr *mr, const char *what);
int mr_post_range(int lh, uint64_t off, void *buf, uint64_t size, int write);
void mr_rec_add(struct mr_text *t, const char *key, uint32_t klen,
		const void *val, uint32_t vlen);
const char *mr_rec_get(const char *p, const char **key, uint32_t *klen,
		       const char **val, uint32_t *vlen);

/* lite_mr_shuffle.c */
uint64_t mr_inbox_off(const struct lite_mr *mr, unsigned int dst,
		      unsigned int src, unsigned int g);
void mr_exchange_sizes(struct lite_mr *mr, struct map_thread *m);
void mr_shuffle_write(struct lite_mr *mr, struct map_thread *m);
void mr_shuffle_rpc(struct lite_mr *mr, struct map_thread *m, char *in);

/* lite_mr_reduce.c */
uint64_t mr_reduce(struct lite_mr *mr, const char *in, struct mr_text *own);

#endif /* LITE_MR_PRIV_H */
