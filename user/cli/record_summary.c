// SPDX-License-Identifier: GPL-2.0
/*
 * lfr record's summary on stderr at the end: samples, losses and why, off-CPU time, latencies,
 * unwind tables, thread contexts, the busiest threads' rates, the rings, and where the file is.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli/record.h"
#include "report/text_safe.h"

void record_human_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MB", (double)b / (1 << 20));
	else if (b >= 10ull << 10)
		snprintf(buf, len, "%.1f KB", (double)b / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
}

uint64_t record_lost_total(const struct lfr_recorder_stats *st)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i <= LFR_LOST_MAX; i++)
		n += st->lost_ticks[i];
	return n + st->lost_pending;
}

/* The summary, printed once the file is closed (its final size known). */
/*
 * The rate each of the busiest threads got: a tick per period of its CPU time was asked for, and
 * the periods a late interrupt missed are not samples (Documentation/counting.md).
 */
static void print_rates(const struct record *r)
{
	struct lfr_thread_rate top[5];
	size_t n = lfr_recorder_busiest(r->rec, top, 5);
	double hz = r->run.info.period_ns ? 1e9 / (double)r->run.info.period_ns : 0;

	if (!n || !hz)
		return;
	fprintf(stderr, "  rate achieved per thread (asked: %.0f Hz of its CPU time):\n", hz);
	for (size_t i = 0; i < n; i++) {
		uint64_t periods = top[i].samples + top[i].missed;

		/* a thread names itself: its name reaches the terminal as text_safe.h has it */
		text_safe_in_place(top[i].comm);
		fprintf(stderr,
		        "    tid %-8" PRIu32 " %-16s %8" PRIu64 " samples, %8" PRIu64
		        " periods missed: %.0f Hz\n",
		        top[i].tid, top[i].comm[0] ? top[i].comm : "?", top[i].samples,
		        top[i].missed, periods ? hz * (double)top[i].samples / (double)periods : 0);
	}
}

/* The unwind tables the session took, and what its walks did with them. */
static void print_unwind(const struct record *r, const struct lfr_status *st)
{
	struct lfr_unwind_loader_stats us;
	const uint64_t *v = st->total.v;

	if (!r->unwind)
		return;
	lfr_unwind_loader_get_stats(r->unwind, &us);
	if (us.unsupported)
		return;
	fprintf(stderr,
	        "  unwind tables: %" PRIu64 " object%s, %" PRIu64 " KiB; %" PRIu64
	        " return addresses found by them, %" PRIu64 " stacks ended in code without CFI",
	        us.tables, us.tables == 1 ? "" : "s", (us.bytes + 1023) / 1024,
	        v[LFR_CTR_UNWIND_FRAMES], v[LFR_CTR_USER_NO_CFI]);
	if (v[LFR_CTR_UNWIND_EVICTED])
		fprintf(stderr, ", %" PRIu64 " dropped for --unwind-max",
		        v[LFR_CTR_UNWIND_EVICTED]);
	fputc('\n', stderr);
}

/* What --cache DIR gave and took. */
static void print_cache(const struct record *r)
{
	struct lfr_unwind_loader_stats us = {0};
	struct lfr_sym_cache_stats ss;

	if (!r->cache)
		return;
	if (r->unwind)
		lfr_unwind_loader_get_stats(r->unwind, &us);
	lfr_sym_get_cache_stats(r->sym, &ss);
	fprintf(stderr,
	        "  cache %s: unwind tables %" PRIu64 " read, %" PRIu64
	        " stored; symbol tables %" PRIu64 " read, %" PRIu64 " stored\n",
	        r->cache_dir, us.cached, us.stored, ss.read, ss.stored);
}

/* Frames in memory no file holds, past the addresses kept as their names (sym.h); the object
 * files the symbolizer freed. */
static void print_sym_kept(const struct record *r)
{
	struct lfr_sym_stats ss;

	if (!r->sym)
		return;
	lfr_sym_get_stats(r->sym, &ss);
	if (ss.pc_names_capped)
		fprintf(stderr,
		        "  %" PRIu64 " frames in memory no file holds named [unknown]: %" PRIu64
		        " such addresses were kept as names already (JIT code without a perf "
		        "map?)\n",
		        ss.pc_names_capped, ss.pc_names);
	if (ss.objects_freed)
		fprintf(stderr,
		        "  %" PRIu64 " object files no process mapped any more freed, %" PRIu64
		        " held\n",
		        ss.objects_freed, ss.objects_held);
}

/* What the recording found of the processes' thread contexts. */
static void print_ctx(const struct record *r, const struct lfr_recorder_stats *rs)
{
	struct lfr_ctx_finder_stats fs;
	uint64_t without = 0;

	if (!r->ctx)
		return;
	lfr_ctx_finder_get_stats(r->ctx, &fs);
	for (unsigned int i = LFR_CTX_NULL; i < __LFR_CTX_STATE_MAX; i++)
		without += rs->ctx[i];
	if (!fs.registered && !fs.failed)
		return;
	fprintf(stderr,
	        "  thread contexts: %" PRIu64 " process%s; %" PRIu64 " samples with one, %" PRIu64
	        " without (null %" PRIu64 ", invalid %" PRIu64 ", unreadable %" PRIu64
	        ", changed while read %" PRIu64 ", no TLS block %" PRIu64 ")\n",
	        fs.registered, fs.registered == 1 ? "" : "es", rs->ctx[LFR_CTX_VALID], without,
	        rs->ctx[LFR_CTX_NULL], rs->ctx[LFR_CTX_INVALID], rs->ctx[LFR_CTX_FAULT],
	        rs->ctx[LFR_CTX_CHANGED], rs->ctx[LFR_CTX_NO_BLOCK]);
	if (rs->ctx_attrs_unnamed)
		fprintf(stderr,
		        "  %" PRIu64 " context attributes left out: their key has no name in the "
		        "process context's threadlocal.attribute_key_map\n",
		        rs->ctx_attrs_unnamed);
	if (fs.failed)
		fprintf(stderr,
		        "%s: warning: the thread context of %" PRIu64
		        " process%s is not read: %s\n",
		        PROG, fs.failed, fs.failed == 1 ? "" : "es", fs.first_failure);
}

/* What --wall, --off-cpu and --latency recorded. */
static void print_modes(const struct record *r, const struct lfr_status *st,
                        const struct lfr_recorder_stats *rs)
{
	if (r->wall_hz)
		fprintf(stderr,
		        "  wall clock: %" PRIu64
		        " samples off the CPU beside the CPU samples (profiler.WallClockSample), "
		        "%" PRIu64 " intervals without a stack, %" PRIu64 " over the CPU budget\n",
		        rs->wall_samples, st->total.v[LFR_CTR_OFFCPU_LOST] + rs->off_cpu_lost,
		        st->total.v[LFR_CTR_OFFCPU_THROTTLED]);
	if (r->run.start.offcpu_min_ns && !r->wall_hz)
		fprintf(stderr,
		        "  off-CPU: %" PRIu64 " intervals of %.3f ms or more (%.3f s), %" PRIu64
		        " shorter (%.3f s), %" PRIu64 " without a stack, %" PRIu64
		        " over the CPU budget\n",
		        rs->off_cpu, (double)r->run.start.offcpu_min_ns / 1e6,
		        (double)rs->off_cpu_ns / 1e9, st->total.v[LFR_CTR_OFFCPU_SHORT],
		        (double)st->total.v[LFR_CTR_OFFCPU_SHORT_NS] / 1e9,
		        st->total.v[LFR_CTR_OFFCPU_LOST] + rs->off_cpu_lost,
		        st->total.v[LFR_CTR_OFFCPU_THROTTLED]);
	else if (r->wall_hz && r->off_cpu_events_min != UINT64_MAX)
		/* every interval came from the module; the minimum was applied here */
		fprintf(stderr,
		        "  off-CPU: %" PRIu64 " intervals of %.3f ms or more (%.3f s) of %" PRIu64
		        " (%.3f s)\n",
		        rs->off_cpu, (double)r->off_cpu_events_min / 1e6,
		        (double)rs->off_cpu_ns / 1e9,
		        st->total.v[LFR_CTR_OFFCPU] + st->total.v[LFR_CTR_OFFCPU_SHORT],
		        (double)(st->total.v[LFR_CTR_OFFCPU_NS] +
		                 st->total.v[LFR_CTR_OFFCPU_SHORT_NS]) /
		            1e9);
	if (r->run.start.latency_min_ns)
		fprintf(stderr,
		        "  sampling latency: %" PRIu64 " of %.3f ms or more (longest %.3f ms, mean "
		        "%.3f ms), %" PRIu64 " without their tick\n",
		        rs->latencies, (double)r->run.start.latency_min_ns / 1e6,
		        (double)rs->latency_max_ns / 1e6,
		        rs->latencies ? (double)rs->latency_ns / 1e6 / (double)rs->latencies : 0.0,
		        st->total.v[LFR_CTR_LATENCY_LOST] + rs->latency_unmatched);
}

/* The ticks lost, by reason, and the records given up or skipped. */
static void print_lost(const struct lfr_status *st, const struct lfr_recorder_stats *rs)
{
	for (unsigned int i = 1; i <= LFR_LOST_MAX; i++)
		if (rs->lost_ticks[i])
			fprintf(stderr, "  lost %-18s %" PRIu64 "\n", lfr_lost_reason_name(i),
			        rs->lost_ticks[i]);
	if (rs->lost_pending)
		fprintf(stderr, "  lost %-18s %" PRIu64 "\n", LFR_LOST_WALK_PENDING_NAME,
		        rs->lost_pending);
	if (rs->join_lost.ticks_superseded + rs->join_lost.ticks_exited + rs->join_lost.stacks)
		fprintf(
		    stderr,
		    "  given up, the other record lost to a full ring (counted above): %" PRIu64
		    " ticks without their stack walk (%" PRIu64 " of threads that exited), %" PRIu64
		    " stack walks without %" PRIu64 " of their ticks\n",
		    rs->join_lost.ticks_superseded + rs->join_lost.ticks_exited,
		    rs->join_lost.ticks_exited, rs->join_lost.stacks, rs->join_lost.stack_ticks);
	if (st->total.v[LFR_CTR_TICKS_SKIPPED])
		fprintf(
		    stderr,
		    "  %" PRIu64
		    " periods skipped without an interrupt: lfr's time on a CPU passed "
		    "its budget there (module parameter max_cpu_percent, all sessions together)\n",
		    st->total.v[LFR_CTR_TICKS_SKIPPED]);
}

/* Where the recording is: the repository, or the file. */
static void print_where(struct record *r, const struct lfr_jfr_stats *js, const char *size)
{
	if (r->repository) {
		fprintf(stderr,
		        "%s: the repository %s keeps %s in %" PRIu64 " chunk file%s (%" PRIu64
		        " removed by its limits)\n",
		        PROG, r->output, size, js->repo_chunks, js->repo_chunks == 1 ? "" : "s",
		        js->evicted);
		fprintf(stderr, "  write it out: lfr dump %s -o FILE [--last TIME]\n", r->output);
		record_export_summary(&r->export, stderr);
		return;
	}
	fprintf(stderr, "%s: wrote %s (%s, %" PRIu64 " chunk%s)\n", PROG, r->output, size,
	        js->chunks, js->chunks == 1 ? "" : "s");
	fprintf(stderr,
	        "  look at it: lfr report %s  |  jfr summary %s  |  jfr print --events "
	        "jdk.ExecutionSample %s\n",
	        r->output, r->output, r->output);
}

void record_print_summary(struct record *r, const struct lfr_status *st, double secs,
                          const struct lfr_jfr_stats *js)
{
	struct lfr_recorder_stats rs;
	uint64_t matched = st->total.v[LFR_CTR_TICKS_MATCHED];
	struct stat sb;
	char size[32];

	lfr_recorder_get_stats(r->rec, &rs);
	record_human_bytes(size, sizeof(size),
	                   r->repository          ? js->repo_bytes
	                   : stat(r->output, &sb) ? 0
	                                          : (uint64_t)sb.st_size);
	if (r->tty)
		fputc('\n', stderr);
	fprintf(stderr,
	        "%s: %" PRIu64 " samples (%" PRIu64 " stack walks) of %s in %.1f s, %" PRIu64
	        " lost\n",
	        PROG, rs.events, rs.samples, r->target, secs, record_lost_total(&rs));
	print_modes(r, st, &rs);
	print_lost(st, &rs);
	if (rs.incomplete)
		fprintf(stderr,
		        "  %" PRIu64 " stacks incomplete (depth limit, unreadable stack, or code "
		        "without frame pointers or CFI short of the thread's start)\n",
		        rs.incomplete);
	if (rs.frames)
		fprintf(stderr, "  %" PRIu64 " of %" PRIu64 " frames named\n",
		        rs.frames - rs.unnamed, rs.frames);
	print_sym_kept(r);
	if (js->sweeps)
		fprintf(stderr,
		        "  %" PRIu64 " distinct stacks kept for the next chunks (%" PRIu64
		        " methods); %" PRIu64 " pool entries no chunk used for four chunks "
		        "forgotten, %" PRIu64 " time%s\n",
		        js->stack_traces, js->methods, js->swept, js->sweeps,
		        js->sweeps == 1 ? "" : "s");
	fprintf(stderr, "  %" PRIu64 " process%s, %" PRIu64 " threads started, %" PRIu64 " ended\n",
	        rs.processes, rs.processes == 1 ? "" : "es", rs.thread_starts, rs.thread_ends);
	print_unwind(r, st);
	print_cache(r);
	print_ctx(r, &rs);
	print_rates(r);
	if (r->rings.ring_pages)
		fprintf(stderr,
		        "  rings: %u pages per CPU (chosen for %.0f ticks/s of %" PRIu64
		        " B: %.2f s%s), reader woken at %u B\n",
		        r->rings.ring_pages, r->rings.rate_hz, r->rings.rec_bytes, r->rings.seconds,
		        r->rings.capped ? ", capped" : "", r->rings.wakeup_bytes);
	if (rs.events + record_lost_total(&rs) != matched)
		fprintf(stderr,
		        "%s: warning: %" PRIu64 " ticks hit the targets but %" PRIu64
		        " are in the file (samples + lost)\n",
		        PROG, matched, rs.events + record_lost_total(&rs));
	print_where(r, js, size);
}
