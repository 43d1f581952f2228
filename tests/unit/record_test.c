// SPDX-License-Identifier: GPL-2.0
/* Record decoding (every type, every malformation) and loss accounting against STATUS counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/record.h"

static _Alignas(8) uint8_t buf[1024];
static char why[160];

static struct lfr_rec_sample *sample(uint16_t nk, uint16_t nu, uint32_t weight, uint32_t flags)
{
	struct lfr_rec_sample *s = (void *)buf;

	memset(buf, 0, sizeof(buf));
	s->hdr.type = LFR_REC_SAMPLE;
	s->hdr.size = (uint32_t)(sizeof(*s) + 8u * (nk + nu));
	s->time_ns = 1000;
	s->cpu = 1;
	s->tgid = 10;
	s->tid = 11;
	s->weight = weight;
	s->flags = flags;
	s->nr_kernel = nk;
	s->nr_user = nu;
	for (unsigned int i = 0; i < (unsigned int)nk + nu; i++)
		s->ips[i] = 0x1000 + i;
	return s;
}

static void test_sample(void **state)
{
	struct lfr_record r;
	struct lfr_rec_sample *s = sample(2, 3, 1, LFR_SAMPLE_F_IN_KERNEL);

	(void)state;
	assert_int_equal(lfr_record_decode(&s->hdr, &r, why, sizeof(why)), 0);
	assert_int_equal(r.type, LFR_REC_SAMPLE);
	assert_ptr_equal(r.sample.r, s);
	assert_int_equal(r.sample.kernel_ips[0], 0x1000);
	assert_int_equal(r.sample.kernel_ips[1], 0x1001);
	assert_int_equal(r.sample.user_ips[0], 0x1002);
	assert_int_equal(r.sample.user_ips[2], 0x1004);
	/* a larger record (fields appended by a newer module) still decodes */
	s->hdr.size += 16;
	assert_int_equal(lfr_record_decode(&s->hdr, &r, why, sizeof(why)), 0);
}

static void test_sample_malformed(void **state)
{
	struct lfr_record r;
	struct lfr_rec_sample *s = sample(2, 3, 1, 0);

	(void)state;
	s->nr_user = 4; /* counts run past the size */
	assert_int_equal(lfr_record_decode(&s->hdr, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "frame counts"));
	s = sample(0, 1, 0, 0); /* weight 0 */
	assert_int_equal(lfr_record_decode(&s->hdr, &r, why, sizeof(why)), -1);
	s = sample(0, 0, 1, 0);
	s->hdr.size = 16; /* shorter than the fixed part */
	assert_int_equal(lfr_record_decode(&s->hdr, &r, why, sizeof(why)), -1);
	s->hdr.size = 44; /* not a multiple of 8 */
	assert_int_equal(lfr_record_decode(&s->hdr, &r, why, sizeof(why)), -1);
}

static void test_mmap(void **state)
{
	struct lfr_rec_mmap *m = (void *)buf;
	struct lfr_record r;

	(void)state;
	memset(buf, 0, sizeof(buf));
	m->hdr.type = LFR_REC_MMAP;
	m->hdr.size = sizeof(*m) + 24;
	m->start = 0x400000;
	m->end = 0x401000;
	strcpy(m->path, "/usr/bin/callgraph");
	assert_int_equal(lfr_record_decode(&m->hdr, &r, why, sizeof(why)), 0);
	assert_string_equal(r.mmap.path, "/usr/bin/callgraph");
	memset(m->path, 'x', 24); /* no NUL inside the record */
	assert_int_equal(lfr_record_decode(&m->hdr, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "NUL"));
	strcpy(m->path, "/a");
	m->end = 0x300000; /* ends before it starts */
	assert_int_equal(lfr_record_decode(&m->hdr, &r, why, sizeof(why)), -1);
	m->hdr.size = sizeof(*m); /* no room for a path */
	assert_int_equal(lfr_record_decode(&m->hdr, &r, why, sizeof(why)), -1);
}

/* A sampling latency decodes; one whose walk precedes its tick, or that is cut short, does not. */
static void test_latency(void **state)
{
	struct lfr_rec_latency *l = (void *)buf;
	struct lfr_record r;

	(void)state;
	memset(buf, 0, sizeof(buf));
	l->hdr.type = LFR_REC_LATENCY;
	l->hdr.size = sizeof(*l);
	l->tick_ns = 1000;
	l->time_ns = 3000;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), 0);
	assert_ptr_equal(r.latency, l);
	l->time_ns = 999;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "before its tick"));
	l->time_ns = 3000;
	l->hdr.size = sizeof(*l) - 8;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), -1);
}

static void test_comm_lost_pad_unknown(void **state)
{
	struct lfr_rec_comm *c = (void *)buf;
	struct lfr_rec_lost *l = (void *)buf;
	struct lfr_record r;

	(void)state;
	memset(buf, 0, sizeof(buf));
	c->hdr.type = LFR_REC_COMM;
	c->hdr.size = sizeof(*c);
	strcpy(c->comm, "cg-worker");
	assert_int_equal(lfr_record_decode(&c->hdr, &r, why, sizeof(why)), 0);
	assert_string_equal(r.comm.comm, "cg-worker");
	memset(c->comm, 'a', LFR_COMM_LEN);
	assert_int_equal(lfr_record_decode(&c->hdr, &r, why, sizeof(why)), -1);

	memset(buf, 0, sizeof(buf));
	l->hdr.type = LFR_REC_LOST;
	l->hdr.size = sizeof(*l);
	l->reason = LFR_LOST_RING_FULL;
	l->count = 3;
	l->ticks = 5;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), 0);
	assert_int_equal(r.lost->count, 3);
	l->hdr.size = 16;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), -1);

	l->hdr.type = LFR_REC_PAD;
	l->hdr.size = 512;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), 0);
	l->hdr.type = 77; /* a type from a newer module: skipped by size */
	l->hdr.size = 24;
	assert_int_equal(lfr_record_decode(&l->hdr, &r, why, sizeof(why)), 0);
	assert_int_equal(r.type, 77);
}

/* Feeds records to the accounting as a reader would. */
static void feed(struct lfr_accounting *a, const struct lfr_rec_header *h)
{
	struct lfr_record r;
	int bad = lfr_record_decode(h, &r, why, sizeof(why)) < 0;

	lfr_accounting_add(a, h, &r, bad);
}

static void test_accounting_balances(void **state)
{
	struct lfr_accounting a = {0};
	struct lfr_counters t = {0};
	uint64_t ring_lost[LFR_LOST_MAX + 1] = {0};
	struct lfr_rec_lost *l;
	char *report = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&report, &len);

	(void)state;
	feed(&a, &sample(0, 3, 1, 0)->hdr);
	feed(&a, &sample(1, 3, 4, LFR_SAMPLE_F_USER_TRUNCATED)->hdr);
	feed(&a, &sample(0, 1, 2, LFR_SAMPLE_F_USER_FAULT)->hdr);
	l = (void *)buf;
	memset(buf, 0, sizeof(buf));
	l->hdr.type = LFR_REC_LOST;
	l->hdr.size = sizeof(*l);
	l->reason = LFR_LOST_RING_FULL;
	l->count = 2;
	l->ticks = 3;
	feed(&a, &l->hdr);
	assert_int_equal(a.samples, 3);
	assert_int_equal(a.sample_ticks, 7);
	assert_int_equal(a.lost_records, 1);
	assert_int_equal(a.lost_count[LFR_LOST_RING_FULL], 2);

	t.v[LFR_CTR_SAMPLES_COMMITTED] = 3;
	t.v[LFR_CTR_TICKS_COMMITTED] = 7;
	t.v[LFR_CTR_LOST_RING_FULL] = 3;
	t.v[LFR_CTR_LOST_EXEC] = 1;
	t.v[LFR_CTR_TICKS_MATCHED] = 7 + 3 + 1;
	t.v[LFR_CTR_RECORDS_LOST] = 1;
	t.v[LFR_CTR_USER_TRUNCATED] = 1;
	t.v[LFR_CTR_USER_FAULT] = 1;
	ring_lost[LFR_LOST_RING_FULL] = 2;
	assert_int_equal(lfr_accounting_reconcile(&a, &t, ring_lost, out), 0);

	/* one tick unaccounted for */
	t.v[LFR_CTR_TICKS_MATCHED]++;
	assert_int_equal(lfr_accounting_reconcile(&a, &t, ring_lost, out), 1);
	t.v[LFR_CTR_TICKS_MATCHED]--;
	/* a committed sample the reader never saw */
	t.v[LFR_CTR_SAMPLES_COMMITTED]++;
	assert_int_equal(lfr_accounting_reconcile(&a, &t, ring_lost, out), 1);
	t.v[LFR_CTR_SAMPLES_COMMITTED]--;
	/* a drop at the very end has no in-band record yet: reported, not a failure */
	ring_lost[LFR_LOST_RING_FULL] = 3;
	assert_int_equal(lfr_accounting_reconcile(&a, &t, ring_lost, out), 0);
	/* more in-band than the rings counted is impossible */
	ring_lost[LFR_LOST_RING_FULL] = 1;
	assert_int_equal(lfr_accounting_reconcile(&a, &t, ring_lost, out), 1);
	/* pending walks at the end */
	ring_lost[LFR_LOST_RING_FULL] = 2;
	t.v[LFR_CTR_WORKS_PENDING] = 1;
	assert_int_equal(lfr_accounting_reconcile(&a, &t, ring_lost, out), 1);
	fclose(out);
	assert_non_null(strstr(report, "check ticks_identity ok ticks_matched=11"));
	assert_non_null(strstr(report, "check ticks_pending ok"));
	assert_non_null(strstr(report, "check samples_read FAIL read=3 samples_committed=4"));
	assert_non_null(strstr(report, "unreported=1"));
	free(report);
}

static void test_accounting_malformed(void **state)
{
	struct lfr_accounting a = {0};
	struct lfr_rec_sample *s = sample(0, 2, 1, 0);

	(void)state;
	s->nr_user = 100;
	feed(&a, &s->hdr);
	assert_int_equal(a.malformed, 1);
	assert_int_equal(a.samples, 0);
	assert_int_equal(a.records, 1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(lfr_counter_name(LFR_CTR_TICKS_MATCHED), "ticks_matched");
	assert_string_equal(lfr_counter_name(LFR_CTR_LOST_AUX_RING_FULL), "lost_aux_ring_full");
	assert_string_equal(lfr_counter_name(999), "ctr_999");
	assert_string_equal(lfr_lost_reason_name(LFR_LOST_EXEC), "exec");
	assert_string_equal(lfr_state_name(LFR_STATE_DRAINING), "draining");
	assert_string_equal(lfr_event_name(LFR_EVENT_OVERFLOW), "overflow");
	/* every counter and every reason has a name; the gap below LFR_CTR_LOST_FIRST is kept for
	 * new counters */
	for (unsigned int i = LFR_CTR_TICKS; i <= LFR_CTR_MAX; i++) {
		if (i > LFR_CTR_KSTACK_MISMATCH && i < LFR_CTR_LOST_FIRST) {
			assert_false(lfr_counter_known(i));
			continue;
		}
		assert_true(lfr_counter_known(i));
		assert_null(strstr(lfr_counter_name(i), "ctr_"));
	}
	for (unsigned int i = 0; i <= LFR_LOST_MAX; i++)
		assert_null(strstr(lfr_lost_reason_name(i), "reason_"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample),
	    cmocka_unit_test(test_sample_malformed),
	    cmocka_unit_test(test_mmap),
	    cmocka_unit_test(test_latency),
	    cmocka_unit_test(test_comm_lost_pad_unknown),
	    cmocka_unit_test(test_accounting_balances),
	    cmocka_unit_test(test_accounting_malformed),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
