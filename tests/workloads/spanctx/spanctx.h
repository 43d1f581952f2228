/* SPDX-License-Identifier: GPL-2.0 */
/* spanctx: the workload's entry, in the object that holds otel_thread_ctx_v1 (ctx.c). */
#ifndef SPANCTX_H
#define SPANCTX_H

__attribute__((visibility("default"))) int spanctx_run(int argc, char **argv);

#endif
