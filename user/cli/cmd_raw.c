// SPDX-License-Identifier: GPL-2.0
/*
 * lfr raw: the low-level client.  Starts a session, reads every CPU's ring, prints each record on
 * one line in a stable text format, stops the session, waits for it to drain, prints the module's
 * STATUS counters and checks that every tick on a target is accounted for.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/options.h"
#include "cli/runner.h"
#include "lib/join.h"
#include "lib/outfile.h"
#include "lib/record.h"
#include "lib/ring.h"
#include "report/text_safe.h"

#define PROG "lfr raw"

struct raw {
	struct cli_runner run; /* the session, its targets and rings, the command */
	bool quiet, check, detach, events;
	bool started; /* the session started: the output has its lines */
	FILE *out;
	struct lfr_ctl mon;
	bool have_mon;
	bool seen_stopped; /* the "stopped" notification arrived */
	struct lfr_accounting acct;
	uint64_t *cpu_samples; /* samples by lfr_rec_sample.cpu, nr_cpu_ids entries */
	uint32_t nr_cpu_ids;
	struct lfr_join *join; /* ticks waiting for their user stacks, and the reverse */
	uint64_t joined, joined_lost, missed;
	struct text_safe ts; /* names and paths as a terminal may show them */
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr raw  [-F HZ | -c NS] [-g DEPTH] [-k] [-p PID,... | -t TID,... | -a]\n"
	    "                [-d SECONDS] [options] [-- COMMAND [ARGS...]]\n\n"
	    "Starts a sampling session, prints every record of the rings on one line, stops\n"
	    "the session, prints the module's counters and checks that every tick that hit a\n"
	    "target is in a committed sample or lost with a reason.  A test and debugging\n"
	    "client: 'lfr record' writes JFR files.\n\n"
	    "  -F, --freq HZ          samples per second of thread CPU time (default 99)\n"
	    "  -c, --period NS        sampling period in ns of thread CPU time (perf's -c; -P is\n"
	    "                         the same)\n"
	    "  -g, --depth N          user stack depth limit (default 127, up to %u)\n"
	    "  -k, --kernel-stacks    also record kernel stacks\n"
	    "  -p, --pid PID,...      sample these processes (all their threads)\n"
	    "  -t, --tid TID,...      sample these threads\n"
	    "  -a, --all              sample every user thread of the machine\n"
	    "  -d, --duration TIME    stop after TIME (1.5, 500ms, 2m; default: when COMMAND\n"
	    "                         exits, when every -p process is gone, or on Ctrl-C)\n"
	    "      --ring-pages N     data pages per CPU ring (power of two, %u .. %u; default:\n"
	    "                         0.5 s of the worst-case record rate, as lfr record)\n"
	    "      --wakeup-bytes N   wake the reader once a ring holds N bytes (K, M suffixes)\n"
	    "      --max-threads N    threads the session can track (%u .. %u)\n"
	    "      --jitter PCT       random jitter of each period (0 .. %u, default %u)\n"
	    "      --drain-timeout T  how long to wait for pending stack walks before giving them\n"
	    "                         up as lost 'abandoned' (ms, or with a unit: 30s; default\n"
	    "                         30000 ms)\n"
	    "      --detach           start a detached session, print its id and exit at once;\n"
	    "                         it runs until 'lfr stop'\n"
	    "      --no-events        do not listen to the module's state-change notifications\n"
	    "      --no-check         exit 0 even when the accounting does not balance\n"
	    "  -q, --quiet            no record lines, only the counters and checks\n"
	    "  -o, --output FILE      write the lines to FILE instead of standard output (a new\n"
	    "                         file renamed over FILE once the session ends; no FIFO,\n"
	    "                         link or device, nor another user's file in /tmp)\n"
	    "  -h, --help             this text\n\n"
	    "With -- COMMAND, the command is started and sampled as the target process from its\n"
	    "first instruction, with every process and thread it starts.\n\n"
	    "Output, one record per line (PCs in hex, leaf first; '-' for none; COMM and PATH run\n"
	    "to the end of the line):\n"
	    "  session id=ID period_ns=N user_depth=N nr_cpu_ids=N ring_pages=N\n"
	    "  sample time=NS cpu=N pid=N tid=N weight=1 flags=F|F|0 kernel=PC,... user=PC,...\n"
	    "         walk=ID missed=N sp=ADDR words=W,... [regs=LR,PAC_MASK (arm64)]\n"
	    "       (one per tick: the tick's instant and kernel stack joined with the user stack\n"
	    "        its walk found; missed = periods before it that a late interrupt missed)\n"
	    "  tick_lost time=NS cpu=N pid=N tid=N walk=ID missed=N reason=NAME\n"
	    "       (a tick whose walk found no stack: the thread exec'd or exited first...)\n"
	    "  mmap time=NS pid=N start=ADDR end=ADDR pgoff=N ino=N dev=MAJ:MIN flags=F path=PATH\n"
	    "  comm time=NS pid=N tid=N flags=exec|0 comm=NAME\n"
	    "  task time=NS kind=fork|exit|exec|rename pid=N tid=N ppid=N ptid=N comm=NAME\n"
	    "       [args=COMMAND LINE]   (threads created, exiting, exec-ing, renamed)\n"
	    "  lost time=NS cpu=N reason=NAME count=N ticks=N\n"
	    "  event session=ID event=NAME state=NAME [cpu=N]\n"
	    "and at the end:\n"
	    "  status session=ID state=NAME ... COUNTER=VALUE...     (see 'lfr status -m')\n"
	    "  status_cpu cpu=N COUNTER=VALUE...\n"
	    "  read records=N samples=N ticks=N mmaps=N comms=N lost_records=N pads=N unknown=N\n"
	    "       malformed=N tick_records=N ustack_records=N joined=N joined_lost=N\n"
	    "       unjoined=N missed=N\n"
	    "  read_cpu cpu=N samples=N\n"
	    "  read_flag NAME=N...\n"
	    "  check NAME ok|FAIL ...\n"
	    "  summary checks_failed=N\n\n"
	    "Exit status: 0; 1 when a check failed; 2 bad usage; 3 lfr.ko not loaded; 4 no\n"
	    "CAP_PERFMON/CAP_SYS_ADMIN; 5 no such process; 7 8 sessions are already running.\n",
	    LFR_MAX_USER_STACK_DEPTH, LFR_MIN_RING_PAGES, LFR_MAX_RING_PAGES, LFR_MIN_MAX_THREADS,
	    LFR_MAX_MAX_THREADS, LFR_MAX_JITTER_PCT, LFR_DEFAULT_JITTER_PCT);
}

/* ---- record lines ---- */

static void print_ips(FILE *out, const char *name, const __u64 *ips, unsigned int n)
{
	fprintf(out, " %s=", name);
	if (!n)
		fputc('-', out);
	for (unsigned int i = 0; i < n; i++)
		fprintf(out, "%s%#" PRIx64, i ? "," : "", (uint64_t)ips[i]);
}

static void print_flags(FILE *out, uint32_t flags);

/* A SAMPLE record, as lfr.ko wrote them before TICK and USTACK. */
static void print_sample(FILE *out, const struct lfr_record *r)
{
	const struct lfr_rec_sample *s = r->sample.r;

	fprintf(out, "sample time=%" PRIu64 " cpu=%u pid=%u tid=%u weight=%u flags=",
	        (uint64_t)s->time_ns, s->cpu, s->tgid, s->tid, s->weight);
	print_flags(out, s->flags);
	print_ips(out, "kernel", r->sample.kernel_ips, s->nr_kernel);
	print_ips(out, "user", r->sample.user_ips, s->nr_user);
	fputc('\n', out);
}

static void print_flags(FILE *out, uint32_t flags)
{
	bool any = false;

	for (unsigned int i = 0; i < 32; i++) {
		if (!(flags & (1u << i)))
			continue;
		if (i < LFR_SAMPLE_NFLAGS)
			fprintf(out, "%s%s", any ? "|" : "", lfr_sample_flag_name(i));
		else if (1u << i == LFR_USTACK_F_REGS)
			fprintf(out, "%sregs", any ? "|" : "");
		else
			fprintf(out, "%sbit%u", any ? "|" : "", i);
		any = true;
	}
	if (!any)
		fputc('0', out);
}

/* One tick joined with its walk's user stack. */
static int print_joined(void *ctx, const struct lfr_joined *j)
{
	struct raw *d = ctx;
	const struct lfr_rec_tick *t = j->tick;

	d->missed += t->missed;
	if (j->lost_reason) {
		d->joined_lost++;
		if (!d->quiet)
			fprintf(d->out,
			        "tick_lost time=%" PRIu64 " cpu=%u pid=%u tid=%u walk=%#" PRIx64
			        " missed=%u reason=%s\n",
			        (uint64_t)t->time_ns, t->cpu, t->tgid, t->tid, (uint64_t)t->walk_id,
			        t->missed, lfr_lost_reason_name(j->lost_reason));
		return 0;
	}
	d->joined++;
	if (t->cpu < d->nr_cpu_ids)
		d->cpu_samples[t->cpu]++;
	if (d->quiet)
		return 0;
	fprintf(d->out, "sample time=%" PRIu64 " cpu=%u pid=%u tid=%u weight=1 flags=",
	        (uint64_t)t->time_ns, t->cpu, t->tgid, t->tid);
	print_flags(d->out, j->flags);
	print_ips(d->out, "kernel", j->kernel_ips, t->nr_kernel);
	print_ips(d->out, "user", j->user_ips, j->ustack->nr_user);
	fprintf(d->out, " walk=%#" PRIx64 " missed=%u sp=%#" PRIx64, (uint64_t)t->walk_id,
	        t->missed, (uint64_t)j->ustack->sp);
	print_ips(d->out, "words", j->words, j->ustack->nr_words);
	/* arm64: the link register and the PAC mask after the words, when the record has them */
	if ((j->ustack->flags & LFR_USTACK_F_REGS) &&
	    sizeof(*j->ustack) +
	            ((uint64_t)j->ustack->nr_user + j->ustack->nr_words + LFR_USTACK_REGS) *
	                sizeof(uint64_t) <=
	        j->ustack->hdr.size)
		print_ips(d->out, "regs", j->words + j->ustack->nr_words, LFR_USTACK_REGS);
	fputc('\n', d->out);
	return 0;
}

static void print_record(struct raw *d, FILE *out, const struct lfr_ring *ring,
                         const struct lfr_record *r)
{
	switch (r->type) {
	case LFR_REC_SAMPLE:
		print_sample(out, r);
		break;
	case LFR_REC_MMAP: {
		const struct lfr_rec_mmap *m = r->mmap.r;
		const char *f = (m->flags & LFR_MMAP_F_EXEC) && (m->flags & LFR_MMAP_F_ANON)
		                    ? "exec|anon"
		                : (m->flags & LFR_MMAP_F_EXEC) ? "exec"
		                : (m->flags & LFR_MMAP_F_ANON) ? "anon"
		                                               : "0";

		fprintf(out,
		        "mmap time=%" PRIu64 " pid=%u start=%#" PRIx64 " end=%#" PRIx64
		        " pgoff=%#" PRIx64 " ino=%" PRIu64 " dev=%u:%u flags=%s path=%s\n",
		        (uint64_t)m->time_ns, m->tgid, (uint64_t)m->start, (uint64_t)m->end,
		        (uint64_t)m->pgoff, (uint64_t)m->ino, m->dev_major, m->dev_minor, f,
		        text_safe(&d->ts, r->mmap.path));
		break;
	}
	case LFR_REC_COMM: {
		const struct lfr_rec_comm *c = r->comm.r;

		fprintf(out, "comm time=%" PRIu64 " pid=%u tid=%u flags=%s comm=%s\n",
		        (uint64_t)c->time_ns, c->tgid, c->tid,
		        (c->flags & LFR_COMM_F_EXEC) ? "exec" : "0",
		        text_safe(&d->ts, r->comm.comm));
		break;
	}
	case LFR_REC_LOST: {
		const struct lfr_rec_lost *l = r->lost;

		fprintf(out,
		        "lost time=%" PRIu64 " cpu=%u reason=%s count=%" PRIu64 " ticks=%" PRIu64
		        "\n",
		        (uint64_t)l->time_ns, l->cpu, lfr_lost_reason_name(l->reason),
		        (uint64_t)l->count, (uint64_t)l->ticks);
		break;
	}
	case LFR_REC_TASK: {
		static const char *const kinds[] = {"fork", "exit", "exec", "rename"};
		const struct lfr_rec_task *k = r->task;
		char args[LFR_TASK_ARGS_MAX + 1];
		size_t n = k->args_len < LFR_TASK_ARGS_MAX ? k->args_len : LFR_TASK_ARGS_MAX;

		for (size_t i = 0; i < n; i++)
			args[i] = k->args[i] ? k->args[i] : ' ';
		while (n && args[n - 1] == ' ')
			n--;
		args[n] = '\0';
		fprintf(out, "task time=%" PRIu64 " kind=%s pid=%u tid=%u ppid=%u ptid=%u comm=%s",
		        (uint64_t)k->time_ns, k->kind < 4 ? kinds[k->kind] : "unknown", k->tgid,
		        k->tid, k->ptgid, k->ptid, text_safe(&d->ts, k->comm));
		if (n)
			fprintf(out, " args=%s", text_safe(&d->ts, args));
		fputc('\n', out);
		break;
	}
	case LFR_REC_LATENCY: {
		const struct lfr_rec_latency *l = r->latency;

		fprintf(out,
		        "latency time=%" PRIu64 " tick=%" PRIu64 " walk=%" PRIu64
		        " cpu=%u pid=%u tid=%u\n",
		        (uint64_t)l->time_ns, (uint64_t)l->tick_ns, (uint64_t)l->walk_id, l->cpu,
		        l->tgid, l->tid);
		break;
	}
	case LFR_REC_PAD:
		break;
	default:
		fprintf(out, "unknown ring=%u type=%u size=%u\n", ring->cpu, r->type, r->size);
		break;
	}
}

static int on_record(const struct lfr_ring *ring, const struct lfr_rec_header *h, void *data)
{
	struct raw *d = data;
	struct lfr_record r;
	char why[160];
	bool bad = lfr_record_decode(h, &r, why, sizeof(why)) < 0;

	lfr_accounting_add(&d->acct, h, &r, bad);
	if (bad) {
		fprintf(stderr, "%s: ring of CPU %u: malformed %s\n", PROG, ring->cpu, why);
		fprintf(d->out, "malformed ring=%u type=%u size=%u\n", ring->cpu, h->type, h->size);
		return 0;
	}
	if (r.type == LFR_REC_SAMPLE && r.sample.r->cpu < d->nr_cpu_ids)
		d->cpu_samples[r.sample.r->cpu]++;
	if (r.type == LFR_REC_TICK || r.type == LFR_REC_USTACK) {
		int err = r.type == LFR_REC_TICK
		              ? lfr_join_tick(d->join, r.tick, print_joined, d)
		              : lfr_join_ustack(d->join, r.ustack.r, print_joined, d);

		/* the record's place in the ring is given back once this returns */
		lfr_join_keep(d->join);
		return err ? -1 : 0;
	}
	if (r.type == LFR_REC_TASK && r.task->kind == LFR_TASK_EXIT) {
		/* ticks of the thread still waiting for a stack: given up in a while */
		int err = lfr_join_exit(d->join, r.task->tid, r.task->time_ns, print_joined, d);

		lfr_join_keep(d->join);
		if (err)
			return -1;
	}
	if (!d->quiet)
		print_record(d, d->out, ring, &r);
	return 0;
}

/* Prints the notifications that arrived, waiting up to TIMEOUT_MS for the first one. */
static void read_events_wait(struct raw *d, int timeout_ms)
{
	struct lfr_notification n;
	struct lfr_error e;

	while (d->have_mon && lfr_ctl_next_notification(&d->mon, timeout_ms, &n, &e) == 1) {
		timeout_ms = 0;
		if (n.event == LFR_EVENT_STOPPED)
			d->seen_stopped = true;
		fprintf(d->out, "event session=%u event=%s state=%s", n.session_id,
		        lfr_event_name(n.event), lfr_state_name(n.state));
		if (n.cpu >= 0)
			fprintf(d->out, " cpu=%" PRId64, n.cpu);
		fputc('\n', d->out);
	}
}

/* After every read of the rings, while recording and while the session drains. */
static void read_events(struct cli_runner *run)
{
	struct raw *d = run->arg;

	lfr_join_read(d->join, run->read_ns); /* what a full ring lost is given up */
	read_events_wait(d, 0);
}

/* ---- the session ---- */

static void print_summary(struct raw *d, const struct lfr_status *st, int *fails)
{
	const struct lfr_accounting *a = &d->acct;
	uint64_t ring_lost[LFR_LOST_MAX + 1];
	struct lfr_join_lost jl;

	lfr_join_lost(d->join, &jl);
	cli_print_status_machine(d->out, st, true);
	fprintf(d->out,
	        "read records=%" PRIu64 " samples=%" PRIu64 " ticks=%" PRIu64 " mmaps=%" PRIu64
	        " comms=%" PRIu64 " lost_records=%" PRIu64 " pads=%" PRIu64 " unknown=%" PRIu64
	        " malformed=%" PRIu64 "\n",
	        a->records, a->samples, a->sample_ticks, a->mmaps, a->comms, a->lost_records,
	        a->pads, a->unknown, a->malformed);
	fprintf(d->out,
	        "read_join tick_records=%" PRIu64 " ustack_records=%" PRIu64 " joined=%" PRIu64
	        " joined_lost=%" PRIu64 " unjoined=%" PRIu64 " missed=%" PRIu64 "\n",
	        a->ticks, a->ustacks, d->joined, d->joined_lost,
	        lfr_join_waiting(d->join) + jl.ticks_superseded + jl.ticks_exited, d->missed);
	for (uint32_t c = 0; c < d->nr_cpu_ids; c++)
		fprintf(d->out, "read_cpu cpu=%u samples=%" PRIu64 "\n", c, d->cpu_samples[c]);
	fprintf(d->out, "read_flag");
	for (unsigned int i = 0; i < LFR_SAMPLE_NFLAGS; i++)
		fprintf(d->out, " %s=%" PRIu64, lfr_sample_flag_name(i), a->sample_flags[i]);
	fputc('\n', d->out);
	lfr_rings_lost(&d->run.rings, ring_lost);
	*fails = lfr_accounting_reconcile(a, &st->total, ring_lost, d->out);
	fprintf(d->out, "summary checks_failed=%d\n", *fails);
}

/* Stops the session (unless it already stopped), reads the rings while it drains, and checks. */
static int finish(struct raw *d)
{
	struct lfr_status st;
	int fails = 0, ret = cli_runner_finish(&d->run, &st);

	if (ret) {
		lfr_status_free(&st);
		return ret;
	}
	if (st.info.state != LFR_STATE_STOPPED)
		fprintf(stderr, "%s: session %u still %s after giving up its queued walks\n", PROG,
		        d->run.info.id, lfr_state_name(st.info.state));
	/* the notification follows the state change: give it a moment to arrive */
	for (int i = 0; i < 10 && d->have_mon && !d->seen_stopped; i++)
		read_events_wait(d, 100);
	print_summary(d, &st, &fails);
	if (st.info.state != LFR_STATE_STOPPED)
		fails++;
	lfr_status_free(&st);
	return fails && d->check ? LFR_EXIT_FAILURE : LFR_EXIT_OK;
}

static int run(struct raw *d, char **cmd)
{
	const struct lfr_session_info *info = &d->run.info;
	struct lfr_error e;
	int ret;

	if (d->events && !d->detach) {
		/* listening before the START, so that no notification of this session is missed */
		if (lfr_ctl_open(&d->mon, &e) == 0 && lfr_ctl_monitor(&d->mon, &e) == 0) {
			d->have_mon = true;
			d->run.monitor = &d->mon;
		} else {
			lfr_error_print(stderr, PROG " (notifications, continuing without)", &e);
		}
	}
	d->run.start.detached = d->detach;
	ret = cli_runner_start(&d->run, cmd);
	if (ret)
		return ret;
	d->started = true;
	fprintf(d->out,
	        "session id=%u period_ns=%" PRIu64 " user_depth=%u nr_cpu_ids=%u ring_pages=%u\n",
	        info->id, info->period_ns, info->user_depth, info->nr_cpu_ids, info->ring_pages);
	fflush(d->out);
	if (d->detach)
		return LFR_EXIT_OK;
	d->nr_cpu_ids = info->nr_cpu_ids;
	d->cpu_samples = calloc(info->nr_cpu_ids ? info->nr_cpu_ids : 1, sizeof(*d->cpu_samples));
	if (!d->cpu_samples)
		return LFR_EXIT_FAILURE;
	ret = cli_runner_loop(&d->run);
	return ret ? ret : finish(d);
}

/* What goes together: -1 when the options do, else the exit status. */
static int check_targets(struct raw *d, char **cmd)
{
	struct lfr_ring_size rings;

	if (d->run.start.freq_hz && d->run.start.period_ns) {
		fprintf(stderr, "%s: give either --freq or --period, not both\n", PROG);
		return LFR_EXIT_USAGE;
	}
	cli_default_rings(&d->run.start, &rings);
	if (!d->run.start.system && !d->run.ntgids && !d->run.ntids && !cmd) {
		fprintf(stderr, "%s: nothing to sample: give -p PID, -t TID, -a, or -- COMMAND\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (d->run.start.system && (d->run.ntgids || d->run.ntids || cmd)) {
		fprintf(stderr,
		        "%s: -a samples every thread; it cannot be combined with -p, -t or a "
		        "command\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (d->detach && cmd) {
		fprintf(stderr, "%s: --detach cannot run a command\n", PROG);
		return LFR_EXIT_USAGE;
	}
	return -1;
}

/* -o FILE (else standard output) and the joining of ticks; -1, or the exit status. */
static int open_output(struct raw *d, const char *output, struct lfr_outfile *of)
{
	char err[512];

	/* written beside the target and renamed over it once complete: a session that did not
	 * start, or a failed write, leaves an existing file as it was */
	if (output && lfr_outfile_open(of, output, LFR_OUTFILE_STDOUT, 0640, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return LFR_EXIT_IO;
	}
	if (output && !(d->out = lfr_outfile_fdopen(of))) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", PROG, output, strerror(errno));
		lfr_outfile_abort(of);
		return LFR_EXIT_IO;
	}
	setvbuf(d->out, NULL, _IOFBF, 1 << 16);
	if (lfr_join_new(&d->join)) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		if (output)
			lfr_outfile_fclose(of, d->out, false, err, sizeof(err));
		return LFR_EXIT_IO;
	}
	return -1;
}

/* The output flushed, and -o FILE committed when the session started; the exit status. */
static int close_output(struct raw *d, const char *output, struct lfr_outfile *of, int ret)
{
	char err[512];

	if (fflush(d->out) != 0 || ferror(d->out)) {
		fprintf(stderr, "%s: writing the output failed: %s\n", PROG, strerror(errno));
		if (ret == LFR_EXIT_OK)
			ret = LFR_EXIT_IO;
		d->started = false;
	}
	if (output && lfr_outfile_fclose(of, d->out, d->started, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		if (ret == LFR_EXIT_OK)
			ret = LFR_EXIT_IO;
	}
	return ret;
}

int cmd_raw(int argc, char **argv)
{
	struct raw d = {
	    .run = {.prog = PROG, .drain_timeout_ms = 30000},
	    .check = true,
	    .events = true,
	    .out = stdout,
	};
	struct lfr_start_opts *so = &d.run.start;
	struct cli_ids pids = {&d.run.tgids, &d.run.ntgids}, tids = {&d.run.tids, &d.run.ntids};
	bool wakeup_given = false;
	const char *output = NULL;
	const struct cli_opt opts[] = {
	    {"freq", 'F', NULL, CLI_OPT_U32, &so->freq_hz, 1, LFR_MAX_FREQ_HZ},
	    {"period", 'c', "P", CLI_OPT_U64, &so->period_ns, LFR_MIN_PERIOD_NS, LFR_MAX_PERIOD_NS},
	    {"depth", 'g', NULL, CLI_OPT_U32, &so->user_depth, 1, LFR_MAX_USER_STACK_DEPTH},
	    {"kernel-stacks", 'k', NULL, CLI_OPT_SET, &so->kernel_stack},
	    {"pid", 'p', NULL, CLI_OPT_IDS, &pids},
	    {"tid", 't', NULL, CLI_OPT_IDS, &tids},
	    {"all", 'a', NULL, CLI_OPT_SET, &so->system},
	    {"duration", 'd', NULL, CLI_OPT_SECONDS, &d.run.duration, 1000000,
	     1000000 * 1000000000ull},
	    {"ring-pages", 0, NULL, CLI_OPT_U32, &so->ring_pages, 1, UINT32_MAX},
	    {"wakeup-bytes", 0, NULL, CLI_OPT_SIZE32, &so->wakeup_bytes, 0, UINT32_MAX,
	     &wakeup_given},
	    {"max-threads", 0, NULL, CLI_OPT_U32, &so->max_threads, 1, UINT32_MAX},
	    {"jitter", 0, NULL, CLI_OPT_INT, &so->jitter_pct, 0, 100},
	    {"drain-timeout", 0, NULL, CLI_OPT_MS, &d.run.drain_timeout_ms, 0, 86400000},
	    {"detach", 0, NULL, CLI_OPT_SET, &d.detach},
	    {"no-events", 0, NULL, CLI_OPT_CLEAR, &d.events},
	    {"no-check", 0, NULL, CLI_OPT_CLEAR, &d.check},
	    {"quiet", 'q', NULL, CLI_OPT_SET, &d.quiet},
	    {"output", 'o', NULL, CLI_OPT_STRING, &output},
	    {"help", 'h', NULL, CLI_OPT_HELP},
	};
	struct lfr_outfile of = LFR_OUTFILE_INIT;
	char **cmd = NULL;
	int ret;

	so->jitter_pct = -1;
	ret = cli_parse_options(PROG, opts, sizeof(opts) / sizeof(opts[0]), CLI_STOP_AT_COMMAND,
	                        argc, argv, usage);
	if (ret >= 0)
		return ret;
	so->wakeup_any = wakeup_given && !so->wakeup_bytes;
	if (optind < argc)
		cmd = argv + optind;
	if ((ret = check_targets(&d, cmd)) >= 0)
		return ret;
	if ((ret = open_output(&d, output, &of)) >= 0)
		return ret;
	d.run.on_record = on_record;
	d.run.on_wake = read_events;
	d.run.arg = &d;

	ret = run(&d, cmd);
	ret = close_output(&d, output, &of, ret);
	cli_runner_close(&d.run);
	if (d.have_mon)
		lfr_ctl_close(&d.mon);
	free(d.cpu_samples);
	lfr_join_free(d.join);
	text_safe_free(&d.ts);
	return ret;
}
