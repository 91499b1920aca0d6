/*
 * yamlget.c — typed, diagnosed access to a libyaml document.
 *
 * The loader reads the whole file with yaml_parser_load() into a node tree
 * (yaml_document_t) and walks it following the schema, so every value it
 * looks at still carries its position (node->start_mark).  The helpers here
 * are the only place that turns a YAML node into a C value; each one either
 * succeeds or reports, through cfg_fail(), the node's line and column, the
 * dotted field path and a message of the form "<what is wrong>; <what to
 * do>".
 *
 * Quoting is ignored for numbers and booleans (cpu: "96" is 96 cores, as in
 * Kubernetes); only a *plain* empty / ~ / null scalar counts as null, and a
 * null value is treated exactly like a missing key.  Walking follows the
 * schema's fixed depth, never the document's shape, so aliases and
 * self-referencing anchors cannot make the walk recurse or blow up.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cliword.h"
#include "config_int.h"

/* A double-quoted YAML scalar can carry any control byte ("\e[2J"); keys
 * and values are quoted in messages, so those bytes become '?' before they
 * can reach a terminal. */
static void mask_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int cfg_fail(struct cfg *c, const yaml_node_t *at, int err, const char *path,
	     const char *fmt, ...)
{
	char msg[sizeof c->d->msg], field[CFG_PATH];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(field, sizeof field, "%s", path ? path : "");
	mask_controls(msg);
	mask_controls(field);
	return fw_diag_set(c->d, err, c->file, cfg_line(at),
			   at ? (int)at->start_mark.column + 1 : 0, field, "%s",
			   msg);
}

const char *cfg_path(char *out, const char *base, const char *key)
{
	int r;

	if (base && base[0])
		r = snprintf(out, CFG_PATH, "%s.%s", base, key);
	else
		r = snprintf(out, CFG_PATH, "%s", key);
	(void)r; /* a truncated path is still a useful path */
	return out;
}

const char *cfg_ipath(char *out, const char *base, int i)
{
	int r = snprintf(out, CFG_PATH, "%s[%d]", base, i);
	(void)r;
	return out;
}

yaml_node_t *cfg_node(const struct cfg *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

int cfg_line(const yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 0;
}

bool cfg_is_null(const yaml_node_t *n)
{
	const char *v;

	if (!n || n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

const char *cfg_kind(const yaml_node_t *n)
{
	if (!n)
		return "nothing";
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a single value";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static const char *key_text(const struct cfg *c, const yaml_node_pair_t *p)
{
	const yaml_node_t *k = cfg_node(c, p->key);
	if (!k || k->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)k->data.scalar.value;
}

static void join_keys(char *out, size_t n, const char *const *valid)
{
	size_t used = 0;

	out[0] = 0;
	for (int i = 0; valid[i] && used < n; i++) {
		int r = snprintf(out + used, n - used, "%s%s", i ? ", " : "",
				 valid[i]);
		if (r < 0)
			break;
		used += (size_t)r;
	}
}

static bool in_list(const char *s, const char *const *valid)
{
	for (int i = 0; valid[i]; i++)
		if (strcmp(s, valid[i]) == 0)
			return true;
	return false;
}

int cfg_want_map(struct cfg *c, const yaml_node_t *n, const char *path)
{
	if (n && n->type == YAML_MAPPING_NODE)
		return FW_OK;
	return cfg_fail(c, n, FW_EINVAL, path,
			"expected a mapping (key: value lines), got %s; "
			"write it as indented \"key: value\" pairs",
			cfg_kind(n));
}

/* Report key p (index i in map) if it repeats an earlier one. */
static int check_dup(struct cfg *c, const yaml_node_t *map, int i,
		     const char *path)
{
	const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	const char *k = key_text(c, &p[i]);
	char fp[CFG_PATH];

	for (int j = 0; j < i; j++) {
		const char *kj = key_text(c, &p[j]);
		if (kj && strcmp(kj, k) == 0)
			return cfg_fail(c, cfg_node(c, p[i].key), FW_EEXIST,
					cfg_path(fp, path, k),
					"key \"%s\" appears twice in this "
					"mapping (first at line %d); keep one",
					k, cfg_line(cfg_node(c, p[j].key)));
	}
	return FW_OK;
}

/* p's key is none of valid: refused naming it, the valid key it is a
 * typo of (fw_cli_nearest, the rule of the daemon's unknown-field errors
 * and the CLI's unknown flags), and every valid key. */
static int unknown_key(struct cfg *c, const yaml_node_pair_t *p,
		       const char *path, const char *const *valid)
{
	const char *k = key_text(c, p), *near = fw_cli_nearest(k, valid);
	char fp[CFG_PATH], list[256], hint[96] = "";

	if (near)
		snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", near);
	join_keys(list, sizeof list, valid);
	return cfg_fail(c, cfg_node(c, p->key), FW_EINVAL,
			cfg_path(fp, path, k),
			"unknown key \"%s\"%s; valid keys here: %s", k, hint,
			list);
}

int cfg_keys(struct cfg *c, const yaml_node_t *n, const char *path,
	     const char *const *valid)
{
	char fp[CFG_PATH];
	int npairs, rc = cfg_want_map(c, n, path);

	if (rc)
		return rc;
	npairs = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	for (int i = 0; !rc && i < npairs; i++) {
		const yaml_node_pair_t *p = &n->data.mapping.pairs.start[i];
		const char *k = key_text(c, p);
		if (!k)
			return cfg_fail(c, cfg_node(c, p->key), FW_EINVAL, path,
					"a key is %s; keys must be plain "
					"names",
					cfg_kind(cfg_node(c, p->key)));
		if (!in_list(k, valid) && strcmp(k, "<<") == 0)
			return cfg_fail(c, cfg_node(c, p->key), FW_EINVAL,
					cfg_path(fp, path, k),
					"merge keys (<<: *anchor) are not "
					"supported; write the keys out, or alias "
					"a whole value (key: *anchor)");
		if (!in_list(k, valid))
			return unknown_key(c, p, path, valid);
		rc = check_dup(c, n, i, path);
	}
	return rc;
}

/* The first pair of map whose key is the plain name key, or NULL. */
static const yaml_node_pair_t *find_pair(const struct cfg *c,
					 const yaml_node_t *map, const char *key)
{
	const yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = key_text(c, p);
		if (k && strcmp(k, key) == 0)
			return p;
	}
	return NULL;
}

yaml_node_t *cfg_get_key(const struct cfg *c, const yaml_node_t *map,
			 const char *key)
{
	const yaml_node_pair_t *p = find_pair(c, map, key);

	return p ? cfg_node(c, p->key) : NULL;
}

yaml_node_t *cfg_get(const struct cfg *c, const yaml_node_t *map,
		     const char *key)
{
	const yaml_node_pair_t *p = find_pair(c, map, key);
	yaml_node_t *v = p ? cfg_node(c, p->value) : NULL;

	return cfg_is_null(v) ? NULL : v;
}

int cfg_require(struct cfg *c, const yaml_node_t *map, const char *path,
		const char *key)
{
	char fp[CFG_PATH];

	if (cfg_get(c, map, key))
		return FW_OK;
	return cfg_fail(c, map, FW_EINVAL, cfg_path(fp, path, key),
			"missing required key \"%s\"; add \"%s: ...\" here "
			"(see docs/config.md)",
			key, key);
}

int cfg_scalar(struct cfg *c, const yaml_node_t *n, const char *path,
	       const char **out)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return cfg_fail(c, n, FW_EINVAL, path,
				"expected a single value, got %s; write a "
				"plain value such as 8 or \"n001\"",
				cfg_kind(n));
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return cfg_fail(c, n, FW_EINVAL, path,
				"the value contains a NUL character; remove "
				"it");
	*out = (const char *)n->data.scalar.value;
	return FW_OK;
}

int cfg_seq(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, yaml_node_t **out)
{
	char fp[CFG_PATH];
	yaml_node_t *v = cfg_get(c, map, key);

	*out = NULL;
	if (!v)
		return FW_OK;
	if (v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, v, FW_EINVAL, cfg_path(fp, path, key),
				"expected a list, got %s; write one item per "
				"\"- \" line, or [a, b]",
				cfg_kind(v));
	*out = v;
	return FW_OK;
}

int cfg_seq_len(const yaml_node_t *seq)
{
	if (!seq)
		return 0;
	return (int)(seq->data.sequence.items.top -
		     seq->data.sequence.items.start);
}

yaml_node_t *cfg_seq_at(const struct cfg *c, const yaml_node_t *seq, int i)
{
	return cfg_node(c, seq->data.sequence.items.start[i]);
}

void cfg_join(char *out, size_t n, const void *base, size_t stride,
	      int count, int max)
{
	size_t used = 0;

	out[0] = 0;
	if (count == 0) {
		snprintf(out, n, "(none)");
		return;
	}
	for (int i = 0; i < count && used < n; i++) {
		const char *name = (const char *)base + (size_t)i * stride;
		int r = i == max ? snprintf(out + used, n - used, ", ...")
				 : snprintf(out + used, n - used, "%s%s",
					    i ? ", " : "", name);
		if (r < 0 || i == max)
			break;
		used += (size_t)r;
	}
}

/* ---- typed getters ---- */

/* 1 and the scalar text when map[key] is present, 0 when absent, < 0 on a
 * non-scalar.  fp receives the field path, *vn the value node. */
int cfg_get_text(struct cfg *c, const yaml_node_t *map, const char *path,
		 const char *key, char *fp, yaml_node_t **vn, const char **txt)
{
	int rc;

	cfg_path(fp, path, key);
	*vn = cfg_get(c, map, key);
	if (!*vn)
		return 0;
	rc = cfg_scalar(c, *vn, fp, txt);
	return rc ? rc : 1;
}

int cfg_int_node(struct cfg *c, const yaml_node_t *v, const char *fp,
		 int64_t lo, int64_t hi, int64_t *out)
{
	const char *t;
	int64_t x;
	int rc = cfg_scalar(c, v, fp, &t);

	if (rc)
		return rc;
	rc = fw_parse_int(t, &x);
	if (rc == FW_EINVAL)
		return cfg_fail(c, v, FW_EINVAL, fp,
				"\"%s\" is not a whole number; write an "
				"integer such as %lld",
				t, (long long)(lo > 0 ? lo : hi < 8 ? hi : 8));
	if (rc || x < lo || x > hi)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"%s is out of range; use a whole number from "
				"%lld to %lld",
				t, (long long)lo, (long long)hi);
	*out = x;
	return FW_OK;
}

int cfg_int(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v = cfg_get(c, map, key);

	if (!v)
		return FW_OK;
	return cfg_int_node(c, v, cfg_path(fp, path, key), lo, hi, out);
}

int cfg_int32(struct cfg *c, const yaml_node_t *map, const char *path,
	      const char *key, int64_t lo, int64_t hi, int32_t *out)
{
	int64_t x = *out;
	int rc = cfg_int(c, map, path, key, lo, hi, &x);

	if (!rc)
		*out = (int32_t)x;
	return rc;
}

int cfg_bool(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, bool *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	if (fw_parse_bool(t, out))
		return cfg_fail(c, v, FW_EINVAL, fp,
				"\"%s\" is not a boolean; write true or false",
				t);
	return FW_OK;
}

int cfg_name_node(struct cfg *c, const yaml_node_t *v, const char *fp,
		  char *out)
{
	const char *t;
	int rc = cfg_scalar(c, v, fp, &t);

	if (rc)
		return rc;
	if (!*t || cfg_is_null(v))
		return cfg_fail(c, v, FW_EINVAL, fp,
				"the name is empty; give it a non-empty name");
	if (strlen(t) >= FW_NAME_MAX)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"\"%.20s...\" is %zu bytes long; shorten it to "
				"at most %d",
				t, strlen(t), FW_NAME_MAX - 1);
	for (const char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return cfg_fail(c, v, FW_EINVAL, fp,
					"the value contains a control "
					"character; use printable text");
	memcpy(out, t, strlen(t) + 1);
	return FW_OK;
}

int cfg_label_value(struct cfg *c, const yaml_node_t *v, const char *fp, char *out)
{
	if (cfg_is_null(v) || (v && v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0)) {
		*out = '\0';
		return FW_OK;
	}
	return cfg_name_node(c, v, fp, out);
}

int cfg_name(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, char *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v = cfg_get(c, map, key);

	if (!v)
		return FW_OK;
	return cfg_name_node(c, v, cfg_path(fp, path, key), out);
}

int cfg_ident(struct cfg *c, const yaml_node_t *map, const char *path,
	      const char *key, char *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v = cfg_get(c, map, key);
	const char *why;
	int rc;

	if (!v)
		return FW_OK;
	if ((rc = cfg_name_node(c, v, cfg_path(fp, path, key), out)))
		return rc;
	if (!(why = fw_name_problem(out)))
		return FW_OK;
	rc = cfg_fail(c, v, FW_EINVAL, fp,
		      "\"%s\" %s; rename it (nodes, queues and jobs are "
		      "addressed by name: fairway jobs show NAME, "
		      "fairway nodes show NAME, /v1/queues/NAME)",
		      out, why);
	out[0] = '\0';
	return rc;
}
