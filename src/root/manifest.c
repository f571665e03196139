/* SPDX-License-Identifier: ISC */
/*
 * The manifest (docs/design.md §4): the normalised request exactly as it will run,
 * every field present (absent optional values are null), and its seal,
 * the SHA-256 of its canonical bytes.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "root.h"

/* The canonical bytes of m, with their SHA-256 in hex. */
char *
manifest_seal(const json_t *m, char hex[SHA256_HEX_LEN + 1])
{
	size_t len;
	char *bytes = canon_dump(m, &len);

	if (bytes != NULL)
		sha256_bytes(bytes, len, hex);
	return bytes;
}

/* 64 lower-case hex digits: a SHA-256 as warrant writes it. */
int
is_hex64(const char *s)
{
	size_t i;

	if (s == NULL || strlen(s) != SHA256_HEX_LEN)
		return 0;
	for (i = 0; i < SHA256_HEX_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int
is_absolute(const json_t *v)
{
	return json_is_string(v) && json_string_value(v)[0] == '/';
}

static int
is_timeout(const json_t *v)
{
	return json_is_null(v) || (json_is_integer(v) && json_integer_value(v) > 0 &&
	    json_integer_value(v) <= 86400);
}

static int __attribute__((format(printf, 3, 4)))
bad(char *why, size_t size, const char *fmt, ...);

/* The reviewed files: NAME -> {mode, sha256, size, source}; a manifest
 * from before files existed has none. */
static int
files_check(const json_t *files, char *why, size_t size)
{
	static const char *const keys[] = { "mode", "sha256", "size", "source", NULL };
	const char *name, *key;
	json_t *f, *v;
	mode_t mode;
	size_t i;

	if (files == NULL)
		return 0;
	if (!json_is_object(files) || json_object_size(files) > FILES_MAX)
		return bad(why, size, "the manifest's files are malformed");
	json_object_foreach((json_t *)files, name, f) {
		if (!id_name_ok(name) || !json_is_object(f))
			return bad(why, size, "the manifest's files are malformed");
		json_object_foreach(f, key, v) {
			for (i = 0; keys[i] != NULL && strcmp(keys[i], key) != 0; i++)
				;
			if (keys[i] == NULL)
				return bad(why, size, "file %s of the manifest has an unknown member",
				    name);
		}
		v = json_object_get(f, "source");
		if (!json_is_string(json_object_get(f, "mode")) ||
		    file_mode_parse(json_string_value(json_object_get(f, "mode")), &mode) != 0 ||
		    strlen(json_string_value(json_object_get(f, "mode"))) != 4 ||
		    !is_hex64(json_string_value(json_object_get(f, "sha256"))) ||
		    !json_is_integer(json_object_get(f, "size")) ||
		    json_integer_value(json_object_get(f, "size")) < 0 ||
		    json_integer_value(json_object_get(f, "size")) > FILE_SNAPSHOT_MAX ||
		    !(json_is_null(v) || is_absolute(v)))
			return bad(why, size, "file %s of the manifest is malformed", name);
	}
	return 0;
}

static int __attribute__((format(printf, 3, 4)))
bad(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The shape of a manifest (or a run manifest: two more members, user_env
 * and requester):
 * everything a reader of it relies on, checked before any of it is used.
 * 0, or -1 with the first problem in why.
 */
int
manifest_check(const json_t *m, char *why, size_t size)
{
	static const char *const known[] = { "schema_version", "request_id", "host", "run_as",
		"cwd", "env", "stop_on_failure", "output_to_agent", "commands", "files", "user_env",
		"requester", "machine", NULL };
	json_t *cmds = json_object_get(m, "commands"), *files = json_object_get(m, "files"),
	    *c, *v, *ue, *a;
	const char *key, *s;
	size_t i, j;

	if (!json_is_object(m))
		return bad(why, size, "the manifest is not an object");
	json_object_foreach((json_t *)m, key, v) {
		for (i = 0; known[i] != NULL && strcmp(known[i], key) != 0; i++)
			;
		if (known[i] == NULL)
			return bad(why, size, "the manifest has an unknown member");
	}
	v = json_object_get(m, "schema_version");
	if (!json_is_integer(v) || json_integer_value(v) != 1 ||
	    !json_is_string(json_object_get(m, "request_id")) ||
	    !json_is_string(json_object_get(m, "host")) ||
	    !json_is_string(json_object_get(m, "run_as")) ||
	    !is_absolute(json_object_get(m, "cwd")) ||
	    !json_is_boolean(json_object_get(m, "stop_on_failure")))
		return bad(why, size, "the manifest's header is malformed");
	s = json_string_value(json_object_get(m, "output_to_agent"));
	if (s == NULL || (strcmp(s, "none") != 0 && strcmp(s, "tail") != 0 &&
	    strcmp(s, "full") != 0))
		return bad(why, size, "the manifest's output_to_agent is malformed");
	if (!json_is_object(json_object_get(m, "env")))
		return bad(why, size, "the manifest's env is malformed");
	json_object_foreach(json_object_get(m, "env"), key, v)
		if (!json_is_string(v) || env_forbidden(key) || *key == '\0' ||
		    strchr(key, '=') != NULL)
			return bad(why, size, "the manifest's env is refused");
	ue = json_object_get(m, "user_env");
	if (ue != NULL && !json_is_null(ue)) {
		if (!json_is_array(ue))
			return bad(why, size, "the manifest's user_env is malformed");
		json_array_foreach(ue, i, v)
			if (!json_is_string(v) || strchr(json_string_value(v), '=') == NULL)
				return bad(why, size, "user_env entry %zu is malformed", i);
	}
	v = json_object_get(m, "requester");
	if (v != NULL && !json_is_null(v)) {
		json_t *g = json_object_get(v, "groups"), *x;

		if (!json_is_integer(json_object_get(v, "uid")) ||
		    json_integer_value(json_object_get(v, "uid")) <= 0 ||
		    json_integer_value(json_object_get(v, "uid")) > 0xfffffffeLL ||
		    !json_is_array(g) || json_array_size(g) > 65536)
			return bad(why, size, "the manifest's requester is malformed");
		json_array_foreach(g, i, x)
			if (!json_is_integer(x) || json_integer_value(x) < 0 ||
			    json_integer_value(x) > 0xfffffffeLL)
				return bad(why, size, "the manifest's requester is malformed");
	}
	v = json_object_get(m, "machine");
	if (v != NULL && (!json_is_object(v) || json_object_size(v) !=
	    (json_object_get(v, "sudo_user") != NULL ? 3u : 2u) ||
	    !json_is_string(json_object_get(v, "name")) ||
	    !json_is_string(json_object_get(v, "destination")) ||
	    (json_object_get(v, "sudo_user") != NULL &&
	    !json_is_string(json_object_get(v, "sudo_user")))))
		return bad(why, size, "the manifest's machine is malformed");
	if (files_check(files, why, size) != 0)
		return -1;
	if (!json_is_array(cmds) || json_array_size(cmds) == 0 || json_array_size(cmds) > 128)
		return bad(why, size, "the manifest's commands are malformed");
	json_array_foreach(cmds, i, c) {
		s = json_string_value(json_object_get(c, "as"));
		v = json_object_get(c, "argv");
		/* sealed at run time (absent before it existed): no hash yet */
		a = json_object_get(c, "sealed_at_run");
		if (a != NULL && !json_is_boolean(a))
			return bad(why, size, "command %zu of the manifest is malformed", i);
		if (!json_is_string(json_object_get(c, "id")) || s == NULL ||
		    (strcmp(s, "root") != 0 && strcmp(s, "user") != 0) ||
		    !is_absolute(json_object_get(c, "path")) ||
		    !(json_is_true(a) ? json_is_null(json_object_get(c, "executable_sha256")) :
		    is_hex64(json_string_value(json_object_get(c, "executable_sha256")))) ||
		    !json_is_string(json_object_get(c, "why")) ||
		    !(json_is_null(json_object_get(c, "cwd")) || is_absolute(json_object_get(c, "cwd"))) ||
		    !is_timeout(json_object_get(c, "timeout_seconds")) ||
		    !json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > 64)
			return bad(why, size, "command %zu of the manifest is malformed", i);
		/* an argument is a string or {"file": NAME} of a file listed */
		json_array_foreach(v, j, a)
			if (!json_is_string(a) && (j == 0 || file_ref(a) == NULL ||
			    json_object_get(files, file_ref(a)) == NULL))
				return bad(why, size, "command %zu has a malformed argument", i);
		/* a YOU command runs in its own directory: the runner needs it */
		if (strcmp(s, "user") == 0 && !is_absolute(json_object_get(c, "cwd")))
			return bad(why, size, "command %zu has no working directory", i);
	}
	return 0;
}

/*
 * The manifest in bytes (len of them) as the runner reads it: JSON with no
 * repeated key, byte for byte its own canonical form, and of the shape
 * manifest_check wants. The tree, or NULL with the problem in why.
 */
json_t *
manifest_parse(const char *bytes, size_t len, char *why, size_t size)
{
	json_t *m = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, NULL);
	char *canon;
	size_t clen;

	canon = m != NULL ? canon_dump(m, &clen) : NULL;
	if (canon == NULL || clen != len || memcmp(canon, bytes, len) != 0) {
		free(canon);
		json_decref(m);
		bad(why, size, "the manifest is not canonical JSON");
		return NULL;
	}
	free(canon);
	if (manifest_check(m, why, size) != 0) {
		json_decref(m);
		return NULL;
	}
	return m;
}

/*
 * Who asked, from a run manifest's "requester": the writer the
 * writability rules and the supervisor judge for, with every group it
 * lists (*groups, to free). Without one (a root requester, or none
 * found): uid 0, which those rules read as anyone but root.
 */
void
manifest_requester(const json_t *m, struct writer *w, gid_t **groups)
{
	json_t *rq = json_object_get(m, "requester"), *list = json_object_get(rq, "groups"), *g;
	size_t i;

	memset(w, 0, sizeof *w);
	*groups = NULL;
	if (!json_is_object(rq))
		return;
	*groups = xcalloc(json_array_size(list) + 1, sizeof **groups);
	json_array_foreach(list, i, g)
		(*groups)[i] = (gid_t)json_integer_value(g);
	w->uid = (uid_t)json_integer_value(json_object_get(rq, "uid"));
	w->groups = *groups;
	w->ngroups = (int)json_array_size(list);
}
