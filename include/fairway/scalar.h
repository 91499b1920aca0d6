/*
 * scalar.h — exact parsers for the scalar syntaxes people write: amounts
 * (GPUs, CPUs, memory), durations and booleans.
 *
 * Every amount ends up as an integer in the core's unit (milli-GPU,
 * millicore, MiB, milliseconds), so a number is parsed as a fixed-point
 * decimal (an int64 numerator and a power-of-ten scale) and converted with
 * integer arithmetic: "0.5" GPU is exactly 500 milli, "1.5Ti" exactly
 * 1572864 MiB.  A value that does not land on a whole unit ("0.0005" GPU,
 * "100Ki") is refused rather than silently rounded.
 *
 * One grammar for every front end: the YAML loader (connectors/config),
 * the command line (tools/cliword.c fw_cli_duration: `--runtime 1h30m`,
 * `--since 1h30m`, `--start +1h30m`, `fairway serve --log-keep 30d`,
 * `fairway sim run --tick 1h` and its other time flags) and
 * the command-line client's amount flags (`--deserved-gpus 2.5`), so a
 * value one of them takes the others take too, and one refuses the
 * others refuse.  Pure: no I/O, no locale, no allocation.
 *
 * Accepted forms (no exponents, no hex, no surrounding spaces):
 *   number    [+-]digits[.digits]  or  [+-].digits, at most 9 decimals
 *             that are not trailing zeros
 *   cpu       number (cores) | digits "m" (millicores)
 *   memory    number (MiB) | number Ki|Mi|Gi|Ti|Pi (binary only)
 *   duration  number (seconds) | one or more number+unit, unit s|m|h|d
 *             ("90", "90s", "10m", "1.5h", "1h30m", "2d12h"); no sign
 *   bool      true|True|TRUE|false|False|FALSE
 * Results: FW_OK, FW_EINVAL (not this syntax, or not a whole unit) or
 * FW_ERANGE (does not fit an int64).
 */
#ifndef FAIRWAY_SCALAR_H
#define FAIRWAY_SCALAR_H

#include <stdbool.h>
#include <stdint.h>

int fw_parse_int(const char *s, int64_t *out);
/* Decimal number scaled by 10^digits, exactly: ("0.5", 3) -> 500;
 * ("0.0005", 3) is FW_EINVAL: it does not survive that precision. */
int fw_parse_fixed(const char *s, int digits, int64_t *out);
/* "96" / "0.5" cores or "500m" -> millicores. */
int fw_parse_cpu(const char *s, int64_t *milli);
/* "512" (MiB), "512Mi", "80Gi", "1.5Ti", "1048576Ki" -> MiB (whole). */
int fw_parse_mib(const char *s, int64_t *mib);
/* "30", "30s", "15m", "2h", "7d", "1h30m", "1.5h" -> milliseconds. */
int fw_parse_duration_ms(const char *s, int64_t *ms);
int fw_parse_bool(const char *s, bool *out);

#endif
