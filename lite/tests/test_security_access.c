// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Who gets in: /dev/lite refuses users outside group lite, JOIN users
 * without CAP_NET_ADMIN; a failed ASK says nothing about what exists and
 * is limited per second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_security.h"

#define WRONG_PASSWORD		4712
#define ASK_TRIES		1000	/* failed asks per thread, at most */
#define ASK_THREADS		8

/* ---- open-denied, join-denied ---------------------------------------- */

int cmd_open_denied(void)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };
	static const char *const names[] = { "O_RDWR", "O_RDONLY", "O_WRONLY" };
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fd = open("/dev/" LITE_DEV_NAME, modes[i] | O_CLOEXEC);
		expect(fd < 0 ? neg_errno() : fd, EACCES,
		       "uid %u (not in the group) opens /dev/lite %s",
		       (unsigned int)getuid(), names[i]);
		if (fd >= 0)
			close(fd);
	}
	expect(lite_node_id(), EACCES, "liblite (lite_node_id) is refused");
	return finish();
}

int cmd_join_denied(void)
{
	struct lite_ioc_join j = { .port = 18500, .manager = "127.0.0.1" };
	int fd = dev_open();

	if (!expect(fd, 0, "uid %u (in the group) opens /dev/lite",
		    (unsigned int)getuid()))
		return finish();
	expect(raw_ioctl(fd, LITE_IOC_JOIN, &j), EPERM,
	       "JOIN without CAP_NET_ADMIN");
	/* liblite reads the cluster key first: root's alone. */
	expect(lite_join("127.0.0.1", 18500, 0), EACCES,
	       "lite_join cannot read the cluster key");
	me_or_fail();
	close(fd);
	return finish();
}

/* ---- ask-oracle ------------------------------------------------------ */

/* Failed asks from several threads at once: a limit per second must bite. */
struct ask_flood {
	unsigned int	node;
	uint64_t	id;
	atomic_int	stop;
	atomic_int	failed;		/* EACCES answers */
	atomic_int	limited;	/* EAGAIN answers */
	atomic_int	other;		/* anything else: the first one */
};

static void *ask_flood_thread(void *arg)
{
	struct ask_flood *f = arg;
	unsigned int n = 0;
	int ret;

	while (!atomic_load(&f->stop) && n < ASK_TRIES) {
		/* Alternately the unpublished ID and a wrong password. */
		ret = lite_ask(f->node, f->id + (n++ & 1), LITE_PERM_READ,
			       WRONG_PASSWORD);
		if (ret == -EACCES) {
			atomic_fetch_add(&f->failed, 1);
		} else if (ret == -EAGAIN) {
			atomic_fetch_add(&f->limited, 1);
			atomic_store(&f->stop, 1);
		} else {
			int none = 0;

			if (ret >= 0)
				lite_unmap(ret);
			atomic_compare_exchange_strong(&f->other, &none,
						       ret ? ret : INT_MIN);
			atomic_store(&f->stop, 1);
		}
	}
	return NULL;
}

int cmd_ask_oracle(unsigned int node, uint64_t id)
{
	struct ask_flood f = { .node = node, .id = id };
	pthread_t threads[ASK_THREADS];
	unsigned int i, started = 0;
	int lh, ret, other;

	if (me_or_fail() < 0)
		return finish();
	lh = lite_alloc(node, 4096, 0, PASSWORD);
	if (!expect(lh, 0, "alloc 4 KiB on node %u", node) ||
	    !expect(lite_publish(lh, id, LITE_PERM_READ, PASSWORD), 0,
		    "publish it as %llu", (unsigned long long)id))
		return finish();
	ret = lite_ask(node, id, LITE_PERM_READ, PASSWORD);
	if (expect(ret, 0, "ask it with the password"))
		lite_unmap(ret);
	/* Both failures look alike: no way to learn what exists. */
	ret = lite_ask(node, id + 1, LITE_PERM_READ, PASSWORD);
	expect(ret, EACCES, "ask an identifier nothing is published under");
	ret = lite_ask(node, id, LITE_PERM_READ, WRONG_PASSWORD);
	expect(ret, EACCES, "ask with a wrong password");

	for (i = 0; i < ASK_THREADS; i++)
		started += !pthread_create(&threads[i], NULL, ask_flood_thread,
					   &f);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	other = atomic_load(&f.other);
	if (other)
		fail("a failed ask answered %s, want EACCES or EAGAIN",
		     other == INT_MIN ? "success" : got_name(other));
	if (atomic_load(&f.limited))
		pass("repeated failed asks get EAGAIN (after %d EACCES from "
		     "%u threads)", atomic_load(&f.failed), started);
	else
		fail("%d failed asks from %u threads, never EAGAIN",
		     atomic_load(&f.failed), started);
	expect(lite_free(lh), 0, "free the LMR");
	return finish();
}
