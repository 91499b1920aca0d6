/*
 * embed.c — build-time helper: turn a file into a C array, so `fairway
 * plan` can run on the example cluster with no file around (the README's
 * "embedded default").  Usage: embed SYMBOL IN OUT.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *in, *out;
	int c;
	long n = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: embed SYMBOL IN OUT\n");
		return 2;
	}
	in = fopen(argv[2], "rb");
	out = fopen(argv[3], "w");
	if (!in || !out) {
		perror("embed");
		return 1;
	}
	fprintf(out, "/* generated from %s by tools/embed.c; do not edit */\n", argv[2]);
	fprintf(out, "#include <stddef.h>\nconst unsigned char %s[] = {\n", argv[1]);
	while ((c = fgetc(in)) != EOF)
		fprintf(out, "%d,%s", c, (++n % 20) ? "" : "\n");
	fprintf(out, "0};\nconst size_t %s_len = %ld;\n", argv[1], n);
	fclose(in);
	return fclose(out) ? 1 : 0;
}
