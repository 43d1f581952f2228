/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict structural checker for JFR files, used by the tests and for diagnosing files: it rejects
 * everything the JDK's and JMC's readers reject (bad headers, chunks past the end of the file,
 * bytes after the last chunk, zero-size events, empty pools, checkpoint sizes that do not match
 * their content, unknown types) and more: every field of every event and pool value is parsed
 * against the file's own metadata, every constant-pool reference must resolve inside its chunk, and
 * a pool key used in several chunks must carry the same value in all of them.
 */
#ifndef LFR_JFR_CHECK_H
#define LFR_JFR_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LFR_JFR_CHECK_MAX_TYPES 64

struct lfr_jfr_check_result {
	unsigned chunks;
	bool last_chunk_final;
	uint64_t events;       /* events other than metadata and checkpoints */
	uint64_t jmc_events;   /* those of them JMC reads (it stops at the first metadata event) */
	uint64_t checkpoints;  /* checkpoints on the chunks' delta chains */
	uint64_t pool_entries; /* pool entries read, all chunks */
	uint64_t references;   /* constant-pool references resolved */
	/* smallest and largest event start time: signed, as both JDKs read ticks */
	int64_t first_ticks, last_ticks;
	bool time_ordered; /* event start times never decrease in file order */
	unsigned ntypes;
	struct {
		char name[64];
		uint64_t count;
	} types[LFR_JFR_CHECK_MAX_TYPES];
};

/* Returns 0 when path is a valid recording; else -1 with a message in err. */
int lfr_jfr_check_file(const char *path, struct lfr_jfr_check_result *r, char *err, size_t errlen);
int lfr_jfr_check_buffer(const uint8_t *data, size_t len, struct lfr_jfr_check_result *r, char *err,
                         size_t errlen);
/* Events of the named type counted by the last check. */
uint64_t lfr_jfr_check_count(const struct lfr_jfr_check_result *r, const char *type_name);

#endif
