/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a user without CAP_PERFMON brings to a session (Documentation/kernel.md, "Recording without
 * privileges"): whether the caller has the capabilities at all, perf's consent to kernel stacks,
 * and the locked memory its rings may take.
 */
#ifndef LFR_CLI_PRIVILEGES_H
#define LFR_CLI_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether the process has CAP_PERFMON or CAP_SYS_ADMIN in its effective set, in the initial user
 * namespace (those of a container's namespace are none to the module).
 */
bool cli_privileged(void);

/*
 * A perf event opened without exclude_kernel (a dummy event of this thread, disabled): the
 * descriptor that tells the module perf lets this user profile the kernel, or -1 with the reason
 * in why (kernel.perf_event_paranoid and its value when that is it).
 */
int cli_kernel_proof(char *why, size_t whylen);

/*
 * The locked memory a session's rings may take without CAP_IPC_LOCK: the module's mlock_kb per
 * online CPU and RLIMIT_MEMLOCK (0 when unknown).
 */
uint64_t cli_locked_budget(void);

#endif
