// SPDX-License-Identifier: GPL-2.0
/*
 * The schema as data (metadata.c writes the metadata event from it).
 *
 * Reader compatibility facts encoded here:
 * - every type a field refers to is declared, primitives and annotations included;
 * - events start with startTime (and duration as field 1 when present): the JDK reads them by
 * position;
 * - Symbol, FrameType and ThreadState are simpleType wrappers, without which both the JDK and JMC
 * fail;
 */
#include <stddef.h>

#include "jfr/schema.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FIELDS(a) a, N(a)

static const struct jfr_field_def f_value[] = {
    {"value", T_STRING, 0, U_NONE, NULL, NULL},
};
static const struct jfr_field_def f_value_array[] = {
    {"value", T_STRING, F_ARRAY, U_NONE, NULL, NULL},
};
static const struct jfr_field_def f_class[] = {
    {"classLoader", T_CLASS_LOADER, F_CP, U_NONE, "Class Loader", NULL},
    {"name", T_SYMBOL, F_CP, U_NONE, "Name", NULL},
    {"package", T_PACKAGE, F_CP, U_NONE, "Package", NULL},
    {"modifiers", T_INT, 0, U_NONE, "Access Modifiers", NULL},
    {"hidden", T_BOOLEAN, 0, U_NONE, "Hidden", NULL},
};
static const struct jfr_field_def f_class_loader[] = {
    {"type", T_CLASS, F_CP, U_NONE, "Type", NULL},
    {"name", T_SYMBOL, F_CP, U_NONE, "Name", NULL},
};
static const struct jfr_field_def f_package[] = {
    {"name", T_SYMBOL, F_CP, U_NONE, "Name", NULL},
    {"module", T_MODULE, F_CP, U_NONE, "Module", NULL},
    {"exported", T_BOOLEAN, 0, U_NONE, "Exported", NULL},
};
static const struct jfr_field_def f_module[] = {
    {"name", T_SYMBOL, F_CP, U_NONE, "Name", NULL},
    {"version", T_SYMBOL, F_CP, U_NONE, "Version", NULL},
    {"location", T_SYMBOL, F_CP, U_NONE, "Location", NULL},
    {"classLoader", T_CLASS_LOADER, F_CP, U_NONE, "Class Loader", NULL},
};
static const struct jfr_field_def f_thread[] = {
    {"osName", T_STRING, 0, U_NONE, "OS Thread Name", NULL},
    {"osThreadId", T_LONG, 0, U_NONE, "OS Thread Id", NULL},
    {"javaName", T_STRING, 0, U_NONE, "Java Thread Name", NULL},
    {"javaThreadId", T_LONG, 0, U_NONE, "Java Thread Id", NULL},
    {"group", T_THREAD_GROUP, F_CP, U_NONE, "Java Thread Group",
     "lfr: the process (thread group id) the thread belongs to"},
};
static const struct jfr_field_def f_thread_group[] = {
    {"parent", T_THREAD_GROUP, F_CP, U_NONE, "Parent", NULL},
    {"name", T_STRING, 0, U_NONE, "Name", NULL},
};
static const struct jfr_field_def f_stack_trace[] = {
    {"truncated", T_BOOLEAN, 0, U_NONE, "Truncated", NULL},
    {"frames", T_STACK_FRAME, F_ARRAY, U_NONE, "Stack Frames", NULL},
};
static const struct jfr_field_def f_stack_frame[] = {
    {"method", T_METHOD, F_CP, U_NONE, "Java Method", NULL},
    {"lineNumber", T_INT, 0, U_NONE, "Line Number", NULL},
    {"bytecodeIndex", T_INT, 0, U_NONE, "Bytecode Index", NULL},
    {"type", T_FRAME_TYPE, F_CP, U_NONE, "Frame Type", NULL},
};
static const struct jfr_field_def f_method[] = {
    {"type", T_CLASS, F_CP, U_NONE, "Type", NULL},
    {"name", T_SYMBOL, F_CP, U_NONE, "Name", NULL},
    {"descriptor", T_SYMBOL, F_CP, U_NONE, "Descriptor", NULL},
    {"modifiers", T_INT, 0, U_NONE, "Modifiers", NULL},
    {"hidden", T_BOOLEAN, 0, U_NONE, "Hidden", NULL},
};
static const struct jfr_field_def f_frame_type[] = {
    {"description", T_STRING, 0, U_NONE, "Description", NULL},
};
static const struct jfr_field_def f_thread_state[] = {
    {"name", T_STRING, 0, U_NONE, "Name", NULL},
};
static const struct jfr_field_def f_symbol[] = {
    {"string", T_STRING, 0, U_NONE, "String", NULL},
};

#define START_TIME                                                                                 \
	{                                                                                          \
		"startTime", T_LONG, 0, U_TICKS_TIMESTAMP, "Start Time", NULL                      \
	}
#define DURATION                                                                                   \
	{                                                                                          \
		"duration", T_LONG, 0, U_TICKS_TIMESPAN, "Duration", NULL                          \
	}

/* The implicit fields of JDK 17's native events (duration, eventThread, stackTrace) where it
 * declares them: lfr writes them null. */
#define EVENT_THREAD                                                                               \
	{                                                                                          \
		"eventThread", T_THREAD, F_CP, U_NONE, "Event Thread",                             \
		    "Thread in which event was committed in"                                       \
	}
#define EVENT_STACK_TRACE                                                                          \
	{                                                                                          \
		"stackTrace", T_STACK_TRACE, F_CP, U_NONE, "Stack Trace",                          \
		    "Stack Trace starting from the method the event was committed in"              \
	}

/*
 * The jdk.* events have the JDK's own fields, JDK 17's where JDK 25 declares others (JMC makes two
 * types of one whose fields differ between the chunks of a file, a JVM's and lfr's).
 */
static const struct jfr_field_def f_execution_sample[] = {
    START_TIME,
    {"sampledThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
    {"stackTrace", T_STACK_TRACE, F_CP, U_NONE, "Stack Trace", NULL},
    {"state", T_THREAD_STATE, F_CP, U_NONE, "Thread State", NULL},
};
/*
 * async-profiler's wall-clock sample, declared as it declares it (src/jfrMetadata.cpp): its
 * converter reads the fields by position, Pyroscope's parser by name and type.  samples: the
 * periods the sample stands for (lfr: 1), timeSpan: the time they cover (lfr: 0).
 */
static const struct jfr_field_def f_wall_clock_sample[] = {
    START_TIME,
    {"sampledThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
    {"stackTrace", T_STACK_TRACE, F_CP, U_NONE, "Stack Trace", NULL},
    {"state", T_THREAD_STATE, F_CP, U_NONE, "Thread State", NULL},
    {"samples", T_INT, 0, U_UNSIGNED, "Samples", NULL},
    {"timeSpan", T_LONG, 0, U_TICKS_TIMESPAN, "Time Span", NULL},
};
static const struct jfr_field_def f_thread_start[] = {
    START_TIME,
    EVENT_THREAD,
    EVENT_STACK_TRACE,
    {"thread", T_THREAD, F_CP, U_NONE, "New Java Thread", NULL},
    {"parentThread", T_THREAD, F_CP, U_NONE, "Parent Java Thread", NULL},
};
static const struct jfr_field_def f_thread_end[] = {
    START_TIME,
    EVENT_THREAD,
    {"thread", T_THREAD, F_CP, U_NONE, "Java Thread", NULL},
};
static const struct jfr_field_def f_active_recording[] = {
    START_TIME,
    DURATION,
    EVENT_THREAD,
    EVENT_STACK_TRACE,
    {"id", T_LONG, 0, U_NONE, "Id", NULL},
    {"name", T_STRING, 0, U_NONE, "Name", NULL},
    {"destination", T_STRING, 0, U_NONE, "Destination", NULL},
    {"maxAge", T_LONG, 0, U_MILLIS_SPAN, "Max Age", NULL},
    {"flushInterval", T_LONG, 0, U_MILLIS_SPAN, "Flush Interval", NULL},
    {"maxSize", T_LONG, 0, U_BYTES, "Max Size", NULL},
    {"recordingStart", T_LONG, 0, U_MILLIS_SINCE_EPOCH, "Start Time", NULL},
    {"recordingDuration", T_LONG, 0, U_MILLIS_SPAN, "Recording Duration", NULL},
};
static const struct jfr_field_def f_os_information[] = {
    START_TIME,
    {"osVersion", T_STRING, 0, U_NONE, "OS Version", NULL},
};
static const struct jfr_field_def f_system_process[] = {
    START_TIME,
    {"pid", T_STRING, 0, U_NONE, "Process Identifier", NULL},
    {"commandLine", T_STRING, 0, U_NONE, "Command Line", NULL},
};
static const struct jfr_field_def f_object_file[] = {
    START_TIME,
    {"name", T_STRING, 0, U_NONE, "Name", "The object's name in the frames: their class"},
    {"path", T_STRING, 0, U_NONE, "Path", "The file as it was mapped"},
    {"buildId", T_STRING, 0, U_NONE, "Build ID", "The GNU build-id, in hex; empty when none"},
};
static const struct jfr_field_def f_off_cpu[] = {
    START_TIME,
    {"duration", T_LONG, 0, U_TICKS_TIMESPAN, "Duration", NULL},
    {"eventThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
    {"stackTrace", T_STACK_TRACE, F_CP, U_NONE, "Stack Trace",
     "The kernel stack the thread left the CPU with, above its user stack"},
    {"state", T_STRING, 0, U_NONE, "State",
     "Why it left: sleeping, uninterruptible, preempted, idle or other"},
    {"shortCount", T_LONG, 0, U_NONE, "Short Intervals",
     "The thread's off-CPU intervals shorter than the minimum so far (not recorded one by one)"},
    {"shortDuration", T_LONG, 0, U_NANOS_SPAN, "Short Intervals Duration",
     "Their total length so far"},
};
static const struct jfr_field_def f_sampling_latency[] = {
    START_TIME,
    {"duration", T_LONG, 0, U_TICKS_TIMESPAN, "Duration", NULL},
    {"eventThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
    {"stackTrace", T_STACK_TRACE, F_CP, U_NONE, "Stack Trace",
     "The kernel stack the tick interrupted, above the user stack the thread returned to"},
};
static const struct jfr_field_def f_label[] = {
    START_TIME,
    {"pid", T_LONG, 0, U_NONE, "Process Identifier",
     "The process the label belongs to; 0: every process of the recording"},
    {"name", T_STRING, 0, U_NONE, "Name", "The label's key: service.name, container.id, ..."},
    {"value", T_STRING, 0, U_NONE, "Value", NULL},
};
static const struct jfr_field_def f_cpu_information[] = {
    START_TIME,
    {"cpu", T_STRING, 0, U_NONE, "Type", NULL},
    {"description", T_STRING, 0, U_NONE, "Description", NULL},
    {"sockets", T_INT, 0, U_UNSIGNED, "Sockets", NULL},
    {"cores", T_INT, 0, U_UNSIGNED, "Cores", NULL},
    {"hwThreads", T_INT, 0, U_UNSIGNED, "Hardware Threads", NULL},
};
static const struct jfr_field_def f_lost_samples[] = {
    START_TIME,
    {"reason", T_STRING, 0, U_NONE, "Reason", "Why the samples were lost"},
    {"count", T_LONG, 0, U_NONE, "Count", "Samples lost for this reason since the previous event"},
    {"total", T_LONG, 0, U_NONE, "Total", "Samples lost for this reason since the recording began"},
};
static const struct jfr_field_def f_sampler_settings[] = {
    START_TIME,
    {"periodNanos", T_LONG, 0, U_NANOS_SPAN, "Sampling Period", NULL},
    {"maxDepth", T_INT, 0, U_NONE, "Maximum Stack Depth", NULL},
    {"kernelStacks", T_BOOLEAN, 0, U_NONE, "Kernel Stacks", NULL},
    {"target", T_STRING, 0, U_NONE, "Target", "The processes or threads sampled"},
};

static const struct jfr_field_def f_trace_context_t[] = {
    {"traceId", T_STRING, 0, U_NONE, "Trace ID", "W3C trace id, 32 hex digits"},
    {"spanId", T_STRING, 0, U_NONE, "Span ID", "W3C span id, 16 hex digits"},
    /* int, not byte: Pyroscope's JFR parser reads no byte field, and refuses the whole file */
    {"traceFlags", T_INT, 0, U_NONE, "Trace Flags", "W3C trace flags (bit 0: sampled)"},
    {"attributes", T_STRING, 0, U_NONE, "Attributes",
     "The record's attributes as a W3C baggage string (key=value,key=value; percent-encoded), "
     "keys named by the process context's attribute key map"},
};
static const struct jfr_field_def f_trace_context[] = {
    START_TIME,
    {"sampledThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
    {"context", T_TRACE_CONTEXT_T, F_CP, U_NONE, "Trace Context", NULL},
};

/* JDK 25 (JEP 509), in the JDK's field order and with its annotations. */
static const struct jfr_field_def f_cpu_time_sample[] = {
    START_TIME,
    {"stackTrace", T_STACK_TRACE, F_CP, U_NONE, "Stack Trace", NULL},
    {"eventThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
    {"failed", T_BOOLEAN, 0, U_NONE, "Failed", "Failed to obtain the stack trace"},
    {"samplingPeriod", T_LONG, 0, U_UNSIGNED_TICKS_SPAN, "CPU Time Sampling Period", NULL},
    {"biased", T_BOOLEAN, 0, U_NONE, "Biased", "The sample is safepoint-biased"},
};
static const struct jfr_field_def f_cpu_time_samples_lost[] = {
    START_TIME,
    {"lostSamples", T_INT, 0, U_NONE, "Lost Samples", NULL},
    {"eventThread", T_THREAD, F_CP, U_NONE, "Thread", NULL},
};
static const struct jfr_field_def f_active_setting[] = {
    START_TIME,
    DURATION,
    EVENT_THREAD,
    EVENT_STACK_TRACE,
    {"id", T_LONG, 0, U_NONE, "Event Id", NULL},
    {"name", T_STRING, 0, U_NONE, "Setting Name", NULL},
    {"value", T_STRING, 0, U_NONE, "Setting Value", NULL},
};

/* The settings and default values JDK 25 declares for these events. */
static const struct jfr_setting_def s_execution_sample[] = {
    {"period", T_SETTING_PERIOD, "everyChunk"},
    {"enabled", T_SETTING_ENABLED, "false"},
};
static const struct jfr_setting_def s_cpu_time_sample[] = {
    {"stackTrace", T_SETTING_STACK_TRACE, "true"},
    {"throttle", T_SETTING_THROTTLE, "off"},
    {"enabled", T_SETTING_ENABLED, "false"},
};
static const struct jfr_setting_def s_enabled[] = {
    {"enabled", T_SETTING_ENABLED, "false"},
};
#define SETTINGS(a) a, N(a)

#define EVENT "jdk.jfr.Event"
#define ANNOTATION "java.lang.annotation.Annotation"
#define SETTING "jdk.jfr.SettingControl"

const struct jfr_type_def jfr_schema[] = {
    {T_BOOLEAN, "boolean"},
    {T_CHAR, "char"},
    {T_FLOAT, "float"},
    {T_DOUBLE, "double"},
    {T_BYTE, "byte"},
    {T_SHORT, "short"},
    {T_INT, "int"},
    {T_LONG, "long"},
    {T_STRING, "java.lang.String"},

    {T_CLASS, "java.lang.Class", NULL, 0, "Java Class", NULL, {NULL}, FIELDS(f_class)},
    {T_CLASS_LOADER,
     "jdk.types.ClassLoader",
     NULL,
     0,
     "Java Class Loader",
     NULL,
     {NULL},
     FIELDS(f_class_loader)},
    {T_PACKAGE, "jdk.types.Package", NULL, 0, "Package", NULL, {NULL}, FIELDS(f_package)},
    {T_MODULE, "jdk.types.Module", NULL, 0, "Module", NULL, {NULL}, FIELDS(f_module)},
    {T_THREAD, "java.lang.Thread", NULL, 0, "Thread", NULL, {NULL}, FIELDS(f_thread)},
    {T_THREAD_GROUP,
     "jdk.types.ThreadGroup",
     NULL,
     0,
     "Thread Group",
     NULL,
     {NULL},
     FIELDS(f_thread_group)},
    {T_STACK_TRACE,
     "jdk.types.StackTrace",
     NULL,
     0,
     "Stacktrace",
     NULL,
     {NULL},
     FIELDS(f_stack_trace)},
    {T_STACK_FRAME,
     "jdk.types.StackFrame",
     NULL,
     0,
     "Stack Frame",
     NULL,
     {NULL},
     FIELDS(f_stack_frame)},
    {T_METHOD, "jdk.types.Method", NULL, 0, "Java Method", NULL, {NULL}, FIELDS(f_method)},
    {T_FRAME_TYPE,
     "jdk.types.FrameType",
     NULL,
     1,
     "Frame type",
     NULL,
     {NULL},
     FIELDS(f_frame_type)},
    {T_THREAD_STATE,
     "jdk.types.ThreadState",
     NULL,
     1,
     "Java Thread State",
     NULL,
     {NULL},
     FIELDS(f_thread_state)},
    {T_SYMBOL, "jdk.types.Symbol", NULL, 1, "Symbol", NULL, {NULL}, FIELDS(f_symbol)},
    {T_TRACE_CONTEXT_T,
     "lfr.types.TraceContext",
     NULL,
     0,
     "Trace Context",
     "An OpenTelemetry thread context (OTEP 4947): the trace and span a thread ran for",
     {NULL},
     FIELDS(f_trace_context_t)},

    {T_ANN_LABEL, "jdk.jfr.Label", ANNOTATION, 0, NULL, NULL, {NULL}, FIELDS(f_value)},
    {T_ANN_DESCRIPTION, "jdk.jfr.Description", ANNOTATION, 0, NULL, NULL, {NULL}, FIELDS(f_value)},
    {T_ANN_CATEGORY, "jdk.jfr.Category", ANNOTATION, 0, NULL, NULL, {NULL}, FIELDS(f_value_array)},
    {T_ANN_TIMESTAMP, "jdk.jfr.Timestamp", ANNOTATION, 0, NULL, NULL, {NULL}, FIELDS(f_value)},
    {T_ANN_TIMESPAN, "jdk.jfr.Timespan", ANNOTATION, 0, NULL, NULL, {NULL}, FIELDS(f_value)},
    {T_ANN_DATA_AMOUNT, "jdk.jfr.DataAmount", ANNOTATION, 0, NULL, NULL, {NULL}, FIELDS(f_value)},
    {T_ANN_UNSIGNED, "jdk.jfr.Unsigned", ANNOTATION},
    {T_ANN_EXPERIMENTAL, "jdk.jfr.Experimental", ANNOTATION},

    {T_SETTING_ENABLED, "jdk.settings.Enabled", SETTING, 0, "Enabled", "Record event"},
    {T_SETTING_PERIOD, "jdk.settings.Period", SETTING, 0, "Period", "Record event at interval"},
    {T_SETTING_STACK_TRACE, "jdk.settings.StackTrace", SETTING, 0, "Stack Trace",
     "Record stack traces"},
    {T_SETTING_THROTTLE, "jdk.settings.Throttle", SETTING, 0, "Throttle",
     "Throttles the emission rate for an event"},

    {T_EXECUTION_SAMPLE,
     "jdk.ExecutionSample",
     EVENT,
     0,
     "Method Profiling Sample",
     "Snapshot of a thread's stack taken by the lfr sampler",
     {"Java Virtual Machine", "Profiling"},
     FIELDS(f_execution_sample),
     SETTINGS(s_execution_sample)},
    {T_THREAD_START,
     "jdk.ThreadStart",
     EVENT,
     0,
     "Java Thread Start",
     NULL,
     {"Java Application"},
     FIELDS(f_thread_start)},
    {T_THREAD_END,
     "jdk.ThreadEnd",
     EVENT,
     0,
     "Java Thread End",
     NULL,
     {"Java Application"},
     FIELDS(f_thread_end)},
    {T_ACTIVE_RECORDING,
     "jdk.ActiveRecording",
     EVENT,
     0,
     "Flight Recording",
     NULL,
     {"Flight Recorder"},
     FIELDS(f_active_recording)},
    {T_OS_INFORMATION,
     "jdk.OSInformation",
     EVENT,
     0,
     "OS Information",
     NULL,
     {"Operating System"},
     FIELDS(f_os_information)},
    {T_CPU_INFORMATION,
     "jdk.CPUInformation",
     EVENT,
     0,
     "CPU Information",
     NULL,
     {"Operating System", "Processor"},
     FIELDS(f_cpu_information)},
    {T_LOST_SAMPLES,
     "lfr.LostSamples",
     EVENT,
     0,
     "Lost Samples",
     "Samples the recorder could not record, counted per reason",
     {"lfr"},
     FIELDS(f_lost_samples)},
    {T_SYSTEM_PROCESS,
     "jdk.SystemProcess",
     EVENT,
     0,
     "System Process",
     "lfr: a process of the recording and its command line",
     {"Operating System"},
     FIELDS(f_system_process)},
    {T_SAMPLER_SETTINGS,
     "lfr.SamplerSettings",
     EVENT,
     0,
     "Sampler Settings",
     "How the lfr sampler was configured for this recording",
     {"lfr"},
     FIELDS(f_sampler_settings)},
    {T_CPU_TIME_SAMPLE,
     "jdk.CPUTimeSample",
     EVENT,
     0,
     "CPU Time Sample",
     "Snapshot of a threads state from the CPU time sampler, both threads executing native and "
     "Java code are included. The throttle setting can be either an upper bound for the event "
     "emission rate, e.g. 100/s, or the cpu-time period, e.g. 10ms, with s, ms, us and ns "
     "supported as time units.",
     {"Java Virtual Machine", "Profiling"},
     FIELDS(f_cpu_time_sample),
     SETTINGS(s_cpu_time_sample),
     1},
    {T_CPU_TIME_SAMPLES_LOST,
     "jdk.CPUTimeSamplesLost",
     EVENT,
     0,
     "CPU Time Samples Lost",
     "Records that the CPU time sampler lost samples",
     {"Java Virtual Machine", "Profiling"},
     FIELDS(f_cpu_time_samples_lost),
     SETTINGS(s_enabled),
     1},
    {T_ACTIVE_SETTING,
     "jdk.ActiveSetting",
     EVENT,
     0,
     "Recording Setting",
     NULL,
     {"Flight Recorder"},
     FIELDS(f_active_setting),
     SETTINGS(s_enabled)},
    {T_OBJECT_FILE,
     "lfr.ObjectFile",
     EVENT,
     0,
     "Object File",
     "An object file whose frames the recording left unnamed (their method is the address): "
     "where lfr report looks for its symbols",
     {"lfr"},
     FIELDS(f_object_file)},
    {T_OFF_CPU,
     "lfr.OffCpu",
     EVENT,
     0,
     "Off-CPU Interval",
     "A thread off the CPU from its switch-out to its switch-in, with the stack it left with",
     {"lfr"},
     FIELDS(f_off_cpu)},
    {T_WALL_CLOCK_SAMPLE,
     "profiler.WallClockSample",
     EVENT,
     0,
     "Wall Clock Sample",
     "lfr: a wall-clock sample (lfr record --wall), of a thread on the CPU (STATE_RUNNABLE, at the "
     "instant of its CPU sample) or off it (STATE_SLEEPING, or STATE_RUNNABLE when preempted); "
     "async-profiler's type, which its converter and Pyroscope read as wall-clock samples",
     {"Java Virtual Machine", "Profiling"},
     FIELDS(f_wall_clock_sample)},
    {T_SAMPLING_LATENCY,
     "lfr.SamplingLatency",
     EVENT,
     0,
     "Sampling Latency",
     "A tick that interrupted a thread in the kernel, until the thread returned to user space "
     "and walked its user stack",
     {"lfr"},
     FIELDS(f_sampling_latency)},
    {T_LABEL,
     "lfr.Label",
     EVENT,
     0,
     "Label",
     "A label fleet backends group profiles by (OpenTelemetry's resource attributes): of the "
     "recording (host.name, lfr record --label) or of a process (its service, container, pod)",
     {"lfr"},
     FIELDS(f_label)},
    {T_TRACE_CONTEXT,
     "lfr.TraceContext",
     EVENT,
     0,
     "Trace Context",
     "The OpenTelemetry thread context of sampledThread at startTime: every sample event of that "
     "thread at that instant (jdk.ExecutionSample, jdk.CPUTimeSample, profiler.WallClockSample, "
     "lfr.OffCpu, lfr.SamplingLatency) ran for this trace and span",
     {"lfr"},
     FIELDS(f_trace_context)},
};
const unsigned jfr_schema_len = N(jfr_schema);

const struct jfr_type_def *jfr_schema_type(uint16_t id)
{
	for (unsigned i = 0; i < jfr_schema_len; i++)
		if (jfr_schema[i].id == id)
			return &jfr_schema[i];
	return NULL;
}
