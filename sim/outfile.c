/*
 * outfile.c — output files that appear whole or not at all (outfile.h).
 *
 * Phases: open (resolve the path, create the temporary file beside its
 * destination), the run writes, close (flush: a full disk shows here,
 * before anything is published), commit (rename, or write the buffer
 * through a special file).  abort removes the temporary file.
 */
#define _XOPEN_SOURCE 700 /* realpath() (XSI); the build defines only POSIX 2008 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* The file to replace: path, or the target of a symlink.  *through: a
 * symlink whose target does not exist yet (written through the link). */
static int resolve(struct fw_outfile *o, struct stat *st, bool *exists, bool *through)
{
	char real[PATH_MAX];

	if (strlen(o->path) + 1 >= sizeof o->dest)
		return errno = ENAMETOOLONG, -1;
	snprintf(o->dest, sizeof o->dest, "%s", o->path);
	*exists = lstat(o->path, st) == 0;
	*through = false;
	if (*exists && S_ISLNK(st->st_mode)) {
		*exists = stat(o->path, st) == 0 && realpath(o->path, real);
		*through = !*exists;
		if (*exists)
			snprintf(o->dest, sizeof o->dest, "%s", real);
	}
	return 0;
}

/* DIR/.BASE.XXXXXX beside dest. */
static int make_tmp(struct fw_outfile *o)
{
	const char *slash = strrchr(o->dest, '/');
	int dirlen = slash ? (int)(slash - o->dest) + 1 : 0, fd;

	if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", dirlen, o->dest,
			     slash ? slash + 1 : o->dest) >= sizeof o->tmp)
		return errno = ENAMETOOLONG, -1;
	if ((fd = mkstemp(o->tmp)) < 0 || !(o->f = fdopen(fd, "wb"))) {
		int e = errno;
		if (fd >= 0)
			close(fd), unlink(o->tmp);
		o->tmp[0] = '\0';
		return errno = e, -1;
	}
	return 0;
}

int fw_outfile_open(struct fw_outfile *o, const char *flag, const char *path)
{
	struct stat st;
	bool exists, through;
	mode_t mask = umask(0);

	umask(mask);
	memset(o, 0, sizeof *o);
	o->flag = flag;
	o->path = path;
	if (resolve(o, &st, &exists, &through) != 0)
		return -1;
	if (exists && S_ISDIR(st.st_mode))
		return errno = EISDIR, -1;
	if (through || (exists && !S_ISREG(st.st_mode))) { /* written through at commit */
		if (exists && access(o->dest, W_OK) != 0)
			return -1;
		o->f = open_memstream(&o->mem, &o->len);
		return o->f ? 0 : -1;
	}
	o->mode = exists ? (int)(st.st_mode & 07777) : (int)(0666 & ~mask);
	return make_tmp(o);
}

int fw_outfile_close(struct fw_outfile *o)
{
	int bad;

	if (!o->f)
		return 0;
	errno = 0;
	bad = fflush(o->f) != 0 || ferror(o->f);
	if (o->tmp[0] && !bad)
		bad = fchmod(fileno(o->f), (mode_t)o->mode) != 0;
	bad |= fclose(o->f) != 0;
	o->f = NULL;
	if (bad && !errno)
		errno = EIO;
	return bad ? -1 : 0;
}

/* A special file: the buffered bytes, written straight through. */
static int write_through(struct fw_outfile *o)
{
	FILE *f;
	int bad;

	fflush(NULL); /* what the program printed first: the path may be its stdout */
	if (!(f = fopen(o->dest, "wb")))
		return -1;
	bad = o->len && fwrite(o->mem, 1, o->len, f) != o->len;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

int fw_outfile_commit(struct fw_outfile *o)
{
	int rc;

	if (o->tmp[0]) {
		if ((rc = rename(o->tmp, o->dest)) == 0)
			o->tmp[0] = '\0';
	} else {
		rc = write_through(o);
	}
	fw_outfile_abort(o);
	return rc;
}

void fw_outfile_abort(struct fw_outfile *o)
{
	int e = errno;

	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
	free(o->mem);
	o->mem = NULL;
	o->len = 0;
	errno = e;
}
