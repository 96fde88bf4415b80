// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bad arguments to /dev/lite get an errno, never an oops. Run on a node
 * that has joined (the join cases expect EISCONN, not a second join).
 * Prints one line per case; exit status 1 if any case failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../include/uapi/lite.h"

static int failures;

static void expect(const char *what, int ret, int want_errno)
{
	int got = ret ? errno : 0;

	if (got == want_errno) {
		printf("ok   %-44s %s\n", what, want_errno ? strerror(want_errno) : "success");
	} else {
		printf("FAIL %-44s want %s, got %s\n", what,
		       want_errno ? strerror(want_errno) : "success",
		       got ? strerror(got) : "success");
		failures++;
	}
}

int main(void)
{
	struct lite_ioc_join j;
	struct lite_ioc_cluster c;
	void *ro;
	int fd;

	fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/" LITE_DEV_NAME);
		return 1;
	}
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	memset(&c, 0, sizeof(c));
	expect("CLUSTER", ioctl(fd, LITE_IOC_CLUSTER, &c), 0);
	if (!c.node_id || c.nr_nodes < 1) {
		printf("FAIL this node has not joined (node_id %u)\n", c.node_id);
		failures++;
	}
	expect("CLUSTER NULL", ioctl(fd, LITE_IOC_CLUSTER, NULL), EFAULT);
	expect("CLUSTER unmapped", ioctl(fd, LITE_IOC_CLUSTER, (void *)8), EFAULT);
	expect("CLUSTER read-only buffer", ioctl(fd, LITE_IOC_CLUSTER, ro), EFAULT);
	/* Out only: a struct reused from an earlier call is fine. */
	c.flags = ~0U;
	expect("CLUSTER with flags from before", ioctl(fd, LITE_IOC_CLUSTER, &c), 0);

	memset(&j, 0, sizeof(j));
	strcpy(j.manager, "127.0.0.1");
	j.port = 18500;
	expect("JOIN NULL", ioctl(fd, LITE_IOC_JOIN, NULL), EFAULT);
	j.port = 0;
	expect("JOIN port 0", ioctl(fd, LITE_IOC_JOIN, &j), EINVAL);
	j.port = 70000;
	expect("JOIN port 70000", ioctl(fd, LITE_IOC_JOIN, &j), EINVAL);
	j.port = 18500;
	j.reserved = 7;
	expect("JOIN reserved != 0", ioctl(fd, LITE_IOC_JOIN, &j), EINVAL);
	j.reserved = 0;
	memset(j.manager, 'x', sizeof(j.manager));
	expect("JOIN unterminated address", ioctl(fd, LITE_IOC_JOIN, &j), EINVAL);
	strcpy(j.manager, "not-an-address");
	expect("JOIN malformed address", ioctl(fd, LITE_IOC_JOIN, &j), EINVAL);
	strcpy(j.manager, "127.0.0.1");
	j.ib_port = 9;
	expect("JOIN other IB port", ioctl(fd, LITE_IOC_JOIN, &j), EINVAL);
	j.ib_port = 0;
	expect("JOIN when joined", ioctl(fd, LITE_IOC_JOIN, &j), EISCONN);
	expect("unknown ioctl", ioctl(fd, _IO(LITE_IOC_MAGIC, 99), 0), ENOTTY);
	expect("foreign ioctl magic", ioctl(fd, _IO('T', 1), 0), ENOTTY);

	close(fd);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
