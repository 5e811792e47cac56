/* purge.c: games expire (docs/operations.md, retention).
 *
 * A game is removed, as DELETE /games/{id} removes it (store del: its row
 * and its plays), when it is finished and its last write is more than
 * `finished_days` old, or when its last write, whatever its state, is
 * more than `idle_days` old (0 turns either rule off). A finished game's
 * last write is its last play, so the first rule keeps a finished game as
 * long as it was played; the second takes the games nobody came back to.
 * Whether a game is finished is the engine's answer (ops->status) on the
 * state api/ loads for a request (ctx_load): the store holds the state
 * only as an opaque snapshot.
 *
 * The store is read in small batches, in id order (store ages: BATCH
 * games each, with the time of their last write); a game is removed only
 * if its last write is still as old when the delete runs (del_aged), so a
 * play that comes in between keeps it. `croupier serve` and `fcgi` run a
 * pass in a thread of their own PURGE_FIRST_S after they start and every
 * PURGE_EVERY_S, pausing PAUSE_MS between batches (the writes of requests
 * go first); `croupier purge` runs one pass and says what it removed.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "cli.h"
#include "store.h"

enum { BATCH = 100, PAUSE_MS = 50, PURGE_FIRST_S = 5, PURGE_EVERY_S = 3600, DAY_S = 86400 };

/* What a pass did. */
typedef struct tally {
    long long looked, finished, idle, failed;
} tally;

/* 1 when game `id` is over (the engine says so of its state), else 0. */
static int game_over(store *st, const char *id)
{
    api_config cfg = {.store = st};
    http_req req = {.method = "GET", .path = "/"}; /* no token: read as a spectator */
    game_ctx c;
    game_err e = {0};
    int over = 0;
    if (ctx_load(&cfg, &req, id, &c, &e) == 0) {
        game_status gs;
        c.ops->status(c.st, &gs);
        over = gs.over;
    }
    ctx_free(&c);
    return over;
}

static void day_text(int64_t t, char *out, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(out, n, "%lld", (long long)t);
}

/* One pass over the store: every game the policy expires is removed (with
 * `dry`, only counted), and named on `out` when it is not NULL. Stops
 * early when *stop is set. 0, or ERR_STORE when the store could not be
 * read. */
static int purge_pass(store *st, const purge_policy *p, int dry, const int *stop, int pause_ms,
                      FILE *out, tally *t)
{
    store_age batch[BATCH]; /* 7 KB: the server's own thread, or the command's */
    char after[64] = "";
    int64_t now = (int64_t)time(NULL);
    int64_t idle_before = now - (int64_t)p->idle_days * DAY_S;
    int64_t done_before = now - (int64_t)p->finished_days * DAY_S;
    memset(t, 0, sizeof *t);
    for (;;) {
        int k = 0;
        if (st->vt->ages(st, after, BATCH, batch, &k))
            return ERR_STORE;
        for (int i = 0; i < k; i++) {
            const store_age *g = &batch[i];
            int idle = p->idle_days > 0 && g->written < idle_before;
            int done = !idle && p->finished_days > 0 && g->written < done_before &&
                       game_over(st, g->id);
            t->looked++;
            if (!idle && !done)
                continue;
            int rc = dry ? 0 : st->vt->del_aged(st, g->id, idle ? idle_before : done_before);
            if (rc == ERR_NOT_FOUND) /* gone meanwhile, or played since: kept */
                continue;
            if (rc) {
                t->failed++;
                continue;
            }
            if (idle)
                t->idle++;
            else
                t->finished++;
            if (out) {
                char day[32];
                day_text(g->written, day, sizeof day);
                fprintf(out, "%s %s (%s; last written %s)\n", dry ? "would remove" : "removed",
                        g->id, idle ? "idle" : "finished", day);
            }
        }
        if (k < BATCH || (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)))
            return 0;
        snprintf(after, sizeof after, "%s", batch[k - 1].id);
        if (pause_ms > 0)
            nanosleep(&(struct timespec){0, pause_ms * 1000000L}, NULL);
    }
}

/* --- croupier purge --------------------------------------------------------- */

int cmd_purge(int argc, char **argv)
{
    static const char help[] =
        "usage: croupier purge [--store URL] [--finished DAYS] [--idle DAYS] [--dry-run]\n"
        "Remove the games that have expired, as DELETE /games/{id} would, and name each\n"
        "(docs/operations.md, retention). A server does the same by itself every hour\n"
        "(serve|fcgi --expire-finished, --expire-idle).\n\n"
        "  --store URL      sqlite:PATH (default sqlite:croupier.db, or env CROUPIER_STORE)\n"
        "                   or postgres://user@host/db\n"
        "  --finished DAYS  a finished game whose last play is older than DAYS days\n"
        "                   (default %d; 0: none)\n"
        "  --idle DAYS      any game with no write for DAYS days (default %d; 0: none)\n"
        "  --dry-run        name them, remove none\n";
    static const struct option opts[] = {
        {"store", required_argument, 0, 's'},   {"finished", required_argument, 0, 'f'},
        {"idle", required_argument, 0, 'i'},    {"dry-run", no_argument, 0, 'n'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *env = getenv("CROUPIER_STORE");
    const char *url = env && *env ? env : "sqlite:croupier.db";
    purge_policy p = {EXPIRE_FINISHED_DAYS, EXPIRE_IDLE_DAYS};
    int dry = 0, c;
    long long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's') {
            url = optarg;
        } else if (c == 'f' || c == 'i') {
            if (cli_number(optarg, 0, EXPIRE_DAYS_MAX, &v)) {
                fprintf(stderr, "croupier purge: --%s takes 0..%d days\n",
                        c == 'f' ? "finished" : "idle", EXPIRE_DAYS_MAX);
                return 2;
            }
            *(c == 'f' ? &p.finished_days : &p.idle_days) = (int)v;
        } else if (c == 'n') {
            dry = 1;
        } else {
            fprintf(c == 'h' ? stdout : stderr, help, EXPIRE_FINISHED_DAYS, EXPIRE_IDLE_DAYS);
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "croupier purge: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    char err[512], shown[512];
    store *st = NULL;
    if (store_open(&st, url, err, sizeof err)) {
        fprintf(stderr, "croupier purge: --store %s: %s\n",
                store_redact(url, url, shown, sizeof shown), err);
        return 1;
    }
    if (!st->vt->ages || !st->vt->del_aged) {
        fprintf(stderr, "croupier purge: the %s store cannot list its games\n", st->vt->kind);
        store_close(st);
        return 1;
    }
    tally t;
    int rc = purge_pass(st, &p, dry, NULL, 0, stdout, &t);
    store_close(st);
    if (rc) {
        fprintf(stderr, "croupier purge: the store could not be read (%lld games looked at)\n",
                t.looked);
        return 1;
    }
    printf("croupier purge: %lld games %s (%lld finished, %lld idle), %lld kept%s\n",
           t.finished + t.idle, dry ? "would be removed" : "removed", t.finished, t.idle,
           t.looked - t.finished - t.idle, dry ? "; a dry run: nothing was removed" : "");
    if (t.failed)
        fprintf(stderr, "croupier purge: %lld games could not be removed (the store refused)\n",
                t.failed);
    return t.failed ? 1 : 0;
}

/* --- the server's purger ------------------------------------------------------ */

static struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, stop;
    store *st;
    purge_policy p;
} g_purger = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* Wait s seconds, or until purge_stop(): 1 when stopped. */
static int purger_wait(int s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += s;
    pthread_mutex_lock(&g_purger.mu);
    while (!g_purger.stop && pthread_cond_timedwait(&g_purger.cv, &g_purger.mu, &until) == 0)
        ;
    int stop = g_purger.stop;
    pthread_mutex_unlock(&g_purger.mu);
    return stop;
}

static void *purger(void *arg)
{
    (void)arg;
    for (int wait = PURGE_FIRST_S; !purger_wait(wait); wait = PURGE_EVERY_S) {
        tally t;
        if (purge_pass(g_purger.st, &g_purger.p, 0, &g_purger.stop, PAUSE_MS, NULL, &t))
            fprintf(stderr, "croupier: expiring games: the store could not be read\n");
        else if (t.finished || t.idle || t.failed)
            fprintf(stderr, "croupier: %lld games expired (%lld finished, %lld idle)%s\n",
                    t.finished + t.idle, t.finished, t.idle,
                    t.failed ? "; the store refused to remove some" : "");
    }
    return NULL;
}

int purge_start(store *st, const purge_policy *p)
{
    if (!p->finished_days && !p->idle_days)
        return 0; /* games are kept */
    if (!st->vt->ages || !st->vt->del_aged)
        return -1;
    g_purger.st = st;
    g_purger.p = *p;
    g_purger.running = pthread_create(&g_purger.thread, NULL, purger, NULL) == 0;
    return g_purger.running ? 0 : -1;
}

void purge_stop(void)
{
    if (!g_purger.running)
        return;
    pthread_mutex_lock(&g_purger.mu);
    __atomic_store_n(&g_purger.stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&g_purger.cv);
    pthread_mutex_unlock(&g_purger.mu);
    pthread_join(g_purger.thread, NULL);
    g_purger.running = 0;
}
