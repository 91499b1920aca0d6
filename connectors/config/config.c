/*
 * config.c — the YAML config loader's entry points and top level.
 *
 * Design.  libyaml parses the whole input into a node tree
 * (yaml_parser_load -> yaml_document_t); no YAML is parsed by hand.  The
 * loader then walks that tree following the schema in docs/config.md and
 * builds a struct fw_snapshot section by section, in dependency order
 * regardless of the order of keys in the file:
 *
 *   now, scheduler -> topology -> nodes + nodeGroups -> queues -> jobs
 *
 * so a job can name a queue defined below it, and a queue a parent defined
 * below it.  Nodes are numbered in file order (nodes: entries and nodeGroups:
 * expansions, whichever key comes first), since node order breaks ties in
 * placement.  Each section checks what it can point at precisely (types,
 * ranges, unknown keys, duplicates, unknown references, cycles, tasks no
 * node can hold, allocations that do not fit); fw_snapshot_validate() then
 * runs as a backstop and its diagnosis, which has no position, is given the
 * file name and the line of the object it names.
 *
 * Before the load, one pass over the parser's events bounds the nesting
 * and the anchors (FW_CONFIG_MAX_DEPTH, FW_CONFIG_MAX_ANCHORS): libyaml's
 * own cost grows with both, so a small hostile file could otherwise keep
 * the loader busy for hours.
 *
 * Failure is all-or-nothing: the snapshot under construction is private to
 * the call and freed on any error, so *out is only written on success.
 * fw_config_load_file_keys() narrows the top-level keys (a fleet file);
 * the refusal is the schema's own unknown-key error (cfg_keys).
 * fw_config_load_*_now() put the caller's now in place of the file's
 * before the sections that check times against it are read.  A now that
 * is a date (fw_time_is_date, span.h: a snapshot of a live fleet) sets
 * config.utc_times at once, so a refusal of a later time (submitTime,
 * startTime, usage's at) and the validator's messages name each time's
 * UTC date beside its number (cfg_time_text).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "fairway/health.h"
#include "fairway/span.h"
#include "fwconfig.h"

/* scheduler.drainRunning: requeue (default) | finish — what a drain of
 * an unhealthy node does with its running jobs (lib/drain.c). */
static int load_drain_running(struct cfg *c, const yaml_node_t *m,
			      struct fw_sched_config *sc)
{
	char v[FW_NAME_MAX] = "";
	int rc = cfg_name(c, m, "scheduler", "drainRunning", v);

	if (rc || !v[0])
		return rc;
	if (strcmp(v, "requeue") && strcmp(v, "finish"))
		return cfg_fail(c, cfg_get(c, m, "drainRunning"), FW_EINVAL,
				"scheduler.drainRunning",
				"unknown value \"%s\"; use requeue (evict the "
				"jobs of an unhealthy node) or finish (let "
				"them run to the end)", v);
	sc->drain_requeue = !strcmp(v, "requeue");
	return FW_OK;
}

static int load_backfill(struct cfg *c, const yaml_node_t *m, struct fw_sched_config *sc)
{
	char v[FW_NAME_MAX] = "";
	int rc = cfg_name(c, m, "scheduler", "backfill", v);

	if (rc || !v[0])
		return rc;
	if (strcmp(v, "easy") && strcmp(v, "conservative"))
		return cfg_fail(c, cfg_get(c, m, "backfill"), FW_EINVAL, "scheduler.backfill",
				"unknown value \"%s\"; use easy (reservations for the "
				"policy's first blocked jobs) or conservative (for "
				"every blocked job)", v);
	sc->backfill_conservative = !strcmp(v, "conservative");
	return FW_OK;
}

/* scheduler:'s durations (in ms) and counts as read, -1 where absent;
 * checked and converted once all are read. */
struct sched_read {
	int64_t half_life_ms, starve_ms, lemon_ms, lemon_k, hb_ms, depth, edepth, xf_ms, grace_ms;
};

static int read_scheduler(struct cfg *c, const yaml_node_t *m, struct fw_sched_config *sc, struct sched_read *r)
{
	static const char *const keys[] = { "usageHalfLife", "usageWeight",
					    "maxStarts", "estimateStarts",
					    "suspectGangGpus", "lemonGangGpus", "lemonWindow",
					    "lemonThreshold", "heartbeatTimeout", "drainRunning", "starveAfter",
					    "backfill", "reserveDepth", "estimateDepth", "xfactorCap", "userFairShare",
					    "checkpointGrace", "budgetSafe", NULL };
	int rc;

	if ((rc = cfg_keys(c, m, "scheduler", keys)) ||
	    (rc = cfg_duration(c, m, "scheduler", "usageHalfLife", &r->half_life_ms)) ||
	    (rc = cfg_double(c, m, "scheduler", "usageWeight", 1e6,
			     &sc->usage_weight)) ||
	    (rc = cfg_int(c, m, "scheduler", "maxStarts", 0, INT32_MAX,
			  &sc->max_starts)) ||
	    (rc = cfg_bool(c, m, "scheduler", "estimateStarts", &sc->estimate_starts)) ||
	    (rc = cfg_bool(c, m, "scheduler", "userFairShare", &sc->user_fair_share)) ||
	    (rc = cfg_bool(c, m, "scheduler", "budgetSafe", &sc->budget_safe)) ||
	    (rc = cfg_int32(c, m, "scheduler", "suspectGangGpus", 1, INT32_MAX,
			    &sc->suspect_gang_gpus)) ||
	    (rc = cfg_int32(c, m, "scheduler", "lemonGangGpus", 1, INT32_MAX,
			    &sc->lemon_gang_gpus)) ||
	    (rc = cfg_duration(c, m, "scheduler", "lemonWindow", &r->lemon_ms)) ||
	    (rc = cfg_int(c, m, "scheduler", "lemonThreshold", 0, FW_HEALTH_INCIDENTS, &r->lemon_k)) ||
	    (rc = cfg_duration(c, m, "scheduler", "heartbeatTimeout", &r->hb_ms)) ||
	    (rc = load_drain_running(c, m, sc)) || (rc = load_backfill(c, m, sc)) ||
	    (rc = cfg_duration(c, m, "scheduler", "starveAfter", &r->starve_ms)) ||
	    (rc = cfg_int(c, m, "scheduler", "reserveDepth", 0, FW_RESERVE_DEPTH_MAX, &r->depth)) ||
	    (rc = cfg_int(c, m, "scheduler", "estimateDepth", 0, FW_ESTIMATE_DEPTH_MAX, &r->edepth)) ||
	    (rc = cfg_duration(c, m, "scheduler", "xfactorCap", &r->xf_ms)) ||
	    (rc = cfg_duration(c, m, "scheduler", "checkpointGrace", &r->grace_ms)))
		return rc;
	return FW_OK;
}

/* checkpointGrace, xfactorCap, lemonWindow and heartbeatTimeout: range
 * checked, then rounded up to whole seconds. */
static int apply_times(struct cfg *c, const yaml_node_t *m, struct fw_sched_config *sc, const struct sched_read *r)
{
	if (r->grace_ms > (int64_t)FW_CHECKPOINT_GRACE_MAX * 1000)
		return cfg_fail(c, cfg_get(c, m, "checkpointGrace"), FW_ERANGE, "scheduler.checkpointGrace",
				"the grace must be at most 1d (an eviction waits at most this long for its "
				"victims' checkpoints); use e.g. 10m, or 0 to evict at once");
	if (r->grace_ms > 0)
		sc->checkpoint_grace_s = (r->grace_ms + 999) / 1000;
	if (r->xf_ms > 0 && (r->xf_ms < FW_XFACTOR_MIN_RUNTIME * 1000 || r->xf_ms > (int64_t)FW_XFACTOR_CAP_MAX * 1000))
		return cfg_fail(c, cfg_get(c, m, "xfactorCap"), FW_ERANGE, "scheduler.xfactorCap",
				"the cap must be from 1m (the shortest runtime the order assumes) to 365d; "
				"use e.g. 6h, or 0 to order each queue's jobs by submit time");
	if (r->xf_ms >= 0) /* 0: off (submit order); absent: the policy's */
		sc->xfactor_cap_s = r->xf_ms == 0 ? -1 : (r->xf_ms + 999) / 1000;
	if (r->lemon_ms == 0)
		return cfg_fail(c, cfg_get(c, m, "lemonWindow"), FW_ERANGE, "scheduler.lemonWindow",
				"the window must be positive; use e.g. 120d, or lemonThreshold: 0 "
				"to turn the lemon verdict off");
	if (r->lemon_ms > 0)
		sc->lemon_window_s = (r->lemon_ms + 999) / 1000;
	if (r->hb_ms > 0) /* 0 or absent: off */
		sc->heartbeat_s = (r->hb_ms + 999) / 1000;
	return FW_OK;
}

/* lemonThreshold, reserveDepth, estimateDepth and starveAfter, where 0
 * turns the rule off (-1 in the config). */
static void apply_offs(struct fw_sched_config *sc, const struct sched_read *r)
{
	if (r->lemon_k >= 0) /* 0: off */
		sc->lemon_threshold = r->lemon_k == 0 ? -1 : (int32_t)r->lemon_k;
	if (r->depth >= 0) /* 0: none; absent: the policy's */
		sc->reserve_depth = r->depth == 0 ? -1 : (int32_t)r->depth;
	if (r->edepth >= 0) /* 0: none; absent: FW_ESTIMATE_DEPTH_DEFAULT */
		sc->estimate_depth = r->edepth == 0 ? -1 : (int32_t)r->edepth;
	if (r->starve_ms >= 0) /* 0: off; absent: the policy's */
		sc->starve_after_s = r->starve_ms == 0 ? -1 : (r->starve_ms + 999) / 1000;
}

static int load_now_and_scheduler(struct cfg *c, const yaml_node_t *root)
{
	struct fw_sched_config *sc = &c->s->config;
	yaml_node_t *m = cfg_get(c, root, "scheduler");
	struct sched_read r = { -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	int rc = cfg_when(c, root, "", "now", &c->s->now);

	if (!rc && c->now_flag)
		c->s->now = c->now; /* the file's now: is read, then replaced */
	/* a now that is a date (a live fleet's snapshot) makes every time a
	 * date in the texts: the refusals below and the validator's too */
	c->s->config.utc_times = fw_time_is_date(c->s->now);
	if (rc || !m)
		return rc;
	if ((rc = read_scheduler(c, m, sc, &r)) || (rc = apply_times(c, m, sc, &r)))
		return rc;
	apply_offs(sc, &r);
	if (r.half_life_ms == 0)
		return cfg_fail(c, cfg_get(c, m, "usageHalfLife"), FW_ERANGE,
				"scheduler.usageHalfLife",
				"the half-life must be positive; use e.g. 7d "
				"(a week), or usageWeight: 0 to ignore usage");
	if (r.half_life_ms > 0)
		sc->usage_half_life_s = (double)r.half_life_ms / 1000.0;
	return FW_OK;
}

/* Nodes are numbered in file order: the nodes: entries and the nodeGroups:
 * entries' generated nodes, whichever key comes first in the file. */
static bool groups_first(const struct cfg *c, const yaml_node_t *root)
{
	yaml_node_t *n = cfg_get_key(c, root, "nodes");
	yaml_node_t *g = cfg_get_key(c, root, "nodeGroups");

	return n && g && g->start_mark.index < n->start_mark.index;
}

static int load_all_nodes(struct cfg *c, const yaml_node_t *root)
{
	int rc;

	if (groups_first(c, root)) {
		if ((rc = cfg_load_node_groups(c, root)))
			return rc;
		return cfg_load_nodes(c, root);
	}
	if ((rc = cfg_load_nodes(c, root)))
		return rc;
	return cfg_load_node_groups(c, root);
}

static int load_root(struct cfg *c, const yaml_node_t *root)
{
	static const char *const keys[] = { "now",   "scheduler",  "topology",
					    "nodes", "nodeGroups", "queues",
					    "jobs",  NULL };
	int rc;

	if ((rc = cfg_keys(c, root, "", c->root_keys ? c->root_keys : keys)) ||
	    (rc = load_now_and_scheduler(c, root)) ||
	    (rc = cfg_load_topology(c, root)) ||
	    (rc = load_all_nodes(c, root)) ||
	    (rc = cfg_load_queues(c, root)))
		return rc;
	return cfg_load_jobs(c, root);
}

/* Find snapshot node *i among the nodes section sec generates; returns the
 * YAML item, or NULL after subtracting that section's count from *i. */
static yaml_node_t *origin_in(const struct cfg *c, const yaml_node_t *root,
			      const char *sec, int *i)
{
	yaml_node_t *seq = cfg_get(c, root, sec);
	int n = seq && seq->type == YAML_SEQUENCE_NODE ? cfg_seq_len(seq) : 0;
	bool groups = strcmp(sec, "nodeGroups") == 0;

	for (int k = 0; k < n; k++) {
		yaml_node_t *item = cfg_seq_at(c, seq, k);
		yaml_node_t *cnt = groups ? cfg_get(c, item, "count") : NULL;
		int64_t count = groups ? 0 : 1;
		if (cnt && cnt->type == YAML_SCALAR_NODE &&
		    fw_parse_int((char *)cnt->data.scalar.value, &count))
			count = 0;
		if (*i < count)
			return item;
		*i -= (int)count;
	}
	return NULL;
}

yaml_node_t *cfg_origin(const struct cfg *c, const char *section, int i)
{
	yaml_node_t *root = yaml_document_get_root_node(c->doc), *seq, *at;
	bool gf = groups_first(c, root);

	if (strcmp(section, "nodes") == 0) {
		at = origin_in(c, root, gf ? "nodeGroups" : "nodes", &i);
		return at ? at : origin_in(c, root, gf ? "nodes" : "nodeGroups",
					   &i);
	}
	seq = cfg_get(c, root, section);
	if (seq && seq->type == YAML_SEQUENCE_NODE && i < cfg_seq_len(seq))
		return cfg_seq_at(c, seq, i);
	return NULL;
}

/* Give fw_snapshot_validate's diagnosis a file and, where its field names
 * an object ("jobs[4].queue"), that object's line. */
static int validate(struct cfg *c)
{
	static const char *const sections[] = { "nodes", "queues", "jobs" };
	struct fw_diag vd;
	int rc;

	memset(&vd, 0, sizeof vd);
	rc = fw_snapshot_validate(c->s, &vd);
	if (rc == FW_OK)
		return rc;
	snprintf(vd.file, sizeof vd.file, "%s", c->file);
	for (int k = 0; k < 3; k++) {
		size_t len = strlen(sections[k]);
		yaml_node_t *at;
		if (strncmp(vd.field, sections[k], len) != 0 ||
		    vd.field[len] != '[')
			continue;
		at = cfg_origin(c, sections[k], atoi(vd.field + len + 1));
		if (at) {
			vd.line = cfg_line(at);
			vd.col = (int)at->start_mark.column + 1;
		}
	}
	if (c->d)
		*c->d = vd;
	return rc;
}

/* The line and column (1-based, the column in characters as libyaml
 * counts them) of byte off of the text. */
static void offset_mark(const struct cfg *c, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; c->buf && i < off && i < c->len; i++) {
		unsigned char ch = (unsigned char)c->buf[i];
		if (ch == '\n')
			++*line, *col = 1;
		else if ((ch & 0xc0) != 0x80) /* not a UTF-8 continuation byte */
			++*col;
	}
}

/* The offset of the first byte at or before off that starts no
 * well-formed UTF-8 sequence, or c->len when none does. */
static size_t first_bad_utf8(const struct cfg *c, size_t off)
{
	const unsigned char *b = (const unsigned char *)c->buf;
	size_t i = 0;

	while (b && i <= off && i < c->len) {
		int n;
		if (fw_utf8_at(b + i, c->len - i, &n) < 0)
			return i;
		i += (size_t)n;
	}
	return c->len;
}

/* libyaml's reader error (the text is not UTF-8, or holds a character
 * YAML forbids), at its line and column, saying what to do. */
static int reader_error(struct cfg *c, const yaml_parser_t *p)
{
	const char *what = p->problem ? p->problem : "bad encoding";
	int line, col, v = p->problem_value;
	char ch[32] = "";

	offset_mark(c, p->problem_offset, &line, &col);
	if (strstr(what, "control character")) {
		if (v >= 0 && v < 0x80)
			snprintf(ch, sizeof ch, "byte 0x%02x", v);
		else
			snprintf(ch, sizeof ch, "U+%04X", (unsigned)v);
		return fw_diag_set(c->d, FW_EINVAL, c->file, line, col, "",
				   "a control character (%s) is not allowed in "
				   "YAML; remove it (a NUL or other control byte "
				   "in a text file is a stray character, or the "
				   "file is not text)",
				   ch);
	}
	size_t bad = first_bad_utf8(c, p->problem_offset);
	if (bad < c->len) { /* the byte that starts the bad sequence, not the one libyaml tripped on */
		offset_mark(c, bad, &line, &col);
		snprintf(ch, sizeof ch, " (byte 0x%02x)", (unsigned char)c->buf[bad]);
	}
	return fw_diag_set(c->d, FW_EINVAL, c->file, line, col, "",
			   "the text is not UTF-8: %s%s; save the file as "
			   "UTF-8 text (a byte of another encoding, such as "
			   "Latin-1's \\xe9 for e-acute, or a file cut short)",
			   what, ch);
}

/* The name of a character libyaml (YAML 1.1) takes for a line break but
 * an editor shows as none, or NULL for any other. */
static const char *unseen_break(long cp)
{
	switch (cp) {
	case 0x85:
		return "U+0085 (next line, NEL)";
	case 0x2028:
		return "U+2028 (line separator)";
	case 0x2029:
		return "U+2029 (paragraph separator)";
	default:
		return NULL;
	}
}

/* Refuse NEL, U+2028 and U+2029 before libyaml reads the text: it breaks
 * the line there, so the rest of a comment is read as YAML (a syntax
 * error at a place that looks fine, or worse, a key the user never saw).
 * The scan stops at the first byte that is not UTF-8: reader_error
 * reports that one. */
static int check_breaks(struct cfg *c, const char *buf, size_t len)
{
	const unsigned char *b = (const unsigned char *)buf;
	const char *what;
	size_t i = 0;
	int line, col, n;

	while (i < len) {
		long cp = b[i] < 0x80 ? b[i] : fw_utf8_at(b + i, len - i, &n);
		if (cp < 0)
			return FW_OK;
		if ((what = unseen_break(cp))) {
			offset_mark(c, i, &line, &col);
			return fw_diag_set(c->d, FW_EINVAL, c->file, line, col, "",
					   "%s is a line break in YAML, though most "
					   "editors show none: what follows it is read as "
					   "a new line; replace it with a newline, or "
					   "remove it",
					   what);
		}
		i += b[i] < 0x80 ? 1 : (size_t)n;
	}
	return FW_OK;
}

/* libyaml's error, at its line and column.  A tab where it stops is
 * named as such: libyaml says only "found character that cannot start
 * any token", and a tab looks like spaces in most editors. */
static int syntax_error(struct cfg *c, const yaml_parser_t *p)
{
	const yaml_mark_t *m = &p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		return fw_diag_set(c->d, FW_ENOMEM, c->file, 0, 0, "",
				   "out of memory while parsing YAML");
	if (p->error == YAML_READER_ERROR)
		return reader_error(c, p);
	if (c->buf && m->index < c->len && c->buf[m->index] == '\t')
		return fw_diag_set(c->d, FW_EINVAL, c->file, (int)m->line + 1,
				   (int)m->column + 1, "",
				   "YAML syntax error: a tab character; YAML "
				   "indents with spaces only, so replace the tab "
				   "with spaces");
	return fw_diag_set(c->d, FW_EINVAL, c->file, (int)m->line + 1,
			   (int)m->column + 1, "",
			   "YAML syntax error: %s%s%s; fix the YAML here "
			   "(check indentation, colons and quotes)",
			   p->problem ? p->problem : "malformed YAML",
			   p->context ? " " : "", p->context ? p->context : "");
}

/* Exactly one document with a root; a second document is an error. */
static int expect_end(struct cfg *c, yaml_parser_t *p)
{
	yaml_document_t extra;
	yaml_node_t *root;

	if (!yaml_parser_load(p, &extra))
		return syntax_error(c, p);
	root = yaml_document_get_root_node(&extra);
	if (root) {
		int line = cfg_line(root), col = (int)root->start_mark.column;
		yaml_document_delete(&extra);
		return fw_diag_set(c->d, FW_EINVAL, c->file, line, col + 1, "",
				   "a second YAML document starts here; a "
				   "config is one document, remove the extra "
				   "\"---\" section");
	}
	yaml_document_delete(&extra);
	return FW_OK;
}

/* An empty file: say what it should hold (a fleet file's own keys when
 * the caller narrowed them). */
static int no_document(struct cfg *c)
{
	char keys[256] = "";
	size_t n = 0;

	if (!c->root_keys)
		return fw_diag_set(c->d, FW_EINVAL, c->file, 0, 0, "",
				   "the file has no YAML document (or an empty "
				   "one); a config is "
				   "a mapping with nodes:, queues: and jobs: "
				   "(see docs/config.md)");
	for (int i = 0; c->root_keys[i] && n < sizeof keys; i++)
		n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%s:", i ? ", " : "", c->root_keys[i]);
	return fw_diag_set(c->d, FW_EINVAL, c->file, 0, 0, "",
			   "the file has no YAML document (or an empty one); "
			   "it should be a "
			   "mapping with %s (see docs/config.md)", keys);
}

static const char *event_anchor(const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_SCALAR_EVENT:
		return (const char *)e->data.scalar.anchor;
	case YAML_SEQUENCE_START_EVENT:
		return (const char *)e->data.sequence_start.anchor;
	case YAML_MAPPING_START_EVENT:
		return (const char *)e->data.mapping_start.anchor;
	default:
		return NULL;
	}
}

/* One pass over the events before the load, stopping at the first list or
 * mapping nested deeper than FW_CONFIG_MAX_DEPTH or the anchor past
 * FW_CONFIG_MAX_ANCHORS (fwconfig.h says why: libyaml's own cost).  A
 * syntax error ends the pass quietly; the load reports it. */
static int check_shape(struct cfg *c, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0, anchors = 0, rc = FW_OK;

	if (!yaml_parser_initialize(&p))
		return fw_diag_set(c->d, FW_ENOMEM, c->file, 0, 0, "",
				   "out of memory starting the YAML parser");
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (rc == FW_OK && yaml_parser_parse(&p, &e)) {
		yaml_event_type_t t = e.type;
		int line = (int)e.start_mark.line + 1;
		int col = (int)e.start_mark.column + 1;

		if (event_anchor(&e) && ++anchors > FW_CONFIG_MAX_ANCHORS)
			rc = fw_diag_set(c->d, FW_ERANGE, c->file, line, col, "",
					 "more than %d anchors (&name) in the file; "
					 "repeat fewer fragments, or write them out",
					 FW_CONFIG_MAX_ANCHORS);
		else if ((t == YAML_SEQUENCE_START_EVENT ||
			  t == YAML_MAPPING_START_EVENT) && ++depth > FW_CONFIG_MAX_DEPTH)
			rc = fw_diag_set(c->d, FW_ERANGE, c->file, line, col, "",
					 "lists and mappings nest more than %d deep "
					 "here; a config needs at most 6 levels (see "
					 "docs/config.md), remove the extra brackets",
					 FW_CONFIG_MAX_DEPTH);
		else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT)
			depth--;
		yaml_event_delete(&e);
		if (t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

static int parse(struct cfg *c, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_node_t *root;
	int rc;

	c->buf = buf;
	c->len = len;
	if ((rc = check_breaks(c, buf, len)) || (rc = check_shape(c, buf, len)))
		return rc;
	if (!yaml_parser_initialize(&p))
		return fw_diag_set(c->d, FW_ENOMEM, c->file, 0, 0, "",
				   "out of memory starting the YAML parser");
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, c->doc)) {
		rc = syntax_error(c, &p);
		yaml_parser_delete(&p);
		return rc;
	}
	root = yaml_document_get_root_node(c->doc);
	if (!root || cfg_is_null(root)) /* nothing, or only "---" / "~" */
		rc = no_document(c);
	else
		rc = expect_end(c, &p);
	if (rc)
		yaml_document_delete(c->doc);
	yaml_parser_delete(&p);
	return rc;
}

static void cfg_release(struct cfg *c)
{
	nameix_free(&c->nodes);
	nameix_free(&c->queues);
	nameix_free(&c->jobs);
	free(c->queue_has_child);
	free(c->gpu_used);
	free(c->cpu_used);
	free(c->mem_used);
}

/* How a load differs from the plain one: fewer top-level keys (a fleet
 * file), or the caller's now (`fairway plan --now`). */
struct load_opts {
	const char *const *root_keys; /* NULL: the whole schema */
	const char *now_flag;         /* NULL: the file's now: */
	fw_time now;
};

/* Parse buf, then build and validate the snapshot; all or nothing. */
static int load_buffer(const char *name, const char *buf, size_t len,
		       const struct load_opts *lo, struct fw_snapshot **out,
		       struct fw_diag *d)
{
	yaml_document_t doc;
	struct cfg c;
	int rc;

	memset(&c, 0, sizeof c);
	c.file = name ? name : "<buffer>";
	c.d = d;
	c.doc = &doc;
	c.root_keys = lo->root_keys;
	c.now_flag = lo->now_flag;
	c.now = lo->now;
	if (!out || (!buf && len))
		return fw_diag_set(d, FW_EINVAL, c.file, 0, 0, "",
				   "no output or no input given; this is a "
				   "bug in the caller");
	if (len > FW_CONFIG_MAX_BYTES)
		return fw_diag_set(d, FW_ERANGE, c.file, 0, 0, "",
				   "the config is %zu bytes; the limit is %u, "
				   "use nodeGroups to describe large fleets",
				   len, FW_CONFIG_MAX_BYTES);
	if ((rc = parse(&c, buf ? buf : "", len)))
		return rc;
	c.s = fw_snapshot_new();
	if (!c.s)
		rc = fw_diag_set(d, FW_ENOMEM, c.file, 0, 0, "",
				 "out of memory creating the snapshot");
	else if (!(rc = load_root(&c, yaml_document_get_root_node(&doc))))
		rc = validate(&c);
	cfg_release(&c);
	yaml_document_delete(&doc);
	if (rc)
		fw_snapshot_free(c.s);
	else
		*out = c.s;
	return rc;
}

int fw_config_load_buffer(const char *name, const char *buf, size_t len,
			  struct fw_snapshot **out, struct fw_diag *d)
{
	static const struct load_opts lo = { 0 };

	return load_buffer(name, buf, len, &lo, out, d);
}

int fw_config_load_buffer_now(const char *name, const char *buf, size_t len,
			      fw_time now, const char *now_flag,
			      struct fw_snapshot **out, struct fw_diag *d)
{
	struct load_opts lo = { .now_flag = now_flag ? now_flag : "now", .now = now };

	return load_buffer(name, buf, len, &lo, out, d);
}

/* Read all of f (at most FW_CONFIG_MAX_BYTES + 1 bytes) into *buf; *err
 * gets errno on a read error (EISDIR for a directory). */
static int slurp(FILE *f, char **buf, size_t *len, int *err)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap), *nb;

	while (b) {
		n += fread(b + n, 1, cap - n, f);
		if (n < cap || cap > FW_CONFIG_MAX_BYTES)
			break;
		nb = realloc(b, cap * 2);
		if (!nb)
			free(b);
		b = nb;
		cap *= 2;
	}
	if (!b)
		return FW_ENOMEM;
	if (ferror(f)) {
		*err = errno;
		free(b);
		return FW_EIO;
	}
	*buf = b;
	*len = n;
	return FW_OK;
}

/* Read the file at path whole and load it under lo. */
static int load_file(const char *path, const struct load_opts *lo,
		     struct fw_snapshot **out, struct fw_diag *d)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc, err = 0;

	if (!f)
		return fw_diag_set(d, errno == ENOENT ? FW_ENOENT : FW_EIO,
				   path ? path : "", 0, 0, "",
				   "cannot open the config: %s; check the path "
				   "and permissions",
				   path ? strerror(errno) : "no path given");
	rc = slurp(f, &buf, &len, &err);
	fclose(f);
	if (rc)
		return fw_diag_set(d, rc, path, 0, 0, "",
				   "cannot read the config: %s; check the file",
				   rc == FW_ENOMEM ? "out of memory"
						   : strerror(err));
	rc = load_buffer(path, buf, len, lo, out, d);
	free(buf);
	return rc;
}

int fw_config_load_file_keys(const char *path, const char *const *root_keys,
			     struct fw_snapshot **out, struct fw_diag *d)
{
	struct load_opts lo = { .root_keys = root_keys };

	return load_file(path, &lo, out, d);
}

int fw_config_load_file(const char *path, struct fw_snapshot **out,
			struct fw_diag *d)
{
	return fw_config_load_file_keys(path, NULL, out, d);
}

int fw_config_load_file_now(const char *path, fw_time now, const char *now_flag,
			    struct fw_snapshot **out, struct fw_diag *d)
{
	struct load_opts lo = { .now_flag = now_flag ? now_flag : "now", .now = now };

	return load_file(path, &lo, out, d);
}
