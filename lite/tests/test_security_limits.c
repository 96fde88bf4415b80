// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-user limits (module parameters user_*): LMRs, handles,
 * publications, locks, zero-copy buffers, calls in flight, RPC ports and
 * rings bite at the limit, hold back only the user at it, and not root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_security.h"

#define PARAM_DIR		"/sys/module/lite/parameters/"

/* ---- limits ---------------------------------------------------------- */

/* A module parameter, or -1 (with a failure) if it cannot be read. */
static long param(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1 || v < 0) {
		fail("read %s: %s (a module without per-user limits?)", path,
		     f ? "not a number" : strerror(errno));
		v = -1;
	}
	if (f)
		fclose(f);
	return v;
}

/*
 * @n things were had before a failure @ret; it must be EDQUOT, at the
 * limit: n in [limit - 1, limit] ("within one").
 */
static void expect_limit(const char *what, long n, int ret, long limit)
{
	if (!expect(ret, EDQUOT, "%s: the one after %ld", what, n))
		return;
	if (n <= limit && n >= limit - 1)
		pass("%s: refused at the limit (%ld of %ld)", what, n, limit);
	else
		fail("%s: refused after %ld, the limit is %ld", what, n,
		     limit);
}

struct held {
	int	*lmr;
	long	nr_lmr;
	int	*asked;
	long	nr_asked;
	long	*locks;
	long	nr_locks;
	void	**zc;
	long	nr_zc;
};

int cmd_limits(unsigned int node)
{
	long lmr_mb = param("user_lmr_mb"), handles = param("user_handles");
	long zc_mb = param("user_zc_mb"), pubs = param("user_pubs");
	long locks = param("user_locks"), n;
	uint64_t id = 0x11a17000000ULL + (uint64_t)getpid() * 1024;
	struct held h = { 0 };
	uint8_t buf[4096];
	int ret = 0, lh;
	void *zc;

	if (getuid() == 0)
		fail("limits runs as an unprivileged user (root is exempt)");
	if (me_or_fail() < 0 || lmr_mb < 0 || handles < 0 || zc_mb < 0 ||
	    pubs < 0 || locks < 0)
		return finish();
	if (handles <= lmr_mb + 1 || pubs > 1000) {
		fail("want user_handles > user_lmr_mb + 1 and user_pubs <= "
		     "1000 (got %ld, %ld, %ld)", handles, lmr_mb, pubs);
		return finish();
	}
	info("limits: user_lmr_mb %ld, user_handles %ld, user_zc_mb %ld, "
	     "user_pubs %ld, user_locks %ld", lmr_mb, handles, zc_mb, pubs,
	     locks);
	h.lmr = calloc(lmr_mb + 2, sizeof(*h.lmr));
	h.asked = calloc(handles + 2, sizeof(*h.asked));
	h.locks = calloc(locks + 2, sizeof(*h.locks));
	h.zc = calloc(zc_mb + 2, sizeof(*h.zc));
	if (!h.lmr || !h.asked || !h.locks || !h.zc) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}

	/* MiB of LMRs: 1 MiB at a time, the last one still usable. */
	for (n = 0; n < lmr_mb + 2; n++) {
		ret = lite_alloc(node, MiB, 0, PASSWORD);
		if (ret < 0)
			break;
		h.lmr[h.nr_lmr++] = ret;
	}
	expect_limit("user_lmr_mb: 1 MiB LMRs", h.nr_lmr, ret, lmr_mb);
	if (h.nr_lmr) {
		lh = h.lmr[h.nr_lmr - 1];
		fill(buf, sizeof(buf), 0x11a1);
		if (step(lite_write(lh, 0, buf, sizeof(buf), PASSWORD,
				    LITE_PRIO_NORMAL), "write the last LMR") &&
		    step(lite_read(lh, 0, buf, sizeof(buf), PASSWORD,
				   LITE_PRIO_NORMAL), "read it back"))
			expect_pattern(buf, sizeof(buf), 0x11a1,
				       "the last LMR below the limit works");
	}
	if (!h.nr_lmr)
		goto release;

	/* Handles without memory: ask our own publication again and again. */
	expect(lite_publish(h.lmr[0], id, LITE_PERM_READ, PASSWORD), 0,
	       "publish the first LMR");
	for (n = h.nr_lmr; n < handles + 2; n++) {
		ret = lite_ask(node, id, LITE_PERM_READ, PASSWORD);
		if (ret < 0)
			break;
		h.asked[h.nr_asked++] = ret;
	}
	expect_limit("user_handles: LMRs and asked handles", h.nr_lmr +
		     h.nr_asked, ret, handles);

	/* Publications on the owner node: the same LMR under more IDs. */
	for (n = 1; n < pubs + 2; n++) {
		ret = lite_publish(h.lmr[0], id + n, LITE_PERM_READ, PASSWORD);
		if (ret < 0)
			break;
	}
	expect_limit("user_pubs: publications of one LMR", n, ret, pubs);

	/* Locks on their home node. */
	for (n = 0; n < locks + 2; n++) {
		ret = lite_lock_create(node);
		if (ret < 0)
			break;
		h.locks[h.nr_locks++] = ret;
	}
	expect_limit("user_locks: locks", h.nr_locks, ret, locks);

	/* Zero-copy buffers, 1 MiB each. */
	for (n = 0; n < zc_mb + 2; n++) {
		zc = lite_alloc_buffer(MiB);
		if (!zc) {
			ret = neg_errno();
			break;
		}
		h.zc[h.nr_zc++] = zc;
	}
	expect_limit("user_zc_mb: 1 MiB zero-copy buffers", h.nr_zc, ret,
		     zc_mb);

	/* The script shows other users are not held back meanwhile. */
	puts("ready");
	read_line();
release:
	for (n = 0; n < h.nr_zc; n++)
		step(lite_free_buffer(h.zc[n], MiB), "munmap zero-copy buffer");
	for (n = 0; n < h.nr_locks; n++)
		step(lock_destroy(node, h.locks[n]), "destroy lock %ld",
		     h.locks[n]);
	for (n = 0; n < h.nr_asked; n++)
		step(lite_unmap(h.asked[n]), "unmap asked handle");
	for (n = 0; n < h.nr_lmr; n++)
		step(lite_free(h.lmr[n]), "free LMR");
	pass("released %ld LMRs, %ld handles, %ld locks, %ld buffers",
	     h.nr_lmr, h.nr_asked, h.nr_locks, h.nr_zc);

	/* What was given back can be had again. */
	lh = lite_alloc(node, MiB, 0, PASSWORD);
	if (expect(lh, 0, "after release: alloc 1 MiB"))
		lite_free(lh);
	zc = lite_alloc_buffer(MiB);
	if (expect(zc ? 0 : neg_errno(), 0, "after release: zero-copy buffer"))
		lite_free_buffer(zc, MiB);
	ret = lite_lock_create(node);
	if (expect(ret, 0, "after release: create a lock"))
		expect(lock_destroy(node, ret), 0, "and destroy it");
	free(h.lmr);
	free(h.asked);
	free(h.locks);
	free(h.zc);
	return finish();
}

/* Another user while the first sits at its limits: business as usual. */
int cmd_limits_other(unsigned int node)
{
	int lh;

	if (me_or_fail() < 0)
		return finish();
	lh = lite_alloc(node, MiB, 0, PASSWORD);
	if (expect(lh, 0, "uid %u: alloc 1 MiB on node %u",
		   (unsigned int)getuid(), node)) {
		zc_round_trip(lh, MiB, 0x07e1, "a zero-copy buffer",
			      "write and read back 1 MiB",
			      "write and read 1 MiB through it");
		expect(lite_free(lh), 0, "free the LMR");
	}
	use_new_lock(node, "a lock", "it");
	return finish();
}

/* Root (CAP_SYS_RESOURCE) goes past every limit. */
int cmd_limits_exempt(unsigned int node)
{
	long lmr_mb = param("user_lmr_mb"), zc_mb = param("user_zc_mb"), n;
	int *lh;
	void **zc;

	if (me_or_fail() < 0 || lmr_mb < 0 || zc_mb < 0)
		return finish();
	lh = calloc(lmr_mb + 2, sizeof(*lh));
	zc = calloc(zc_mb + 2, sizeof(*zc));
	if (!lh || !zc) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}
	for (n = 0; n < lmr_mb + 2; n++) {
		lh[n] = lite_alloc(node, MiB, 0, PASSWORD);
		if (lh[n] < 0)
			break;
	}
	if (n == lmr_mb + 2)
		pass("uid %u: %ld MiB of LMRs, past user_lmr_mb %ld",
		     (unsigned int)getuid(), n, lmr_mb);
	else
		fail("uid %u: LMR %ld of 1 MiB: %s (user_lmr_mb %ld)",
		     (unsigned int)getuid(), n + 1, got_name(lh[n]), lmr_mb);
	while (n-- > 0)
		step(lite_free(lh[n]), "free LMR");
	for (n = 0; n < zc_mb + 2; n++) {
		zc[n] = lite_alloc_buffer(MiB);
		if (!zc[n])
			break;
	}
	if (n == zc_mb + 2)
		pass("%ld MiB of zero-copy buffers, past user_zc_mb %ld", n,
		     zc_mb);
	else
		fail("zero-copy buffer %ld of 1 MiB: %s (user_zc_mb %ld)",
		     n + 1, errname(errno), zc_mb);
	while (n-- > 0)
		step(lite_free_buffer(zc[n], MiB), "munmap buffer");
	free(lh);
	free(zc);
	return finish();
}

/* ---- RPC calls in flight -------------------------------------------- */

/*
 * A port that takes requests and does not answer. On a line it receives
 * everything queued without replying: the first @hold (the user's
 * user_replies) are owed, each one past them fails with EDQUOT (and is
 * consumed). Then it replies to the @hold: their callers gave up and the
 * requests were forgotten, so every reply is dropped and returns 0. It
 * exits on the next line.
 */
int cmd_calls_server(unsigned int port, unsigned int hold)
{
	uint8_t req[64], reply = 1;
	uint64_t desc[16];
	unsigned int n = 0, refused = 0, i;
	int ret;

	if (hold >= 16) {
		fail("calls-server: HOLD %u: at most 15", hold);
		return finish();
	}
	if (!expect(lite_rpc_register(port, 64, "test_security calls"), 0,
		    "register port %u", port))
		return finish();
	puts("ready");
	read_line();
	/* Past @hold nothing should be owed: room for one too many. */
	for (;;) {
		ret = lite_rpc_recv(port, req, sizeof(req), &desc[n], NULL,
				    LITE_RECV_NONBLOCK, LITE_PRIO_NORMAL);
		if (ret == -EDQUOT) {
			refused++;
			continue;
		}
		if (ret <= 0 || ++n == 16)
			break;
	}
	expect(ret, EAGAIN, "nothing left to receive after %u requests held, %u refused",
	       n, refused);
	if (n == hold && refused)
		pass("user_replies: %u requests owed, the %u after them refused with EDQUOT",
		     n, refused);
	else
		fail("%u requests owed, %u refused with EDQUOT: want %u owed and the rest refused",
		     n, refused, hold);
	for (i = 0; i < n; i++)
		expect(lite_rpc_reply(desc[i], &reply, sizeof(reply),
				      LITE_PRIO_NORMAL), 0,
		       "reply to forgotten request %u", i + 1);
	pass("replied to %u requests whose callers had given up", n);
	puts("replied");
	read_line();
	return finish();
}

static int silent_call(unsigned int node, unsigned int port)
{
	uint8_t req = 1, reply[64];

	return lite_rpc_call(node, port, &req, sizeof(req), reply,
			     sizeof(reply), LITE_PRIO_NORMAL);
}

struct silent_arg {
	pthread_t	thread;
	unsigned int	node, port;
	int		ret;
	int		done;	/* ret is set */
};

static void *silent_thread(void *p)
{
	struct silent_arg *a = p;

	a->ret = silent_call(a->node, a->port);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Until one of @n calls was refused with EDQUOT, or all ended. */
static void wait_refused(struct silent_arg *a, int n)
{
	int i, done;

	for (;;) {
		for (i = 0, done = 0; i < n; i++) {
			if (!__atomic_load_n(&a[i].done, __ATOMIC_ACQUIRE))
				continue;
			if (a[i].ret == -EDQUOT)
				return;
			done++;
		}
		if (done == n)
			return;
		usleep(20 * 1000);
	}
}

/*
 * user_calls + 1 calls nobody answers, at once: one is refused with
 * EDQUOT ("at-limit" is printed then, while the others wait), the others
 * give up after rpc_timeout_ms. Given-up calls still count until their
 * server forgets them (RPC_FORGET, a second or two later; before it,
 * until the server exited), so the next call goes out well before the
 * server does anything. On a line (send it once the server exited) a
 * call is refused: nobody listens there any more.
 */
int cmd_calls(unsigned int node, unsigned int port)
{
	long limit = param("user_calls");
	double start, gave_up;
	struct silent_arg *a;
	int ret = 0, timedout = 0, refused = 0, i, n;

	if (getuid() == 0)
		fail("calls runs as an unprivileged user (root is exempt)");
	if (me_or_fail() < 0 || limit < 0)
		return finish();
	n = limit + 1;
	a = calloc(n, sizeof(*a));
	if (!a) {
		fail("calloc: %s", strerror(errno));
		return finish();
	}
	for (i = 0; i < n; i++) {
		a[i].node = node;
		a[i].port = port;
		if (pthread_create(&a[i].thread, NULL, silent_thread, &a[i])) {
			fail("pthread_create: %s", strerror(errno));
			n = i;
		}
	}
	wait_refused(a, n);
	puts("at-limit");
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pthread_join(a[i].thread, NULL);
		timedout += a[i].ret == -ETIMEDOUT;
		refused += a[i].ret == -EDQUOT;
		if (a[i].ret != -ETIMEDOUT && a[i].ret != -EDQUOT)
			fail("silent call %d: %s, not ETIMEDOUT or EDQUOT", i,
			     strerror(-a[i].ret));
	}
	free(a);
	gave_up = now_ms();
	if (timedout == limit && refused == 1)
		pass("user_calls: %d calls at once, %d waited and gave up, 1 refused (EDQUOT)",
		     (int)limit + 1, timedout);
	else
		fail("user_calls %ld: %d calls at once: %d gave up, %d refused (want %ld and 1)",
		     limit, (int)limit + 1, timedout, refused, limit);
	/* Within 20 s (RPC_FORGET asks after 1 s), the server untouched. */
	do {
		start = now_ms();
		ret = silent_call(node, port);
		if (ret != -EDQUOT)
			break;
		usleep(100 * 1000);
	} while (start - gave_up < 20000);
	if (expect(ret, ETIMEDOUT,
		   "a call after the given-up ones were forgotten (not EDQUOT)"))
		pass("given-up calls gave their user_calls back: a call went out %.0f ms after they gave up",
		     start - gave_up);
	puts("ready");
	read_line();	/* the server has exited */
	expect(silent_call(node, port), ECONNREFUSED,
	       "a call after the server exited");
	return finish();
}

/* Another user while the first sits at user_calls: its call goes out. */
int cmd_calls_other(unsigned int node, unsigned int port)
{
	if (me_or_fail() < 0)
		return finish();
	expect(silent_call(node, port), ETIMEDOUT,
	       "uid %u: a call to the silent port times out (not EDQUOT)",
	       (unsigned int)getuid());
	return finish();
}

/* ---- RPC ports and rings -------------------------------------------- */

/*
 * Register each of @ports in order: an unprivileged user gets the first
 * user_ports of them (fewer if it holds others) and EDQUOT for the rest.
 */
int cmd_ports(char **ports, int n)
{
	long limit = getuid() ? param("user_ports") : LONG_MAX;
	unsigned int port;
	int i, ret;

	if (limit < 0)
		return finish();
	for (i = 0; i < n; i++) {
		port = (unsigned int)parse_num(ports[i], "PORT", 0, 63);
		ret = lite_rpc_register(port, 64, "test_security ports");
		if (i < limit)
			expect(ret, 0, "uid %u: register port %u (%d of user_ports %ld)",
			       (unsigned int)getuid(), port, i + 1, limit);
		else
			expect(ret, EDQUOT, "uid %u: register port %u past user_ports %ld",
			       (unsigned int)getuid(), port, limit);
	}
	puts("ready");
	fflush(stdout);
	read_line();
	return finish();
}

/* One message to (@node, @port): it goes out, or fails with @want. */
int cmd_send(unsigned int node, unsigned int port, const char *want)
{
	static const struct { const char *name; int err; } errs[] = {
		{ "0", 0 }, { "EDQUOT", EDQUOT },
		{ "ECONNREFUSED", ECONNREFUSED },
	};
	uint8_t msg = 1;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errs); i++)
		if (!strcmp(want, errs[i].name))
			break;
	if (i == ARRAY_SIZE(errs)) {
		fail("send: ERRNO %s is not 0, EDQUOT or ECONNREFUSED", want);
		return finish();
	}
	if (me_or_fail() < 0)
		return finish();
	expect(lite_rpc_send(node, port, &msg, sizeof(msg), LITE_PRIO_NORMAL),
	       errs[i].err, "uid %u: a message to node %u port %u",
	       (unsigned int)getuid(), node, port);
	return finish();
}
