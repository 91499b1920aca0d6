/*
 * progress.h — a one-line progress bar on stderr for long replays.
 *
 * Design: the bar is drawn only when its stream is a terminal (the caller
 * passes isatty's answer, so tests can force it on a file), at most ten
 * times a second (CLOCK_MONOTONIC), and always once more at the end, then
 * erased so the summary that follows starts on a clean line:
 *
 *   [fairway] fifo     ███████░░░  70%  9,130/13,046 jobs started
 *
 * The state is a plain struct owned by the caller; no globals, no threads.
 * fw_progress_format is pure, for tests.
 */
#ifndef FAIRWAY_SIM_PROGRESS_H
#define FAIRWAY_SIM_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FW_PROGRESS_WIDTH 24 /* cells in the bar */

struct fw_progress {
	FILE *f;
	bool on;          /* drawing at all (the stream is a TTY) */
	bool drawn;       /* something is on the line now */
	double last;      /* monotonic seconds of the last draw */
	int64_t total;
	char label[32];
	const char *unit; /* what is counted; NULL: "jobs started" */
};

/* True when f is a terminal. */
bool fw_progress_is_tty(FILE *f);
void fw_progress_init(struct fw_progress *p, FILE *f, bool on, const char *label,
		      int64_t total);
/* Redraw if 0.1 s passed since the last draw (or done == total). */
void fw_progress_update(struct fw_progress *p, int64_t done);
/* Erase the line (no-op when nothing was drawn). */
void fw_progress_finish(struct fw_progress *p);
/* The line without "\r": "[fairway] LABEL BAR PCT DONE/TOTAL jobs started". */
void fw_progress_format(char *buf, size_t n, const char *label, const char *unit, int64_t done,
			int64_t total);
/* 13046 -> "13,046". */
void fw_progress_commas(char *buf, size_t n, int64_t v);

#endif
