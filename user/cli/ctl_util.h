/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the subcommands that talk to the module: exit statuses, number lists, STATUS
 * output. */
#ifndef LFR_CLI_CTL_UTIL_H
#define LFR_CLI_CTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/control.h"
#include "lib/error.h"
#include "lib/ringsize.h"

/* The enum lfr_exit value for a failure. */
int cli_exit_status(const struct lfr_error *e);

/* Prints E for PROG ("lfr stop") and returns its exit status. */
int cli_fail(const char *prog, const struct lfr_error *e);

/*
 * The options lfr status and lfr stop share, c of getopt_long: -S ID into *session, -m into
 * *machine, -h (usage to stdout) and an unknown option (usage to stderr).  -1 when c was taken,
 * else the exit status.
 */
int cli_session_opt(const char *prog, int c, const char *arg, int64_t *session, bool *machine,
                    void (*usage)(FILE *out));

/* No word after the options: 0, else LFR_EXIT_USAGE after saying so. */
int cli_no_operands(const char *prog, int argc, char **argv);

/*
 * Parses a number in [MIN, MAX] (decimal, or 0x hex) given to option OPT.  On error prints
 * "PROG: OPT: 'ARG' is not ..." and returns -1.
 */
int cli_parse_u64(const char *prog, const char *opt, const char *arg, uint64_t min, uint64_t max,
                  uint64_t *out);

/*
 * A size in bytes in [MIN, MAX]: a number with an optional binary suffix K, M or G (KiB, MiB, GiB;
 * "64M", "512k"), as perf's --mmap-pages and -m take them.  -1 after an error message.
 */
int cli_parse_size(const char *prog, const char *opt, const char *arg, uint64_t min, uint64_t max,
                   uint64_t *out);

/*
 * A duration in nanoseconds in [MIN, MAX]: seconds, possibly fractional ("1.5"), or a number with a
 * unit: ms, s, m or h ("500ms", "2m").  -1 after an error message.
 */
int cli_parse_duration(const char *prog, const char *opt, const char *arg, uint64_t min_ns,
                       uint64_t max_ns, uint64_t *out_ns);

/*
 * A time in milliseconds, at most MAX_MS: a plain number is milliseconds (these options' unit
 * before they took units); with a unit it is cli_parse_duration's ("2s", "500ms", "1.5m").
 */
int cli_parse_ms(const char *prog, const char *opt, const char *arg, uint64_t max_ms,
                 uint64_t *out_ms);

/*
 * The options that commands writing one file share: -o FILE (*out), -q (*quiet), -h (usage on
 * standard output), and any other (a hint on standard error).  -1 for -o and -q, else the exit
 * status to return.  CMD: the command's name after "lfr ".
 */
int cli_output_option(const char *cmd, int c, const char **out, bool *quiet, void (*usage)(FILE *));

/* Appends the comma-separated ids of ARG (each in 1..2^31-1) to *IDS; -1 after an error message. */
int cli_parse_ids(const char *prog, const char *opt, const char *arg, uint32_t **ids, size_t *n);

/*
 * STATUS in the stable machine format, one line for the totals and, with PER_CPU, one per CPU:
 *   status session=ID state=NAME period_ns=N user_depth=N ring_pages=N nr_cpu_ids=N
 *          kernel_stack=0|1 detached=0|1 COUNTER=VALUE...
 *   status_cpu cpu=N COUNTER=VALUE...
 * Counters are named by lfr_counter_name and printed in enum order.
 */
void cli_print_status_machine(FILE *out, const struct lfr_status *st, bool per_cpu);

/* STATUS for people: the session, then one counter per line, per-CPU columns with PER_CPU. */
void cli_print_status_human(FILE *out, const struct lfr_status *st, bool per_cpu);

/*
 * Without an explicit ring size (O->ring_pages 0): chooses one for O's rate and depths on this
 * machine's CPUs and pages (lib/ringsize.h), and a wakeup mark unless O has one, and sets them in
 * O.  OUT gets the choice, or ring_pages 0 when O had a size already.
 */
void cli_default_rings(struct lfr_start_opts *o, struct lfr_ring_size *out);

#endif
