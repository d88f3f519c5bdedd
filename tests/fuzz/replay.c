/*
 * replay.c: a main() for a fuzz harness without libFuzzer, so that make
 * check runs the seed corpus and the saved crash inputs through the
 * harness's checks (tests/bats/fuzz.bats).
 *
 *   replay-TARGET file-or-directory ...
 *
 * Each file, and each file of each directory, is read whole and given to
 * LLVMFuzzerTestOneInput().  A broken invariant aborts (with the file
 * named just before); otherwise it prints how many inputs it ran.  Exit
 * status: 0, 66 if an argument cannot be read.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "fuzz.h"
#include "util/xmalloc.h"

/* Read path whole into a malloc'd buffer; its size in *size. */
static uint8_t *
replay_read(const char *path, size_t *size)
{
	uint8_t *buf = NULL;
	size_t cap = 0, n;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL)
		err(EX_NOINPUT, "cannot open '%s'", path);
	*size = 0;
	do {
		if (*size == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xreallocarray(buf, cap, 1);
		}
		n = fread(buf + *size, 1, cap - *size, fp);
		*size += n;
	} while (n > 0);
	if (ferror(fp))
		err(EX_NOINPUT, "cannot read '%s'", path);
	fclose(fp);
	return buf;
}

/* Run one file through the harness. */
static void
replay_file(const char *path)
{
	uint8_t *data;
	size_t size;

	data = replay_read(path, &size);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
}

/* Run every regular file of dir (not recursing); how many. */
static size_t
replay_dir(const char *dir)
{
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	char *path;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		err(EX_NOINPUT, "cannot open '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		path = xasprintf("%s/%s", dir, de->d_name);
		if (de->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			replay_file(path);
			n++;
		}
		free(path);
	}
	closedir(d);
	return n;
}

int
main(int argc, char *argv[])
{
	struct stat st;
	size_t n = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s file-or-directory ...\n", argv[0]);
		return EX_USAGE;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0)
			err(EX_NOINPUT, "cannot open '%s'", argv[i]);
		if (S_ISDIR(st.st_mode))
			n += replay_dir(argv[i]);
		else {
			replay_file(argv[i]);
			n++;
		}
	}
	printf("%zu inputs\n", n);
	return 0;
}
