/*
 * cliword.h — one command-line word, GNU style.
 *
 * Every fairway program takes a flag's value either as the next word or
 * joined to the flag with '=': `--config my.yaml` and `--config=my.yaml`
 * mean the same.  A parser calls fw_cli_split_eq on each word first: for
 * "--name=value" it cuts the word at the '=' in place (the word then reads
 * "--name") and returns the value, which the parser uses instead of the
 * next word.  Each parser then refuses what cannot make sense, with exit
 * status 2: a value joined to a flag that takes none (`--watch=1`), and an
 * empty joined value (`--config=`), which is almost always a shell
 * variable that was never set.
 *
 * It is shared by `fairway` (tools/), `fairway-agent` (agent/),
 * `fairway-health-sim` (sim/) and `fairway-slurm` (connectors/slurm/);
 * `fairway sim run` and `fairway sim fgd` split on their own, against
 * their tables of flags.  fw_cli_server_base() reads `--server URL` for
 * both programs that talk to `fairway serve`.  fw_cli_hint() names the flag a mistyped one
 * was probably meant to be, for every program's "unknown option" error,
 * and fw_cli_nearest the same for `fairway serve`'s "unknown field" errors
 * (connectors/serve/codec.c) and the YAML loader's "unknown key" errors
 * (connectors/config/yamlget.c); fw_cli_nearest_name for an unknown GPU
 * model or topology level, whatever its case.
 */
#ifndef FAIRWAY_CLIWORD_H
#define FAIRWAY_CLIWORD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* "--name=value": ends the word at '=' and returns the value; NULL when
 * the word is not of that form (no leading "--", or no '='). */
char *fw_cli_split_eq(char *word);

/* Is the joined value `value` (fw_cli_split_eq's result, or NULL) of flag
 * acceptable?  bare lists the flags that take no value, ending with NULL.
 * Returns 0, or 2 with the reason in why ("--watch takes no value", "--out=
 * has an empty value; give --out VALUE or --out=VALUE"). */
int fw_cli_joined_ok(const char *flag, const char *value, const char *const *bare, char *why,
		     size_t n);

/* A hint for a mistyped flag: " (did you mean '--policies'?)" in buf when
 * exactly one of cands (ending with NULL) is the closest to word and
 * within reach of it (at most 2 edits: a byte added, dropped, changed or
 * two neighbours swapped; 1 edit for a word of 6 bytes or fewer, but for
 * a flag of 4 letters or more after its "--": "--sead" is "--seeds", 2
 * edits away, while "--cpu" stays 1), else ""
 * (two equally close candidates are a guess, not a hint, unless only one
 * of them begins with word: "--gpu" is "--gpus", not "--cpu"; or, for a
 * flag, only one begins the most like it: "--sead" is "--seeds", not
 * "--load", both 2 edits away); failing
 * that, the one fw_cli_nearest_name picks, case aside ("FIFO" is "fifo",
 * which a value compared as written still refuses).  Returns buf. */
const char *fw_cli_hint(const char *word, const char *const *cands, char *buf, size_t n);
/* The candidate itself by the same rule, or NULL (the daemon's "unknown
 * field" errors name it their own way). */
const char *fw_cli_nearest(const char *word, const char *const *cands);
/* The same for a name a person typed against the names there are (a GPU
 * model, a topology level): ASCII case is no edit, so "NVLINK" is
 * "nvlink" and "h10" within reach of "H100"; a name equal to word is no
 * hint (NULL). */
const char *fw_cli_nearest_name(const char *word, const char *const *cands);

/* A plain decimal at the start of v: an optional '-', digits, and
 * optionally '.' and more digits ("16", "-5", "0.5", "2."), its value in
 * *x and *end just after it.  false when v does not start with one, or
 * when strtod would read on (an exponent, "1e1"; hex, "0x10"): a user's
 * number is written in decimal, and "0x10" read as 16 or "1e1" as 10
 * would be a surprise.  No '+', inf or nan. */
bool fw_cli_decimal(const char *v, double *x, const char **end);

/* A duration: "90" or "90s", "10m", "1.5h", "1d", "1h30m" -> seconds in
 * *secs; false when v is not one.  The config's grammar, one parser for
 * both (fw_parse_duration_ms, fairway/scalar.h): a number, or one or more
 * number+unit (s, m, h, d), whole milliseconds.  A leading '-' gives
 * the negative, and a duration too long for the grammar's int64 of
 * milliseconds HUGE_VAL, so that the caller's range check refuses them
 * with the range ("--runtime -5: must be from 0 to ...") rather than
 * call them no duration.
 * The syntax of `fairway jobs submit --runtime`, `--start +10m`,
 * `fairway decisions --since` and `fairway serve --log-keep`; each caller
 * bounds the value itself. */
bool fw_cli_duration(const char *v, double *secs);

/* The length of the daemon's base URL in url, as `fairway --server URL`
 * and `fairway-agent --server URL` take it: trailing slashes and one
 * trailing "/v1" (and the slashes before it) left out, so
 * "http://h:8642/", "http://h:8642/v1" and "http://h:8642/v1/" all name
 * "http://h:8642", which the API paths ("/v1/...") follow.  The slashes
 * of "scheme://" stay. */
size_t fw_cli_server_base(const char *url);

/* Every fairway program's refusal of its command line, in one form:
 * "WHO: error: WHY" (fmt, ap), then "run `WHO --help` for usage", on f;
 * returns 2, the exit status a bad command line gets.  WHO is what the
 * user typed: "fairway plan", "fairway sim run", "fairway-health-sim". */
int fw_cli_vrefuse(FILE *f, const char *who, const char *fmt, va_list ap);

#endif
