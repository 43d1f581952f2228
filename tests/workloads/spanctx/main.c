// SPDX-License-Identifier: GPL-2.0
/* spanctx, spanctx-lib, spanctx-gd: the threads of ctx.c, built in or linked (ctx.c says how). */
#include "spanctx.h"

int main(int argc, char **argv)
{
	return spanctx_run(argc, argv);
}
