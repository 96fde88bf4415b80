// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-join: join this node to a LITE cluster, or show its state.
 *
 *   lite-join [-p PORT] [-i IB_PORT] [-k KEY_FILE] MANAGER_ADDR
 *   lite-join --status [--wait N] [--timeout SECS]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../include/lite_proto.h"
#include "../include/opt_table.h"
#include "../include/uapi/lite.h"
#include "../lib/lite.h"

struct join_opts {
	unsigned int port, ib_port;
	const char *key_file;
	int status;
	unsigned int want, timeout;
};

/* Where the options' values go; what names a number in bad_num(). */
#define JO	struct join_opts

static const struct opt_def opts[] = {
	{ "port", 'p', "PORT", "manager TCP port", .what = "port",
	  OPT_UINT(JO, port, 0, 65535) },
	{ "ib-port", 'i', "PORT", "RDMA port (default: the module's)",
	  .what = "IB port", OPT_UINT(JO, ib_port, 0, 255) },
	{ "key-file", 'k', "FILE", "the cluster key (default " LITE_KEY_FILE
	  ")", OPT_STR(JO, key_file) },
	{ "status", 's', NULL, "print the state instead of joining",
	  OPT_FLAG(JO, status) },
	{ "wait", 'w', "N", "with --status: wait until N nodes are reachable; "
	  "fails at once when the manager connection is lost",
	  .what = "node count", OPT_UINT(JO, want, 0, LITE_MAX_NODES) },
	{ "timeout", 't', "SECS", "limit for --wait (default 60)",
	  .what = "timeout", OPT_UINT(JO, timeout, 0, 86400) },
	{ "help", 'h', NULL, "this text", .type = OPT_T_OWN },
	{ .name = NULL }
};

/* The usage, on stdout for --help (@status 0), else on stderr; exits. */
static void __attribute__((noreturn)) usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f,
		"usage: lite-join [-p PORT] [-i IB_PORT] [-k KEY_FILE] MANAGER_ADDR\n"
		"       lite-join --status [--wait N] [--timeout SECS]\n"
		"\n"
		"Join this node to the LITE cluster whose lite-manager listens on\n"
		"MANAGER_ADDR:PORT (default port %d), or print the cluster as this\n"
		"node sees it: its id, the nodes it reaches and their ids.\n",
		LITE_PROTO_DEFAULT_PORT);
	opt_help(f, opts, 23);
	exit(status);
}

static void bad_num(const struct opt_parser *p, const struct opt_def *o,
		    const char *arg, const char *why)
{
	(void)p;
	(void)why;
	fprintf(stderr, "lite-join: bad %s '%s'\n", o->what, arg);
	exit(2);
}

static void usage_fail(const struct opt_parser *p)
{
	(void)p;
	usage(2);
}

static int print_status(int fd, unsigned int want, unsigned int timeout)
{
	struct lite_ioc_cluster c;
	time_t deadline = time(NULL) + timeout;
	unsigned int i;
	const char *sep = "";

	for (;;) {
		memset(&c, 0, sizeof(c));
		if (ioctl(fd, LITE_IOC_CLUSTER, &c)) {
			perror("lite-join: LITE_IOC_CLUSTER");
			return 1;
		}
		/* A lost manager's view is not waited on: only a rejoin helps. */
		if (!want || c.nr_nodes >= want || time(NULL) >= deadline ||
		    (c.flags & LITE_CLUSTER_MANAGER_LOST))
			break;
		usleep(200 * 1000);
	}
	printf("node_id=%u nodes=%u qps_per_peer=%u atomics=%s connected=",
	       c.node_id, c.nr_nodes, c.qps_per_peer,
	       c.flags & LITE_CLUSTER_NIC_ATOMICS ? "nic" : "cpu");
	for (i = 0; i < 64; i++) {
		if (c.connected & (1ULL << i)) {
			printf("%s%u", sep, i);
			sep = ",";
		}
	}
	printf("\n");
	/* A second line, so that scripts matching the first keep working. */
	if (c.flags & LITE_CLUSTER_MANAGER_LOST)
		printf("manager=lost: the view above is the manager's last; no membership change reaches this node until 'lite-join MANAGER' rejoins\n");
	if (want && (c.flags & LITE_CLUSTER_MANAGER_LOST)) {
		fprintf(stderr, "lite-join: the manager connection is lost\n");
		return 1;
	}
	if (c.nr_nodes < want) {
		fprintf(stderr, "lite-join: %u of %u nodes reachable after %us\n",
			c.nr_nodes, want, timeout);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct join_opts o = {
		.port = LITE_PROTO_DEFAULT_PORT, .key_file = LITE_KEY_FILE,
		.timeout = 60,
	};
	struct opt_parser p = {
		.prog = "lite-join", .num = OPT_NUM_STRTOUL, .bad = bad_num,
		.fail = usage_fail,
	};
	const struct opt_def *d;
	int fd, ret = 0;

	opt_add(&p, opts, &o);
	while ((d = opt_next(&p, argc, argv)))
		if (d->key == 'h')
			usage(0);
	if (o.status ? optind != argc : optind != argc - 1)
		usage(2);
	fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("lite-join: /dev/" LITE_DEV_NAME " (is lite.ko loaded?)");
		return 1;
	}
	if (o.status) {
		ret = print_status(fd, o.want, o.timeout);
	} else {
		ret = lite_join_key(argv[optind], o.port, o.ib_port,
				    o.key_file);
		if (ret < 0) {
			fprintf(stderr, "lite-join: joining %s:%u with the key in %s: %s%s\n",
				argv[optind], o.port, o.key_file, strerror(-ret),
				ret == -EACCES ? " (the manager has another key?)" :
				ret == -EPERM ? " (not root, or a key file others may read: chmod 600)" : "");
			ret = 1;
		} else {
			printf("node_id=%d\n", ret);
			ret = 0;
		}
	}
	close(fd);
	return ret;
}
