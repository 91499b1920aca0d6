/*
 * printed.h — one check shared by the trace readers' fuzz targets.
 *
 * A reader's diagnosis reaches the user's terminal, so as printed it must
 * carry no control or non-ASCII byte from the input (trace names are
 * ASCII, and so are the fuzz targets' file names): the formatter masks
 * them as '?'.  fuzz_check_printed(fmt, d) formats d with the reader's
 * own formatter (fw_itp_diag_str, fw_openb_diag_str) and aborts, which
 * libFuzzer reports as a crash, on the first such byte.
 * fuzz_check_says_what_to_do(rc, d) holds a refusal to the project's rule
 * that bad input is told what to do.
 */
#ifndef FAIRWAY_FUZZ_PRINTED_H
#define FAIRWAY_FUZZ_PRINTED_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fairway/err.h"

typedef void (*fuzz_diag_fmt)(const struct fw_diag *d, char *buf, size_t n);

static inline void fuzz_check_printed(fuzz_diag_fmt fmt, const struct fw_diag *d)
{
	char msg[1024];

	fmt(d, msg, sizeof msg);
	for (const char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			abort();
}

/* A refusal of bad input (FW_EINVAL) says what is wrong, then what to do
 * ("...; give a whole number of GPUs, 1..4096"), and the message is not
 * cut short at the diagnosis's size, which would drop that part.  For the
 * readers whose every refusal does (sim/itp.c, sim/sacct.c). */
static inline void fuzz_check_says_what_to_do(int rc, const struct fw_diag *d)
{
	size_t n = 0;

	while (n < sizeof d->msg && d->msg[n])
		n++;
	if (rc == FW_EINVAL && (n >= sizeof d->msg - 1 || !strstr(d->msg, "; ")))
		abort();
}

#endif
