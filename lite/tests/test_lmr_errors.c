// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * data's errors: bad, freed and unmapped handles, ranges past the end,
 * refused allocations, wrong passwords, faulting buffers, reserved fields
 * only the raw ioctl reaches; and with --big, an LMR of
 * LITE_LMR_MAX_SIZE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_lmr.h"

/* The ioctl itself, for what liblite cannot express. */
static int raw_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

/* An alloc that must fail; a handle it returns anyway is freed. */
static void alloc_refused(unsigned int node, uint64_t size, unsigned int flags,
			  int want, const char *what)
{
	int ret = lite_alloc(node, size, flags, DATA_PASSWORD);

	expect(ret, want, "%s", what);
	if (ret > 0)
		lite_free(ret);
}

void data_handle_errors(struct data_test *t)
{
	/* Random, so that runs on the same node do not collide. */
	uint64_t ident = rng_next(&t->rng);
	uint8_t *buf = t->buf[BUF_MALLOC];
	int lh, h2;

	expect(lite_read(0, 0, buf, 64, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       ENOENT, "read handle 0");
	expect(lite_read(BAD_HANDLE, 0, buf, 64, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ENOENT,
	       "read handle %d", BAD_HANDLE);
	expect(lite_write(BAD_HANDLE, 0, buf, 64, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), ENOENT, "write handle %d",
	       BAD_HANDLE);
	expect(lite_memset(BAD_HANDLE, 0, 0, 64), ENOENT, "memset handle %d",
	       BAD_HANDLE);
	expect(lite_memcpy(t->copy.lh, 0, BAD_HANDLE, 0, 64), ENOENT,
	       "memcpy from handle %d", BAD_HANDLE);
	expect(lite_memcpy(BAD_HANDLE, 0, t->copy.lh, 0, 64), ENOENT,
	       "memcpy to handle %d", BAD_HANDLE);
	expect(lite_lmr_info(BAD_HANDLE, NULL, NULL, NULL), ENOENT,
	       "lmr_info handle %d", BAD_HANDLE);
	expect(lite_publish(BAD_HANDLE, 1, LITE_PERM_READ, 1), ENOENT,
	       "publish handle %d", BAD_HANDLE);
	expect(lite_free(BAD_HANDLE), ENOENT, "free handle %d", BAD_HANDLE);
	expect(lite_unmap(BAD_HANDLE), ENOENT, "unmap handle %d", BAD_HANDLE);

	lh = lite_alloc(t->node, 4096, 0, DATA_PASSWORD);
	if (expect(lh, 0, "alloc 4 KiB to free")) {
		expect(lite_free(lh), 0, "free it");
		expect(lite_read(lh, 0, buf, 64, DATA_PASSWORD,
				 LITE_PRIO_NORMAL), ENOENT,
		       "read a freed handle");
		expect(lite_free(lh), ENOENT, "free a freed handle");
	}
	/*
	 * Unmapped: a second handle, asked. Unmapping an LMR's only handle
	 * would leave it allocated with no way left to free it.
	 */
	lh = lite_alloc(t->node, 4096, 0, DATA_PASSWORD);
	if (expect(lh, 0, "alloc 4 KiB to unmap a handle of") &&
	    step(lite_publish(lh, ident, LITE_PERM_READ, DATA_PASSWORD),
		 "publish it as 0x%llx", (unsigned long long)ident)) {
		h2 = lite_ask(t->node, ident, LITE_PERM_READ, DATA_PASSWORD);
		if (expect(h2, 0, "ask it: a second handle")) {
			expect(lite_unmap(h2), 0, "unmap the second handle");
			expect(lite_read(h2, 0, buf, 64, DATA_PASSWORD,
					 LITE_PRIO_NORMAL), ENOENT,
			       "read an unmapped handle");
			expect(lite_unmap(h2), ENOENT,
			       "unmap an unmapped handle");
			expect(lite_read(lh, 0, buf, 64, DATA_PASSWORD,
					 LITE_PRIO_NORMAL), 0,
			       "the first handle still reads");
		}
	}
	if (lh > 0)
		expect(lite_free(lh), 0, "free the LMR of the two handles");
	lh = lite_alloc(t->node, 4096, LITE_ALLOC_ATOMIC, DATA_PASSWORD);
	if (expect(lh, 0, "alloc 4 KiB atomic")) {
		unsigned int perm = 0;

		if (step(lite_lmr_info(lh, NULL, NULL, &perm),
			 "lmr_info of the atomic LMR")) {
			if (perm & LITE_PERM_ATOMIC)
				pass("the atomic LMR has LITE_PERM_ATOMIC");
			else
				fail("the atomic LMR has LITE_PERM_ATOMIC: "
				     "perm 0x%x", perm);
		}
		expect(lite_free(lh), 0, "free the atomic LMR");
	}
}

void data_range_errors(struct data_test *t)
{
	struct lmr *l = &t->main;
	uint8_t *buf = t->buf[BUF_MALLOC];

	/* Mirror contents: a write that wrongly succeeds changes nothing. */
	memcpy(buf, l->mirror + l->size - CHUNK_SIZE, CHUNK_SIZE);
	expect(lite_read(l->lh, l->size - 10, buf, 11, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ERANGE, "read 11 B at size-10");
	expect(lite_write(l->lh, l->size, buf, 1, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), ERANGE, "write 1 B at size");
	expect(lite_write(l->lh, l->size - CHUNK_SIZE, buf, CHUNK_SIZE + 1,
			  DATA_PASSWORD, LITE_PRIO_NORMAL), ERANGE,
	       "write 4 MiB+1 at size-4 MiB");
	expect(lite_read(l->lh, UINT64_MAX - 10, buf, 20, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ERANGE,
	       "read where offset+size overflows");
	expect(lite_write(l->lh, UINT64_MAX, buf, 1, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), ERANGE, "write 1 B at 2^64-1");
	expect(lite_memset(l->lh, l->size - 1, 0, 2), ERANGE,
	       "memset past the end");
	expect(lite_memset(l->lh, UINT64_MAX - 1, 0, 4), ERANGE,
	       "memset where offset+size overflows");
	expect(lite_memcpy(t->copy.lh, 0, l->lh, l->size - 1, 2), ERANGE,
	       "memcpy from past the end");
	expect(lite_memcpy(t->copy.lh, t->copy.size - 1, l->lh, 0, 2), ERANGE,
	       "memcpy to past the end");
	expect(lite_memmove(l->lh, UINT64_MAX - 1, l->lh, 0, 4), ERANGE,
	       "memmove where offset+size overflows");

	alloc_refused(t->node, LITE_LMR_MAX_SIZE + 1, 0, EFBIG,
		      "alloc LITE_LMR_MAX_SIZE+1");
	alloc_refused(t->node, UINT64_MAX, 0, EFBIG, "alloc 2^64-1 B");
	alloc_refused(t->node, 0, 0, EINVAL, "alloc 0 B");
	alloc_refused(t->node, 4096, 0x80, EINVAL, "alloc with flag 0x80");
	alloc_refused(0, 4096, 0, EINVAL, "alloc on node 0");
	alloc_refused(64, 4096, 0, EINVAL, "alloc on node 64");
	if (t->me != NOT_A_MEMBER && t->node != NOT_A_MEMBER &&
	    t->other != NOT_A_MEMBER)
		alloc_refused(NOT_A_MEMBER, 4096, 0, ENOTCONN,
			      "alloc on node 63 (not a member)");

	expect(lite_read(l->lh, 0, buf, 64, DATA_PASSWORD + 1,
			 LITE_PRIO_NORMAL), EACCES,
	       "read with a wrong password");
	memcpy(buf, l->mirror, 64);
	expect(lite_write(l->lh, 0, buf, 64, DATA_PASSWORD + 1,
			  LITE_PRIO_NORMAL), EACCES,
	       "write with a wrong password");
	expect(lite_read(l->lh, 0, buf, 64, DATA_PASSWORD, 3), EINVAL,
	       "read with priority 3");
}

void data_fault_errors(struct data_test *t)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct lmr *l = &t->main;
	uint64_t off;
	uint8_t *p;

	expect(lite_read(l->lh, 0, NULL, 64, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       EFAULT, "read into NULL");
	expect(lite_write(l->lh, 0, NULL, 64, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       EFAULT, "write from NULL");

	/* Three pages of mirror contents, then the middle one unmapped. */
	p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap 3 pages: %s", strerror(errno));
		return;
	}
	memcpy(p, l->mirror, 3 * page);
	munmap(p + page, page);
	expect(lite_write(l->lh, 0, p + page, 64, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), EFAULT,
	       "write from an unmapped page");
	expect(lite_read(l->lh, 0, p + page, 64, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), EFAULT,
	       "read into an unmapped page");
	expect(lite_write(l->lh, 0, p, 3 * page, DATA_PASSWORD,
			  LITE_PRIO_NORMAL), EFAULT,
	       "write from a buffer with an unmapped middle page");
	expect(lite_read(l->lh, 0, p, 3 * page, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), EFAULT,
	       "read into a buffer with an unmapped middle page");
	munmap(p, page);
	munmap(p + 2 * page, page);

	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap a page: %s", strerror(errno));
		return;
	}
	rng_fill(&t->rng, p, page);
	mprotect(p, page, PROT_READ);
	off = pick_straddle(&t->rng, l->size, page);
	if (expect(lite_write(l->lh, off, p, page, DATA_PASSWORD,
			      LITE_PRIO_NORMAL), 0,
		   "write from a read-only page")) {
		memcpy(l->mirror + off, p, page);
		lmr_verify(t, l, off, page, 0, "read-only page's data landed");
	}
	expect(lite_read(l->lh, off, p, page, DATA_PASSWORD, LITE_PRIO_NORMAL),
	       EFAULT, "read into a read-only page");
	munmap(p, page);
}

/* What liblite does not let through: only the raw ioctl reaches it. */
void data_raw_errors(struct data_test *t)
{
	struct lite_ioc_alloc a = {
		.node = t->node, .size = 4096, .password = DATA_PASSWORD,
	};
	struct lite_ioc_lmr_info info = { .reserved = 1 };
	struct lite_ioc_rw rw = {
		.password = DATA_PASSWORD, .size = 64, .reserved = 1,
	};
	struct lite_ioc_memset m = { .value = 256, .size = 64 };
	struct lite_ioc_publish pub = {
		.identifier = 1, .perm = LITE_PERM_READ, .reserved = 1,
	};
	struct lite_ioc_handle h = { .reserved = 1 };
	/* Each refused for its reserved field alone. */
	const struct {
		unsigned long	cmd;
		void		*arg;
		const char	*name;
	} reserved[] = {
		{ LITE_IOC_WRITE, &rw, "WRITE" },
		{ LITE_IOC_READ, &rw, "READ" },
		{ LITE_IOC_PUBLISH, &pub, "PUBLISH" },
		{ LITE_IOC_LMR_INFO, &info, "LMR_INFO" },
		{ LITE_IOC_UNMAP, &h, "UNMAP" },
		{ LITE_IOC_FREE, &h, "FREE" },
	};
	uint8_t buf[64];
	size_t i;
	int fd;

	/* A second open file of our own: handles belong to their file. */
	fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail("open /dev/" LITE_DEV_NAME ": %s", strerror(errno));
		return;
	}
	if (!expect(raw_ioctl(fd, LITE_IOC_ALLOC, &a), 0,
		    "raw ALLOC 4 KiB on a second open file"))
		goto out;
	memset(buf, 0, sizeof(buf));
	rw.handle = m.handle = pub.handle = h.handle = info.handle = a.handle;
	rw.addr = (uintptr_t)buf;
	expect(raw_ioctl(fd, LITE_IOC_MEMSET, &m), EINVAL,
	       "raw MEMSET value 256");
	m.value = UINT32_MAX;
	expect(raw_ioctl(fd, LITE_IOC_MEMSET, &m), EINVAL,
	       "raw MEMSET value 0xffffffff");
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		expect(raw_ioctl(fd, reserved[i].cmd, reserved[i].arg), EINVAL,
		       "raw %s reserved != 0", reserved[i].name);
	/* The handle was fine all along: only the reserved fields were not. */
	rw.reserved = 0;
	expect(raw_ioctl(fd, LITE_IOC_READ, &rw), 0,
	       "raw READ with the same handle, reserved 0");
	h.reserved = 0;
	expect(raw_ioctl(fd, LITE_IOC_FREE, &h), 0, "raw FREE it");
out:
	close(fd);
}

/* LITE_LMR_MAX_SIZE: its first and last 4 KiB. */
void data_big(struct data_test *t)
{
	uint64_t size = LITE_LMR_MAX_SIZE;
	uint8_t *out = t->buf[BUF_MALLOC], *in = t->scratch;
	uint64_t offs[2] = { size - 4096, 0 };
	int i, lh;

	lh = lite_alloc(t->node, size, 0, DATA_PASSWORD);
	if (!expect(lh, 0, "alloc LITE_LMR_MAX_SIZE (1 GiB) on node %u",
		    t->node))
		return;
	for (i = 0; i < 2; i++) {
		rng_fill(&t->rng, out, 4096);
		if (!step(lite_write(lh, offs[i], out, 4096, DATA_PASSWORD,
				     LITE_PRIO_NORMAL),
			  "1 GiB LMR: write 4 KiB at 0x%llx",
			  (unsigned long long)offs[i]))
			continue;
		memset(in, 0, 4096);
		if (!step(lite_read(lh, offs[i], in, 4096, DATA_PASSWORD,
				    LITE_PRIO_NORMAL),
			  "1 GiB LMR: read 4 KiB at 0x%llx",
			  (unsigned long long)offs[i]))
			continue;
		expect_bytes(in, out, 4096, offs[i], "1 GiB LMR: 4 KiB at %s",
			     offs[i] ? "its very end" : "offset 0");
	}
	expect(lite_read(lh, size - 4095, in, 4096, DATA_PASSWORD,
			 LITE_PRIO_NORMAL), ERANGE,
	       "1 GiB LMR: read 4 KiB one byte past the end");
	expect(lite_free(lh), 0, "free the 1 GiB LMR");
}
