/* usage.c — fw_cli_usage_error (cli.h): every `fairway` command's
 * refusal of its command line, in one form.  Its own file so that the
 * API client (cmd_client.c) links into its fuzz target without main. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int fw_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fairway %s: error: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nrun `fairway %s --help` for usage\n", cmd);
	return 2;
}
