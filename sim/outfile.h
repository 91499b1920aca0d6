/*
 * outfile.h — the output files of `fairway sim run`: whole or not at all.
 *
 * A run writes up to six files (--json, --csv, --report, --log, --jobs,
 * --shares).  A run that fails must leave every one of them as it was:
 * no empty or half-written file, no earlier result wiped.  So each output
 * is written to a temporary file beside it (same directory, so rename()
 * is atomic and never crosses a filesystem), and only when the whole run
 * succeeded are they all closed, then all renamed into place.  Opening
 * the temporary files before the replays is also the writability check:
 * a bad path fails at once, naming its flag and the OS reason.
 *
 * Special paths are written through, not replaced: a path that exists and
 * is not a regular file (/dev/stdout, a FIFO, a terminal) is written
 * directly at commit from a memory buffer, and so is a path that is the
 * program's own stdout or stderr, whatever it is (--json /dev/stdout >
 * file: appended to the file after what the run printed, through the
 * descriptor, not truncated or replaced).  A symlink is followed, so its
 * target is replaced and the link stays; a dangling one creates its
 * target (the temporary file beside it, so a missing directory fails at
 * open, like any bad path).
 *
 * Temporary files do not outlive an interrupted run: while one exists,
 * SIGINT, SIGTERM and SIGHUP remove every one of them, then end the
 * program as the signal would have.
 *
 *   struct fw_outfile o;
 *   if (fw_outfile_open(&o, "--json", path) != 0) -> errno says why
 *   ... write to o.f ...
 *   fw_outfile_close(&o) (flush, 0 or -1), then fw_outfile_commit(&o), or
 *   fw_outfile_abort(&o) on any failure (removes the temporary file).
 * Messages are the caller's: "--json PATH: cannot write: REASON"
 * (strerror(errno)).
 */
#ifndef FAIRWAY_SIM_OUTFILE_H
#define FAIRWAY_SIM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define FW_OUTFILE_PATH 4096

struct fw_outfile {
	const char *flag;             /* "--json": for the caller's messages */
	const char *path;             /* as given */
	char dest[FW_OUTFILE_PATH];   /* the file replaced (a symlink's target) */
	char tmp[FW_OUTFILE_PATH];    /* the temporary file; "" = written through */
	FILE *f;                      /* where the run writes; NULL = not open */
	char *mem;                    /* written through: the bytes, until commit */
	size_t len;
	int mode;                     /* the mode the replaced file gets */
	int fd;                       /* written through our own stdout/stderr: 1
				       * or 2; else -1 */
};

/* Open a temporary file for path (or a memory buffer for a special
 * file).  0, or -1 with errno set and nothing created. */
int fw_outfile_open(struct fw_outfile *o, const char *flag, const char *path);
/* Flush and close o->f (the data stays unpublished); 0 or -1 (errno). */
int fw_outfile_close(struct fw_outfile *o);
/* After fw_outfile_close: publish (rename, or write through); 0 or -1. */
int fw_outfile_commit(struct fw_outfile *o);
/* Drop everything written; the path is left as it was.  Idempotent. */
void fw_outfile_abort(struct fw_outfile *o);

/* A path a command names, by its flag: a file it writes or one it reads. */
struct fw_path_use {
	const char *flag; /* "--json", "--trace", "OUT": for the caller's messages */
	const char *path; /* NULL: not given */
	bool out;         /* written (else read) */
};

/* Do two entries of v name one file where that would lose data: two
 * outputs (the later replaces the earlier), or an output and an input
 * (the input is replaced)?  One file is the same path string, or the
 * same device and inode: the file's when it exists, else its
 * directory's with the same last name ("./a.json" and "a.json").  A
 * special file written through (a device, a FIFO, our own stdout or
 * stderr: /dev/stdout) clashes with nothing.  Call it before any work.
 * -1 when none clash; else the index of the later entry of the first
 * pair found, with *first the earlier one. */
int fw_outfile_clash(const struct fw_path_use *v, int n, int *first);

/* The index of the first output of v whose path is "-", or -1.  "-" is
 * stdout to a converter (`fairway trace sacct2fairway IN -`); to a
 * command whose stdout carries its own summary (`fairway sim run`,
 * `fairway sim fgd`) it would be a file named "-" in the working
 * directory, which nobody means, so such a command refuses it before any
 * work and names /dev/stdout (written through, after the summary). */
int fw_outfile_dash(const struct fw_path_use *v, int n);

#endif
