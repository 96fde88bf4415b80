// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* tcp_bench: options and dispatch; see tcp.h and README.md. */
#include <signal.h>

#include "tcp.h"

static const char *const mode_names[] = {
	[TB_MODE_LAT] = "lat", [TB_MODE_RPC] = "rpc",
};
static const char *const param_names[] = {
	[TB_PARAM_NONE] = "none", [TB_PARAM_THREADS] = "threads",
};

static struct tb_opts opts;

static const struct opt_def tcp_opts[] = {
	{ "mode", 'm', "MODE", "lat or rpc (default lat)",
	  OPT_CHOICE(struct tb_opts, mode, mode_names) },
	{ "param-name", 0, "NAME", "what the param column holds: "
	  "threads or none (default: 0)",
	  OPT_CHOICE(struct tb_opts, param, param_names) },
	{ .name = NULL }
};

static void print_params(void *ctx)
{
	const struct tb_opts *o = ctx;

	if (o->server)
		return;
	bench_meta("mode", "%s", mode_names[o->mode]);
	bench_meta("param_name", "%s", param_names[o->param]);
}

static const struct bench_prog prog = {
	.name = "tcp_bench",
	.synopsis = "[OPTIONS]                  server for one session\n"
		    "[OPTIONS] -m lat|rpc PEER  client of the server at PEER",
	.notes = "Modes (a client's rows; the server prints only # comments):\n"
		 "  lat  request/reply ping-pong of size bytes each way, "
		 "one connection\n"
		 "  rpc  the same on --threads connections, one per thread: "
		 "throughput rows,\n"
		 "       or latency rows with one thread and no --duration\n"
		 "Requests carry a 4-byte length header; op is always tcp.\n"
		 "Default sizes: 8,64,512,4096,65536.\n"
		 "Exit status: 0 done, 1 run-time failure, 2 usage error.\n",
	.opts = tcp_opts,
	.params = print_params,
	.ctx = &opts,
};

static void check(struct bench_cfg *cfg, struct tb_opts *o)
{
	if (cfg->rate)
		bench_usage_error(cfg, "--rate is not supported by tcp_bench");
	if (!cfg->peer) {
		o->server = true;
		return;
	}
	if (!o->mode)
		o->mode = TB_MODE_LAT;
	if (o->mode == TB_MODE_LAT && cfg->threads > 1)
		bench_usage_error(cfg, "--mode lat uses one connection; "
				  "use --mode rpc for --threads");
	bench_default_sizes(cfg, "8,64,512,4096,65536");
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg;

	bench_parse(&cfg, &prog, argc, argv);
	check(&cfg, &opts);
	signal(SIGPIPE, SIG_IGN);
	return opts.server ? tb_serve(&cfg) : tb_client(&cfg, &opts);
}
