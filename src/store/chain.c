/* SPDX-License-Identifier: ISC */
/*
 * The audit chain: events are only ever appended, each row carrying the
 * SHA-256 of the row before it, so `warrant log --verify` can tell an
 * edited, inserted or deleted row. The chain is cross-checked against the
 * gates table, so deleting the newest events is caught too. Whoever can
 * write the database can also rebuild the whole chain; the chain shows
 * tampering by anything less (SECURITY.md).
 */
#include <err.h>
#include <string.h>

#include "store-int.h"

static const char genesis[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* sha256(prev "\n" canonical({seq, at, gate_id, kind, detail})) */
static int
row_hash(long long seq, int64_t at, const char *gate_id, const char *kind,
    const char *detail, const char *prev, char out[SHA256_HEX_LEN + 1])
{
	json_t *row, *d;
	char *bytes, *buf;
	size_t len, plen = strlen(prev);

	d = json_loads(detail, JSON_DECODE_ANY, NULL);
	if (d == NULL)
		return -1;
	row = json_pack("{s:I,s:I,s:s?,s:s,s:o}", "seq", (json_int_t)seq,
	    "at", (json_int_t)at, "gate_id", gate_id, "kind", kind, "detail", d);
	bytes = canon_dump(row, &len);
	json_decref(row);
	if (bytes == NULL)
		return -1;
	buf = xmalloc(plen + 1 + len);
	memcpy(buf, prev, plen);
	buf[plen] = '\n';
	memcpy(buf + plen + 1, bytes, len);
	sha256_bytes(buf, plen + 1 + len, out);
	free(buf);
	free(bytes);
	return 0;
}

/* Append an event; the caller holds the write transaction. */
int
audit_append(struct store *st, const char *gate_id, const char *kind,
    const json_t *detail, int64_t at)
{
	static const char last[] = "SELECT seq, sha256 FROM events ORDER BY seq DESC LIMIT 1";
	static const char ins[] = "INSERT INTO events (seq, at, gate_id, kind, detail,"
	    " prev_sha256, sha256) VALUES (?,?,?,?,?,?,?)";
	char prev[SHA256_HEX_LEN + 1], sha[SHA256_HEX_LEN + 1], *d;
	long long seq = 1;
	sqlite3_stmt *s;
	int rc;

	strcpy(prev, genesis);
	if (sqlite3_prepare_v2(st->db, last, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading the audit chain");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		seq = sqlite3_column_int64(s, 0) + 1;
		snprintf(prev, sizeof prev, "%s", (const char *)sqlite3_column_text(s, 1));
	} else if (rc != SQLITE_DONE)
		store_fail(st, "reading the audit chain");
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	d = detail != NULL ? canon_dump(detail, NULL) : xstrdup("{}");
	if (d == NULL || row_hash(seq, at, gate_id, kind, d, prev, sha) != 0) {
		free(d);
		warnx("audit: cannot encode the event");
		return -1;
	}
	if (sqlite3_prepare_v2(st->db, ins, -1, &s, NULL) != SQLITE_OK) {
		free(d);
		return store_fail(st, "appending to the audit chain");
	}
	if ((sqlite3_bind_int64(s, 1, seq) |
	    sqlite3_bind_int64(s, 2, at) |
	    sqlite3_bind_text(s, 3, gate_id, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 4, kind, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 5, d, -1, free) |
	    sqlite3_bind_text(s, 6, prev, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 7, sha, -1, SQLITE_STATIC)) != SQLITE_OK) {
		store_fail(st, "appending to the audit chain");
		sqlite3_finalize(s);
		return -1;
	}
	return step_done(st, s, "appending to the audit chain");
}

json_t *
audit_events(struct store *st)
{
	static const char sql[] = "SELECT seq, at, gate_id, kind, detail, sha256"
	    " FROM events ORDER BY seq";
	json_t *list = json_array(), *d;
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading the audit chain");
		json_decref(list);
		return NULL;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *gate = (const char *)sqlite3_column_text(s, 2);

		d = json_loads((const char *)sqlite3_column_text(s, 4), JSON_DECODE_ANY, NULL);
		json_array_append_new(list, json_pack("{s:I,s:I,s:s?,s:s,s:o,s:s}",
		    "seq", (json_int_t)sqlite3_column_int64(s, 0),
		    "at", (json_int_t)sqlite3_column_int64(s, 1),
		    "gate_id", gate,
		    "kind", (const char *)sqlite3_column_text(s, 3),
		    "detail", d != NULL ? d : json_null(),
		    "sha256", (const char *)sqlite3_column_text(s, 5)));
	}
	if (rc != SQLITE_DONE) {
		store_fail(st, "reading the audit chain");
		json_decref(list);
		list = NULL;
	}
	sqlite3_finalize(s);
	return list;
}

static const char *
text_col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t != NULL ? t : "";
}

/* Each gate's state must be what its newest event says, a gate's manifest
 * hash what its request event sealed, and its stored manifest bytes must
 * still hash to that seal (an edited manifest is what a reviewer would
 * be shown and a runner handed). */
static int
cross_check(struct store *st, char *why, size_t size)
{
	static const char sql[] = "SELECT g.id, g.state, g.manifest_sha256,"
	    " (SELECT kind FROM events e WHERE e.gate_id = g.id ORDER BY seq DESC LIMIT 1),"
	    " (SELECT json_extract(detail, '$.manifest_sha256') FROM events e"
	    "   WHERE e.gate_id = g.id AND kind = 'request'),"
	    " g.manifest"
	    " FROM gates g";
	char actual[SHA256_HEX_LEN + 1];
	sqlite3_stmt *s;
	int rc = SQLITE_DONE, bad = 0;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "checking gates against the chain");
	while (!bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = text_col(s, 0), *state = text_col(s, 1);
		const char *kind = text_col(s, 3), *sealed = text_col(s, 4);

		if (*kind == '\0') {
			snprintf(why, size, "gate %s has no audit events", id);
			bad = 1;
		} else if (strcmp(state, strcmp(kind, "request") == 0 ? "pending" : kind) != 0 &&
		    !(strcmp(state, "pending") == 0 && strcmp(kind, "attempt") == 0)) {
			snprintf(why, size, "gate %s is %s but its last event is %s", id, state, kind);
			bad = 1;
		} else if (!digest_equal(text_col(s, 2), sealed)) {
			snprintf(why, size, "gate %s: manifest hash differs from the sealed one", id);
			bad = 1;
		} else {
			const void *m = sqlite3_column_blob(s, 5);

			sha256_bytes(m != NULL ? m : "", (size_t)sqlite3_column_bytes(s, 5),
			    actual);
			if (!digest_equal(actual, sealed)) {
				snprintf(why, size, "gate %s: stored manifest does not match its "
				    "sealed hash (edited)", id);
				bad = 1;
			}
		}
	}
	if (!bad && rc != SQLITE_DONE)
		store_fail(st, "checking gates against the chain");
	sqlite3_finalize(s);
	return !bad && rc != SQLITE_DONE ? -1 : bad;
}

/*
 * Verify the chain. Returns 0 when intact, 1 with a reason when broken,
 * -1 when the store cannot be read. *count receives the number of events.
 */
int
audit_verify(struct store *st, char *why, size_t size, long *count)
{
	static const char sql[] = "SELECT seq, at, gate_id, kind, detail, prev_sha256,"
	    " sha256 FROM events ORDER BY seq";
	char prev[SHA256_HEX_LEN + 1], sha[SHA256_HEX_LEN + 1];
	long long expect = 1;
	sqlite3_stmt *s;
	int rc = SQLITE_DONE, bad = 0;

	*count = 0;
	strcpy(prev, genesis);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading the audit chain");
	while (!bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		long long seq = sqlite3_column_int64(s, 0);

		if (seq != expect) {
			snprintf(why, size, "event %lld: expected sequence number %lld (a row was %s)",
			    seq, expect, seq > expect ? "deleted" : "inserted");
			bad = 1;
		} else if (!digest_equal(text_col(s, 5), prev)) {
			snprintf(why, size, "event %lld: does not follow event %lld", seq, seq - 1);
			bad = 1;
		} else if (row_hash(seq, sqlite3_column_int64(s, 1),
		    (const char *)sqlite3_column_text(s, 2), text_col(s, 3), text_col(s, 4),
		    prev, sha) != 0 || !digest_equal(sha, text_col(s, 6))) {
			snprintf(why, size, "event %lld: contents do not match its hash (edited)", seq);
			bad = 1;
		} else {
			strcpy(prev, sha);
			expect++;
			(*count)++;
		}
	}
	if (!bad && rc != SQLITE_DONE)
		store_fail(st, "reading the audit chain");
	sqlite3_finalize(s);
	if (bad)
		return 1;
	if (rc != SQLITE_DONE)
		return -1;
	return cross_check(st, why, size);
}
