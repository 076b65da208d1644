// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report in a real browser: Debian's chromium, headless, driven
 * through its DevTools protocol by selftests/host/html_probe.py.  The page
 * opens offline with no console output and loads nothing; its DOM holds
 * the plots with ticks, a zero baseline, legends, slice and marker labels;
 * moving the pointer fills the readout, the wheel zooms, shift+drag pans,
 * a drag selects a span and prices it in joules, a click on a slice
 * selects it with the report's own figure; and the screenshot shows each
 * plot in its colour and place.  Skipped when chromium is not installed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report_gen.h"

#define POWERPIN	"build/bin/powerpin"
#define PROBE		"selftests/host/html_probe.py"
#define MS		1000000ULL
#define SEC		1000000000ULL

FIXTURE(html) {
	char dir[64];
	char page[128];
	char *facts;		/* the probe's "key=value" lines */
};

FIXTURE_SETUP(html)
{
	char in[160], cmd[600];
	struct gen g = { .nr_cpus = 2 };
	uint64_t t;
	int k;

	if (system("command -v chromium >/dev/null"))
		SKIP(return, "chromium not installed");
	if (system("command -v python3 >/dev/null"))
		SKIP(return, "python3 not installed");
	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-html-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(in, sizeof(in), "%s/trace.txt", self->dir);
	snprintf(self->page, sizeof(self->page), "%s/report.html", self->dir);

	/* 60 s: a square-wave load, two processes, a slice every 10 s, two markers */
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
	gen_mark(&g, 21 * SEC, 0, "render", 300, 300, "powerpin:phase2");
	gen_mark(&g, 41 * SEC, 0, "render", 300, 300, "powerpin:phase3");
	ASSERT_EQ(0, gen_write(&g, in));
	snprintf(cmd, sizeof(cmd), "%s report %s --html %s >/dev/null", POWERPIN, in, self->page);
	ASSERT_EQ(0, system(cmd));
}

FIXTURE_TEARDOWN(html)
{
	free(self->facts);
	if (!self->dir[0])
		return;
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Run the probe on @page; its output, or NULL. */
static char *probe(const char *dir, const char *page)
{
	char cmd[600], out[160], sub[160];

	snprintf(sub, sizeof(sub), "%s/probe", dir);
	mkdir(sub, 0700);
	snprintf(out, sizeof(out), "%s/probe.txt", dir);
	snprintf(cmd, sizeof(cmd), "timeout 180 python3 %s %s %s > %s 2>%s/probe.err", PROBE, page,
		 sub, out, dir);
	if (system(cmd))
		return NULL;
	return slurp(out);
}

/* The value of the first "key=" line, in a static buffer ("" if none). */
static const char *fact(const char *facts, const char *key)
{
	static char buf[1024];
	const char *p = facts;
	size_t klen = strlen(key), n;

	buf[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			n = strcspn(p + klen + 1, "\n");
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return buf;
}

static int fact_int(const char *facts, const char *key)
{
	return atoi(fact(facts, key));
}

static double fact_num(const char *facts, const char *key)
{
	const char *v = fact(facts, key);

	return *v ? strtod(v, NULL) : NAN;
}

static int count_lines(const char *facts, const char *line)
{
	const char *p = facts;
	int n = 0;
	size_t len = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == facts || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			n++;
		p++;
	}
	return n;
}

/* The two joule figures of the slice selection line agree */
static void slice_joules(const char *sel, double *page, double *report)
{
	const char *p = strstr(sel, "): "), *q = strstr(sel, "in the report ");

	*page = p ? strtod(p + 3, NULL) : NAN;
	*report = q ? strtod(q + strlen("in the report "), NULL) : NAN;
}

TEST_F_TIMEOUT(html, dom_and_interaction, 300)
{
	const char *f;
	double a, b, span;
	char *page;

	/* one file: the script allowed by hash, nothing else may run or load */
	page = slurp(self->page);
	ASSERT_NE(NULL, page);
	EXPECT_NE(NULL, strstr(page, "Content-Security-Policy\" content=\"default-src 'none'; "
				      "style-src 'unsafe-inline'; img-src data:; script-src 'sha256-"));
	EXPECT_EQ(NULL, strstr(page, "https:"));
	EXPECT_EQ(NULL, strstr(page, "src=\"http"));
	free(page);

	self->facts = probe(self->dir, self->page);
	ASSERT_NE(NULL, self->facts) TH_LOG("html_probe.py failed");
	f = self->facts;
	TH_LOG("%s", f);
	EXPECT_EQ(0, fact_int(f, "console_errors"));
	EXPECT_EQ(0, fact_int(f, "requests"));
	/* voltage, current, power and the stacked energy, on one time axis */
	EXPECT_EQ(4, fact_int(f, "plots"));
	EXPECT_LE(4 * 5, fact_int(f, "xticks"));
	EXPECT_LE(4 * 3, fact_int(f, "yticks"));
	/* current, power and energy include zero and draw it */
	EXPECT_EQ(3, fact_int(f, "zero_lines"));
	EXPECT_EQ(1, count_lines(f, "legend=Voltage, every sample"));
	EXPECT_EQ(1, count_lines(f, "legend=Current (discharge +), every sample"));
	EXPECT_EQ(1, count_lines(f, "legend=Power (discharge +), every sample"));
	EXPECT_NE(NULL, strstr(f, "legend=render (300) "));
	EXPECT_NE(NULL, strstr(f, "legend=decoder (400) "));
	EXPECT_NE(NULL, strstr(f, "legend=<idle> "));
	EXPECT_EQ(6, fact_int(f, "slice_labels"));
	EXPECT_EQ(2, fact_int(f, "marker_labels"));

	/* the whole capture first, time from the first sample */
	EXPECT_EQ(0.0, fact_num(f, "t0"));
	EXPECT_EQ(60.0, fact_num(f, "t1"));
	/* pointing fills the readout with time and values */
	EXPECT_NE(NULL, strstr(fact(f, "readout"), "t = "));
	EXPECT_NE(NULL, strstr(fact(f, "readout"), " V, "));
	EXPECT_NE(NULL, strstr(fact(f, "readout"), " W; energy so far "));
	/* a wheel notch zooms in around the pointer: 80% of the span */
	a = fact_num(f, "zoom_t0");
	b = fact_num(f, "zoom_t1");
	EXPECT_NEAR(48.0, b - a, 1e-6);
	EXPECT_LT(0.0, a);
	EXPECT_GT(60.0, b);
	/* shift+drag pans: the same span, elsewhere */
	span = fact_num(f, "pan_t1") - fact_num(f, "pan_t0");
	EXPECT_NEAR(48.0, span, 1e-6);
	EXPECT_NE(a, fact_num(f, "pan_t0"));
	/* a drag selects a span and prices it */
	EXPECT_NE(NULL, strstr(fact(f, "selection"), " J, mean "));
	/* a slice clicked: its span, the page's trapezoid and the report's figure agree */
	EXPECT_EQ(0, strncmp(fact(f, "slice_selection"), "frame: 2.000 s to 5.000 s", 25));
	slice_joules(fact(f, "slice_selection"), &a, &b);
	EXPECT_TRUE(isfinite(a) && a > 0);
	EXPECT_NEAR(b, a, 0.0005 + 1e-4 * b);
}

/*
 * Samples two hours apart (a gap longer than 32 bits of microseconds): the
 * page's time axis still ends at the last sample, which keeps its values.
 */
TEST_F_TIMEOUT(html, long_gap_keeps_time, 300)
{
	struct gen g = { .nr_cpus = 1 };
	char in[160], page[160], cmd[600];
	const char *f;
	int k;

	for (k = 0; k < 10; k++)
		gen_battery(&g, 100 * SEC + k * 100 * MS, k, 4000000, -500000, 3000000, 0);
	for (k = 0; k < 10; k++)
		gen_battery(&g, 7300 * SEC + k * 100 * MS, 10 + k, 3700000, -250000, 3000000, 0);
	snprintf(in, sizeof(in), "%s/gap.txt", self->dir);
	snprintf(page, sizeof(page), "%s/gap.html", self->dir);
	ASSERT_EQ(0, gen_write(&g, in));
	snprintf(cmd, sizeof(cmd), "%s report %s --html %s >/dev/null", POWERPIN, in, page);
	ASSERT_EQ(0, system(cmd));
	self->facts = probe(self->dir, page);
	ASSERT_NE(NULL, self->facts);
	f = self->facts;
	EXPECT_EQ(0, fact_int(f, "console_errors"));
	EXPECT_NEAR(7200.9, fact_num(f, "t1"), 1e-6);
	/* the pointer in the middle of the plot: the nearest sample is a real one */
	EXPECT_NE(NULL, strstr(fact(f, "readout"), " V, "));
	EXPECT_EQ(NULL, strstr(fact(f, "readout"), "NaN"));
}

/*
 * 60 frames a second through the second half of 10 s, each 8 ms: at the
 * whole capture's scale the slices are a pixel wide and drawn as runs,
 * which still say what they are ("frame x300"), and a click on a run
 * zooms to it.
 */
TEST_F_TIMEOUT(html, dense_slices_labelled, 300)
{
	struct gen g = { .nr_cpus = 1 };
	char in[160], page[160], cmd[600];
	const char *f;
	uint64_t t;
	int k;

	for (k = 0; k <= 1000; k++)
		gen_battery(&g, SEC + k * 10 * MS, k, 3900000, -800000, 3000000, 0);
	for (k = 0, t = 6 * SEC; k < 300; k++, t += 16666667) {
		gen_mark(&g, t, 0, "render", 300, 300, "B|300|frame");
		gen_mark(&g, t + 8 * MS, 0, "render", 300, 300, "E|300");
	}
	snprintf(in, sizeof(in), "%s/frames.txt", self->dir);
	snprintf(page, sizeof(page), "%s/frames.html", self->dir);
	ASSERT_EQ(0, gen_write(&g, in));
	snprintf(cmd, sizeof(cmd), "%s report %s --html %s >/dev/null", POWERPIN, in, page);
	ASSERT_EQ(0, system(cmd));
	self->facts = probe(self->dir, page);
	ASSERT_NE(NULL, self->facts);
	f = self->facts;
	TH_LOG("%s", f);
	EXPECT_EQ(0, fact_int(f, "console_errors"));
	EXPECT_LE(1, fact_int(f, "slice_labels"));
	EXPECT_EQ(0, strncmp(fact(f, "slice_label"), "frame \xc3\x97", 8));
	/* the click on the run zoomed in to it: the second half */
	EXPECT_NEAR(5.0, fact_num(f, "slice_click_t0"), 0.05);
	EXPECT_NEAR(10.0, fact_num(f, "slice_click_t1"), 0.05);
}

/* The y of the row slice @name is drawn in ("slice_at=NAME@Y"), or -1. */
static int slice_y(const char *facts, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "\nslice_at=%s@", name);
	p = strstr(facts, key);
	return p ? atoi(p + strlen(key)) : -1;
}

/*
 * A 6 s network request on RenderThread while the main thread draws a
 * frame with a traversal inside it, and a third process nesting six deep:
 * each thread has its own lane under its process, named; the frame and
 * the request overlap in time but not in a row; traversal is one row
 * under the frame; all six depths get a row (no cap); a click on a
 * thread's name folds its lane, on a process's name all its threads.
 */
TEST_F_TIMEOUT(html, lane_per_thread, 300)
{
	static const char *const deep[] = {
		"B|1300|d0", "B|1300|d1", "B|1300|d2", "B|1300|d3", "B|1300|d4", "B|1300|d5",
	};
	struct gen g = { .nr_cpus = 2 };
	char in[160], page[160], cmd[600];
	const char *f;
	char *html;
	int k, y[6];

	for (k = 0; k <= 100; k++)
		gen_battery(&g, SEC + k * 100 * MS, k, 3900000, -800000, 3000000, 0);
	gen_mark(&g, SEC + 500 * MS, 1, "RenderThread", 1215, 1200, "B|1200|network request");
	gen_mark(&g, SEC + 6500 * MS, 1, "RenderThread", 1215, 1200, "E|1200");
	gen_mark(&g, 2 * SEC, 0, "app", 1200, 1200, "B|1200|Choreographer#doFrame");
	gen_mark(&g, 2 * SEC + 500 * MS, 0, "app", 1200, 1200, "B|1200|traversal");
	gen_mark(&g, 3 * SEC + 500 * MS, 0, "app", 1200, 1200, "E|1200");
	gen_mark(&g, 4 * SEC, 0, "app", 1200, 1200, "E|1200");
	for (k = 0; k < 6; k++)
		gen_mark(&g, 7 * SEC + k * 100 * MS, 0, "deep", 1300, 1300, deep[k]);
	for (k = 0; k < 6; k++)
		gen_mark(&g, 10 * SEC - k * 100 * MS, 0, "deep", 1300, 1300, "E|1300");
	snprintf(in, sizeof(in), "%s/lanes.txt", self->dir);
	snprintf(page, sizeof(page), "%s/lanes.html", self->dir);
	ASSERT_EQ(0, gen_write(&g, in));
	snprintf(cmd, sizeof(cmd), "%s report %s --html %s >/dev/null", POWERPIN, in, page);
	ASSERT_EQ(0, system(cmd));
	/* the page's data: each thread named with its process */
	html = slurp(page);
	ASSERT_NE(NULL, html);
	EXPECT_NE(NULL, strstr(html, "<script type=\"application/json\" id=\"pp-threads\">{\"1200\": {\"name\": \"app\", \"tgid\": 1200, \"process\": \"app\"}, \"1215\": {\"name\": \"RenderThread\", \"tgid\": 1200, \"process\": \"app\"}, \"1300\": {\"name\": \"deep\", \"tgid\": 1300, \"process\": \"deep\"}}</script>"));
	free(html);

	self->facts = probe(self->dir, page);
	ASSERT_NE(NULL, self->facts);
	f = self->facts;
	TH_LOG("%s", f);
	EXPECT_EQ(0, fact_int(f, "console_errors"));
	EXPECT_EQ(2, count_lines(f, "proc_label=\xe2\x96\xbe app 1200") +
		     count_lines(f, "proc_label=\xe2\x96\xbe deep 1300"));
	EXPECT_EQ(1, count_lines(f, "lane_label=\xe2\x96\xbe app 1200"));
	EXPECT_EQ(1, count_lines(f, "lane_label=\xe2\x96\xbe RenderThread 1215"));
	EXPECT_EQ(1, count_lines(f, "lane_label=\xe2\x96\xbe deep 1300"));
	/* overlapping in time, on two threads: two lanes, not one row nested */
	ASSERT_LT(0, slice_y(f, "network request"));
	ASSERT_LT(0, slice_y(f, "Choreographer#doFrame"));
	EXPECT_NE(slice_y(f, "network request"), slice_y(f, "Choreographer#doFrame"));
	EXPECT_EQ(slice_y(f, "Choreographer#doFrame") + 18, slice_y(f, "traversal"));
	/* app's lane (main thread first), then RenderThread's under it */
	EXPECT_LT(slice_y(f, "traversal"), slice_y(f, "network request"));
	for (k = 0; k < 6; k++) {
		char name[8];

		snprintf(name, sizeof(name), "d%d", k);
		y[k] = slice_y(f, name);
		ASSERT_LT(0, y[k]) TH_LOG("%s", name);
		if (k)
			EXPECT_EQ(y[k - 1] + 18, y[k]);
	}
	EXPECT_EQ(0, strncmp(fact(f, "folded_label"), "\xe2\x96\xb8 app 1200 (2 slices)", 26));
	EXPECT_EQ(7, fact_int(f, "folded_slices"));
	EXPECT_EQ(1, fact_int(f, "proc_folded_lanes"));
}

/* The console check can fail: a page that logs an error is caught. */
TEST_F_TIMEOUT(html, probe_sees_console_errors, 300)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.html", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("<!DOCTYPE html><html><body><script>console.error('powerpin-probe')</script></body></html>\n",
	      f);
	fclose(f);
	self->facts = probe(self->dir, path);
	ASSERT_NE(NULL, self->facts);
	EXPECT_EQ(1, fact_int(self->facts, "console_errors"));
	EXPECT_NE(NULL, strstr(self->facts, "console=powerpin-probe"));
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

/* Pixels of a colour, and the rows holding at least @per_row of them. */
static struct colour_rows rows_near(const struct image *img, int r, int g, int b, int tol,
				    int per_row)
{
	struct colour_rows c = { 0, -1, -1 };
	uint32_t x, y;
	int in_row;

	for (y = 0; y < img->h; y++) {
		in_row = 0;
		for (x = 0; x < img->w; x++) {
			const uint8_t *p = img->px + ((size_t)y * img->w + x) * img->bpp;

			if (abs(p[0] - r) > tol || abs(p[1] - g) > tol || abs(p[2] - b) > tol)
				continue;
			c.n++;
			in_row++;
		}
		if (in_row >= per_row) {
			if (c.top < 0)
				c.top = y;
			c.bottom = y;
		}
	}
	return c;
}

static struct colour_rows pixels_near(const struct image *img, int r, int g, int b, int tol)
{
	return rows_near(img, r, g, b, tol, 1);
}

TEST_F_TIMEOUT(html, screenshot_shows_plots, 300)
{
	struct colour_rows volt, cur, power, stack, slices;
	char shot[160];
	struct image img;

	self->facts = probe(self->dir, self->page);
	ASSERT_NE(NULL, self->facts);
	snprintf(shot, sizeof(shot), "%s/probe/shot.png", self->dir);
	ASSERT_EQ(0, png_decode(shot, &img));
	EXPECT_EQ(1000U, img.w);
	EXPECT_EQ(1700U, img.h);
	/* each plot's line, in its own colour, spans most of the 806 px plot width */
	volt = pixels_near(&img, 0x59, 0xa1, 0x4f, 8);
	cur = pixels_near(&img, 0xe1, 0x57, 0x59, 8);
	power = pixels_near(&img, 0xb0, 0x7a, 0xa1, 8);
	/* the stacked energy of "render", the largest process */
	stack = rows_near(&img, 0x68, 0x8c, 0xb3, 10, 100);
	/* the slice lane's boxes */
	slices = pixels_near(&img, 0xf2, 0xc1, 0x4e, 8);
	EXPECT_GT(volt.n, 600);
	EXPECT_GT(cur.n, 600);
	EXPECT_GT(power.n, 600);
	EXPECT_GT(stack.n, 10000);
	EXPECT_GT(slices.n, 6 * 30 * 10);
	TH_LOG("rows: slices %d-%d, voltage %d-%d, current %d-%d, power %d-%d, energy %d-%d",
	       slices.top, slices.bottom, volt.top, volt.bottom, cur.top, cur.bottom, power.top,
	       power.bottom, stack.top, stack.bottom);
	/* in order down the page: lane, voltage, current, power, energy */
	EXPECT_LT(slices.bottom, volt.top);
	EXPECT_LT(volt.bottom, cur.top);
	EXPECT_LT(cur.bottom, power.top);
	EXPECT_LT(power.bottom, stack.top);
	/* each plot (and its legend swatch above it) within 180 px */
	EXPECT_LE(volt.bottom - volt.top, 180);
	EXPECT_LE(cur.bottom - cur.top, 180);
	EXPECT_LE(power.bottom - power.top, 180);
	/* slice bands: #f2c14e at 18% over the plot background */
	EXPECT_GT(pixels_near(&img, 0xf8, 0xed, 0xd4, 8).n, 10000);
	free(img.px);
}

TEST_HARNESS_MAIN
