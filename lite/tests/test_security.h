/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parts of test_security share (test_security.c says what each
 * command checks and where it is): the helpers of test_security_util.c
 * and the commands, which main() calls.
 */
#ifndef LITE_TESTS_TEST_SECURITY_H
#define LITE_TESTS_TEST_SECURITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "check.h"
#include "lite.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)

#define PASSWORD		4711

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* "test_security": argv[0] of the processes it spawns, its messages. */
extern const char *self_name;

/* test_security_util.c */
int neg_errno(void);
int dev_open(void);
int raw_ioctl(int fd, unsigned long request, void *arg);
int lock_destroy(unsigned int node, unsigned int lock);
void use_new_lock(unsigned int node, const char *what, const char *it);
int raw_rw(int fd, unsigned long request, uint32_t handle, uint64_t off,
	   void *buf, uint64_t size);
void fill(void *buf, size_t len, uint64_t seed);
bool expect_pattern(const uint8_t *buf, size_t len, uint64_t seed,
		    const char *fmt, ...) CHECK_FMT(4, 5);
double now_ms(void);
void sleep_us(unsigned int us);
bool read_line(void);
bool line_ready(void);
int me_or_fail(void);
pid_t fork_or_fail(void);
pid_t fork_child(void (*fn)(void *), void *arg);
pid_t spawn_self(char *const args[]);
bool expect_child(pid_t pid, const char *what);
bool round_trip(int lh, uint8_t *buf, size_t len, uint64_t seed,
		const char *what);
void zc_round_trip(int lh, size_t len, uint64_t seed, const char *name,
		   const char *what, const char *done);

/* test_security_access.c */
int cmd_open_denied(void);
int cmd_join_denied(void);
int cmd_ask_oracle(unsigned int node, uint64_t id);

/* test_security_zc.c */
int cmd_zc_fork(unsigned int node);
int cmd_zc_mremap(unsigned int node);
int cmd_zc_fdpass(unsigned int node);
int cmd_zc_fdpass_recv(int sock);
int cmd_async_fdpass(unsigned int node);
int cmd_async_fdpass_recv(int sock);

/* test_security_limits.c */
int cmd_limits(unsigned int node);
int cmd_limits_other(unsigned int node);
int cmd_limits_exempt(unsigned int node);
int cmd_calls_server(unsigned int port, unsigned int hold);
int cmd_calls(unsigned int node, unsigned int port);
int cmd_calls_other(unsigned int node, unsigned int port);
int cmd_ports(char **ports, int n);
int cmd_send(unsigned int node, unsigned int port, const char *want);

/* test_security_sync.c */
int cmd_lock_worker(unsigned int node, unsigned int lock, uint64_t id,
		    unsigned int rounds, unsigned int k);
int cmd_lock_waiter(unsigned int node, unsigned int lock);
int cmd_lock_contend(unsigned int node, unsigned int nproc,
		     unsigned int rounds);
int cmd_lock_foreign(unsigned int node, unsigned int lock);
int cmd_barrier(unsigned int nr);

/* test_security_revoke.c */
int cmd_revoke_owner(unsigned int node, uint64_t id);
int cmd_revoke_mapper(unsigned int node, uint64_t id);
int cmd_devgone(unsigned int remote);

#endif /* LITE_TESTS_TEST_SECURITY_H */
