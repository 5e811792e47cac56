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
 * (a claim with a lease of LEASE_S, renewed every RENEW_S while the
 * request runs), so that a duplicate arriving while the first is in flight
 * gets a 409 (with Retry-After), from this process or another. A claim
 * whose request is gone is taken over: at once when its owner was this
 * process (no longer in flight here) or a process of this host that no
 * longer runs (the owner's name says which: below), else when its lease
 * runs out, seconds after its owner stopped renewing it. Whoever takes a
 * claim over, the write decides: an answer is inserted once per key, and a
 * second write with the key changes nothing.
 *
 * Compact answers: what a retry needs to give the same answer, not the
 * answer. An answer about a game (a play, a resignation, a new game) is
 * stored without the parts that the game at the write's version gives
 * back byte for byte (the applied records, which the play log holds; the
 * reader's view and the status, which the state gives), each cut out only
 * when rebuilding it at the write gives exactly the bytes answered; the
 * rest (status, headers, what is left of the body: a new game's seat
 * tokens) is LZ4-compressed when that is shorter, then sealed. A Hanabi
 * play's 2.4 KB answer is stored as 167 bytes.
 *
 * Scope and secrecy: a key's row is named by a hash of the caller's
 * bearer token (none for anonymous creates and imports), the method, the
 * path (so per game for plays) and the key, so one client cannot reach
 * another's answers; the stored answer is sealed with AES-256-GCM under a
 * key derived the same way, so the database holds neither tokens nor views
 * in clear, and only a request bearing the same token, path and key can
 * open it. The request's fingerprint hashes its Content-Type, If-Match and
 * body, a JSON body as parsed (jansson: keys sorted, compact), so that the
 * same JSON spelled otherwise is the same request. Keys are 16 to 128
 * characters; answers are kept 24 hours (idem_configure), then purged.
 */
#include "api.h"
#include "json_arena.h"
#include "json_out.h"
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum {
    KEY_MIN = 16,
    KEY_MAX = 128,
    LEASE_S = 10,   /* a claim's hold: renewed every RENEW_S while its request runs */
    RENEW_S = 2,
    PURGE_EVERY_S = 60,
    BUSY_RETRY_S = 1,
    FLIGHT_MAX = 4096, /* keyed requests in flight in this process at once (>= --threads) */
    NONCE = 12,
    TAG = 16,
    RAW_MAX = 64 << 20, /* an answer's bytes before compression, at most */
};

static int keep_s = IDEM_KEEP_DEFAULT_S;

void idem_configure(int s)
{
    keep_s = s < IDEM_KEEP_MIN_S ? IDEM_KEEP_MIN_S : s > IDEM_KEEP_MAX_S ? IDEM_KEEP_MAX_S : s;
}

/* --- who holds a claim --------------------------------------------------------
 * A claim's owner is "<host>.<pid>.<start>:<request>": host a hash of the
 * kernel's boot id and the process's pid namespace (who shares them sees
 * the same processes under the same pids in /proc), pid and start time
 * (clock ticks after boot: /proc/PID/stat, so that a pid used again is
 * another process) of the process, and a request number of its own. A
 * process of the same host reads /proc/PID/stat: gone, a zombie, or another
 * start, and the owner is dead. A process of another host (or one whose
 * /proc does not show its own pid) cannot tell: it waits for the lease. */

enum { OWNER_SELF, OWNER_LIVE, OWNER_DEAD, OWNER_UNKNOWN };

static struct {
    pthread_once_t once;
    char host[17];
    int host_known;
    char name[48]; /* "<host>.<pid>.<start>" */
} Self = {.once = PTHREAD_ONCE_INIT};

/* The state letter and start time of process pid: 0, 1 there is none, -1
 * /proc does not say. */
static int proc_stat(long pid, char *state, unsigned long long *start)
{
    char path[48], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH ? 1 : -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return n == 0 || errno == ESRCH ? 1 : -1;
    buf[n] = 0;
    /* pid (comm) state ppid ...: start time is field 22, the 20th after ')' */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2])
        return -1;
    *state = p[2];
    p += 2;
    for (int field = 0; field < 19 && p; field++)
        p = strchr(p + 1, ' ');
    return p && sscanf(p, " %llu", start) == 1 ? 0 : -1;
}

static void self_init(void)
{
    char boot[64] = "", ns[64] = "", stat[64] = "";
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, boot, sizeof boot - 1) : -1;
    if (fd >= 0)
        close(fd);
    ssize_t m = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t k = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
    if (fd >= 0)
        close(fd);
    char st;
    unsigned long long start = 0;
    long pid = (long)getpid();
    /* this /proc shows this process under its own pid */
    Self.host_known = n > 0 && m > 0 && k > 0 && strtol(stat, NULL, 10) == pid &&
                      proc_stat(pid, &st, &start) == 0;
    uint64_t h[2] = {0, 0};
    if (Self.host_known) {
        boot[n] = ns[m] = 0;
        unsigned char d[32];
        unsigned int dl = 0;
        char both[128];
        snprintf(both, sizeof both, "%s|%s", boot, ns);
        Self.host_known = EVP_Digest(both, strlen(both), d, &dl, EVP_sha256(), NULL) == 1;
        memcpy(h, d, sizeof h);
    }
    if (!Self.host_known && (rand_u64(&h[0]) || rand_u64(&h[1])))
        h[0] = (uint64_t)time(NULL) ^ (uint64_t)pid << 32;
    snprintf(Self.host, sizeof Self.host, "%016llx", (unsigned long long)(h[0] ^ h[1]));
    snprintf(Self.name, sizeof Self.name, "%s.%ld.%llu", Self.host, pid, start);
}

/* Whether the process that owns a claim runs. */
static int owner_state(const char *owner)
{
    pthread_once(&Self.once, self_init);
    size_t n = strlen(Self.name);
    if (strncmp(owner, Self.name, n) == 0 && owner[n] == ':')
        return OWNER_SELF;
    char host[17], state;
    long pid;
    unsigned long long start, now;
    if (!Self.host_known || sscanf(owner, "%16[0-9a-f].%ld.%llu:", host, &pid, &start) != 3 ||
        strcmp(host, Self.host) != 0 || pid <= 0)
        return OWNER_UNKNOWN;
    int r = proc_stat(pid, &state, &now);
    if (r == 1 || (r == 0 && (now != start || state == 'Z' || state == 'X')))
        return OWNER_DEAD;
    return r == 0 ? OWNER_LIVE : OWNER_UNKNOWN;
}

/* --- this process's keyed requests in flight, and its keeper -------------------
 * A claim owned by this process whose request is not in flight here any
 * more was left by a request that could not release it (the store was
 * unreachable): taken over at once. The keeper renews the claims of
 * requests running for RENEW_S or more, drops the claims of requests whose
 * store failed (so that they answer without waiting on it once more), and
 * purges expired keys when a keyed request ended PURGE_EVERY_S after the
 * last purge. */

typedef struct flight {
    unsigned char id[STORE_IDEM_HASH];
    char owner[STORE_IDEM_OWNER];
    long long since;
} flight;

static struct {
    pthread_mutex_t mu;
    unsigned long seq;
    flight *f;
    int n;
    flight *drop; /* claims for the keeper to release */
    int ndrop;
    long long purged_at;
    /* the keeper */
    pthread_cond_t cv;
    pthread_t th;
    int running, stop, purge;
    store *store;
} F = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static long long mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec;
}

/* Add id to the set and name its owner: 0, or ERR_IDEM_BUSY when this
 * process handles the key already. */
static int flight_enter(const unsigned char *id, char owner[STORE_IDEM_OWNER])
{
    pthread_once(&Self.once, self_init);
    int ret = 0;
    pthread_mutex_lock(&F.mu);
    if ((!F.f && !(F.f = calloc(FLIGHT_MAX, sizeof *F.f))) ||
        (!F.drop && !(F.drop = calloc(FLIGHT_MAX, sizeof *F.drop))))
        ret = ERR_INTERNAL;
    for (int i = 0; !ret && i < F.n; i++)
        if (memcmp(F.f[i].id, id, STORE_IDEM_HASH) == 0)
            ret = ERR_IDEM_BUSY;
    if (!ret && F.n == FLIGHT_MAX)
        ret = ERR_IDEM_BUSY;
    if (!ret) {
        flight *f = &F.f[F.n++];
        memcpy(f->id, id, STORE_IDEM_HASH);
        snprintf(owner, STORE_IDEM_OWNER, "%s:%lu", Self.name, ++F.seq);
        snprintf(f->owner, sizeof f->owner, "%s", owner);
        f->since = mono_s();
    }
    pthread_mutex_unlock(&F.mu);
    return ret;
}

/* Take id out of the set; `drop`: the keeper is to release its claim
 * (0: done here, or not to be done). 1 when the keeper took it. */
static int flight_leave(const unsigned char *id, int drop)
{
    int taken = 0;
    pthread_mutex_lock(&F.mu);
    for (int i = 0; i < F.n; i++)
        if (memcmp(F.f[i].id, id, STORE_IDEM_HASH) == 0) {
            if (drop && F.running && F.ndrop < FLIGHT_MAX) {
                F.drop[F.ndrop++] = F.f[i];
                pthread_cond_signal(&F.cv);
                taken = 1;
            }
            F.f[i] = F.f[--F.n];
            break;
        }
    pthread_mutex_unlock(&F.mu);
    return taken;
}

/* After a keyed request: purge expired keys at most once a minute per
 * process, by the keeper when it runs, else here. */
static void purge_now_and_then(const api_config *cfg)
{
    long long now = mono_s();
    pthread_mutex_lock(&F.mu);
    int due = !F.purged_at || now - F.purged_at >= PURGE_EVERY_S, inline_ = due && !F.running;
    if (due) {
        F.purged_at = now;
        F.purge = 1;
        pthread_cond_signal(&F.cv);
    }
    pthread_mutex_unlock(&F.mu);
    if (inline_)
        cfg->store->vt->idem_purge(cfg->store);
}

static void *keeper(void *arg)
{
    (void)arg;
    flight *due = malloc(FLIGHT_MAX * sizeof *due), *drop = malloc(FLIGHT_MAX * sizeof *drop);
    pthread_mutex_lock(&F.mu);
    while (due && drop && !F.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += RENEW_S;
        while (!F.stop && !F.purge && !F.ndrop &&
               pthread_cond_timedwait(&F.cv, &F.mu, &until) != ETIMEDOUT)
            ;
        if (F.stop)
            break;
        long long now = mono_s();
        int k = 0, nd = F.ndrop, purge = F.purge;
        F.purge = 0;
        if (nd) /* F.drop exists once a keyed request came */
            memcpy(drop, F.drop, (size_t)nd * sizeof *drop);
        F.ndrop = 0;
        for (int i = 0; i < F.n; i++)
            if (now - F.f[i].since >= RENEW_S)
                due[k++] = F.f[i];
        pthread_mutex_unlock(&F.mu);
        for (int i = 0; i < nd; i++) /* taken over meanwhile: another owner's, kept */
            F.store->vt->idem_release(F.store, drop[i].id, drop[i].owner);
        for (int i = 0; i < k; i++) /* a claim gone meanwhile is not renewed: BUSY */
            F.store->vt->idem_take(F.store, due[i].id, due[i].owner, due[i].owner, LEASE_S);
        if (purge)
            F.store->vt->idem_purge(F.store);
        pthread_mutex_lock(&F.mu);
    }
    pthread_mutex_unlock(&F.mu);
    free(due);
    free(drop);
    return NULL;
}

int idem_start(store *s)
{
    pthread_mutex_lock(&F.mu);
    F.store = s;
    F.stop = 0;
    F.running = pthread_create(&F.th, NULL, keeper, NULL) == 0;
    int ok = F.running;
    pthread_mutex_unlock(&F.mu);
    return ok ? 0 : -1;
}

void idem_stop(void)
{
    pthread_mutex_lock(&F.mu);
    int running = F.running;
    F.stop = 1;
    pthread_cond_signal(&F.cv);
    pthread_mutex_unlock(&F.mu);
    if (running)
        pthread_join(F.th, NULL);
    pthread_mutex_lock(&F.mu);
    F.running = 0;
    pthread_mutex_unlock(&F.mu);
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

/* The request's fingerprint: its Content-Type, If-Match and body, the body
 * as jansson writes its parse with keys sorted when it is JSON (`body`;
 * NULL: its bytes). `legacy`: the bytes as they came, as the release
 * before schema 4 hashed every request (its answers are still kept). */
static int fingerprint(const http_req *req, const json_t *body, int legacy,
                       unsigned char out[STORE_IDEM_HASH])
{
    const char *ct = http_req_header(req, "Content-Type"), *im = http_req_header(req, "If-Match");
    char *canon = !legacy && body ? json_text(body, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY)
                                  : NULL;
    if (!legacy && body && !canon)
        return -1;
    const char *parts[3] = {ct ? ct : "", im ? im : "",
                            canon ? canon : req->body ? req->body : ""};
    size_t lens[3] = {strlen(parts[0]), strlen(parts[1]),
                      canon ? strlen(canon) : req->body ? req->body_len : 0};
    unsigned char d[32];
    int rc = digest(d, legacy ? "croupier idempotency request"
                              : "croupier idempotency request, JSON as parsed",
                    parts, lens, 3);
    free(canon);
    memcpy(out, d, STORE_IDEM_HASH);
    return rc;
}

/* The row's name, the sealing key and the request's fingerprint. */
static int derive(const http_req *req, const json_t *body, const char *key, size_t klen,
                  idem_ticket *t)
{
    char tok[256];
    const char *token = req_token(req, tok, sizeof tok);
    if (!token)
        token = "";
    const char *scope[4] = {token, req->method, req->path, key};
    size_t slen[4] = {strlen(token), strlen(req->method), strlen(req->path), klen};
    unsigned char id[32];
    if (digest(id, "croupier idempotency key", scope, slen, 4) ||
        digest(t->seal, "croupier idempotency answer", scope, slen, 4) ||
        fingerprint(req, body, 0, t->row.fingerprint))
        return -1;
    hex(id, t->hash);
    memcpy(t->row.id, id, STORE_IDEM_HASH);
    return 0;
}

/* A stored fingerprint is this request's: as this release takes it, or as
 * the release before schema 4 took the same bytes. */
static int same_request(const http_req *req, idem_ticket *t, const unsigned char *fp)
{
    if (memcmp(fp, t->row.fingerprint, STORE_IDEM_HASH) == 0)
        return 1;
    if (!t->has_legacy)
        t->has_legacy = fingerprint(req, NULL, 1, t->legacy) == 0;
    return t->has_legacy && memcmp(fp, t->legacy, STORE_IDEM_HASH) == 0;
}

/* --- the parts of an answer that the game gives back ---------------------------- */

enum { PIECE_APPLIED = 1, PIECE_STATE, PIECE_STATUS, PIECES = 3, PIECE_MIN = 16 };

/* The length of record text r[0..n) without its last member when that is
 * "reasoning" (a string): the log's record keeps a bot's reasoning there
 * (gamectx.c, logged_record), which an answer shows only to the admin or at
 * the game's end. An answer that did show it is not rebuilt the same, and
 * is then stored whole (answer_pieces compares the bytes). */
static size_t without_reasoning(const char *r, size_t n)
{
    static const char key[] = ",\"reasoning\":";
    const size_t kl = sizeof key - 1;
    if (n < kl + 3 || r[n - 1] != '}')
        return n;
    for (size_t i = n - kl - 3;; i--) {
        if (memcmp(r + i, key, kl) == 0) {
            json_t *v = json_loadb(r + i + kl, n - 1 - (i + kl), JSON_DECODE_ANY, NULL);
            int str = json_is_string(v);
            json_decref(v);
            return str ? i + 1 : n; /* i + 1: the '}' written back after it */
        }
        if (i == 0)
            return n;
    }
}

/* The applied records of a write as the answer writes them, from its log
 * rows: each record without its reasoning, then its explanation, then (when
 * the answer shows it: `reasoning`, gamectx.c's ctx_sees_reasoning) its
 * reasoning, as ctx_show_reasoning adds it last. */
static char *applied_text(const store_play *rows, int k, int reasoning, size_t *len)
{
    size_t cap = 2;
    for (int i = 0; i < k; i++)
        cap += strlen(rows[i].record ? rows[i].record : "") + 1 +
               (rows[i].explanation ? 6 * strlen(rows[i].explanation) + 20 : 0);
    char *out = malloc(cap + 1), *p = out;
    if (!out)
        return NULL;
    *p++ = '[';
    for (int i = 0, first = 1; i < k; i++) {
        const char *r = rows[i].record;
        size_t n = r ? strlen(r) : 0;
        if (rows[i].kind == STORE_NOTE)
            continue;
        if (n < 2 || r[0] != '{' || r[n - 1] != '}') {
            free(out);
            return NULL;
        }
        if (!first)
            *p++ = ',';
        first = 0;
        size_t keep = without_reasoning(r, n);
        memcpy(p, r, keep);
        p += keep;
        if (keep < n)
            p[-1] = '}'; /* the ',' of the member cut */
        if (rows[i].explanation) {
            json_t *s = json_string(rows[i].explanation);
            size_t sl = 0;
            char *st = s ? json_out(s, &sl) : NULL;
            json_decref(s);
            if (!st || sl + 16 > 6 * strlen(rows[i].explanation) + 20) {
                free(st);
                free(out);
                return NULL;
            }
            p--; /* the record's '}' */
            p += sprintf(p, "%s\"explanation\":%s}", n > 2 ? "," : "", st);
            free(st);
        }
        if (reasoning && keep < n) { /* the member cut, written back last */
            p--;
            memcpy(p, r + keep - 1, n - keep + 1); /* ,"reasoning":"..."} */
            p += n - keep + 1;
        }
    }
    *p++ = ']';
    *p = 0;
    *len = (size_t)(p - out);
    return out;
}

/* The text of piece `kind` of an answer about g: malloc'd, or NULL. */
static char *piece_text(const idem_game *g, int kind, size_t *len)
{
    json_t *v = NULL;
    char *t = NULL;
    if (kind == PIECE_APPLIED) {
        game_status gs;
        g->ops->status(g->st, &gs);
        return applied_text(g->rows, g->k, g->reader == SEAT_ADMIN || gs.over, len);
    }
    if (kind == PIECE_STATE) { /* as h_games.c's state_value() */
        if (g->ops->view_text && (t = g->ops->view_text(g->st, g->reader, len)))
            return t;
        v = g->ops->view(g->st, g->reader);
    } else {
        v = g->hooks->status(g->ops, g->st);
    }
    t = v ? json_out(v, len) : NULL;
    json_decref(v);
    return t;
}

/* The game g->id as it was at g->version, for rebuilding an answer's
 * pieces: g->st (malloc'd) and g->rows (the write's rows, inside *plays,
 * malloc'd). 0, ERR_NOT_FOUND (the game was deleted since), ERR_STORE,
 * ERR_INTERNAL, with e filled. */
static int game_then(const api_config *cfg, idem_game *g, store_play **plays, int *np,
                     game_err *e)
{
    store_row row = {0};
    int n = 0, first = -1, last = -1, rc = store_get(cfg->store, g->id, &row);
    store_play *p = NULL;
    void *st = NULL;
    if (rc == ERR_NOT_FOUND) {
        err_set(e, ERR_NOT_FOUND, NULL,
                "the game '%s' that this Idempotency-Key's answer is about was deleted since",
                g->id);
        goto done;
    }
    if (rc) {
        err_set(e, rc, NULL, "the store could not be read");
        goto done;
    }
    g->ops = game_find(row.game);
    if (!g->ops || !(st = malloc(g->ops->state_size)) || row.version < g->version) {
        rc = err_set(e, ERR_INTERNAL, NULL, "the game of this Idempotency-Key's answer is unreadable");
        goto done;
    }
    if ((rc = store_plays(cfg->store, g->id, -2, 0, 0, &p, &n))) {
        err_set(e, rc, NULL, "the store could not be read");
        goto done;
    }
    long upto = -1; /* the last play of the write (or before it) */
    for (int i = 0; i < n; i++) {
        if (p[i].version <= g->version)
            upto = p[i].n;
        if (p[i].version == g->version) {
            first = first < 0 ? i : first;
            last = i;
        }
    }
    if (row.version != g->version || row.snap_version != g->version ||
        snap_unpack(g->ops, g->id, g->version, row.snap, row.snap_len, st))
        rc = g->hooks->rebuild(cfg, g->ops, g->id, upto, st, NULL, NULL, e);
done:
    store_row_free(&row);
    if (rc) {
        free(st);
        store_plays_free(p, n);
        return rc;
    }
    g->st = st;
    g->rows = first >= 0 ? p + first : NULL;
    g->k = first >= 0 ? last - first + 1 : 0;
    *plays = p;
    *np = n;
    return 0;
}

/* --- stored answers -------------------------------------------------------------
 * An answer as stored: a format byte, then (ANSWER_LZ4: the length of the
 * layout and its LZ4 block, or ANSWER_PLAIN: the layout itself) the layout:
 * status (2 bytes), length-prefixed content type, header names and values
 * (the handler's: ETag, Location), an empty name; the pieces cut out of the
 * body: their count, and when there are some, the game (its id, version
 * and the reader), and each piece's kind and offset in what is left of the
 * body; then what is left of the body. Sealed as nonce | AES-256-GCM(that)
 * | tag, the key's hash as associated data (an answer moved to another row
 * does not open). An answer of the release before schema 4 has no format
 * byte (its layout starts with the status: below 0x80) and no pieces. */

enum { ANSWER_PLAIN = 0x81, ANSWER_LZ4 = 0x82, LZ4_MIN = 256 /* shorter: stored plain */ };

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
    int bad;
} bytes;

static void put(bytes *b, const void *s, size_t n)
{
    if (b->bad || (n > b->cap - b->n && !(b->bad = 1)))
        return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void put_u(bytes *b, uint64_t v, int width)
{
    unsigned char t[8];
    for (int i = 0; i < width; i++)
        t[i] = (unsigned char)(v >> (8 * (width - 1 - i)));
    put(b, t, (size_t)width);
}

/* A string with its length in `width` bytes (1 or 2). */
static void put_str(bytes *b, const char *s, size_t n, int width)
{
    if (n >= (size_t)1 << (8 * width)) {
        b->bad = 1;
        return;
    }
    put_u(b, n, width);
    put(b, s, n);
}

static int get_u(const unsigned char **p, const unsigned char *end, int width, uint64_t *v)
{
    if (end - *p < width)
        return -1;
    *v = 0;
    for (int i = 0; i < width; i++)
        *v = *v << 8 | (*p)[i];
    *p += width;
    return 0;
}

static int get_str(const unsigned char **p, const unsigned char *end, int width, char *out,
                   size_t cap)
{
    uint64_t n;
    if (get_u(p, end, width, &n) || (uint64_t)(end - *p) < n || n >= cap)
        return -1;
    memcpy(out, *p, (size_t)n);
    out[n] = 0;
    *p += n;
    return 0;
}

/* The pieces of ok's body that g gives back, in order: their count,
 * kinds, offsets in the body (at) and lengths. */
typedef struct cuts {
    int n;
    int kind[PIECES];
    size_t at[PIECES], len[PIECES];
} cuts;

/* The first place of needle (n bytes, n >= PIECE_MIN) in hay: memmem of
 * its head, then the whole compared (a view is kilobytes long, and glibc's
 * memmem of a long needle costs more than the answer's sealing). */
static const char *find(const char *hay, size_t hn, const char *needle, size_t n)
{
    const char *end = hay + hn;
    while (hay && (size_t)(end - hay) >= n) {
        const char *at = memmem(hay, (size_t)(end - hay) - (n - PIECE_MIN), needle, PIECE_MIN);
        if (!at || memcmp(at + PIECE_MIN, needle + PIECE_MIN, n - PIECE_MIN) == 0)
            return at;
        hay = at + 1;
    }
    return NULL;
}

static cuts find_pieces(const idem_game *g, const http_res *ok)
{
    cuts c = {0};
    size_t from = 0;
    for (int kind = PIECE_APPLIED; g && kind <= PIECE_STATUS; kind++) {
        size_t len = 0;
        char *t = piece_text(g, kind, &len);
        const char *hit = t && len >= PIECE_MIN && from < ok->body_len
                              ? find(ok->body + from, ok->body_len - from, t, len)
                              : NULL;
        free(t);
        if (!hit)
            continue;
        c.kind[c.n] = kind;
        c.at[c.n] = (size_t)(hit - ok->body);
        c.len[c.n++] = len;
        from = (size_t)(hit - ok->body) + len;
    }
    return c;
}

/* The layout of ok (its cut pieces left out) into *out, malloc'd. */
static int layout(const http_res *ok, const idem_game *g, const cuts *c, bytes *b)
{
    size_t need = 64 + strlen(ok->content_type) + ok->body_len + 16 * PIECES + 80;
    for (int i = 0; i < ok->nheaders; i++)
        need += 4 + strlen(ok->headers[i].name) + strlen(ok->headers[i].value);
    if (!(b->p = malloc(need)))
        return -1;
    b->cap = need;
    put_u(b, (uint64_t)ok->status, 2);
    put_str(b, ok->content_type, strlen(ok->content_type), 2);
    for (int i = 0; i < ok->nheaders; i++) {
        put_str(b, ok->headers[i].name, strlen(ok->headers[i].name), 2);
        put_str(b, ok->headers[i].value, strlen(ok->headers[i].value), 2);
    }
    put_str(b, "", 0, 2);
    put_u(b, (uint64_t)c->n, 1);
    size_t cut = 0;
    if (c->n) {
        put_str(b, g->id, strlen(g->id), 1);
        put_u(b, (uint64_t)g->version, 8);
        put_u(b, (uint64_t)(uint16_t)g->reader, 2);
        for (int i = 0; i < c->n; i++) {
            put_u(b, (uint64_t)c->kind[i], 1);
            put_u(b, c->at[i] - cut, 4); /* where it goes in what is left */
            cut += c->len[i];
        }
    }
    size_t at = 0;
    for (int i = 0; i < c->n; i++) {
        put(b, ok->body + at, c->at[i] - at);
        at = c->at[i] + c->len[i];
    }
    if (ok->body_len > at)
        put(b, ok->body + at, ok->body_len - at);
    return b->bad ? -1 : 0;
}

/* GCM of `plain` (n bytes) under the ticket's key into a new buffer. */
static int gcm(const idem_ticket *t, int enc, const unsigned char *in, size_t n,
               unsigned char *out)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int k = 0, ok = c != NULL && n <= (size_t)INT32_MAX;
    if (enc) {
        ok = ok && rand_bytes(out, NONCE) == 0 &&
             EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, t->seal, out) &&
             EVP_EncryptUpdate(c, NULL, &k, (const unsigned char *)t->hash, 64) &&
             EVP_EncryptUpdate(c, out + NONCE, &k, in, (int)n) &&
             EVP_EncryptFinal_ex(c, out + NONCE + k, &k) &&
             EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG, out + NONCE + n);
    } else {
        ok = ok && EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), NULL, t->seal, in) &&
             EVP_DecryptUpdate(c, NULL, &k, (const unsigned char *)t->hash, 64) &&
             EVP_DecryptUpdate(c, out, &k, in + NONCE, (int)(n - NONCE - TAG)) &&
             EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG, (void *)(in + n - TAG)) &&
             EVP_DecryptFinal_ex(c, out + k, &k) > 0;
    }
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : -1;
}

static int seal(const idem_ticket *t, const http_res *ok, const idem_game *g,
                unsigned char **out, size_t *outlen)
{
    cuts c = find_pieces(g, ok);
    bytes b = {0};
    unsigned char *plain = NULL, *sealed = NULL;
    int ret = -1;
    if (layout(ok, g, &c, &b) || b.n > RAW_MAX)
        goto done;
    int bound = b.n >= LZ4_MIN ? LZ4_compressBound((int)b.n) : 0;
    if (!(plain = malloc(5 + (size_t)(bound > 0 ? bound : 0) + b.n)))
        goto done;
    int z = bound > 0 ? LZ4_compress_default((const char *)b.p, (char *)plain + 5, (int)b.n, bound)
                      : 0;
    size_t n;
    if (z > 0 && (size_t)z + 4 < b.n) {
        plain[0] = ANSWER_LZ4;
        for (int i = 0; i < 4; i++)
            plain[1 + i] = (unsigned char)(b.n >> (24 - 8 * i));
        n = 5 + (size_t)z;
    } else {
        plain[0] = ANSWER_PLAIN;
        memcpy(plain + 1, b.p, b.n);
        n = 1 + b.n;
    }
    if (!(sealed = malloc(NONCE + n + TAG)) || gcm(t, 1, plain, n, sealed))
        goto done;
    *out = sealed;
    *outlen = NONCE + n + TAG;
    sealed = NULL;
    ret = 0;
done:
    free(b.p);
    free(plain);
    free(sealed);
    return ret;
}

/* The body of a layout whose pieces were cut (at p, the rest until end):
 * the pieces rebuilt from the game at the write and put back into res.
 * 0, or an error in e. */
static int rebuilt_body(const api_config *cfg, const idem_ticket *t, const unsigned char *p,
                        const unsigned char *end, int npieces, int status, const char *ctype,
                        http_res *res, game_err *e)
{
    char id[64];
    uint64_t version, reader, kind[PIECES], at[PIECES];
    idem_game g = {0};
    if (npieces > PIECES || get_str(&p, end, 1, id, sizeof id) || get_u(&p, end, 8, &version) ||
        get_u(&p, end, 2, &reader))
        return err_set(e, ERR_INTERNAL, NULL, "the stored answer of this Idempotency-Key is damaged");
    for (int i = 0; i < npieces; i++)
        if (get_u(&p, end, 1, &kind[i]) || get_u(&p, end, 4, &at[i]) ||
            (i && at[i] < at[i - 1]) || kind[i] < PIECE_APPLIED || kind[i] > PIECE_STATUS)
            return err_set(e, ERR_INTERNAL, NULL,
                           "the stored answer of this Idempotency-Key is damaged");
    for (int i = 0; i < npieces; i++)
        if (at[i] > (uint64_t)(end - p))
            return err_set(e, ERR_INTERNAL, NULL,
                           "the stored answer of this Idempotency-Key is damaged");
    g.hooks = t->hooks;
    g.id = id;
    g.version = (int64_t)version;
    g.reader = (int16_t)reader;
    store_play *plays = NULL;
    int np = 0, rc = game_then(cfg, &g, &plays, &np, e);
    if (rc)
        return rc;
    char *text[PIECES] = {0};
    size_t len[PIECES] = {0}, total = (size_t)(end - p);
    for (int i = 0; i < npieces && !rc; i++) {
        if (!(text[i] = piece_text(&g, (int)kind[i], &len[i])))
            rc = err_set(e, ERR_INTERNAL, NULL, "the answer of this Idempotency-Key cannot be rebuilt");
        total += len[i];
    }
    char *body = rc ? NULL : malloc(total + 1), *w = body;
    size_t from = 0;
    for (int i = 0; body && i < npieces; i++) {
        memcpy(w, p + from, (size_t)at[i] - from);
        w += at[i] - from;
        memcpy(w, text[i], len[i]);
        w += len[i];
        from = (size_t)at[i];
    }
    if (body) {
        memcpy(w, p + from, (size_t)(end - p) - from);
        if (http_res_raw(res, status, ctype, body, total))
            rc = err_set(e, ERR_INTERNAL, NULL, "out of memory");
    } else if (!rc) {
        rc = err_set(e, ERR_INTERNAL, NULL, "out of memory");
    }
    free(body);
    for (int i = 0; i < PIECES; i++)
        free(text[i]);
    free((void *)g.st);
    store_plays_free(plays, np);
    return rc;
}

/* The answer sealed in `blob` into res. 0, or an error in e (the answer
 * does not open, or its game cannot give its pieces back). */
static int unseal(const api_config *cfg, const idem_ticket *t, const unsigned char *blob,
                  size_t len, http_res *res, game_err *e)
{
    if (len < NONCE + TAG + 4)
        return err_set(e, ERR_INTERNAL, NULL, "the stored answer of this Idempotency-Key does not open");
    size_t n = len - NONCE - TAG, raw_n = 0;
    unsigned char *plain = malloc(n), *raw = NULL;
    const unsigned char *p = NULL, *end = NULL;
    int rc = err_set(e, ERR_INTERNAL, NULL, "the stored answer of this Idempotency-Key does not open");
    if (!plain || gcm(t, 0, blob, len, plain))
        goto done;
    int fmt = plain[0];
    if (fmt == ANSWER_LZ4) {
        raw_n = n < 5 ? 0
                      : (size_t)plain[1] << 24 | (size_t)plain[2] << 16 | (size_t)plain[3] << 8 |
                            plain[4];
        if (n < 5 || raw_n > RAW_MAX || !(raw = malloc(raw_n ? raw_n : 1)) ||
            LZ4_decompress_safe((const char *)plain + 5, (char *)raw, (int)(n - 5), (int)raw_n) !=
                (int)raw_n)
            goto done;
        p = raw;
        end = raw + raw_n;
    } else {
        p = plain + (fmt == ANSWER_PLAIN);
        end = plain + n;
    }
    uint64_t status, npieces = 0;
    char ctype[64], name[32], value[224];
    if (get_u(&p, end, 2, &status) || get_str(&p, end, 2, ctype, sizeof ctype))
        goto done;
    res->nheaders = 0;
    for (;;) {
        if (get_str(&p, end, 2, name, sizeof name))
            goto done;
        if (!name[0])
            break;
        if (get_str(&p, end, 2, value, sizeof value))
            goto done;
        http_res_header(res, name, "%s", value);
    }
    if (fmt >= ANSWER_PLAIN && get_u(&p, end, 1, &npieces))
        goto done;
    memset(e, 0, sizeof *e);
    if (npieces)
        rc = rebuilt_body(cfg, t, p, end, (int)npieces, (int)status, ctype, res, e);
    else if ((rc = http_res_raw(res, (int)status, ctype, (const char *)p, (size_t)(end - p))))
        rc = err_set(e, ERR_INTERNAL, NULL, "out of memory");
done:
    free(plain);
    free(raw);
    return rc;
}

/* The key's stored answer into res, marked as a replay; or the 422 when
 * the request is not the one that stored it; or the problem of an answer
 * that cannot be given again (its game deleted since, the store down). */
static int replay(const api_config *cfg, const http_req *req, idem_ticket *t,
                  const store_idem *row, http_res *res)
{
    game_err e = {0};
    if (!same_request(req, t, row->fingerprint)) {
        err_set(&e, ERR_IDEM_REUSED, NULL,
                "this Idempotency-Key was used for another request (another body, Content-Type "
                "or If-Match): a key names one request; send a new key for a new request");
        return http_res_problem(res, req, ERR_IDEM_REUSED, &e,
                                json_pack("{s:s}", "header", "Idempotency-Key"));
    }
    if (unseal(cfg, t, row->answer, row->answer_len, res, &e)) {
        http_res_free(res);
        memset(res, 0, sizeof *res);
        return http_res_fail(res, req, &e);
    }
    http_res_header(res, "Idempotent-Replayed", "true");
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

/* The key's row as claim() needs it: id, fingerprint and owner. */
static store_idem claim_row(const idem_ticket *t)
{
    store_idem row = {0};
    memcpy(row.id, t->row.id, sizeof row.id);
    memcpy(row.fingerprint, t->row.fingerprint, sizeof row.fingerprint);
    memcpy(row.owner, t->row.owner, sizeof row.owner);
    return row;
}

int idem_begin(const api_config *cfg, const http_req *req, const json_t *body,
               const idem_hooks *hooks, idem_ticket *t, http_res *res)
{
    memset(t, 0, sizeof *t);
    t->hooks = hooks;
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
    if (derive(req, body, key, klen, t)) {
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
    for (int tries = 0; tries < 3 && !res->status; tries++) {
        store_idem row = claim_row(t);
        rc = s->vt->idem_claim(s, &row, LEASE_S);
        if (rc == ERR_IDEM_BUSY && (row.done || !same_request(req, t, row.fingerprint))) {
            replay(cfg, req, t, &row, res); /* its answer, or 422 for another request's key */
        } else if (rc == ERR_IDEM_BUSY) {
            int who = owner_state(row.owner); /* its claim: is its request gone? */
            if (row.live && (who == OWNER_LIVE || who == OWNER_UNKNOWN))
                in_flight(req, res);
            else
                rc = s->vt->idem_take(s, t->row.id, row.owner, t->row.owner, LEASE_S);
        }
        store_idem_free(&row);
        if (rc == 0) {
            t->on = 1; /* ours: the handler runs */
            return 0;
        }
        if (rc != ERR_IDEM_BUSY && !res->status) {
            err_set(&e, ERR_STORE, NULL, "the store could not take the Idempotency-Key");
            http_res_fail(res, req, &e);
        }
    }
    if (!res->status) {
        err_set(&e, ERR_STORE, NULL, "the store could not take the Idempotency-Key");
        http_res_fail(res, req, &e);
    }
    flight_leave(t->row.id, 0);
    return 1;
}

int idem_answer(const idem_ticket *t, const http_res *ok, const idem_game *g, store_answer *a)
{
    memset(a, 0, sizeof *a);
    if (!t || !t->on)
        return 0;
    unsigned char *blob = NULL;
    size_t len = 0;
    if (seal(t, ok, g, &blob, &len))
        return ERR_INTERNAL;
    a->id = t->row.id;
    a->fingerprint = t->row.fingerprint;
    a->answer = blob;
    a->answer_len = len;
    a->keep_s = keep_s;
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
        t->stored = 1; /* stored with the write, which dropped the claim */
        return 0;
    }
    t->unknown = rc == ERR_OUTCOME_UNKNOWN;
    if (rc != ERR_IDEM_BUSY && rc != ERR_CONFLICT)
        return rc;
    /* another request with this key may have written first: its answer */
    store_idem row = {0};
    memcpy(row.id, t->row.id, sizeof row.id);
    int got = cfg->store->vt->idem_get(cfg->store, &row);
    if (got == 0 && row.done) {
        http_res_free(res);
        memset(res, 0, sizeof *res);
        replay(cfg, req, t, &row, res);
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
    /* a claim that no write consumed: the request wrote nothing (or, when
     * the outcome is unknown, it cannot say: the claim waits for a retry to
     * take it over, or for its lease). After a failure of the store, the
     * keeper releases it: the answer does not wait on the store again. */
    int release = !t->stored && !t->unknown;
    if (!flight_leave(t->row.id, release && res->status >= 500) && release)
        cfg->store->vt->idem_release(cfg->store, t->row.id, t->row.owner);
    purge_now_and_then(cfg);
}
