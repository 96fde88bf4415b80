// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Helpers of both sides: memory, rdma_cm events, the path report. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs.h"

/*
 * Anonymous memory with every page written once, so registration and the
 * first transfers never count page faults. NULL when the memory is not
 * there: the server turns that into a reject the client can print.
 */
void *vb_alloc(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (off = 0; off < len; off += page)
		p[off] = 0;
	return p;
}

void vb_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* Non-blocking, so a poll()-bounded wait can never block in the read. */
struct rdma_event_channel *vb_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int flags;

	if (!ch)
		bench_die("rdma_create_event_channel: %s (no RDMA support?)",
			  strerror(errno));
	flags = fcntl(ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK))
		bench_die("rdma_cm channel: fcntl: %s", strerror(errno));
	return ch;
}

/* 1 with an event, 0 when none came within timeout_ms. */
int vb_cm_poll(struct rdma_event_channel *ch, int timeout_ms,
	       struct rdma_cm_event **ev)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0 && errno != EINTR)
		bench_die("poll on rdma_cm channel: %s", strerror(errno));
	if (n <= 0)
		return 0;
	if (rdma_get_cm_event(ch, ev)) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		bench_die("rdma_get_cm_event: %s", strerror(errno));
	}
	return 1;
}

/*
 * Acks ev, then destroys drop (if any: an id the event refused or closed)
 * and its QP; in this order, as rdma_destroy_id() waits for the acks of
 * the id's events.
 */
void vb_cm_ack_drop(struct rdma_cm_event *ev, struct rdma_cm_id *drop)
{
	rdma_ack_cm_event(ev);
	if (!drop)
		return;
	if (drop->qp)
		rdma_destroy_qp(drop);
	rdma_destroy_id(drop);
}

/* Exits when the device went away: no server goes on without it. */
enum vb_cm_kind vb_cm_kind(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return VB_CM_REQUEST;
	case RDMA_CM_EVENT_ESTABLISHED:
		return VB_CM_ESTABLISHED;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		return VB_CM_CLOSED;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		bench_die("the RDMA device went away");
	default:
		return VB_CM_OTHER;
	}
}

/* The next event, or exit naming step when deadline (ns) passes first. */
struct rdma_cm_event *vb_cm_wait(struct rdma_event_channel *ch,
				 uint64_t deadline, const char *step)
{
	struct rdma_cm_event *ev;

	for (;;) {
		uint64_t now = bench_now_ns();
		uint64_t ms;

		if (now >= deadline)
			bench_die("%s: timed out", step);
		ms = (deadline - now + 999999) / 1000000;
		if (vb_cm_poll(ch, ms > 1000 ? 1000 : (int)ms, &ev))
			return ev;
	}
}

static const char *gid_type_name(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCEv1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCEv2";
	default:
		return "unknown";
	}
}

/* An ibv_mtu in bytes; 0 for a value that is none of them. */
static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

static void report_port(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	if (!ibv_query_device(ctx, &da))
		bench_meta("device_fw", "%s", da.fw_ver);
	if (ibv_query_port(ctx, port, &pa))
		return;
	bench_meta("port", "%u", port);
	bench_meta("link_layer", "%s", pa.link_layer ==
		   IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "IB");
	bench_meta("active_mtu", "%d", mtu_bytes(pa.active_mtu));
}

/*
 * rdma_cm, not --gid-index, picks the source GID (from the IP addresses
 * and the kernel's default RoCE mode). Report the one the QP really uses,
 * and warn when its RoCE version differs from that of --gid-index: then
 * the baseline would not run over the same protocol as LITE.
 */
static void report_gid(const struct bench_cfg *cfg, struct rdma_cm_id *id)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_gid_entry used, want;
	char text[INET6_ADDRSTRLEN];
	unsigned int idx;

	if (ibv_query_qp(id->qp, &qa, IBV_QP_AV, &qia) ||
	    !qa.ah_attr.is_global) {
		bench_meta("sgid_index", "none");
		return;
	}
	idx = qa.ah_attr.grh.sgid_index;
	bench_meta("sgid_index", "%u", idx);
	if (ibv_query_gid_ex(id->verbs, id->port_num, idx, &used, 0))
		return;
	inet_ntop(AF_INET6, used.gid.raw, text, sizeof(text));
	bench_meta("sgid", "%s", text);
	bench_meta("sgid_type", "%s", gid_type_name(used.gid_type));
	if (ibv_query_gid_ex(id->verbs, id->port_num, cfg->gid_index, &want,
			     0))
		fprintf(stderr, "warning: GID index %u is empty; rdma_cm "
			"uses %u (%s)\n", cfg->gid_index, idx,
			gid_type_name(used.gid_type));
	else if (want.gid_type != used.gid_type)
		fprintf(stderr, "warning: rdma_cm uses GID index %u (%s), "
			"but --gid-index %u is %s\n", idx,
			gid_type_name(used.gid_type), cfg->gid_index,
			gid_type_name(want.gid_type));
}

void vb_set_qp_timeout(const struct bench_cfg *cfg, struct rdma_cm_id *id)
{
	uint8_t t = (uint8_t)cfg->qp_timeout;

	if (t && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
				 &t, sizeof(t)))
		bench_die("rdma_set_option(ACK timeout %u): %s", t,
			  strerror(errno));
}

void vb_report_path(const struct bench_cfg *cfg, struct rdma_cm_id *id)
{
	report_port(id->verbs, id->port_num);
	report_gid(cfg, id);
}

/* @qp's transport attributes as the device reports them, or why not. */
static void qp_attr_text(struct ibv_qp *qp, char *buf, size_t len)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int err;

	err = ibv_query_qp(qp, &a, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_PATH_MTU |
			   IBV_QP_MAX_QP_RD_ATOMIC, &ia);
	if (err)
		snprintf(buf, len, "unreadable (ibv_query_qp: %s)",
			 strerror(err));
	else
		snprintf(buf, len, "timeout=%u retry_cnt=%u rnr_retry=%u "
			 "path_mtu=%d max_rd_atomic=%u", a.timeout,
			 a.retry_cnt, a.rnr_retry, mtu_bytes(a.path_mtu),
			 a.max_rd_atomic);
}

void vb_report_qp_attrs(struct ibv_qp *const *qps, unsigned int n)
{
	char (*text)[VB_QP_ATTR_MAX] = calloc(n ? n : 1, sizeof(*text));
	unsigned int *count = calloc(n ? n : 1, sizeof(*count));
	unsigned int i, j, sets = 0;

	if (!text || !count)
		bench_die("out of memory");
	for (i = 0; i < n; i++) {
		qp_attr_text(qps[i], text[sets], sizeof(text[sets]));
		for (j = 0; j < sets && strcmp(text[j], text[sets]); j++)
			;
		count[j]++;
		if (j == sets)
			sets++;
	}
	for (j = 0; j < sets; j++)
		bench_meta("qp_attr", "%s qps=%u", text[j], count[j]);
	free(text);
	free(count);
}

uint64_t vb_param(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	switch (o->param) {
	case VB_PARAM_MR_TOTAL:
		return o->mr_total;
	case VB_PARAM_MR_COUNT:
		return o->mr_count;
	case VB_PARAM_QPS:
		return o->qps;
	case VB_PARAM_THREADS:
		return cfg->threads;
	case VB_PARAM_DEPTH:
		return o->depth;
	default:
		return 0;
	}
}
