// SPDX-License-Identifier: GPL-2.0
/*
 * json_string(): whatever the bytes, the output is one JSON string literal
 * that a strict parser takes (no raw control character, valid escapes, valid
 * UTF-8), and it decodes back to the input up to its first NUL whenever the
 * input is valid UTF-8.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "base/base.h"

/* Length of the valid UTF-8 sequence at @s (RFC 3629), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int hex4(const char *s, unsigned int *v)
{
	unsigned int i, d;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* Decode the literal into @out (UTF-8); returns its length. */
static size_t decode(const char *lit, size_t n, unsigned char *out)
{
	size_t i = 1, o = 0, k;
	unsigned int cp;

	FUZZ_CHECK(n >= 2 && lit[0] == '"' && lit[n - 1] == '"');
	while (i < n - 1) {
		unsigned char c = lit[i];

		FUZZ_CHECK(c >= 0x20 && c != '"');
		if (c != '\\') {
			k = utf8_len((const unsigned char *)lit + i, n - 1 - i);
			FUZZ_CHECK(k);
			memcpy(out + o, lit + i, k);
			o += k;
			i += k;
			continue;
		}
		FUZZ_CHECK(i + 1 < n - 1);
		c = lit[i + 1];
		if (c == '"' || c == '\\' || c == '/') {
			out[o++] = c;
			i += 2;
			continue;
		}
		FUZZ_CHECK(c == 'u' && i + 6 <= n - 1);
		FUZZ_CHECK(!hex4(lit + i + 2, &cp));
		/* the writer escapes control characters and writes U+FFFD; no surrogates */
		FUZZ_CHECK(cp < 0x20 || cp == 0xfffd);
		if (cp < 0x20) {
			out[o++] = cp;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
		}
		i += 6;
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size), lit_len, dec_len, i, k;
	unsigned char *dec;
	bool valid = true;
	char *lit = NULL;
	FILE *out;

	out = open_memstream(&lit, &lit_len);
	FUZZ_CHECK(out);
	json_string(out, (const char *)data, size);
	FUZZ_CHECK(!fclose(out));

	/* at most 3 output bytes (U+FFFD) per input byte, or 6 (\u00XX) */
	dec = malloc(3 * n + 1);
	FUZZ_CHECK(dec);
	dec_len = decode(lit, lit_len, dec);
	for (i = 0; i < n; i += k) {
		k = utf8_len(data + i, n - i);
		if (!k) {
			valid = false;
			break;
		}
	}
	if (valid)
		FUZZ_CHECK(dec_len == n && !memcmp(dec, data, n));
	free(dec);
	free(lit);
	return 0;
}
