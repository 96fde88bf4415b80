/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * check(COND) for the libFuzzer harnesses (fuzz_wire here, the manager's
 * fuzz_proto): a violated invariant says which and traps, which libFuzzer
 * reports as a crash and keeps the input for.
 */
#ifndef LITE_FUZZ_INVARIANT_H
#define LITE_FUZZ_INVARIANT_H

#include <stdio.h>

#define check(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", \
				#cond, __FILE__, __LINE__);		\
			__builtin_trap();				\
		}							\
	} while (0)

#endif /* LITE_FUZZ_INVARIANT_H */
