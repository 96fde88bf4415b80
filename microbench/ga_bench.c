// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ga_bench: Global Arrays' one-sided get and put of SIZE bytes from one MPI
 * rank to another's part of a global array, one at a time: the DSM
 * figure's GA baseline (GA 5.8 over ARMCI-MPI and OpenMPI, Debian's
 * libglobalarrays-dev, the library ../lite/apps/lite-graph-dsm's ga-graph
 * runs on). Started by mpirun, one rank per node:
 *
 *   mpirun -np 2 ... ga_bench -o get|put [-s LIST] [-n ITERS] [-w SEC]
 *			       [-r REPS] [--samples FILE]
 *
 * One global array of doubles, NGA_Create_irreg with rank r owning
 * elements [r E, (r + 1) E), E = the largest size / 8: rank 0 measures
 * against rank 1's part; rank 1 and any others wait in GA_Sync (a
 * barrier, in whose MPI progress loop they serve the one-sided
 * operations) until rank 0 is done. A sample (rank 0):
 *
 *   get   NGA_Get of SIZE bytes of rank 1's part: blocking, the data is
 *         here when it returns
 *   put   GA_Init_fence, NGA_Put of SIZE bytes into rank 1's part,
 *         GA_Fence: the put complete at rank 1 (NGA_Put alone only
 *         promises that the local buffer may be reused; GA_Fence, or
 *         GA_Sync, that the data arrived), as a LITE write or a DSM
 *         release completes
 *
 * Sizes are multiples of 8 (doubles). Output as the other microbench
 * programs' (README.md): provenance comments and latency rows
 * ga_lat,get|put,SIZE,0,REP,..., from rank 0 only; --samples on rank 0
 * only (the option is taken out of the other ranks' command lines, so
 * that two ranks on one host never write one file).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <ga.h>

#include "common.h"

enum { OP_GET, OP_PUT };
static const char *const op_names[] = { "get", "put" };

struct ga_cfg {
	int op;
};

static struct ga_cfg gc;

static const struct opt_def ga_opts[] = {
	{ "op", 'o', "OP", "get or put (default get)",
	  OPT_CHOICE(struct ga_cfg, op, op_names) },
	{ .name = NULL }
};

static int me, np;

static void ga_params(void *ctx)
{
	struct ga_cfg *c = ctx;

	bench_meta("op", "%s", op_names[c->op]);
	bench_meta("ranks", "%d", np);
	bench_meta("target_rank", "1");
	bench_meta("ga_put_completion", "GA_Init_fence, NGA_Put, GA_Fence");
}

static const struct bench_prog ga_prog = {
	.name = "ga_bench",
	.synopsis = "-o get|put [OPTIONS]   (under mpirun, 2 ranks or more)",
	.notes = "Rank 0 gets from or puts to rank 1's part of a global array,\n"
		 "one operation at a time; the other ranks wait. put: GA_Fence\n"
		 "after each NGA_Put. Sizes: multiples of 8 (default 4096).\n"
		 "Exit status: 0 done, 1 run-time failure, 2 usage error.\n",
	.opts = ga_opts,
	.params = ga_params,
	.ctx = &gc,
};

/* argv without --samples FILE (or --samples=FILE): the other ranks'. */
static void drop_samples(int *argc, char **argv)
{
	int i, j = 1;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[j++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--samples") && i + 1 < *argc) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--samples=", 10))
			continue;
		argv[j++] = argv[i];
	}
	argv[j] = NULL;
	*argc = j;
}

static void one_op(int g, int lo, int hi, double *buf)
{
	int l[1] = { lo }, h[1] = { hi }, ld[1] = { 0 };

	if (gc.op == OP_GET) {
		NGA_Get(g, l, h, buf, ld);
	} else {
		GA_Init_fence();
		NGA_Put(g, l, h, buf, ld);
		GA_Fence();
	}
}

static void measure(const struct bench_cfg *cfg, int g, int elems)
{
	uint64_t max = bench_max_size(cfg), *ns, t, end, i;
	unsigned int s, rep;
	double *buf;
	int lo, hi;

	buf = malloc(max);
	ns = calloc(cfg->iters, sizeof(*ns));
	if (!buf || !ns)
		bench_die("out of memory");
	memset(buf, 0xa5, max);
	bench_header(BENCH_LAT);
	for (s = 0; s < cfg->nsizes; s++) {
		lo = elems;	/* rank 1's part starts there */
		hi = elems + (int)(cfg->sizes[s] / sizeof(double)) - 1;
		for (rep = 0; rep < cfg->reps; rep++) {
			struct bench_point pt = {
				"ga_lat", op_names[gc.op], cfg->sizes[s], 0, rep + 1,
			};

			end = bench_now_ns() + bench_sec_ns(cfg->warmup);
			while (bench_now_ns() < end)
				one_op(g, lo, hi, buf);
			for (i = 0; i < cfg->iters; i++) {
				t = bench_now_ns();
				one_op(g, lo, hi, buf);
				ns[i] = bench_now_ns() - t;
			}
			bench_lat_row(&pt, ns, cfg->iters);
		}
	}
	free(ns);
	free(buf);
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg;
	int dims[1], block[1], *map, g, elems, r;
	unsigned int s;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (me)
		drop_samples(&argc, argv);
	bench_parse(&cfg, &ga_prog, argc, argv);
	if (cfg.peer)
		bench_usage_error(&cfg, "no operand: mpirun starts the ranks");
	if (cfg.duration_given || cfg.rate || cfg.threads > 1)
		bench_usage_error(&cfg, "--duration, --rate and --threads are not ga_bench's");
	bench_default_sizes(&cfg, "4096");
	for (s = 0; s < cfg.nsizes; s++)
		if (cfg.sizes[s] % sizeof(double) || cfg.sizes[s] > (1U << 30))
			bench_usage_error(&cfg, "sizes are multiples of 8 up to 1G");
	if (np < 2) {
		if (!me)
			fprintf(stderr, "ga_bench: needs 2 MPI ranks or more (mpirun -np 2), not %d\n", np);
		MPI_Finalize();
		return 2;
	}

	GA_Initialize();
	elems = (int)(bench_max_size(&cfg) / sizeof(double));
	map = calloc(np, sizeof(*map));
	if (!map)
		bench_die("out of memory");
	for (r = 0; r < np; r++)
		map[r] = r * elems;
	dims[0] = np * elems;
	block[0] = np;
	g = NGA_Create_irreg(C_DBL, 1, dims, "ga_bench", block, map);
	free(map);
	if (!g)
		bench_die("NGA_Create_irreg of %d doubles failed", dims[0]);
	GA_Zero(g);
	GA_Sync();

	if (!me) {
		bench_begin(&cfg, "client", "ga");
		measure(&cfg, g, elems);
		fflush(stdout);
	}
	GA_Sync();
	GA_Destroy(g);
	GA_Terminate();
	MPI_Finalize();
	return 0;
}
