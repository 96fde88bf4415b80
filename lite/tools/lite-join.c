// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lite-join: join this node to a LITE cluster, or show its state.
 *
 *   lite-join [-p PORT] [-i IB_PORT] [-k KEY_FILE] MANAGER_ADDR
 *   lite-join --status [--wait N] [--timeout SECS]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../include/lite_proto.h"
#include "../include/uapi/lite.h"
#include "../lib/lite.h"

/* The usage, on stdout for --help (@status 0), else on stderr; exits. */
static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: lite-join [-p PORT] [-i IB_PORT] [-k KEY_FILE] MANAGER_ADDR\n"
		"       lite-join --status [--wait N] [--timeout SECS]\n"
		"\n"
		"Join this node to the LITE cluster whose lite-manager listens on\n"
		"MANAGER_ADDR:PORT (default port %d), or print the cluster as this\n"
		"node sees it: its id, the nodes it reaches and their ids.\n"
		"  -p, --port PORT      manager TCP port\n"
		"  -i, --ib-port PORT   RDMA port (default: the module's)\n"
		"  -k, --key-file FILE  the cluster key (default %s)\n"
		"  -s, --status         print the state instead of joining\n"
		"  -w, --wait N         with --status: wait until N nodes are reachable;\n"
		"                       fails at once when the manager connection is lost\n"
		"  -t, --timeout SECS   limit for --wait (default 60)\n"
		"  -h, --help           this text\n",
		LITE_PROTO_DEFAULT_PORT, LITE_KEY_FILE);
	exit(status);
}

static unsigned long parse_num(const char *s, const char *what, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "lite-join: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
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
	static const struct option opts[] = {
		{ "port",	required_argument,	NULL, 'p' },
		{ "ib-port",	required_argument,	NULL, 'i' },
		{ "key-file",	required_argument,	NULL, 'k' },
		{ "status",	no_argument,		NULL, 's' },
		{ "wait",	required_argument,	NULL, 'w' },
		{ "timeout",	required_argument,	NULL, 't' },
		{ "help",	no_argument,		NULL, 'h' },
		{}
	};
	unsigned int port = LITE_PROTO_DEFAULT_PORT, ib_port = 0;
	const char *key_file = LITE_KEY_FILE;
	unsigned int want = 0, timeout = 60;
	int status = 0, c, fd, ret = 0;

	while ((c = getopt_long(argc, argv, "p:i:k:sw:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = parse_num(optarg, "port", 65535);
			break;
		case 'i':
			ib_port = parse_num(optarg, "IB port", 255);
			break;
		case 'k':
			key_file = optarg;
			break;
		case 's':
			status = 1;
			break;
		case 'w':
			want = parse_num(optarg, "node count", LITE_MAX_NODES);
			break;
		case 't':
			timeout = parse_num(optarg, "timeout", 86400);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (status ? optind != argc : optind != argc - 1)
		usage(2);
	fd = open("/dev/" LITE_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("lite-join: /dev/" LITE_DEV_NAME " (is lite.ko loaded?)");
		return 1;
	}
	if (status) {
		ret = print_status(fd, want, timeout);
	} else {
		ret = lite_join_key(argv[optind], port, ib_port, key_file);
		if (ret < 0) {
			fprintf(stderr, "lite-join: joining %s:%u with the key in %s: %s%s\n",
				argv[optind], port, key_file, strerror(-ret),
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
