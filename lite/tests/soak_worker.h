/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parts of soak_worker share (soak_worker.c says what it does
 * and where each part is): the layout of the LMRs on the stable node,
 * the kinds of call, and the log and watched calls of
 * soak_worker_util.c.
 */
#ifndef LITE_TESTS_SOAK_WORKER_H
#define LITE_TESTS_SOAK_WORKER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "lite.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define SOAK_HOME		1	/* the stable node */
#define SOAK_MAX_NODES		16	/* node ids 1 .. 15 */
#define SOAK_PORT		60
#define SOAK_MAX_MSG		1024
#define SOAK_PASSWORD		5353
#define SOAK_ID_DATA		0x534f414b00000001ULL
#define SOAK_ID_CTR		0x534f414b00000002ULL
#define SOAK_ID_PEER		0x534f414b00000003ULL
#define SOAK_MAGIC		0x534f414b4c495445ULL	/* "SOAKLITE" */
#define SOAK_ECHO_MAGIC		0x4f484345U	/* "ECHO" */

#define SLOT_SIZE		64
#define SLOTS			256	/* per node in the data LMR */
#define DATA_SIZE		(SOAK_MAX_NODES * SLOTS * SLOT_SIZE)

/* Counter LMR: magic, lock number, count, then tag[v] for v = 1 .. */
#define CTR_LOCK_OFF		8
#define CTR_COUNT_OFF		16
#define CTR_TAG_OFF(v)		(64 + 8 * (uint64_t)(v))
#define CTR_MAX			65535
#define CTR_SIZE		CTR_TAG_OFF(CTR_MAX + 1)

#define PEER_REGION		4096	/* per writer node in a peer LMR */
#define PEER_SIZE		(SOAK_MAX_NODES * PEER_REGION)

#define HOME_SERVERS		2
#define RETRY_MS		5000	/* leave a node alone after an error */
#define SETUP_TIMEOUT_S		120
#define DEFAULT_BOUND_S		30
#define EXIT_LEFT		3

enum kind {
	K_WRITE, K_READ, K_PWRITE, K_PREAD, K_RPC, K_LOCK, K_CREAD, K_CWRITE,
	K_UNLOCK, K_ASK, NR_KINDS
};

extern const char *const kind_name[NR_KINDS];

/* soak_worker_util.c */
unsigned int bound_ms(enum kind k, unsigned int bound_s);
uint64_t now_ms(void);
void die(const char *fmt, ...) CHECK_FMT(1, 2);
extern int log_fd;
void logf_(const char *fmt, ...) CHECK_FMT(1, 2);
extern unsigned int bound_s;
extern volatile sig_atomic_t stopping;
void op_begin(enum kind k);
int op_end(int ret);
void *watchdog(void *arg);
void signals_setup(void);
void start_thread(void *(*fn)(void *), void *arg);
void alarm_unblock(void);
void *echo_server(void *arg);
void slot_fill(uint8_t *buf, unsigned int node, uint64_t seq);
int64_t slot_decode(const uint8_t *buf, unsigned int node);
uint64_t data_off(unsigned int node, uint64_t seq);

/* soak_worker_run.c */
int run(unsigned int nodes, const char *log, int argc, char **argv);

/* soak_worker_verify.c */
int verify(unsigned int nodes, int argc, char **argv);

#endif /* LITE_TESTS_SOAK_WORKER_H */
