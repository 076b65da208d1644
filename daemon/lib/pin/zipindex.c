// SPDX-License-Identifier: GPL-2.0
/*
 * Zip entry index, read directly (see below why), and entry extraction
 * through minizip's unzip API.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
 * The index is read here, not through minizip.  minizip tells where an
 * entry's data starts only after unzOpenCurrentFile*() has checked the
 * local header the way its extractor needs it: that refuses every
 * compression method but stored, deflate and bzip2, and any local header
 * whose CRC or sizes differ from the central directory's, so an APK with
 * such an entry (valid, and readable by Android) could not be indexed at
 * all, with an error that blamed the archive.  It does not expose the
 * local header offset either, so the central directory is read here too.
 * Indexing needs only names, sizes and offsets; every offset and length
 * taken from the archive is checked against the file before it is used.
 */
#define SIG_LOCAL	0x04034b50
#define SIG_CENTRAL	0x02014b50
#define SIG_END		0x06054b50
#define SIG_END64	0x06064b50
#define SIG_LOCATOR64	0x07064b50
#define LOCAL_LEN	30
#define CENTRAL_LEN	46
#define END_LEN		22
#define END64_LEN	56
#define LOCATOR64_LEN	20
#define COMMENT_MAX	0xffff
#define ZIP64_EXTRA	0x0001
#define CD_BUF		(256 * 1024)	/* > one central record: 46 + 3 * 64 KiB */

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Read exactly @len bytes at @off: 0, or -1 with errno (EIO for a short file). */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n) {
			errno = EIO;
			return -1;
		}
		done += n;
	}
	return 0;
}

struct zip_reader {
	const char *path;
	int fd;
	uint64_t size;
	char *err;
	size_t errlen;
	/* the central directory, buffered: file bytes [pos, end) still unread */
	uint64_t pos, end;
	uint8_t *buf;
	size_t off, len;	/* unconsumed bytes are buf[off, len) */
};

__attribute__((format(printf, 2, 3)))
static int bad(struct zip_reader *zr, const char *fmt, ...)
{
	int n = snprintf(zr->err, zr->errlen, "%s: ", zr->path);
	va_list ap;

	if (n >= 0 && (size_t)n < zr->errlen) {
		va_start(ap, fmt);
		vsnprintf(zr->err + n, zr->errlen - n, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

static int io_error(struct zip_reader *zr, const char *what)
{
	int e = errno;

	snprintf(zr->err, zr->errlen, "%s: reading %s: %s", zr->path, what, strerror(e));
	errno = e;
	return -1;
}

/* The next @need bytes of the central directory, or NULL when it has fewer. */
static const uint8_t *cd_take(struct zip_reader *zr, size_t need)
{
	const uint8_t *p;

	if (zr->len - zr->off < need) {
		size_t want;

		memmove(zr->buf, zr->buf + zr->off, zr->len - zr->off);
		zr->len -= zr->off;
		zr->off = 0;
		want = CD_BUF - zr->len;
		if (want > zr->end - zr->pos)
			want = zr->end - zr->pos;
		if (want && read_at(zr->fd, zr->buf + zr->len, want, zr->pos))
			return NULL;
		zr->pos += want;
		zr->len += want;
		if (zr->len < need) {
			errno = 0;
			return NULL;
		}
	}
	p = zr->buf + zr->off;
	zr->off += need;
	return p;
}

struct zip_end {
	uint64_t entries;
	uint64_t cd_offset, cd_size;
	uint64_t record;	/* where the (ZIP64) end record starts */
};

/*
 * Find the end of central directory record (the last one whose comment fits
 * in the file) and, when a ZIP64 locator precedes it, the ZIP64 record.
 */
static int read_end(struct zip_reader *zr, struct zip_end *ze)
{
	size_t tail = zr->size < END_LEN + COMMENT_MAX ? zr->size : END_LEN + COMMENT_MAX;
	uint64_t base = zr->size - tail, at;
	uint8_t *buf, loc[LOCATOR64_LEN], rec[END64_LEN];
	const uint8_t *e = NULL;
	size_t i;

	if (tail < END_LEN)
		return bad(zr, "not a zip archive: %llu bytes, shorter than an end of central directory record",
			   (unsigned long long)zr->size);
	buf = malloc(tail);
	if (!buf)
		return io_error(zr, "the end of the archive");
	if (read_at(zr->fd, buf, tail, base)) {
		free(buf);
		return io_error(zr, "the end of the archive");
	}
	for (i = tail - END_LEN + 1; i-- > 0; ) {
		if (le32(buf + i) == SIG_END && i + END_LEN + le16(buf + i + 20) <= tail) {
			e = buf + i;
			break;
		}
	}
	if (!e) {
		free(buf);
		return bad(zr, "not a zip archive, or its end of central directory record is missing or truncated");
	}
	at = base + i;
	if (le16(e + 4) || le16(e + 6) || le16(e + 8) != le16(e + 10)) {
		free(buf);
		return bad(zr, "a multi-disk archive (not supported)");
	}
	ze->entries = le16(e + 10);
	ze->cd_size = le32(e + 12);
	ze->cd_offset = le32(e + 16);
	ze->record = at;
	free(buf);

	if (at < LOCATOR64_LEN)
		return 0;
	if (read_at(zr->fd, loc, sizeof(loc), at - LOCATOR64_LEN))
		return io_error(zr, "the ZIP64 end locator");
	if (le32(loc) != SIG_LOCATOR64)
		return 0;
	/* ZIP64: sizes and offsets come from the ZIP64 end record */
	if (le32(loc + 4) || le32(loc + 16) > 1)	/* some writers put 0 disks */
		return bad(zr, "a multi-disk ZIP64 archive (not supported)");
	ze->record = le64(loc + 8);
	if (ze->record > at - LOCATOR64_LEN || at - LOCATOR64_LEN - ze->record < END64_LEN)
		return bad(zr, "ZIP64 end of central directory record at %llu lies outside the archive (its locator is at %llu)",
			   (unsigned long long)ze->record,
			   (unsigned long long)(at - LOCATOR64_LEN));
	if (read_at(zr->fd, rec, sizeof(rec), ze->record))
		return io_error(zr, "the ZIP64 end of central directory record");
	if (le32(rec) != SIG_END64)
		return bad(zr, "no ZIP64 end of central directory record at %llu, where its locator points",
			   (unsigned long long)ze->record);
	if (le32(rec + 16) || le32(rec + 20) || le64(rec + 24) != le64(rec + 32))
		return bad(zr, "a multi-disk ZIP64 archive (not supported)");
	ze->entries = le64(rec + 32);
	ze->cd_size = le64(rec + 40);
	ze->cd_offset = le64(rec + 48);
	return 0;
}

/*
 * Sizes and the local header offset that do not fit 32 bits are in the
 * ZIP64 extra block, in this order, each only if its 32-bit field is all ones.
 */
static int zip64_extra(struct zip_reader *zr, const char *name, const uint8_t *x,
		       size_t len, uint64_t *usize, uint64_t *csize, uint64_t *lho)
{
	while (len >= 4) {
		size_t id = le16(x), n = le16(x + 2), need = 0;
		const uint8_t *f = x + 4;

		if (n > len - 4)
			break;		/* a damaged block ends the list */
		if (id == ZIP64_EXTRA) {
			need = 8 * ((*usize == 0xffffffff) + (*csize == 0xffffffff) +
				    (*lho == 0xffffffff));
			if (n < need)
				return bad(zr, "entry '%s': ZIP64 extra field of %zu bytes, needs %zu",
					   name, n, need);
			if (*usize == 0xffffffff) {
				*usize = le64(f);
				f += 8;
			}
			if (*csize == 0xffffffff) {
				*csize = le64(f);
				f += 8;
			}
			if (*lho == 0xffffffff)
				*lho = le64(f);
			return 0;
		}
		x += 4 + n;
		len -= 4 + n;
	}
	return 0;
}

/*
 * Where an entry's data starts: after its 30-byte local header, the name and
 * the local extra field (which holds zipalign padding and may differ from
 * the central one).  Only the signature and the two lengths are used; the
 * method, CRC and sizes there may be anything (or zero, with a data
 * descriptor), the central directory's are the ones that count.
 */
static int local_data_offset(struct zip_reader *zr, const char *name, uint64_t lho,
			     uint64_t *data)
{
	uint8_t h[LOCAL_LEN];

	if (lho > zr->size || zr->size - lho < LOCAL_LEN)
		return bad(zr, "entry '%s': bad local header (offset %llu is past the end of the file, %llu bytes)",
			   name, (unsigned long long)lho, (unsigned long long)zr->size);
	if (read_at(zr->fd, h, sizeof(h), lho))
		return io_error(zr, "a local header");
	if (le32(h) != SIG_LOCAL)
		return bad(zr, "entry '%s': bad local header (no signature at %llu)", name,
			   (unsigned long long)lho);
	*data = lho + LOCAL_LEN + le16(h + 26) + le16(h + 28);
	return 0;
}

/* Append an entry named @name (taken over); -1 with ENOMEM. */
static int add_entry(struct zip_index *zi, size_t *cap, char *name)
{
	struct zip_entry *e;

	if (zi->nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct zip_entry *v = reallocarray(zi->entries, ncap, sizeof(*v));

		if (!v) {
			free(name);
			return -1;
		}
		zi->entries = v;
		*cap = ncap;
	}
	e = &zi->entries[zi->nr++];
	memset(e, 0, sizeof(*e));
	e->name = name;
	return 0;
}

static int read_central(struct zip_reader *zr, const struct zip_end *ze,
			uint64_t prefix, struct zip_index *zi)
{
	uint64_t cd_start = prefix + ze->cd_offset, i;
	size_t cap = 0;

	zr->pos = cd_start;
	zr->end = cd_start + ze->cd_size;
	for (i = 0; i < ze->entries; i++) {
		const uint8_t *h = cd_take(zr, CENTRAL_LEN), *var;
		uint64_t usize, csize, lho, data = 0;
		unsigned int method;
		size_t n, m, k;
		struct zip_entry *e;
		char *name;

		if (!h && errno)
			return io_error(zr, "the central directory");
		if (!h)
			return bad(zr, "central directory ends after %llu of its %llu entries: truncated",
				   (unsigned long long)i, (unsigned long long)ze->entries);
		if (le32(h) != SIG_CENTRAL)
			return bad(zr, "central directory entry %llu: bad signature",
				   (unsigned long long)i);
		/* read everything from @h now: the next cd_take() may move it */
		method = le16(h + 10);
		csize = le32(h + 20);
		usize = le32(h + 24);
		n = le16(h + 28);
		m = le16(h + 30);
		k = le16(h + 32);
		lho = le32(h + 42);
		var = cd_take(zr, n + m + k);
		if (!var && errno)
			return io_error(zr, "the central directory");
		if (!var)
			return bad(zr, "central directory entry %llu runs past the end of the central directory: truncated",
				   (unsigned long long)i);
		name = strndup((const char *)var, n);
		if (!name || add_entry(zi, &cap, name))
			return io_error(zr, "the central directory");
		if (zip64_extra(zr, name, var + n, m, &usize, &csize, &lho))
			return -1;
		if (lho > UINT64_MAX - prefix)
			return bad(zr, "entry '%s': local header offset %llu out of range", name,
				   (unsigned long long)lho);
		if (local_data_offset(zr, name, prefix + lho, &data))
			return -1;
		if (data > zr->size || csize > zr->size - data)
			return bad(zr, "entry '%s': data (%llu bytes at %llu) runs past the end of the file (%llu bytes): truncated archive",
				   name, (unsigned long long)csize, (unsigned long long)data,
				   (unsigned long long)zr->size);
		if (data < cd_start && csize > cd_start - data)
			return bad(zr, "entry '%s': data (%llu bytes at %llu) runs into the central directory at %llu: truncated or damaged archive",
				   name, (unsigned long long)csize, (unsigned long long)data,
				   (unsigned long long)cd_start);
		e = &zi->entries[zi->nr - 1];
		e->data_offset = data;
		e->compressed_size = csize;
		e->uncompressed_size = usize;
		e->method = method;
	}
	return 0;
}

int zip_index_open(const char *path, struct zip_index *zi, char *err,
		   size_t errlen)
{
	struct zip_reader zr = { .path = path, .fd = -1, .err = err, .errlen = errlen };
	struct zip_end ze = { 0 };
	uint64_t prefix;
	struct stat st;
	int ret = -1, e;

	memset(zi, 0, sizeof(*zi));
	zr.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (zr.fd < 0 || fstat(zr.fd, &st)) {
		e = errno;
		if (zr.fd >= 0)
			close(zr.fd);
		return fail(err, errlen, e, path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(zr.fd);
		return fail(err, errlen, EINVAL, path, "not a regular file");
	}
	/*
	 * No readahead: indexing reads one local header per entry, and with
	 * readahead each read would pull in up to the next 128 KiB as well,
	 * filling the page cache with entries nobody asked for (and making
	 * the indexing itself slow on a cold cache).
	 */
	posix_fadvise(zr.fd, 0, 0, POSIX_FADV_RANDOM);
	zr.size = st.st_size;
	zi->file_size = zr.size;
	if (read_end(&zr, &ze))
		goto out;
	/*
	 * The central directory ends where the end record starts; bytes before
	 * the archive proper (a self-extractor's stub) shift every offset.  An
	 * APK Signing Block sits between the data and the central directory
	 * and leaves offsets alone.
	 */
	if (ze.cd_offset > zr.size)
		goto beyond;
	if (ze.cd_size > ze.record || ze.cd_offset > ze.record - ze.cd_size) {
		bad(&zr, "central directory (%llu bytes at %llu) does not end before its end record at %llu: truncated or damaged archive",
		    (unsigned long long)ze.cd_size, (unsigned long long)ze.cd_offset,
		    (unsigned long long)ze.record);
		goto out;
	}
	prefix = ze.record - (ze.cd_offset + ze.cd_size);
	zr.buf = malloc(CD_BUF);
	if (!zr.buf) {
		io_error(&zr, "the central directory");
		goto out;
	}
	ret = read_central(&zr, &ze, prefix, zi);
	goto out;
beyond:
	bad(&zr, "central directory offset %llu is beyond the end of the file (%llu bytes): truncated or damaged archive",
	    (unsigned long long)ze.cd_offset, (unsigned long long)zr.size);
out:
	e = errno;
	free(zr.buf);
	close(zr.fd);
	if (ret)
		zip_index_free(zi);
	errno = e;
	return ret;
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
