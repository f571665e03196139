/*
 * Credential shapes and environment names that steer what a program
 * loads: shared by request validation, the runner (which re-checks what
 * it is handed) and output redaction.
 */
#include <string.h>
#include <strings.h>

#include "shared.h"

static const char *const credential_words[] = {
	"password", "passwd", "passphrase", "secret", "token", NULL
};

/* Environment names that make a program load or run code chosen by
 * whoever sets them (the loader, shells, interpreters, pagers). */
static const char *const forbidden_env[] = {
	"PATH", "PYTHONPATH", "PYTHONINSPECT", "PYTHONSTARTUP", "PYTHONHOME",
	"PYTHONUSERBASE", "SUDO_ASKPASS", "SSH_ASKPASS", "BASH_ENV", "ENV",
	"SHELLOPTS", "BASHOPTS", "IFS", "PS4", "PROMPT_COMMAND", "CDPATH",
	"GLOBIGNORE", "ZDOTDIR", "SHELL", "GCONV_PATH", "GETCONF_DIR",
	"HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE", "NIS_PATH",
	"NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR", "PERL5LIB",
	"PERL5OPT", "PERLLIB", "RUBYLIB", "RUBYOPT", "NODE_OPTIONS", "NODE_PATH",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GIT_SSH",
	"GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_ASKPASS", "EDITOR", "VISUAL",
	"PAGER", "MANPAGER", "SYSTEMD_EDITOR", "SYSTEMD_PAGER", "GIT_EDITOR",
	"GIT_PAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", NULL
};
static const char *const forbidden_env_prefixes[] = {
	"LD_", "DYLD_", "SUDO_", "BASH_FUNC_", "GIT_CONFIG", NULL
};

static int
contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay != '\0'; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

/* password=, passwd=, passphrase=, secret=, token= in any case. */
int
contains_credential(const char *s)
{
	const char *const *w;
	char shape[32];

	for (w = credential_words; *w != NULL; w++) {
		snprintf(shape, sizeof shape, "%s=", *w);
		if (contains_nocase(s, shape))
			return 1;
	}
	return 0;
}

/* The credential word a name mentions (any case), or NULL. */
const char *
credential_word(const char *name)
{
	const char *const *w;

	for (w = credential_words; *w != NULL; w++)
		if (contains_nocase(name, *w))
			return *w;
	return NULL;
}

/* Names the loader, shells or interpreters act on; compared in any case. */
int
env_forbidden(const char *key)
{
	const char *const *f;

	for (f = forbidden_env; *f != NULL; f++)
		if (strcasecmp(key, *f) == 0)
			return 1;
	for (f = forbidden_env_prefixes; *f != NULL; f++)
		if (strncasecmp(key, *f, strlen(*f)) == 0)
			return 1;
	return 0;
}

/* Where a credential word ending right before in[eq] ('=') starts, at or
 * after lo; or -1. */
static long
shape_start(const char *in, size_t lo, size_t eq)
{
	const char *const *w;
	size_t k;

	for (w = credential_words; *w != NULL; w++) {
		k = strlen(*w);
		if (eq - lo >= k && strncasecmp(in + eq - k, *w, k) == 0)
			return (long)(eq - k);
	}
	return -1;
}

/*
 * Copy in to out with every "word=VALUE" credential shape replaced by
 * "[redacted]" (VALUE runs to whitespace, a quote or a separator), so the
 * result carries no credential shape. Only the '=' signs are looked at.
 * Returns the output length; out must hold twice the input.
 */
size_t
redact_credentials(const char *in, size_t n, char *out, size_t size)
{
	static const char mark[] = "[redacted]";
	size_t i = 0, o = 0, eq, upto;
	const char *p;
	long start;

	while (i < n) {
		p = memchr(in + i, '=', n - i);
		eq = p != NULL ? (size_t)(p - in) : n;
		start = p != NULL ? shape_start(in, i, eq) : -1;
		upto = start >= 0 ? (size_t)start : eq < n ? eq + 1 : n;
		if (o + (upto - i) + sizeof mark > size)
			break;
		memcpy(out + o, in + i, upto - i);
		o += upto - i;
		i = upto;
		if (start < 0)
			continue;
		memcpy(out + o, mark, sizeof mark - 1);
		o += sizeof mark - 1;
		for (i = eq + 1; i < n && strchr(" \t\r\n\"'`,;&|<>)}]", in[i]) == NULL; i++)
			;
	}
	return o;
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
