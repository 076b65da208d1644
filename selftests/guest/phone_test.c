// SPDX-License-Identifier: GPL-2.0
/*
 * The README's "On an Android phone" commands, as written there, run by the
 * static builds of `make android` in a bare root: only the two binaries
 * under /data/local/tmp/powerpin, an APK under /data/app and a
 * /system/build.prop, with /proc, /sys and /dev bound in; no /etc, /tmp,
 * /var, /usr, no shell, no loader, an empty environment.  `adb push` and
 * `adb pull` are copies into and out of the root, `echo ... > tracing_on`
 * is written from outside it, and powerpin.ko is the runner's.  The arm64
 * guest runs the arm64 and the 32-bit arm build, an armhf guest the arm one.
 * Runs as root from the repo root with the emulator and powerpin.ko loaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <minizip/zip.h>

#include "guest_harness.h"

#include "cmd_helpers.h"
#include "pin_helpers.h"

#define DEV_DIR		"/data/local/tmp/powerpin"
#define PP		DEV_DIR "/powerpin"
#define PPD		DEV_DIR "/powerpind"
#define APK		"/data/app/com.example.app-1/base.apk"
#define SPOOL		DEV_DIR "/spool"
#define CAPTURE		"capture-YYYYMMDD-HHMMSS"
#define TRACING_ON	"/sys/kernel/tracing/tracing_on"
#define PERIOD		"/sys/module/powerpin/parameters/period_us"
#define HOST_PP		"build/bin/powerpin"
#define LOGDW		"/dev/socket/logdw"	/* the root's /dev is this one */

/* The phone commands, each as the README has it after `adb shell su -c '`. */
static const char *const readme_cmds[] = {
	PP " --version",
	PP " status",
	PP " config --period-ms 20",
	PP " record -d 5 --compression zstd -o " DEV_DIR "/trace.dat",
	PPD,
	PP " report " SPOOL "/" CAPTURE " --json " DEV_DIR "/report.json --html "
		DEV_DIR "/report.html --perfetto " DEV_DIR "/report.pftrace",
	PP " file " APK " --zip --gen-probe -o " DEV_DIR "/pinlist.meta",
	/* the workload is the README's `am start ...`, which the root has not */
	PP " pin capture --file " APK " --evict -o " DEV_DIR "/pins -- ",
	"adb pull " SPOOL "/" CAPTURE,
	HOST_PP " report " CAPTURE " --html report.html",
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* README.md's phone section, malloc'ed, or NULL. */
static char *readme_section(void)
{
	static char buf[1 << 20];
	char *start, *end;

	if (read_text("README.md", buf, sizeof(buf)))
		return NULL;
	start = strstr(buf, "\n## On an Android phone\n");
	if (!start)
		return NULL;
	end = strstr(start + 1, "\n## ");
	return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* Stored entries with known bytes: an APK as far as the probe cares. */
static int make_apk(const char *path)
{
	static const struct { const char *name; size_t size; } e[] = {
		{ "AndroidManifest.xml", 4096 },
		{ "classes.dex", 200 << 10 },
		{ "res/drawable/big.png", 300 << 10 },
	};
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	size_t i;

	if (!zf)
		return -1;
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		char *buf = malloc(e[i].size);
		int bad;

		if (!buf)
			return -1;
		memset(buf, 'a' + i, e[i].size);
		bad = zipOpenNewFileInZip64(zf, e[i].name, NULL, NULL, 0, NULL, 0, NULL,
					    0, 0, 0) != ZIP_OK ||
		      zipWriteInFileInZip(zf, buf, e[i].size) != ZIP_OK ||
		      zipCloseFileInZip(zf) != ZIP_OK;
		free(buf);
		if (bad)
			return -1;
	}
	return zipClose(zf, NULL) == ZIP_OK ? 0 : -1;
}

/*
 * Child side of phone_exec(): into the root, @cmd split at spaces, run
 * with nothing in the environment.
 */
static void __attribute__((noreturn)) exec_in_root(const char *root, const char *cmd)
{
	char *copy = strdup(cmd), *argv[32], *save = NULL, *tok;
	char *envp[] = { NULL };
	int n = 0;

	for (tok = strtok_r(copy, " ", &save); tok && n < 31; tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	if (chroot(root) || chdir("/")) {
		perror("chroot");
		_exit(125);
	}
	execve(argv[0], argv, envp);
	perror(argv[0]);
	_exit(127);
}

/* Run @cmd in @root: stdout and stderr into @out; its exit status or -1. */
static int phone_run(const char *root, const char *cmd, char *out, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		exec_in_root(root, cmd);
	}
	close(p[1]);
	while (n + 1 < len && (r = read(p[0], out + n, len - 1 - n)) > 0)
		n += r;
	out[n] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The process whose executable is @exe (seen from here), or -1. */
static pid_t find_process(const char *exe)
{
	char link[300], target[512];
	struct dirent *e;
	pid_t found = -1;
	DIR *d = opendir("/proc");
	ssize_t n;

	while (d && (e = readdir(d)) && found < 0) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(link, sizeof(link), "/proc/%s/exe", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, exe))
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* The one capture-* in @spool with a report.txt, its name in @name. */
static int wait_capture(const char *spool, char *name, size_t len, double timeout_s)
{
	double end = now_s() + timeout_s;
	char path[1024];
	struct dirent *e;
	DIR *d;

	do {
		d = opendir(spool);
		while (d && (e = readdir(d))) {
			if (strncmp(e->d_name, "capture-", 8))
				continue;
			snprintf(path, sizeof(path), "%s/%s/report.txt", spool, e->d_name);
			if (!access(path, F_OK)) {
				snprintf(name, len, "%s", e->d_name);
				closedir(d);
				return 0;
			}
		}
		if (d)
			closedir(d);
		usleep(100000);
	} while (now_s() < end);
	return -1;
}

/* `"energy_j": VALUE` of a JSON report, as written, in @out. */
static int energy_of(const char *json_path, char *out, size_t len)
{
	static char buf[1 << 20];
	char *p;

	if (read_text(json_path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\"energy_j\": ");
	if (!p)
		return -1;
	snprintf(out, len, "%.*s", (int)strcspn(p, ",\n"), p);
	return 0;
}

static void busy_for(double seconds)
{
	double end = now_s() + seconds;
	volatile unsigned long x = 0;

	while (now_s() < end)
		x++;
}

FIXTURE(phone) {
	char dir[128];
	char root[160];
	char period[32];
	bool mounted;
	pid_t daemon;
	int logd;		/* our logd's socket, or -1 */
	char tracing_on[8];	/* as found, put back at the end */
};

FIXTURE_VARIANT(phone) {
	const char *arch;	/* build/android/ARCH */
	bool needs_64;		/* only on an aarch64 kernel */
};

FIXTURE_VARIANT_ADD(phone, arm64) { .arch = "arm64", .needs_64 = true };
FIXTURE_VARIANT_ADD(phone, arm) { .arch = "arm", .needs_64 = false };

static const char *const binds[] = { "proc", "sys", "dev" };

FIXTURE_SETUP(phone)
{
	char path[512], cmd[2048], why[512];
	struct utsname u;
	size_t i;

	uname(&u);
	if (strcmp(u.machine, "aarch64") && (variant->needs_64 || strncmp(u.machine, "armv7", 5)))
		SKIP(return, "no %s phone build runs on %s", variant->arch, u.machine);
	if (access("/sys/module/powerpin", F_OK))
		SKIP(return, "powerpin.ko is not loaded");
	snprintf(path, sizeof(path), "build/android/%s/powerpind", variant->arch);
	if (access(path, X_OK) && !read_line("build/android/unavailable", why, sizeof(why)))
		SKIP(return, "no phone build: %s", why);
	ASSERT_EQ(0, access(path, X_OK))
		TH_LOG("%s missing: make android (scripts/check builds it)", path);
	ASSERT_EQ(0, read_line(PERIOD, self->period, sizeof(self->period)));
	ASSERT_EQ(0, pin_mkdtemp(self->dir, sizeof(self->dir), "phone_test"));
	snprintf(self->root, sizeof(self->root), "%s/root", self->dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %1$s" DEV_DIR " %1$s/data/app/com.example.app-1 "
		 "%1$s/system %1$s/proc %1$s/sys %1$s/dev", self->root);
	ASSERT_EQ(0, pin_run("%s", cmd));
	snprintf(path, sizeof(path), "%s/system/build.prop", self->root);
	ASSERT_EQ(0, write_file(path, "ro.build.version.sdk=24\nro.product.model=Nexus 6\n"));
	/* adb push */
	ASSERT_EQ(0, pin_run("cp build/android/%s/powerpin build/android/%s/powerpind %s" DEV_DIR "/",
			     variant->arch, variant->arch, self->root));
	snprintf(path, sizeof(path), "%s" APK, self->root);
	ASSERT_EQ(0, make_apk(path));
	for (i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self->root, binds[i]);
		snprintf(cmd, sizeof(cmd), "/%s", binds[i]);
		ASSERT_EQ(0, mount(cmd, path, NULL, MS_BIND | MS_REC, NULL));
		self->mounted = true;
	}
	ASSERT_EQ(0, read_line(TRACING_ON, self->tracing_on, sizeof(self->tracing_on)));
	ASSERT_EQ(0, write_file(TRACING_ON, "0"));
}

/* A logd of our own at LOGDW, as a phone has one; its socket, or -1. */
static int logd_listen(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = LOGDW };
	struct timeval tv = { 1, 0 };
	int fd;

	if (mkdir("/dev/socket", 0755) && errno != EEXIST)
		return -1;
	unlink(LOGDW);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_TEARDOWN(phone)
{
	char path[512];
	bool busy = false;
	size_t i;

	if (self->daemon > 0) {
		kill(self->daemon, SIGTERM);
		for (i = 0; i < 100 && !kill(self->daemon, 0); i++)
			usleep(100000);
	}
	if (self->period[0])
		write_file(PERIOD, self->period);
	if (self->tracing_on[0])
		write_file(TRACING_ON, self->tracing_on);
	if (self->logd > 0) {
		close(self->logd);
		unlink(LOGDW);
	}
	for (i = 0; self->mounted && i < sizeof(binds) / sizeof(binds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self->root, binds[i]);
		if (umount2(path, MNT_DETACH) && errno != EINVAL)
			busy = true;
	}
	/* never remove through a mount that is still there */
	if (self->dir[0] && !busy)
		pin_run("rm -rf --one-file-system %s", self->dir);
}

/* Every command the test runs is the README's, word for word. */
static void assert_readme_has_commands(struct __test_metadata *_metadata)
{
	char *readme = readme_section();
	size_t i;

	ASSERT_TRUE(readme != NULL) TH_LOG("README.md has no \"On an Android phone\" section");
	for (i = 0; i < sizeof(readme_cmds) / sizeof(readme_cmds[0]); i++) {
		bool said = strstr(readme, readme_cmds[i]);

		EXPECT_TRUE(said) TH_LOG("README.md does not say: %s", readme_cmds[i]);
	}
	free(readme);
}

/* --version, status, config: the tools speak to the module from the root. */
static void check_tools(struct __test_metadata *_metadata, FIXTURE_DATA(phone) *self)
{
	char out[8192], host[512], period[32];

	ASSERT_EQ(0, phone_run(self->root, PP " --version", out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(0, run_cmd(HOST_PP " --version", host, sizeof(host)));
	EXPECT_STREQ(host, out);
	ASSERT_EQ(0, phone_run(self->root, PP " status", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(strstr(out, "period") != NULL) TH_LOG("%s", out);
	ASSERT_EQ(0, phone_run(self->root, PP " config --period-ms 20", out, sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_EQ(0, read_line(PERIOD, period, sizeof(period)));
	EXPECT_STREQ("20000", period);
}

/* record without the daemon: a zstd capture the phone's report reads. */
static void check_record(struct __test_metadata *_metadata, FIXTURE_DATA(phone) *self)
{
	char out[8192], path[512], head[4096] = "";
	int fd;

	ASSERT_EQ(0, phone_run(self->root, PP " record -d 5 --compression zstd -o " DEV_DIR
			       "/trace.dat", out, sizeof(out))) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s" DEV_DIR "/trace.dat", self->root);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, head, sizeof(head)));
	close(fd);
	/* a version 7 file names its compression in the first header */
	EXPECT_TRUE(memmem(head, sizeof(head), "zstd", 5) != NULL);
	ASSERT_EQ(0, phone_run(self->root, PP " report " DEV_DIR "/trace.dat", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_TRUE(strstr(out, "samples") != NULL) TH_LOG("%s", out);
}

/*
 * powerpind from the root, with Android's spool.  Without logd its log is
 * kept in the run directory's powerpind.log (logd tried again each line);
 * with one (@logd), in logcat; never on stderr once it runs.
 */
static void start_powerpind(struct __test_metadata *_metadata, FIXTURE_DATA(phone) *self,
			    bool logd)
{
	char log[256], exe[256], kept[512], text[8192];
	double end;
	pid_t pid;
	int st;

	snprintf(log, sizeof(log), "%s/powerpind.log", self->dir);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		exec_in_root(self->root, PPD);
	}
	ASSERT_LT(0, pid);
	/* it leaves the terminal: its first process ends at once */
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, WIFEXITED(st) ? WEXITSTATUS(st) : -1) {
		read_text(log, text, sizeof(text));
		TH_LOG("%s", text);
	}
	snprintf(exe, sizeof(exe), "%s" PPD, self->root);
	snprintf(kept, sizeof(kept), "%s" DEV_DIR "/run/powerpind.log", self->root);
	end = now_s() + 60;
	while (!logd && (text[0] = '\0', read_text(kept, text, sizeof(text)),
			 !strstr(text, "ready:")) && now_s() < end)
		usleep(100000);
	self->daemon = find_process(exe);
	ASSERT_LT(0, self->daemon) TH_LOG("no powerpind running: %s", text);
	if (!logd) {
		EXPECT_TRUE(strstr(text, "I powerpind: ready: spool " SPOOL ", powerpin.ko loaded") != NULL)
			TH_LOG("%s", text);
		/* nothing on stderr after it left the terminal */
		text[0] = '\0';
		read_text(log, text, sizeof(text));
		EXPECT_STREQ("", text);
	}
}

/* The next entry logd gets: its priority, tag and message; 0 or -1. */
static int logd_read(int fd, int *prio, char *tag, char *msg, size_t len)
{
	unsigned char buf[4200];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
	size_t tag_len;

	if (n < 13 || buf[0] != 0)	/* header, priority, "" and "": main log */
		return -1;
	buf[n] = '\0';
	*prio = buf[11];
	tag_len = strnlen((char *)buf + 12, n - 12);
	snprintf(tag, 32, "%s", (char *)buf + 12);
	snprintf(msg, len, "%s", (char *)buf + 12 + tag_len + 1);
	return 0;
}

/* The reports on the phone and, from the pulled capture, on the host. */
static void check_reports(struct __test_metadata *_metadata, FIXTURE_DATA(phone) *self,
			  const char *capture)
{
	char cmd[1024], out[16384], path[512], phone_j[128], host_j[128], top[512];
	const char *const made[] = { "report.txt", "report.json", "report.html", "report.csv" };
	size_t i;

	/* the capture lock, in the phone's directory as there is no /run */
	snprintf(path, sizeof(path), "%s" DEV_DIR "/run/capture.lock", self->root);
	EXPECT_EQ(0, access(path, F_OK));
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s" SPOOL "/%s/%s", self->root, capture, made[i]);
		EXPECT_LT(0, file_size(path)) TH_LOG("powerpind did not write %s", path);
	}
	snprintf(cmd, sizeof(cmd), PP " report " SPOOL "/%s --json " DEV_DIR "/report.json --html "
		 DEV_DIR "/report.html --perfetto " DEV_DIR "/report.pftrace", capture);
	ASSERT_EQ(0, phone_run(self->root, cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_TRUE(strstr(out, "samples") != NULL) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s" DEV_DIR "/report.html", self->root);
	EXPECT_LT(10000, file_size(path));
	snprintf(path, sizeof(path), "%s" DEV_DIR "/report.pftrace", self->root);
	EXPECT_LT(100, file_size(path));
	snprintf(path, sizeof(path), "%s" DEV_DIR "/report.json", self->root);
	ASSERT_EQ(0, energy_of(path, phone_j, sizeof(phone_j)));
	/* report's temporary files went to the phone's directory, and are gone */
	snprintf(path, sizeof(path), "%s" DEV_DIR "/tmp", self->root);
	EXPECT_EQ(0, pin_run("test -d %s && test -z \"$(ls -A %s)\"", path, path));

	/* adb pull, then the host's own build */
	ASSERT_EQ(0, pin_run("cp -a %s" SPOOL "/%s %s/", self->root, capture, self->dir));
	ASSERT_TRUE(getcwd(top, sizeof(top)) != NULL);
	ASSERT_EQ(0, pin_run("cd %s && %s/" HOST_PP " report %s --html report.html >/dev/null",
			     self->dir, top, capture));
	snprintf(cmd, sizeof(cmd), HOST_PP " report %s/%s --json %s/host.json", self->dir,
		 capture, self->dir);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/host.json", self->dir);
	ASSERT_EQ(0, energy_of(path, host_j, sizeof(host_j)));
	EXPECT_STREQ(phone_j, host_j);
	EXPECT_TRUE(strstr(phone_j, "null") == NULL);
}

/* The bytes a pinlist's (offset, length) pairs cover, or -1. */
static long long pinlist_bytes(const char *path)
{
	unsigned char buf[8192];
	long long sum = 0;
	int fd = open(path, O_RDONLY), i;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	if (n < 0 || n % 8)
		return -1;
	for (i = 0; i < n; i += 8)
		sum += (long long)buf[i + 4] << 24 | buf[i + 5] << 16 | buf[i + 6] << 8 | buf[i + 7];
	return sum;
}

/* A pinlist of the installed APK, and a workload's pages of it. */
static void check_pinlists(struct __test_metadata *_metadata, FIXTURE_DATA(phone) *self)
{
	char out[8192], path[512], want[64];
	long long apk, bytes;

	snprintf(path, sizeof(path), "%s" APK, self->root);
	apk = file_size(path);
	ASSERT_LT(0, apk);
	ASSERT_EQ(0, phone_run(self->root, PP " file " APK " --zip --gen-probe -o " DEV_DIR
			       "/pinlist.meta", out, sizeof(out))) TH_LOG("%s", out);
	/* the APK was just written: all of it is in the page cache */
	snprintf(want, sizeof(want), "Pinlist Writing start=0 bytes=%lld\n", apk);
	EXPECT_TRUE(strstr(out, want) != NULL) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s" DEV_DIR "/pinlist.meta", self->root);
	EXPECT_EQ(8, file_size(path));
	EXPECT_EQ(apk, pinlist_bytes(path));

	ASSERT_EQ(0, phone_run(self->root, PP " pin capture --file " APK " --evict -o " DEV_DIR
			       "/pins -- " PP " file " APK " --zip", out, sizeof(out)))
		TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s" DEV_DIR "/pins/base.apk.pinlist", self->root);
	bytes = pinlist_bytes(path);
	/* the workload read the zip's directory, not the whole of it */
	EXPECT_LT(0, bytes) TH_LOG("%s", out);
	EXPECT_GT(apk, bytes) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(phone, readme_commands, 900)
{
	char capture[256], spool[512];

	assert_readme_has_commands(_metadata);
	check_tools(_metadata, self);
	check_record(_metadata, self);
	start_powerpind(_metadata, self, false);

	ASSERT_EQ(0, write_file(TRACING_ON, "1"));
	busy_for(2.0);
	ASSERT_EQ(0, write_file(TRACING_ON, "0"));
	snprintf(spool, sizeof(spool), "%s" SPOOL, self->root);
	ASSERT_EQ(0, wait_capture(spool, capture, sizeof(capture), 300))
		TH_LOG("no capture with a report in %s", spool);

	check_reports(_metadata, self, capture);
	check_pinlists(_metadata, self);
}

/*
 * `adb push powerpin /data/local/tmp/` (pintool's and simpleperf's habit)
 * makes the home's name the binary: the defaults move to powerpin.d
 * beside it, and record and powerpind work from there.
 */
TEST_F_TIMEOUT(phone, binary_pushed_where_the_home_would_be, 300)
{
	char out[8192], path[512];

	ASSERT_EQ(0, pin_run("cd %s/data/local/tmp && cp powerpin/powerpin pp.bin && rm -rf powerpin && "
			     "mv pp.bin powerpin", self->root));
	ASSERT_EQ(0, phone_run(self->root, DEV_DIR " record -d 2 -o /data/local/tmp/t.dat",
			       out, sizeof(out))) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s" DEV_DIR ".d/run/capture.lock", self->root);
	EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/data/local/tmp/t.dat", self->root);
	EXPECT_LT(0, file_size(path));
	ASSERT_EQ(0, phone_run(self->root, DEV_DIR " report /data/local/tmp/t.dat", out,
			       sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "samples")) TH_LOG("%s", out);
	/* report's temporary files went to the moved home, and are gone */
	snprintf(path, sizeof(path), "%s" DEV_DIR ".d/tmp", self->root);
	EXPECT_EQ(0, pin_run("test -d %s && test -z \"$(ls -A %s)\"", path, path));
}

/* With logd there, powerpind's messages are logcat's, as `adb logcat -s powerpind` shows. */
TEST_F_TIMEOUT(phone, logcat, 300)
{
	char tag[32], msg[1024], text[8192], log[256];
	double end = now_s() + 60;
	bool ready = false;
	int prio;

	self->logd = logd_listen();
	ASSERT_LE(0, self->logd) TH_LOG("cannot be logd at " LOGDW ": %s", strerror(errno));
	start_powerpind(_metadata, self, true);
	while (!ready && now_s() < end) {
		if (logd_read(self->logd, &prio, tag, msg, sizeof(msg)))
			continue;
		EXPECT_STREQ("powerpind", tag);
		ready = !strncmp(msg, "ready: spool " SPOOL ", ", 13 + strlen(SPOOL) + 2);
		if (ready)
			EXPECT_EQ(4, prio);	/* ANDROID_LOG_INFO */
	}
	EXPECT_TRUE(ready);
	/* logcat took it; nothing went to stderr */
	snprintf(log, sizeof(log), "%s/powerpind.log", self->dir);
	text[0] = '\0';
	read_text(log, text, sizeof(text));
	EXPECT_STREQ("", text);
}

TEST_HARNESS_MAIN
