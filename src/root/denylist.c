/* SPDX-License-Identifier: ISC */
/*
 * The denylists: nested privilege tools and shells/interactive programs.
 * A program is matched by the basename of the given and the resolved path,
 * by its full path against /etc/shells, and by identity: the same inode as
 * a denylisted file, or the same content (SHA-256, compared only when the
 * sizes match) as any file named in /etc/shells or any denylisted tool on
 * the trusted path. A renamed or hard-linked copy of bash is still bash.
 * Request validation judges with it, and so does the runner, for an
 * executable sealed at run time (docs/design.md §3, "install, then use").
 */
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

static const char *const nested_tools[] = {
	"sudo", "sudoedit", "su", "doas", "pkexec", "run0", NULL
};
static const char *const interactive_tools[] = {
	"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "csh", "tcsh",
	"ash", "busybox", "toybox", "ssh", "vi", "vim", "nano", "emacs",
	"less", "more", "top", "htop", "script", NULL
};
/* Programs that execute another program named in their arguments (the
 * list is for the indirect-exec badge and YOU commands: every word of a
 * ROOT command is scanned whatever runs it, see argscan.c). */
static const char *const indirect_runners[] = {
	"env", "xargs", "nice", "nohup", "timeout", "stdbuf", "chroot",
	"setsid", "unshare", "nsenter", "flock", "watch", "script", "find",
	"ionice", "chrt", "taskset", "time", "prlimit", "setpriv", "runuser",
	"systemd-run", "strace", "ltrace", "capsh", "numactl", "cgexec",
	"firejail", "bwrap", "start-stop-daemon", "parallel", "sg", "newgrp",
	"logsave", "setarch", "linux32", "linux64", "i386", "x86_64",
	"uname26", "choom", "ssh-agent", "dbus-run-session", "dbus-launch",
	"unbuffer", "fakeroot", "fakechroot", "valgrind", "systemd-cat",
	"systemd-inhibit", "run-parts", "catchsegv", "eatmydata", "faketime",
	"torsocks", "proxychains", "proxychains4", "chronic", "ifne", "perf",
	"runcon", "aa-exec", "xvfb-run", "daemonize", "chpst", "setuidgid",
	"envdir", "softlimit", "setlock", "rlwrap", "nocache", "trickle",
	"authbind", "sem", NULL
};
/* The dynamic loader runs the program named in its arguments. */
static const char *const loader_names[] = {
	"ld-*.so*", "ld.so*", "ld64.so*", NULL
};
static const char *const loader_globs[] = {
	"/lib/ld-*.so*", "/lib64/ld-*.so*", "/lib32/ld-*.so*", "/libx32/ld-*.so*",
	"/lib/*-linux-*/ld-*.so*", "/usr/lib/ld-*.so*", "/usr/lib64/ld-*.so*",
	"/usr/lib/*-linux-*/ld-*.so*", "/lib/ld.so*", NULL
};
#define LOADER_GLOBS	(sizeof loader_globs / sizeof loader_globs[0] - 1)

#define MAX_KNOWN	96
#define MAX_SHELLS	48

struct known {
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	enum deny_kind	 kind;
	int		 loader;	/* the dynamic loader, not a denied tool */
	char		 path[PATH_MAX];
	char		 sha256[SHA256_HEX_LEN + 1];	/* "" until needed */
};

/* Loaded for one validation: the files change while a daemon runs. */
struct denylist {
	struct known	 known[MAX_KNOWN];
	size_t		 nknown;
	char		 shells[MAX_SHELLS][PATH_MAX];
	size_t		 nshells;
};

static int
in_list(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

static int
is_loader_name(const char *name)
{
	const char *const *l;

	for (l = loader_names; *l != NULL; l++)
		if (fnmatch(*l, base_name(name), 0) == 0)
			return 1;
	return 0;
}

int
is_indirect_runner(const char *name)
{
	return in_list(indirect_runners, base_name(name)) || is_loader_name(name);
}

static void
add_known(struct denylist *d, const char *path, enum deny_kind kind, int loader)
{
	struct known *known = d->known;
	char real[PATH_MAX];
	struct stat st;
	size_t i;

	if (d->nknown == MAX_KNOWN || realpath(path, real) == NULL ||
	    stat(real, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	for (i = 0; i < d->nknown; i++)
		if (known[i].dev == st.st_dev && known[i].ino == st.st_ino) {
			if (kind == DENY_NESTED)
				known[i].kind = kind;
			return;
		}
	known[d->nknown].loader = loader;
	known[d->nknown].dev = st.st_dev;
	known[d->nknown].ino = st.st_ino;
	known[d->nknown].size = st.st_size;
	known[d->nknown].kind = kind;
	strcpy(known[d->nknown].path, real);
	known[d->nknown].sha256[0] = '\0';
	d->nknown++;
}

/* A glob pattern with its fixed leading directory resolved (realpath):
 * "/lib/ld-*.so*" is "/usr/lib/ld-*.so*" where /lib links to usr/lib. */
static int
real_pattern(const char *glob_pat, char *out, size_t size)
{
	char dir[PATH_MAX], real[PATH_MAX];
	size_t k = strcspn(glob_pat, "*?[");

	while (k > 0 && glob_pat[k - 1] != '/')
		k--;
	if (k < 2 || k - 1 >= sizeof dir)
		return -1;
	memcpy(dir, glob_pat, k - 1);
	dir[k - 1] = '\0';
	if (realpath(dir, real) == NULL)
		return -1;
	return (size_t)snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real,
	    glob_pat + k) < size ? 0 : -1;
}

/* /etc/shells, the denylisted tools on the trusted path and the dynamic
 * loaders, as they are now. */
struct denylist *
denylist_load(void)
{
	char line[PATH_MAX], found[PATH_MAX], pat[LOADER_GLOBS][PATH_MAX];
	struct denylist *d = xcalloc(1, sizeof *d);
	struct trusted_path tp;
	size_t npat = 0;
	const char *const *t;
	glob_t g;
	FILE *fp;
	size_t n;

	if ((fp = fopen("/etc/shells", "re")) != NULL) {
		while (fgets(line, sizeof line, fp) != NULL && d->nshells < MAX_SHELLS) {
			n = strcspn(line, " \t\r\n#");
			line[n] = '\0';
			if (line[0] != '/')
				continue;
			strcpy(d->shells[d->nshells++], line);
			add_known(d, line, DENY_INTERACTIVE, 0);
		}
		fclose(fp);
	}
	trusted_path_load(&tp);
	for (t = nested_tools; *t != NULL; t++)
		if (exe_lookup_in(&tp, *t, found, sizeof found) == 0)
			add_known(d, found, DENY_NESTED, 0);
	for (t = interactive_tools; *t != NULL; t++)
		if (exe_lookup_in(&tp, *t, found, sizeof found) == 0)
			add_known(d, found, DENY_INTERACTIVE, 0);
	for (t = loader_globs; *t != NULL; t++) {
		/*
		 * Each real directory read once: /lib, /lib64 and /lib32 are
		 * links into /usr on a merged /usr, and reading a directory of
		 * a thousand libraries is the dearest step of a request.
		 */
		if (real_pattern(*t, pat[npat], sizeof pat[npat]) != 0)
			continue;
		for (n = 0; n < npat; n++)
			if (strcmp(pat[n], pat[npat]) == 0)
				break;
		if (n < npat)
			continue;
		if (glob(pat[npat++], GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (n = 0; n < g.gl_pathc; n++)
			add_known(d, g.gl_pathv[n], DENY_NONE, 1);
		globfree(&g);
	}
	return d;
}

void
denylist_free(struct denylist *d)
{
	free(d);
}

/* By name: a basename on the lists, or the basename of a /etc/shells entry. */
enum deny_kind
deny_by_name(const struct denylist *d, const char *name)
{
	const char *b = base_name(name);
	size_t i;

	if (in_list(nested_tools, b))
		return DENY_NESTED;
	if (in_list(interactive_tools, b))
		return DENY_INTERACTIVE;
	for (i = 0; i < d->nshells; i++)
		if (strcmp(d->shells[i], name) == 0 || strcmp(base_name(d->shells[i]), b) == 0)
			return DENY_INTERACTIVE;
	return DENY_NONE;
}

/* By identity: same inode, or same size and content, as a known file
 * (the loaders when loader is set, the denied tools otherwise).
 * sha256 is the candidate's digest, or "" to compute it from path. */
static enum deny_kind
deny_identity(struct denylist *d, const struct stat *st, const char *path,
    char sha256[SHA256_HEX_LEN + 1], int loader)
{
	struct known *known = d->known;
	struct stat kst;
	size_t i;
	int fd;

	for (i = 0; i < d->nknown; i++)
		if (known[i].loader == loader && known[i].dev == st->st_dev &&
		    known[i].ino == st->st_ino)
			return loader ? DENY_INTERACTIVE : known[i].kind;
	for (i = 0; i < d->nknown; i++) {
		if (known[i].loader != loader || known[i].size != st->st_size)
			continue;
		if (known[i].sha256[0] == '\0') {
			if ((fd = open_regular(known[i].path, &kst)) < 0)
				continue;
			if (sha256_fd(fd, known[i].sha256) != 0)
				known[i].sha256[0] = '\0';
			close(fd);
			if (known[i].sha256[0] == '\0')
				continue;
		}
		if (sha256[0] == '\0') {
			if ((fd = open_regular(path, &kst)) < 0)
				return DENY_NONE;
			if (sha256_fd(fd, sha256) != 0)
				sha256[0] = '\0';
			close(fd);
			if (sha256[0] == '\0')
				return DENY_NONE;
		}
		if (digest_equal(known[i].sha256, sha256))
			return loader ? DENY_INTERACTIVE : known[i].kind;
	}
	return DENY_NONE;
}

static enum deny_kind
worst(enum deny_kind a, enum deny_kind b)
{
	return a == DENY_NESTED || b == DENY_NESTED ? DENY_NESTED :
	    a != DENY_NONE ? a : b;
}

/* An executable given as given, resolved to path (st its stat, sha its
 * SHA-256 or "" to read it): by the names of both, and by identity. */
enum deny_kind
deny_file(struct denylist *d, const char *given, const char *path, const struct stat *st,
    const char *sha256)
{
	char sha[SHA256_HEX_LEN + 1];

	snprintf(sha, sizeof sha, "%s", sha256);
	return worst(worst(deny_by_name(d, given), deny_by_name(d, path)),
	    deny_identity(d, st, path, sha, 0));
}

/* The dynamic loader, by name or identity: an indirect runner. */
int
deny_loader_file(struct denylist *d, const char *given, const char *path,
    const struct stat *st, const char *sha256)
{
	char sha[SHA256_HEX_LEN + 1];

	if (is_loader_name(given) || is_loader_name(path))
		return 1;
	snprintf(sha, sizeof sha, "%s", sha256);
	return deny_identity(d, st, path, sha, 1) != DENY_NONE;
}

/*
 * A word from the argv of an indirect runner: denied by name, or, when it
 * names a file (absolute, or a bare name on the trusted path), by identity.
 */
enum deny_kind
deny_word(struct denylist *d, const char *word)
{
	char found[PATH_MAX], real[PATH_MAX], sha[SHA256_HEX_LEN + 1] = "";
	const char *path = word;
	enum deny_kind k;
	struct stat st;

	if (*word == '\0')
		return DENY_NONE;
	if ((k = deny_by_name(d, word)) != DENY_NONE)
		return k;
	if (word[0] != '/') {
		if (exe_lookup(word, found, sizeof found) != 0)
			return DENY_NONE;
		path = found;
	}
	if (realpath(path, real) == NULL || stat(real, &st) != 0 || !S_ISREG(st.st_mode))
		return DENY_NONE;
	if ((k = deny_by_name(d, real)) != DENY_NONE)
		return k;
	return deny_identity(d, &st, real, sha, 0);
}

/*
 * Content known by its size and SHA-256 only (a reviewed file): the same
 * content as a denied tool is that tool, and a copy of the dynamic loader
 * runs whatever it is given (refused as an interactive program).
 */
enum deny_kind
deny_content(struct denylist *d, off_t size, const char *sha256)
{
	char sha[SHA256_HEX_LEN + 1];
	struct stat st;

	memset(&st, 0, sizeof st);
	st.st_dev = (dev_t)-1;	/* the same inode as nothing */
	st.st_ino = (ino_t)-1;
	st.st_size = size;
	snprintf(sha, sizeof sha, "%s", sha256);
	return worst(deny_identity(d, &st, "", sha, 0), deny_identity(d, &st, "", sha, 1));
}

const char *
deny_code(enum deny_kind k)
{
	return k == DENY_NESTED ? "nested_privilege_tool" : "interactive_program";
}
