// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* verbs_bench: options and dispatch; see verbs.h and README.md. */
#include <inttypes.h>
#include <stdio.h>

#include "steps.h"
#include "verbs.h"

const char *const vb_mode_names[] = {
	[VB_MODE_LAT] = "lat", [VB_MODE_TPUT] = "tput",
	[VB_MODE_RPC] = "rpc", [VB_MODE_REG] = "reg", [VB_MODE_CTRL] = "ctrl",
};

const char *const vb_op_names[] = {
	[VB_OP_WRITE] = "write", [VB_OP_READ] = "read",
	[VB_OP_WRITEIMM] = "writeimm", [VB_OP_SENDRECV] = "sendrecv",
};

static const char *const param_names[] = {
	[VB_PARAM_NONE] = "none", [VB_PARAM_MR_TOTAL] = "mr-total",
	[VB_PARAM_MR_COUNT] = "mr-count", [VB_PARAM_QPS] = "qps",
	[VB_PARAM_THREADS] = "threads", [VB_PARAM_DEPTH] = "depth",
};

static const char *const wait_names[] = { "busy", "event" };

/* Where verbs_opts' values go. */
#define VB	struct vb_opts

static const struct opt_def verbs_opts[] = {
	{ "mode", 'm', "MODE", "lat, tput, rpc, reg or ctrl (default lat)",
	  OPT_CHOICE(VB, mode, vb_mode_names) },
	{ "op", 'o', "OP", "lat, tput: write (default) or read; "
	  "rpc: writeimm (default) or sendrecv",
	  OPT_CHOICE(VB, op, vb_op_names) },
	{ "mr-total", 0, "BYTES", "tput: server memory targeted, "
	  "K/M/G suffixes (default 64M)",
	  OPT_BYTES(VB, mr_total, 64, 1ULL << 40) },
	{ "mr-count", 0, "N", "tput: MRs that memory is split "
	  "into, each registered alone (default 1)",
	  OPT_U64(VB, mr_count, 1, VB_MAX_MRS) },
	{ "qps", 'q', "N", "tput: QPs, one connection each, spread over the "
	  "threads (default: --threads)", OPT_UINT(VB, qps, 1, VB_MAX_QPS) },
	{ "depth", 0, "N", "tput: operations in flight per QP; rpc: "
	  "server ring slots per QP (default 16)",
	  OPT_UINT(VB, depth, 1, VB_MAX_DEPTH) },
	{ "inline", 0, "BYTES", "post writes and sends of up to "
	  "BYTES inline (default 0: never)",
	  OPT_UINT(VB, inline_max, 0, VB_MAX_INLINE) },
	{ "param-name", 0, "NAME", "what the param column holds: "
	  "mr-total, mr-count, qps, threads, depth or none (default: 0)",
	  OPT_CHOICE(VB, param, param_names) },
	{ "rep", 0, "N", "ctrl: the number in the rep column "
	  "(default 1)", OPT_UINT(VB, rep, 0, 1000000) },
	{ "server-wait", 0, "HOW", "rpc server: busy (poll the "
	  "CQ without pause, the default) or event (sleep on the CQ's "
	  "completion channel until a request comes)",
	  OPT_CHOICE(VB, server_event, wait_names) },
	{ "client-wait", 0, "HOW", "lat, rpc client: busy (poll the "
	  "CQ without pause, the default) or event (arm the CQ, poll once "
	  "more, sleep on its completion channel until the completion or "
	  "reply comes)", OPT_CHOICE(VB, client_event, wait_names) },
	{ .name = NULL }
};

static const char synopsis[] =
	"[OPTIONS]                      server for one session\n"
	"[OPTIONS] -m lat|tput|rpc PEER client of the server at PEER\n"
	"[OPTIONS] -m reg               registration cost, no peer\n"
	"[OPTIONS] -m ctrl [PEER,...]   control path: server, or client";

static const char notes[] =
	"Modes (a client's rows; the server prints only # comments):\n"
	"  lat   completion time of one signalled RDMA write/read, one at a "
	"time\n"
	"  tput  signalled writes/reads at random 64-byte-aligned offsets of\n"
	"        --mr-count MRs totalling --mr-total, --depth in flight per "
	"QP\n"
	"  rpc   request/reply of size bytes each way: write-with-imm or "
	"send/recv;\n"
	"        latency rows, or throughput rows with --threads > 1 or "
	"--duration\n"
	"  reg   ibv_reg_mr and ibv_dereg_mr of each size, samples = --reps\n"
	"  ctrl  a fresh process's steps to its first write to each PEER (one\n"
	"        size; rows of steps.h); without PEER a server that accepts\n"
	"        connections until SIGTERM (its region: the largest size)\n"
	"Default sizes: lat, rpc 8,64,512,4096,65536; tput 4096; reg "
	"4K,64K,1M,16M.\n"
	"The server takes every setting from the client; run it with no "
	"peer.\n"
	"Exit status: 0 done, 1 run-time failure, 2 usage error.\n";

static struct vb_opts opts = {
	.mr_total = 64ULL << 20,
	.mr_count = 1,
	.depth = 16,
	.rep = 1,
};

static void print_params(void *ctx)
{
	const struct vb_opts *o = ctx;

	/* A server's settings are the client's: it prints them as session_*. */
	if (o->server)
		return;
	bench_meta("mode", "%s", vb_mode_names[o->mode]);
	if (o->op)
		bench_meta("op", "%s", vb_op_names[o->op]);
	bench_meta("qps", "%u", o->qps);
	bench_meta("depth", "%u", o->depth);
	bench_meta("inline", "%u", o->inline_max);
	bench_meta("mr_total", "%" PRIu64, o->mr_total);
	bench_meta("mr_count", "%" PRIu64, o->mr_count);
	bench_meta("param_name", "%s", param_names[o->param]);
	if (o->mode == VB_MODE_LAT || o->mode == VB_MODE_RPC)
		bench_meta("client_wait", "%s", wait_names[o->client_event]);
	if (o->mode == VB_MODE_CTRL)
		bench_meta("rep", "%u", o->rep);
}

static const struct bench_prog prog = {
	.name = "verbs_bench",
	.synopsis = synopsis,
	.notes = notes,
	.flags = BENCH_OPT_RDMA,
	.opts = verbs_opts,
	.params = print_params,
	.ctx = &opts,
};

static void check_op(const struct bench_cfg *cfg, struct vb_opts *o)
{
	bool rpc = o->mode == VB_MODE_RPC;

	if (!o->op)
		o->op = rpc ? VB_OP_WRITEIMM : VB_OP_WRITE;
	if (rpc != (o->op == VB_OP_WRITEIMM || o->op == VB_OP_SENDRECV))
		bench_usage_error(cfg, "--op %s does not go with --mode %s",
				  vb_op_names[o->op], vb_mode_names[o->mode]);
}

static void check_qps(const struct bench_cfg *cfg, struct vb_opts *o)
{
	unsigned int want = o->qps ? o->qps : cfg->threads;

	if (o->mode == VB_MODE_LAT && (cfg->threads > 1 || want > 1))
		bench_usage_error(cfg, "--mode lat runs one thread on one QP");
	if (o->mode == VB_MODE_TPUT && want < cfg->threads)
		bench_usage_error(cfg, "--qps must be at least --threads");
	if (o->mode == VB_MODE_RPC && want != cfg->threads)
		bench_usage_error(cfg, "--mode rpc uses one QP per thread");
	o->qps = want;
}

static void check_mrs(const struct bench_cfg *cfg, const struct vb_opts *o)
{
	if (o->mode != VB_MODE_TPUT)
		return;
	if (o->mr_total % o->mr_count)
		bench_usage_error(cfg, "--mr-total must split evenly into "
				  "--mr-count MRs");
	if (o->mr_total / o->mr_count < bench_max_size(cfg))
		bench_usage_error(cfg, "each MR must hold the largest size");
}

static void check_ctrl(struct bench_cfg *cfg, struct vb_opts *o)
{
	if (o->op)
		bench_usage_error(cfg, "--mode ctrl takes no --op");
	bench_steps_sizes(cfg);
	o->server = !cfg->peer;
	o->op = VB_OP_WRITE;
	o->qps = 1;
}

/* Usage errors exit 2 here, before anything is set up. */
static void check(struct bench_cfg *cfg, struct vb_opts *o)
{
	if (o->client_event && o->mode && o->mode != VB_MODE_LAT &&
	    o->mode != VB_MODE_RPC)
		bench_usage_error(cfg, "--client-wait is for --mode lat "
				  "and rpc");
	if (o->mode == VB_MODE_CTRL) {
		check_ctrl(cfg, o);
		return;
	}
	if (o->mode == VB_MODE_REG) {
		if (cfg->peer)
			bench_usage_error(cfg, "--mode reg takes no peer");
		if (o->op)
			bench_usage_error(cfg, "--mode reg takes no --op");
		bench_default_sizes(cfg, "4K,64K,1M,16M");
		o->qps = 1;
		return;
	}
	if (!cfg->peer) {
		if (cfg->rate)
			bench_usage_error(cfg, "--rate is a client option");
		if (o->client_event)
			bench_usage_error(cfg, "--client-wait is a client "
					  "option");
		o->server = true;
		return;
	}
	if (o->server_event)
		bench_usage_error(cfg, "--server-wait is a server option");
	if (!o->mode)
		o->mode = VB_MODE_LAT;
	check_op(cfg, o);
	bench_default_sizes(cfg, o->mode == VB_MODE_TPUT ? "4096" :
			    "8,64,512,4096,65536");
	check_qps(cfg, o);
	check_mrs(cfg, o);
	if (cfg->rate && (o->mode != VB_MODE_RPC ||
			  (cfg->threads == 1 && !cfg->duration_given)))
		bench_usage_error(cfg, "--rate paces rpc throughput runs "
				  "(--mode rpc with --duration or --threads)");
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg;

	/* First: -m ctrl times everything from here (steps.h). */
	bench_steps_start();
	bench_parse(&cfg, &prog, argc, argv);
	check(&cfg, &opts);
	if (opts.mode == VB_MODE_CTRL)
		return opts.server ? vb_ctrl_serve(&cfg, &opts) :
		       vb_ctrl(&cfg, &opts);
	if (opts.server)
		return vb_serve(&cfg, &opts);
	switch (opts.mode) {
	case VB_MODE_REG:
		return vb_reg(&cfg, &opts);
	case VB_MODE_TPUT:
		return vb_tput(&cfg, &opts);
	case VB_MODE_RPC:
		return vb_rpc(&cfg, &opts);
	default:
		return vb_lat(&cfg, &opts);
	}
}
