/*
 * replay.c — run a libFuzzer target over corpus directories without
 * libFuzzer, so every corpus replays under gcc + ASan/UBSan in the normal
 * test suite (SQLite's fuzzcheck, git's fuzz smoke job).
 *
 *   fuzz_replay_<target> DIR...
 *
 * Each regular file in each DIR (not recursive, dot files skipped) is one
 * input and one test: "PASS name" per file, then "N passed, 0 failed".  An
 * input that crashes kills the process (a sanitizer report), which the
 * runner counts as a failure.  Exit 1 if a directory or file cannot be
 * read, or no input was found.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	*buf = malloc((size_t)n + 1); /* +1: never malloc(0) */
	*len = *buf ? fread(*buf, 1, (size_t)n, f) : 0;
	fclose(f);
	if (!*buf || *len != (size_t)n) {
		free(*buf);
		return -1;
	}
	return 0;
}

static int is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every file of dir in name order; returns the count or -1. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	int done = 0;

	if (!d) {
		fprintf(stderr, "cannot open directory %s\n", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) *
							   sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		uint8_t *buf;
		size_t len;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (!is_regular(path)) {
			free(names[i]);
			continue;
		}
		if (read_file(path, &buf, &len)) {
			fprintf(stderr, "cannot read %s\n", path);
			done = -1;
		} else {
			LLVMFuzzerTestOneInput(buf, len);
			free(buf);
			printf("PASS %s\n", path);
			if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int total = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		int k = replay_dir(argv[i]);
		if (k < 0)
			bad = 1;
		else
			total += k;
	}
	printf("%d passed, 0 failed\n", total);
	if (bad || total == 0) {
		fprintf(stderr, "usage: %s CORPUS_DIR... (with readable "
				"inputs)\n", argv[0]);
		return 1;
	}
	return 0;
}
