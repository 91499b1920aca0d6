/*
 * openb.h — readers for the Alibaba openb node and pod lists
 * (cluster-trace-gpu-v2023, the FGD paper's input).
 *
 *   nodes: sn, cpu_milli, memory_mib, gpu, model
 *   pods:  name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, ...
 *
 * Columns are found by their header names, so their order does not matter
 * and extra columns (qos, pod_phase, the times) are ignored.  Every value is
 * checked: a field that is not a plain decimal integer, is out of range, or
 * contradicts another field is an error that names file:line:column, the
 * column and the reason.  Nothing is clamped or guessed.  With
 * FW_OPENB_SKIP_BAD a bad data row is skipped and counted instead (the header
 * must still be right); the first skipped row's diagnostic is kept.
 *
 * CSV: one record per line (\n or \r\n), fields separated by commas.  A field
 * may be quoted ("a,b", "" for a quote); a quote that is not closed on the
 * same line is an error, since these files never have multi-line fields.
 * Blank lines are ignored; a UTF-8 byte-order mark is skipped.  The names
 * and models (sn, model, name, gpu_spec) are printable ASCII without
 * spaces, quotes, backslashes or commas: they reach JSON and CSV outputs.
 *
 * Ownership: the lists own their arrays and strings; free them with
 * fw_openb_nodes_free / fw_openb_pods_free (safe on a zeroed list).
 */
#ifndef FAIRWAY_SIM_OPENB_H
#define FAIRWAY_SIM_OPENB_H

#include <stddef.h>
#include <stdint.h>

#include "fairway/err.h"

#define FW_OPENB_SKIP_BAD 1u

/* Limits a value must respect (inclusive). */
#define FW_OPENB_MAX_CPU INT64_C(1000000000)     /* milli-CPU */
#define FW_OPENB_MAX_MEM INT64_C(1000000000000)  /* MiB */
#define FW_OPENB_MAX_NODE_GPUS 16
#define FW_OPENB_MAX_POD_GPUS 1024

struct fw_openb_node {
	char *sn;
	int64_t cpu_milli;
	int64_t memory_mib;
	int gpu;
	char *model; /* "" when gpu == 0 is allowed */
	int line;    /* 1-based line in the file */
};

struct fw_openb_pod {
	char *name;
	int64_t cpu_milli;
	int64_t memory_mib;
	int num_gpu;
	int gpu_milli; /* per GPU, 0..1000 */
	char *gpu_spec; /* "" or model names separated by '|' */
	int line;
};

struct fw_openb_nodes {
	char file[256];             /* the name given to the parser */
	struct fw_openb_node *v;
	size_t n;
	size_t skipped;             /* bad rows skipped (FW_OPENB_SKIP_BAD) */
	struct fw_diag first_bad;   /* why the first skipped row was bad */
};

struct fw_openb_pods {
	char file[256];
	struct fw_openb_pod *v;
	size_t n;
	size_t skipped;
	struct fw_diag first_bad;
};

/*
 * Parse a whole file's bytes.  fname is only used in diagnostics.  Returns
 * FW_OK, FW_EINVAL (bad input; *d says where and why) or FW_ENOMEM.  On
 * failure *out is left empty.
 */
int fw_openb_parse_nodes(const char *buf, size_t len, const char *fname,
			 unsigned flags, struct fw_openb_nodes *out,
			 struct fw_diag *d);
int fw_openb_parse_pods(const char *buf, size_t len, const char *fname,
			unsigned flags, struct fw_openb_pods *out,
			struct fw_diag *d);

/* Read and parse a file; FW_EIO when it cannot be read. */
int fw_openb_read_nodes(const char *path, unsigned flags,
			struct fw_openb_nodes *out, struct fw_diag *d);
int fw_openb_read_pods(const char *path, unsigned flags,
		       struct fw_openb_pods *out, struct fw_diag *d);

void fw_openb_nodes_free(struct fw_openb_nodes *l);
void fw_openb_pods_free(struct fw_openb_pods *l);

/* Read a whole file into a NUL-terminated malloc'd buffer. */
int fw_openb_slurp(const char *path, char **buf, size_t *len,
		   struct fw_diag *d);

/* "FILE:LINE:COL: field FIELD: MSG" (parts that are unknown are left out;
 * control and non-ASCII bytes of FIELD and MSG shown as '?'). */
void fw_openb_diag_str(const struct fw_diag *d, char *buf, size_t n);

/* ---- the CSV splitter, shared with the summary reader in fgd.c ---------- */

#define FW_CSV_MAX_FIELDS 64

/* One record, split in place: f[i] points into the caller's line buffer. */
struct fw_csv_rec {
	size_t nf;
	char *f[FW_CSV_MAX_FIELDS];
	int col[FW_CSV_MAX_FIELDS]; /* 1-based column where field i starts */
};

/*
 * Split one line (no line terminator, NUL-terminated, modified in place).
 * Returns 0, or -1 with *why and *col set when the line is not valid CSV.
 */
int fw_csv_split(char *line, struct fw_csv_rec *r, const char **why,
		 int *col);

/*
 * One raw line of a file (p, n: no terminator, maybe not NUL-terminated)
 * into a fresh copy *line (the caller frees it, also on error) split into
 * *r.  A NUL byte or bad CSV is FW_EINVAL with d naming fname:lno:col and
 * the field "row"; FW_ENOMEM when the copy fails.
 */
int fw_csv_line(const char *p, size_t n, const char *fname, int lno,
		char **line, struct fw_csv_rec *r, struct fw_diag *d);

#endif
