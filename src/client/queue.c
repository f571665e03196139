/* SPDX-License-Identifier: ISC */
/*
 * Whose queue `warrant list` and `show` look at. With --to REVIEWER or
 * WARRANT_SOCKET: the caller's own gates at that reviewer's daemon (its
 * list and show operations, which answer about the peer the kernel names
 * and nobody else), said to be theirs; a co-reviewer under the host's
 * two-person rule also sees what it may review (cosign.c). Without a
 * store of the caller's own, nothing is made for it: the answer says so
 * and names the reviewers whose daemons answer on this host (root,
 * which asks nothing of warrant, has no queue at all).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <dirent.h>
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

#define REVIEWERS_MAX	64	/* named in one note */

/* Does a daemon answer on the socket at path? (It may then refuse us.) */
static int
answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat sb;
	int fd, ok;

	if (lstat(path, &sb) != 0 || !S_ISSOCK(sb.st_mode) ||
	    (size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path) >= sizeof sa.sun_path ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "the reviewers whose daemons run on this host: …" (those this user can
 * reach), or that none does; 1 when there is one at least. */
static int
reviewers_here(FILE *fp)
{
	char *names[REVIEWERS_MAX], path[PATH_MAX];
	struct dirent *e;
	size_t n = 0, i;
	DIR *d;

	if ((d = opendir(WARRANT_RUN_DIR)) != NULL) {
		while (n < REVIEWERS_MAX && (e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' && (size_t)snprintf(path, sizeof path,
			    "%s/%s/req.sock", WARRANT_RUN_DIR, e->d_name) < sizeof path &&
			    answers(path))
				names[n++] = xstrdup(e->d_name);
		closedir(d);
	}
	if (n == 0) {
		fprintf(fp, "no reviewer's daemon answers on this host (under %s/)\n",
		    WARRANT_RUN_DIR);
		return 0;
	}
	qsort(names, n, sizeof *names, by_name);
	fputs("the reviewers whose daemons run on this host:", fp);
	for (i = 0; i < n; i++) {
		fprintf(fp, "%s ", i > 0 ? "," : "");
		text_print(fp, names[i]);
		free(names[i]);
	}
	fprintf(fp, " (their sockets: %s/REVIEWER/req.sock)\n", WARRANT_RUN_DIR);
	return 1;
}

/*
 * There is no store of this user's at dir (nothing was made): say whose
 * queue is where. root is told it has none of its own here.
 */
void
queue_none_here(FILE *fp, const char *dir)
{
	if (getuid() == 0) {
		fprintf(fp, "root has no queue of its own here: root never requested "
		    "anything on this host (no store at %s)\n", dir);
		if (reviewers_here(fp))
			fputs("each reviews their own queue as themselves (`warrant review`)\n", fp);
		return;
	}
	fprintf(fp, "no pending gates: you never requested anything here (no store at %s)\n",
	    dir);
	if (reviewers_here(fp))
		fputs("your gates at one of them: `warrant list --to REVIEWER`\n", fp);
}

/* root without a store of its own: said (queue_none_here), and 1; else 0
 * (an error opening it is left to the caller's own open to say). */
int
queue_root_has_none(void)
{
	char dir[PATH_MAX];
	struct store st;
	int rc;

	if (getuid() != 0)
		return 0;
	if ((rc = store_open_existing(&st, dir)) == 0)
		store_close(&st);
	if (rc <= 0)
		return 0;
	queue_none_here(stdout, dir);
	return 1;
}

/* Open the link to the daemon (to, or WARRANT_SOCKET) and run one
 * operation. EXIT_OK with *reply; otherwise after saying why. */
static int
queue_op(const char *to, json_t *msg, const char *what, char path[108], json_t **reply,
    struct refusal *r)
{
	struct link l;
	int rc;

	*reply = NULL;
	if (msg == NULL)
		return EXIT_INTERNAL;
	if ((rc = link_open(&l, to)) == EXIT_OK) {
		snprintf(path, 108, "%s", l.path);
		memset(r, 0, sizeof *r);
		if ((rc = link_op(&l, msg, reply, r)) == EXIT_REFUSED && what != NULL)
			refusal_print(what, r);
	}
	link_close(&l);
	json_decref(msg);
	return rc;
}

/* The gates of both lists as one array: each own gate (its review entry
 * when it has one), then the other gates to review. */
static json_t *
merged(json_t *own, const json_t *review)
{
	json_t *all = json_array(), *g, *v;
	size_t i, k;

	json_array_foreach(own, i, g) {
		json_t *mine = g;

		json_array_foreach(review, k, v)
			if (strcmp(json_str(v, "request_id"), json_str(g, "request_id")) == 0)
				mine = v;
		json_array_append(all, mine);
	}
	json_array_foreach(review, k, v)
		if (!json_is_true(json_object_get(v, "yours")))
			json_array_append(all, v);
	return all;
}

/*
 * `warrant list` through the daemon: the caller's own gates (pending, or
 * with all the latest 100), and for a co-reviewer (with to) those it may
 * review. The exit code.
 */
int
queue_list(const char *to, int all, int json)
{
	json_t *reply, *gates, *review = NULL, *g;
	struct refusal r;
	char path[108], *reviewer;
	size_t i, n;
	int rc;

	if ((rc = queue_op(to, json_pack("{s:s,s:b}", "op", "list", "all", all), "list", path,
	    &reply, &r)) != EXIT_OK)
		return rc;
	gates = json_object_get(reply, "gates");
	reviewer = text_visible(json_str(reply, "reviewer"));
	if (to != NULL && cosign_applies() && (review = cosign_list(to)) == NULL)
		rc = EXIT_REFUSED;	/* said; the own gates are shown all the same */
	if (json) {
		json_t *out = review != NULL ? merged(gates, review) : json_incref(gates);

		if (print_json(out) != 0)
			rc = EXIT_INTERNAL;
		json_decref(out);
	} else {
		n = json_array_size(gates);
		if (n == 0)
			printf("no gate of yours is %s %s's daemon (%s)\n", all ? "at" :
			    "pending at", reviewer, path);
		else
			printf("%zu gate%s of yours %s %s's daemon (%s)%s:\n", n, n > 1 ? "s" : "",
			    all ? "at" : "pending at", reviewer, path, all ? ", newest first" : "");
		json_array_foreach(gates, i, g)
			gate_print_line(stdout, g);
		if (review != NULL)
			cosign_list_print(stdout, to, review);
		if (fflush(stdout) != 0)
			rc = EXIT_INTERNAL;
	}
	free(reviewer);
	json_decref(review);
	json_decref(reply);
	return rc;
}

/*
 * `warrant show ID` through the daemon: one of the caller's own gates,
 * with its outcome once settled (as `warrant wait` gives it). Another's
 * gate is unknown_gate, unless the caller co-reviews it (with to). The
 * exit code.
 */
int
queue_show(const char *to, const char *arg, int json)
{
	json_t *reply, *g, *out;
	struct refusal r;
	char path[108];
	int rc;

	rc = queue_op(to, json_pack("{s:s,s:s}", "op", "show", "id", arg), NULL, path, &reply,
	    &r);
	if (rc == EXIT_REFUSED && strcmp(r.code, "unknown_gate") == 0 && to != NULL &&
	    cosign_applies())
		return cosign_show(to, arg, NULL, 0, json);
	if (rc == EXIT_REFUSED)
		return refusal_print("show", &r);
	if (rc != EXIT_OK)
		return rc;
	g = json_object_get(reply, "gate");
	if (json)
		rc = print_json(g) == 0 ? EXIT_OK : EXIT_INTERNAL;
	else {
		fputs("a gate of yours at ", stdout);
		text_print(stdout, json_str(reply, "reviewer"));
		printf("'s daemon (%s)\n\n", path);
		gate_print_full(stdout, g, NULL);
		if ((out = json_object_get(g, "outcome")) != NULL) {
			fputs("\noutcome: ", stdout);
			wait_print(out, 0);
		}
		rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
	}
	json_decref(reply);
	return rc;
}
