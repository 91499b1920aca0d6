/*
 * span.h — a duration in words, and a time, the one way fairway writes each.
 *
 * A reason text, a table cell or a client line that shows a span of
 * seconds to a person writes it here, so "in 25200 s" reads "in 7h00m"
 * everywhere (the core's reason texts, plan.h; the daemon's texts,
 * connectors/serve/reason.c; the client's tables, tools/render.c; the
 * simulator's text report, sim/des.c).
 *
 *   0 <= s < 60        "45s"                 (0 is "0s")
 *   60 <= s < 3600     "5m", "5m30s", "5m05s"
 *   3600 <= s          "7h00m", "7h00m30s", "26h40m"
 *
 * Exact to the second: the seconds are shown whenever there are some, so
 * no span is rounded and 3599 s is "59m59s", never "1h".  Hours do not
 * roll over into days ("26h40m", not "1d02h40m"): one form, which the
 * client's tables, its "in 5m" and the plan's "+7h00m" already use and
 * which sorts by eye; a week is "168h00m".  A negative span (a time
 * before now) is the same words after a "-" ("-5m30s"); INT64_MIN is
 * written in full ("-2562047788015215h30m08s").
 *
 * A time is written by what its clock counts (fw_sched_config.utc_times,
 * snapshot.h).  A simulation's or an example's virtual seconds are
 * "t=125200", as they always were (the scenario goldens, the simulator's
 * texts).  The daemon's and the Slurm adapter's now is Unix time, and a
 * person reads "t=1796568754" as nothing, so there a time is its UTC date
 * and time in ISO 8601, "2026-12-06T16:42:05Z" (fw_utc_format):
 *
 *   - ISO 8601, the form Slurm's own StartTime and sacct use
 *     ("2026-12-06T16:42:05"), so a Slurm user reads it at once, and it
 *     sorts as text;
 *   - UTC with its "Z", never local time: the daemon, its clients and
 *     slurmctld may sit in different zones, a text is stored (the
 *     decision log, a Slurm comment) and read later elsewhere, and the
 *     core has no time zone data (no I/O, no locale);
 *   - to the second, as a span is: no time is rounded, except where a
 *     Slurm comment says "expected start 2026-11-30T02:10Z", a minute
 *     rounded up (fw_utc_format_minute: the comment changes at most once
 *     a minute while an estimate slides with the clock; never a minute
 *     already past).
 *
 * The client (fairway jobs show ...) writes the same words beside its
 * "in 5m": "expected start: in 5m (2026-12-06T16:42:05Z; ...)".
 *
 * Range: 1970-01-01T00:00:00Z (0) to 9999-12-31T23:59:59Z (253402300799),
 * four-digit years, as ISO 8601 has without an agreed extension.  A time
 * outside it (before the epoch: a Unix time fairway never has; past year
 * 9999: nothing a plan foresees) is written as its seconds, "t=-1",
 * "t=253402300800", so no number is lost and none reads as a date it is
 * not.
 *
 * Pure: no I/O, no locale, no allocation, no clock (civil dates from day
 * numbers by arithmetic alone).  The text is cut to fit n (NUL-terminated
 * when n > 0), as snprintf cuts; FW_SPAN_MAX bytes hold any span,
 * FW_TIME_TEXT_MAX any time.
 */
#ifndef FAIRWAY_SPAN_H
#define FAIRWAY_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Holds the longest span, "-2562047788015215h30m08s" (24 characters),
 * and its NUL. */
#define FW_SPAN_MAX 32

/* secs in words into buf (n bytes); returns buf. */
char *fw_span_format(int64_t secs, char *buf, size_t n);

/* Holds the longest time text, "t=-9223372036854775808" (22 characters),
 * and its NUL. */
#define FW_TIME_TEXT_MAX 24
/* The last second fw_utc_format writes as a date: 9999-12-31T23:59:59Z. */
#define FW_UTC_MAX INT64_C(253402300799)

/* t, seconds since 1970-01-01T00:00:00Z, as "2026-12-06T16:42:05Z" (or
 * "t=<t>" outside 0..FW_UTC_MAX); returns buf. */
char *fw_utc_format(int64_t t, char *buf, size_t n);
/* t rounded up to a whole minute, as "2026-12-06T16:43Z" (or "t=<t>",
 * t as given, when t or t rounded is outside 0..FW_UTC_MAX); returns
 * buf. */
char *fw_utc_format_minute(int64_t t, char *buf, size_t n);
/* t as its clock's texts write it: fw_utc_format when utc (a Unix time:
 * the daemon, Slurm), else "t=<t>" (virtual seconds); returns buf. */
char *fw_time_format(int64_t t, bool utc, char *buf, size_t n);
/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian; m
 * 1..12, d 1..31, not checked against the month): the readers of dates
 * (the YAML loader, sacct2fairway) turn a date into Unix time with it,
 * as fw_utc_format turns one back. */
int64_t fw_days_from_civil(int64_t y, int64_t m, int64_t d);

/* The first now taken for a date: 2001-09-09T01:46:40Z (10^9 s). */
#define FW_UTC_FROM INT64_C(1000000000)
/* Does a snapshot whose now is now count Unix time?  The daemon and the
 * Slurm adapter know they do (their clock is the system's) and set
 * utc_times without asking; the YAML loader (`fairway plan --config
 * FILE`) reads a file that may be either, and asks here: a now of FW_UTC_FROM or more is a
 * real date (a snapshot taken from a live fleet), a smaller one virtual
 * seconds (a simulation's, an example's, the scenario tests': they count
 * from 0, and 10^9 of them are 31 years).  No clock is read. */
bool fw_time_is_date(int64_t now);

#endif
