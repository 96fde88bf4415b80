// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_security: what LITE promises when users who do not trust each other
 * share a node. Run by tests/integration/lite-security as unprivileged
 * users (liteuser and liteuser2 in group lite, outsider not) and root.
 *
 *   test_security open-denied           /dev/lite refuses the caller
 *   test_security join-denied           JOIN without CAP_NET_ADMIN
 *   test_security zc-fork NODE          zero-copy buffer in a forked child
 *   test_security zc-mremap NODE        zero-copy buffer cannot move
 *   test_security zc-fdpass NODE        another process's memory, same file
 *   test_security async-fdpass NODE     a posted read reaped by another
 *                                       process (NODE: not this one)
 *   test_security limits NODE           run into the per-user limits
 *   test_security limits-other NODE     another user meanwhile
 *   test_security limits-exempt NODE    root past the limits
 *   test_security calls-server PORT HOLD  a port that answers only late,
 *                                       owing at most HOLD (user_replies)
 *   test_security calls NODE PORT       run into user_calls, get them back
 *   test_security calls-other NODE PORT another user meanwhile
 *   test_security ports PORT...         register, up to user_ports
 *   test_security send NODE PORT ERRNO  one message; ERRNO 0 for success
 *   test_security lock-contend NODE NPROC ROUNDS
 *   test_security lock-foreign NODE LOCK    another uid's lock
 *   test_security barrier NR
 *   test_security ask-oracle NODE ID    ASK failures say nothing, are limited
 *   test_security revoke-owner NODE ID  (on node NODE)
 *   test_security revoke-mapper NODE ID (on another node)
 *   test_security devgone NODE          this node's RDMA device vanishes
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; "info ..." lines
 * only inform; the last line is "PASS: 0 failure(s)" or "FAIL: N
 * failure(s)". Exit status: 1 if a check failed, 2 on a usage error.
 *
 * Driven over stdin/stdout (one word a line):
 *   limits         prints "ready" at every limit, frees all on a line (or EOF)
 *   lock-contend   prints "info lock N" early and "held" once it holds the
 *                  lock with a waiter queued; unlocks on a line (or EOF)
 *   revoke-owner   prints "ready" once ID is published; frees the LMR on a
 *                  line, reuses its memory and prints "freed"; finishes at EOF
 *   revoke-mapper  prints "mapped", then reads and writes until an error;
 *                  on a line (send it after "freed") checks the handle is
 *                  dead and exits
 *   calls-server   prints "ready" once PORT is registered; on a line
 *                  takes everything queued without replying: the first
 *                  HOLD, then EDQUOT for each of the rest (user_replies),
 *                  replies to the HOLD ("replied"); exits on the next
 *   calls          prints "at-limit" while user_calls calls wait, "ready"
 *                  once given-up calls were forgotten; on a line (send it
 *                  once the server exited) checks a call is refused
 *   ports          prints "ready" with its ports registered; exits on a line
 *   devgone        prints "ready" holding a local and a remote LMR; reads
 *                  both on a line (send it once the device is gone)
 *   barrier        prints "info before MS" and "info after MS" (Unix ms)
 *
 * lock-contend, zc-fdpass, async-fdpass and the lock waiter re-execute
 * this program (/proc/self/exe) for processes with an open file of their
 * own (liblite keeps one per process, and a lock is held by an open file)
 * or, for the fd-passing commands, with nothing of the sender's but the
 * file it passes.
 *
 * The commands by concern: test_security_access.c (open-denied,
 * join-denied, ask-oracle), test_security_zc.c (zc-fork, zc-mremap,
 * zc-fdpass, async-fdpass), test_security_limits.c (limits, limits-other,
 * limits-exempt, calls-server, calls, calls-other, ports, send),
 * test_security_sync.c (lock-contend, lock-foreign, barrier),
 * test_security_revoke.c (revoke-owner, revoke-mapper, devgone); the
 * helpers they share in test_security_util.c (test_security.h); the
 * command line here.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test_security.h"

const char *self_name = "test_security";


/* ---- command line ---------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_security open-denied | join-denied\n"
		"       test_security zc-fork|zc-mremap|zc-fdpass NODE\n"
		"       test_security async-fdpass NODE\n"
		"       test_security limits|limits-other|limits-exempt NODE\n"
		"       test_security calls-server PORT HOLD\n"
		"       test_security calls|calls-other NODE PORT\n"
		"       test_security ports PORT...\n"
		"       test_security send NODE PORT 0|EDQUOT|ECONNREFUSED\n"
		"       test_security lock-contend NODE NPROC ROUNDS\n"
		"       test_security lock-foreign NODE LOCK\n"
		"       test_security barrier NR\n"
		"       test_security ask-oracle NODE ID\n"
		"       test_security revoke-owner|revoke-mapper NODE ID\n"
		"       test_security devgone NODE\n"
		"The header of lite/tests/test_security.c says what each "
		"checks.\n");
}

#define NODE_ARG(i)	((unsigned int)parse_num(argv[i], "NODE", 0, 63))
#define UINT_ARG(i, w)	((unsigned int)parse_num(argv[i], w, 0, INT_MAX))
#define ID_ARG(i)	parse_num(argv[i], "ID", 0, UINT64_MAX / 4)

/* The commands of a NODE. */
static const struct {
	const char	*name;
	int		(*fn)(unsigned int node);
} node_cmds[] = {
	{ "zc-fork", cmd_zc_fork },
	{ "zc-mremap", cmd_zc_mremap },
	{ "zc-fdpass", cmd_zc_fdpass },
	{ "async-fdpass", cmd_async_fdpass },
	{ "limits", cmd_limits },
	{ "limits-other", cmd_limits_other },
	{ "limits-exempt", cmd_limits_exempt },
	{ "devgone", cmd_devgone },
};

/* NODE and a number, named @arg in a usage error. */
static const struct {
	const char	*name;
	const char	*arg;
	int		(*fn)(unsigned int node, unsigned int n);
} node_num_cmds[] = {
	{ "calls", "PORT", cmd_calls },
	{ "calls-other", "PORT", cmd_calls_other },
	{ "lock-waiter", "LOCK", cmd_lock_waiter },
	{ "lock-foreign", "LOCK", cmd_lock_foreign },
};

/* NODE ID. */
static const struct {
	const char	*name;
	int		(*fn)(unsigned int node, uint64_t id);
} node_id_cmds[] = {
	{ "ask-oracle", cmd_ask_oracle },
	{ "revoke-owner", cmd_revoke_owner },
	{ "revoke-mapper", cmd_revoke_mapper },
};

int main(int argc, char *argv[])
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int n = argc - 2;
	size_t i;

	check_start(self_name, usage);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(node_cmds); i++)
		if (!strcmp(cmd, node_cmds[i].name) && n == 1)
			return node_cmds[i].fn(NODE_ARG(2));
	for (i = 0; i < ARRAY_SIZE(node_num_cmds); i++)
		if (!strcmp(cmd, node_num_cmds[i].name) && n == 2)
			return node_num_cmds[i].fn(NODE_ARG(2),
						   UINT_ARG(3, node_num_cmds[i].arg));
	for (i = 0; i < ARRAY_SIZE(node_id_cmds); i++)
		if (!strcmp(cmd, node_id_cmds[i].name) && n == 2)
			return node_id_cmds[i].fn(NODE_ARG(2), ID_ARG(3));
	if (!strcmp(cmd, "open-denied") && n == 0)
		return cmd_open_denied();
	if (!strcmp(cmd, "join-denied") && n == 0)
		return cmd_join_denied();
	if (!strcmp(cmd, "zc-fdpass-recv") && n == 1)
		return cmd_zc_fdpass_recv(UINT_ARG(2, "socket"));
	if (!strcmp(cmd, "async-fdpass-recv") && n == 1)
		return cmd_async_fdpass_recv(UINT_ARG(2, "socket"));
	if (!strcmp(cmd, "calls-server") && n == 2)
		return cmd_calls_server(UINT_ARG(2, "PORT"), UINT_ARG(3, "HOLD"));
	if (!strcmp(cmd, "barrier") && n == 1)
		return cmd_barrier(UINT_ARG(2, "NR"));
	if (!strcmp(cmd, "ports") && n >= 1)
		return cmd_ports(argv + 2, n);
	if (!strcmp(cmd, "send") && n == 3)
		return cmd_send(NODE_ARG(2), UINT_ARG(3, "PORT"), argv[4]);
	if (!strcmp(cmd, "lock-contend") && n == 3)
		return cmd_lock_contend(NODE_ARG(2), UINT_ARG(3, "NPROC"),
					UINT_ARG(4, "ROUNDS"));
	if (!strcmp(cmd, "lock-worker") && n == 5)
		return cmd_lock_worker(NODE_ARG(2), UINT_ARG(3, "LOCK"),
				       ID_ARG(4), UINT_ARG(5, "ROUNDS"),
				       UINT_ARG(6, "K"));
	usage(stderr);
	return 2;
}
