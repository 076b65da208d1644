// SPDX-License-Identifier: GPL-2.0
/*
 * report --model: what a power_profile.xml predicts beside what the capture
 * measured.  As BatteryStats charges an app for its CPU time, a process's
 * modelled energy is its CPU time x the model's current for one busy CPU x
 * the capture's mean voltage; the device's is cpu.idle over the whole
 * capture plus every process's.  The capture does not say at which
 * frequency a process ran, so a CPU second costs the model's current at
 * each cluster's highest speed, averaged over the CPUs (an upper bound
 * where there is more than one speed).  docs/profile.md.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "report.h"
#include "util.h"

#define MODEL_TEXT_TOP	20

static double process_model_j(const struct report *r, const struct report_process *p)
{
	return (double)p->cpu_ns / 1e9 * profile_model_core_ma(r->model) / 1000 *
	       r->voltage_v.mean;
}

/* cpu.idle over the capture plus every process's CPU time. */
static double device_model_j(const struct report *r)
{
	double j = r->duration_s * r->model->idle_ma / 1000 * r->voltage_v.mean;
	uint32_t i;

	for (i = 0; i < r->nr_processes; i++)
		j += process_model_j(r, &r->processes[i]);
	return j;
}

void report_model_write_text(const struct report *r, FILE *out)
{
	uint32_t i;

	fprintf(out, "\nmodel (power_profile.xml): %.1f mA per busy CPU, cpu.idle %.1f mA, at the mean %.3f V\n",
		profile_model_core_ma(r->model), r->model->idle_ma, r->voltage_v.mean);
	fprintf(out, "  device      %10.4f J measured, %10.4f J modelled, %+10.4f J difference\n",
		r->energy_j, device_model_j(r), r->energy_j - device_model_j(r));
	for (i = 0; i < r->nr_processes && i < MODEL_TEXT_TOP; i++) {
		const struct report_process *p = &r->processes[i];
		double model = process_model_j(r, p);

		fprintf(out, "  %10.4f J measured, %10.4f J modelled, %+10.4f J  %-16s %s %d\n",
			p->energy_j, model, p->energy_j - model, p->comm,
			p->tgid_known ? "tgid" : "tgid unknown, pid", p->tgid);
	}
	if (r->nr_processes > MODEL_TEXT_TOP)
		fprintf(out, "  (%u more processes in --json)\n", r->nr_processes - MODEL_TEXT_TOP);
}

void report_model_write_json(const struct report *r, FILE *out)
{
	uint32_t i;

	fprintf(out, "  \"model\": {\"core_ma\": %.6g, \"idle_ma\": %.6g, \"voltage_v\": %.6g, "
		"\"energy_j\": %.9g, \"measured_energy_j\": %.9g,\n    \"processes\": [",
		profile_model_core_ma(r->model), r->model->idle_ma, r->voltage_v.mean,
		device_model_j(r), r->energy_j);
	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];
		double model = process_model_j(r, p);

		if (p->tgid_known)
			fprintf(out, "%s\n      {\"tgid\": %d, \"comm\": ", i ? "," : "", p->tgid);
		else
			fprintf(out, "%s\n      {\"tgid\": null, \"pid\": %d, \"comm\": ",
				i ? "," : "", p->tgid);
		json_string(out, p->comm, sizeof(p->comm));
		fprintf(out, ", \"cpu_s\": %.9f, \"measured_j\": %.9g, \"modelled_j\": %.9g, "
			"\"difference_j\": %.9g}", (double)p->cpu_ns / 1e9, p->energy_j, model,
			p->energy_j - model);
	}
	fputs("\n    ]},\n", out);
}
