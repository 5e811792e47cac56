/* notes.c: a seat's notes on cards, kept with the game (docs/api.md "Card
 * notes"): what a Hanabi player writes on a card ("chop", "5 save", "R?")
 * seen on any device of that seat, kept for the replay, and shown to every
 * reader once the game is over.
 *
 *   GET    /games/{id}/notes          the notes the caller may read
 *   PUT    /games/{id}/notes/{card}   {"text"}: a seat's note on a card
 *   DELETE /games/{id}/notes/{card}   the note gone
 *
 * While the game runs a seat's notes are its own: only its token reads or
 * writes them (the admin reads all; a spectator, the host or a resigned
 * person reads none). Once it is over every reader of the game reads every
 * seat's, and nobody writes. A card is named by a key the client chooses
 * (the page's names follow a card along its hand: "d1.3", "t12"): api/
 * knows nothing of cards, only that a key is 1 to STORE_NOTE_KEY characters
 * of [A-Za-z0-9._-]. Notes live in the store's card_notes table beside the
 * game, not in its state: a note never moves the game's version, ETag or
 * events (a player's next play is never refused as stale for a note). A
 * seat holds at most NOTES_MAX notes of at most NOTE_CHARS characters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "core/jsonx.h"

enum { NOTES_MAX = 100, NOTE_CHARS = 200 };
_Static_assert(NOTE_CHARS * 4 <= STORE_NOTE_TEXT, "a note's characters fit its bytes");

/* 0 when key names a card as a client may: 1 to STORE_NOTE_KEY of [A-Za-z0-9._-]. */
static int card_key_ok(const char *key)
{
    size_t n = strlen(key);
    if (n < 1 || n > STORE_NOTE_KEY)
        return -1;
    for (const char *p = key; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            return -1;
    return 0;
}

/* The text of a note: a string of at most NOTE_CHARS characters, none a
 * control character (text_chars); "" deletes. */
static int note_text(const json_t *body, const char **out, game_err *e)
{
    static const char *const allowed[] = {"text", NULL};
    if (jx_object(body, "", e) || reject_unknown(body, allowed, "", e))
        return ERR_BAD_MEMBER;
    const json_t *t = json_object_get(body, "text");
    if (!t)
        return err_set(e, ERR_BAD_MEMBER, "/text",
                       "a note is {\"text\": \"...\"} (\"\" deletes it)");
    if (jx_string(t, "/text", out, e))
        return ERR_BAD_MEMBER;
    long chars = text_chars(*out);
    if (chars < 0)
        return err_set(e, ERR_BAD_MEMBER, "/text", "a note holds no control character");
    if (chars > NOTE_CHARS)
        return err_set(e, ERR_BAD_MEMBER, "/text", "a note has at most %d characters (this has %ld)",
                       NOTE_CHARS, chars);
    return 0;
}

/* {"seat", "card", "text", "at"} */
static json_t *note_json(const store_card_note *n)
{
    return jx_obj(4, "seat", json_integer(n->seat), "card", jx_str(n->card), "text",
                  jx_str(n->text), "at", json_integer((json_int_t)n->at_ms));
}

static int over(const game_ctx *c)
{
    game_status gs;
    c->ops->status(c->st, &gs);
    return gs.over;
}

int h_notes_get(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
                http_res *res)
{
    (void)body;
    game_ctx c = {0};
    game_err e = {0};
    if (ctx_load(cfg, req, m->params[0], &c, &e)) {
        http_res_fail(res, req, &e);
        ctx_free(&c);
        return res->status;
    }
    /* whose notes: every seat's (-1) to whoever reads everything hidden
     * (the admin, and everyone once the game is over: ctx_sees_reasoning);
     * else the seat's own; none for the others (-2) */
    int whose = ctx_sees_reasoning(c.ops, c.st, c.seat) ? -1 : c.seat >= 0 && !c.resigned ? c.seat : -2;
    store_card_note *v = NULL;
    int k = 0, rc = whose == -2 ? 0 : cfg->store->vt->notes(cfg->store, c.row.id, whose, &v, &k);
    ctx_free(&c);
    if (rc) {
        err_set(&e, rc, NULL, "the notes could not be read");
        http_res_fail(res, req, &e);
        return res->status;
    }
    json_t *list = json_array();
    for (int i = 0; i < k; i++)
        json_array_append_new(list, note_json(&v[i]));
    store_notes_free(v, k);
    http_res_header(res, "Cache-Control", "no-store");
    http_res_json(res, 200,
                  jx_obj(2, "whose", jx_str(whose == -1 ? "all" : whose == -2 ? "none" : "seat"),
                         "notes", list));
    return res->status;
}

/* PUT (text) and DELETE (text NULL). */
static int note_write(const api_config *cfg, const http_req *req, const route_match *m,
                      const char *text, http_res *res)
{
    game_ctx c = {0};
    game_err e = {0};
    const char *card = m->params[1];
    int rc = card_key_ok(card) ? err_set(&e, ERR_BAD_QUERY, NULL,
                                          "a card's key is 1 to %d characters of A-Z a-z 0-9 . _ -",
                                          (int)STORE_NOTE_KEY)
                               : ctx_load(cfg, req, m->params[0], &c, &e);
    if (rc == ERR_BAD_QUERY) {
        http_res_problem(res, req, rc, &e, json_pack("{s:s}", "parameter", "card"));
        return res->status;
    }
    if (!rc && over(&c))
        rc = err_set(&e, ERR_GAME_OVER, NULL,
                     "the game is over: its notes are kept as they were, for everyone to read");
    else if (!rc && c.seat == SEAT_ADMIN)
        rc = err_set(&e, ERR_FORBIDDEN, NULL, "notes are a seat's: send the seat's own token");
    else if (!rc && (c.seat < 0 || c.resigned))
        rc = err_set(&e, ERR_UNAUTHORIZED, NULL,
                     "notes are a seat's: send its token as 'Authorization: Bearer <token>'");
    int seat = c.seat;
    char id[sizeof c.row.id];
    snprintf(id, sizeof id, "%s", c.row.id);
    ctx_free(&c);
    if (!rc) {
        rc = cfg->store->vt->note_put(cfg->store, id, seat, card, text, NOTES_MAX);
        if (rc == ERR_FORBIDDEN)
            err_set(&e, rc, NULL, "a seat keeps at most %d notes: delete one first", NOTES_MAX);
        else if (rc == ERR_NOT_FOUND)
            err_set(&e, rc, NULL, "no game '%s' (deleted meanwhile)", id);
        else if (rc)
            err_set(&e, rc, NULL, "the note could not be written");
    }
    if (rc) {
        http_res_fail(res, req, &e);
        return res->status;
    }
    if (text && *text)
        http_res_json(res, 200, jx_obj(3, "seat", json_integer(seat), "card", jx_str(card), "text",
                                       jx_str(text)));
    else
        http_res_raw(res, 204, NULL, NULL, 0);
    return res->status;
}

int h_note_put(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
               http_res *res)
{
    const char *text = NULL;
    game_err e = {0};
    if (note_text(body, &text, &e)) {
        http_res_fail(res, req, &e);
        return res->status;
    }
    return note_write(cfg, req, m, text, res);
}

int h_note_delete(const api_config *cfg, const http_req *req, const route_match *m, json_t *body,
                  http_res *res)
{
    (void)body;
    return note_write(cfg, req, m, NULL, res);
}
