/* SPDX-License-Identifier: ISC */
/*
 * Acts a reviewer sees in a ROOT command's argv that the run-time
 * supervisor otherwise refuses (promise 8: root does not adopt the
 * requester's work): making a set-id file or giving a file capability
 * (chmod with an s, install -m 4755, setcap), making a device node
 * (mknod), giving the requester's files to another owner (chown, chgrp,
 * install -o/-g). A package manager installs what its packages hold,
 * set-id programs and device nodes included; a package the agent made
 * is a reviewed file whose members the review lists. Nothing else in a
 * command (a script's text, an archive tar unpacks) grants these.
 */
#include <stdlib.h>
#include <string.h>

#include "supervise.h"

/* Does a chmod-style mode (octal, or symbolic clauses) set a set-id bit? */
int
mode_sets_id(const char *m)
{
	const char *p;

	if (*m != '\0' && m[strspn(m, "01234567")] == '\0' && strlen(m) <= 5)
		return (strtoul(m, NULL, 8) & 06000) != 0;
	/* a clause that adds or sets s ("u+s", "g=rxs", "+s") */
	for (p = m; (p = strchr(p, 's')) != NULL; p++) {
		const char *op = p;

		while (op > m && strchr("rwxXt", op[-1]) != NULL)
			op--;
		if (op > m && (op[-1] == '+' || op[-1] == '='))
			return 1;
	}
	return 0;
}

static int
named(const char *prog, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(prog, *list) == 0)
			return 1;
	return 0;
}

/* install's options: a set-id mode (-m), an owner (-o) or group (-g);
 * a short option with a value takes the rest of its word or the next */
static unsigned
install_acts(char *const argv[])
{
	unsigned acts = 0;
	const char *a, *val;
	size_t i;

	for (i = 1; (a = argv[i]) != NULL && strcmp(a, "--") != 0; i++) {
		if (strncmp(a, "--mode=", 7) == 0 && mode_sets_id(a + 7))
			acts |= ACT_SETID;
		else if (strcmp(a, "--mode") == 0 && argv[i + 1] != NULL && mode_sets_id(argv[++i]))
			acts |= ACT_SETID;
		else if (strncmp(a, "--owner", 7) == 0 || strncmp(a, "--group", 7) == 0)
			acts |= ACT_GIVE;
		else if (a[0] == '-' && a[1] != '-')
			for (a++; *a != '\0'; a++) {
				if (strchr("gmoSt", *a) == NULL)
					continue;
				val = a[1] != '\0' ? a + 1 : argv[i + 1];
				if (a[1] == '\0' && argv[i + 1] != NULL)
					i++;
				if (*a == 'm' && val != NULL && mode_sets_id(val))
					acts |= ACT_SETID;
				if (*a == 'o' || *a == 'g')
					acts |= ACT_GIVE;
				break;
			}
	}
	return acts;
}

/* The acts argv (with the resolved program path) shows. */
unsigned
argv_acts(const char *path, char *const argv[])
{
	static const char *const packagers[] = {
		"dpkg", "apt-get", "apt", "aptitude", NULL
	};
	static const char *const chowners[] = { "chown", "chgrp", NULL };
	const char *slash = strrchr(path, '/'), *prog = slash != NULL ? slash + 1 : path;
	unsigned acts = 0;
	size_t i;

	if (named(prog, packagers))
		return ACT_SETID | ACT_DEVICE;
	if (named(prog, chowners))
		return ACT_GIVE;
	if (strcmp(prog, "mknod") == 0)
		return ACT_DEVICE;
	if (strcmp(prog, "setcap") == 0)
		return ACT_SETID;
	if (strcmp(prog, "install") == 0)
		return install_acts(argv);
	if (strcmp(prog, "chmod") == 0)
		for (i = 1; argv[i] != NULL; i++)
			if (argv[i][0] != '-' && mode_sets_id(argv[i]))
				acts |= ACT_SETID;
	return acts;
}
