/* store_cases.h: checks every store must pass, run by test_store_sqlite.c
 * and test_store_pg.c on their own stores (header-only; each test file is
 * its own program). The store is given empty; `db` runs SQL on its
 * database behind its back (sql: a statement; num: a count), through the
 * test's own raw connection. */
#ifndef CROUPIER_STORE_CASES_H
#define CROUPIER_STORE_CASES_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "core/err.h"
#include "store.h"

typedef struct store_db {
    void (*sql)(void *ctx, const char *sql);
    long long (*num)(void *ctx, const char *sql);
    void *ctx;
    const char *expire_sql; /* sets expires_at of the answers of keys k2 ("k2" then zero
                               bytes) and k3 in the past */
} store_db;

/* A key's hash from a short name (its bytes, then zeros). */
static inline void sc_hash(unsigned char out[STORE_IDEM_HASH], const char *name)
{
    memset(out, 0, STORE_IDEM_HASH);
    memcpy(out, name, strlen(name) < STORE_IDEM_HASH ? strlen(name) : STORE_IDEM_HASH);
}

static inline store_idem sc_key(const char *id, const char *fp, const char *owner)
{
    store_idem k = {0};
    sc_hash(k.id, id);
    sc_hash(k.fingerprint, fp);
    snprintf(k.owner, sizeof k.owner, "%s", owner);
    return k;
}

static inline store_play sc_play(long n)
{
    static char text[8][16];
    snprintf(text[n & 7], sizeof text[0], "[%ld]", n);
    store_play p = {.n = n, .kind = STORE_PERSON, .play = text[n & 7], .record = "{}"};
    return p;
}

/* Idempotency keys: claim / get / take / release / purge, and writes that
 * store their answer in their own transaction, dropping the key's claim:
 * once, whoever comes second; a write that loses its compare-and-swap
 * stores nothing. */
static inline void store_idempotency_cases(store *s, const store_db *db)
{
    store_row row = {.version = 1, .meta = "{}", .origin = "{}"};
    snprintf(row.id, sizeof row.id, "g");
    snprintf(row.game, sizeof row.game, "hanabi");
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    unsigned char k1[STORE_IDEM_HASH], k2[STORE_IDEM_HASH], fp[STORE_IDEM_HASH],
        fp1[STORE_IDEM_HASH];
    sc_hash(k1, "k1");
    sc_hash(k2, "k2");
    sc_hash(fp, "fp");
    sc_hash(fp1, "fp1");

    store_idem k = sc_key("k1", "fp1", "a:1");
    assert_int_equal(s->vt->idem_claim(s, &k, 30), 0); /* new: held by a:1 */
    store_idem other = sc_key("k1", "fp2", "b:1");
    assert_int_equal(s->vt->idem_claim(s, &other, 30), ERR_IDEM_BUSY); /* held */
    assert_memory_equal(other.fingerprint, fp1, STORE_IDEM_HASH);
    assert_string_equal(other.owner, "a:1");
    assert_false(other.done);
    assert_true(other.live);
    assert_null(other.answer);
    /* taken over (or renewed) only from its holder; released only by its holder */
    assert_int_equal(s->vt->idem_take(s, k1, "x:9", "b:1", 30), ERR_IDEM_BUSY);
    assert_int_equal(s->vt->idem_take(s, k1, "a:1", "a:1", 30), 0);
    assert_int_equal(s->vt->idem_take(s, k1, "a:1", "b:1", 30), 0);
    assert_int_equal(s->vt->idem_release(s, k1, "a:1"), 0);
    store_idem got = sc_key("k1", "", "");
    assert_int_equal(s->vt->idem_get(s, &got), 0);
    assert_string_equal(got.owner, "b:1");
    assert_false(got.done);
    assert_int_equal(s->vt->idem_release(s, k1, "b:1"), 0);
    assert_int_equal(s->vt->idem_get(s, &got), ERR_NOT_FOUND);

    /* a commit with its answer: the key is answered, its claim gone */
    k = sc_key("k2", "fp", "a:2");
    assert_int_equal(s->vt->idem_claim(s, &k, 30), 0);
    static const unsigned char answer[] = {0, 1, 2, 0xff, 0};
    store_answer a = {.id = k2, .fingerprint = fp, .answer = answer,
                      .answer_len = sizeof answer, .keep_s = 3600};
    store_play p[1] = {sc_play(1)};
    assert_int_equal(s->vt->commit(s, "g", 1, "{}", NULL, 0, p, 1, &a), 0);
    got = sc_key("k2", "", "");
    assert_int_equal(s->vt->idem_get(s, &got), 0);
    assert_true(got.done);
    assert_true(got.live);
    assert_memory_equal(got.fingerprint, fp, STORE_IDEM_HASH);
    assert_int_equal(got.answer_len, sizeof answer);
    assert_memory_equal(got.answer, answer, sizeof answer);
    store_idem_free(&got);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM idempotency_claims"), 0);
    /* a second write with the key changes nothing: the first answer stays */
    static const unsigned char second[] = {9, 9};
    store_answer b = a;
    b.answer = second;
    b.answer_len = sizeof second;
    p[0] = sc_play(2);
    assert_int_equal(s->vt->commit(s, "g", 2, "{}", NULL, 0, p, 1, &b), ERR_IDEM_BUSY);
    assert_int_equal(db->num(db->ctx, "SELECT version FROM games WHERE id = 'g'"), 2);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM plays WHERE game_id = 'g'"), 1);
    got = sc_key("k2", "", "");
    assert_int_equal(s->vt->idem_get(s, &got), 0);
    assert_memory_equal(got.answer, answer, sizeof answer);
    store_idem_free(&got);
    /* a keyed commit that loses its compare-and-swap stores nothing, and
     * keeps its claim (for idem_end to release) */
    k = sc_key("k4", "fp", "a:4");
    assert_int_equal(s->vt->idem_claim(s, &k, 30), 0);
    unsigned char k4[STORE_IDEM_HASH];
    sc_hash(k4, "k4");
    store_answer d = {.id = k4, .fingerprint = fp, .answer = answer, .answer_len = 1,
                      .keep_s = 3600};
    assert_int_equal(s->vt->commit(s, "g", 1, "{}", NULL, 0, p, 1, &d), ERR_CONFLICT);
    got = sc_key("k4", "", "");
    assert_int_equal(s->vt->idem_get(s, &got), 0);
    assert_false(got.done);
    assert_string_equal(got.owner, "a:4");
    assert_int_equal(s->vt->idem_release(s, k4, "a:4"), 0);
    assert_int_equal(s->vt->idem_get(s, &got), ERR_NOT_FOUND);
    /* a claim of an answered key gets the answer and claims nothing */
    k = sc_key("k2", "fp", "c:2");
    assert_int_equal(s->vt->idem_claim(s, &k, 30), ERR_IDEM_BUSY);
    assert_true(k.done);
    assert_int_equal(k.answer_len, sizeof answer);
    assert_memory_equal(k.fingerprint, fp, STORE_IDEM_HASH);
    store_idem_free(&k);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM idempotency_claims"), 0);

    /* a create with its answer; the key again: nothing created */
    snprintf(row.id, sizeof row.id, "new1");
    unsigned char k3[STORE_IDEM_HASH];
    sc_hash(k3, "k3");
    store_answer c = {.id = k3, .fingerprint = fp, .answer = answer, .answer_len = 2,
                      .keep_s = 3600};
    assert_int_equal(s->vt->create(s, &row, NULL, 0, &c), 0);
    snprintf(row.id, sizeof row.id, "new2");
    assert_int_equal(s->vt->create(s, &row, NULL, 0, &c), ERR_IDEM_BUSY);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM games WHERE id LIKE 'new%'"), 1);

    /* expiry: an answer past its time counts as absent (a claim takes the
     * key, and a write answers it anew, over the old row) and is purged */
    db->sql(db->ctx, db->expire_sql);
    k = sc_key("k2", "fp9", "d:2");
    assert_int_equal(s->vt->idem_claim(s, &k, 30), 0);
    snprintf(row.id, sizeof row.id, "new3");
    assert_int_equal(s->vt->create(s, &row, NULL, 0, &c), 0); /* k3 again: expired */
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM idempotency_answers"), 2);
    db->sql(db->ctx, db->expire_sql);
    assert_int_equal(s->vt->idem_purge(s), 2); /* k2's answer and k3's */
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM idempotency_answers"), 0);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM idempotency_claims"), 1); /* d:2's */
}

/* After the migration of the schema-3 rows of test_store_*'s SCHEMA_3_IDEM
 * (the answer of key 00112233... is the bytes 00 01 02 ff, kept an hour
 * or more): the store reads that answer as its own. */
static inline void store_migrated_answer_case(store *s)
{
    store_idem k = {0};
    static const unsigned char id[STORE_IDEM_HASH] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
                                                      0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
                                                      0xcc, 0xdd, 0xee, 0xff};
    memcpy(k.id, id, sizeof id);
    assert_int_equal(s->vt->idem_get(s, &k), 0);
    assert_true(k.done);
    assert_true(k.live);
    assert_int_equal(k.answer_len, 4);
    assert_memory_equal(k.answer, "\x00\x01\x02\xff", 4);
    store_idem_free(&k);
}

/* Retention (croupier purge, cli/purge.c): ages() lists the games in id
 * order, a page at a time, each with the time of its last write;
 * del_aged() deletes a game and its plays only while its last write is
 * still before the time it is given. age_sql sets the last write of games
 * "ra" and "rc" ten days back. */
static inline void store_retention_cases(store *s, const store_db *db, const char *age_sql)
{
    static const char *const ids[] = {"ra", "rb", "rc"};
    for (int i = 0; i < 3; i++) {
        store_row row = {.version = 1, .meta = "{}", .origin = "{}"};
        snprintf(row.id, sizeof row.id, "%s", ids[i]);
        snprintf(row.game, sizeof row.game, "hanabi");
        store_play p = sc_play(1);
        assert_int_equal(store_create(s, &row, &p, 1), 0);
    }
    int64_t now = (int64_t)time(NULL);
    store_age page[2];
    int k = -1;
    assert_int_equal(s->vt->ages(s, "", 2, page, &k), 0);
    assert_int_equal(k, 2);
    assert_string_equal(page[0].id, "ra");
    assert_string_equal(page[1].id, "rb");
    assert_true(page[0].written >= now - 60 && page[0].written <= now + 60);
    assert_int_equal(s->vt->ages(s, "rb", 2, page, &k), 0);
    assert_int_equal(k, 1);
    assert_string_equal(page[0].id, "rc");
    assert_int_equal(s->vt->ages(s, "rc", 2, page, &k), 0);
    assert_int_equal(k, 0);

    db->sql(db->ctx, age_sql);
    assert_int_equal(s->vt->ages(s, "", 2, page, &k), 0);
    assert_true(page[0].written <= now - 10 * 86400 + 60);
    assert_true(page[1].written >= now - 60); /* rb: untouched */
    int64_t cut = now - 5 * 86400;
    assert_int_equal(s->vt->del_aged(s, "ra", cut), 0);
    store_row got;
    assert_int_equal(store_get(s, "ra", &got), ERR_NOT_FOUND);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM plays WHERE game_id = 'ra'"), 0);
    assert_int_equal(s->vt->del_aged(s, "ra", cut), ERR_NOT_FOUND); /* gone */
    assert_int_equal(s->vt->del_aged(s, "rb", cut), ERR_NOT_FOUND); /* written lately */
    assert_int_equal(store_get(s, "rb", &got), 0);
    store_row_free(&got);
    /* a write after the list was read keeps the game */
    store_play p = sc_play(2);
    assert_int_equal(store_commit(s, "rc", 1, "{}", NULL, 0, &p, 1), 0);
    assert_int_equal(s->vt->del_aged(s, "rc", cut), ERR_NOT_FOUND);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM plays WHERE game_id = 'rc'"), 2);
    assert_int_equal(s->vt->del_aged(s, "nosuch", cut), ERR_NOT_FOUND);
    assert_int_equal(store_delete(s, "rb"), 0); /* DELETE /games/{id}: whatever its age */
    assert_int_equal(store_delete(s, "rc"), 0);
}

/* Plays taken back (rewind): only at the version expected, the plays after
 * the point go (never a note row), the version moves on with the meta and
 * the snapshot; the next commit appends the same numbers again; a game that
 * does not exist. */
static inline void store_rewind_cases(store *s, const store_db *db)
{
    store_row row = {.version = 1, .meta = "{}", .origin = "{}"};
    snprintf(row.id, sizeof row.id, "rw");
    snprintf(row.game, sizeof row.game, "comp10001bo");
    store_play p[4] = {sc_play(0), sc_play(1), sc_play(2), sc_play(3)};
    store_play note = {.n = 0, .kind = STORE_NOTE, .explanation = "imported"};
    p[0] = note;
    assert_int_equal(store_create(s, &row, p, 2), 0); /* note 0, play 1 */
    p[0] = sc_play(2);
    p[1] = sc_play(3);
    assert_int_equal(store_commit(s, "rw", 1, "{}", NULL, 0, p, 2), 0); /* plays 2, 3 at v2 */
    static const unsigned char snap[] = {1, 2, 3};
    assert_int_equal(s->vt->rewind(s, "rw", 1, "{\"undo\":1}", snap, 3, 1), ERR_CONFLICT);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM plays WHERE game_id = 'rw'"), 4);
    assert_int_equal(s->vt->rewind(s, "rw", 2, "{\"undo\":1}", snap, 3, 1), 0);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM plays WHERE game_id = 'rw'"), 2);
    assert_int_equal(db->num(db->ctx, "SELECT max(n) FROM plays WHERE game_id = 'rw'"), 1);
    store_row got;
    assert_int_equal(store_get(s, "rw", &got), 0);
    assert_int_equal(got.version, 3);
    assert_string_equal(got.meta, "{\"undo\":1}");
    assert_int_equal(got.snap_version, 3);
    assert_int_equal(got.snap_len, 3);
    assert_memory_equal(got.snap, snap, 3);
    store_row_free(&got);
    /* to the very start: every play goes, the note stays */
    assert_int_equal(s->vt->rewind(s, "rw", 3, "{}", NULL, 0, -1), 0);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM plays WHERE game_id = 'rw'"), 1);
    assert_int_equal(db->num(db->ctx, "SELECT kind FROM plays WHERE game_id = 'rw'"), STORE_NOTE);
    p[0] = sc_play(1);
    assert_int_equal(store_commit(s, "rw", 4, "{}", NULL, 0, p, 1), 0); /* play 1 again */
    store_play *rows = NULL;
    int k = 0;
    assert_int_equal(store_plays(s, "rw", -1, 0, 0, &rows, &k), 0);
    assert_int_equal(k, 1);
    assert_int_equal(rows[0].n, 1);
    assert_int_equal(rows[0].version, 5);
    store_plays_free(rows, k);
    assert_int_equal(s->vt->rewind(s, "nosuch", 1, "{}", NULL, 0, 0), ERR_NOT_FOUND);
    assert_int_equal(store_delete(s, "rw"), 0);
}

/* Card notes: set, update, delete, per seat, the cap (an update at it is
 * not refused), a game that does not exist, and a deleted game's notes
 * gone with it. */
static void store_note_cases(store *s, store_db *db)
{
    store_row row = {.version = 1, .meta = "{}", .origin = "{}", .snap_version = -1};
    snprintf(row.id, sizeof row.id, "nt");
    snprintf(row.game, sizeof row.game, "hanabi");
    assert_int_equal(store_create(s, &row, NULL, 0), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "d0.1", "chop", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "t7", "5?", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 1, "d0.1", "theirs", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "d0.1", "chop, moved", 3), 0);
    store_card_note *n = NULL;
    int k = 0;
    assert_int_equal(s->vt->notes(s, "nt", 0, &n, &k), 0);
    assert_int_equal(k, 2);
    assert_string_equal(n[0].card, "d0.1");
    assert_string_equal(n[0].text, "chop, moved");
    assert_string_equal(n[1].card, "t7");
    assert_true(n[0].at_ms > 1600000000000LL);
    store_notes_free(n, k);
    assert_int_equal(s->vt->notes(s, "nt", -1, &n, &k), 0);
    assert_int_equal(k, 3);
    assert_int_equal(n[2].seat, 1);
    store_notes_free(n, k);
    /* the cap: 3 notes for seat 0 */
    assert_int_equal(s->vt->note_put(s, "nt", 0, "x", "third", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "y", "fourth", 3), ERR_FORBIDDEN);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "x", "third, again", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "x", NULL, 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "x", "", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nt", 0, "y", "fits now", 3), 0);
    assert_int_equal(s->vt->note_put(s, "nope", 0, "y", "x", 3), ERR_NOT_FOUND);
    assert_int_equal(s->vt->note_put(s, "nope", 0, "y", NULL, 3), ERR_NOT_FOUND);
    assert_int_equal(s->vt->notes(s, "nope", -1, &n, &k), 0);
    assert_int_equal(k, 0);
    assert_int_equal(store_delete(s, "nt"), 0);
    assert_int_equal(db->num(db->ctx, "SELECT count(*) FROM card_notes"), 0);
}

#endif
