/*
 * yamlnum.c — getters for the config's units: GPUs, CPUs, memory,
 * durations, times and plain decimals.
 *
 * Each converts with the exact parsers of lib/scalar.c (fairway/scalar.h,
 * the command line's too) into the core's integer unit (milli-GPU,
 * millicore, MiB, seconds) and range-checks the result.
 * Amounts are capped at AMOUNT_MAX so that summing every node's capacity
 * (FW_CONFIG_MAX_NODES of them) can never overflow an int64 in the core.
 * Where a limit may be unlimited, the literal -1 is FW_UNLIMITED.
 */
#include <string.h>

#include "config_int.h"
#include "fwconfig.h"

#define AMOUNT_MAX 1000000000000LL        /* 1e12 of the core's unit */
#define DURATION_MAX_MS (FW_CONFIG_MAX_SECONDS * 1000) /* ~3170 years */

enum amount_kind { AM_GPU, AM_CPU, AM_MEM };

static int parse_amount(enum amount_kind k, const char *t, int64_t *out)
{
	switch (k) {
	case AM_GPU:
		return fw_parse_fixed(t, 3, out);
	case AM_CPU:
		return fw_parse_cpu(t, out);
	default:
		return fw_parse_mib(t, out);
	}
}

static const char *amount_help(enum amount_kind k)
{
	switch (k) {
	case AM_GPU:
		return "is not a GPU amount; write GPUs as a number with at "
		       "most 3 decimals (8, 0.5)";
	case AM_CPU:
		return "is not a CPU amount; write cores with at most 3 "
		       "decimals (8, 0.5) or millicores (\"500m\")";
	default:
		return "is not a memory amount; write MiB (512) or a binary "
		       "quantity (\"512Mi\", \"80Gi\", \"1Ti\"; decimal "
		       "suffixes like G are not accepted)";
	}
}

static int amount(struct cfg *c, const yaml_node_t *map, const char *path,
		  const char *key, enum amount_kind k, bool unlimited_ok,
		  int64_t *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t;
	int64_t x;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	if (unlimited_ok && strcmp(t, "-1") == 0) {
		*out = FW_UNLIMITED;
		return FW_OK;
	}
	rc = parse_amount(k, t, &x);
	if (rc == FW_EINVAL)
		return cfg_fail(c, v, rc, fp, "\"%s\" %s", t, amount_help(k));
	if (!rc && x < 0)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"%s must not be negative (got %s); write 0 or "
				"a positive amount%s",
				key, t,
				unlimited_ok ? " (-1 means unlimited)" : "");
	if (rc || x > AMOUNT_MAX)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"\"%s\" is too large; amounts are limited to "
				"%lld %s",
				t, AMOUNT_MAX,
				k == AM_GPU   ? "milli-GPUs"
				: k == AM_CPU ? "millicores"
					      : "MiB");
	*out = x;
	return FW_OK;
}

int fw_config_parse_mib(const char *text, int64_t *mib)
{
	return fw_parse_mib(text, mib);
}

int cfg_cpu(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out)
{
	return amount(c, map, path, key, AM_CPU, unlimited_ok, out);
}

int cfg_gpu(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out)
{
	return amount(c, map, path, key, AM_GPU, unlimited_ok, out);
}

int cfg_mib(struct cfg *c, const yaml_node_t *map, const char *path,
	    const char *key, bool unlimited_ok, int64_t *out)
{
	return amount(c, map, path, key, AM_MEM, unlimited_ok, out);
}

int cfg_duration(struct cfg *c, const yaml_node_t *map, const char *path,
		 const char *key, int64_t *ms)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t;
	int64_t x;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	rc = fw_parse_duration_ms(t, &x);
	if (rc == FW_EINVAL)
		return cfg_fail(c, v, rc, fp,
				"\"%s\" is not a duration; write seconds (30) "
				"or numbers with a unit s, m, h, d (\"15m\", "
				"\"7d\", \"1h30m\")",
				t);
	if (rc || x > DURATION_MAX_MS)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"\"%s\" is too long; durations are limited to "
				"%lld seconds",
				t, DURATION_MAX_MS / 1000);
	*ms = x;
	return FW_OK;
}

int cfg_time(struct cfg *c, const yaml_node_t *map, const char *path,
	     const char *key, fw_time *out)
{
	char fp[CFG_PATH];
	int64_t ms = -1;
	int rc = cfg_duration(c, map, path, key, &ms);

	if (rc || ms < 0)
		return rc;
	if (ms % 1000)
		return cfg_fail(c, cfg_get(c, map, key), FW_EINVAL,
				cfg_path(fp, path, key),
				"times are whole seconds; round the value to "
				"a whole number of seconds");
	*out = ms / 1000;
	return FW_OK;
}

int cfg_time32(struct cfg *c, const yaml_node_t *map, const char *path,
	       const char *key, int32_t *out)
{
	char fp[CFG_PATH];
	fw_time x = -1;
	int rc = cfg_time(c, map, path, key, &x);

	if (rc || x < 0)
		return rc;
	if (x > FW_SPAN32_MAX)
		return cfg_fail(c, cfg_get(c, map, key), FW_ERANGE,
				cfg_path(fp, path, key),
				"%lld s is too long; a job's %s is at most "
				"%lld s (68 years)",
				(long long)x, key, (long long)FW_SPAN32_MAX);
	*out = (int32_t)x;
	return FW_OK;
}

int cfg_double(struct cfg *c, const yaml_node_t *map, const char *path,
	       const char *key, double hi, double *out)
{
	char fp[CFG_PATH];
	yaml_node_t *v;
	const char *t;
	int64_t micro;
	int rc = cfg_get_text(c, map, path, key, fp, &v, &t);

	if (rc <= 0)
		return rc;
	rc = fw_parse_fixed(t, 6, &micro);
	if (rc == FW_EINVAL)
		return cfg_fail(c, v, rc, fp,
				"\"%s\" is not a number; write a decimal with "
				"at most 6 decimals, such as 1.5",
				t);
	if (rc || micro < 0 || (double)micro / 1e6 > hi)
		return cfg_fail(c, v, FW_ERANGE, fp,
				"%s is out of range; use a number from 0 to "
				"%.10g",
				t, hi);
	*out = (double)micro / 1e6;
	return FW_OK;
}
