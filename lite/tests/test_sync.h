/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parts of test_sync share (test_sync.c says what each command
 * does and where it is): the messages the echo server acts on, the
 * helpers of test_sync.c, and the commands, which main() calls.
 */
#ifndef LITE_TESTS_TEST_SYNC_H
#define LITE_TESTS_TEST_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "lite.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define KiB			(1U << 10)
#define MiB			(1U << 20)

#define MAX_NODES		64	/* node ids are 1..63 */

#define MSG_BIG			"BIGREPLY"
#define MSG_SMALL		"SMALLBUF"
#define MSG_QUIT		"QUIT"
#define MSG_SEQ			"SEQ:"
#define MSG_SEQ_END		"SEQ-END"
#define MAGIC_LEN		8	/* of MSG_BIG and MSG_SMALL */
#define SEQ_LEN			(4 + sizeof(uint32_t))
#define SEQ_END_LEN		(7 + sizeof(uint32_t))

/* test_sync.c */
double now(void);
unsigned long long unix_ms(void);
void sleep_ms(unsigned int ms);
void *xmalloc(size_t size);
unsigned int this_node(void);
void big_pattern(uint8_t *buf);
bool is_magic(const uint8_t *msg, int len, const char *magic);

/* test_sync_server.c */
int cmd_echo_server(unsigned int port, unsigned int seconds);

/* test_sync_client.c */
int cmd_echo_client(unsigned int node, unsigned int port,
		    unsigned int nthreads);
int cmd_quit(unsigned int node, unsigned int port);

/* test_sync_atomic.c */
int cmd_fetch_add(unsigned int owner, uint64_t id, unsigned int iter);
int cmd_lock_counter(unsigned int owner, uint64_t id, unsigned int iter);
int cmd_barrier(unsigned int nr);

/* test_sync_faults.c */
int cmd_call_departed(unsigned int node, unsigned int port);
int cmd_recv_block(unsigned int port);
int cmd_silent(unsigned int port, unsigned int seconds);
int cmd_deaf(unsigned int port, unsigned int seconds);
int cmd_flood(unsigned int node, unsigned int port);
int cmd_late(unsigned int port, const char *go_file, unsigned int count);
int cmd_backlog(unsigned int node, unsigned int port, unsigned int count);
int cmd_stall(unsigned int node, unsigned int delay_ms, const char *mode);

#endif /* LITE_TESTS_TEST_SYNC_H */
