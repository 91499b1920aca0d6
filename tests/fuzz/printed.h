/*
 * printed.h — one check shared by the trace readers' fuzz targets.
 *
 * A reader's diagnosis reaches the user's terminal, so as printed it must
 * carry no control or non-ASCII byte from the input (trace names are
 * ASCII, and so are the fuzz targets' file names): the formatter masks
 * them as '?'.  fuzz_check_printed(fmt, d) formats d with the reader's
 * own formatter (fw_itp_diag_str, fw_openb_diag_str) and aborts, which
 * libFuzzer reports as a crash, on the first such byte.
 */
#ifndef FAIRWAY_FUZZ_PRINTED_H
#define FAIRWAY_FUZZ_PRINTED_H

#include <stddef.h>
#include <stdlib.h>

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

#endif
