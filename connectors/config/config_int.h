/*
 * config_int.h — internals shared by the YAML loader's files.
 *
 * The loader is split by section of the schema (its scalar syntaxes are
 * the core's, lib/scalar.c, fairway/scalar.h):
 *   yamlget.c  typed access to a libyaml document: keys, paths, diagnostics
 *   nameix.c   a name -> index hash over the snapshot's arrays
 *   config.c   entry points, top level, scheduler, topology, validation
 *   nodes.c    nodes and nodeGroups
 *   queues.c   the queue tree
 *   jobs.c     jobs, task groups, running allocations
 *
 * Every function that can fail returns FW_OK or a negative fw_err and, when
 * it fails, has already filled c->d through cfg_fail().  "Absent" means the
 * key is missing or its value is a plain YAML null (empty, ~, null): the
 * getters then leave *out alone, so callers pre-load defaults.
 */
#ifndef FAIRWAY_CONFIG_INT_H
#define FAIRWAY_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "fairway/err.h"
#include "fairway/scalar.h"
#include "fairway/snapshot.h"

#define CFG_PATH 128 /* == sizeof(struct fw_diag.field) */
#define CFG_MAX_TASKS 65536 /* tasks in one group */

/* ---- nameix.c ---- */
struct nameix {
	int32_t *slot; /* index + 1; 0 = empty */
	uint32_t cap;  /* power of two or 0 */
	uint32_t n;
};
/* base/stride locate the names: name(i) = base + i * stride. */
int32_t nameix_find(const struct nameix *ix, const void *base, size_t stride,
		    const char *name);
int nameix_add(struct nameix *ix, const void *base, size_t stride, int32_t i);
void nameix_free(struct nameix *ix);

/* ---- the loader's context ---- */
struct cfg {
	const char *file;
	yaml_document_t *doc;
	struct fw_snapshot *s;
	struct fw_diag *d;
	struct nameix nodes, queues, jobs;
	bool *queue_has_child;  /* [nqueues], after queues are linked */
	int32_t *gpu_used;      /* [nnodes][FW_MAX_GPUS_PER_NODE] milli */
	int64_t *cpu_used;      /* [nnodes] by running tasks */
	int64_t *mem_used;      /* [nnodes] */
	int32_t fit_hint;       /* last node a task fitted on */
	/* the last job's nodeSelector and its job_nodes entry (-1: none), so
	 * that jobs of one selector share one node list (jobs.c) */
	struct fw_label sel[FW_MAX_LABELS];
	int nsel;
	int32_t sel_entry;
	/* the same for the last task group's own nodeSelector (a group_nodes
	 * entry): jobs alike share their groups' lists, and so one shape */
	struct fw_label gsel[FW_MAX_LABELS];
	int ngsel;
	int32_t gsel_entry;
	const char *const *root_keys; /* top-level keys allowed; NULL: all */
	/* the caller's now (`fairway plan --now`), set before anything is
	 * checked against now; now_flag names it in messages, NULL: the
	 * file's own now: */
	const char *now_flag;
	fw_time now;
	/* the text being parsed, for the line and column of a reader error
	 * (libyaml gives those as a byte offset) */
	const char *buf;
	size_t len;
};

/* A time as a refusal names it: its number as the file has it, and its
 * UTC date beside it when the snapshot's now is a date (config.utc_times,
 * set as soon as now is read): "1796569000 (2026-12-06T14:56:40Z)", or,
 * inner (inside parentheses already), "1796569000, 2026-12-06T14:56:40Z";
 * virtual seconds are the number alone.  Returns buf (CFG_TIME_TEXT
 * bytes hold any). */
#define CFG_TIME_TEXT 64
const char *cfg_time_text(const struct cfg *c, fw_time t, bool inner, char *buf, size_t n);

/* What a message calls the snapshot's now: "now", or the caller's flag. */
static inline const char *cfg_now_name(const struct cfg *c)
{
	return c->now_flag ? c->now_flag : "now";
}

/* ---- yamlget.c ---- */
int cfg_fail(struct cfg *c, const yaml_node_t *at, int err, const char *path,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* out = "base.key" / "base[i]" (or "key" when base is empty). */
const char *cfg_path(char *out, const char *base, const char *key);
const char *cfg_ipath(char *out, const char *base, int i);
yaml_node_t *cfg_node(const struct cfg *c, int id);
int cfg_line(const yaml_node_t *n);
bool cfg_is_null(const yaml_node_t *n);
const char *cfg_kind(const yaml_node_t *n);
/* Check n is a mapping whose keys are all in valid (NULL-terminated). */
int cfg_keys(struct cfg *c, const yaml_node_t *n, const char *path,
	     const char *const *valid);
/* The value of key in map, or NULL when absent or null. */
yaml_node_t *cfg_get(const struct cfg *c, const yaml_node_t *map,
		     const char *key);
/* The key node itself (for diagnostics), or NULL. */
yaml_node_t *cfg_get_key(const struct cfg *c, const yaml_node_t *map,
			 const char *key);
int cfg_require(struct cfg *c, const yaml_node_t *map, const char *path,
		const char *key);
/* A scalar's text; fails on other kinds and on embedded NULs. */
int cfg_scalar(struct cfg *c, const yaml_node_t *n, const char *path,
	       const char **out);
int cfg_want_map(struct cfg *c, const yaml_node_t *n, const char *path);
/* The sequence under key (NULL when absent); fails if not a sequence. */
int cfg_seq(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, yaml_node_t **out);
int cfg_seq_len(const yaml_node_t *seq);
yaml_node_t *cfg_seq_at(const struct cfg *c, const yaml_node_t *seq, int i);

/* 1 with the scalar text of map[key], 0 when absent, < 0 on error; fp gets
 * the field path "path.key", *vn the value node. */
int cfg_get_text(struct cfg *c, const yaml_node_t *map, const char *path,
		 const char *key, char *fp, yaml_node_t **vn, const char **txt);
/* Typed getters for map[key]; path is the map's path. */
int cfg_int_node(struct cfg *c, const yaml_node_t *v, const char *fp,
		 int64_t lo, int64_t hi, int64_t *out);
int cfg_int(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, int64_t lo, int64_t hi, int64_t *out);
int cfg_int32(struct cfg *c, const yaml_node_t *map, const char *path,
	      const char *key, int64_t lo, int64_t hi, int32_t *out);
int cfg_bool(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, bool *out);
int cfg_name(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, char *out);
/* The name of a node, queue or job: a name that also follows the core's
 * rule for names the outside world addresses (snapshot.h,
 * fw_name_problem(): letters, digits, '-', '_', '.'). */
int cfg_ident(struct cfg *c, const yaml_node_t *map, const char *path,
	      const char *key, char *out);
/* A name (non-empty, < FW_NAME_MAX bytes, printable) from node v. */
int cfg_name_node(struct cfg *c, const yaml_node_t *v, const char *fp,
		  char *out);
/* A label's value (a node's labels, a nodeSelector's pairs): empty when
 * null, `~`, nothing or "" (a label without a value, as Kubernetes
 * writes it), else a name as cfg_name_node reads it. */
int cfg_label_value(struct cfg *c, const yaml_node_t *v, const char *fp, char *out);
int cfg_cpu(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out);
int cfg_gpu(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out);
int cfg_mib(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out);
int cfg_duration(struct cfg *c, const yaml_node_t *map, const char *path,
		 const char *key, int64_t *ms);
/* Whole seconds >= 0 (duration syntax accepted): a span (a runtime, a
 * limit, an interval). */
int cfg_time(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, fw_time *out);
/* The same for a point in time (now, submitTime, startTime, usage's
 * at): its refusals speak of a time, and a date in its place is answered
 * with that date's Unix time. */
int cfg_when(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, fw_time *out);
/* The same into a job's 32-bit seconds (at most FW_SPAN32_MAX). */
int cfg_time32(struct cfg *c, const yaml_node_t *map, const char *path,
	       const char *key, int32_t *out);
int cfg_double(struct cfg *c, const yaml_node_t *map, const char *path,
	       const char *key, double hi, double *out);
/* Names joined by ", " into out (at most max shown, then "..."). */
void cfg_join(char *out, size_t n, const void *base, size_t stride,
	      int count, int max);

/* The YAML item that snapshot section[i] ("nodes", "queues", "jobs") came
 * from (a generated node: its nodeGroups entry), or NULL. */
yaml_node_t *cfg_origin(const struct cfg *c, const char *section, int i);

/* ---- sections ---- */
/* A nodeGroups topology generator: node k (start + i) is in domain
 * prefix[l] + (k / per[l]) at level l. */
struct cfg_gen {
	int64_t per[FW_MAX_LEVELS];
	char prefix[FW_MAX_LEVELS][FW_NAME_MAX];
};
int cfg_group_topology(struct cfg *c, const yaml_node_t *map,
		       const char *path, struct cfg_gen *g);
/* Fill n->path for node ordinal k; -1 when a name would not fit. */
int cfg_gen_path(const struct cfg *c, const struct cfg_gen *g, int64_t k,
		 struct fw_node *n);
/* map[key] as a level reference: a level name or "node". */
int cfg_level_ref(struct cfg *c, const yaml_node_t *map, const char *path,
		  const char *key, int8_t *out);
int cfg_load_topology(struct cfg *c, const yaml_node_t *root);
int cfg_node_topology(struct cfg *c, const yaml_node_t *map, const char *path,
		      struct fw_node *n);
int cfg_load_nodes(struct cfg *c, const yaml_node_t *root);
int cfg_load_node_groups(struct cfg *c, const yaml_node_t *root);
int cfg_load_queues(struct cfg *c, const yaml_node_t *root);
int cfg_load_jobs(struct cfg *c, const yaml_node_t *root);
/* state, startTime and allocation of job j (alloc.c). */
int cfg_job_state(struct cfg *c, const yaml_node_t *m, const char *path,
		  struct fw_job *j);

#endif
