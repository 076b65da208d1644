// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report in a real browser: Debian's chromium, headless, opens the
 * page offline with no console messages, its DOM holds the three plots,
 * the shaded slices and the bar chart, and its screenshot shows the plot
 * lines and the bars, each in a colour of its own and in its place.  Skipped when chromium is not installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <kselftest_harness.h>

#include "report_gen.h"

#define POWERPIN	"build/bin/powerpin"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define CHROMIUM_FLAGS	"--headless --no-sandbox --disable-gpu --disable-quic --no-first-run " \
			"--disable-background-networking --disable-component-update " \
			"--disable-sync --enable-logging=stderr --v=0"

FIXTURE(html) {
	char dir[64];
	char page[128];
};

FIXTURE_SETUP(html)
{
	char in[160], cmd[600];
	struct gen g = { .nr_cpus = 2 };
	uint64_t t;
	int k;

	if (system("command -v chromium >/dev/null"))
		SKIP(return, "chromium not installed");
	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-html-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(in, sizeof(in), "%s/trace.txt", self->dir);
	snprintf(self->page, sizeof(self->page), "%s/report.html", self->dir);

	/* 60 s: a square-wave load, two processes, a slice every 10 s */
	gen_switch(&g, 0, 0, "swapper/0", 0, 0, "render", 300);
	gen_switch(&g, 0, 1, "swapper/1", 0, 0, "idle", 0);
	for (t = SEC; t < 61 * SEC; t += 40 * MS) {
		gen_switch(&g, t, 1, "swapper/1", 0, 0, "decoder", 400);
		gen_switch(&g, t + 10 * MS, 1, "decoder", 400, 400, "swapper/1", 0);
	}
	for (k = 0; k <= 600; k++)
		gen_battery(&g, SEC + k * 100 * MS, k, 3900000 - k * 200,
			    (k / 50) % 2 ? -1500000 : -300000, 3000000 - k, 0);
	for (k = 0; k < 6; k++) {
		gen_mark(&g, SEC + k * 10 * SEC + 2 * SEC, 0, "render", 300, 300, "B|300|frame");
		gen_mark(&g, SEC + k * 10 * SEC + 5 * SEC, 0, "render", 300, 300, "E|300");
	}
	ASSERT_EQ(0, gen_write(&g, in));
	snprintf(cmd, sizeof(cmd), "%s report %s --html %s >/dev/null", POWERPIN, in, self->page);
	ASSERT_EQ(0, system(cmd));
}

FIXTURE_TEARDOWN(html)
{
	char cmd[160];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* chromium @what file://@page; stdout to @out, its log to @log */
static int chromium(const char *dir, const char *what, const char *page, const char *out,
		    const char *log)
{
	char cmd[1200];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "timeout 120 chromium " CHROMIUM_FLAGS " --user-data-dir=%s/profile %s file://%s > %s 2> %s",
		 dir, what, page, out, log);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	struct stat st;
	char *buf;
	FILE *f = fopen(path, "r");

	if (!f || fstat(fileno(f), &st))
		return NULL;
	buf = calloc(1, st.st_size + 1);
	if (buf && fread(buf, 1, st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

/* The text of the SVG element that starts at @id, up to its end, or NULL. */
static char *svg_of(const char *page, const char *id)
{
	const char *start = strstr(page, id), *end;

	if (!start)
		return NULL;
	end = strstr(start, "</svg>");
	return end ? strndup(start, end - start) : NULL;
}

/* Console output chromium logs for a page: "CONSOLE(...)" lines. */
static int console_lines(const char *log)
{
	return count(log, ":CONSOLE");
}

TEST_F_TIMEOUT(html, dom_and_console, 300)
{
	char dom[160], log[160], probe[160];
	char *text, *err;
	int k, buckets = 0;
	FILE *f;

	snprintf(dom, sizeof(dom), "%s/dom.html", self->dir);
	snprintf(log, sizeof(log), "%s/chromium.log", self->dir);
	ASSERT_EQ(0, chromium(self->dir, "--dump-dom", self->page, dom, log));
	text = slurp(dom);
	err = slurp(log);
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, err);
	EXPECT_EQ(3, count(text, "<svg class=\"plot\""));
	EXPECT_EQ(3, count(text, "<polyline class=\"mean\""));
	EXPECT_EQ(3, count(text, "<polygon class=\"envelope\""));
	/*
	 * Slices shade the plot buckets they cover: 60 s in 1024 buckets of
	 * 1 ms doubled until they fit is 64 ms; six 3 s slices, three plots.
	 */
	for (k = 0; k < 6; k++) {
		uint64_t b = (k * 10ULL + 2) * SEC, e = (k * 10ULL + 5) * SEC, w = 64 * MS;

		buckets += (e + w - 1) / w - b / w;
	}
	EXPECT_EQ(3 * buckets, count(text, "<rect class=\"slice\""));
	/* render, decoder, <idle>, <other> */
	EXPECT_EQ(4, count(text, "<rect class=\"bar\""));
	/* each plot draws its own mean line and envelope in its own colour */
	for (k = 0; k < 3; k++) {
		static const char *const colour[] = { "#59a14f", "#e15759", "#b07aa1" };
		char id[32], stroke[48], fill[48];
		char *svg;

		snprintf(id, sizeof(id), "id=\"plot-%d\"", k);
		snprintf(stroke, sizeof(stroke), "class=\"mean\" fill=\"none\" stroke=\"%s\"",
			 colour[k]);
		snprintf(fill, sizeof(fill), "class=\"envelope\" fill=\"%s\"", colour[k]);
		svg = svg_of(text, id);
		ASSERT_NE(NULL, svg) TH_LOG("no %s", id);
		EXPECT_EQ(1, count(svg, stroke)) TH_LOG("%s", id);
		EXPECT_EQ(1, count(svg, fill)) TH_LOG("%s", id);
		/* a line with points, not an empty one */
		EXPECT_EQ(NULL, strstr(svg, "points=\"\"")) TH_LOG("%s", id);
		EXPECT_EQ(NULL, strstr(svg, "#4e79a7")) TH_LOG("%s uses the bars' colour", id);
		free(svg);
	}
	{
		char *bars = svg_of(text, "<svg class=\"bars\"");

		ASSERT_NE(NULL, bars);
		EXPECT_EQ(4, count(bars, "fill=\"#4e79a7\""));
		free(bars);
	}
	EXPECT_EQ(0, console_lines(err)) TH_LOG("console output:\n%s", err);
	free(text);
	free(err);

	/* the check above can fail: a page that logs an error is caught */
	snprintf(probe, sizeof(probe), "%s/probe.html", self->dir);
	f = fopen(probe, "w");
	ASSERT_NE(NULL, f);
	fputs("<!DOCTYPE html><html><body><script>console.error('powerpin-probe')</script></body></html>\n",
	      f);
	fclose(f);
	ASSERT_EQ(0, chromium(self->dir, "--dump-dom", probe, dom, log));
	err = slurp(log);
	ASSERT_NE(NULL, err);
	EXPECT_EQ(1, console_lines(err));
	EXPECT_NE(NULL, strstr(err, "powerpin-probe"));
	free(err);
}

/* ---- screenshot: PNG (8-bit RGB/RGBA, not interlaced) decoded with zlib ---- */

struct image {
	uint32_t w, h, bpp;
	uint8_t *px;
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static int png_decode(const char *path, struct image *img)
{
	uint8_t *file = NULL, *idat = NULL, *raw = NULL;
	size_t len = 0, nidat = 0, p = 8;
	uLongf rawlen;
	struct stat st;
	uint32_t x, y, stride;
	FILE *f;
	int ret = -1;

	f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st))
		goto out;
	len = st.st_size;
	file = malloc(len);
	idat = malloc(len);
	if (!file || !idat || fread(file, 1, len, f) != len || memcmp(file, "\x89PNG\r\n\x1a\n", 8))
		goto out;
	memset(img, 0, sizeof(*img));
	while (p + 12 <= len) {
		uint32_t clen = be32(file + p);
		const uint8_t *type = file + p + 4, *data = file + p + 8;

		if (p + 12 + clen > len)
			goto out;
		if (!memcmp(type, "IHDR", 4)) {
			img->w = be32(data);
			img->h = be32(data + 4);
			if (data[8] != 8 || data[12] || (data[9] != 2 && data[9] != 6))
				goto out;
			img->bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(idat + nidat, data, clen);
			nidat += clen;
		}
		p += 12 + clen;
	}
	if (!img->w || !img->h)
		goto out;
	stride = img->w * img->bpp;
	rawlen = (uLongf)(stride + 1) * img->h;
	raw = malloc(rawlen);
	img->px = malloc((size_t)stride * img->h);
	if (!raw || !img->px || uncompress(raw, &rawlen, idat, nidat) != Z_OK)
		goto out;
	for (y = 0; y < img->h; y++) {
		const uint8_t *src = raw + y * (stride + 1) + 1;
		uint8_t *row = img->px + (size_t)y * stride;
		const uint8_t *up = y ? row - stride : NULL;

		for (x = 0; x < stride; x++) {
			int a = x >= img->bpp ? row[x - img->bpp] : 0;
			int b = up ? up[x] : 0;
			int c = up && x >= img->bpp ? up[x - img->bpp] : 0;

			switch (src[-1]) {
			case 0:
				row[x] = src[x];
				break;
			case 1:
				row[x] = src[x] + a;
				break;
			case 2:
				row[x] = src[x] + b;
				break;
			case 3:
				row[x] = src[x] + (a + b) / 2;
				break;
			case 4:
				row[x] = src[x] + paeth(a, b, c);
				break;
			default:
				goto out;
			}
		}
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	free(file);
	free(idat);
	free(raw);
	return ret;
}

struct colour_rows {
	int n;			/* pixels of the colour */
	int top, bottom;	/* rows holding them */
};

static struct colour_rows pixels_near(const struct image *img, int r, int g, int b, int tol)
{
	struct colour_rows c = { 0, -1, -1 };
	uint32_t x, y;

	for (y = 0; y < img->h; y++) {
		for (x = 0; x < img->w; x++) {
			const uint8_t *p = img->px + ((size_t)y * img->w + x) * img->bpp;

			if (abs(p[0] - r) > tol || abs(p[1] - g) > tol || abs(p[2] - b) > tol)
				continue;
			c.n++;
			if (c.top < 0)
				c.top = y;
			c.bottom = y;
		}
	}
	return c;
}

TEST_F_TIMEOUT(html, screenshot_shows_plots, 300)
{
	char shot[160], what[300], out[160], log[160];
	struct colour_rows volt, cur, power, bars;
	struct image img;

	snprintf(shot, sizeof(shot), "%s/shot.png", self->dir);
	snprintf(out, sizeof(out), "%s/out.txt", self->dir);
	snprintf(log, sizeof(log), "%s/chromium.log", self->dir);
	snprintf(what, sizeof(what), "--window-size=1000,1400 --screenshot=%s", shot);
	ASSERT_EQ(0, chromium(self->dir, what, self->page, out, log));
	ASSERT_EQ(0, png_decode(shot, &img));
	EXPECT_EQ(1000U, img.w);
	EXPECT_EQ(1400U, img.h);
	/* each plot's mean line, in its own colour, spans most of the 800 px width */
	volt = pixels_near(&img, 0x59, 0xa1, 0x4f, 8);
	cur = pixels_near(&img, 0xe1, 0x57, 0x59, 8);
	power = pixels_near(&img, 0xb0, 0x7a, 0xa1, 8);
	bars = pixels_near(&img, 0x4e, 0x79, 0xa7, 8);
	EXPECT_GT(volt.n, 400);
	EXPECT_GT(cur.n, 400);
	EXPECT_GT(power.n, 400);
	/* the bars are 16 px tall, the longest 550 px */
	EXPECT_GT(bars.n, 16 * 400);
	/* and each where it belongs: the plots in order, then the bar chart */
	TH_LOG("rows: voltage %d-%d, current %d-%d, power %d-%d, bars %d-%d", volt.top,
	       volt.bottom, cur.top, cur.bottom, power.top, power.bottom, bars.top, bars.bottom);
	EXPECT_LT(volt.bottom, cur.top);
	EXPECT_LT(cur.bottom, power.top);
	EXPECT_LT(power.bottom, bars.top);
	/* each plot area is 170 px tall */
	EXPECT_LE(volt.bottom - volt.top, 170);
	EXPECT_LE(cur.bottom - cur.top, 170);
	EXPECT_LE(power.bottom - power.top, 170);
	/* slice shading: #f2c14e at 25% over the plot background */
	EXPECT_GT(pixels_near(&img, 249, 237, 208, 6).n, 10000);
	free(img.px);
}

TEST_HARNESS_MAIN
