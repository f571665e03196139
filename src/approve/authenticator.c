/* SPDX-License-Identifier: ISC */
/*
 * `warrant answer --passkey`: the reviewer's passkey signs this very run.
 * The challenge (src/root/passkey.c: the gate, the run manifest's
 * SHA-256, the selected ids, a fresh nonce, an expiry 120 s ahead) goes
 * to the authenticator; its assertion goes into the run directory as
 * RUN_PASSKEY, and the runner, started in passkey mode, checks it as
 * root. Nothing here is trusted by the runner: a wrong assertion only
 * makes it refuse.
 *
 * The authenticator is asked with one JSON line, {rp_id, origin,
 * challenge, credential_id}, and answers with one, {authenticator_data,
 * client_data_json, signature} (base64url strings). It is:
 * - the page, through the daemon (answer --passkey-relay): standard input
 *   is a socket, the daemon's end carries the request to the page's
 *   navigator.credentials.get and its answer back;
 * - with -Dtest_hooks=true, the program $WARRANT_TEST_AUTHENTICATOR
 *   names (request on its stdin, answer on its stdout);
 * - else a security key plugged into this computer (fidokey.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"

#define AUTH_OUT_MAX	(PASSKEY_FILE_MAX)
#define AUTH_WAIT_MS	60000	/* a person touches the key meanwhile */

extern char **environ;

/* The program that stands for the authenticator, or NULL. */
static const char *
authenticator(void)
{
#if WARRANT_TEST_HOOKS
	const char *p = getenv("WARRANT_TEST_AUTHENTICATOR");

	if (p != NULL && *p == '/' && access(p, X_OK) == 0)
		return p;
#endif
	return NULL;
}

/* The reviewer's enrolled credential (its world-readable record): 0, or
 * -1 told. */
static int
reviewer_record(struct batch *b, struct passkey_cred *c)
{
	struct passwd *pw = getpwuid(getuid());
	char why[256];
	int dfd, rc;

	if (pw == NULL) {
		tell(b, "passkey_not_enrolled", "who you are is unknown; nothing ran");
		return -1;
	}
	/* believed as the runner believes it: a directory only root writes */
	if ((dfd = passkey_dir_open(WARRANT_PASSKEY_DIR, why, sizeof why)) < 0) {
		tell(b, "passkey_not_enrolled", "no passkey is enrolled here (%s); nothing ran",
		    why);
		return -1;
	}
	rc = passkey_cred_load(dfd, pw->pw_name, c, why, sizeof why);
	close(dfd);
	if (rc != 0)
		tell(b, "passkey_not_enrolled", "%s; nothing ran", why);
	return rc != 0 ? -1 : 0;
}

/* Before anything is prepared: is there an authenticator and a record?
 * 0, or -1 told. */
int
passkey_ready(struct batch *b, int root, int relay)
{
	struct passkey_cred c;

	if (!root || *json_str(b->gate, "machine") != '\0') {
		tell(b, "passkey_no_root", "--passkey approves ROOT commands of this host, and "
		    "none is selected; nothing ran");
		return -1;
	}
	if (!relay && authenticator() == NULL && !fido_key_present()) {
		tell(b, "passkey_no_authenticator", "no security key is plugged in here: plug "
		    "one in, or approve on the page; nothing ran");
		return -1;
	}
	return reviewer_record(b, &c);
}

/* Read the authenticator's answer from fd, bounded, within AUTH_WAIT_MS
 * of silence; NUL-terminated into out. Its length, or size when too long. */
static size_t
answer_read(int fd, char *out, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && poll(&pfd, 1, AUTH_WAIT_MS) > 0) {
		if ((n = read(fd, out + len, size - 1 - len)) <= 0)
			break;
		len += (size_t)n;
		if (out[len - 1] == '\n')
			break;
	}
	out[len < size ? len : size - 1] = '\0';
	return len >= size - 1 ? size : len;
}

/* Ask the page through the daemon: the request line on standard input
 * (a socket), the answer line from it. 0, or -1. */
static int
ask_relay(const char *request, char *out, size_t size)
{
	struct stat st;
	size_t len;

	if (fstat(STDIN_FILENO, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    send(STDIN_FILENO, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request) ||
	    send(STDIN_FILENO, "\n", 1, MSG_NOSIGNAL) != 1)
		return -1;
	len = answer_read(STDIN_FILENO, out, size);
	return len > 0 && len < size ? 0 : -1;
}

/* Run the authenticator: request on its stdin, its answer (bounded) into
 * out. 0, or -1. */
static int
ask(const char *prog, const char *request, char *out, size_t size)
{
	char *const argv[] = { (char *)prog, NULL };
	struct spawn s = { .path = prog, .argv = argv, .envp = environ,
	    .group = EXEC_FOREGROUND };
	int in[2], outp[2], status = -1;
	struct sigaction ign, old;
	size_t len = 0;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(outp, O_CLOEXEC) != 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	s.fd[0] = in[0];
	s.fd[1] = outp[1];
	s.fd[2] = STDERR_FILENO;
	pid = spawn(&s);
	close(in[0]);
	close(outp[1]);
	/* the request is small: the pipe holds it whole; an authenticator
	 * gone already is a failure, not our SIGPIPE */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	if (pid < 0 || write_all(in[1], request, strlen(request)) != 0)
		len = size;
	close(in[1]);
	sigaction(SIGPIPE, &old, NULL);
	if (len != size)
		len = answer_read(outp[0], out, size);
	close(outp[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	return len > 0 && len < size && WIFEXITED(status) && WEXITSTATUS(status) == 0 ?
	    0 : -1;
}

/* RUN_PASSKEY's bytes from the authenticator's answer, checked as the
 * runner will parse them: NULL when the answer is malformed. */
static char *
assertion_file(const char *answer, const char *nonce, int64_t expires)
{
	static struct passkey_file f;
	json_t *a = json_loads(answer, JSON_REJECT_DUPLICATES, NULL), *j;
	char why[128], *bytes = NULL;

	j = json_pack("{s:s,s:I,s:O,s:O,s:O}", "nonce", nonce, "expires", (json_int_t)expires,
	    "authenticator_data", json_object_get(a, "authenticator_data"),
	    "client_data_json", json_object_get(a, "client_data_json"),
	    "signature", json_object_get(a, "signature"));
	if (json_is_object(a) && json_object_size(a) == 3 && j != NULL &&
	    (bytes = json_dumps(j, JSON_COMPACT)) != NULL &&
	    passkey_file_parse(bytes, strlen(bytes), &f, why, sizeof why) != 0) {
		free(bytes);
		bytes = NULL;
	}
	json_decref(a);
	json_decref(j);
	return bytes;
}

/*
 * The assertion over this run (its manifest written, b->run_sha set),
 * written to RUN_PASSKEY in the run directory: 0, or -1 told (nothing
 * ran, nothing was started).
 */
int
passkey_assert(struct batch *b, int relay)
{
	struct passkey_cred c;
	unsigned char raw[32], challenge[32];
	char nonce[48], ch[48], cid[PASSKEY_ID_MAX * 4 / 3 + 4], why[256], *req, *out, *bytes;
	const char *prog = authenticator(), **ids;
	int64_t expires = now_seconds() + PASSKEY_TTL_MAX;
	size_t i, n = json_array_size(b->selected);
	json_t *cmd;
	int fd, rc;

	if (reviewer_record(b, &c) != 0)
		return -1;
	if (random_bytes(raw, sizeof raw) != 0 ||
	    b64url_encode(raw, sizeof raw, nonce, sizeof nonce) != 0 ||
	    b64url_encode(c.id, c.id_len, cid, sizeof cid) != 0) {
		tell(b, "runner_error", "cannot make a nonce; nothing ran");
		return -1;
	}
	ids = xcalloc(n + 1, sizeof *ids);
	json_array_foreach(b->selected, i, cmd)
		ids[i] = json_str(cmd, "id");
	rc = passkey_challenge(b->gate_id, b->run_sha, ids, n, nonce, expires, challenge);
	free(ids);
	if (rc != 0 || b64url_encode(challenge, sizeof challenge, ch, sizeof ch) != 0) {
		tell(b, "runner_error", "cannot compute the passkey challenge; nothing ran");
		return -1;
	}
	cmd = json_pack("{s:s,s:s,s:s,s:s}", "rp_id", c.rp_id, "origin", c.origin,
	    "challenge", ch, "credential_id", cid);
	req = cmd != NULL ? json_dumps(cmd, JSON_COMPACT) : NULL;
	json_decref(cmd);
	out = xmalloc(AUTH_OUT_MAX);
	snprintf(why, sizeof why, "it failed, or its answer is malformed");
	rc = req == NULL ? -1 : relay ? ask_relay(req, out, AUTH_OUT_MAX) : prog != NULL ?
	    ask(prog, req, out, AUTH_OUT_MAX) : fido_key_assert(&c, ch, out, AUTH_OUT_MAX, why,
	    sizeof why);
	free(req);
	bytes = rc == 0 ? assertion_file(out, nonce, expires) : NULL;
	free(out);
	if (bytes == NULL) {
		tell(b, "passkey_authenticator_failed", "the authenticator gave no assertion "
		    "(%s); nothing ran", why);
		return -1;
	}
	fd = openat(b->run_fd, RUN_PASSKEY, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	rc = fd >= 0 && write_all(fd, bytes, strlen(bytes)) == 0 && fsync(fd) == 0 ? 0 : -1;
	if (fd >= 0 && close(fd) != 0)
		rc = -1;
	free(bytes);
	if (rc != 0)
		tell(b, "runner_error", "cannot write %s in %s: %s; nothing ran", RUN_PASSKEY,
		    b->run_dir, strerror(errno));
	return rc;
}
