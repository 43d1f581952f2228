// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the subcommands that talk to the module. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/privileges.h"
#include "report/report.h"

int cli_exit_status(const struct lfr_error *e)
{
	if (e->no_module)
		return LFR_EXIT_NOMODULE;
	switch (e->code) {
	case EPERM:
	case EACCES:
		return LFR_EXIT_PERM;
	case EBUSY:
		return LFR_EXIT_BUSY;
	case ESRCH:
		return LFR_EXIT_TARGET;
	case EINVAL:
	case ERANGE:
	case EOPNOTSUPP:
		return LFR_EXIT_USAGE;
	default:
		return LFR_EXIT_FAILURE;
	}
}

int cli_fail(const char *prog, const struct lfr_error *e)
{
	lfr_error_print(stderr, prog, e);
	return cli_exit_status(e);
}

int cli_session_opt(const char *prog, int c, const char *arg, int64_t *session, bool *machine,
                    void (*usage)(FILE *out))
{
	uint64_t v;

	switch (c) {
	case 'S':
		if (cli_parse_u64(prog, "--session", arg, 0, LFR_MAX_SESSION_ID, &v))
			return LFR_EXIT_USAGE;
		*session = (int64_t)v;
		return -1;
	case 'm':
		*machine = true;
		return -1;
	case 'h':
		usage(stdout);
		return LFR_EXIT_OK;
	default:
		usage(stderr);
		return LFR_EXIT_USAGE;
	}
}

int cli_no_operands(const char *prog, int argc, char **argv)
{
	if (optind == argc)
		return 0;
	fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
	return LFR_EXIT_USAGE;
}

int cli_parse_u64(const char *prog, const char *opt, const char *arg, uint64_t min, uint64_t max,
                  uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (!*arg || *end || errno || arg[0] == '-') {
		fprintf(stderr, "%s: %s: '%s' is not a number\n", prog, opt, arg);
		return -1;
	}
	if (v < min || v > max) {
		fprintf(stderr, "%s: %s: %s is out of range (%" PRIu64 " .. %" PRIu64 ")\n", prog,
		        opt, arg, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_size(const char *prog, const char *opt, const char *arg, uint64_t min, uint64_t max,
                   uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end && !end[1]) {
		switch (*end | 0x20) {
		case 'k':
			shift = 10, end++;
			break;
		case 'm':
			shift = 20, end++;
			break;
		case 'g':
			shift = 30, end++;
			break;
		}
	}
	if (!isdigit((unsigned char)arg[0]) || *end || errno || v > (UINT64_MAX >> shift)) {
		fprintf(stderr, "%s: %s: '%s' is not a size (bytes, or a number with K, M or G)\n",
		        prog, opt, arg);
		return -1;
	}
	v <<= shift;
	if (v < min || v > max) {
		fprintf(stderr, "%s: %s: %s is out of range (%" PRIu64 " .. %" PRIu64 " bytes)\n",
		        prog, opt, arg, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_duration(const char *prog, const char *opt, const char *arg, uint64_t min_ns,
                       uint64_t max_ns, uint64_t *out_ns)
{
	/* lfr report's --from/--to syntax; a leading digit keeps out "nan", "inf" and signs */
	int64_t ns =
	    isdigit((unsigned char)arg[0]) || arg[0] == '.' ? report_parse_duration(arg) : -1;

	if (ns < 0) {
		fprintf(
		    stderr,
		    "%s: %s: '%s' is not a duration (seconds, or a number with ms, s, m or h)\n",
		    prog, opt, arg);
		return -1;
	}
	if ((uint64_t)ns < min_ns || (uint64_t)ns > max_ns) {
		fprintf(stderr, "%s: %s: %s is out of range (%g .. %g s)\n", prog, opt, arg,
		        (double)min_ns / 1e9, (double)max_ns / 1e9);
		return -1;
	}
	*out_ns = (uint64_t)ns;
	return 0;
}

int cli_parse_ms(const char *prog, const char *opt, const char *arg, uint64_t max_ms,
                 uint64_t *out_ms)
{
	uint64_t ns;

	if (arg[0] && strspn(arg, "0123456789") == strlen(arg))
		return cli_parse_u64(prog, opt, arg, 0, max_ms, out_ms) ? -1 : 0;
	if (cli_parse_duration(prog, opt, arg, 0, max_ms * 1000000, &ns) < 0)
		return -1;
	*out_ms = ns / 1000000;
	return 0;
}

int cli_parse_ids(const char *prog, const char *opt, const char *arg, uint32_t **ids, size_t *n)
{
	char *copy = strdup(arg), *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		uint32_t *grown;

		if (cli_parse_u64(prog, opt, tok, 1, INT32_MAX, &v) < 0) {
			ret = -1;
			break;
		}
		grown = realloc(*ids, (*n + 1) * sizeof(**ids));
		if (!grown) {
			ret = -1;
			break;
		}
		*ids = grown;
		(*ids)[(*n)++] = (uint32_t)v;
	}
	if (ret == 0 && *n == 0) {
		fprintf(stderr, "%s: %s: '%s' names no id\n", prog, opt, arg);
		ret = -1;
	}
	free(copy);
	return ret;
}

/* Every counter these tools know, and any other the module sent. */
static bool shown(const struct lfr_counters *c, unsigned int i)
{
	return lfr_counter_known(i) || c->present[i];
}

static void print_counters(FILE *out, const struct lfr_counters *c)
{
	for (unsigned int i = LFR_CTR_TICKS; i <= LFR_CTR_MAX; i++)
		if (shown(c, i))
			fprintf(out, " %s=%" PRIu64, lfr_counter_name(i), c->v[i]);
}

void cli_print_status_machine(FILE *out, const struct lfr_status *st, bool per_cpu)
{
	const struct lfr_session_info *in = &st->info;

	if (in->state == LFR_STATE_IDLE) {
		fprintf(out, "status state=idle\n");
		return;
	}
	fprintf(out,
	        "status session=%u state=%s period_ns=%" PRIu64 " user_depth=%u ring_pages=%u "
	        "nr_cpu_ids=%u kernel_stack=%d detached=%d",
	        in->id, lfr_state_name(in->state), in->period_ns, in->user_depth, in->ring_pages,
	        in->nr_cpu_ids, in->kernel_stack, in->detached);
	print_counters(out, &st->total);
	fputc('\n', out);
	for (size_t i = 0; per_cpu && i < st->ncpus; i++) {
		fprintf(out, "status_cpu cpu=%u", st->cpus[i].cpu);
		print_counters(out, &st->cpus[i].c);
		fputc('\n', out);
	}
}

void cli_print_status_human(FILE *out, const struct lfr_status *st, bool per_cpu)
{
	const struct lfr_session_info *in = &st->info;
	uint64_t lost = lfr_counters_lost(&st->total);

	if (in->state == LFR_STATE_IDLE) {
		fprintf(out, "no session: the lfr module is loaded and idle\n");
		return;
	}
	fprintf(out, "session %u: %s\n", in->id, lfr_state_name(in->state));
	fprintf(out, "  period       %" PRIu64 " ns of thread CPU time (%.1f Hz)\n", in->period_ns,
	        in->period_ns ? 1e9 / (double)in->period_ns : 0.0);
	fprintf(out, "  user stacks  up to %u frames; kernel stacks %s\n", in->user_depth,
	        in->kernel_stack ? "on" : "off");
	fprintf(out, "  rings        %u pages per CPU, %u CPU ids\n", in->ring_pages,
	        in->nr_cpu_ids);
	fprintf(out, "  control      %s\n",
	        in->detached ? "detached (runs until 'lfr stop')"
	                     : "attached (stops when its recorder exits)");
	fprintf(out,
	        "  ticks on targets %" PRIu64 ": %" PRIu64 " in %" PRIu64
	        " committed samples, %" PRIu64 " lost\n",
	        st->total.v[LFR_CTR_TICKS_MATCHED], st->total.v[LFR_CTR_TICKS_COMMITTED],
	        st->total.v[LFR_CTR_SAMPLES_COMMITTED], lost);
	fprintf(out, "counters:%s\n", per_cpu ? "      total  per CPU..." : "");
	for (unsigned int i = LFR_CTR_TICKS; i <= LFR_CTR_MAX; i++) {
		if ((i == LFR_CTR_LOST_FIRST && !st->total.v[i]) || !shown(&st->total, i))
			continue;
		fprintf(out, "  %-22s %12" PRIu64, lfr_counter_name(i), st->total.v[i]);
		for (size_t c = 0; per_cpu && c < st->ncpus; c++)
			fprintf(out, " %12" PRIu64, st->cpus[c].c.v[i]);
		fputc('\n', out);
	}
	if (st->total.v[LFR_CTR_IRQ_COUNT])
		fprintf(out, "  cost: %.0f ns per timer interrupt",
		        (double)st->total.v[LFR_CTR_IRQ_NS] /
		            (double)st->total.v[LFR_CTR_IRQ_COUNT]);
	if (st->total.v[LFR_CTR_WORK_COUNT])
		fprintf(out, ", %.0f ns per stack walk",
		        (double)st->total.v[LFR_CTR_WORK_NS] /
		            (double)st->total.v[LFR_CTR_WORK_COUNT]);
	if (st->total.v[LFR_CTR_IRQ_COUNT] || st->total.v[LFR_CTR_WORK_COUNT])
		fputc('\n', out);
}

void cli_default_rings(struct lfr_start_opts *o, struct lfr_ring_size *out)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
	struct lfr_ring_size_in in = {
	    .period_ns = o->period_ns,
	    .freq_hz = o->freq_hz,
	    .user_depth = o->user_depth,
	    .kernel_stack = o->kernel_stack,
	    .ncpus = ncpus > 0 ? (uint32_t)ncpus : 1,
	    .page_size = page > 0 ? (uint32_t)page : 0,
	};

	*out = (struct lfr_ring_size){0};
	if (o->ring_pages)
		return;
	/* a user without privileges locks the rings within its allowance */
	if (!cli_privileged())
		in.budget = cli_locked_budget();
	lfr_ring_size_choose(&in, out);
	o->ring_pages = out->ring_pages;
	if (!o->wakeup_bytes && !o->wakeup_any)
		o->wakeup_bytes = out->wakeup_bytes;
}

int cli_output_option(const char *cmd, int c, const char **out, bool *quiet, void (*usage)(FILE *))
{
	switch (c) {
	case 'o':
		*out = optarg;
		return -1;
	case 'q':
		*quiet = true;
		return -1;
	case 'h':
		usage(stdout);
		return LFR_EXIT_OK;
	default:
		fprintf(stderr, "Run 'lfr %s --help' for the options.\n", cmd);
		return LFR_EXIT_USAGE;
	}
}
