/* SPDX-License-Identifier: ISC */
/*
 * Environment names that steer what a program loads: refused in requests
 * (validate.c) and refused again by the runner in what it is handed (the
 * reviewed env of ROOT commands, the YOU environment `answer` built).
 */
#include <string.h>

#include "root.h"

/* Environment names that make a program load or run code chosen by
 * whoever sets them (the loader, shells, interpreters, pagers), or read
 * its configuration, code or options from a place they name (HOME, the
 * XDG directories, git, make, tar and the compressors, pip, npm). */
static const char *const forbidden_env[] = {
	"PATH", "PYTHONPATH", "PYTHONINSPECT", "PYTHONSTARTUP", "PYTHONHOME",
	"PYTHONUSERBASE", "PYTHONBREAKPOINT", "PYTHONPYCACHEPREFIX",
	"SUDO_ASKPASS", "SSH_ASKPASS", "BASH_ENV", "ENV",
	"SHELLOPTS", "BASHOPTS", "IFS", "PS4", "PROMPT_COMMAND", "CDPATH",
	"GLOBIGNORE", "ZDOTDIR", "SHELL", "GCONV_PATH", "GETCONF_DIR",
	"HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE", "NIS_PATH",
	"NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR", "PERL5LIB",
	"PERL5OPT", "PERLLIB", "PERL5DB", "PERL_MB_OPT", "PERL_MM_OPT", "RUBYLIB",
	"RUBYOPT", "GEM_HOME", "GEM_PATH", "NODE_OPTIONS", "NODE_PATH",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"PHPRC", "PHP_INI_SCAN_DIR", "TCLLIBPATH", "EDITOR", "VISUAL",
	"PAGER", "MANPAGER", "SYSTEMD_EDITOR", "SYSTEMD_PAGER", "BROWSER",
	"LESS", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN", "INPUTRC",
	"TERMINFO", "TERMINFO_DIRS", "HOME", "MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS",
	"MAKEFILES", "TAR_OPTIONS", "GZIP", "BZIP", "BZIP2", "XZ_DEFAULTS", "XZ_OPT",
	"APT_CONFIG", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
	"WGETRC", "CURL_HOME", "GNUPGHOME", NULL
};
static const char *const forbidden_env_prefixes[] = {
	"LD_", "DYLD_", "SUDO_", "BASH_FUNC_", "GIT_", "XDG_", "PIP_",
	"NPM_CONFIG_", "LUA_", NULL
};

/* Names the loader, shells or interpreters act on; compared in any case. */
int
env_forbidden(const char *key)
{
	const char *const *f;

	for (f = forbidden_env; *f != NULL; f++)
		if (ascii_casecmp(key, *f) == 0)
			return 1;
	for (f = forbidden_env_prefixes; *f != NULL; f++)
		if (ascii_ncasecmp(key, *f, strlen(*f)) == 0)
			return 1;
	return 0;
}

/* Names that never pass into the environment of a YOU command (it runs
 * as the reviewer, whose own variables it otherwise keeps). */
int
user_env_forbidden(const char *key)
{
	static const char *const names[] = { "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "IFS",
		NULL };
	static const char *const prefixes[] = { "LD_", "DYLD_", "BASH_FUNC_", NULL };
	const char *const *f;

	for (f = names; *f != NULL; f++)
		if (strcmp(key, *f) == 0)
			return 1;
	for (f = prefixes; *f != NULL; f++)
		if (strncmp(key, *f, strlen(*f)) == 0)
			return 1;
	return 0;
}
