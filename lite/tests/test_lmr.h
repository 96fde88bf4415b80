/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parts of test_lmr share (test_lmr.c says what each command
 * does and where it is): data's LMRs and its state (struct data_test),
 * the helpers of test_lmr_data.c that the errors use, and the commands.
 */
#ifndef LITE_TESTS_TEST_LMR_H
#define LITE_TESTS_TEST_LMR_H

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "lite.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)

/* The kernel's chunks are at most 4 MiB: multiples of it are boundaries. */
#define CHUNK_SIZE		(4 * MiB)
#define DATA_LMR_SIZE		(20 * MiB)
#define COPY_LMR_SIZE		(8 * MiB)
#define MAX_IO			(16 * MiB)
#define VERIFY_MARGIN		(64 * KiB)	/* around a changed range */
#define DATA_PASSWORD		4242
#define BAD_HANDLE		12345678
#define NOT_A_MEMBER		63	/* a valid id no test cluster has */
#define PERM_RWS		(LITE_PERM_READ | LITE_PERM_WRITE | \
				 LITE_PERM_SHARE)
#define PERM_RWSA		(PERM_RWS | LITE_PERM_ADMIN)

enum buf_kind { BUF_MALLOC, BUF_ZEROCOPY, BUF_UNALIGNED, NR_BUF_KINDS };

/* An LMR under test and what it should hold. */
struct lmr {
	const char	*name;
	unsigned int	node;
	uint64_t	size;
	int		lh;
	uint8_t		*mirror;
};

struct data_test {
	unsigned int	me;
	unsigned int	node;
	unsigned int	other;		/* 0: none */
	bool		big;
	struct rng	rng;
	struct lmr	main;		/* DATA_LMR_SIZE on node */
	struct lmr	copy;		/* COPY_LMR_SIZE on node */
	struct lmr	far;		/* COPY_LMR_SIZE on other */
	uint8_t		*scratch;	/* DATA_LMR_SIZE, for reading back */
	uint8_t		*alloc[NR_BUF_KINDS];
	uint8_t		*buf[NR_BUF_KINDS];	/* MAX_IO bytes each */
};

/* test_lmr_data.c */
uint64_t pick_straddle(struct rng *r, uint64_t lmr_size, uint64_t size);
bool lmr_verify(struct data_test *t, struct lmr *l, uint64_t off,
		uint64_t len, uint64_t margin, const char *what);
int cmd_data(unsigned int node, unsigned int other, uint64_t seed, bool big);

/* test_lmr_errors.c */
void data_handle_errors(struct data_test *t);
void data_range_errors(struct data_test *t);
void data_fault_errors(struct data_test *t);
void data_raw_errors(struct data_test *t);
void data_big(struct data_test *t);

/* test_lmr_share.c */
int cmd_share(unsigned int node, uint64_t id);
int cmd_ask(unsigned int node, uint64_t id);

#endif /* LITE_TESTS_TEST_LMR_H */
