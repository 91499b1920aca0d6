/*
 * fwconfig.h — load a fairway snapshot from a YAML scenario/config file.
 *
 * The schema (camelCase keys, Kueue/KAI-like) is documented in
 * docs/config.md.  The loader is the only part of fairway that includes
 * <yaml.h>; it turns a YAML file into a struct fw_snapshot and nothing else.
 *
 * Errors: both functions return FW_OK and store a new snapshot in *out, or
 * return a negative fw_err and fill *d (when d is not NULL) with the file
 * name, the 1-based line and column of the offending YAML node, the field as
 * a dotted path ("queues[2].resources.gpu.quota") and a message that says
 * what is wrong and what to do.  On error *out is untouched and nothing is
 * leaked.  The loaded snapshot has passed fw_snapshot_validate().
 *
 * Clock: the file's `now` (or the caller's, below) decides what its times
 * count.  A now of 10^9 or more is a Unix time (fw_time_is_date, span.h:
 * a snapshot of a live fleet), and the loaded snapshot's
 * config.utc_times is set, so its texts write UTC dates; it is set before
 * any time is checked, so the loader's own refusals say
 * "1796569000 (2026-12-06T14:56:40Z) is after now (1796568000,
 * 2026-12-06T14:40:00Z)".  A smaller now is virtual seconds, and
 * utc_times stays false.
 *
 * Ownership: the caller frees the snapshot with fw_snapshot_free().
 */
#ifndef FAIRWAY_FWCONFIG_H
#define FAIRWAY_FWCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "fairway/err.h"
#include "fairway/snapshot.h"

/* Files larger than this are refused (FW_ERANGE) before parsing. */
#define FW_CONFIG_MAX_BYTES (64u << 20)
/* Lists and mappings nest at most this deep (the schema needs 6), and a
 * file has at most this many anchors (&name): libyaml spends time in
 * proportion to the nesting depth on every token and to the number of
 * anchors on every alias, so without the bounds a small hostile file
 * ("[[[[...", thousands of anchors) takes hours to load. */
#define FW_CONFIG_MAX_DEPTH 64
#define FW_CONFIG_MAX_ANCHORS 256
/* Most nodes one config may describe (nodes + generated nodeGroups). */
#define FW_CONFIG_MAX_NODES 65536
/* Longest duration, and latest time, in seconds (~3170 years); `fairway
 * plan --now` keeps to it too. */
#define FW_CONFIG_MAX_SECONDS 100000000000LL

int fw_config_load_file(const char *path, struct fw_snapshot **out,
			struct fw_diag *d);

/* A memory amount as the config writes one: MiB ("512") or a binary
 * quantity ("512Mi", "80Gi", "1.5Ti"; Ki too when it makes whole MiB;
 * decimal suffixes such as G are not taken), in *mib.  FW_OK, FW_EINVAL
 * (not that syntax, or not a whole MiB) or FW_ERANGE (too large); no
 * range check beyond that.  For the client's --memory. */
int fw_config_parse_mib(const char *text, int64_t *mib);

/* name is used as the diag's file name ("<buffer>" when NULL); buf need not
 * be NUL-terminated. */
int fw_config_load_buffer(const char *name, const char *buf, size_t len,
			  struct fw_snapshot **out, struct fw_diag *d);

/* fw_config_load_file, with the top level limited to root_keys (a
 * NULL-terminated subset of the schema's: now, scheduler, topology, nodes,
 * nodeGroups, queues, jobs).  Any other top-level key is refused as the
 * schema refuses an unknown key: FILE:LINE:COL, the key and the allowed
 * list.  A fleet file (sim/fleet.h) allows topology, nodes, nodeGroups. */
int fw_config_load_file_keys(const char *path, const char *const *root_keys,
			     struct fw_snapshot **out, struct fw_diag *d);

/* fw_config_load_file / fw_config_load_buffer at the caller's now
 * (`fairway plan --now`) instead of the file's `now:`: the file's value
 * is still checked, then replaced before anything is held to now, so a
 * submitTime or startTime after `now` is refused (FW_ERANGE, at its
 * line) and the usage times default to it.  Messages name now_flag
 * ("--now"; NULL: "now") where they would say `now`. */
int fw_config_load_file_now(const char *path, fw_time now, const char *now_flag,
			    struct fw_snapshot **out, struct fw_diag *d);
int fw_config_load_buffer_now(const char *name, const char *buf, size_t len,
			      fw_time now, const char *now_flag,
			      struct fw_snapshot **out, struct fw_diag *d);

#endif
