/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommand table's entry type, each subcommand's entry point, and the exit statuses. */
#ifndef LFR_CLI_COMMANDS_H
#define LFR_CLI_COMMANDS_H

/* Distinct exit statuses, one per kind of failure (documented in lfr(1)). */
enum lfr_exit {
	LFR_EXIT_OK = 0,
	LFR_EXIT_FAILURE = 1,      /* a runtime failure not covered below */
	LFR_EXIT_USAGE = 2,        /* bad command line */
	LFR_EXIT_NOMODULE = 3,     /* lfr.ko is not loaded */
	LFR_EXIT_PERM = 4,         /* missing CAP_PERFMON / CAP_SYS_ADMIN */
	LFR_EXIT_TARGET = 5,       /* a pid, tid, cgroup or command that does not exist */
	LFR_EXIT_IO = 6,           /* a file could not be read or written */
	LFR_EXIT_BUSY = 7,         /* another session holds what was asked for */
	LFR_EXIT_FORMAT = 8,       /* an input file is malformed */
	LFR_EXIT_NODATA = 9,       /* lfr report --diff: an input has no samples to compare */
	LFR_EXIT_PARTIAL = 10,     /* input files left out, unreadable: the output holds the rest */
	LFR_EXIT_UNDELIVERED = 11, /* lfr export: chunks a backend refused or did not take */
};

/* Where the lfr service's continuous recording keeps its chunks: lfr dump's default. */
#define LFR_DEFAULT_REPOSITORY "/var/lib/lfr/repository"

struct lfr_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

int cmd_version(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_raw(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
