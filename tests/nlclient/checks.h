/* SPDX-License-Identifier: GPL-2.0 */
/* lfr-nl: targeted checks (checks.c) and the fuzzer (fuzz.c). */
#ifndef LFR_NL_CHECKS_H
#define LFR_NL_CHECKS_H

#include <stdint.h>

int check_overrun(void);
int check_listen(void);
int check_mmap(void);
int check_memlock(uint32_t allowed, uint32_t too_many);
int check_unwind(void);
int check_unwind_count(void);
int check_status(void);
int check_owner(void);
int check_unpriv(const char *cgroup, uint32_t root_session);
int check_map(uint32_t session, uint32_t ring_pages);
int check_privmap(void);
int check_netns_portid(void);
int check_ksym(void);
int run_nosyslog(char **argv);
int become_other_user(void);
int fuzz_main(int argc, char **argv);

#endif
