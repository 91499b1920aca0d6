/*
 * openb.c — the openb node/pod list readers (see openb.h for the contract).
 *
 * Shape.  Both lists go through one table-driven loop: a `struct table`
 * says which header names to find, how to parse each (string, or integer
 * with an inclusive range) and where to store it in the record, plus a
 * per-row check for rules that involve two fields (a multi-GPU pod takes
 * whole GPUs, a GPU node names its model).  The whole file is copied once
 * and each line is split in place, so a row costs no allocation beyond its
 * two strings.
 *
 * Errors.  Each message says what the field holds, what was expected and
 * where: "pods.csv:17:23: field gpu_milli: \"4x0\" is not a decimal integer".
 * Columns are 1-based byte offsets of the field's first character.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openb.h"

/* ---- diagnostics -------------------------------------------------------- */

__attribute__((format(printf, 7, 8))) static int
diag(struct fw_diag *d, int err, const char *file, int line, int col,
     const char *field, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return err;
	snprintf(d->file, sizeof d->file, "%s", file ? file : "");
	d->line = line;
	d->col = col;
	snprintf(d->field, sizeof d->field, "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return err;
}

void fw_openb_diag_str(const struct fw_diag *d, char *buf, size_t n)
{
	char where[320] = "";
	size_t k = 0;
	if (d->file[0])
		k += (size_t)snprintf(where, sizeof where, "%s:", d->file);
	if (d->line > 0 && k < sizeof where)
		k += (size_t)snprintf(where + k, sizeof where - k, "%d:",
				      d->line);
	if (d->col > 0 && k < sizeof where)
		snprintf(where + k, sizeof where - k, "%d:", d->col);
	snprintf(buf, n, "%s%s%s%s%s", where, where[0] ? " " : "",
		 d->field[0] ? "field " : "", d->field,
		 d->field[0] ? ": " : "");
	k = strlen(buf);
	if (k < n)
		snprintf(buf + k, n - k, "%s", d->msg);
}

/* ---- CSV splitting ------------------------------------------------------ */

/* Unquote a field that starts at *p (the opening quote) in place; returns
 * the character after the closing quote, or NULL if it never closes. */
static char *unquote(char *p, char **end_of_value)
{
	char *w = p, *r = p + 1;
	for (;;) {
		if (*r == '\0')
			return NULL;
		if (*r == '"' && r[1] == '"') {
			*w++ = '"';
			r += 2;
		} else if (*r == '"') {
			*end_of_value = w;
			return r + 1;
		} else {
			*w++ = *r++;
		}
	}
}

int fw_csv_split(char *line, struct fw_csv_rec *r, const char **why, int *col)
{
	char *p = line;
	r->nf = 0;
	for (;;) {
		char *start = p, *end;
		if (r->nf == FW_CSV_MAX_FIELDS) {
			*why = "too many fields (at most 64)";
			*col = (int)(p - line) + 1;
			return -1;
		}
		r->f[r->nf] = start;
		r->col[r->nf] = (int)(p - line) + 1;
		if (*p == '"') {
			p = unquote(p, &end);
			if (!p) {
				*why = "quoted field is not closed on this line "
				       "(multi-line fields are not supported)";
				*col = r->col[r->nf];
				return -1;
			}
			if (*p != ',' && *p != '\0') {
				*why = "characters after a closing quote";
				*col = (int)(p - line) + 1;
				return -1;
			}
		} else {
			while (*p != ',' && *p != '\0')
				p++;
			end = p;
		}
		r->nf++;
		if (*p == '\0') {
			*end = '\0';
			return 0;
		}
		p++;
		*end = '\0';
	}
}

/* ---- reading a file ----------------------------------------------------- */

int fw_openb_slurp(const char *path, char **buf, size_t *len,
		   struct fw_diag *d)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b;
	if (!f)
		return diag(d, FW_EIO, path, 0, 0, NULL, "cannot open: %s",
			    strerror(errno));
	b = malloc(cap);
	while (b) {
		n += fread(b + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		char *nb = cap > (SIZE_MAX >> 2) ? NULL : realloc(b, cap * 2);
		if (!nb) {
			free(b);
			b = NULL;
			break;
		}
		b = nb;
		cap *= 2;
	}
	if (!b || ferror(f)) {
		int err = b ? FW_EIO : FW_ENOMEM;
		const char *why = b ? strerror(errno) : "out of memory";
		free(b);
		fclose(f);
		return diag(d, err, path, 0, 0, NULL, "cannot read: %s", why);
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return FW_OK;
}
