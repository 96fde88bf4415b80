/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers for ../module/wire_check.c to build in user
 * space, for the unit test and the fuzzer beside this file. Include it
 * before any lite header. The kernel's own values are x86-64 Linux 6.1's;
 * LITE_RX_BUF_SIZE is lite_priv.h's, which the Makefile passes in.
 */
#ifndef LITE_FUZZ_KSHIM_H
#define LITE_FUZZ_KSHIM_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#ifndef LITE_RX_BUF_SIZE
#error "LITE_RX_BUF_SIZE undefined: build with lite/fuzz/Makefile"
#endif

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)
#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)

#define PAGE_SHIFT	12
#define MAX_ERRNO	4095

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)	(((x) + ((__typeof__(x))(a) - 1)) & \
			 ~((__typeof__(x))(a) - 1))
#define DIV_ROUND_UP_ULL(ll, d) \
	(((unsigned long long)(ll) + (d) - 1) / (d))
/* The kernel's saturates; with a u32 count on 64 bits nothing overflows. */
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(n))

enum ib_mtu {
	IB_MTU_256	= 1,
	IB_MTU_512	= 2,
	IB_MTU_1024	= 3,
	IB_MTU_2048	= 4,
	IB_MTU_4096	= 5,
};

#endif /* LITE_FUZZ_KSHIM_H */
