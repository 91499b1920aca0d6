/* cli.h — the `fairway` command's subcommands and shared helpers. */
#ifndef FAIRWAY_CLI_H
#define FAIRWAY_CLI_H

#include <stdbool.h>

int fw_cmd_plan(int argc, char **argv);
int fw_cmd_policies(int argc, char **argv);
int fw_cmd_sim(int argc, char **argv);
int fw_cmd_trace(int argc, char **argv);
/* "--name=value" (GNU style): ends the word at '=' (it then reads
 * "--name") and returns the value; NULL when the word is not of that form. */
char *fw_cli_split_eq(char *word);
/* Print "fairway CMD: error: ..." and a hint to stderr; returns 2. */
int fw_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
