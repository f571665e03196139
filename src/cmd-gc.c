/* SPDX-License-Identifier: ISC */
/*
 * warrant gc: the retention policy. Removes the run directories (and the
 * output logs in them) of settled gates older than an age, then the
 * oldest of them while all run directories together are over a size;
 * then the gates themselves settled longer ago than that age (their
 * audit events stay: gates_prune);
 * removes the blobs no gate holds any more (those of gates that ran for
 * the same age, of gates that did not run for GC_BLOB_UNRUN_HOURS at most);
 * rotates requests.jsonl past a size (one old file kept); with --vacuum
 * compacts the database. A run directory whose gate is pending, whose
 * gate has an unsettled attempt, or whose runner still holds its lock is
 * never touched. `warrant answer` runs the same pruning and rotation
 * (quietly, with the defaults) after every approval it runs. Run as
 * root, it also sends the I/O log sessions still waiting for the
 * policy's log server (logship.c).
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "warrant.h"
#include "approve/batch.h"
#include "logship/ship.h"

static int cmd_gc_exec(int, char **);

const struct cmd_entry cmd_gc_entry = {
	.name = "gc",
	.summary = "prune old settled gates and run directories, rotate requests.jsonl",
	.group = CMD_ADMIN,
	.usage = "[-n] [--vacuum] [-j] [--max-age DAYS] [--max-size MIB]",
	.help =
	"Prune settled gates, their run directories and reviewed files, rotate\n"
	"requests.jsonl.\n\n"
	"  -n, --dry-run      say what would go; change nothing\n"
	"      --vacuum       also compact the database (VACUUM)\n"
	"  -j, --json         the report as one JSON object\n"
	"      --max-age D    remove gates settled more than D days ago (default\n"
	"                     " STR(GC_MAX_AGE_DAYS) "; their audit events stay), their run\n"
	"                     directories and reviewed files\n"
	"      --max-size M   then the oldest, while all run directories take\n"
	"                     more than M MiB (default " STR(GC_MAX_RUNS_MIB) ")\n",
	.exec = cmd_gc_exec,
};

struct rundir {
	char		 name[NAME_MAX + 1];
	int64_t		 settled;
	long long	 bytes;
	int		 prunable;
	int		 pruned;
};

/* Disk use of the files under dfd (blocks), at most depth levels down;
 * blob-HEX hard links are the blob store's, not counted. */
static long long
disk_use(int dfd, int depth)
{
	struct dirent *e;
	struct stat sb;
	long long n = 0;
	DIR *d;
	int fd;

	if ((fd = dup(dfd)) < 0)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	if (fstat(dfd, &sb) == 0)
		n += (long long)sb.st_blocks * 512;	/* the directory itself */
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(sb.st_mode) && depth > 0) {
			fd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				n += disk_use(fd, depth - 1);
				close(fd);
			}
		} else if (!(S_ISREG(sb.st_mode) && sb.st_nlink > 1 &&
		    strncmp(e->d_name, "blob-", 5) == 0))
			n += (long long)sb.st_blocks * 512;
	}
	closedir(d);
	return n;
}

/* The gate id of a run directory's name (ID.XXXXXX), or -1. */
static int
run_gate(const char *name, char id[GATE_ID_LEN + 1])
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL || dot - name != GATE_ID_LEN || strncmp(name, "w-", 2) != 0)
		return -1;
	memcpy(id, name, GATE_ID_LEN);
	id[GATE_ID_LEN] = '\0';
	return 0;
}

/* Every run directory under runs_fd, judged; NULL on errors. */
static struct rundir *
scan(struct store *st, int runs_fd, size_t *count)
{
	char id[GATE_ID_LEN + 1];
	struct rundir *v = NULL, *r;
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int fd, rc;

	*count = 0;
	if ((fd = dup(runs_fd)) < 0 || (d = fdopendir(fd)) == NULL) {
		warn("%s/runs", st->dir);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strlen(e->d_name) > NAME_MAX ||
		    fstatat(runs_fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(sb.st_mode))
			continue;
		if (n == cap) {
			struct rundir *w;

			cap = cap ? cap * 2 : 64;
			if ((w = reallocarray(v, cap, sizeof *v)) == NULL)
				err(EXIT_INTERNAL, "out of memory");
			v = w;
		}
		r = &v[n++];
		memset(r, 0, sizeof *r);
		strcpy(r->name, e->d_name);
		r->settled = 0;
		rc = run_gate(r->name, id) == 0 ? gate_retention(st, id, &r->settled) : 1;
		if (rc < 0) {
			closedir(d);
			free(v);
			return NULL;
		}
		fd = openat(runs_fd, r->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			r->bytes = disk_use(fd, 2);
			r->prunable = rc == 0 && !runner_live(fd);
			close(fd);
		}
	}
	closedir(d);
	*count = n;
	return v != NULL ? v : xcalloc(1, sizeof *v);
}

static int
by_settled(const void *a, const void *b)
{
	const struct rundir *x = a, *y = b;

	return x->settled < y->settled ? -1 : x->settled > y->settled;
}

/*
 * Choose what goes: prunable run directories settled before max_age
 * seconds ago, then the oldest prunable ones while the total is over
 * max_bytes. Removes them unless dry. Totals into a JSON report.
 */
static json_t *
prune(struct store *st, int runs_fd, int64_t max_age, long long max_bytes, int dry)
{
	long long total = 0, gone = 0;
	struct rundir *v;
	size_t n, i, k = 0;
	int64_t cutoff = now_seconds() - max_age;
	json_t *names = json_array(), *rep;
	int failed = 0;

	if ((v = scan(st, runs_fd, &n)) == NULL) {
		json_decref(names);
		return NULL;
	}
	qsort(v, n, sizeof *v, by_settled);
	for (i = 0; i < n; i++)
		total += v[i].bytes;
	for (i = 0; i < n; i++)
		if (v[i].prunable && v[i].settled <= cutoff) {
			v[i].pruned = 1;
			total -= v[i].bytes;
		}
	for (i = 0; i < n && total > max_bytes; i++)
		if (v[i].prunable && !v[i].pruned) {
			v[i].pruned = 1;
			total -= v[i].bytes;
		}
	for (i = 0; i < n; i++) {
		if (!v[i].pruned)
			continue;
		if (!dry && stage_remove(runs_fd, v[i].name) != 0) {
			warn("%s/runs/%s: cannot remove it all", st->dir, v[i].name);
			failed = 1;
		}
		json_array_append_new(names, json_string(v[i].name));
		gone += v[i].bytes;
		k++;
	}
	rep = json_pack("{s:I,s:I,s:I,s:I,s:o}", "count", (json_int_t)n, "pruned",
	    (json_int_t)k, "pruned_bytes", (json_int_t)gone, "kept_bytes",
	    (json_int_t)total, "pruned_names", names);
	free(v);
	if (failed) {
		json_decref(rep);
		return NULL;
	}
	return rep;
}

static json_t *rotate_jsonl(struct store *, int);

/* The gates settled more than max_age seconds ago, removed unless dry
 * (gates_prune: after their run directories, before the blobs they held). */
static json_t *
prune_gates(struct store *st, int64_t max_age, int dry)
{
	long n;

	if (gates_prune(st, now_seconds() - max_age, dry, &n) != 0)
		return NULL;
	return json_pack("{s:I}", "pruned", (json_int_t)n);
}

/* The blobs no gate holds any more, gates settled max_age seconds ago. */
static json_t *
collect(struct store *st, int64_t max_age, int dry)
{
	int64_t now = now_seconds(), unrun = GC_BLOB_UNRUN_HOURS * 3600LL;

	return blobs_collect(st, now - max_age, now - (max_age < unrun ? max_age : unrun), dry);
}

/* The state directory's runs/, opened; -2 when there is none. */
static int
runs_open(struct store *st)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof path, "%s/runs", st->dir) >= sizeof path)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -2;
	if (fd < 0)
		warn("%s", path);
	return fd;
}

/* Prune with the default policy, quietly (after an answer settles a
 * batch); 0 or -1. */
int
gc_prune_default(struct store *st)
{
	json_t *rep, *gates, *jsonl, *blobs;
	int fd = runs_open(st), ok;

	if (fd == -2)
		return 0;
	if (fd < 0)
		return -1;
	/* one gc at a time: the lock is the runs directory's own */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return 0;
	}
	rep = prune(st, fd, GC_MAX_AGE_DAYS * 86400LL, GC_MAX_RUNS_MIB * 1048576LL, 0);
	gates = prune_gates(st, GC_MAX_AGE_DAYS * 86400LL, 0);
	jsonl = rotate_jsonl(st, 0);
	blobs = collect(st, GC_MAX_AGE_DAYS * 86400LL, 0);
	close(fd);
	ok = rep != NULL && gates != NULL && jsonl != NULL && blobs != NULL;
	json_decref(rep);
	json_decref(gates);
	json_decref(jsonl);
	json_decref(blobs);
	return ok ? 0 : -1;
}

/* requests.jsonl past GC_JSONL_MIB becomes requests.jsonl.1 (replacing
 * the older one); a writer that opened it before appends there. */
static json_t *
rotate_jsonl(struct store *st, int dry)
{
	struct stat sb;
	int dfd, rotate = 0;
	json_t *rep;

	if ((dfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		warn("%s", st->dir);
		return NULL;
	}
	if (fstatat(dfd, "requests.jsonl", &sb, AT_SYMLINK_NOFOLLOW) != 0)
		sb.st_size = 0;
	else if (S_ISREG(sb.st_mode) && sb.st_size > GC_JSONL_MIB * 1048576LL) {
		rotate = 1;
		if (!dry && renameat(dfd, "requests.jsonl", dfd, "requests.jsonl.1") != 0) {
			warn("%s/requests.jsonl", st->dir);
			close(dfd);
			return NULL;
		}
	}
	close(dfd);
	rep = json_pack("{s:I,s:b}", "bytes", (json_int_t)sb.st_size, "rotated", rotate);
	return rep;
}

/* As root, where the policy names a log server: the sessions waiting
 * for it, sent (docs/audit.md). NULL when there is nothing to do. */
static json_t *
ship_waiting(int dry)
{
	struct tp_policy p;
	char why[2048];
	size_t sent = 0, waiting = 0;
	json_t *list;
	int rc = 0;

	if (geteuid() != 0)
		return NULL;
	if (tp_policy_load(&p, why, sizeof why) != 0) {
		warnx("the host's policy is refused: %s", why);
		return NULL;
	}
	if (p.log_server.host[0] == '\0')
		return NULL;
	if (dry) {
		list = logship_waiting();
		waiting = json_array_size(list);
		json_decref(list);
	} else if ((rc = logship_flush(&p.log_server, &sent, &waiting, why, sizeof why)) != 0)
		warnx("%s", why);
	return json_pack("{s:s++,s:I,s:I,s:b}", "address", p.log_server.host, ":",
	    p.log_server.port, "shipped", (json_int_t)sent, "waiting", (json_int_t)waiting,
	    "failed", rc != 0);
}

/* The database's files on disk (database, WAL). */
static long long
db_bytes(struct store *st)
{
	char path[PATH_MAX + 8];
	struct stat sb;
	long long n = 0;

	if (stat(st->path, &sb) == 0)
		n += sb.st_size;
	snprintf(path, sizeof path, "%s-wal", st->path);
	if (stat(path, &sb) == 0)
		n += sb.st_size;
	return n;
}

static void
print_text(const json_t *rep)
{
	const json_t *r = json_object_get(rep, "run_dirs"), *j, *d, *l;
	int dry = json_is_true(json_object_get(rep, "dry_run"));

	printf("%s %lld of %lld run directories (%lld bytes); %lld bytes kept\n",
	    dry ? "would prune" : "pruned",
	    (long long)json_integer_value(json_object_get(r, "pruned")),
	    (long long)json_integer_value(json_object_get(r, "count")),
	    (long long)json_integer_value(json_object_get(r, "pruned_bytes")),
	    (long long)json_integer_value(json_object_get(r, "kept_bytes")));
	printf("%s %lld settled gates (their audit events stay)\n",
	    dry ? "would prune" : "pruned", (long long)json_integer_value(
	    json_object_get(json_object_get(rep, "gates"), "pruned")));
	j = json_object_get(rep, "blobs");
	printf("%s %lld of %lld reviewed files (%lld bytes freed); %lld bytes kept\n",
	    dry ? "would remove" : "removed",
	    (long long)json_integer_value(json_object_get(j, "removed")),
	    (long long)json_integer_value(json_object_get(j, "count")),
	    (long long)json_integer_value(json_object_get(j, "freed_bytes")),
	    (long long)json_integer_value(json_object_get(j, "kept_bytes")));
	j = json_object_get(rep, "requests_jsonl");
	if (json_is_true(json_object_get(j, "rotated")))
		printf("%s requests.jsonl (%lld bytes) to requests.jsonl.1\n",
		    dry ? "would rotate" : "rotated",
		    (long long)json_integer_value(json_object_get(j, "bytes")));
	if ((d = json_object_get(rep, "database")) != NULL)
		printf("database %lld bytes before VACUUM, %lld after\n",
		    (long long)json_integer_value(json_object_get(d, "bytes_before")),
		    (long long)json_integer_value(json_object_get(d, "bytes_after")));
	if ((l = json_object_get(rep, "log_server")) != NULL)
		printf("I/O log sessions shipped to %s: %lld; %s: %lld\n",
		    json_string_value(json_object_get(l, "address")),
		    (long long)json_integer_value(json_object_get(l, "shipped")),
		    dry ? "waiting (would be sent)" : "still waiting",
		    (long long)json_integer_value(json_object_get(l, "waiting")));
}

/* What `gc` was asked to do (gc_options). */
struct gc_args {
	long		 age;		/* days */
	long		 size;		/* MiB */
	int		 dry, vacuum, json;
};

/* The options into a: -1, or the exit status of a usage error (said
 * already). */
static int
gc_options(int argc, char **argv, struct gc_args *a)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "vacuum", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-age", required_argument, NULL, 'a' },
		{ "max-size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "nj", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			a->dry = 1;
			break;
		case 'V':
			a->vacuum = 1;
			break;
		case 'j':
			a->json = 1;
			break;
		case 'a':
			if (parse_count(optarg, 0, 36500, &a->age) != 0)
				return usage_error(&cmd_gc_entry,
				    "--max-age takes days from 0 to 36500");
			break;
		case 's':
			if (parse_count(optarg, 0, 1048576, &a->size) != 0)
				return usage_error(&cmd_gc_entry,
				    "--max-size takes MiB from 0 to 1048576");
			break;
		default:
			return usage_error(&cmd_gc_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_gc_entry, "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* Under the runs directory's lock: the run directories, the gates and
 * the blobs a's policy lets go, pruned (unless a->dry), requests.jsonl
 * rotated, the waiting I/O logs shipped; the report, or NULL after a
 * message. */
static json_t *
gc_report(struct store *st, const struct gc_args *a)
{
	json_t *runs, *gates, *jsonl, *blobs;
	int fd;

	if ((fd = runs_open(st)) == -1)
		return NULL;
	if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		warn("%s/runs", st->dir);
		close(fd);
		return NULL;
	}
	runs = fd >= 0 ? prune(st, fd, a->age * 86400LL, a->size * 1048576LL, a->dry) :
	    json_pack("{s:i,s:i,s:i,s:i,s:[]}", "count", 0, "pruned", 0, "pruned_bytes", 0,
	    "kept_bytes", 0, "pruned_names");
	gates = runs != NULL ? prune_gates(st, a->age * 86400LL, a->dry) : NULL;
	jsonl = gates != NULL ? rotate_jsonl(st, a->dry) : NULL;
	blobs = jsonl != NULL ? collect(st, a->age * 86400LL, a->dry) : NULL;
	if (fd >= 0)
		close(fd);
	if (runs == NULL || gates == NULL || jsonl == NULL || blobs == NULL) {
		json_decref(runs);
		json_decref(gates);
		json_decref(jsonl);
		return NULL;
	}
	return json_pack("{s:b,s:o,s:o,s:o,s:o,s:o*}", "dry_run", a->dry, "run_dirs", runs,
	    "gates", gates, "requests_jsonl", jsonl, "blobs", blobs, "log_server",
	    ship_waiting(a->dry));
}

/* The store's pruning by a's policy, its database compacted when asked,
 * and the report printed. */
static int
gc_run(const struct gc_args *a)
{
	json_t *rep;
	long long before;
	struct store st;
	int rc;

	/* recovery first: attempts whose executor is gone are settled */
	if (open_store_current(&st) != 0)
		return EXIT_INTERNAL;
	if ((rep = gc_report(&st, a)) == NULL) {
		store_close(&st);
		return EXIT_INTERNAL;
	}
	if (a->vacuum) {
		before = db_bytes(&st);
		if (!a->dry && store_vacuum(&st) != 0) {
			json_decref(rep);
			store_close(&st);
			return EXIT_INTERNAL;
		}
		json_object_set_new(rep, "database", json_pack("{s:I,s:I}", "bytes_before",
		    (json_int_t)before, "bytes_after", (json_int_t)db_bytes(&st)));
	}
	store_close(&st);
	if (a->json)
		rc = print_json(rep);
	else {
		print_text(rep);
		rc = fflush(stdout);
	}
	json_decref(rep);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}

static int
cmd_gc_exec(int argc, char **argv)
{
	struct gc_args a = { .age = GC_MAX_AGE_DAYS, .size = GC_MAX_RUNS_MIB };
	int rc;

	if ((rc = gc_options(argc, argv, &a)) >= 0)
		return rc;
	return gc_run(&a);
}
