/*
 * span.h — a duration in words, the one way fairway writes one.
 *
 * A reason text, a table cell or a client line that shows a span of
 * seconds to a person writes it here, so "in 25200 s" reads "in 7h00m"
 * everywhere (the core's reason texts, plan.h; the daemon's texts,
 * connectors/serve/reason.c; the client's tables, tools/render.c).
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
 * Pure: no I/O, no locale, no allocation.  The text is cut to fit n
 * (NUL-terminated when n > 0), as snprintf cuts; FW_SPAN_MAX bytes hold
 * any span.
 */
#ifndef FAIRWAY_SPAN_H
#define FAIRWAY_SPAN_H

#include <stddef.h>
#include <stdint.h>

/* Holds the longest span, "-2562047788015215h30m08s" (24 characters),
 * and its NUL. */
#define FW_SPAN_MAX 32

/* secs in words into buf (n bytes); returns buf. */
char *fw_span_format(int64_t secs, char *buf, size_t n);

#endif
