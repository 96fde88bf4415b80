// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * -m ctrl: the control path, from a process's start to its first completed
 * RDMA write to each of PEERS (comma-separated addresses), every step
 * timed (steps.h). The client is a fresh process that has never talked to
 * any peer; each peer runs a long-lived server (-m ctrl without PEERS)
 * that already has its memory registered and accepts any number of
 * connections, answering each with that memory's address and rkey in the
 * accept's private data.
 *
 * Client steps: args (options, addresses), devices (ibv_get_device_list:
 * the sysfs scan, and libibverbs loads every provider library it knows
 * of), open (the rdma_cm channel and rdma_get_devices(), which opens the
 * devices; rdma_cm's cm_ids use these contexts, so a PD from them fits
 * its QPs),
 * pd, cq (one for every peer), mr (the source buffer); then per peer:
 * resolve (rdma_resolve_addr and rdma_resolve_route), qp
 * (rdma_create_qp), connect (rdma_connect to ESTABLISHED, the server's
 * region in its private data), write (one signalled RDMA write of --size
 * bytes, posted and polled to its completion). rdma_cm binds a cm_id to a
 * device only once its address is resolved, so the QP comes after that.
 * Both sides' QPs take --qp-timeout (rdma_cm's ACK timeout, set before
 * the connect or accept) and --qp-retry, as the other modes' do; the
 * client prints every QP's attributes as the device reports them once
 * all are connected, the server its first connection's (# qp_attr=).
 *
 * Wire (big-endian): client private data "MBC1"; accept private data
 * "MBC1", addr 8, len 8, rkey 4.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps.h"
#include "verbs.h"

#define CTRL_MAGIC	0x4d424331	/* "MBC1" */
#define CTRL_REP_LEN	24
#define CTRL_MAX_PEERS	64
#define RESOLVE_MS	5000

struct ctrl_peer {
	const char *name;
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;
	struct vb_region remote;
};

static struct ibv_context *pick_device(const struct bench_cfg *cfg)
{
	struct ibv_context **devs, *ctx = NULL;
	int n, i;

	devs = rdma_get_devices(&n);
	if (!devs)
		bench_die("rdma_get_devices: %s", strerror(errno));
	for (i = 0; i < n && !ctx; i++)
		if (!cfg->dev ||
		    !strcmp(ibv_get_device_name(devs[i]->device), cfg->dev))
			ctx = devs[i];
	rdma_free_devices(devs);
	if (!ctx)
		bench_die(cfg->dev ? "no RDMA device %s" : "no RDMA device%s",
			  cfg->dev ? cfg->dev : "");
	return ctx;
}

/* What rdma_get_devices() would do first, timed apart. */
static void list_devices(void)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list)
		bench_die("ibv_get_device_list: %s", strerror(errno));
	ibv_free_device_list(list);
	if (!n)
		bench_die("no RDMA device");
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* ---- client ----------------------------------------------------------- */

static unsigned int split_peers(const struct bench_cfg *cfg,
				struct ctrl_peer *peers)
{
	char *list = strdup(cfg->peer), *save = NULL, *tok;
	unsigned int n = 0;

	if (!list)
		bench_die("out of memory");
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == CTRL_MAX_PEERS)
			bench_usage_error(cfg, "at most %d peers",
					  CTRL_MAX_PEERS);
		peers[n++].name = tok;	/* list lives until exit */
	}
	if (!n)
		bench_usage_error(cfg, "PEERS: no address");
	return n;
}

static void expect(struct rdma_event_channel *ch, const struct ctrl_peer *p,
		   enum rdma_cm_event_type want, const char *step)
{
	uint64_t deadline = bench_now_ns() + VB_WAIT_NS;
	struct rdma_cm_event *ev = vb_cm_wait(ch, deadline, step);
	enum rdma_cm_event_type got = ev->event;
	int status = ev->status;
	bool ours = ev->id == p->id;

	rdma_ack_cm_event(ev);
	if (!ours)
		bench_die("%s %s: %s on another connection", step, p->name,
			  rdma_event_str(got));
	if (got != want)
		bench_die("%s %s: %s (status %d%s%s)", step, p->name,
			  rdma_event_str(got), status, status < 0 ? ": " : "",
			  status < 0 ? strerror(-status) : "");
}

static void resolve(struct rdma_event_channel *ch, struct ibv_context *ctx,
		    struct ctrl_peer *p)
{
	if (rdma_create_id(ch, &p->id, p, RDMA_PS_TCP))
		bench_die("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(p->id, NULL, (struct sockaddr *)&p->dst,
			      RESOLVE_MS))
		bench_die("rdma_resolve_addr(%s): %s", p->name,
			  strerror(errno));
	expect(ch, p, RDMA_CM_EVENT_ADDR_RESOLVED, "resolving the address of");
	if (p->id->verbs != ctx)
		bench_die("rdma_cm reaches %s through %s, not %s", p->name,
			  ibv_get_device_name(p->id->verbs->device),
			  ibv_get_device_name(ctx->device));
	if (rdma_resolve_route(p->id, RESOLVE_MS))
		bench_die("rdma_resolve_route(%s): %s", p->name,
			  strerror(errno));
	expect(ch, p, RDMA_CM_EVENT_ROUTE_RESOLVED, "resolving the route to");
}

static void make_qp(struct ibv_pd *pd, struct ibv_cq *cq, struct ctrl_peer *p)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	if (rdma_create_qp(p->id, pd, &a))
		bench_die("rdma_create_qp for %s: %s", p->name,
			  strerror(errno));
}

/* rdma_connect, then ESTABLISHED with the server's region attached. */
static void connect_peer(const struct bench_cfg *cfg,
			 struct rdma_event_channel *ch, struct ctrl_peer *p,
			 uint64_t size)
{
	uint8_t hello[4];
	struct rdma_conn_param cp = {
		.private_data = hello,
		.private_data_len = sizeof(hello),
		.retry_count = (uint8_t)cfg->qp_retry,
		.rnr_retry_count = 7,
	};
	uint64_t deadline = bench_now_ns() + VB_WAIT_NS;
	const struct rdma_conn_param *r;
	struct rdma_cm_event *ev;
	char why[VB_REJECT_MAX] = "";
	enum rdma_cm_event_type got;
	const uint8_t *d;
	bool ok = false;
	int status;

	put_be32(hello, CTRL_MAGIC);
	vb_set_qp_timeout(cfg, p->id);
	if (rdma_connect(p->id, &cp))
		bench_die("rdma_connect(%s): %s", p->name, strerror(errno));
	ev = vb_cm_wait(ch, deadline, "connecting");
	got = ev->event;
	status = ev->status;
	r = &ev->param.conn;
	d = r->private_data;
	if (ev->id != p->id) {
		rdma_ack_cm_event(ev);
		bench_die("connecting %s: %s on another connection", p->name,
			  rdma_event_str(got));
	}
	if (got == RDMA_CM_EVENT_ESTABLISHED && d &&
	    r->private_data_len >= CTRL_REP_LEN && get_be32(d) == CTRL_MAGIC) {
		p->remote.addr = get_be64(d + 4);
		p->remote.len = get_be64(d + 12);
		p->remote.rkey = get_be32(d + 20);
		ok = true;
	} else if (got == RDMA_CM_EVENT_REJECTED) {
		vb_reject_decode(d, r->private_data_len, why, sizeof(why));
	}
	rdma_ack_cm_event(ev);
	if (got == RDMA_CM_EVENT_ESTABLISHED && !ok)
		bench_die("connecting %s: no region in the accept (not a "
			  "verbs_bench -m ctrl server?)", p->name);
	if (!ok)
		bench_die("connecting %s port: %s (status %d)%s%s", p->name,
			  rdma_event_str(got), status, *why ? ": " : "", why);
	if (p->remote.len < size)
		bench_die("%s: its region holds %" PRIu64 " bytes, not %" PRIu64,
			  p->name, p->remote.len, size);
}

static void first_write(struct ibv_cq *cq, struct ibv_mr *mr,
			struct ctrl_peer *p, unsigned int index, uint64_t size)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = (uint32_t)size,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = index,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = p->remote.addr,
			     .rkey = p->remote.rkey },
	}, *bad;
	struct vb_watch w;
	struct ibv_wc wc;
	int n, err;

	err = ibv_post_send(p->id->qp, &wr, &bad);
	if (err)
		bench_die("%s: ibv_post_send: %s", p->name, strerror(err));
	vb_watch_start(&w, "waiting for the first write's completion");
	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		vb_watch_idle(&w);
	if (n < 0)
		bench_die("%s: ibv_poll_cq failed", p->name);
	if (wc.wr_id != index)
		bench_die("%s: completion of another peer's write", p->name);
	vb_wc_check(&wc, "first write");
}

int vb_ctrl(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	static struct ctrl_peer peers[CTRL_MAX_PEERS];
	struct ibv_qp *qps[CTRL_MAX_PEERS];
	uint64_t size = cfg->sizes[0];
	struct rdma_event_channel *ch;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned int n, i;
	void *buf;

	n = split_peers(cfg, peers);
	for (i = 0; i < n; i++)
		bench_resolve(peers[i].name, cfg->port, &peers[i].dst);
	bench_steps_mark("args", 0);

	list_devices();
	bench_steps_mark("devices", 0);
	ch = vb_channel();
	ctx = pick_device(cfg);
	bench_steps_mark("open", 0);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		bench_die("ibv_alloc_pd: %s", strerror(errno));
	bench_steps_mark("pd", 0);
	cq = ibv_create_cq(ctx, (int)n + 1, NULL, NULL, 0);
	if (!cq)
		bench_die("ibv_create_cq(%u): %s", n + 1, strerror(errno));
	bench_steps_mark("cq", 0);
	buf = vb_alloc(size);
	if (!buf)
		bench_die("cannot allocate %" PRIu64 " bytes", size);
	mr = ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		bench_die("ibv_reg_mr(%" PRIu64 " bytes): %s", size,
			  strerror(errno));
	bench_steps_mark("mr", 0);

	for (i = 0; i < n; i++) {
		resolve(ch, ctx, &peers[i]);
		bench_steps_mark("resolve", i + 1);
		make_qp(pd, cq, &peers[i]);
		bench_steps_mark("qp", i + 1);
		connect_peer(cfg, ch, &peers[i], size);
		bench_steps_mark("connect", i + 1);
		first_write(cq, mr, &peers[i], i, size);
		bench_steps_mark("write", i + 1);
	}

	bench_begin(cfg, "client", ibv_get_device_name(ctx->device));
	vb_report_path(cfg, peers[0].id);
	for (i = 0; i < n; i++)
		qps[i] = peers[i].id->qp;
	vb_report_qp_attrs(qps, n);
	bench_meta("peers", "%u", n);
	bench_steps_print("verbs_ctrl", n, o->rep);

	/*
	 * Not timed. A failed disconnect leaves nothing to undo (the peer is
	 * gone already); destroying the id would disconnect it anyway.
	 */
	for (i = 0; i < n; i++) {
		if (rdma_disconnect(peers[i].id))
			fprintf(stderr, "verbs_bench: rdma_disconnect(%s): %s\n",
				peers[i].name, strerror(errno));
		rdma_destroy_qp(peers[i].id);
		if (rdma_destroy_id(peers[i].id))
			bench_die("rdma_destroy_id: %s", strerror(errno));
	}
	if (ibv_dereg_mr(mr) || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd))
		bench_die("releasing the MR, CQ or PD failed");
	vb_free(buf, size);
	rdma_destroy_event_channel(ch);
	return 0;
}

/* ---- server ------------------------------------------------------------ */

static volatile sig_atomic_t ctrl_stop;

static void on_signal(int sig)
{
	(void)sig;
	ctrl_stop = 1;
}

struct ctrl_server {
	const struct bench_cfg *cfg;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	void *buf;
	uint64_t len;
	uint64_t requests, accepted, established, closed, refused;
};

static void refuse(struct ctrl_server *s, struct rdma_cm_id *id,
		   const char *why)
{
	uint8_t buf[4 + VB_REJECT_MAX];
	size_t len = vb_reject_encode(why, buf);

	fprintf(stderr, "verbs_bench: refusing a connection: %s\n", why);
	if (rdma_reject(id, buf, (uint8_t)len))
		fprintf(stderr, "verbs_bench: rdma_reject: %s\n",
			strerror(errno));
	s->refused++;
}

/* true: the id is ours now (accepted); false: destroy it after the ack. */
static bool on_request(struct ctrl_server *s, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *req = &ev->param.conn;
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = {
			.max_send_wr = 1, .max_recv_wr = 1,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	uint8_t rep[CTRL_REP_LEN];
	struct rdma_conn_param p = {
		.private_data = rep,
		.private_data_len = sizeof(rep),
		.responder_resources = vb_min_u8(req->initiator_depth,
						 s->attr.max_qp_rd_atom),
		.initiator_depth = vb_min_u8(req->responder_resources,
					     s->attr.max_qp_init_rd_atom),
		.retry_count = (uint8_t)s->cfg->qp_retry,
		.rnr_retry_count = 7,
	};
	struct rdma_cm_id *id = ev->id;

	s->requests++;
	if (!req->private_data || req->private_data_len < 4 ||
	    get_be32(req->private_data) != CTRL_MAGIC) {
		refuse(s, id, "not a verbs_bench -m ctrl client");
		return false;
	}
	if (id->verbs != s->ctx) {
		refuse(s, id, "request came in on another device");
		return false;
	}
	if (rdma_create_qp(id, s->pd, &a)) {
		fprintf(stderr, "verbs_bench: rdma_create_qp: %s\n",
			strerror(errno));
		refuse(s, id, "server: rdma_create_qp failed");
		return false;
	}
	put_be32(rep, CTRL_MAGIC);
	put_be64(rep + 4, (uintptr_t)s->buf);
	put_be64(rep + 12, s->len);
	put_be32(rep + 20, s->mr->rkey);
	vb_set_qp_timeout(s->cfg, id);
	if (rdma_accept(id, &p)) {
		fprintf(stderr, "verbs_bench: rdma_accept: %s\n",
			strerror(errno));
		rdma_destroy_qp(id);
		return false;
	}
	s->accepted++;
	return true;
}

static void on_event(struct ctrl_server *s, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *drop = NULL;

	switch (vb_cm_kind(ev)) {
	case VB_CM_REQUEST:
		if (!on_request(s, ev))
			drop = ev->id;
		break;
	case VB_CM_ESTABLISHED:
		/* The first connection: what the server's QPs run with. */
		if (!s->established++ && ev->id->qp)
			vb_report_qp_attrs(&ev->id->qp, 1);
		break;
	case VB_CM_CLOSED:
		if (ev->event != RDMA_CM_EVENT_DISCONNECTED)
			fprintf(stderr, "verbs_bench: %s\n",
				rdma_event_str(ev->event));
		s->closed++;
		drop = ev->id;
		break;
	default:
		break;
	}
	vb_cm_ack_drop(ev, drop);
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		bench_die("sigaction: %s", strerror(errno));
}

/*
 * Serves until SIGTERM, SIGINT or SIGHUP, or --session-timeout; then
 * prints how many connections it took and exits 0.
 */
int vb_ctrl_serve(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	struct ctrl_server s = { .cfg = cfg };
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)cfg->port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	uint64_t t0 = bench_now_ns(), end;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct rdma_cm_event *ev;

	(void)o;
	catch_signals();
	s.len = bench_max_size(cfg);
	ch = vb_channel();
	s.ctx = pick_device(cfg);
	if (ibv_query_device(s.ctx, &s.attr))
		bench_die("ibv_query_device failed");
	s.pd = ibv_alloc_pd(s.ctx);
	if (!s.pd)
		bench_die("ibv_alloc_pd: %s", strerror(errno));
	s.cq = ibv_create_cq(s.ctx, 64, NULL, NULL, 0);
	if (!s.cq)
		bench_die("ibv_create_cq: %s", strerror(errno));
	s.buf = vb_alloc(s.len);
	if (!s.buf)
		bench_die("cannot allocate %" PRIu64 " bytes", s.len);
	s.mr = ibv_reg_mr(s.pd, s.buf, s.len, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s.mr)
		bench_die("ibv_reg_mr(%" PRIu64 " bytes): %s", s.len,
			  strerror(errno));
	if (rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP))
		bench_die("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(listen, (struct sockaddr *)&sin))
		bench_die("rdma_bind_addr(port %u): %s", cfg->port,
			  strerror(errno));
	if (rdma_listen(listen, 64))
		bench_die("rdma_listen: %s", strerror(errno));
	bench_begin(cfg, "server", ibv_get_device_name(s.ctx->device));
	bench_meta("mode", "ctrl");
	bench_meta("region_bytes", "%" PRIu64, s.len);
	fflush(stdout);
	fprintf(stderr, "verbs_bench: listening on port %u\n", cfg->port);

	end = t0 + bench_sec_ns(cfg->session_timeout);
	while (!ctrl_stop && bench_now_ns() < end) {
		if (vb_cm_poll(ch, 100, &ev))
			on_event(&s, ev);
	}
	bench_meta("server_seconds", "%.3f", (bench_now_ns() - t0) / 1e9);
	bench_meta("server_requests", "%" PRIu64, s.requests);
	bench_meta("server_accepted", "%" PRIu64, s.accepted);
	bench_meta("server_established", "%" PRIu64, s.established);
	bench_meta("server_closed", "%" PRIu64, s.closed);
	bench_meta("server_refused", "%" PRIu64, s.refused);
	/* Connections still open go with the process. */
	rdma_destroy_id(listen);
	if (ibv_dereg_mr(s.mr))
		bench_die("ibv_dereg_mr failed");
	vb_free(s.buf, s.len);
	return 0;
}
