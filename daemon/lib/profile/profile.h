/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile/: measuring a device's CPU power profile from its own fuel gauge:
 * topology, calibration plan, fit, and the writers of its results.
 */
/*
 * powerpin profile: measure a device's CPU power profile from its own fuel
 * gauge (docs/profile.md).  The pieces without I/O policy live here: the
 * CPU topology read from a sysfs root given by the caller, the calibration
 * plan, the least-squares fit with its confidence intervals, and the
 * writers of the table, AOSP's power_profile.xml and JSON.
 */
#ifndef POWERPIN_PROFILE_H
#define POWERPIN_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROFILE_MAX_CPUS	256
#define PROFILE_MAX_CLUSTERS	16
#define PROFILE_MAX_FREQS	64

/* The MAX17042 refreshes Current and VCELL every 175.8 ms. */
#define PROFILE_GAUGE_REFRESH_S	0.1758

/*
 * A cluster is a cpufreq policy (AOSP's clusters are the policies); without
 * cpufreq, all online CPUs make one cluster with one speed, 0 ("unknown").
 */
struct profile_cluster {
	char policy[32];		/* "policy0"; "" without cpufreq */
	int ncpus;
	int cpus[PROFILE_MAX_CPUS];	/* online CPUs of the policy, ascending */
	int nfreqs;
	unsigned int freqs_khz[PROFILE_MAX_FREQS];	/* ascending, each once */
	bool userspace;			/* the userspace governor is available */
	/*
	 * The speeds as Android counts them (CpuScalingPolicyReader, and
	 * time_in_state's order): scaling_available_frequencies in the file's
	 * order, then scaling_boost_frequencies; each an index of freqs_khz.
	 * 0 entries: freqs_khz as it is.
	 */
	int nandroid;
	unsigned char android_freq[PROFILE_MAX_FREQS];
	int nrelated;			/* CPUs of related_cpus, online or not */
	int first_related;		/* the lowest of them */
};

struct profile_topology {
	int ncpus;			/* online CPUs */
	int nclusters;
	bool cpufreq;
	struct profile_cluster cluster[PROFILE_MAX_CLUSTERS];
};

/*
 * Read the online CPUs and the cpufreq policies under @sysroot ("" or "/"
 * for the real system; a test's fake tree otherwise).  Returns 0, or -1 with
 * errno (ENOENT: no sys/devices/system/cpu/online; E2BIG: more CPUs,
 * clusters or frequencies than the limits above).
 */
int profile_topology_read(const char *sysroot, struct profile_topology *t);

/* How many speeds Android counts for @cl, and the freqs_khz index of its @i-th. */
static inline int profile_android_speeds(const struct profile_cluster *cl)
{
	return cl->nandroid ? cl->nandroid : cl->nfreqs;
}

static inline int profile_android_freq(const struct profile_cluster *cl, int i)
{
	return cl->nandroid ? cl->android_freq[i] : i;
}

/*
 * Whether every cluster has the first one's speeds in Android's order
 * (one policy per core, as on the Nexus 6): Android 5's single cpu.speeds
 * list can then describe them all.
 */
bool profile_one_speed_table(const struct profile_topology *t);

/*
 * One calibration step: idle (cluster -1), or @nbusy CPUs of @cluster
 * spinning, CPUs cluster.cpus[(first + j) % ncpus] for j < nbusy, with
 * that cluster at frequency index @freq and every other cluster at its
 * lowest (index 0; idle steps too).
 */
struct profile_step {
	int cluster;
	int freq;
	int nbusy;
	int first;
};

struct profile_plan {
	int nsteps;
	struct profile_step *steps;
	double duration_s;		/* per step, settling included */
	double settle_s;		/* discarded at the start of each step */
};

/*
 * @rounds rounds of: idle, then for every cluster, every frequency, 1..n
 * CPUs busy; each round starts the busy CPUs one CPU further on, so every
 * CPU spins alone in some round.  Returns 0, or -1 with errno ENOMEM.
 */
int profile_plan_build(const struct profile_topology *t, int rounds, double duration_s,
		       double settle_s, struct profile_plan *plan);
void profile_plan_free(struct profile_plan *plan);
/* The CPU the @j-th busy thread of @s spins on. */
int profile_step_cpu(const struct profile_topology *t, const struct profile_step *s, int j);
/* The frequency index cluster @c runs at during @s. */
int profile_step_freq(const struct profile_step *s, int c);
/* "idle" or "2 CPUs (0,1) of cluster 0 at 1800000 kHz" into @buf. */
void profile_step_describe(const struct profile_topology *t, const struct profile_step *s,
			   char *buf, size_t len);
/* The plan, one line a step, and its total time (--dry-run). */
void profile_plan_print(FILE *out, const struct profile_topology *t,
			const struct profile_plan *plan);

/* What the gauge and /proc/stat said during one step's measured window. */
struct profile_measure {
	double current_ua;		/* mean of the samples, the driver's sign */
	uint32_t samples;		/* samples in the window */
	uint32_t fresh;			/* of which not repeats of the gauge's last value */
	double spread_ua;		/* standard deviation of the samples */
	double busy[PROFILE_MAX_CLUSTERS];	/* busy CPU-equivalents in each cluster */
	double suspended_s;		/* CLOCK_BOOTTIME less CLOCK_MONOTONIC over the step */
};

/*
 * The model: current = idle + sum over clusters c of
 *   cluster_power[c] * (c has busy threads)   (clusters of 2+ CPUs only)
 *   + core_power[c][f] * busy[c] while c runs at frequency f.
 */
enum profile_column_kind {
	PROFILE_COL_IDLE,
	PROFILE_COL_CLUSTER,
	PROFILE_COL_CORE,
};

struct profile_column {
	enum profile_column_kind kind;
	int cluster, freq;
};

/* The model's columns for @t into @cols (room for 1 + clusters * (1 + freqs)). */
int profile_columns(const struct profile_topology *t, struct profile_column *cols);
#define PROFILE_MAX_COLUMNS	(1 + PROFILE_MAX_CLUSTERS * (1 + PROFILE_MAX_FREQS))
/* The design row of step @s measured as @m. */
void profile_design_row(const struct profile_column *cols, int ncols,
			const struct profile_step *s, const struct profile_measure *m,
			double *row);
/* "cpu.idle", "cpu.cluster_power.cluster0", "cpu.core_power.cluster0[3]" */
void profile_column_name(const struct profile_column *col, char *buf, size_t len);

/*
 * Ordinary least squares by Householder QR: @x is @n rows of @p (row-major),
 * @y has @n values.  coef, se (standard error), ci95 (half width of the
 * 95 % interval, Student's t with n - p degrees of freedom; NAN when n = p)
 * have @p values.  Returns 0, or -1 with errno EDOM when the columns are
 * linearly dependent (*bad_col: the first one that adds nothing) or n < p.
 */
struct profile_fit {
	int n, p, dof;
	double *coef, *se, *ci95;
	double rss;			/* sum of squared residuals */
	double residual_rms;		/* sqrt(rss / dof), NAN when dof = 0 */
	double max_residual;		/* largest |residual| */
};

int profile_lsq(const double *x, const double *y, int n, int p, struct profile_fit *fit,
		int *bad_col);
void profile_fit_free(struct profile_fit *fit);
/* The two-sided 95 % quantile of Student's t with @dof degrees of freedom. */
double profile_t95(int dof);

/*
 * A step measured twice: why, and what the first measurement said.  A
 * calibration re-measures, once, each step out of these bounds: when the
 * fit's rms residual is over PROFILE_MAX_RESIDUAL_MA, every step whose
 * own residual is over it (the worst one at least); and any step whose
 * samples spread (standard deviation) over PROFILE_MAX_SPREAD_MA; and any
 * step during which the device suspended (PROFILE_MAX_SUSPEND_S).  A
 * clean calibration on the emulator fits within 3-7 mA rms.
 */
#define PROFILE_MAX_RESIDUAL_MA	10.0
#define PROFILE_MAX_SPREAD_MA	50.0
#define PROFILE_RECHECK_RESIDUAL	(1U << 0)
#define PROFILE_RECHECK_SPREAD		(1U << 1)
/* the device suspended during the step for longer than this */
#define PROFILE_MAX_SUSPEND_S		0.1
#define PROFILE_RECHECK_SUSPEND		(1U << 2)

struct profile_recheck {
	unsigned int why;		/* PROFILE_RECHECK_*; 0: measured once */
	double first_current_ma;	/* the first measurement, discharge positive */
	double first_residual_ma;	/* its residual in the first fit */
	double first_spread_ma;
};

/*
 * The power_profile.xml keys each Android version reads
 * (com.android.internal.os.PowerProfile, docs/profile.md):
 *   5: up to 5.1 (SDK 22): cpu.speeds, cpu.active per speed, cpu.awake;
 *      cpu.idle means suspend there.  One cluster.
 *   6: 6.0 to 8.1 (SDK 23-27): cpu.clusters.cores, cpu.speeds.clusterN,
 *      cpu.active.clusterN per speed, cpu.awake; cpu.idle means suspend.
 *   9: 9 to 13 (SDK 28-33): cpu.clusters.cores, cpu.core_speeds.clusterN,
 *      cpu.core_power.clusterN, cpu.cluster_power.clusterN, cpu.idle (awake).
 *  14: 14 and later (SDK 34+): 9's keys plus cpu.scaling_policy_power.policyN
 *      and cpu.scaling_step_power.policyN, N the policy's number.
 */
enum profile_xml_format {
	PROFILE_XML_AUTO = 0,
	PROFILE_XML_5 = 5,
	PROFILE_XML_6 = 6,
	PROFILE_XML_9 = 9,
	PROFILE_XML_14 = 14,
};

/* "5", "6", "9", "14" or "auto" into @f; 0, or -1 with errno EINVAL. */
int profile_format_parse(const char *s, enum profile_xml_format *f);
/* The format Android of SDK level @sdk (>= 1) reads. */
enum profile_xml_format profile_format_for_sdk(int sdk);
/* "Android 6.0 to 8.1 (SDK 23-27)" */
const char *profile_format_describe(enum profile_xml_format f);
/*
 * ro.build.version.sdk from @sysroot/system/build.prop: the SDK level, 0
 * when there is no build.prop (not Android), or -1 with errno (EINVAL: no
 * or a bad ro.build.version.sdk; another errno: unreadable).
 */
int profile_android_sdk(const char *sysroot);
/*
 * Whether @t can be written as @f: 0, or -1 with a message in @err (the
 * format of Android 5.1 and earlier has one cluster).
 */
int profile_format_check(const struct profile_topology *t, enum profile_xml_format f,
			 char *err, size_t errlen);

/* Everything the writers need, in mA with discharge positive. */
struct profile_result {
	const struct profile_topology *topo;
	const struct profile_plan *plan;
	const struct profile_measure *measures;	/* one per step */
	const struct profile_column *cols;
	int ncols;
	const struct profile_fit *fit;	/* coefficients in the driver's uA */
	double sign;			/* -1 when the driver counts discharge negative */
	double capacity_mah;		/* <= 0: unknown */
	const char *supply;
	const struct profile_recheck *rechecks;	/* one per step, or NULL: none */
	double first_residual_rms_ma;	/* the first fit's, when steps were re-measured */
	enum profile_xml_format format;	/* of the XML; AUTO: 9 */
};

/* Step @i's measured minus modelled current, mA discharge positive. */
double profile_step_residual_ma(const struct profile_result *r, int i);
/*
 * Which steps of @r to measure again (the bounds above): their
 * PROFILE_RECHECK_* bits into @why[nsteps], 0 for the others.  Returns how
 * many steps are to be measured again.
 */
int profile_steps_to_remeasure(const struct profile_result *r, unsigned int *why);

/* A coefficient in mA, discharge positive. */
double profile_coef_ma(const struct profile_result *r, int col);
double profile_ci_ma(const struct profile_result *r, int col);
/* Index of the column of @kind for @cluster/@freq, or -1. */
int profile_find_column(const struct profile_result *r, enum profile_column_kind kind,
			int cluster, int freq);

void profile_write_table(FILE *out, const struct profile_result *r);
void profile_write_xml(FILE *out, const struct profile_result *r);
void profile_write_json(FILE *out, const struct profile_result *r);

/*
 * Pin cpufreq policies and put them back.  Each policy's governor, min and
 * max (and setspeed under userspace) are saved by profile_freq_save();
 * profile_freq_set() pins a policy through the userspace governor where it
 * has one, else through scaling_min_freq = scaling_max_freq.  All take the
 * same @sysroot as profile_topology_read.  0, or -1 with errno.
 */
struct profile_freq_saved;
struct profile_freq_saved *profile_freq_save(const char *sysroot,
					     const struct profile_topology *t);
int profile_freq_set(const char *sysroot, const struct profile_topology *t, int cluster,
		     int freq);
int profile_freq_restore(const char *sysroot, struct profile_freq_saved *saved);
void profile_freq_free(struct profile_freq_saved *saved);

/*
 * Busy and total (busy + idle) time of every CPU from @procroot/proc/stat,
 * in its ticks: busy = user + nice + system + irq + softirq, idle = idle +
 * iowait (steal is the host's).  @busy and @total hold PROFILE_MAX_CPUS.
 */
int profile_cpu_times(const char *procroot, uint64_t *busy, uint64_t *total);
/*
 * Busy CPU-equivalents of each cluster between two readings: a CPU's busy
 * time over the mean accounted time of all online CPUs, summed per cluster.
 */
void profile_cluster_busy(const struct profile_topology *t, const uint64_t *busy0,
			  const uint64_t *total0, const uint64_t *busy1,
			  const uint64_t *total1, double *busy);

/*
 * The markers that bound each step's measured window in the capture: the
 * runner writes them to trace_marker, profile_read_capture() finds them.
 */
#define PROFILE_MARK_BEGIN	"powerpin-profile: begin "
#define PROFILE_MARK_END	"powerpin-profile: end "

/*
 * Mean current, samples and fresh samples of each of @nsteps steps from
 * the capture @path (any input trace_input_read takes): the power samples
 * between "begin N" and "end N" (N from 1) count for step N; samples the
 * sampler flagged missing, failed or not ready do not.  busy[] is left
 * alone.  Returns 0, or -1 with a message in @err (unreadable, a step
 * without samples).
 */
int profile_read_capture(const char *path, int nsteps, struct profile_measure *m,
			 char *err, size_t errlen);

/*
 * A power_profile.xml read back (report --model): the CPU items only, of
 * any Android version's keys (enum profile_xml_format), normalised to the
 * Android 9+ model.  The reader takes any AOSP file: <item name=...> and
 * <array name=...> of <value>s, comments, other items ignored; an empty
 * <value></value> or <item></item> is skipped, as PowerProfile skips it.
 */
#define PROFILE_MODEL_ALL_CPUS	65536	/* cores of 5.1's one cluster: every CPU */

struct profile_model {
	enum profile_xml_format format;		/* whose keys the file has */
	double idle_ma;		/* awake, CPUs idle: cpu.idle from 9 on, cpu.awake before */
	double suspend_ma;	/* cpu.suspend from 9 on, cpu.idle before */
	double active_ma;	/* cpu.active (9+): once while any CPU runs */
	int nclusters;
	int cores[PROFILE_MAX_CLUSTERS];
	double cluster_ma[PROFILE_MAX_CLUSTERS];	/* once while any of its cores runs */
	int nspeeds[PROFILE_MAX_CLUSTERS];
	unsigned int speeds_khz[PROFILE_MAX_CLUSTERS][PROFILE_MAX_FREQS];
	double core_ma[PROFILE_MAX_CLUSTERS][PROFILE_MAX_FREQS];	/* per busy core */
};

/*
 * Parse @text (NUL-terminated).  Returns 0, or -1 with a message in @err:
 * no <device name="Android">, a value that is not a number, no CPU power
 * keys of any version, no cpu.clusters.cores where the keys need it, or a
 * cluster without per-speed power.
 */
int profile_model_parse(const char *text, struct profile_model *m, char *err, size_t errlen);

/*
 * The current one busy CPU draws by the model, averaged over the CPUs
 * (each cluster's cores at its highest speed with a value): what a second
 * of CPU time costs when the capture does not say at which frequency.
 */
double profile_model_core_ma(const struct profile_model *m);
/* What the device draws awake with every CPU idle: suspend + idle. */
double profile_model_base_ma(const struct profile_model *m);

/*
 * A wakelock for the calibration, so that a phone with the screen off
 * does not suspend between steps (PM_AUTOSLEEP, Android): "powerpin-profile
 * TIMEOUT_NS" written to @sysroot/sys/power/wake_lock, with a timeout so
 * that a process killed outright does not keep the device awake for
 * ever; released by writing the name to wake_unlock.  hold returns 1 when
 * held, 0 when the kernel has no such file (nothing to hold), -1 with
 * errno; release 0 or -1 with errno.
 */
#define PROFILE_WAKELOCK	"powerpin-profile"
int profile_wakelock_hold(const char *sysroot, double timeout_s);
int profile_wakelock_release(const char *sysroot);

/* charge_full_design, else charge_full of @supply, in mAh; -1 if neither. */
double profile_capacity_mah(const char *sysroot, const char *supply);

#endif
