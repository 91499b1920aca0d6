/* usage.c — fw_cli_usage_error (cli.h): every `fairway` command's
 * refusal of its command line, in one form.  Its own file so that the
 * API client (cmd_client.c) links into its fuzz target without main. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "cliword.h"

int fw_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char who[64];
	va_list ap;
	int rc;

	snprintf(who, sizeof who, "fairway %s", cmd);
	va_start(ap, fmt);
	rc = fw_cli_vrefuse(stderr, who, fmt, ap);
	va_end(ap);
	return rc;
}
