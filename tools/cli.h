/* cli.h — the `fairway` command's subcommands and shared helpers. */
#ifndef FAIRWAY_CLI_H
#define FAIRWAY_CLI_H

#include <stdbool.h>

#include "cliword.h" /* fw_cli_split_eq */

int fw_cmd_plan(int argc, char **argv);
int fw_cmd_policies(int argc, char **argv);
int fw_cmd_sim(int argc, char **argv);
int fw_cmd_trace(int argc, char **argv);
/* Print "fairway CMD: error: ..." and a hint to stderr; returns 2. */
int fw_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
