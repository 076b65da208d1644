/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report/: the single pass over a trace that makes a power report, its filter,
 * energy per function from perf samples, and the writers (text, JSON, HTML, Perfetto).
 */
/*
 * Power report: statistics, energy and attribution computed from a stream of
 * trace events (trace_input.h) in one pass, in memory that depends on the
 * number of threads, slice names and counter tracks, and on capture length
 * only for the sample intervals (4 bytes each, for their exact median).
 *
 * Units inside are the trace's (uV, uA, uAh, ns); the finished report is in
 * SI units with discharge counted positive whatever the driver's convention.
 */
#ifndef POWERPIN_REPORT_H
#define POWERPIN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"
#include "trace/trace.h"
#include "report_filter.h"
#include "report_perf.h"

/* Slices open at once (all threads); more are counted as dropped. */
#define REPORT_MAX_OPEN_SLICES	4096

/*
 * The charge counter moves in steps (0.5 mAh on a MAX17042): a change of
 * fewer steps than this says too little to compare with the trapezoid.
 */
#define REPORT_MIN_CHARGE_STEPS	10

/* Why the report gives no discrepancy between the two energies, if it does not. */
enum report_charge_note {
	REPORT_CHARGE_COMPARED,		/* energy_discrepancy_pct is set */
	REPORT_CHARGE_NO_COUNTER,	/* the input has no charge counter */
	REPORT_CHARGE_UNCHANGED,	/* it never moved */
	REPORT_CHARGE_TOO_FEW_STEPS,	/* it moved fewer than REPORT_MIN_CHARGE_STEPS */
	REPORT_CHARGE_NO_ENERGY,	/* the trapezoid is 0: no percentage of it */
};

/* Plots keep this many min/max buckets; bucket width doubles as needed. */
#define REPORT_PLOT_BUCKETS	1024

/*
 * Percentiles come from histograms of REPORT_HIST_BINS bins, at these widths
 * while the values seen span less than REPORT_HIST_BINS bins (26 V, 26 A,
 * 262 W); a wider spread doubles the width as often as needed.
 */
#define REPORT_HIST_BINS	(1U << 18)
#define REPORT_VOLTAGE_RES_UV	100
#define REPORT_CURRENT_RES_UA	100
#define REPORT_POWER_RES_UW	1000

enum report_sign {
	REPORT_SIGN_AUTO,
	REPORT_SIGN_DISCHARGE_NEGATIVE,	/* MAX17042 and most mainline drivers */
	REPORT_SIGN_DISCHARGE_POSITIVE,
};

struct report_perf;
struct profile_model;
struct report_filter;

/* The order of the text summary's tables (report --sort). */
enum report_sort {
	REPORT_SORT_ENERGY,
	REPORT_SORT_CPU,		/* CPU time; slices by duration */
	REPORT_SORT_NAME,
};

/* The text summary's energy unit (report --units); mAh at the mean voltage. */
enum report_units {
	REPORT_UNITS_J,
	REPORT_UNITS_MWH,
	REPORT_UNITS_MAH,
};

/* Rows of each text table when report_options.top is 0 (report --top). */
#define REPORT_TOP_DEFAULT	10

struct report_options {
	enum report_sign sign;
	double baseline_s;		/* 0: no baseline */
	/* what is read (report_filter.h), NULL: everything */
	const struct report_filter *filter;
	/* the text summary: rows per table (0: REPORT_TOP_DEFAULT, UINT32_MAX all) */
	uint32_t top;
	enum report_sort sort;
	enum report_units units;
};

struct report_hist {
	int64_t lo, res;		/* value of bin 0's lower edge, bin width */
	uint32_t *bins;			/* REPORT_HIST_BINS */
	uint64_t n;
	double sum;
	int64_t min, max;
};

struct report_stat {
	double min, mean, p50, p95, max;
};

struct report_task {
	int pid;
	int tgid;			/* -1: unknown (process = thread) */
	char comm[32];
	uint64_t cpu_ns;
	uint64_t interval_ns;		/* CPU time in the open sample interval */
	bool touched;
	double energy;			/* raw sign, joules */
	int32_t open_top;		/* its innermost open slice (a slot of open[]), -1 */
};

struct report_process {
	/*
	 * The thread group; when tgid_known is false, the pid of a thread
	 * whose group the input does not say, shown alone as "tgid unknown"
	 * rather than guessed to lead a process of its own.
	 */
	int tgid;
	bool tgid_known;
	char comm[32];
	int threads;
	uint64_t cpu_ns;
	double energy_j;
};

struct report_slice_stat {
	char *name;
	bool marker;			/* a powerpin marker span, not an atrace slice */
	uint64_t count;
	uint64_t duration_ns;
	double energy;			/* raw sign, joules */
	uint64_t unterminated;
};

/*
 * A slice from its B to the sample after its E (when its energy is whole).
 * Open slices sit in slots of r->open (in_use); a thread's open slices are
 * a stack linked through below/above, its innermost one in its task.
 */
struct report_open_slice {
	uint64_t id;			/* 1, 2, ... in the order slices begin */
	int pid;
	uint32_t stat;			/* index into slice_stats */
	uint64_t begin_ns, end_ns;	/* end 0: still open */
	double energy;			/* raw sign, J, so far */
	bool in_use;			/* an open slot (else free) */
	bool covered;			/* energy is whole up to r->energy == mark */
	double mark;
	int32_t below, above;		/* the enclosing and enclosed open slices, -1 */
	uint32_t depth;			/* its thread's open slices it began inside */
};

struct report_counter {
	char *name;
	bool atrace;			/* C|pid|name|value (else powerpin:powerpin_counter) */
	uint64_t count;
	int64_t min, max, last;
};

struct report_bucket {
	uint32_t n;
	int64_t v_min, v_max, i_min, i_max;
	double p_min, p_max;
	double v_sum, i_sum, p_sum;
	uint64_t slice_ns;		/* time covered by atrace slices (nested ones add) */
};

/*
 * A CPU seen in the input.  Between its switches it runs one thing (a task,
 * idle, or unknown before its first switch) through whole sample intervals,
 * charged in one go from running totals (report_attr.c), so a sample costs
 * nothing per CPU that did not switch.
 */
struct report_cpu {
	int cpu;			/* its number */
	int pid;			/* running task, 0 idle, -1 unknown */
	uint64_t since_ns;		/* switched in the open interval at this time */
	bool dirty;			/* switched in the open interval */
	double mark_share;		/* cpu_share when last charged */
	uint64_t mark_ns;		/* cpu_time_ns when last charged */
	/*
	 * Before a CPU's first sched_switch its task is unknown: that time is
	 * kept here (in the open interval, and as energy of closed ones, which
	 * counts as other meanwhile) until the switch names the task as prev.
	 */
	uint64_t unknown_ns;
	uint64_t pending_ns;
	double pending_energy;
};

/* The CPU count grew past a number: CPUs below it exist from then on. */
struct report_cpu_growth {
	int nr_cpus;			/* the count from then on */
	double share;			/* cpu_share at that time */
	uint64_t time_ns;		/* cpu_time_ns at that time */
};

struct report {
	struct report_options opt;

	/* samples */
	uint64_t samples;
	uint64_t first_ns, last_ns;
	uint64_t repeated, flagged_repeated, late;
	uint64_t missing;		/* flagged: a property the supply lacks */
	uint64_t read_errors;		/* failed reads, left out of everything */
	uint64_t seq_gaps;		/* samples missing by the seq counter */
	uint64_t seq_resets;		/* seq went back: the module started again */
	uint64_t lost_events;		/* drops: max of the two counts below */
	uint64_t lost_in_stream;	/* drops flagged in the event stream */
	uint64_t lost_unknown;		/* stream drops of unknown size */
	uint64_t lost_kernel;		/* the kernel's counters in a trace.dat */
	bool have_lost_kernel;
	unsigned long cut_line;		/* text: a cut last line left out (0 none) */
	uint64_t zero_intervals;		/* samples at the previous one's time */
	uint64_t max_interval_ns;
	bool have_prev;
	/*
	 * A --from window's start between two samples: the one before it,
	 * until the first one inside gives the power at the edge
	 */
	bool edge_pending;
	uint64_t edge_at_ns, edge_from_ns;
	int64_t edge_v, edge_i;
	uint32_t window_edges;		/* edges priced (not samples) */
	int64_t prev_v, prev_i, prev_q;
	double prev_p;			/* uW */
	bool have_seq;
	uint32_t last_seq;		/* of the last sample, even a failed one */
	bool have_charge;
	int64_t first_charge, last_charge;
	uint64_t last_charge_ns;
	int64_t charge_delta_uah;	/* sum of the counter's steps, jumps left out */
	uint64_t charge_jumps;		/* steps the current cannot explain */
	uint64_t charge_step_min_uah;	/* smallest step seen (jumps left out), 0 none */
	double charge_bound_uah;	/* integral of |I| since the last counter reading */
	double voltage_int;		/* trapezoid of V over time, uV ns */
	double voltage_int_charge;	/* the same up to the last counter reading */

	struct report_hist volt, cur, pow;
	/*
	 * Every sample interval, for the exact median: those under 2^32 ns
	 * (4.3 s) in 4 bytes, the rare longer ones in 8.
	 */
	uint32_t *intervals;
	uint64_t nr_intervals, cap_intervals;
	uint64_t *long_intervals;
	uint64_t nr_long_intervals, cap_long_intervals;

	/* integrals, raw sign */
	double energy;			/* J, trapezoid of V x I */
	double charge_int_uah;		/* trapezoid of I, uAh */
	double baseline_energy;		/* J inside the baseline window */
	double baseline_time_s;

	int error;			/* the first allocation failure (ENOMEM), 0 none */

	/* attribution (report_attr.c) */
	int nr_cpus_hint;		/* from the input's header */
	int nr_cpus;			/* highest CPU seen + 1 */
	struct report_cpu *cpus;	/* the CPUs seen, in order of appearance */
	uint32_t nr_cpu_seen, cap_cpu_seen;
	uint32_t *cpu_index;		/* CPU number -> position in cpus + 1 */
	uint32_t *dirty_cpus;		/* positions in cpus switched in the open interval */
	uint32_t nr_dirty, cap_dirty;
	double cpu_share;		/* raw J one CPU busy throughout got so far */
	uint64_t cpu_time_ns;		/* sample-covered time so far */
	struct report_cpu_growth *growth;
	uint32_t nr_growth, cap_growth;
	struct report_task *tasks;
	uint32_t nr_tasks, cap_tasks;
	struct hash_index task_index;	/* pid -> tasks */
	uint32_t *touched;		/* tasks that ran in the open interval */
	uint32_t nr_touched, cap_touched;
	double interval_idle_ns;	/* idle CPU time in the open interval */
	double idle_energy, other_energy;
	uint64_t switches;

	/* slices and markers (report_slices.c) */
	struct report_slice_stat *slice_stats;
	uint32_t nr_slice_stats, cap_slice_stats;
	struct hash_index slice_index;	/* (name, marker) -> slice_stats */
	struct report_open_slice *open;	/* slots: in_use ones are open */
	uint32_t nr_open;		/* open slices (the limit counts these) */
	uint32_t nr_slots, cap_open;
	int32_t free_slot;		/* free slots, linked through below; -1 none */
	struct report_slice_ref { uint32_t slot; uint64_t id; } *begun;
	uint32_t nr_begun, cap_begun;	/* begun in the open interval */
	struct report_open_slice *closing;
	uint32_t nr_closing, cap_closing; /* ended in the open interval */
	int64_t *plot_slice_diff;	/* whole buckets under slices, as differences */
	uint64_t slices_total;
	int marker_open;		/* slot of the marker span, -1 none */
	uint64_t slices_dropped;	/* begun with REPORT_MAX_OPEN_SLICES open */
	uint64_t slice_ends_unmatched;	/* E with no open slice on that thread */
	uint64_t marks_ignored;		/* not atrace or a powerpin marker, or malformed */

	struct report_counter *counters;
	uint32_t nr_counters, cap_counters;
	struct hash_index counter_index; /* (name, atrace) -> counters */

	/*
	 * For writers that follow the report as it runs: the slice the last
	 * event began and the one it ended (ids, 0 none), and a callback as
	 * each slice or marker span is complete, its energy final.
	 */
	uint64_t next_slice_id;
	uint64_t last_begun_id, last_ended_id;
	void (*slice_done)(const struct report *r, const struct report_open_slice *o,
			   bool unterminated, void *arg);
	void *slice_done_arg;

	/* plots */
	struct report_bucket buckets[REPORT_PLOT_BUCKETS];
	uint64_t bucket_ns;

	/* finished by report_finish() */
	bool finished;
	int sign;			/* +1: raw current positive = discharge */
	const char *sign_name;
	const char *sign_method;
	double duration_s;
	double energy_j, energy_from_charge_j, discrepancy_pct;
	double mean_voltage_v;		/* time-weighted, over the charge counter's span */
	/*
	 * The counter's resolution is the smallest step it was seen to take
	 * (NAN: it never moved); charge_steps is its change in those steps,
	 * and the energy from charge is good to one step at the mean voltage.
	 */
	double charge_resolution_uah;
	double charge_steps;
	double energy_from_charge_uncertainty_j;
	enum report_charge_note charge_note;
	double baseline_w, energy_above_baseline_j;
	struct report_stat voltage_v, current_a, power_w;
	double median_interval_s;	/* exact: the middle one, or the mean of two */
	uint64_t gaps;			/* intervals over twice the median */
	struct report_process *processes;
	uint32_t nr_processes;
	uint32_t *task_order;		/* tasks by energy, descending */

	/* energy per function from perf samples (report_perf.h), or NULL */
	const struct report_perf *perf;
	/* a power_profile.xml to compare with (report --model, profile.h), or NULL */
	const struct profile_model *model;
	/*
	 * The model followed through the input (report_model.c), owned by the
	 * report: the whole capture's in the first pass (report_model_run),
	 * as far as the events fed so far in the second pass's live report.
	 */
	struct report_model_run *model_run;
};

/*
 * What the model predicts beside what was measured (report_model.c): per
 * process, its CPU time on each cluster at the frequency it ran at (from
 * power:cpu_frequency; else the highest speed) x the model's current x the
 * mean voltage; for the device, cpu.idle over the capture plus that.
 */
struct report_model_run;
/* A run over @r's finished first pass (r->model set); NULL when out of memory. */
struct report_model_run *report_model_open(const struct report *r, bool keep_series);
/* Follow one event (switches, cpu_frequency, samples); -1 when out of memory. */
int report_model_event(struct report_model_run *run, const struct trace_event *ev);
void report_model_free(struct report_model_run *run);
/* Read @path again through a run: r->model_run.  0, or -1 with a message. */
int report_model_run(struct report *r, const char *path, char *err, size_t errlen);
/* The model's power over the interval before the last sample (W), NAN before one. */
double report_model_power_w(const struct report_model_run *run);
/* Modelled energy so far (J) of first-pass process @i, and of the device. */
double report_model_process_j(const struct report_model_run *run, uint32_t i);
double report_model_device_j(const struct report_model_run *run);
/* report_model_power_w at every usable sample so far (runs that keep it). */
const float *report_model_series(const struct report_model_run *run, size_t *n);
void report_model_write_text(const struct report *r, FILE *out);
void report_model_write_json(const struct report *r, FILE *out);
/* The HTML page's model table, and the live run's series as the "pp-model" data. */
void report_model_write_html(const struct report *r, FILE *out);
void report_model_write_html_series(const struct report *live, FILE *out);

int report_init(struct report *r, const struct report_options *opt);
void report_free(struct report *r);

/* Feed events in timestamp order (trace_input_ops callbacks). */
int report_event(const struct trace_event *ev, void *r);
void report_cpus(int nr_cpus, void *r);
void report_comm(int pid, const char *comm, void *r);
void report_tgid(int pid, int tgid, void *r);
void report_kernel_lost(uint64_t lost, void *r);
extern const struct trace_input_ops report_input_ops;

/*
 * The rest of an atrace counter mark "C|tgid|name|value" after its "C|"
 * (from @s to @end): *@name and *@name_len the name, *@value the value.
 * 0, or -1 when it has no name or no value, or a value of 32 bytes or more.
 */
int report_counter_mark(const char *s, const char *end, const char **name,
			size_t *name_len, long long *value);

/*
 * Close open slices, pick the sign convention, compute the statistics.
 * Returns 0, or -1 with a message in @err (no power samples at all).
 */
int report_finish(struct report *r, char *err, size_t errlen);

/* Read @path through trace_input and finish: the whole first pass. */
int report_run(struct report *r, const char *path, char *err, size_t errlen);

/*
 * Bring every thread's, idle's and other's energy up to the last sample.
 * What runs on a CPU through whole intervals is charged lazily, when it
 * stops (report_attr.c), so a writer that reads energies while the report
 * runs calls this first; report_finish() does it at the end.  It costs one
 * step per CPU seen and per thread.
 */
void report_settle(struct report *r);

/* The task with @pid, or NULL. */
const struct report_task *report_find_task(const struct report *r, int pid);

/*
 * Energy of each of @r's processes (the finished first pass) so far in
 * @live, a report fed the same input up to some point: discharge-positive
 * joules into @out[r->nr_processes].  @map keeps which process each of
 * @live's tasks belongs to between calls (zero it first, free map->idx).
 * Returns 0, or -1 when out of memory.
 */
struct report_process_map {
	int *idx;
	uint32_t n;
};

int report_energy_by_process(const struct report *r, const struct report *live,
			     struct report_process_map *map, double *out);

/*
 * An energy that sums to zero by construction (what no one ran: the whole
 * less every part) carries the parts' rounding, 1e-13 J either side: below
 * a nanojoule, or a part in 1e12 of @total_j, it is written as exactly 0.
 */
static inline double report_energy_rounded(double j, double total_j)
{
	double floor_j = 1e-12 * (total_j < 0 ? -total_j : total_j);

	if (floor_j < 1e-9)
		floor_j = 1e-9;
	return (j < 0 ? -j : j) < floor_j ? 0.0 : j;
}

/* Normalised (discharge-positive) value helpers for writers. */
static inline double report_current_a(const struct report *r, int64_t ua)
{
	return r->sign * (double)ua * 1e-6;
}

static inline double report_power_w(const struct report *r, double raw_uw)
{
	return r->sign * raw_uw * 1e-6;
}

/*
 * powerpin:powerpin_counter tracks the sampler writes beside powerpin:powerpin_battery
 * (voltage_uv, current_ua, ...): the same values in raw sign, which the
 * trace outputs leave out.
 */
bool report_battery_counter(const char *track);

/*
 * A counter's min, max and last in the report's sign convention: the
 * powerpin:powerpin_counter tracks that repeat a signed battery field (current_ua,
 * current_avg_ua, power_uw) count discharge as positive like every other
 * figure.  Returns true for those (the writers say so beside the name).
 */
bool report_counter_values(const struct report *r, const struct report_counter *c,
			   int64_t *min, int64_t *max, int64_t *last);

/*
 * Why there is no discrepancy, in words every writer can show (empty when
 * there is one): "the charge counter moved 1 step of 500 uAh (fewer than
 * 10): too coarse to compare", and so on.  Returns @buf.
 */
const char *report_charge_note_text(const struct report *r, char *buf, size_t len);

/* Writers (report_out.c).  Each returns 0 or -1 with errno set. */
int report_write_text(const struct report *r, FILE *out);
int report_write_json(const struct report *r, FILE *out);
int report_write_processes_csv(const struct report *r, FILE *out);
/* One row per thread (by energy), one per slice or marker name. */
int report_write_threads_csv(const struct report *r, FILE *out);
int report_write_slices_csv(const struct report *r, FILE *out);

/*
 * The per-sample outputs (report_samples.c), written in a second pass over
 * @path now that the sign is known; any of them may be NULL.  The library
 * writes to the streams it is given and decides nothing about files.
 */
struct report_outputs {
	FILE *csv;		/* one row per sample */
	FILE *chrome_json;	/* Chrome JSON trace events */
	FILE *perfetto;		/* Perfetto protobuf trace */
	FILE *html;		/* the interactive page */
	const char *title;	/* the page's: the input as the user named it */
	/* the outputs' names in messages (NULL: the kind of output alone) */
	const char *csv_name, *chrome_json_name, *perfetto_name, *html_name;
	/* where a warning about an output goes, one line each (NULL: stderr) */
	FILE *warnings;
};

int report_write_outputs(const struct report *r, const char *path,
			 const struct report_outputs *out, char *err, size_t errlen);

/* The HTML page (report_html.c), driven by report_write_outputs(). */
struct html_writer;
struct html_writer *html_open(const struct report *r, const char *title, FILE *out);
void html_event(struct html_writer *w, struct report *live, const struct trace_event *ev);
void html_slice_done(struct html_writer *w, const struct report *live,
		     const struct report_open_slice *o, bool marker);
int html_close(struct html_writer *w, struct report *live);
void html_free(struct html_writer *w);

/* The Perfetto writer (report_perfetto.c), driven by report_write_outputs(). */
struct pf_writer;
struct pf_writer *pf_open(const struct report *r, FILE *out);
void pf_clock(struct pf_writer *w, const struct trace_clock_info *clock);
/* The capture's kernel: its release decides prev_state's bits (report_perfetto.c). */
void pf_kernel(struct pf_writer *w, const struct trace_kernel_info *kernel);
int pf_event(struct pf_writer *w, struct report *live, const struct trace_event *ev);
void pf_slice_done(struct pf_writer *w, const struct report_open_slice *o, bool marker,
		   bool unterminated);
int pf_close(struct pf_writer *w, struct report *live);
/* Events left out for a CPU numbered PF_MAX_CPU (1024) or more: Perfetto refuses those. */
uint64_t pf_dropped_cpu_events(const struct pf_writer *w);
void pf_free(struct pf_writer *w);

/*
 * Every writer above, by name, behind one signature (report_writers.c):
 * @path is the input as read (the per-sample writers read it again), @name
 * the input as the user named it (titles).  Returns 0, or -1 with errno and,
 * for an input error, a message in @err.  The table ends with a NULL name;
 * a new writer joins everything that walks it with one line there.
 */
struct report_writer {
	const char *name;
	int (*write)(const struct report *r, const char *path, const char *name,
		     FILE *out, char *err, size_t errlen);
};
extern const struct report_writer report_writers[];

#endif
