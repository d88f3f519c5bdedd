/*
 * fuzz.c: the helpers the fuzz harnesses share (see fuzz.h).
 */
#include "config.h"

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "fuzz.h"
#include "wire.h"

void
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

int
fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) == -1) {
		perror("memfd_create");
		abort();
	}
	for (; off < size; off += (size_t)n)
		if ((n = write(fd, data + off, size - off)) <= 0) {
			perror("write to memfd");
			abort();
		}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

void
fuzz_twice(const uint8_t *data, size_t size,
    void (*run)(const uint8_t *, size_t), void (*fix)(uint8_t *, size_t))
{
	uint8_t *fixed;

	run(data, size);
	if (size == 0)
		return;
	if ((fixed = malloc(size)) == NULL)
		abort();
	memcpy(fixed, data, size);
	fix(fixed, size);
	if (memcmp(fixed, data, size) != 0)
		run(fixed, size);
	free(fixed);
}

uint32_t
fuzz_ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

uint64_t
fuzz_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

void
fuzz_put_crc(uint8_t *dst, const uint8_t *p, uint64_t n, const uint8_t *end)
{
	uint32_t crc;

	if (dst > end || end - dst < 4 || p > end)
		return;
	if (n > (uint64_t)(end - p))
		n = (uint64_t)(end - p);
	crc = ps_crc32c(0, p, (size_t)n);
	memcpy(dst, &crc, 4);
}

int
fuzz_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void
fuzz_fix_frames(uint8_t *p, size_t size)
{
	const uint8_t *end = p + size;
	uint32_t wire_len;
	size_t off;

	for (off = 0; size - off >= PS_FRAME_HDR_LEN;
	    off += PS_FRAME_HDR_LEN + (size_t)wire_len) {
		wire_len = fuzz_ld32(p + off + 40);
		fuzz_put_crc(p + off + 44, p + off + PS_FRAME_HDR_LEN,
		    wire_len, end);
		fuzz_put_crc(p + off + 48, p + off, 48, end);
		if (wire_len > size - off - PS_FRAME_HDR_LEN)
			break;
	}
}
