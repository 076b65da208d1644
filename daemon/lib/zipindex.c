// SPDX-License-Identifier: GPL-2.0
/* Zip entry index through minizip's unzip API (64-bit variants throughout). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <ioapi.h>
#include <unzip.h>

#include "zipindex.h"

static const char *unz_strerror(int rc)
{
	switch (rc) {
	case UNZ_END_OF_LIST_OF_FILE:	return "end of entry list";
	case UNZ_ERRNO:			return strerror(errno);
	case UNZ_PARAMERROR:		return "bad parameter";
	case UNZ_BADZIPFILE:		return "malformed zip archive";
	case UNZ_INTERNALERROR:		return "internal zip library error";
	case UNZ_CRCERROR:		return "CRC mismatch";
	default:			return "zip library error";
	}
}

static int fail(char *err, size_t errlen, int e, const char *path,
		const char *what)
{
	snprintf(err, errlen, "%s: %s", path, what);
	errno = e;
	return -1;
}

/*
 * minizip's own stdio I/O, opened without readahead: indexing reads one
 * local header per entry, and with readahead each of those reads would pull
 * in up to the next 128 KiB as well, filling the page cache with entries
 * nobody asked for (and making the indexing itself slow on a cold cache).
 */
static open64_file_func stdio_open64;

static voidpf ZCALLBACK open_no_readahead(voidpf opaque, const void *filename,
					  int mode)
{
	FILE *fp = stdio_open64(opaque, filename, mode);

	if (fp)
		posix_fadvise(fileno(fp), 0, 0, POSIX_FADV_RANDOM);
	return fp;
}

static unzFile open_for_index(const char *path)
{
	zlib_filefunc64_def ff;

	fill_fopen64_filefunc(&ff);
	stdio_open64 = ff.zopen64_file;
	ff.zopen64_file = open_no_readahead;
	return unzOpen2_64(path, &ff);
}

/*
 * minizip refuses an archive that is nothing but its end record (it takes
 * an end record at offset 0 for "not found"), yet that is a valid, empty zip.
 */
static bool is_empty_zip(const char *path, uint64_t size)
{
	static const unsigned char eocd[22] = { 'P', 'K', 5, 6 };
	unsigned char buf[22];
	bool ret = false;
	FILE *fp;

	if (size != sizeof(buf))
		return false;
	fp = fopen(path, "rbe");
	if (!fp)
		return false;
	if (fread(buf, 1, sizeof(buf), fp) == sizeof(buf))
		ret = !memcmp(buf, eocd, sizeof(buf));
	fclose(fp);
	return ret;
}

int zip_index_open(const char *path, struct zip_index *zi, char *err,
		   size_t errlen)
{
	unz_global_info64 gi;
	struct stat st;
	unzFile uf;
	size_t cap = 0;
	int rc;

	memset(zi, 0, sizeof(*zi));
	if (stat(path, &st))
		return fail(err, errlen, errno, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, EINVAL, path, "not a regular file");
	zi->file_size = st.st_size;
	uf = open_for_index(path);
	if (!uf && is_empty_zip(path, zi->file_size))
		return 0;
	if (!uf)
		return fail(err, errlen, EINVAL, path,
			    "not a zip archive, or its central directory is missing or truncated");
	if (unzGetGlobalInfo64(uf, &gi) != UNZ_OK) {
		unzClose(uf);
		return fail(err, errlen, EINVAL, path, "unreadable central directory");
	}
	for (rc = unzGoToFirstFile(uf); rc == UNZ_OK; rc = unzGoToNextFile(uf)) {
		unz_file_info64 fi;
		struct zip_entry *e;
		char name[65536];
		ZPOS64_T pos;

		rc = unzGetCurrentFileInfo64(uf, &fi, name, sizeof(name), NULL, 0, NULL, 0);
		if (rc != UNZ_OK)
			break;
		/*
		 * Opening the entry raw (no inflate) makes minizip read and check
		 * the local header; the stream position is then the data start.
		 */
		rc = unzOpenCurrentFile2(uf, NULL, NULL, 1);
		if (rc != UNZ_OK) {
			snprintf(err, errlen, "%s: entry '%s': bad local header (%s)",
				 path, name, unz_strerror(rc));
			goto bad;
		}
		pos = unzGetCurrentFileZStreamPos64(uf);
		unzCloseCurrentFile(uf);
		if (pos > zi->file_size || fi.compressed_size > zi->file_size - pos) {
			snprintf(err, errlen, "%s: entry '%s': data (%llu bytes at %llu) runs past the end of the file (%llu bytes): truncated archive",
				 path, name, (unsigned long long)fi.compressed_size,
				 (unsigned long long)pos, (unsigned long long)zi->file_size);
			goto bad;
		}
		if (zi->nr == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct zip_entry *v = reallocarray(zi->entries, ncap, sizeof(*v));

			if (!v) {
				snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
				unzClose(uf);
				zip_index_free(zi);
				errno = ENOMEM;
				return -1;
			}
			zi->entries = v;
			cap = ncap;
		}
		e = &zi->entries[zi->nr];
		e->name = strdup(name);
		if (!e->name) {
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
			unzClose(uf);
			zip_index_free(zi);
			errno = ENOMEM;
			return -1;
		}
		e->data_offset = pos;
		e->compressed_size = fi.compressed_size;
		e->uncompressed_size = fi.uncompressed_size;
		e->method = fi.compression_method;
		zi->nr++;
	}
	if (rc != UNZ_END_OF_LIST_OF_FILE) {
		snprintf(err, errlen, "%s: reading entry %zu: %s", path, zi->nr,
			 unz_strerror(rc));
		goto bad;
	}
	if (zi->nr != gi.number_entry) {
		snprintf(err, errlen, "%s: central directory lists %llu entries, found %zu",
			 path, (unsigned long long)gi.number_entry, zi->nr);
		goto bad;
	}
	unzClose(uf);
	return 0;
bad:
	unzClose(uf);
	zip_index_free(zi);
	errno = EINVAL;
	return -1;
}

void zip_index_free(struct zip_index *zi)
{
	size_t i;

	for (i = 0; i < zi->nr; i++)
		free(zi->entries[i].name);
	free(zi->entries);
	memset(zi, 0, sizeof(*zi));
}

long zip_index_find(const struct zip_index *zi, const char *name)
{
	size_t i;

	for (i = 0; i < zi->nr; i++)
		if (!strcmp(zi->entries[i].name, name))
			return i;
	return -1;
}

int zip_read_entry(const char *path, const char *name, size_t max,
		   void **buf, size_t *len, char *err, size_t errlen)
{
	unz_file_info64 fi;
	unzFile uf;
	char *p = NULL;
	int rc;

	uf = unzOpen64(path);
	if (!uf)
		return fail(err, errlen, EINVAL, path, "not a zip archive");
	rc = unzLocateFile(uf, name, 1);
	if (rc != UNZ_OK) {
		unzClose(uf);
		snprintf(err, errlen, "%s: no entry '%s'", path, name);
		errno = ENOENT;
		return -1;
	}
	if (unzGetCurrentFileInfo64(uf, &fi, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK ||
	    unzOpenCurrentFile(uf) != UNZ_OK) {
		unzClose(uf);
		snprintf(err, errlen, "%s: entry '%s': malformed", path, name);
		errno = EINVAL;
		return -1;
	}
	if (fi.uncompressed_size > max) {
		unzCloseCurrentFile(uf);
		unzClose(uf);
		snprintf(err, errlen, "%s: entry '%s' is too large (%llu bytes)", path, name,
			 (unsigned long long)fi.uncompressed_size);
		errno = EFBIG;
		return -1;
	}
	p = malloc(fi.uncompressed_size + 1);
	if (!p) {
		unzCloseCurrentFile(uf);
		unzClose(uf);
		return -1;
	}
	rc = unzReadCurrentFile(uf, p, (unsigned int)fi.uncompressed_size);
	if (rc < 0 || (uint64_t)rc != fi.uncompressed_size ||
	    unzCloseCurrentFile(uf) != UNZ_OK) {
		unzClose(uf);
		free(p);
		snprintf(err, errlen, "%s: entry '%s': %s", path, name,
			 rc < 0 ? unz_strerror(rc) : "short read or CRC mismatch");
		errno = EINVAL;
		return -1;
	}
	unzClose(uf);
	*buf = p;
	*len = fi.uncompressed_size;
	return 0;
}

void zip_coverages_free(struct zip_coverage *cov, size_t nr)
{
	size_t i;

	for (i = 0; cov && i < nr; i++)
		pin_ranges_free(&cov[i].ranges);
	free(cov);
}

struct zip_coverage *zip_coverages(const struct zip_index *zi,
				   const struct pin_ranges *probe)
{
	struct zip_coverage *cov = calloc(zi->nr ? zi->nr : 1, sizeof(*cov));
	size_t i;

	if (!cov)
		return NULL;
	for (i = 0; i < zi->nr; i++) {
		const struct zip_entry *e = &zi->entries[i];
		int ret = 0;

		cov[i].entry = e;
		if (probe)
			ret = pin_ranges_clip(probe, e->data_offset,
					      e->data_offset + e->compressed_size,
					      &cov[i].ranges);
		else if (e->compressed_size)
			ret = pin_ranges_add(&cov[i].ranges, e->data_offset,
					     e->compressed_size, 0);
		if (ret) {
			zip_coverages_free(cov, zi->nr);
			errno = ENOMEM;
			return NULL;
		}
	}
	return cov;
}
