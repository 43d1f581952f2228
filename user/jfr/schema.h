/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The schema of lfr recordings, declared as data: every class (primitives, java.lang.String, the
 * pooled types, annotations and events) with its fields and annotations.  The metadata event of
 * every chunk is generated from these tables, and the event and pool encoders use the same type
 * ids.
 */
#ifndef LFR_JFR_SCHEMA_H
#define LFR_JFR_SCHEMA_H

#include <stdint.h>

#include "jfr/encode.h"

/* Class ids.  0 and 1 are the metadata and checkpoint event ids, so classes start above them. */
enum jfr_type_id {
	T_BOOLEAN = 4,
	T_CHAR,
	T_FLOAT,
	T_DOUBLE,
	T_BYTE,
	T_SHORT,
	T_INT,
	T_LONG,
	T_STRING,

	T_CLASS = 20,
	T_CLASS_LOADER,
	T_PACKAGE,
	T_MODULE,
	T_THREAD,
	T_THREAD_GROUP,
	T_STACK_TRACE,
	T_STACK_FRAME,
	T_METHOD,
	T_FRAME_TYPE,
	T_THREAD_STATE,
	T_SYMBOL,
	T_TRACE_CONTEXT_T = 40, /* lfr.types.TraceContext */

	/* annotations */
	T_ANN_LABEL = 50,
	T_ANN_DESCRIPTION,
	T_ANN_CATEGORY,
	T_ANN_TIMESTAMP,
	T_ANN_TIMESPAN,
	T_ANN_DATA_AMOUNT,
	T_ANN_UNSIGNED,
	T_ANN_EXPERIMENTAL,

	/* setting controls, the types of the settings events declare */
	T_SETTING_ENABLED = 60,
	T_SETTING_PERIOD,
	T_SETTING_STACK_TRACE,
	T_SETTING_THROTTLE,

	/*
	 * Events.  A file that concatenates a JVM's recording and lfr's is read by `jfr summary`
	 * with the first chunk's event names for every chunk's ids, so lfr's event ids lie where no
	 * JVM's do: HotSpot numbers its own events and types from 2 up (to 214 in JDK 17, 239 in
	 * JDK 25) and events written in Java by their class ids (1259 and up, after the classes of
	 * the JVM's start).  400 is a 2-byte varint, one byte per event more than an id below 128.
	 */
	T_EXECUTION_SAMPLE = 400,
	T_THREAD_START,
	T_THREAD_END,
	T_ACTIVE_RECORDING,
	T_OS_INFORMATION,
	T_CPU_INFORMATION,
	T_LOST_SAMPLES,
	T_SAMPLER_SETTINGS,
	T_SYSTEM_PROCESS,
	T_CPU_TIME_SAMPLE,
	T_CPU_TIME_SAMPLES_LOST,
	T_ACTIVE_SETTING,
	T_OBJECT_FILE,
	T_OFF_CPU,
	T_SAMPLING_LATENCY,
	T_WALL_CLOCK_SAMPLE,
	T_LABEL,
	T_TRACE_CONTEXT, /* lfr.TraceContext */
};

/* Field flags. */
#define F_CP 0x1    /* constantPool="true": the value is a pool key */
#define F_ARRAY 0x2 /* dimension="1" */

/* Unit annotations a field may carry. */
enum jfr_unit {
	U_NONE,
	U_TICKS_TIMESTAMP, /* @Timestamp("TICKS") */
	U_TICKS_TIMESPAN,  /* @Timespan("TICKS") */
	U_MILLIS_SINCE_EPOCH,
	U_MILLIS_SPAN,
	U_NANOS_SPAN,
	U_BYTES,
	U_UNSIGNED,
	U_UNSIGNED_TICKS_SPAN, /* @Unsigned @Timespan("TICKS"), as jdk.CPUTimeSample's period */
};

struct jfr_field_def {
	const char *name;
	uint16_t type;
	uint8_t flags;
	uint8_t unit;
	const char *label;
	const char *description;
};

/* A <setting> element of an event class: what the JDK declares for jdk.ActiveSetting to refer to.
 */
struct jfr_setting_def {
	const char *name;
	uint16_t type; /* a T_SETTING_* class */
	const char *default_value;
};

struct jfr_type_def {
	uint16_t id;
	const char *name;
	const char *super_type; /* "jdk.jfr.Event", "java.lang.annotation.Annotation" or NULL */
	uint8_t simple;         /* simpleType="true" */
	const char *label;
	const char *description;
	const char *category[3]; /* event category path, NULL-terminated */
	const struct jfr_field_def *fields;
	unsigned nfields;
	const struct jfr_setting_def *settings;
	unsigned nsettings;
	uint8_t experimental; /* @Experimental */
};

extern const struct jfr_type_def jfr_schema[];
extern const unsigned jfr_schema_len;

const struct jfr_type_def *jfr_schema_type(uint16_t id);

/*
 * Builds the complete metadata event (size, type 0, start ticks, duration, metadata id, string
 * table, element tree with the region element) into out.  gmt_offset_ms is the local zone's offset
 * from UTC. Returns the metadata id written (a hash of the content), 0 on allocation failure.
 */
uint64_t jfr_metadata_build(struct jfr_buf *out, uint64_t start_ticks, int64_t gmt_offset_ms);

#endif
