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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* ---- temporary files an interrupt removes ------------------------------ */

#define MAX_TMP 16 /* six outputs per run; room to spare */

static char live[MAX_TMP][FW_OUTFILE_PATH]; /* "" = free slot */
static volatile sig_atomic_t nlive;

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_TMP; i++)
		if (live[i][0])
			unlink(live[i]); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(const char *tmp, bool on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static bool installed;

	for (int i = 0; i < MAX_TMP; i++) {
		if (on && !live[i][0]) {
			memcpy(live[i], tmp, strlen(tmp) + 1);
			nlive++;
			break;
		}
		if (!on && live[i][0] && strcmp(live[i], tmp) == 0) {
			live[i][0] = '\0';
			nlive--;
			break;
		}
	}
	for (size_t k = 0; on && !installed && k < sizeof sigs / sizeof sigs[0]; k++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[k], &sa, NULL); /* an ignored signal stays ignored */
	}
	installed = installed || on;
}

/* ---- open --------------------------------------------------------------- */

/* Is st the file behind our stdout or stderr?  1 or 2, else -1. */
static int std_fd(const struct stat *st)
{
	struct stat f;

	for (int fd = 1; fd <= 2; fd++)
		if (fstat(fd, &f) == 0 && f.st_dev == st->st_dev && f.st_ino == st->st_ino)
			return fd;
	return -1;
}

/* A dangling symlink's target, relative to the link's directory. */
static int link_target(struct fw_outfile *o)
{
	char t[FW_OUTFILE_PATH];
	const char *slash = strrchr(o->path, '/');
	ssize_t n = readlink(o->path, t, sizeof t - 1);
	int dirlen = slash && t[0] != '/' ? (int)(slash - o->path) + 1 : 0;

	if (n < 0)
		return -1;
	t[n] = '\0';
	if ((size_t)snprintf(o->dest, sizeof o->dest, "%.*s%s", dirlen, o->path, t) >= sizeof o->dest)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* The file to replace: path, or the target of a symlink (a dangling
 * one's target is created). */
static int resolve(struct fw_outfile *o, struct stat *st, bool *exists)
{
	char real[PATH_MAX];

	if (strlen(o->path) + 1 >= sizeof o->dest)
		return errno = ENAMETOOLONG, -1;
	snprintf(o->dest, sizeof o->dest, "%s", o->path);
	*exists = lstat(o->path, st) == 0;
	if (*exists && S_ISLNK(st->st_mode)) {
		*exists = stat(o->path, st) == 0;
		if (*exists && realpath(o->path, real)) /* else a pipe or socket: the path */
			snprintf(o->dest, sizeof o->dest, "%s", real);
		else if (!*exists && link_target(o) != 0)
			return -1;
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
	track(o->tmp, true);
	return 0;
}

int fw_outfile_open(struct fw_outfile *o, const char *flag, const char *path)
{
	struct stat st;
	bool exists;
	mode_t mask = umask(0);

	umask(mask);
	memset(o, 0, sizeof *o);
	o->flag = flag;
	o->path = path;
	o->fd = -1;
	if (resolve(o, &st, &exists) != 0)
		return -1;
	if (exists && S_ISDIR(st.st_mode))
		return errno = EISDIR, -1;
	if (exists)
		o->fd = std_fd(&st);
	if (exists && (!S_ISREG(st.st_mode) || o->fd > 0)) { /* written through at commit */
		if (o->fd < 0 && access(o->dest, W_OK) != 0)
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

/* Our own stdout or stderr: after what the program printed, through the
 * descriptor (so a redirected file is appended to, not truncated). */
static int write_fd(int fd, const char *p, size_t n)
{
	fflush(NULL);
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A special file: the buffered bytes, written straight through. */
static int write_through(struct fw_outfile *o)
{
	FILE *f;
	int bad;

	if (o->fd > 0)
		return write_fd(o->fd, o->mem, o->len);
	fflush(NULL); /* what the program printed first: the path may be a terminal */
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
		if ((rc = rename(o->tmp, o->dest)) == 0) {
			track(o->tmp, false);
			o->tmp[0] = '\0';
		}
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
	if (o->tmp[0]) {
		unlink(o->tmp);
		track(o->tmp, false);
	}
	o->tmp[0] = '\0';
	free(o->mem);
	o->mem = NULL;
	o->len = 0;
	errno = e;
}

/* ---- paths that name one file ------------------------------------------ */

/* Who a path names: the file's device and inode when it exists, else its
 * directory's and its last name; unknown when neither can be looked at. */
struct file_id {
	bool known, special;
	dev_t dev;
	ino_t ino;
	const char *base; /* NULL: dev and ino are the file's own */
};

static void file_id(const char *path, struct file_id *id)
{
	const char *slash = strrchr(path, '/');
	char dir[FW_OUTFILE_PATH];
	struct stat st;

	memset(id, 0, sizeof *id);
	if (stat(path, &st) == 0) {
		id->special = !S_ISREG(st.st_mode) || std_fd(&st) > 0;
	} else {
		id->base = slash ? slash + 1 : path;
		snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
			 slash ? path : ".");
		if (stat(dir, &st) != 0)
			return;
	}
	id->known = true;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
}

/* Do a and b name one file (neither special)? */
static bool same_file(const char *a, const char *b)
{
	struct file_id x, y;

	file_id(a, &x);
	file_id(b, &y);
	if (x.special || y.special)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	if (!x.known || !y.known || !x.base != !y.base)
		return false;
	return x.dev == y.dev && x.ino == y.ino && (!x.base || strcmp(x.base, y.base) == 0);
}

int fw_outfile_clash(const struct fw_path_use *v, int n, int *first)
{
	for (int j = 1; j < n; j++)
		for (int i = 0; i < j; i++)
			if (v[i].path && v[j].path && (v[i].out || v[j].out) && same_file(v[i].path, v[j].path))
				return *first = i, j;
	return -1;
}

int fw_outfile_dash(const struct fw_path_use *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i].out && v[i].path && strcmp(v[i].path, "-") == 0)
			return i;
	return -1;
}
