// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lmr-demo: LITE memory regions through the original LITE API
 * (lite-lib.h), on a node that has already joined the cluster.
 *
 *   lmr-demo REMOTE_NODE
 *
 * Allocates an LMR on REMOTE_NODE, writes it and reads it back, zeroes a
 * range, publishes it and maps it again by its identifier, then shows that
 * a wrong password is refused. One line per step; exit status 1 on the
 * first failure.
 *
 *   cc lmr-demo.c $(pkg-config --cflags --libs lite)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lite-lib.h"

#define LMR_SIZE	(1024 * 1024)
#define DATA_OFFSET	4096
#define DATA_SIZE	(64 * 1024)
#define ZERO_OFFSET	(DATA_OFFSET + 1000)	/* inside the data */
#define ZERO_SIZE	5000
#define PASSWORD	4321

struct demo {
	unsigned int	remote;
	int		lh;		/* the LMR on the remote node */
	int		asked;		/* the same LMR, mapped by identifier */
	uint64_t	identifier;
	char		*out;		/* zero-copy buffer we write from */
	char		*expect;	/* what the LMR range should hold */
	char		*in;		/* what we read back */
};

/* The original API's errors: -1 with errno. */
static int report(const char *what, int ret)
{
	if (ret < 0) {
		printf("lmr-demo: %s: FAILED: %s\n", what, strerror(errno));
		return -1;
	}
	printf("lmr-demo: %s: ok\n", what);
	return 0;
}

/* Read the data range through @lh and compare it with what we expect. */
static int read_and_check(struct demo *d, int lh, const char *what)
{
	char line[128];
	int ret;

	memset(d->in, 0xee, DATA_SIZE);
	ret = userspace_liteapi_rdma_read(lh, d->in, DATA_SIZE, DATA_OFFSET,
					  PASSWORD);
	if (ret < 0)
		return report(what, ret);
	if (memcmp(d->in, d->expect, DATA_SIZE)) {
		snprintf(line, sizeof(line), "%s: data differs", what);
		errno = EIO;
		return report(line, -1);
	}
	return report(what, 0);
}

static int demo_init(struct demo *d, unsigned int remote)
{
	int i;

	memset(d, 0, sizeof(*d));
	d->remote = remote;
	/* Unique per run: a publication lives as long as its LMR. */
	d->identifier = 0x6c6d72ULL << 32 | (uint32_t)getpid();
	d->out = userspace_liteapi_alloc_memory(DATA_SIZE);
	if (!d->out) {
		perror("lmr-demo: alloc_memory on /dev/lite");
		return -1;
	}
	d->expect = malloc(DATA_SIZE);
	d->in = malloc(DATA_SIZE);
	if (!d->expect || !d->in) {
		perror("lmr-demo: malloc");
		return -1;
	}
	for (i = 0; i < DATA_SIZE; i++)
		d->out[i] = (char)(i * 7 + 3);
	memcpy(d->expect, d->out, DATA_SIZE);
	return 0;
}

/* The LMRs go away with the process: the original API has no free. */
static void demo_close(struct demo *d)
{
	free(d->expect);
	free(d->in);
}

static int demo_run(struct demo *d)
{
	int me, ret;

	me = userspace_liteapi_get_node_id();
	if (report("get_node_id", me))
		return -1;
	printf("lmr-demo: this is node %d of %d, the LMR lives on node %u\n",
	       me, userspace_liteapi_get_total_node(), d->remote);

	d->lh = userspace_liteapi_alloc_remote_mem(d->remote, LMR_SIZE, false,
						   PASSWORD);
	if (report("alloc_remote_mem 1 MiB", d->lh))
		return -1;

	ret = userspace_liteapi_rdma_write(d->lh, d->out, DATA_SIZE,
					   DATA_OFFSET, PASSWORD);
	if (report("rdma_write 64 KiB pattern", ret))
		return -1;
	if (read_and_check(d, d->lh, "rdma_read it back"))
		return -1;

	ret = userspace_liteapi_remote_memset(d->lh, ZERO_OFFSET, ZERO_SIZE);
	if (report("remote_memset 5000 B", ret))
		return -1;
	memset(d->expect + (ZERO_OFFSET - DATA_OFFSET), 0, ZERO_SIZE);
	if (read_and_check(d, d->lh, "range reads as zeros, the rest intact"))
		return -1;

	ret = userspace_liteapi_add_ask_mr_table(d->identifier, d->lh,
						 MR_READ_FLAG | MR_WRITE_FLAG,
						 PASSWORD);
	if (report("add_ask_mr_table", ret))
		return -1;
	d->asked = userspace_liteapi_ask_lmr(d->remote, d->identifier,
					     MR_READ_FLAG, PASSWORD);
	if (report("ask_lmr with the right password", d->asked))
		return -1;
	if (read_and_check(d, d->asked, "rdma_read through the asked handle"))
		return -1;

	ret = userspace_liteapi_ask_lmr(d->remote, d->identifier, MR_READ_FLAG,
					PASSWORD + 1);
	if (ret >= 0) {
		printf("lmr-demo: ask_lmr with a wrong password: FAILED: "
		       "got handle %d\n", ret);
		return -1;
	}
	printf("lmr-demo: ask_lmr with a wrong password: refused (%s): ok\n",
	       strerror(errno));
	return 0;
}

int main(int argc, char *argv[])
{
	unsigned long remote = 0;
	struct demo d;
	char *end = NULL;
	int ret;

	if (argc == 2)
		remote = strtoul(argv[1], &end, 0);
	if (argc != 2 || *end || end == argv[1] || !remote ||
	    remote > UINT_MAX) {
		fprintf(stderr,
			"usage: lmr-demo REMOTE_NODE (a node id > 0)\n");
		return 2;
	}
	if (demo_init(&d, remote)) {
		demo_close(&d);
		return 1;
	}
	ret = demo_run(&d);
	demo_close(&d);
	if (ret)
		return 1;
	printf("lmr-demo: all ok\n");
	return 0;
}
