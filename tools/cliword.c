/* cliword.c — see cliword.h. */
#include <stdio.h>
#include <string.h>

#include "cliword.h"

char *fw_cli_split_eq(char *word)
{
	char *eq = strncmp(word, "--", 2) ? NULL : strchr(word, '=');

	if (!eq)
		return NULL;
	*eq = '\0';
	return eq + 1;
}

int fw_cli_joined_ok(const char *flag, const char *value, const char *const *bare, char *why,
		     size_t n)
{
	if (!value)
		return 0;
	for (; *bare; bare++)
		if (!strcmp(flag, *bare)) {
			snprintf(why, n, "%s takes no value (got \"%s=%s\")", flag, flag, value);
			return 2;
		}
	if (*value)
		return 0;
	snprintf(why, n, "%s= has an empty value; give %s VALUE or %s=VALUE", flag, flag, flag);
	return 2;
}
