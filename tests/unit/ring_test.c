// SPDX-License-Identifier: GPL-2.0
/* The ring reader's arithmetic: readable bytes, record lookup, wrapped records, corrupt rings, and
 * a simulated producer/consumer run that must deliver every record exactly once and in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/ring.h"

#define SIZE 4096u

static uint8_t data[SIZE];
static char why[160];

static void put(uint64_t pos, uint32_t type, uint32_t size, uint8_t fill)
{
	struct lfr_rec_header h = {type, size};
	uint8_t rec[SIZE];

	memcpy(rec, &h, sizeof(h));
	memset(rec + sizeof(h), fill, size - sizeof(h));
	for (uint32_t i = 0; i < size; i++)
		data[(pos + i) & (SIZE - 1)] = rec[i];
}

static void test_readable(void **state)
{
	(void)state;
	assert_int_equal(lfr_ring_readable(0, 0, SIZE), 0);
	assert_int_equal(lfr_ring_readable(100, 36, SIZE), 64);
	assert_int_equal(lfr_ring_readable(SIZE, 0, SIZE), SIZE);
	assert_int_equal(lfr_ring_readable(SIZE + 8, 0, SIZE), -1);
	assert_int_equal(lfr_ring_readable(8, 16, SIZE), -1); /* head behind tail */
	/* free-running counters wrap modulo 2^64 */
	assert_int_equal(lfr_ring_readable(16, UINT64_MAX - 15, SIZE), 32);
}

static void test_record_contiguous(void **state)
{
	struct lfr_bounce b = {0};
	const struct lfr_rec_header *r;

	(void)state;
	put(64, LFR_REC_SAMPLE, 48, 0xab);
	assert_int_equal(lfr_ring_record_at(data, SIZE, 64, 64, &b, &r, why, sizeof(why)), 0);
	assert_int_equal(lfr_ring_record_at(data, SIZE, 64, 112, &b, &r, why, sizeof(why)), 1);
	assert_ptr_equal(r, data + 64); /* in place, no copy */
	assert_int_equal(r->size, 48);
	assert_null(b.buf);
	/* the same record seen one lap later */
	assert_int_equal(
	    lfr_ring_record_at(data, SIZE, SIZE + 64, SIZE + 112, &b, &r, why, sizeof(why)), 1);
	assert_ptr_equal(r, data + 64);
}

static void test_record_wraps(void **state)
{
	struct lfr_bounce b = {0};
	const struct lfr_rec_header *r;
	uint64_t pos = 3 * SIZE - 24; /* 24 bytes before the end, record of 64 */

	(void)state;
	put(pos, LFR_REC_MMAP, 64, 0x5a);
	assert_int_equal(lfr_ring_record_at(data, SIZE, pos, pos + 64, &b, &r, why, sizeof(why)),
	                 1);
	assert_ptr_equal(r, b.buf);
	assert_int_equal(r->type, LFR_REC_MMAP);
	assert_int_equal(r->size, 64);
	for (unsigned int i = sizeof(*r); i < 64; i++)
		assert_int_equal(((const uint8_t *)r)[i], 0x5a);
	lfr_bounce_free(&b);
}

static void test_record_corrupt(void **state)
{
	struct lfr_bounce b = {0};
	const struct lfr_rec_header *r;

	(void)state;
	put(0, LFR_REC_SAMPLE, 48, 0);
	/* misaligned position */
	assert_int_equal(lfr_ring_record_at(data, SIZE, 4, 52, &b, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "aligned"));
	/* record longer than what was published */
	assert_int_equal(lfr_ring_record_at(data, SIZE, 0, 40, &b, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "past head"));
	/* not enough bytes for a header */
	put(64, LFR_REC_SAMPLE, 48, 0);
	assert_int_equal(lfr_ring_record_at(data, SIZE, 64, 68, &b, &r, why, sizeof(why)), -1);
	/* size 0 would loop forever */
	memset(data + 128, 0, 8);
	assert_int_equal(lfr_ring_record_at(data, SIZE, 128, 256, &b, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "size 0"));
	/* size not a multiple of 8 */
	put(256, LFR_REC_COMM, 48, 0);
	((struct lfr_rec_header *)(data + 256))->size = 44;
	assert_int_equal(lfr_ring_record_at(data, SIZE, 256, 320, &b, &r, why, sizeof(why)), -1);
	/* head more than a ring ahead */
	assert_int_equal(lfr_ring_record_at(data, SIZE, 0, SIZE + 8, &b, &r, why, sizeof(why)), -1);
	assert_null(b.buf);
}

/*
 * A producer that never overwrites unread data and either pads to the end (as lfr.ko does) or lets
 * records wrap, against a consumer that reads in cycles of random length.  Every record carries its
 * sequence number; the consumer must see each exactly once, in order, with its content intact.
 */
static void simulate(int pad_at_end, unsigned int seed)
{
	struct lfr_ring_ctrl ctrl = {0};
	struct lfr_ring ring = {.ctrl = &ctrl, .data = data, .data_size = SIZE, .cpu = 0};
	struct lfr_error e;
	uint64_t next_seq = 0, want_seq = 0, dropped = 0, received = 0, produced_bytes = 0;
	const uint64_t total = 20000;

	srand(seed);
	memset(data, 0, sizeof(data));
	while (received + dropped < total) {
		/* producer burst */
		for (int burst = rand() % 8; burst >= 0 && next_seq < total; burst--) {
			uint32_t size = 16 + 8 * (uint32_t)(rand() % 40);
			uint64_t head = ctrl.head,
			         tail = __atomic_load_n(&ctrl.tail, __ATOMIC_ACQUIRE);
			uint64_t off = head & (SIZE - 1), need = size;

			if (pad_at_end && off + size > SIZE)
				need += SIZE - off;
			if (SIZE - (head - tail) < need) {
				next_seq++; /* would overwrite unread data: dropped */
				dropped++;
				continue;
			}
			if (pad_at_end && off + size > SIZE) {
				put(head, LFR_REC_PAD, (uint32_t)(SIZE - off), 0);
				head += SIZE - off;
			}
			put(head, LFR_REC_SAMPLE, size, (uint8_t)next_seq);
			for (int i = 0; i < 8;
			     i++) /* the sequence number, possibly across the end */
				data[(head + 8 + i) & (SIZE - 1)] = ((uint8_t *)&next_seq)[i];
			__atomic_store_n(&ctrl.head, head + size, __ATOMIC_RELEASE);
			produced_bytes += need;
			next_seq++;
		}
		/* consumer cycle */
		if (rand() % 3 == 0)
			continue;
		assert_true(lfr_ring_begin(&ring, &e) >= 0);
		for (;;) {
			const struct lfr_rec_header *r;
			uint64_t seq;
			int ret = lfr_ring_next(&ring, &r, &e);

			assert_int_not_equal(ret, -1);
			if (ret == 0)
				break;
			if (r->type == LFR_REC_PAD)
				continue;
			assert_int_equal(r->type, LFR_REC_SAMPLE);
			memcpy(&seq, (const uint8_t *)r + 8, 8);
			/* records dropped by the producer are skipped in the sequence */
			assert_true(seq >= want_seq);
			for (uint32_t i = 16; i < r->size; i++)
				assert_int_equal(((const uint8_t *)r)[i], (uint8_t)seq);
			want_seq = seq + 1;
			received++;
		}
		lfr_ring_end(&ring);
		assert_int_equal(ctrl.tail, ctrl.head);
	}
	assert_int_equal(received + dropped, total);
	assert_int_equal(ring.bytes, produced_bytes);
	assert_true(received > total / 2);
	lfr_bounce_free(&ring.bounce);
}

static void test_simulated_padded(void **state)
{
	(void)state;
	simulate(1, 1);
	simulate(1, 42);
}

static void test_simulated_wrapping(void **state)
{
	(void)state;
	simulate(0, 7);
	simulate(0, 1234);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_readable),         cmocka_unit_test(test_record_contiguous),
	    cmocka_unit_test(test_record_wraps),     cmocka_unit_test(test_record_corrupt),
	    cmocka_unit_test(test_simulated_padded), cmocka_unit_test(test_simulated_wrapping),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
