// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR reader and `lfr report`'s aggregation: JVM-written recordings (JDK 17 and 25), lfr-style
 * events, concatenated chunks, filters, and malformed input (the fuzz corpus, every truncation
 * point of a recording, corrupted bytes): bad input must fail with an error naming an offset, never
 * crash.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "jfr/check.h"
#include "jfr/reader.h"
#include "report/report.h"
#include "report/views.h"

#define JDK17 "../data/jdk17-workload.jfr"
#define JDK25 "../data/jdk25-workload.jfr"
#define GENLFR "../data/gen-lfr.jfr"
#define CORPUS "../fuzz/corpus"

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n ? n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*size = n;
	return buf;
}

/* Reads a buffer (copied to an exact-size allocation so that ASan sees any overread). */
static int read_mem(const uint8_t *data, size_t size, const struct report_opts *o,
                    struct report **rep, char *err, size_t errlen)
{
	uint8_t *copy = malloc(size ? size : 1);
	assert_non_null(copy);
	memcpy(copy, data, size);
	struct jfr_reader *r = jfr_open_mem(copy, size, "test.jfr");
	assert_non_null(r);
	int rc = report_read(r, o, rep);
	snprintf(err, errlen, "%s", r->err);
	if (rc < 0) {
		/* every failure names the offset */
		assert_non_null(strstr(err, "test.jfr: offset "));
	}
	/* views must work on whatever was read */
	FILE *null = fopen("/dev/null", "w");
	report_print_text(*rep, o, null);
	report_print_collapsed(*rep, o, null);
	report_print_html(*rep, o, null);
	fclose(null);
	jfr_close(r);
	free(copy);
	return rc;
}

static struct report *read_file(const char *path, const struct report_opts *o)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	if (!r)
		fail_msg("%s", err);
	struct report *rep = NULL;
	if (report_read(r, o, &rep) < 0)
		fail_msg("%s", r->err);
	jfr_close(r);
	return rep;
}

static uint64_t evcount(const struct report *rep, const char *type)
{
	for (size_t i = 0; i < rep->nevtypes; i++)
		if (!strcmp(rep->evtypes[i].name, type))
			return rep->evtypes[i].count;
	return 0;
}

static const struct report_thread *thread_named(const struct report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nthreads; i++)
		if (!strcmp(rep->threads[i].name, name))
			return &rep->threads[i];
	return NULL;
}

static uint64_t frame_total(const struct report *rep, const char *name, bool self_only)
{
	uint64_t *self, *total, v = 0;
	assert_int_equal(views_frame_totals(rep, &self, &total), 0);
	for (size_t i = 0; i < rep->nframes; i++)
		if (!strcmp(rep->frames[i].name, name))
			v = self_only ? self[i] : total[i];
	free(self);
	free(total);
	return v;
}

static void check_jvm_file(const char *path)
{
	struct report_opts o;
	report_opts_init(&o);
	struct report *rep = read_file(path, &o);

	assert_int_equal(rep->nchunks, 1);
	uint64_t samples = evcount(rep, "jdk.ExecutionSample");
	assert_true(samples > 50);
	assert_int_equal(rep->sample_events, samples);
	assert_int_equal(rep->matched_events, samples);
	assert_int_equal(rep->total, samples);
	/* the workload's own threads and methods are found */
	const char *names[] = {"main", "fib-worker", "hash-worker", "map-worker"};
	uint64_t sum = 0;
	for (int i = 0; i < 4; i++) {
		const struct report_thread *t = thread_named(rep, names[i]);
		assert_non_null(t);
		assert_true(t->tid > 0);
		assert_true(t->pid > 0);
		assert_string_equal(t->process, "Workload");
	}
	for (size_t i = 0; i < rep->nthreads; i++)
		sum += rep->threads[i].value;
	assert_int_equal(sum, samples);
	assert_true(frame_total(rep, "Workload.fib", true) > 5);
	uint64_t in_main = frame_total(rep, "Workload.main", false);
	assert_true(in_main > 0 && in_main <= thread_named(rep, "main")->value);
	assert_true(frame_total(rep, "java.lang.Thread.run", false) > samples / 2);
	/* every event is counted: metadata, checkpoints and ordinary events add up to the file */
	uint64_t bytes = 0;
	for (size_t i = 0; i < rep->nevtypes; i++)
		bytes += rep->evtypes[i].bytes;
	assert_int_equal(bytes + JFR_CHUNK_HEADER_SIZE, rep->file_size);
	assert_int_equal(rep->nlost, 0);
	report_free(rep);
}

static void test_jdk17(void **state)
{
	(void)state;
	check_jvm_file(JDK17);
}

static void test_jdk25(void **state)
{
	(void)state;
	check_jvm_file(JDK25);
}

/* An event type the file lacks: the hint lists every type with stacks, each once, however many. */
static void test_stack_types_hint(void **state)
{
	(void)state;
	struct report_opts o;
	bool any;
	report_opts_init(&o);
	o.events[o.nevents++] = "nope";
	struct report *rep = read_file(JDK25, &o);
	const char *types = report_stack_types(rep, &any);
	assert_false(any);
	assert_true(strlen(types) >
	            600); /* JDK 25 declares about 40; the hint was cut at 512 bytes */
	assert_non_null(strstr(types, "jdk.ExecutionSample"));
	assert_non_null(strstr(types, "jdk.CPUTimeSample"));
	/* each once: as many commas as there are distinct names less one */
	size_t commas = 0, names = 1;
	for (const char *p = types; *p; p++)
		commas += *p == ',';
	for (const char *p = types; (p = strchr(p, ',')); p++) {
		char name[128];
		size_t n = strcspn(p + 2, ",");
		assert_true(n < sizeof(name));
		memcpy(name, p + 2, n), name[n] = 0;
		const char *first = strstr(types, name);
		assert_true(first == p + 2 || first[strlen(name)] != ','); /* not listed before */
		names++;
	}
	assert_int_equal(commas + 1, names);
	report_free(rep);
}

/* Two recordings back to back are one file of two chunks; counts add up. */
static void test_concatenated(void **state)
{
	(void)state;
	size_t n1, n2;
	uint8_t *a = slurp(JDK17, &n1), *b = slurp(JDK25, &n2);
	uint8_t *both = malloc(n1 + n2);
	memcpy(both, a, n1);
	memcpy(both + n1, b, n2);
	struct report_opts o;
	report_opts_init(&o);
	struct report *r1, *r2, *r12;
	char err[512];
	assert_int_equal(read_mem(a, n1, &o, &r1, err, sizeof(err)), 0);
	assert_int_equal(read_mem(b, n2, &o, &r2, err, sizeof(err)), 0);
	assert_int_equal(read_mem(both, n1 + n2, &o, &r12, err, sizeof(err)), 0);
	assert_int_equal(r12->nchunks, 2);
	assert_int_equal(r12->total, r1->total + r2->total);
	assert_int_equal(evcount(r12, "jdk.ExecutionSample"),
	                 evcount(r1, "jdk.ExecutionSample") + evcount(r2, "jdk.ExecutionSample"));
	/* threads of different processes with the same name stay apart */
	assert_int_equal(r12->nthreads, r1->nthreads + r2->nthreads);
	report_free(r1);
	report_free(r2);
	report_free(r12);
	free(a);
	free(b);
	free(both);
}

static void test_filters(void **state)
{
	(void)state;
	struct report_opts o;
	report_opts_init(&o);
	struct report *all = read_file(JDK25, &o);

	/* thread by name substring and by tid */
	o.threads[o.nthreads++] = "fib";
	struct report *fib = read_file(JDK25, &o);
	assert_int_equal(fib->nthreads, 1);
	assert_int_equal(fib->total, thread_named(all, "fib-worker")->value);
	char tid[32];
	snprintf(tid, sizeof(tid), "%lld", (long long)thread_named(all, "main")->tid);
	o.threads[0] = tid;
	struct report *main_t = read_file(JDK25, &o);
	assert_int_equal(main_t->total, thread_named(all, "main")->value);

	/* process by pid and by name */
	report_opts_init(&o);
	char pid[32];
	snprintf(pid, sizeof(pid), "%lld", (long long)all->threads[0].pid);
	o.processes[o.nprocesses++] = pid;
	struct report *byp = read_file(JDK25, &o);
	assert_int_equal(byp->total, all->total);
	o.processes[0] = "NoSuchProcess";
	struct report *none = read_file(JDK25, &o);
	assert_int_equal(none->total, 0);
	assert_int_equal(none->sample_events, all->sample_events);

	/* time: [0, t) and [t, end) partition the samples */
	report_opts_init(&o);
	o.to_ns = 2000000000;
	struct report *early = read_file(JDK25, &o);
	report_opts_init(&o);
	o.from_ns = 2000000000;
	struct report *late = read_file(JDK25, &o);
	assert_true(early->total > 0);
	assert_true(late->total > 0);
	assert_int_equal(early->total + late->total, all->total);

	/* another event type: the pipe reader blocks in a JNI method, sampled as native */
	report_opts_init(&o);
	o.events[o.nevents++] = "jdk.NativeMethodSample";
	struct report *native = read_file(JDK25, &o);
	assert_true(native->total > 10);
	assert_true(thread_named(native, "pipe-reader")->value > 5);
	assert_true(frame_total(native, "java.io.FileInputStream.readBytes", true) > 5);
	for (size_t i = 0; i < native->nframes; i++)
		if (!strcmp(native->frames[i].name, "java.io.FileInputStream.readBytes"))
			assert_int_equal(native->frames[i].kind, RF_NATIVE);
	assert_int_equal(native->total, evcount(native, "jdk.NativeMethodSample"));
	report_free(all);
	report_free(fib);
	report_free(main_t);
	report_free(byp);
	report_free(none);
	report_free(early);
	report_free(late);
	report_free(native);
}

/* lfr-style files: a custom sample event with a weight, lost-sample events with a reason. */
static void test_lfr_events(void **state)
{
	(void)state;
	struct report_opts o;
	report_opts_init(&o);
	struct report *def = read_file(GENLFR, &o);
	assert_int_equal(def->total, 0); /* no jdk.ExecutionSample in it */

	o.events[o.nevents++] = "all";
	struct report *all = read_file(GENLFR, &o);
	uint64_t n = evcount(all, "lfr.CPUSample");
	assert_true(n > 0);
	assert_int_equal(all->total, n);
	o.value_field = "weight";
	struct report *w = read_file(GENLFR, &o);
	assert_true(w->total > n);
	/* the totals genjfr printed when it wrote the file (-n 3000 -c 3 -t 6 -s 200 -m 300 -r 7
	 * --event lfr.CPUSample --lost 3): 3000 samples of weight 4002 */
	struct lfr_jfr_check_result cr;
	char err[512];
	if (lfr_jfr_check_file(GENLFR, &cr, err, sizeof(err))) /* JMC reads it too */
		fail_msg("%s: %s", GENLFR, err);
	assert_int_equal(n, 3000);
	assert_int_equal(w->total, 4002);
	/* native and kernel frames */
	bool kernel = false, libc = false;
	for (size_t i = 0; i < w->nframes; i++) {
		kernel |=
		    w->frames[i].kind == RF_KERNEL && !strcmp(w->frames[i].name, "do_syscall_64");
		libc |= w->frames[i].kind == RF_NATIVE && !strcmp(w->frames[i].name, "memcpy");
	}
	assert_true(kernel);
	assert_true(libc);
	/* lost samples: by type and reason */
	uint64_t lost = 0, dataloss = 0;
	for (size_t i = 0; i < w->nlost; i++) {
		if (!strcmp(w->lost[i].type, "lfr.LostSamples")) {
			assert_true(!strcmp(w->lost[i].reason, "ring full") ||
			            !strcmp(w->lost[i].reason, "stack walk fault"));
			assert_string_equal(w->lost[i].field, "lostSamples");
			lost += w->lost[i].amount;
		}
		if (!strcmp(w->lost[i].type, "jdk.DataLoss"))
			dataloss += w->lost[i].events;
	}
	assert_int_equal(lost, 10 + 11 + 12);
	assert_int_equal(dataloss, 3);
	/* the tables say what they count: the --value field, not samples */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	report_print_text(w, &o, out);
	o.sort_objects = true;
	report_print_text(w, &o, out);
	o.sort_objects = false;
	fclose(out);
	assert_non_null(strstr(text, "Top functions by self weight\n"));
	assert_non_null(strstr(text, "Top functions by total weight\n"));
	assert_non_null(strstr(text, "Top objects by self weight\n"));
	assert_non_null(strstr(text, "Threads by weight\n    WEIGHT "));
	assert_null(strstr(text, " by self samples"));
	assert_null(strstr(text, "Threads by samples"));
	free(text);
	report_free(def);
	report_free(all);
	report_free(w);
}

/* Every fuzz corpus input is read or rejected with an offset, without crashing. */
static void test_corpus(void **state)
{
	(void)state;
	DIR *d = opendir(CORPUS);
	assert_non_null(d);
	struct dirent *e;
	int files = 0, ok = 0;
	struct report_opts o;
	report_opts_init(&o);
	o.events[o.nevents++] = "all";
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024], err[512];
		snprintf(path, sizeof(path), "%s/%s", CORPUS, e->d_name);
		size_t n;
		uint8_t *data = slurp(path, &n);
		struct report *rep;
		ok += read_mem(data, n, &o, &rep, err, sizeof(err)) == 0;
		report_free(rep);
		free(data);
		files++;
	}
	closedir(d);
	print_message("corpus: %d files, %d read completely\n", files, ok);
	assert_true(files >= 4);
	assert_true(ok >= 1);
}

/* Cutting a one-chunk recording anywhere gives an error that names an offset; a cut at a chunk
 * boundary of a two-chunk file keeps the first chunk. */
static void test_truncated(void **state)
{
	(void)state;
	size_t n;
	uint8_t *data = slurp(JDK17, &n);
	struct report_opts o;
	report_opts_init(&o);
	char err[512];
	int cuts = 0;
	for (size_t len = 0; len < n; len += len < 200 ? 1 : 1009) {
		struct report *rep;
		assert_int_equal(read_mem(data, len, &o, &rep, err, sizeof(err)), -1);
		assert_int_equal(rep->nchunks, 0);
		report_free(rep);
		cuts++;
	}
	struct report *rep;
	assert_int_equal(read_mem(data, n - 1, &o, &rep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "offset 8: chunk size"));
	report_free(rep);

	/* two chunks, the second cut short: the first is kept, the error names the second's offset
	 */
	uint8_t *two = malloc(2 * n);
	memcpy(two, data, n);
	memcpy(two + n, data, n);
	assert_int_equal(read_mem(two, n + 100, &o, &rep, err, sizeof(err)), -1);
	assert_int_equal(rep->nchunks, 1);
	char want[64];
	snprintf(want, sizeof(want), "offset %zu: chunk size", n + 8);
	assert_non_null(strstr(err, want));
	report_free(rep);

	/* garbage after the last chunk */
	memset(two + n, 'x', 100);
	assert_int_equal(read_mem(two, n + 100, &o, &rep, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "offset %zu: no chunk magic", n);
	assert_non_null(strstr(err, want));
	report_free(rep);
	print_message("truncated: %d cuts\n", cuts);
	free(two);
	free(data);
}

/* Corrupted bytes anywhere: read or rejected with an offset, never a crash. */
static void test_corrupted(void **state)
{
	(void)state;
	size_t n;
	uint8_t *orig = slurp(JDK25, &n);
	uint8_t *data = malloc(n);
	struct report_opts o;
	report_opts_init(&o);
	o.events[o.nevents++] = "all";
	uint64_t seed = 12345;
	int failed = 0;
	for (int i = 0; i < 300; i++) {
		memcpy(data, orig, n);
		for (int k = 0; k < 1 + i % 4; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t pos = (seed >> 20) % n;
			data[pos] =
			    (i & 1) ? (uint8_t)(seed >> 8) : data[pos] ^ (1u << (seed >> 60) % 8);
		}
		struct report *rep;
		char err[512];
		failed += read_mem(data, n, &o, &rep, err, sizeof(err)) < 0;
		report_free(rep);
	}
	print_message("corrupted: 300 variants, %d rejected\n", failed);

	/* specific corruptions and their messages */
	struct {
		size_t off;
		uint8_t byte;
		const char *msg;
	} cases[] = {
	    {0, 'X', "offset 0: no chunk magic"},
	    {5, 9, "offset 4: unsupported JFR version"},
	    {63, 0, "ticks per second"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(data, orig, n);
		if (cases[i].off == 63)
			memset(data + 56, 0, 8);
		else
			data[cases[i].off] = cases[i].byte;
		struct report *rep;
		char err[512];
		assert_int_equal(read_mem(data, n, &o, &rep, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].msg))
			fail_msg("expected '%s' in '%s'", cases[i].msg, err);
		report_free(rep);
	}
	free(data);
	free(orig);
}

/*
 * A file cut while being read (between the size seen at open and the read) is an error that says
 * so, not SIGBUS: the reader reads the file instead of mapping it.
 */
static void test_file_shrinks(void **state)
{
	(void)state;
	char path[] = "/tmp/lfr-shrink-XXXXXX", err[512] = "";
	int fd = mkstemp(path);
	struct stat st;
	struct jfr_reader *r;
	FILE *in = fopen(JDK17, "rb");
	char buf[65536];
	size_t n;

	assert_true(fd >= 0);
	assert_non_null(in);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
	fclose(in);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(ftruncate(fd, st.st_size / 2), 0);
	r = jfr_open_fd(fd, (uint64_t)st.st_size, path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "cut short while being read"));
	/* the same file, read whole, is what it now is: a truncated recording */
	r = jfr_open_fd(fd, (uint64_t)st.st_size / 2, path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->size, st.st_size / 2);
	jfr_close(r); /* closes fd */
	unlink(path);
}

/* The reader's own event iterator sees every event the report counts. */
static void test_event_iterator(void **state)
{
	(void)state;
	struct report_opts o;
	report_opts_init(&o);
	struct report *rep = read_file(JDK17, &o);
	char err[512];
	struct jfr_reader *r = jfr_open_file(JDK17, err, sizeof(err));
	assert_non_null(r);
	struct jfr_chunk ch;
	assert_int_equal(jfr_chunk_load(r, 0, &ch), 0);
	assert_int_equal(ch.size, r->size);
	const struct jfr_type *es = jfr_type_by_name(ch.meta, "jdk.ExecutionSample");
	assert_non_null(es);
	assert_int_equal(jfr_field_index(es, "startTime"), 0);
	struct jfr_event_iter it;
	struct jfr_cur ev;
	uint64_t type, size, n = 0, samples = 0, checkpoints = 0, bytes = JFR_CHUNK_HEADER_SIZE;
	int rc;
	jfr_event_iter_init(&it, r, &ch);
	while ((rc = jfr_event_next(&it, &type, &size, &ev)) == 1) {
		n++;
		bytes += size;
		samples += type == es->id;
		checkpoints += type == JFR_EVENT_CHECKPOINT;
		if (type == es->id) {
			/* decode the sampled thread's name through the pools */
			struct jfr_cur c;
			const struct jfr_field *f =
			    jfr_value_field(r, &ch, es, jfr_cur_off(&ev), "sampledThread", &c);
			assert_non_null(f);
			assert_true(jfr_deref(&c, &ch, f));
			struct jfr_cur tc;
			const struct jfr_field *nf =
			    jfr_value_field(r, &ch, f->type, jfr_cur_off(&c), "javaName", &tc);
			assert_non_null(nf);
			char name[64];
			assert_true(jfr_read_string(&tc, &ch, name, sizeof(name)) > 0);
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(bytes, r->size);
	assert_int_equal(samples, evcount(rep, "jdk.ExecutionSample"));
	assert_int_equal(checkpoints, evcount(rep, "jdk.CheckPoint"));
	uint64_t all = 0;
	for (size_t i = 0; i < rep->nevtypes; i++)
		all += rep->evtypes[i].count;
	assert_int_equal(n, all);
	assert_int_equal(ch.ncheckpoints, checkpoints);
	jfr_chunk_release(&ch);
	jfr_close(r);
	report_free(rep);
}

/* Chunks scanned in parallel give the same report as one at a time. */
static void test_parallel(void **state)
{
	(void)state;
	struct report_opts o;
	report_opts_init(&o);
	o.events[o.nevents++] = "all";
	o.jobs = 1;
	struct report *one = read_file(GENLFR, &o);
	o.jobs = 3;
	struct report *three = read_file(GENLFR, &o);
	assert_int_equal(one->nchunks, 3);
	assert_int_equal(three->nchunks, 3);
	assert_int_equal(one->total, three->total);
	assert_int_equal(one->nstacks, three->nstacks);
	assert_int_equal(one->nframes, three->nframes);
	assert_int_equal(one->nsamples, three->nsamples);
	assert_int_equal(one->nlost, three->nlost);
	for (size_t i = 0; i < one->nsamples; i++) {
		/* merged in file order, so even the interning order is the same */
		assert_int_equal(one->samples[i].stack, three->samples[i].stack);
		assert_int_equal(one->samples[i].value, three->samples[i].value);
	}
	for (size_t i = 0; i < one->nevtypes; i++)
		assert_int_equal(one->evtypes[i].count, three->evtypes[i].count);
	report_free(one);
	report_free(three);
}

static void test_parse_duration(void **state)
{
	(void)state;
	assert_int_equal(report_parse_duration("1.5"), 1500000000);
	assert_int_equal(report_parse_duration("200ms"), 200000000);
	assert_int_equal(report_parse_duration("3us"), 3000);
	assert_int_equal(report_parse_duration("2m"), 120000000000);
	assert_int_equal(report_parse_duration("10ns"), 10);
	assert_int_equal(report_parse_duration("x"), -1);
	assert_int_equal(report_parse_duration("5 parsecs"), -1);
	assert_int_equal(report_parse_duration("-1"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jdk17),        cmocka_unit_test(test_jdk25),
	    cmocka_unit_test(test_concatenated), cmocka_unit_test(test_filters),
	    cmocka_unit_test(test_lfr_events),   cmocka_unit_test(test_stack_types_hint),
	    cmocka_unit_test(test_corpus),       cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_corrupted),    cmocka_unit_test(test_event_iterator),
	    cmocka_unit_test(test_parallel),     cmocka_unit_test(test_parse_duration),
	    cmocka_unit_test(test_file_shrinks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
