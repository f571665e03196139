/* SPDX-License-Identifier: ISC */
/*
 * The pure rules of warrant box: the user name sanitizer, the password
 * bounds, the paths that may go into /etc/passwd, the drop-in text and
 * shell quoting. No I/O here, so tests/unit/test-box.c covers it whole.
 */
#include <stdlib.h>
#include <string.h>

#include "warrant.h"
#include "box/box.h"

static int
name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	    c == '-';
}

/* Bytes a UTF-8 lead byte announces after itself; 0 for anything else. */
static int
utf8_follow(unsigned char c)
{
	if (c >= 0xc2 && c <= 0xdf)
		return 1;
	if (c >= 0xe0 && c <= 0xef)
		return 2;
	if (c >= 0xf0 && c <= 0xf4)
		return 3;
	return 0;
}

/*
 * The Linux name for a box user: lowercase; every character outside
 * [a-z0-9_-] becomes '-' (a UTF-8 sequence is one character, a stray byte
 * is one too); it must start with [a-z_], else 'u' is put in front; at
 * most BOX_NAME_MAX characters; empty input gives BOX_NAME_FALLBACK. The
 * result can hold neither ':' nor a newline, so it is safe in passwd,
 * group and sudoers lines.
 */
void
box_username(const char *in, char out[BOX_NAME_MAX + 1])
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = 0;
	int follow = 0;
	unsigned char c;

	if (*s == '\0') {
		strcpy(out, BOX_NAME_FALLBACK);
		return;
	}
	c = s[0];
	if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
		out[n++] = 'u';
	for (; *s != '\0' && n < BOX_NAME_MAX; s++) {
		c = *s;
		if (follow > 0 && (c & 0xc0) == 0x80) {
			follow--;	/* the rest of a character already written */
			continue;
		}
		follow = utf8_follow(c);
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		out[n++] = name_char(c) ? (char)c : '-';
	}
	out[n] = '\0';
}

/* A name box init accepts: one that is already its own sanitized form. */
int
box_name_ok(const char *name)
{
	char clean[BOX_NAME_MAX + 1];

	if (strlen(name) > BOX_NAME_MAX || *name == '\0')
		return 0;
	box_username(name, clean);
	return strcmp(clean, name) == 0;
}

/*
 * NULL when pw (len bytes, not NUL-terminated) is an acceptable password,
 * else why not. Characters are UTF-8 code points: bytes that are not
 * continuation bytes.
 */
const char *
box_password_check(const char *pw, size_t len)
{
	size_t i, chars = 0;

	if (len > BOX_PW_BYTES)
		return "it is longer than 128 characters";
	for (i = 0; i < len; i++) {
		if (pw[i] == '\0')
			return "it contains a NUL byte";
		if (pw[i] == '\n' || pw[i] == '\r')
			return "it contains a line break";
		if (((unsigned char)pw[i] & 0xc0) != 0x80)
			chars++;
	}
	if (chars < BOX_PW_MIN)
		return "it is shorter than 8 characters";
	if (chars > BOX_PW_MAX)
		return "it is longer than 128 characters";
	return NULL;
}

/*
 * NULL when path may be a home or shell field of /etc/passwd: absolute,
 * printable ASCII without ':', no '.' or '..' component, no empty
 * component or trailing slash. Else why not.
 */
const char *
box_path_check(const char *path)
{
	const char *p, *c;
	size_t n;

	if (path[0] != '/')
		return "it is not an absolute path";
	if (strlen(path) >= 256)
		return "it is longer than 255 bytes";
	for (p = path; *p != '\0'; p++) {
		if (*p < 0x20 || *p > 0x7e)
			return "it holds a control or non-ASCII character";
		if (*p == ':')
			return "it holds ':', the passwd field separator";
	}
	if (strcmp(path, "/") == 0)
		return NULL;
	for (c = path + 1; ; c += n + 1) {
		n = strcspn(c, "/");
		if (n == 0)
			return c[0] == '\0' ? "it ends with '/'" :
			    "it holds an empty component";
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return "it holds a '.' or '..' component";
		if (c[n] == '\0')
			break;
	}
	return NULL;
}

/*
 * A home box init may create and hand to the box user: a clean path under
 * BOX_HOMES ("/home/NAME", or deeper), none of whose components is hidden
 * (".ecryptfs", ".snapshots") or lost+found. Everything else is refused,
 * whatever exists there: "/" and the trees the system lives in (/etc, /usr,
 * /var, /opt, /srv, /tmp, /mnt, /media, ...) are never a home, since the
 * one-time migration chowns the whole home. What exists on disk is checked
 * by box_check_host (provision.c) and the script (script.c).
 */
const char *
box_home_check(const char *home)
{
	const char *why, *c;
	size_t n;

	if ((why = box_path_check(home)) != NULL)
		return why;
	if (strncmp(home, BOX_HOMES "/", sizeof BOX_HOMES) != 0 ||
	    home[sizeof BOX_HOMES] == '\0')
		return "a box home lies under " BOX_HOMES "/ (/, /home itself and "
		    "the system's trees such as /etc, /usr, /var, /opt, /srv or /tmp "
		    "never hold one)";
	for (c = home + sizeof BOX_HOMES; ; c += n + 1) {
		n = strcspn(c, "/");
		if (c[0] == '.')
			return "it holds a hidden component (one starting with '.')";
		if (n == 10 && strncmp(c, "lost+found", n) == 0)
			return "it holds a lost+found component";
		if (c[n] == '\0')
			break;
	}
	return NULL;
}

/* A uid or gid a box user may have: not a system id, not nobody/nogroup. */
int
box_id_ok(long id)
{
	return id >= BOX_ID_MIN && id <= BOX_ID_MAX && id != 65534 && id != 65535;
}

/*
 * The id box init gives a new account when none is given: prefer (the
 * uid, for its group) when it is not taken, else the first one not taken
 * above top (the highest id in [min, max] in use or retired), else the
 * lowest one not taken. Never useradd's own choice, the highest in use
 * plus one: after box remove that is the deleted box user's uid. -1 when
 * every id in [min, max] is taken.
 */
long
box_id_pick(long min, long max, long prefer, long top,
    int (*taken)(long, void *), void *arg)
{
	long id;

	if (prefer >= 0 && !taken(prefer, arg))
		return prefer;
	for (id = top < min ? min : top + 1; id <= max; id++)
		if (!taken(id, arg))
			return id;
	for (id = min; id <= top && id <= max; id++)
		if (!taken(id, arg))
			return id;
	return -1;
}

/* A line of /etc/login.defs setting key ("UID_MIN"): 1 with its number
 * in *out, 0 for any other line. */
int
box_login_defs_line(const char *line, const char *key, long *out)
{
	size_t n = strlen(key);
	char *end;
	long v;

	line += strspn(line, " \t");
	if (strncmp(line, key, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
		return 0;
	line += n + strspn(line + n, " \t");
	v = strtol(line, &end, 10);
	if (end == line || v < 0 || end[strspn(end, " \t\r\n")] != '\0')
		return 0;
	*out = v;
	return 1;
}

/* The drop-in granting NOPASSWD while no password is stored. */
char *
box_sudoers_text(const char *name)
{
	static const char fmt[] =
	    "# warrant box: %s may use sudo without a password while no box\n"
	    "# password is stored. Managed by `warrant box`; removed when one is.\n"
	    "%s ALL=(ALL:ALL) NOPASSWD: ALL\n";
	size_t size = sizeof fmt + 2 * strlen(name);
	char *text = xmalloc(size);

	snprintf(text, size, fmt, name, name);
	return text;
}

/* s as one single-quoted shell word. */
void
box_shell_quote(FILE *fp, const char *s)
{
	char *q = sh_quote(s);

	fputs(q, fp);
	free(q);
}

/*
 * The group of reviewer's requesters, BOX_REQ_GROUP + reviewer, into out:
 * 0, or -1 when reviewer is not a name box init would take or the group
 * name would pass groupadd's BOX_GROUP_MAX characters.
 */
int
box_req_group(const char *reviewer, char *out, size_t size)
{
	int n;

	if (!box_name_ok(reviewer) || strlen(reviewer) > BOX_REVIEWER_MAX)
		return -1;
	n = snprintf(out, size, "%s%s", BOX_REQ_GROUP, reviewer);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The tmpfiles.d entry that makes BOX_RUN_DIR/REVIEWER again at boot
 * (reviewer already passed box_req_group). */
char *
box_tmpfiles_text(const char *reviewer)
{
	static const char fmt[] =
	    "# warrant: the directory where %s's warrant serve binds its socket,\n"
	    "# open to the group %s%s (its requesters). Managed by `warrant requesters`.\n"
	    "d " BOX_RUN_DIR " 0755 root root -\n"
	    "d " BOX_RUN_DIR "/%s 2750 %s %s%s -\n";
	size_t size = sizeof fmt + 6 * strlen(reviewer) + 2 * sizeof BOX_REQ_GROUP;
	char *text = xmalloc(size);

	snprintf(text, size, fmt, reviewer, BOX_REQ_GROUP, reviewer, reviewer,
	    reviewer, BOX_REQ_GROUP, reviewer);
	return text;
}

/*
 * The rules in the output of `sudo -l -U USER` (LC_ALL=C), appended to the
 * array rules: the indented lines after "User USER may run the following
 * commands on HOST:", trimmed. Returns how many, 0 for "User USER is not
 * allowed to run sudo", or -1 when the output is neither.
 */
int
box_sudo_rules(const char *out, json_t *rules)
{
	const char *line, *end, *s;
	int in = 0, seen = 0, count = 0;
	size_t n;

	for (line = out; *line != '\0'; line = *end == '\0' ? end : end + 1) {
		end = line + strcspn(line, "\n");
		n = (size_t)(end - line);
		if (in && n > 0 && (line[0] == ' ' || line[0] == '\t')) {
			for (s = line; s < end && (*s == ' ' || *s == '\t'); s++)
				;
			if (s < end) {
				json_array_append_new(rules, json_stringn(s, (size_t)(end - s)));
				count++;
			}
			continue;
		}
		in = 0;
		if (n > 5 && strncmp(line, "User ", 5) == 0) {
			if (memmem(line, n, " is not allowed to run sudo", 27) != NULL)
				seen = 1;
			else if (memmem(line, n, " may run the following commands", 31) != NULL)
				seen = in = 1;
		}
	}
	return seen ? count : -1;
}
