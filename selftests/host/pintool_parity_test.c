// SPDX-License-Identifier: GPL-2.0
/*
 * Where `powerpin file` and AOSP's pintool differed, and now agree: a
 * pinconfig number with a leading zero is decimal (pintool reads numbers
 * with Android's ParseUint: base 10 unless "0x"); --use-probe on a plain
 * file is clipped to the file; -v prints pintool's verbose lines in
 * pintool's order; and a zip entry of size 0 inside a probed range has no
 * resident range (not a total_bytes=0 one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "pin/pin.h"
#include "pin_helpers.h"

TEST(pinconfig_numbers_as_parseuint)
{
	static const char text[] = "file a\noffset 010 len 0x10\noffset 08 length 0X1f\noffset 0 len 1K\n";
	struct pinconfig pc;
	char err[256];

	fuzz_seed("pinconfig", text, strlen(text));
	ASSERT_EQ(0, pinconfig_parse(text, strlen(text), "pc", &pc, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(1U, pc.nr);
	ASSERT_EQ(3U, pc.entries[0].nr_ranges);
	/* "010" is ten, not octal eight; "08" (no octal digit) is eight */
	EXPECT_EQ(10U, pc.entries[0].ranges[0].offset);
	EXPECT_EQ(16U, pc.entries[0].ranges[0].length);
	EXPECT_EQ(8U, pc.entries[0].ranges[1].offset);
	EXPECT_EQ(31U, pc.entries[0].ranges[1].length);
	EXPECT_EQ(1024U, pc.entries[0].ranges[2].length);
	pinconfig_free(&pc);
	/* "0x" alone, or a sign, is no number */
	EXPECT_EQ(-1, pinconfig_parse("file a offset 0x len 1", 22, "pc", &pc, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "pc:1: expected a number after 'offset', got '0x'")) TH_LOG("%s", err);
	EXPECT_EQ(-1, pinconfig_parse("file a offset +1 len 1", 22, "pc", &pc, err, sizeof(err)));
}

/* The binary, absolute: the commands run in the test's directory. */
static const char *bin(void)
{
	static char *abs;

	if (!abs)
		abs = realpath(pin_bin(), NULL);
	return abs ? abs : pin_bin();
}

FIXTURE(parity) {
	char dir[64];
	char out[4096];
};

FIXTURE_SETUP(parity)
{
	if (access(pin_bin(), X_OK))
		SKIP(return, "powerpin not built");
	if (pin_run("python3 -c 'import zipfile' 2>/dev/null"))
		SKIP(return, "python3 is needed to build the archives");
	ASSERT_EQ(0, pin_mkdtemp(self->dir, sizeof(self->dir), "parity"));
}

FIXTURE_TEARDOWN(parity)
{
	if (self->dir[0])
		pin_run("rm -rf %s", self->dir);
}

/* Run a shell command in the test's directory; its stdout in self->out. */
static int run_out(FIXTURE_DATA(parity) *self, const char *fmt, ...)
{
	char cmd[2048], path[128];
	va_list ap;
	ssize_t n;
	int fd, st;

	snprintf(path, sizeof(path), "%s/stdout", self->dir);
	st = snprintf(cmd, sizeof(cmd), "cd %s && { ", self->dir);
	va_start(ap, fmt);
	st += vsnprintf(cmd + st, sizeof(cmd) - st, fmt, ap);
	va_end(ap);
	snprintf(cmd + st, sizeof(cmd) - st, "; } > stdout 2>/dev/null");
	st = system(cmd);
	self->out[0] = '\0';
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, self->out, sizeof(self->out) - 1);
		self->out[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* big.bin (20000 bytes), empty.txt (0), small.txt (6), stored; data offsets in *off. */
static int make_apk(FIXTURE_DATA(parity) *self, unsigned long long off[3])
{
	char cmd[1024];
	FILE *p;
	int n;

	snprintf(cmd, sizeof(cmd),
		 "cd %s && python3 -c '\n"
		 "import zipfile\n"
		 "z = zipfile.ZipFile(\"a.apk\", \"w\", zipfile.ZIP_STORED)\n"
		 "z.writestr(\"big.bin\", bytes(range(256)) * 78 + bytes(32))\n"
		 "z.writestr(\"empty.txt\", b\"\")\n"
		 "z.writestr(\"small.txt\", b\"hello\\n\")\n"
		 "z.close()\n"
		 "z = zipfile.ZipFile(\"a.apk\")\n"
		 "print(\" \".join(str(i.header_offset + 30 + len(i.filename.encode()) + len(i.extra)) for i in z.infolist()))\n"
		 "'", self->dir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fscanf(p, "%llu %llu %llu", &off[0], &off[1], &off[2]);
	return pclose(p) || n != 3 ? -1 : 0;
}

TEST_F(parity, verbose_lines_in_pintool_order)
{
	unsigned long long off[3];
	char want[2048];
	int n;

	ASSERT_EQ(0, make_apk(self, off));
	ASSERT_EQ(0, pin_run("printf 'file big\\noffset 010\\nlen 0x100\\nfile small\\n' > %s/pc.txt",
			     self->dir));
	/* a probe of the whole archive, as a pinlist */
	ASSERT_EQ(0, pin_run("printf '\\0\\0\\0\\0\\0\\1\\0\\0' > %s/probe.meta", self->dir));
	ASSERT_EQ(0, run_out(self, "%s file a.apk --zip --use-probe probe.meta --pinconfig pc.txt -v -o out.meta",
			     bin()));
	n = snprintf(want, sizeof(want),
		     "Setting output pinlist file: out.meta\n"
		     "Setting input file: a.apk\n"
		     "Setting pinconfig file: pc.txt\n"
		     "Setting custom probe file: probe.meta\n"
		     "Setting probe type: 2\n"
		     "Dump enabled: 0\n"
		     "Is Zip file: 1\n"
		     "Using custom probe file: probe.meta\n"
		     "file found. name=big.bin offset=%llu uncompressed=20000 compressed=20000\n\n"
		     "file found. name=empty.txt offset=%llu uncompressed=0 compressed=0\n\n"
		     "file found. name=small.txt offset=%llu uncompressed=6 compressed=6\n\n"
		     "Parsing file: pc.txt\n"
		     "Finished parsing Pinconfig file\n"
		     "file=big\n"
		     "offset=10 bytes=256\n"
		     "file=small\n"
		     "Found a match: file=big.bin matching filter=big\n"
		     "zip_offset=%llu bytes=256\n"
		     "Found a match: file=small.txt matching filter=small\n"
		     "zip_offset=%llu bytes=6\n"
		     "Writing pinconfig filtered file coverages\n"
		     "Pinlist Writing start=",
		     off[0], off[1], off[2], off[0] + 10, off[2]);
	EXPECT_EQ(0, strncmp(self->out, want, n)) TH_LOG("got:\n%s\nwant:\n%s", self->out, want);
	EXPECT_NE(NULL, strstr(self->out, "\nFinished writing pin file at: out.meta\n"));

	/* --gen-probe is type 1, "Generating probe"; no pinconfig: regular coverages */
	ASSERT_EQ(0, run_out(self, "%s file a.apk --zip --gen-probe --probe-method mincore -v -o out.meta",
			     bin()));
	EXPECT_NE(NULL, strstr(self->out, "Setting probe type: 1\nDump enabled: 0\nIs Zip file: 1\nGenerating probe\nfile found."))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\nWriting regular file coverages.\nPinlist Writing start="));
	/* no probe at all is type 0 */
	ASSERT_EQ(0, run_out(self, "%s file a.apk --zip -v", bin()));
	EXPECT_NE(NULL, strstr(self->out, "Setting probe type: 0\n"));
	EXPECT_EQ(NULL, strstr(self->out, "Generating probe"));
}

/* A zero-size entry inside the probe: listed, with no range at all */
TEST_F(parity, empty_entry_has_no_range)
{
	unsigned long long off[3];
	char want[512];

	ASSERT_EQ(0, make_apk(self, off));
	ASSERT_EQ(0, pin_run("printf '\\0\\0\\0\\0\\0\\1\\0\\0' > %s/probe.meta", self->dir));
	ASSERT_EQ(0, run_out(self, "%s file a.apk --zip --use-probe probe.meta --dump", bin()));
	snprintf(want, sizeof(want),
		 "empty.txt size(B)=0 resident(B)=0 resident(%%)=0\nfile resident ranges\n\nsmall.txt");
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "total_bytes=0\n"));
	ASSERT_EQ(0, run_out(self, "%s file a.apk --zip --use-probe probe.meta --json", bin()));
	snprintf(want, sizeof(want), "{\"name\":\"empty.txt\",\"data_offset\":%llu,\"compressed_size\":0,\"uncompressed_size\":0,\"method\":0,\"resident_bytes\":0,\"ranges\":[]}",
		 off[1]);
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
}

/* --use-probe on a plain file: clipped to the file, never 200% resident */
TEST_F(parity, use_probe_clipped_to_the_file)
{
	ASSERT_EQ(0, pin_run("head -c 4096 /dev/zero > %s/plain.so", self->dir));
	/* one range of 8192 bytes from 0 */
	ASSERT_EQ(0, pin_run("printf '\\0\\0\\0\\0\\0\\0\\040\\0' > %s/probe.meta", self->dir));
	ASSERT_EQ(0, run_out(self, "%s file plain.so --use-probe probe.meta -o out.meta", bin()));
	EXPECT_EQ(0, strncmp(self->out,
			     "plain.so size(B)=4096 resident(B)=4096 resident(%)=100\n"
			     "file resident ranges\n"
			     "file_offset=0 total_bytes=4096\n\n\n"
			     "Pinlist Writing start=0 bytes=4096\n", 142)) TH_LOG("%s", self->out);
	/* a probe wholly past the end leaves nothing */
	ASSERT_EQ(0, pin_run("printf '\\0\\0\\040\\0\\0\\0\\020\\0' > %s/probe.meta", self->dir));
	ASSERT_EQ(0, run_out(self, "%s file plain.so --use-probe probe.meta", bin()));
	EXPECT_EQ(0, strncmp(self->out, "plain.so size(B)=4096 resident(B)=0 resident(%)=0\n", 50))
		TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
