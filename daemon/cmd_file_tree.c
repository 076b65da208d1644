// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin file with several paths or a directory: the page-cache residency
 * of every regular file under them, one line each and a total, as fincore
 * and vmtouch give it.  Directories are walked in name order without
 * following symbolic links inside them (a path given is followed); what is
 * not a regular file is passed over.  A path that cannot be read is said on
 * stderr and the walk goes on; the status is then 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_tree.h"
#include "pin/pin.h"
#include "base/base.h"

struct tree_walk {
	const struct file_tree_opts *o;
	FILE *json;			/* the JSON goes here, NULL without */
	bool text;			/* the text lines on stdout */
	unsigned long long files, size, resident, resident_pages;
	int errors;
	int last_method;		/* to say the method when it changes; -1 none yet */
};

static void tree_size(const struct tree_walk *w, unsigned long long v, char *buf, size_t len)
{
	if (w->o->human)
		format_size_human(v, buf, len);
	else
		snprintf(buf, len, "%llu", v);
}

static void tree_line(const struct tree_walk *w, unsigned long long res,
		      unsigned long long pages, unsigned long long size, const char *name)
{
	char r[32], s[32];

	tree_size(w, res, r, sizeof(r));
	tree_size(w, size, s, sizeof(s));
	printf("%12s %10llu %12s  %s\n", r, pages, s, name);
}

static void tree_json(struct tree_walk *w, const struct probe_result *pr, const char *path)
{
	fputs(w->files ? ",\n  {\"file\": " : "\n  {\"file\": ", w->json);
	json_string(w->json, path, SIZE_MAX);
	fprintf(w->json, ", \"size\": %llu, \"resident_bytes\": %llu, \"resident_pages\": %llu, \"pages\": %llu, \"method\": \"%s\"}",
	       (unsigned long long)pr->file_size,
	       (unsigned long long)pin_ranges_bytes(&pr->resident),
	       (unsigned long long)pr->nr_resident, (unsigned long long)pr->nr_pages,
	       probe_method_name(pr->method));
}

/* One regular file: probed, its line, the totals. */
static void tree_file(struct tree_walk *w, const char *path)
{
	struct probe_result pr = { 0 };
	char err[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || probe_residency(fd, path, w->o->want, NULL, &pr, err, sizeof(err))) {
		if (fd < 0)
			fprintf(stderr, "powerpin file: %s: %s\n", path, strerror(errno));
		else
			fprintf(stderr, "powerpin file: %s\n", err);
		if (fd >= 0)
			close(fd);
		w->errors++;
		return;
	}
	close(fd);
	if (w->last_method != (int)pr.method || w->o->verbose)
		fprintf(stderr, "powerpin file: %s: residency via %s%s%s%s\n", path,
			probe_method_name(pr.method), pr.fallback_reason[0] ? " (" : "",
			pr.fallback_reason, pr.fallback_reason[0] ? ")" : "");
	w->last_method = (int)pr.method;
	if (w->json)
		tree_json(w, &pr, path);
	if (w->text)
		tree_line(w, pin_ranges_bytes(&pr.resident), pr.nr_resident, pr.file_size, path);
	w->files++;
	w->size += pr.file_size;
	w->resident += pin_ranges_bytes(&pr.resident);
	w->resident_pages += pr.nr_resident;
	probe_result_free(&pr);
}

static void tree_path(struct tree_walk *w, const char *path, bool given);

/* A directory's entries, in name order. */
static void tree_dir(struct tree_walk *w, const char *path)
{
	struct dirent **names;
	int i, n = scandir(path, &names, NULL, alphasort);
	char *sub;

	if (n < 0) {
		fprintf(stderr, "powerpin file: %s: %s\n", path, strerror(errno));
		w->errors++;
		return;
	}
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (strcmp(name, ".") && strcmp(name, "..")) {
			if (asprintf(&sub, "%s%s%s", path,
				     path[strlen(path) - 1] == '/' ? "" : "/", name) < 0) {
				fprintf(stderr, "powerpin file: %s\n", strerror(ENOMEM));
				w->errors++;
			} else {
				tree_path(w, sub, false);
				free(sub);
			}
		}
		free(names[i]);
	}
	free(names);
}

/* A path given (followed if a link) or found in a directory (not followed). */
static void tree_path(struct tree_walk *w, const char *path, bool given)
{
	struct stat st;

	if ((given ? stat(path, &st) : lstat(path, &st))) {
		fprintf(stderr, "powerpin file: %s: %s\n", path, strerror(errno));
		w->errors++;
	} else if (S_ISDIR(st.st_mode)) {
		tree_dir(w, path);
	} else if (S_ISREG(st.st_mode)) {
		tree_file(w, path);
	} else if (given) {
		fprintf(stderr, "powerpin file: %s: not a regular file or a directory\n", path);
		w->errors++;
	}
}

int file_tree(char *const *paths, int nr, const struct file_tree_opts *o)
{
	struct tree_walk w = { .o = o, .last_method = -1, .text = true };
	struct output_file jf;
	int i, ret;

	if (o->json) {
		for (i = 0; i < nr; i++)
			if (output_add_input(paths[i])) {
				fprintf(stderr, "powerpin file: %s\n", strerror(errno));
				return 1;
			}
		ret = json_output_check("powerpin file", o->json);
		if (ret)
			return ret;
		if (json_output_open("powerpin file", o->json, &jf))
			return 1;
		w.json = jf.fp;
		w.text = !jf.is_stdout;
		fputs("{\"files\": [", w.json);
	}
	if (w.text)
		printf("%12s %10s %12s  %s\n", "RES", "PAGES", "SIZE", "FILE");
	for (i = 0; i < nr; i++)
		tree_path(&w, paths[i], true);
	if (w.json)
		fprintf(w.json, "\n], \"total\": {\"files\": %llu, \"size\": %llu, \"resident_bytes\": %llu, \"resident_pages\": %llu}, \"errors\": %d}\n",
			w.files, w.size, w.resident, w.resident_pages, w.errors);
	if (w.text && w.files > 1)
		tree_line(&w, w.resident, w.resident_pages, w.size, "total");
	if (w.json && json_output_commit("powerpin file", &jf))
		return 1;
	if (flush_stdout())
		return 1;
	return w.errors ? 1 : 0;
}
