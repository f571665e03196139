/* SPDX-License-Identifier: ISC */
/*
 * The page's passkey routes (docs/passkeys.md, docs/protocol.md):
 *   GET  /api/passkey           is a passkey enrolled for this reviewer?
 *   POST /api/passkey/register  {code}: the registration's challenge for
 *                               the code `sudo warrant passkey add` printed
 *   POST /api/passkey/staged    {code, rp_id, credential_id, public_key,
 *                               authenticator_data, client_data_json}: the
 *                               new credential, checked as root will check
 *                               it, staged for root in the state directory
 *   POST /api/gates/ID/passkey  {manifest_sha256, commands}: starts
 *                               `warrant answer ID --run --passkey-relay`
 *                               and gives the page its challenge and a
 *                               ceremony token
 *   POST /api/gates/ID/passkey/assertion  {ceremony, authenticator_data,
 *                               client_data_json, signature}: relayed to
 *                               that child, which starts the runner in
 *                               passkey mode; the approval's result
 * Nothing here decides anything root relies on: root checks the
 * registration (enrolment) and the assertion (the runner) itself.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/crypto.h>

#include "web.h"

#define RELAY_LINE_MAX	4096	/* the answer child's request */
#define STAGED_MEMBERS	"rp_id", "credential_id", "public_key", "authenticator_data", \
			"client_data_json"

/* This daemon's user name into out: 0, or -1. */
static int
self_name(char *out, size_t size)
{
	struct passwd *pw = getpwuid(getuid());

	return pw != NULL && (size_t)snprintf(out, size, "%s", pw->pw_name) < size ? 0 : -1;
}

static enum MHD_Result
status_route(struct MHD_Connection *c)
{
	struct passkey_cred cred;
	char name[65], why[256];
	int dfd = passkey_dir_open(WARRANT_PASSKEY_DIR, why, sizeof why), rc = -1;

	if (dfd >= 0 && self_name(name, sizeof name) == 0)
		rc = passkey_cred_load(dfd, name, &cred, why, sizeof why);
	if (dfd >= 0)
		close(dfd);
	if (rc != 0)
		return web_json(c, MHD_HTTP_OK, json_pack("{s:b}", "enrolled", 0));
	return web_json(c, MHD_HTTP_OK, json_pack("{s:b,s:s,s:s,s:I}", "enrolled", 1, "rp_id",
	    cred.rp_id, "origin", cred.origin, "created", (json_int_t)cred.created));
}

/* The body's "code", canonical: 0, or -1 after a refusal was queued. */
static int
code_of(struct MHD_Connection *c, const json_t *b, char code[PASSKEY_CODE_LEN + 1],
    enum MHD_Result *ret)
{
	const json_t *v = json_object_get(b, "code");

	if (json_is_string(v) && json_string_length(v) < 32 &&
	    passkey_code_canon(json_string_value(v), code) == 0)
		return 0;
	*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "passkey_code", "the code is the 8 "
	    "characters `sudo warrant passkey add` printed on the computer");
	return -1;
}

static enum MHD_Result
register_route(struct MHD_Connection *c, const struct web_req *r)
{
	static const char *const allowed[] = { "code", NULL };
	char code[PASSKEY_CODE_LEN + 1], name[65], ch[48], uid[96];
	unsigned char challenge[32];
	enum MHD_Result ret;
	json_t *b;
	int rc;

	if ((b = web_body_object(c, r, allowed, &ret)) == NULL)
		return ret;
	rc = code_of(c, b, code, &ret);
	json_decref(b);
	if (rc != 0)
		return ret;
	if (self_name(name, sizeof name) != 0 || passkey_enrol_challenge(name, code,
	    challenge) != 0 || b64url_encode(challenge, sizeof challenge, ch, sizeof ch) != 0 ||
	    b64url_encode((const unsigned char *)name, strlen(name), uid, sizeof uid) != 0)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the daemon "
		    "cannot make the challenge");
	return web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:s,s:s}", "challenge", ch,
	    "user_name", name, "user_id", uid));
}

/* The new credential: checked as root will check it (so that the page
 * hears what is wrong now), then staged, 0600, for root to adopt. */
static enum MHD_Result
staged_route(struct web *w, struct MHD_Connection *c, const struct web_req *r)
{
	static const char *const allowed[] = { "code", STAGED_MEMBERS, NULL };
	static const char *const members[] = { STAGED_MEMBERS, NULL };
	struct passkey_cred cred;
	char code[PASSKEY_CODE_LEN + 1], name[65], why[512], *bytes = NULL;
	enum MHD_Result ret;
	json_t *b, *staged = json_object();
	size_t i;
	int bad_rp, dfd, rc;

	if ((b = web_body_object(c, r, allowed, &ret)) == NULL) {
		json_decref(staged);
		return ret;
	}
	rc = code_of(c, b, code, &ret);
	for (i = 0; rc == 0 && members[i] != NULL; i++)
		json_object_set(staged, members[i], json_object_get(b, members[i]));
	json_decref(b);
	if (rc != 0) {
		json_decref(staged);
		return ret;
	}
	if (self_name(name, sizeof name) != 0 || (bytes = json_dumps(staged,
	    JSON_COMPACT)) == NULL) {
		json_decref(staged);
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the daemon "
		    "cannot stage the passkey");
	}
	rc = passkey_enrol_check(bytes, strlen(bytes), name, code, &cred, &bad_rp, why,
	    sizeof why);
	free(bytes);
	if (rc != 0) {
		json_decref(staged);
		return web_error(c, MHD_HTTP_UNPROCESSABLE_CONTENT, bad_rp ?
		    "passkey_rp_not_name" : "passkey_registration_invalid", "%s", why);
	}
	pthread_mutex_lock(&w->lock);
	dfd = open(w->st.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = dfd >= 0 ? json_write_atomic(dfd, PASSKEY_STAGED, staged, (uid_t)-1, (gid_t)-1,
	    0600, 1) : -1;
	if (dfd >= 0)
		close(dfd);
	pthread_mutex_unlock(&w->lock);
	json_decref(staged);
	if (rc != 0)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the daemon "
		    "cannot write %s", PASSKEY_STAGED);
	warnx("web: a passkey for %s staged by device %s, for root to adopt", cred.rp_id,
	    r->device);
	return web_json(c, MHD_HTTP_OK, json_pack("{s:b,s:s,s:s}", "staged", 1, "rp_id",
	    cred.rp_id, "origin", cred.origin));
}

enum MHD_Result
passkey_route(struct web *w, struct MHD_Connection *c, struct web_req *r, int get,
    const char *rest)
{
	if (get && *rest == '\0')
		return status_route(c);
	if (!get && strcmp(rest, "/register") == 0)
		return register_route(c, r);
	if (!get && strcmp(rest, "/staged") == 0)
		return staged_route(w, c, r);
	return web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such route");
}

/* Free slot i (w->lock held): the child learns it by EOF and ends. Its
 * pid, which the caller reaps or keeps for api_reap. */
static pid_t
ceremony_end(struct web *w, size_t i)
{
	struct web_ceremony *e = &w->ceremonies[i];
	pid_t pid = e->pid;

	close(e->relay);
	close(e->result);
	memset(e, 0, sizeof *e);
	return pid;
}

/* Reap an ended ceremony's child, waiting at most 3 s (until it is gone
 * it holds the approval lease); else keep it for api_reap (w->lock not
 * held). */
static void
child_gone(struct web *w, pid_t pid)
{
	int i;

	for (i = 0; i < 150; i++) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return;
		poll(NULL, 0, 20);
	}
	pthread_mutex_lock(&w->lock);
	child_keep(w, pid);
	pthread_mutex_unlock(&w->lock);
}

/* End the ceremonies past their deadline, or all of them (w->lock held). */
void
passkey_expire(struct web *w, int all)
{
	int64_t now = monotonic_ms();
	size_t i;

	for (i = 0; i < WEB_CEREMONIES_MAX; i++)
		if (w->ceremonies[i].token[0] != '\0' && (all || now >= w->ceremonies[i].deadline))
			child_keep(w, ceremony_end(w, i));
}

/* The child's request line (the challenge): 0, or -1 when it ended or
 * said nothing in time. */
static int
relay_request(int fd, char *line, size_t size)
{
	int64_t deadline = monotonic_ms() + WEB_RELAY_WAIT_MS;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && monotonic_ms() < deadline) {
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if ((n = read(fd, line + len, size - 1 - len)) <= 0)
			return -1;
		len += (size_t)n;
		if (line[len - 1] == '\n') {
			line[len - 1] = '\0';
			return 0;
		}
	}
	return -1;
}

static enum MHD_Result
start_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *arg)
{
	static const char *const allowed[] = { "manifest_sha256", "commands", NULL };
	char id[GATE_ID_LEN + 1], sha[SHA256_HEX_LEN + 1], line[RELAY_LINE_MAX], token[44];
	unsigned char raw[32];
	struct web_ceremony *e = NULL;
	enum MHD_Result ret;
	json_t *b, *req;
	int sv[2], fd = -1;
	size_t i, nended = 0;
	pid_t pid, ended[WEB_CEREMONIES_MAX];

	if ((b = approval_body(c, r, allowed, sha, &ret)) == NULL)
		return ret;
	pthread_mutex_lock(&w->lock);
	(void)refresh_store(&w->st);
	passkey_expire(w, 0);
	if (web_resolve(w, c, arg, id, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		json_decref(b);
		return ret;
	}
	/* a ceremony of this gate, or of this page, already: asked again (the
	 * passkey prompt was dismissed, or another gate is tapped), it is
	 * replaced; its child ends, and with it the approval lease it holds */
	for (i = 0; i < WEB_CEREMONIES_MAX; i++)
		if (w->ceremonies[i].token[0] != '\0' && (strcmp(w->ceremonies[i].gate, id) == 0 ||
		    strcmp(w->ceremonies[i].device, r->device) == 0))
			ended[nended++] = ceremony_end(w, i);
	if (nended > 0) {
		pthread_mutex_unlock(&w->lock);
		for (i = 0; i < nended; i++)
			child_gone(w, ended[i]);
		pthread_mutex_lock(&w->lock);
		(void)refresh_store(&w->st);
	}
	if (approval_check(w, c, id, sha, json_object_get(b, "commands"), 1, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		json_decref(b);
		return ret;
	}
	for (i = 0; i < WEB_CEREMONIES_MAX && e == NULL; i++)
		if (w->ceremonies[i].token[0] == '\0')
			e = &w->ceremonies[i];
	if (e == NULL || random_bytes(raw, sizeof raw) != 0 ||
	    b64url_encode(raw, sizeof raw, token, sizeof token) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		pthread_mutex_unlock(&w->lock);
		json_decref(b);
		return web_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "busy", "too many passkey "
		    "approvals wait for their page; nothing ran");
	}
	pid = approval_start(w, id, sha, json_object_get(b, "commands"), NULL, sv[1], &fd);
	pthread_mutex_unlock(&w->lock);
	json_decref(b);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "cannot start "
		    "the approval; nothing ran");
	}
	/* the child builds the run and asks; or it refused, and says why */
	if (relay_request(sv[0], line, sizeof line) != 0 ||
	    (req = json_loads(line, JSON_REJECT_DUPLICATES, NULL)) == NULL) {
		close(sv[0]);
		return approval_answer(w, c, id, pid, fd);
	}
	pthread_mutex_lock(&w->lock);
	snprintf(e->token, sizeof e->token, "%s", token);
	snprintf(e->gate, sizeof e->gate, "%s", id);
	snprintf(e->device, sizeof e->device, "%s", r->device);
	e->pid = pid;
	e->relay = sv[0];
	e->result = fd;
	e->deadline = monotonic_ms() + WEB_CEREMONY_MS;
	pthread_mutex_unlock(&w->lock);
	warnx("web: %s: a passkey approval started by device %s (pid %d)", id, r->device,
	    (int)pid);
	json_object_set_new(req, "ceremony", json_string(token));
	json_object_set_new(req, "timeout_ms", json_integer(WEB_CEREMONY_MS));
	return web_json(c, MHD_HTTP_OK, req);
}

static enum MHD_Result
assertion_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *arg)
{
	static const char *const allowed[] = { "ceremony", "authenticator_data",
	    "client_data_json", "signature", NULL };
	struct web_ceremony e = { .pid = -1 };
	char id[GATE_ID_LEN + 1], *line;
	enum MHD_Result ret;
	json_t *b;
	const char *token;
	size_t i;
	int rc;

	if ((b = web_body_object(c, r, allowed, &ret)) == NULL)
		return ret;
	token = json_str(b, "ceremony");
	pthread_mutex_lock(&w->lock);
	if (web_resolve(w, c, arg, id, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		json_decref(b);
		return ret;
	}
	passkey_expire(w, 0);
	for (i = 0; i < WEB_CEREMONIES_MAX; i++)
		if (w->ceremonies[i].token[0] != '\0' && strlen(token) == strlen(w->ceremonies[i].token) &&
		    CRYPTO_memcmp(token, w->ceremonies[i].token, strlen(token)) == 0 &&
		    strcmp(w->ceremonies[i].gate, id) == 0 &&
		    strcmp(w->ceremonies[i].device, r->device) == 0) {
			e = w->ceremonies[i];
			memset(&w->ceremonies[i], 0, sizeof w->ceremonies[i]);
			break;
		}
	pthread_mutex_unlock(&w->lock);
	if (e.pid < 0) {
		json_decref(b);
		return web_error(c, MHD_HTTP_CONFLICT, "passkey_no_ceremony", "no passkey approval "
		    "of %s waits for this page (it expired, or another replaced it); start "
		    "again; nothing ran", id);
	}
	json_object_del(b, "ceremony");
	line = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	/* the child checks the answer's form; the runner checks the rest */
	rc = line != NULL && send(e.relay, line, strlen(line), MSG_NOSIGNAL) ==
	    (ssize_t)strlen(line) && send(e.relay, "\n", 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
	free(line);
	close(e.relay);
	if (rc != 0)
		warnx("web: %s: the passkey approval's child is gone", id);
	warnx("web: %s: a passkey assertion relayed from device %s", id, r->device);
	return approval_answer(w, c, id, e.pid, e.result);
}

enum MHD_Result
passkey_gate_route(struct web *w, struct MHD_Connection *c, struct web_req *r,
    const char *arg, const char *rest)
{
	if (*rest == '\0')
		return start_route(w, c, r, arg);
	if (strcmp(rest, "/assertion") == 0)
		return assertion_route(w, c, r, arg);
	return web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such route");
}
