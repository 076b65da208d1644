// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>
#include <sys/stat.h>

#include "util.h"

int atomic_open(struct atomic_file *af, const char *path)
{
	mode_t mask;
	int fd;

	memset(af, 0, sizeof(*af));
	if (asprintf(&af->tmp, "%s.tmp.XXXXXX", path) < 0)
		return -1;
	af->path = strdup(path);
	if (!af->path)
		goto err;
	fd = mkstemp(af->tmp);
	if (fd < 0)
		goto err;
	/* mkstemp makes 0600; give the file the mode open(2) would have */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		close(fd);
		unlink(af->tmp);
		goto err;
	}
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		close(fd);
		unlink(af->tmp);
		goto err;
	}
	return 0;
err:
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
	return -1;
}

int atomic_commit(struct atomic_file *af)
{
	int ret = 0;

	if (fflush(af->fp) || fsync(fileno(af->fp)))
		ret = -1;
	if (fclose(af->fp))
		ret = -1;
	af->fp = NULL;
	if (!ret && rename(af->tmp, af->path))
		ret = -1;
	if (ret) {
		int e = errno;

		unlink(af->tmp);
		errno = e;
	}
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
	return ret;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	if (end == s) {
		errno = EINVAL;
		return -1;
	}
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'm': case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'g': case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (v && mul > ~0ULL / v) {
		errno = ERANGE;
		return -1;
	}
	*out = v * mul;
	return 0;
}

void json_string(FILE *out, const char *s, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
