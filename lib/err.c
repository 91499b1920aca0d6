/* err.c — names and texts for the error vocabulary in err.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fairway/err.h"

const char *fw_err_name(int err)
{
	switch (err) {
#define FW__ERR_NAME(name, val, text) \
	case (val):                   \
		return #name;
		FW_ERR_MAP(FW__ERR_NAME)
#undef FW__ERR_NAME
	}
	return "EUNKNOWN";
}

const char *fw_strerror(int err)
{
	switch (err) {
#define FW__ERR_TEXT(name, val, text) \
	case (val):                   \
		return text;
		FW_ERR_MAP(FW__ERR_TEXT)
#undef FW__ERR_TEXT
	}
	return "unknown error";
}

static void copy_str(char *dst, size_t n, const char *src)
{
	if (!src)
		src = "";
	snprintf(dst, n, "%s", src);
}

int fw_diag_set(struct fw_diag *d, int err, const char *file, int line,
		int col, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	copy_str(d->file, sizeof d->file, file);
	copy_str(d->field, sizeof d->field, field);
	d->line = line;
	d->col = col;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return err;
}

void fw_diag_format(const struct fw_diag *d, char *buf, size_t n)
{
	char where[320];

	if (!n)
		return;
	if (d->line > 0 && d->col > 0)
		snprintf(where, sizeof where, "%s:%d:%d", d->file, d->line,
			 d->col);
	else if (d->line > 0)
		snprintf(where, sizeof where, "%s:%d", d->file, d->line);
	else
		snprintf(where, sizeof where, "%s",
			 d->file[0] ? d->file : "<input>");
	if (d->field[0])
		snprintf(buf, n, "%s: field %s: %s", where, d->field, d->msg);
	else
		snprintf(buf, n, "%s: %s", where, d->msg);
}
