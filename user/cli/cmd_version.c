// SPDX-License-Identifier: GPL-2.0
/* lfr version: the tools' version (the module reports its own in `modinfo lfr`). */
#include <stdio.h>

#include "cli/commands.h"

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("lfr %s\n", LFR_VERSION);
	return 0;
}
