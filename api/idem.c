/* idem.c: the Idempotency-Key request header (IETF httpapi draft
 * draft-ietf-httpapi-idempotency-key-header) on the routes that create or
 * change games (a route row's `keyed`): a client that got no answer sends
 * the same request again with the same key and gets the first answer,
 * never a second play or game.
 *
 * The one design choice: the answer is stored by the write itself, in the
 * write's own transaction (store.h: store_answer), so a key is answered if
 * and only if its write committed; a request that writes nothing (a 4xx,
 * a store failure known to have written nothing) leaves no answer and the
 * same key may be sent again. Before the handler runs, the key is claimed
 * (a pending row with a 30 s lease), so that a duplicate arriving while
 * the first is in flight gets a 409 (with Retry-After), from this process
 * or another; a pending row whose request is gone (its lease ran out, or
 * it belonged to this process and is no longer in flight here) is taken
 * over.
 *
 * Scope and secrecy: a key's row is named by a hash of the caller's
 * bearer token (none for anonymous creates and imports), the method, the
 * path (so per game for plays) and the key, so one client cannot reach
 * another's answers; the stored answer (seat tokens, the caller's view) is
 * sealed with AES-256-GCM under a key derived the same way, so the
 * database holds neither tokens nor views in clear, and only a request
 * bearing the same token, path and key can open it. Keys are 16 to 128
 * characters; answers are kept 24 hours, then purged.
 */
#include "api.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum {
    KEY_MIN = 16,
    KEY_MAX = 128,
    LEASE_S = 30,   /* a pending key's hold: longer than any request takes */
    KEEP_S = 86400, /* an answer is kept this long (README, openapi.yaml) */
    PURGE_EVERY_S = 60,
    BUSY_RETRY_S = 1,
    FLIGHT_MAX = 4096, /* keyed requests in flight in this process at once (>= --threads) */
    NONCE = 12,
    TAG = 16,
    IDEM_IN_FLIGHT = 1, /* idem_begin: the key is pending for a live request */
};

/* --- this process's keyed requests in flight ---------------------------------
 * A pending row owned by this process whose request is not in flight here
 * any more was left by a request that could not release it (the store was
 * unreachable): taken over at once instead of after its lease. */

static struct {
    pthread_mutex_t mu;
    char instance[24]; /* random, per process: the prefix of its owners */
    unsigned long seq;
    char (*ids)[65];
    int n;
    long long purged_at;
} F = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Add id to the set and name its owner: 0, or ERR_IDEM_BUSY when this
 * process handles the key already. */
static int flight_enter(const char *id, char owner[48])
{
    int ret = 0;
    pthread_mutex_lock(&F.mu);
    if (!F.instance[0]) {
        uint64_t r[2];
        if (rand_u64(&r[0]) || rand_u64(&r[1]))
            r[0] = (uint64_t)time(NULL), r[1] = (uint64_t)(uintptr_t)&F;
        snprintf(F.instance, sizeof F.instance, "%016llx", (unsigned long long)(r[0] ^ r[1]));
    }
    if (!F.ids && !(F.ids = calloc(FLIGHT_MAX, sizeof *F.ids)))
        ret = ERR_INTERNAL;
    for (int i = 0; !ret && i < F.n; i++)
        if (strcmp(F.ids[i], id) == 0)
            ret = ERR_IDEM_BUSY;
    if (!ret && F.n == FLIGHT_MAX)
        ret = ERR_IDEM_BUSY;
    if (!ret) {
        memcpy(F.ids[F.n++], id, 65);
        snprintf(owner, 48, "%s:%lu", F.instance, ++F.seq);
    }
    pthread_mutex_unlock(&F.mu);
    return ret;
}

static void flight_leave(const char *id)
{
    pthread_mutex_lock(&F.mu);
    for (int i = 0; i < F.n; i++)
        if (strcmp(F.ids[i], id) == 0) {
            memcpy(F.ids[i], F.ids[--F.n], 65);
            break;
        }
    pthread_mutex_unlock(&F.mu);
}

/* An owner of this process (its request is not in flight: flight_enter
 * said so for this very key). */
static int ours(const char *owner)
{
    size_t n = strlen(F.instance);
    return n && strncmp(owner, F.instance, n) == 0 && owner[n] == ':';
}

/* Purge expired keys at most once a minute per process. */
static void purge_now_and_then(const api_config *cfg)
{
    long long now = (long long)time(NULL);
    pthread_mutex_lock(&F.mu);
    int due = now - F.purged_at >= PURGE_EVERY_S;
    if (due)
        F.purged_at = now;
    pthread_mutex_unlock(&F.mu);
    if (due)
        cfg->store->vt->idem_purge(cfg->store);
}

/* --- the key, its scope, the fingerprint -------------------------------------- */

/* The header's key (an sf-string "...", or the bare characters): 0 with
 * [*k, *k + *n), or ERR_BAD_HEADER with the reason in e. */
static int parse_key(const char *v, const char **k, size_t *n, game_err *e)
{
    while (*v == ' ' || *v == '\t')
        v++;
    size_t len = strlen(v);
    while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
        len--;
    int quoted = len >= 2 && v[0] == '"' && v[len - 1] == '"';
    if (quoted) {
        v++;
        len -= 2;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x21 || c > 0x7e || c == '"' || c == '\\')
            return err_set(e, ERR_BAD_HEADER, NULL,
                           "Idempotency-Key: a key is visible ASCII characters without quotes or "
                           "backslashes, sent as a string: Idempotency-Key: \"<key>\"");
    }
    if (len < KEY_MIN || len > KEY_MAX)
        return err_set(e, ERR_BAD_HEADER, NULL,
                       "Idempotency-Key: a key has %d to %d characters (a UUID will do), "
                       "got %zu: a short key could be guessed",
                       KEY_MIN, KEY_MAX, len);
    *k = v;
    *n = len;
    return 0;
}

static EVP_MD *sha256;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static void sha256_fetch(void) { sha256 = EVP_MD_fetch(NULL, "SHA256", NULL); }

/* SHA-256 over a label and length-prefixed parts (so that no two lists of
 * parts hash alike). 0 or -1. */
static int digest(unsigned char out[32], const char *label, const char *const *parts,
                  const size_t *lens, int k)
{
    pthread_once(&sha256_once, sha256_fetch);
    EVP_MD_CTX *c = sha256 ? EVP_MD_CTX_new() : NULL;
    int ok = c && EVP_DigestInit_ex(c, sha256, NULL) &&
             EVP_DigestUpdate(c, label, strlen(label) + 1);
    for (int i = 0; ok && i < k; i++) {
        unsigned char n[8];
        for (int b = 0; b < 8; b++)
            n[b] = (unsigned char)((uint64_t)lens[i] >> (56 - 8 * b));
        ok = EVP_DigestUpdate(c, n, 8) && (!lens[i] || EVP_DigestUpdate(c, parts[i], lens[i]));
    }
    ok = ok && EVP_DigestFinal_ex(c, out, NULL);
    EVP_MD_CTX_free(c);
    return ok ? 0 : -1;
}

static void hex(const unsigned char d[32], char out[65])
{
    static const char x[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = x[d[i] >> 4];
        out[2 * i + 1] = x[d[i] & 15];
    }
    out[64] = 0;
}

/* The row's name, the sealing key and the request's fingerprint. */
static int derive(const http_req *req, const char *key, size_t klen, idem_ticket *t)
{
    char tok[256];
    const char *token = req_token(req, tok, sizeof tok);
    if (!token)
        token = "";
    const char *scope[4] = {token, req->method, req->path, key};
    size_t slen[4] = {strlen(token), strlen(req->method), strlen(req->path), klen};
    const char *ct = http_req_header(req, "Content-Type"), *im = http_req_header(req, "If-Match");
    const char *body[3] = {ct ? ct : "", im ? im : "", req->body ? req->body : ""};
    size_t blen[3] = {strlen(body[0]), strlen(body[1]), req->body ? req->body_len : 0};
    unsigned char id[32], fp[32];
    if (digest(id, "croupier idempotency key", scope, slen, 4) ||
        digest(t->seal, "croupier idempotency answer", scope, slen, 4) ||
        digest(fp, "croupier idempotency request", body, blen, 3))
        return -1;
    hex(id, t->row.id);
    hex(fp, t->row.fingerprint);
    return 0;
}

/* --- sealed answers -------------------------------------------------------------
 * An answer as stored: status (2 bytes), then length-prefixed content type,
 * header names and values (the handler's: ETag, Location), an empty name,
 * then the body; sealed as nonce | AES-256-GCM(that) | tag, the row's id as
 * associated data (an answer moved to another row does not open). */

static int put16(unsigned char **p, const unsigned char *end, const char *s, size_t n)
{
    if (n > 0xffff || (size_t)(end - *p) < n + 2)
        return -1;
    (*p)[0] = (unsigned char)(n >> 8);
    (*p)[1] = (unsigned char)n;
    memcpy(*p + 2, s, n);
    *p += n + 2;
    return 0;
}

static int seal(const idem_ticket *t, const http_res *ok, unsigned char **out, size_t *outlen)
{
    size_t head = 4 + strlen(ok->content_type) + 2;
    for (int i = 0; i < ok->nheaders; i++)
        head += 4 + strlen(ok->headers[i].name) + strlen(ok->headers[i].value);
    size_t plain_len = head + ok->body_len;
    unsigned char *plain = malloc(plain_len), *sealed = malloc(NONCE + plain_len + TAG);
    unsigned char *p = plain, *end = plain + head;
    int ret = -1, n = 0;
    EVP_CIPHER_CTX *c = NULL;
    if (!plain || !sealed)
        goto done;
    *p++ = (unsigned char)(ok->status >> 8);
    *p++ = (unsigned char)ok->status;
    if (put16(&p, end, ok->content_type, strlen(ok->content_type)))
        goto done;
    for (int i = 0; i < ok->nheaders; i++)
        if (put16(&p, end, ok->headers[i].name, strlen(ok->headers[i].name)) ||
            put16(&p, end, ok->headers[i].value, strlen(ok->headers[i].value)))
            goto done;
    if (put16(&p, end, "", 0))
        goto done;
    if (ok->body_len)
        memcpy(p, ok->body, ok->body_len);
    c = EVP_CIPHER_CTX_new();
    if (!c || rand_bytes(sealed, NONCE) ||
        !EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, t->seal, sealed) ||
        !EVP_EncryptUpdate(c, NULL, &n, (const unsigned char *)t->row.id, 64) ||
        !EVP_EncryptUpdate(c, sealed + NONCE, &n, plain, (int)plain_len) ||
        !EVP_EncryptFinal_ex(c, sealed + NONCE + n, &n) ||
        !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG, sealed + NONCE + plain_len))
        goto done;
    *out = sealed;
    *outlen = NONCE + plain_len + TAG;
    sealed = NULL;
    ret = 0;
done:
    EVP_CIPHER_CTX_free(c);
    free(plain);
    free(sealed);
    return ret;
}

static int get16(const unsigned char **p, const unsigned char *end, char *out, size_t cap)
{
    if (end - *p < 2)
        return -1;
    size_t n = (size_t)((*p)[0] << 8 | (*p)[1]);
    if ((size_t)(end - *p - 2) < n || n >= cap)
        return -1;
    memcpy(out, *p + 2, n);
    out[n] = 0;
    *p += n + 2;
    return 0;
}

/* The answer sealed in `blob` into res. 0, or -1 (it does not open). */
static int unseal(const idem_ticket *t, const unsigned char *blob, size_t len, http_res *res)
{
    if (len < NONCE + TAG + 4)
        return -1;
    size_t plain_len = len - NONCE - TAG;
    unsigned char *plain = malloc(plain_len);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0, ret = -1;
    if (!plain || !c || !EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), NULL, t->seal, blob) ||
        !EVP_DecryptUpdate(c, NULL, &n, (const unsigned char *)t->row.id, 64) ||
        !EVP_DecryptUpdate(c, plain, &n, blob + NONCE, (int)plain_len) ||
        !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG, (void *)(blob + NONCE + plain_len)) ||
        EVP_DecryptFinal_ex(c, plain + n, &n) <= 0)
        goto done;
    const unsigned char *p = plain + 2, *end = plain + plain_len;
    char ctype[64], name[32], value[224];
    if (get16(&p, end, ctype, sizeof ctype))
        goto done;
    res->nheaders = 0;
    for (;;) {
        if (get16(&p, end, name, sizeof name))
            goto done;
        if (!name[0])
            break;
        if (get16(&p, end, value, sizeof value))
            goto done;
        http_res_header(res, name, "%s", value);
    }
    if (http_res_raw(res, plain[0] << 8 | plain[1], ctype, (const char *)p, (size_t)(end - p)))
        goto done;
    ret = 0;
done:
    EVP_CIPHER_CTX_free(c);
    free(plain);
    return ret;
}

/* The key's stored answer into res, marked as a replay; or the 422 when
 * the request is not the one that stored it. */
static int replay(const http_req *req, idem_ticket *t, const store_idem *row, http_res *res)
{
    game_err e = {0};
    if (strcmp(row->fingerprint, t->row.fingerprint) != 0) {
        err_set(&e, ERR_IDEM_REUSED, NULL,
                "this Idempotency-Key was used for another request (another body, Content-Type "
                "or If-Match): a key names one request; send a new key for a new request");
        return http_res_problem(res, req, ERR_IDEM_REUSED, &e,
                                json_pack("{s:s}", "header", "Idempotency-Key"));
    }
    if (unseal(t, row->answer, row->answer_len, res)) {
        memset(res, 0, sizeof *res);
        err_set(&e, ERR_INTERNAL, NULL, "the stored answer of this Idempotency-Key does not open");
        return http_res_problem(res, req, ERR_INTERNAL, &e, NULL);
    }
    http_res_header(res, "Idempotent-Replayed", "true");
    t->answered = 1;
    return 0;
}

static int in_flight(const http_req *req, http_res *res)
{
    game_err e = {0};
    err_set(&e, ERR_IDEM_BUSY, NULL,
            "a request with this Idempotency-Key is being handled: send it again in a moment, "
            "with the same key, to get its answer");
    http_res_header(res, "Retry-After", "%d", (int)BUSY_RETRY_S);
    return http_res_problem(res, req, ERR_IDEM_BUSY, &e,
                            json_pack("{s:s}", "header", "Idempotency-Key"));
}

/* --- the request's course ----------------------------------------------------- */

int idem_begin(const api_config *cfg, const http_req *req, idem_ticket *t, http_res *res)
{
    memset(t, 0, sizeof *t);
    game_err e = {0};
    const char *v = NULL;
    int count = 0;
    for (int i = 0; i < req->nheaders; i++)
        if (req->headers[i].name && strcasecmp(req->headers[i].name, "Idempotency-Key") == 0) {
            v = req->headers[i].value;
            count++;
        }
    if (!count)
        return 0;
    const char *key = NULL;
    size_t klen = 0;
    if (count > 1)
        err_set(&e, ERR_BAD_HEADER, NULL, "Idempotency-Key: send one key, not %d", count);
    else
        parse_key(v ? v : "", &key, &klen, &e);
    if (e.code) {
        http_res_problem(res, req, e.code, &e, json_pack("{s:s}", "header", "Idempotency-Key"));
        return 1;
    }
    if (derive(req, key, klen, t)) {
        err_set(&e, ERR_INTERNAL, NULL, "no digest for the Idempotency-Key");
        http_res_fail(res, req, &e);
        return 1;
    }
    int rc = flight_enter(t->row.id, t->row.owner);
    if (rc == ERR_IDEM_BUSY) {
        in_flight(req, res);
        return 1;
    }
    if (rc) {
        err_set(&e, rc, NULL, "out of memory");
        http_res_fail(res, req, &e);
        return 1;
    }
    store *s = cfg->store;
    for (int tries = 0; tries < 3; tries++) {
        store_idem row = t->row;
        row.answer = NULL;
        rc = s->vt->idem_claim(s, &row, LEASE_S);
        if (rc == ERR_IDEM_BUSY && !row.done && row.live && !ours(row.owner) &&
            strcmp(row.fingerprint, t->row.fingerprint) == 0)
            rc = IDEM_IN_FLIGHT; /* pending elsewhere, its request not known gone */
        else if (rc == ERR_IDEM_BUSY && !row.done &&
                 strcmp(row.fingerprint, t->row.fingerprint) == 0) /* its request is gone */
            rc = s->vt->idem_take(s, t->row.id, row.owner, t->row.owner, LEASE_S);
        if (rc == 0) {
            t->on = 1; /* ours: the handler runs */
            return 0;
        }
        if (rc == ERR_IDEM_BUSY && (row.done || strcmp(row.fingerprint, t->row.fingerprint)))
            replay(req, t, &row, res); /* its answer, or 422 for another request's key */
        else if (rc == IDEM_IN_FLIGHT)
            in_flight(req, res);
        store_idem_free(&row);
        if (res->status)
            break;
        if (rc != ERR_IDEM_BUSY) {
            err_set(&e, ERR_STORE, NULL, "the store could not take the Idempotency-Key");
            http_res_fail(res, req, &e);
            break;
        }
    }
    if (!res->status) {
        err_set(&e, ERR_STORE, NULL, "the store could not take the Idempotency-Key");
        http_res_fail(res, req, &e);
    }
    flight_leave(t->row.id);
    return 1;
}

int idem_answer(const idem_ticket *t, const http_res *ok, store_answer *a)
{
    memset(a, 0, sizeof *a);
    if (!t || !t->on)
        return 0;
    unsigned char *blob = NULL;
    size_t len = 0;
    if (seal(t, ok, &blob, &len))
        return ERR_INTERNAL;
    a->id = t->row.id;
    a->fingerprint = t->row.fingerprint;
    a->owner = t->row.owner;
    a->answer = blob;
    a->answer_len = len;
    a->keep_s = KEEP_S;
    return 0;
}

void idem_answer_free(store_answer *a)
{
    free((void *)a->answer);
    memset(a, 0, sizeof *a);
}

int idem_settled(const api_config *cfg, const http_req *req, idem_ticket *t, int rc,
                 http_res *res)
{
    if (!t || !t->on)
        return rc;
    if (rc == 0) {
        t->answered = 1; /* stored with the write */
        return 0;
    }
    t->unknown = rc == ERR_OUTCOME_UNKNOWN;
    if (rc != ERR_IDEM_BUSY && rc != ERR_CONFLICT)
        return rc;
    /* another request with this key may have written first: its answer */
    store_idem row = t->row;
    row.answer = NULL;
    int got = cfg->store->vt->idem_get(cfg->store, &row);
    if (got == 0 && row.done) {
        memset(res, 0, sizeof *res);
        replay(req, t, &row, res);
        store_idem_free(&row);
        return 0;
    }
    store_idem_free(&row);
    return rc == ERR_IDEM_BUSY ? ERR_CONFLICT : rc;
}

void idem_end(const api_config *cfg, idem_ticket *t, const http_res *res)
{
    if (!t->on)
        return;
    (void)res;
    /* an answer that was not stored: the request wrote nothing (or, when
     * the outcome is unknown, it cannot say: the row waits for a retry to
     * take it over, or for its lease) */
    if (!t->answered && !t->unknown)
        cfg->store->vt->idem_release(cfg->store, t->row.id, t->row.owner);
    flight_leave(t->row.id);
    purge_now_and_then(cfg);
}
