// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_lmr: LITE memory regions through liblite, run on the nodes of a
 * joined cluster by the integration test.
 *
 *   test_lmr data NODE [OTHER_NODE] [--seed N] [--big]
 *   test_lmr share NODE ID      the publisher, on node NODE
 *   test_lmr ask NODE ID        the asker, on another node
 *
 * Every check prints "ok   WHAT" or "FAIL WHAT: WHY"; "info ..." lines
 * only inform. Exit status: 1 if a check failed, 2 on a usage error or a
 * broken stdin protocol. share and ask are driven one word a line:
 *
 *   share:  prints "ready"    once every publication exists
 *           reads  "revoke"   then frees the LMR and prints "revoked"
 *           reads  EOF        then exits
 *   ask:    prints "mapped"   holding a READ handle on ID+1
 *           reads  "check-revoked" (send it after share said "revoked"),
 *                             checks that handle is revoked, then exits
 *
 * share exits 1 without "ready" when its own setup fails, ask without
 * "mapped" likewise.
 *
 * share publishes its 1 MiB LMR under ID+p, password 1000+p, for every
 * set p = 1..7 of READ|WRITE|SHARE; ask republishes under ID+8..ID+127.
 * Runs at the same time need IDs at least 128 apart. Data operations
 * present the password the handle was made with: SHARE_LMR_PASSWORD on
 * the publisher's own handle (lite_ioc_alloc), 1000+p on a handle asked
 * from ID+p (the kernel keeps the ask's password in the handle).
 *
 * The parts: test_lmr_data.c (data: contents, memset, copies),
 * test_lmr_errors.c (data: the errors and the 1 GiB LMR),
 * test_lmr_share.c (share, ask); what they share in test_lmr.h; the
 * command line here.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_lmr.h"

/* ---- command line ------------------------------------------------------ */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: test_lmr data NODE [OTHER_NODE] [--seed N] [--big]\n"
		"       test_lmr share NODE ID    (on node NODE)\n"
		"       test_lmr ask NODE ID      (on another node)\n"
		"\n"
		"  data   contents, copies and errors of LMRs on NODE (and a\n"
		"         copy to OTHER_NODE); --big adds a 1 GiB LMR\n"
		"  share  publish a 1 MiB LMR as ID+1..ID+7; prints 'ready',\n"
		"         frees it on 'revoke' and prints 'revoked'\n"
		"  ask    ask every publication of share with every subset of\n"
		"         its permissions; prints 'mapped', then checks on\n"
		"         'check-revoked' that its handle was revoked\n");
}

/* The command's operands, after the options. */
#define NODE(i)		parse_num(argv[optind + (i)], "NODE", 0, UINT_MAX)
#define ID(i)		parse_num(argv[optind + (i)], "ID", 0, UINT64_MAX - 255)

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "big", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	bool big = false, seeded = false;
	const char *cmd;
	int c, nargs;

	check_start("test_lmr", usage);
	while ((c = getopt_long(argc, argv, "s:bh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = parse_num(optarg, "seed", 0, UINT64_MAX);
			seeded = true;
			break;
		case 'b':
			big = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	nargs = argc - optind;
	cmd = nargs ? argv[optind] : "";
	if (!strcmp(cmd, "data") && (nargs == 2 || nargs == 3))
		return cmd_data(NODE(1), nargs == 3 ?
				parse_num(argv[optind + 2], "OTHER_NODE", 0,
					  UINT_MAX) : 0,
				seed, big);
	if ((seeded || big) || nargs != 3) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "share"))
		return cmd_share(NODE(1), ID(2));
	if (!strcmp(cmd, "ask"))
		return cmd_ask(NODE(1), ID(2));
	usage(stderr);
	return 2;
}
