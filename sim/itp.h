/*
 * itp.h — reader for the Microsoft ITP arrival traces (ElasticFlow,
 * microsoft/elasticflow-traces): one job per row,
 *
 *     job_id,submission_time,duration,num_gpu
 *     d36ea58c-460e-000c-6306-d8ab27964133,3793,1183,1
 *
 * Columns are found by header name (order free, extra columns ignored).
 * Every value is checked and nothing is clamped or guessed:
 *   job_id           1..63 printable ASCII bytes (no space, quote or
 *                    backslash: ids reach JSON and CSV outputs), unique;
 *   submission_time  whole seconds, 0..FW_ITP_MAX_TIME;
 *   duration         whole seconds, 0..FW_ITP_MAX_TIME;
 *   num_gpu          whole GPUs, 1..FW_ITP_MAX_GPUS.
 * A bad value is an error naming file:line:column, the field and why:
 *     cluster06.csv:17:3: duration: 'abc' is not a number
 * (column = 1-based byte offset of the field's first character).  With
 * FW_ITP_SKIP_BAD a bad data row is skipped and counted instead and the
 * first skipped row's diagnosis is kept; the header must still be right.
 * Lines end in \n or \r\n; blank lines (empty, or only spaces and tabs) are
 * ignored; a line with a NUL byte is a bad row; the last line may lack its
 * newline; a UTF-8 byte-order mark before the header is skipped.  Quoted
 * fields are not supported (the traces have none).
 *
 * Rows keep file order; the simulator sorts them by submission time.
 * Ownership: fw_itp_free() frees a trace (safe on a zeroed one).
 */
#ifndef FAIRWAY_SIM_ITP_H
#define FAIRWAY_SIM_ITP_H

#include <stddef.h>
#include <stdint.h>

#include "fairway/err.h"

#define FW_ITP_SKIP_BAD 1u
#define FW_ITP_MAX_TIME INT64_C(1000000000000) /* ~31,700 years */
#define FW_ITP_MAX_GPUS 4096
#define FW_ITP_ID_MAX 64 /* bytes including the NUL */

struct fw_itp_job {
	char id[FW_ITP_ID_MAX];
	int64_t submit;   /* seconds from trace start */
	int64_t duration; /* seconds */
	int32_t gpus;
	int32_t line;     /* 1-based line in the file */
};

struct fw_itp_trace {
	char file[256];            /* the name given to the parser */
	struct fw_itp_job *v;
	size_t n;
	size_t skipped;            /* bad rows skipped (FW_ITP_SKIP_BAD) */
	struct fw_diag first_bad;  /* why the first skipped row was bad */
};

/* Parse a buffer (need not be NUL-terminated).  fname is used only in
 * diagnostics.  FW_OK, FW_EINVAL (*d says where/why) or FW_ENOMEM; on
 * failure *out is left empty. */
int fw_itp_parse(const char *buf, size_t len, const char *fname,
		 unsigned flags, struct fw_itp_trace *out, struct fw_diag *d);
/* Read and parse a file; FW_EIO when it cannot be read. */
int fw_itp_read(const char *path, unsigned flags, struct fw_itp_trace *out,
		struct fw_diag *d);
void fw_itp_free(struct fw_itp_trace *t);

/* "FILE:LINE:COL: FIELD: MSG" (unknown parts left out).  Control and
 * non-ASCII bytes in FIELD and MSG (values quoted from the file) are shown
 * as '?'. */
void fw_itp_diag_str(const struct fw_diag *d, char *buf, size_t n);

/* Whole file into a NUL-terminated malloc'd buffer (FW_EIO/FW_ENOMEM). */
int fw_itp_slurp(const char *path, char **buf, size_t *len, struct fw_diag *d);

#endif
