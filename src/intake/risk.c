/* SPDX-License-Identifier: ISC */
/*
 * Risk badges (docs/design.md §3): shown to the reviewer, never blocking. Each is
 * derived from the resolved executable's name, the argv and the request;
 * warrant-request(5) lists the exact rules.
 */
#include <stdlib.h>
#include <string.h>
#include <unictype.h>

#include "warrant.h"
#include "root/confine/supervise.h"

static const char *const badge_names[] = {
	"shell", "network", "package-manager", "system-path-write",
	"service-restart", "lockout-prone", "indirect-exec", "remote",
	"long-timeout", "mixed-script", "sealed-at-run", "archive-writable-dir",
	"unconfined", "world-writable", "setuid", "recursive-home-or-root",
	"system-chown", "lookalike", "rtl-text", "file-capability", "mount", "swap",
	"group-change", "privileged-group", "starts-service", "archive-setid",
	"archive-device", "archive-escape", "reads-cwd",
};

static const char *const interpreters[] = {
	"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "csh", "tcsh", "ash",
	"busybox", "python", "python2", "python3", "perl", "ruby", "node",
	"nodejs", "php", "lua", "tclsh", "awk", "gawk", "mawk", "expect", NULL
};
static const char *const network_tools[] = {
	"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat",
	"socat", "ftp", "telnet", "git", "apt", "apt-get", "aptitude", "dnf",
	"yum", "zypper", "pacman", "apk", "snap", "flatpak", "pip", "pip3",
	"npm", "npx", "yarn", "pnpm", "gem", "cargo", "go", "docker", "podman",
	NULL
};
static const char *const package_managers[] = {
	"apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "rpm", "zypper",
	"pacman", "apk", "snap", "flatpak", "pip", "pip3", "npm", "yarn", "pnpm",
	"gem", "cargo", "brew", NULL
};
/* Programs that find what they run in the directory they run in: build
 * files, task runners, test suites and their configuration (which is
 * code), the project's own scripts and dependencies. */
static const char *const cwd_readers[] = {
	"make", "gmake", "bmake", "cmake", "ctest", "ninja", "meson", "scons",
	"bazel", "bazelisk", "just", "npm", "npx", "yarn", "pnpm", "bun", "deno",
	"cargo", "go", "pytest", "py.test", "tox", "nox", "poetry", "pipenv",
	"uv", "pdm", "hatch", "gradle", "mvn", "ant", "sbt", "lein", "rake",
	"bundle", "rails", "rspec", "composer", "phpunit", "mix", "rebar3",
	"dotnet", "swift", "zig", "cabal", "stack", "dune", "jest", "vitest",
	"mocha", "eslint", "prettier", "webpack", "vite", NULL
};
static const char *const pythons[] = {
	"python", "python2", "python3", NULL
};
static const char *const writers[] = {
	"install", "cp", "mv", "rm", "ln", "tee", "chmod", "chown", "chgrp",
	"mkdir", "rmdir", "touch", "truncate", "dd", "sed", "rsync", "tar",
	"unzip", "patch", "shred", "setfacl", "chattr", "visudo", "update-alternatives",
	NULL
};
static const char *const system_dirs[] = {
	"/etc", "/usr", "/boot", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
	"/libx32", "/opt", "/var/lib", "/root", "/srv", NULL
};
static const char *const service_verbs[] = {
	"restart", "reload", "stop", "start", "kill", "try-restart",
	"reload-or-restart", "try-reload-or-restart", "isolate", "reboot",
	"poweroff", "halt", "mask", "disable", NULL
};
static const char *const lockout_units[] = {
	"ssh", "sshd", "tailscaled", NULL
};
/* What starts a service, now or at boot: systemctl's verbs, and those
 * of service, rc-service, invoke-rc.d and the init scripts. */
static const char *const systemctl_starts[] = {
	"start", "restart", "try-restart", "reload-or-restart", "try-reload-or-restart",
	"force-reload", "condrestart", "isolate", "enable", "reenable", NULL
};
static const char *const init_starts[] = {
	"start", "restart", "try-restart", "force-reload", "condrestart", NULL
};
static const char *const init_tools[] = {
	"service", "rc-service", "invoke-rc.d", NULL
};
/* Groups whose members are root in all but name, or read or change what
 * root guards: disks, logs, password hashes, containers and VMs run by
 * root, /usr/local (staff), every keystroke (input). */
static const char *const privileged_groups[] = {
	"root", "sudo", "wheel", "admin", "adm", "disk", "shadow", "docker", "lxd",
	"incus-admin", "libvirt", "kvm", "systemd-journal", "staff", "src", "input",
	NULL
};

static int
listed(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* "python3.11" and "pip3.11" count as python3 and pip3. */
static int
listed_versioned(const char *const *list, const char *name)
{
	char base[64];
	size_t n = strcspn(name, ".");

	if (listed(list, name))
		return 1;
	if (n == 0 || n >= sizeof base)
		return 0;
	memcpy(base, name, n);
	base[n] = '\0';
	return listed(list, base);
}

static int
under_system_dir(const char *arg)
{
	const char *const *d;
	size_t n;

	for (d = system_dirs; *d != NULL; d++) {
		n = strlen(*d);
		if (strncmp(arg, *d, n) == 0 && (arg[n] == '\0' || arg[n] == '/'))
			return 1;
	}
	return 0;
}

static int
unit_matches(const char *arg, const char *const *units)
{
	char name[64];
	size_t n = strcspn(arg, "@.");

	if (n == 0 || n >= sizeof name)
		return 0;
	memcpy(name, arg, n);
	name[n] = '\0';
	return listed(units, name);
}

/* Does one argument mix Latin letters with Cyrillic or Greek ones, as a
 * look-alike ("раypal", "/etc/pаsswd") would? */
static int
mixed_script(const char *a)
{
	const unsigned char *p = (const unsigned char *)a;
	const uc_script_t *sc;
	int latin = 0, other = 0;
	unsigned cp;
	size_t n;

	for (; *p != '\0'; p += n) {
		if ((n = utf8_decode(p, 4, &cp)) == 0) {	/* NUL-terminated */
			n = 1;
			continue;
		}
		if (!uc_is_alpha(cp) || (sc = uc_script(cp)) == NULL)
			continue;
		if (strcmp(sc->name, "Latin") == 0)
			latin = 1;
		else if (strcmp(sc->name, "Cyrillic") == 0 || strcmp(sc->name, "Greek") == 0)
			other = 1;
	}
	return latin && other;
}

/*
 * What mode m gives away (BADGE_WORLD_WRITABLE, BADGE_SETUID): octal
 * with the others' write bit or a set-id bit, or symbolic clauses that
 * add or set w for o or a, or s for u, g or a. No "who" counts as a
 * (chmod then spares only the umask's bits); a copy ("o=u") may copy w.
 */
static unsigned
mode_badges(const char *m)
{
	unsigned b = 0;
	const char *who;
	size_t nwho;
	char op;

	if (*m != '\0' && m[strspn(m, "01234567")] == '\0' && strlen(m) <= 5) {
		unsigned long v = strtoul(m, NULL, 8);

		return ((v & 02) ? BADGE_WORLD_WRITABLE : 0) | ((v & 06000) ? BADGE_SETUID : 0);
	}
	while (*m != '\0') {
		who = m;
		nwho = strspn(m, "ugoa");
		m += nwho;
		while (*m != '\0' && strchr("+-=", *m) != NULL) {
			op = *m++;
			if (*m != '\0' && strchr("ugo", *m) != NULL) {
				if (op != '-' && (nwho == 0 || memchr(who, 'o', nwho) ||
				    memchr(who, 'a', nwho)))
					b |= BADGE_WORLD_WRITABLE;
				m++;
				continue;
			}
			for (; *m != '\0' && strchr("rwxXst", *m) != NULL; m++) {
				if (op == '-')
					continue;
				if (*m == 'w' && (nwho == 0 || memchr(who, 'o', nwho) ||
				    memchr(who, 'a', nwho)))
					b |= BADGE_WORLD_WRITABLE;
				if (*m == 's' && (nwho == 0 || strspn(who, "o") < nwho))
					b |= BADGE_SETUID;
			}
		}
		m += strcspn(m, ",");
		if (*m == ',')
			m++;
	}
	return b;
}

/*
 * path (from cwd when relative) with ".", ".." and empty components
 * resolved by name, as "/a/b" ("/" for the root), in out.
 */
static void
path_by_name(const char *cwd, const char *path, char *out, size_t size)
{
	char full[2 * PATH_MAX + 2], *comp, *save = NULL;
	size_t n = 0, k;

	snprintf(full, sizeof full, "%s/%s", path[0] == '/' ? "" : cwd, path);
	out[0] = '\0';
	for (comp = strtok_r(full, "/", &save); comp != NULL; comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			while (n > 0 && out[--n] != '/')
				;
			out[n] = '\0';
			continue;
		}
		k = strlen(comp);
		if (n + k + 2 > size)
			break;
		out[n++] = '/';
		memcpy(out + n, comp, k + 1);
		n += k;
	}
	if (n == 0)
		snprintf(out, size, "/");
}

/* The root directory, /root, /home or a directory right under /home. */
static int
home_or_root(const char *p)
{
	return strcmp(p, "/") == 0 || strcmp(p, "/root") == 0 || strcmp(p, "/home") == 0 ||
	    (strncmp(p, "/home/", 6) == 0 && strchr(p + 6, '/') == NULL);
}

/* The badges of the file tools' words (operands.c): modes that open
 * files to others, recursion over a home or /, chown of system paths. */
static unsigned
operand_badges(const struct wcommand *c)
{
	static const char *const chowners[] = { "chown", "chgrp", NULL };
	int chown = listed(chowners, base_name(c->exe.path)) ||
	    listed(chowners, base_name(c->argv[0]));
	struct operands o;
	char path[PATH_MAX];
	unsigned b = 0;
	size_t i;

	if (!argv_operands(c, &o))
		return 0;
	for (i = 1; i < c->argc; i++) {
		if (c->file != NULL && c->file[i] != NULL)
			continue;
		if (o.role[i] == ROLE_MODE)
			b |= mode_badges(c->argv[i] + o.at[i]);
		if (o.role[i] != ROLE_PATH)
			continue;
		path_by_name(c->cwd, c->argv[i] + o.at[i], path, sizeof path);
		if (o.recursive && home_or_root(path))
			b |= BADGE_RECURSIVE_HOME;
		if (chown && (strcmp(path, "/") == 0 || under_system_dir(path)))
			b |= BADGE_SYSTEM_CHOWN;
	}
	operands_free(&o);
	return b;
}

/* Is the command prog (its resolved or given basename)? */
static int
is_prog(const struct wcommand *c, const char *name)
{
	return strcmp(base_name(c->exe.path), name) == 0 ||
	    strcmp(base_name(c->argv[0]), name) == 0;
}

/* Does a name one of the long options names, by prefix? */
static int
abbrev_listed(const char *a, const char *const *names)
{
	for (; *names != NULL; names++)
		if (opt_abbrev(a, *names))
			return 1;
	return 0;
}

/*
 * A membership change naming groups (a "sudo,docker" list, or one): a
 * privileged group among them, or one given by number (which the reviewer
 * cannot read as a name), makes it privileged-group too.
 */
static unsigned
groups_badges(const char *list)
{
	char name[64];
	size_t n;

	for (; list != NULL && *list != '\0'; list += n + (list[n] != '\0')) {
		n = strcspn(list, ",");
		if (n == 0 || n >= sizeof name)
			continue;
		memcpy(name, list, n);
		name[n] = '\0';
		if (listed(privileged_groups, name) || strspn(name, "0123456789") == n)
			return BADGE_GROUP_CHANGE | BADGE_PRIVILEGED_GROUP;
	}
	return BADGE_GROUP_CHANGE;
}

/*
 * useradd and usermod: -G/--groups (a list) and -g/--gid (the primary
 * group), read as getopt_long does: in a cluster (-aG), joined (-Gsudo,
 * --groups=sudo) or as the next word, long names by prefix.
 */
static unsigned
user_group_badges(const struct wcommand *c)
{
	static const char takes[] = "bcdefgGklpPRsuvVwWZ";
	static const char *const long_takes[] = {
		"add-subuids", "del-subuids", "add-subgids", "del-subgids", "base-dir",
		"comment", "home-dir", "home", "expiredate", "inactive", "gid", "groups",
		"key", "login", "password", "prefix", "root", "shell", "uid",
		"selinux-user", "selinux-range", NULL
	};
	const char *a, *p, *eq, *v;
	unsigned b = 0;
	size_t i;

	for (i = 1; i < c->argc; i++) {
		a = c->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')
			continue;
		if (a[1] == '-') {
			eq = strchr(a, '=');
			v = eq != NULL ? eq + 1 : i + 1 < c->argc ? c->argv[i + 1] : NULL;
			if (opt_abbrev(a, "groups") || opt_abbrev(a, "gid"))
				b |= groups_badges(v);
			if (eq == NULL && abbrev_listed(a, long_takes))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (strchr(takes, *p) == NULL)
				continue;
			v = p[1] != '\0' ? p + 1 : i + 1 < c->argc ? c->argv[++i] : NULL;
			if (*p == 'G' || *p == 'g')
				b |= groups_badges(v);
			break;
		}
	}
	return b;
}

/*
 * Tools that add members to the group named by their last operand:
 * gpasswd -a/-M/-A, groupmod and groupadd -U. takes: the short options
 * with a value; adds: those that add members.
 */
static const struct member_tool {
	const char		 *name;
	const char		 *takes;
	const char		 *adds;
	const char *const	 *long_takes;
	const char *const	 *long_adds;
} member_tools[] = {
	{ "gpasswd", "adMAQ", "aMA",
	  (const char *const []){ "add", "delete", "members", "administrators", "root", NULL },
	  (const char *const []){ "add", "members", "administrators", NULL } },
	{ "groupmod", "gnpPRU", "U",
	  (const char *const []){ "gid", "new-name", "password", "prefix", "root", "users", NULL },
	  (const char *const []){ "users", NULL } },
	{ "groupadd", "gKpPRU", "U",
	  (const char *const []){ "gid", "key", "password", "prefix", "root", "users", NULL },
	  (const char *const []){ "users", NULL } },
};

static unsigned
member_badges(const struct wcommand *c, const struct member_tool *t)
{
	const char *a, *p, *group = NULL;
	size_t i;
	int adds = 0;

	for (i = 1; i < c->argc; i++) {
		a = c->argv[i];
		if (a[0] != '-' || a[1] == '\0') {
			group = a;
			continue;
		}
		if (a[1] == '-') {
			adds |= abbrev_listed(a, t->long_adds);
			if (strchr(a, '=') == NULL && abbrev_listed(a, t->long_takes))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			adds |= strchr(t->adds, *p) != NULL;
			if (strchr(t->takes, *p) != NULL) {
				if (p[1] == '\0')
					i++;
				break;
			}
		}
	}
	return adds ? groups_badges(group) : 0;
}

/*
 * adduser USER GROUP and addgroup USER GROUP add a user to a group;
 * adduser's --ingroup and --gid give a new user its primary group, and
 * --add-extra-groups the configured extra ones (Getopt::Long: one or two
 * dashes, names by prefix, the value joined by '=' or next).
 */
static unsigned
adduser_badges(const struct wcommand *c, int addgroup)
{
	static const char *const takes[] = {
		"home", "shell", "gecos", "comment", "ingroup", "gid", "uid", "firstuid",
		"lastuid", "firstgid", "lastgid", "conf", "key", NULL
	};
	const char *a, *eq, *v, *op[2] = { NULL, NULL };
	unsigned b = 0;
	size_t i, nop = 0;

	for (i = 1; i < c->argc; i++) {
		a = c->argv[i];
		if (a[0] != '-' || a[1] == '\0') {
			if (nop < 2)
				op[nop] = a;
			nop++;
			continue;
		}
		eq = strchr(a, '=');
		v = eq != NULL ? eq + 1 : i + 1 < c->argc ? c->argv[i + 1] : NULL;
		if (!addgroup && (opt_abbrev(a, "ingroup") || opt_abbrev(a, "gid")))
			b |= groups_badges(v);
		if (opt_abbrev(a, "add-extra-groups") || opt_abbrev(a, "add_extra_groups"))
			b |= BADGE_GROUP_CHANGE;
		if (eq == NULL && abbrev_listed(a, takes))
			i++;
	}
	if (nop == 2)
		b |= groups_badges(op[1]);
	return b;
}

/* Group membership: group-change, and privileged-group for the groups
 * that hand over root's powers. */
static unsigned
group_badges(const struct wcommand *c)
{
	size_t t;

	if (is_prog(c, "usermod") || is_prog(c, "useradd"))
		return user_group_badges(c);
	if (strcmp(base_name(c->argv[0]), "addgroup") == 0 ||
	    strcmp(base_name(c->exe.path), "addgroup") == 0)
		return adduser_badges(c, 1);
	if (is_prog(c, "adduser"))
		return adduser_badges(c, 0);
	for (t = 0; t < sizeof member_tools / sizeof member_tools[0]; t++)
		if (is_prog(c, member_tools[t].name))
			return member_badges(c, &member_tools[t]);
	return 0;
}

/* setcap with a capability clause (cap_net_raw+ep, =ep), or an extended
 * attribute that holds one (setfattr -n security.capability). */
static int
grants_capability(const struct wcommand *c)
{
	size_t i;

	for (i = 1; i < c->argc; i++) {
		if (is_prog(c, "setcap") && c->argv[i][0] != '-' &&
		    strpbrk(c->argv[i], "+=") != NULL)
			return 1;
		if (is_prog(c, "setfattr") && strstr(c->argv[i], "security.capability") != NULL)
			return 1;
	}
	return 0;
}

/* mount, umount and swapon with something to act on: an operand, or
 * -a/--all (the fstab's entries); without one they only list. */
static int
acts_on_mounts(const struct wcommand *c)
{
	const char *a;
	size_t i;

	for (i = 1; i < c->argc; i++) {
		a = c->argv[i];
		if (a[0] != '-' || (a[1] == '-' ? opt_abbrev(a, "all") :
		    memchr(a + 1, 'a', strcspn(a + 1, "otpLU")) != NULL))
			return 1;
	}
	return 0;
}

/* Is a a cluster of short options with letter among them? */
static int
short_flag(const char *a, int letter)
{
	return a[0] == '-' && a[1] != '-' && memchr(a + 1, letter, strlen(a + 1)) != NULL;
}

/*
 * A service or a daemon started, now or at boot: systemctl's start verbs
 * (PID 1 starts the unit, outside the run-time supervisor), and what
 * starts one from the command itself, which keeps the supervisor's filter
 * after the batch: service, rc-service, invoke-rc.d or an init script
 * with a start verb, start-stop-daemon --start, setsid --fork.
 */
static int
starts_service(const struct wcommand *c)
{
	const char *const *verbs = NULL;
	const char *a;
	size_t i;

	if (is_prog(c, "systemctl"))
		verbs = systemctl_starts;
	else if (listed(init_tools, base_name(c->exe.path)) ||
	    listed(init_tools, base_name(c->argv[0])) ||
	    strncmp(c->exe.path, "/etc/init.d/", 12) == 0 ||
	    strncmp(c->argv[0], "/etc/init.d/", 12) == 0)
		verbs = init_starts;
	for (i = 1; i < c->argc; i++) {
		a = c->argv[i];
		if (verbs != NULL && listed(verbs, a))
			return 1;
		if (is_prog(c, "start-stop-daemon") &&
		    (strcmp(a, "--start") == 0 || short_flag(a, 'S')))
			return 1;
		if (is_prog(c, "setsid")) {
			if ((a[1] == '-' && opt_abbrev(a, "fork")) || short_flag(a, 'f'))
				return 1;
			if (a[0] != '-')
				return 0;	/* the program setsid runs, with its words */
		}
	}
	return 0;
}

/*
 * Does the command read its project from its working directory (the
 * reads-cwd badge)? A program of cwd_readers, also as a runner's
 * program (timeout 60 make), or python -m (the module is looked up in
 * the cwd first).
 */
static int
reads_cwd(const struct wcommand *c)
{
	const char *prog = base_name(c->exe.path), *given = base_name(c->argv[0]);
	size_t i;

	if (listed_versioned(cwd_readers, prog) || listed_versioned(cwd_readers, given))
		return 1;
	if (is_indirect_runner(prog) || is_indirect_runner(given))
		for (i = 1; i < c->argc; i++)
			if (listed_versioned(cwd_readers, base_name(c->argv[i])))
				return 1;
	if (listed_versioned(pythons, prog) || listed_versioned(pythons, given))
		for (i = 1; i < c->argc && c->argv[i][0] == '-'; i++)
			if (strncmp(c->argv[i], "-m", 2) == 0)
				return 1;
	return 0;
}

/* What grants privilege or outlives the batch: file capabilities,
 * mounts, swap, group membership, services. */
static unsigned
privilege_badges(const struct wcommand *c)
{
	unsigned b = group_badges(c);

	if (grants_capability(c))
		b |= BADGE_FILE_CAPABILITY;
	if ((is_prog(c, "mount") || is_prog(c, "umount")) && acts_on_mounts(c))
		b |= BADGE_MOUNT;
	if (is_prog(c, "swapon") && acts_on_mounts(c))
		b |= BADGE_SWAP;
	if (starts_service(c))
		b |= BADGE_STARTS_SERVICE;
	return b;
}

/* What a reviewer must notice in a word: mixed scripts, look-alikes of
 * option or path punctuation, right-to-left letters. */
static unsigned
text_badges(const char *w)
{
	unsigned marks = text_word_marks(w), b = 0;

	if (mixed_script(w))
		b |= BADGE_MIXED_SCRIPT;
	if (marks & TEXT_LOOKALIKE)
		b |= BADGE_LOOKALIKE;
	if (marks & TEXT_RTL)
		b |= BADGE_RTL_TEXT;
	return b;
}

unsigned
risk_command(const struct wcommand *c, const struct wrequest *q)
{
	const char *prog = base_name(c->exe.path), *given = base_name(c->argv[0]), *key;
	unsigned b = 0;
	int service = 0, lockout = 0;
	json_t *v;
	size_t i;

	if (c->command != NULL || listed_versioned(interpreters, prog) ||
	    listed_versioned(interpreters, given))
		b |= BADGE_SHELL;
	if (is_indirect_runner(prog) || is_indirect_runner(given))
		b |= BADGE_INDIRECT_EXEC;
	if (listed_versioned(package_managers, prog) || listed_versioned(package_managers, given))
		b |= BADGE_PACKAGE_MANAGER;
	if (listed_versioned(network_tools, prog) || listed_versioned(network_tools, given))
		b |= BADGE_NETWORK;
	if (reads_cwd(c))
		b |= BADGE_READS_CWD;
	for (i = 0; i < c->argc; i++)
		b |= text_badges(c->argv[i]);
	/* the cwd and env values read as paths too ("..\u2215home\u2215rev") */
	b |= text_badges(c->cwd) | text_badges(q->cwd);
	json_object_foreach(q->env, key, v)
		b |= text_badges(json_string_value(v) != NULL ? json_string_value(v) : "");
	b |= operand_badges(c);
	b |= privilege_badges(c);
	for (i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];

		if (strstr(a, "://") != NULL)
			b |= BADGE_NETWORK;
		if ((listed(writers, prog) || listed(writers, given)) && under_system_dir(a))
			b |= BADGE_SYSTEM_PATH_WRITE;
	}
	if (strcmp(prog, "systemctl") == 0 || strcmp(prog, "service") == 0 ||
	    strcmp(prog, "rc-service") == 0) {
		for (i = 1; i < c->argc; i++)
			if (listed(service_verbs, c->argv[i]))
				service = 1;
		for (i = 1; i < c->argc; i++)
			if (unit_matches(c->argv[i], lockout_units))
				lockout = 1;
	}
	if (service)
		b |= BADGE_SERVICE_RESTART;
	if (service && lockout && q->machine != NULL)
		b |= BADGE_LOCKOUT_PRONE;
	if (q->machine != NULL)
		b |= BADGE_REMOTE;
	if (c->timeout > LONG_TIMEOUT_SECONDS)
		b |= BADGE_LONG_TIMEOUT;
	if (c->sealed_at_run)
		b |= BADGE_SEALED_AT_RUN;
	for (i = 0; c->file != NULL && i < c->argc; i++) {
		const struct wfile *f = c->file[i];

		if (f == NULL)
			continue;
		if (f->archive_writable_dir)
			b |= BADGE_ARCHIVE_WRITABLE_DIR;
		if (f->archive_setid)
			b |= BADGE_ARCHIVE_SETID;
		if (f->archive_device)
			b |= BADGE_ARCHIVE_DEVICE;
		if (f->archive_escape)
			b |= BADGE_ARCHIVE_ESCAPE;
	}
	/* this host's runner would run it without its supervisor */
	if (!c->as_user && q->machine == NULL && supervise_unconfined())
		b |= BADGE_UNCONFINED;
	return b;
}

json_t *
badges_json(unsigned b)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < sizeof badge_names / sizeof badge_names[0]; i++)
		if (b & (1u << i))
			json_array_append_new(a, json_string(badge_names[i]));
	return a;
}
