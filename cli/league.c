/* league.c: `croupier league`, the students' own play functions as players
 * of one game (docs/league.md): each student sandboxed as for grading
 * (cli/kit_grade.py --player: bubblewrap, rlimits, a uid of its own), house
 * bots beside them, rounds of tables with the seats rotated, a time limit
 * per move with the fallback bot for a late, illegal or failed answer, and
 * standings: Bradley-Terry ratings with 95% intervals, head to head, each
 * player's misbehaviour with examples, standings.json and standings.html.
 *
 * Schedule. The entrants (the students by name, then the --bots) are dealt
 * into tables of P seats each round: round r shuffles them (from the seed
 * and r) and cuts the order into tables; a last table short of P is filled
 * with the round's first entrants, who so play twice that round. Table t
 * (counted over all rounds) is dealt from seed S + t and played P times,
 * its entrants rotated one seat each game, so each sits at every seat of
 * the same deal. Game g is rotation g mod P of table g div P.
 *
 * One worker plays a whole table, its students' processes started afresh
 * for it and ended after it, and writes the table's results into its own
 * slot: nothing depends on --jobs, or on which shard played it. --shard I/N
 * plays the tables t with t mod N = I - 1 and writes only its part;
 * `croupier league merge` reads the parts and writes the standings, the
 * same function as an unsharded run, so the two agree. */
#include <civetweb.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "game.h"
#include "kit.h"
#include "core/rng.h"

extern const unsigned char kit_grade_py[];
extern const size_t kit_grade_py_len;

enum {
    LG_MAX_ENTRANTS = 4000, LG_MAX_GAMES = 100000, LG_MAX_JOBS = 64, LG_MAX_STEPS = 200000,
    LG_LINE_MAX = 1 << 20, LG_RESTARTS = 3, LG_EXAMPLES = 5,
    BAD_LATE = 0, BAD_INVALID, BAD_ERROR, NBAD
};
static const char *const BAD_NAMES[NBAD] = {"late", "invalid", "error"};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier league --game G [--variant V] [--games N] [--seed S] [--bots B,...]\n"
        "                       [--players P] [--move-timeout S] [--fallback BOT] [--module NAME]\n"
        "                       [--memory BYTES] [--sandbox auto|bwrap|none] [--jobs J]\n"
        "                       [--shard I/N] [--publish URL] [--quiet] --out DIR PLAYERS\n"
        "       croupier league merge [--publish URL] --out DIR PART.json...\n"
        "Play the students' own play functions (PLAYERS: a file <student>.py or a folder\n"
        "<student>/ each) against each other and the house bots, each student sandboxed as\n"
        "for grading, and rank them: DIR/standings.json, DIR/standings.html, DIR/games/G.json\n"
        "(each game's save) and DIR/part-I-of-N.json (docs/league.md).\n\n"
        "  --game G           comp10001bo or phazed (a game with a course play function)\n"
        "  --variant V        the game's variant (default: its first)\n"
        "  --games N          games each player plays at least, 1..10000 (default 20): whole\n"
        "                     rounds, each round every player's table played P times\n"
        "  --seed S           0..2^53-1 (default 1): the same seed, the same league\n"
        "  --bots B,...       house bots that play as players (names as in `croupier games`)\n"
        "  --players P        seats a table (default: the game's usual table)\n"
        "  --move-timeout S   seconds a move, 0.01..60 (default 1): a later answer is replaced\n"
        "  --fallback BOT     the bot that plays a late, illegal or failed move (default:\n"
        "                     random, the weakest)\n"
        "  --module NAME      in a student's folder, the module to play (default: its only .py)\n"
        "  --memory BYTES     address space of a student's process (default 1G; K, M, G)\n"
        "  --sandbox M        auto (bubblewrap when it works here), bwrap (refuse to run\n"
        "                     without it), none (rlimits only)\n"
        "  --jobs J           tables played at once, 1..%d (default: the online CPUs)\n"
        "  --shard I/N        play only part I of N (tables t with t mod N = I-1); merge the\n"
        "                     parts with `croupier league merge`\n"
        "  --publish URL      play every game again on the Croupier server at URL (public\n"
        "                     to spectators) and link each to its replay in the web page\n"
        "  --quiet            no progress on stderr\n"
        "  -h, --help         this text\n\n"
        "Exit status: 0 done; 2 bad arguments; 1 a failure (the message names it).\n",
        LG_MAX_JOBS);
}

/* ---- the league ------------------------------------------------------------------- */

typedef struct entrant {
    char *name;       /* a student's name, or "bot:<name>" */
    char *path;       /* the submission; NULL for a house bot */
    const char *bot;  /* the house bot; NULL for a student */
} entrant;

typedef struct incident {
    int seat, kind, move;
    char reason[240];
} incident;

/* One game's result. */
typedef struct record {
    int done;
    int failed;
    unsigned winners; /* bit s: seat s won (shared wins set several) */
    int turns, rounds, plays, lower_is_better;
    const char *ending;
    double score[GAME_MAX_SEATS];
    int moves[GAME_MAX_SEATS], bad[GAME_MAX_SEATS][NBAD];
    int ninc[GAME_MAX_SEATS];
    incident *inc; /* [seat][LG_EXAMPLES], allocated at the first */
    char sandbox[GAME_MAX_SEATS][12]; /* what a student's seat ran in */
    char error[400];
} record;

typedef struct league {
    const game_ops *ops;
    const game_suite *suite; /* the play function's suite: its course name and shapes */
    const char *variant, *fallback, *module, *sandbox;
    char kitdir[CLI_PATH], gamesdir[CLI_PATH];
    int players, nent, nbots, rounds, per_round, jobs, shard, nshards;
    long tables, games;
    double move_timeout;
    long long memory;
    uint64_t seed;
    entrant *ent;
    int *seats; /* tables * players: entrant of table t's seat i at rotation 0 */
    record *rec; /* games */
    long next_table, done_tables, my_tables; /* atomics */
    int probed; /* atomic: bubblewrap made a student's sandbox here (the next ones skip its probe) */
} league;

static volatile sig_atomic_t stopping;
static void on_stop(int sig) { stopping = sig; }

static uint64_t table_seed(const league *lg, long t)
{
    return (lg->seed + (uint64_t)t) & ((1ULL << 53) - 1);
}

/* Deal round r's tables: entrant indices into lg->seats. */
static void deal_round(league *lg, int r)
{
    int n = lg->nent, P = lg->players;
    int *perm = malloc((size_t)n * sizeof *perm);
    if (!perm)
        return;
    for (int i = 0; i < n; i++)
        perm[i] = i;
    rng g;
    rng_seed(&g, lg->seed, 0x6c656167ULL + (uint64_t)r); /* "leag" + round */
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(&g, (uint32_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int t = 0; t < lg->per_round; t++)
        for (int i = 0; i < P; i++) {
            int k = t * P + i;
            /* the last table's empty seats: the round's first entrants */
            lg->seats[((long)r * lg->per_round + t) * P + i] = perm[k < n ? k : k - n];
        }
    free(perm);
}

/* Where `seat` of game g sits in its table's list (rotation 0): the table
 * g / P rotated by g mod P. */
static int table_place(const league *lg, long g, int seat)
{
    int P = lg->players, rot = (int)(g % P);
    return ((seat - rot) % P + P) % P;
}

/* The entrant at `seat` in game g. */
static int entrant_at(const league *lg, long g, int seat)
{
    return lg->seats[(g / lg->players) * lg->players + table_place(lg, g, seat)];
}

/* ---- a student's process ----------------------------------------------------------- */

typedef struct proc {
    pid_t pid;
    int to, from;   /* its stdin, its stdout */
    char *buf;      /* what it wrote, not yet read as a line */
    size_t len;
    int restarts;
    int out;        /* 1: not asked any more (no module, or restarted too often) */
    char why[240];  /* why it is out */
    char sandbox[12];
} proc;

/* End p: at once (a process that is late or broken), or by closing its
 * stdin first (at the end of its table). */
static void proc_end(proc *p, int now)
{
    if (p->pid > 0) {
        /* its stdin closed, the student's process ends and kit_grade.py with it, having
         * ended the student's processes and removed its copy; one that does not within
         * a second is told to (SIGTERM), then killed */
        if (p->to >= 0)
            close(p->to);
        int st, gone = 0;
        for (int i = 0; i < 300 && !(gone = waitpid(p->pid, &st, WNOHANG) == p->pid); i++) {
            if (i == (now ? 0 : 100))
                kill(p->pid, SIGTERM);
            struct timespec t = {0, 10 * 1000 * 1000};
            nanosleep(&t, NULL);
        }
        if (!gone) {
            kill(-p->pid, SIGKILL);
            waitpid(p->pid, &st, 0);
        }
    } else if (p->to >= 0) {
        close(p->to);
    }
    if (p->from >= 0)
        close(p->from);
    p->pid = -1;
    p->to = p->from = -1;
    p->len = 0;
}

/* A line of p's output within deadline (CLOCK_MONOTONIC seconds): a new
 * string (without its newline), or NULL: *late 1 when the time ran out, 0
 * when p ended or wrote more than LG_LINE_MAX without a newline. */
static char *proc_line(proc *p, double deadline, int *late)
{
    *late = 0;
    for (;;) {
        char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - p->buf);
            char *line = malloc(n + 1);
            if (!line)
                return NULL;
            memcpy(line, p->buf, n);
            line[n] = 0;
            memmove(p->buf, nl + 1, p->len - n - 1);
            p->len -= n + 1;
            return line;
        }
        if (p->len >= LG_LINE_MAX)
            return NULL;
        double left = deadline - cli_now();
        if (left <= 0) {
            *late = 1;
            return NULL;
        }
        struct pollfd pf = {.fd = p->from, .events = POLLIN};
        int r = poll(&pf, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue;
        ssize_t k = read(p->from, p->buf + p->len, LG_LINE_MAX - p->len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return NULL;
        p->len += (size_t)k;
    }
}

/* Write s and a newline to p within deadline: 0, or -1. */
static int proc_send(proc *p, const char *s, double deadline)
{
    size_t n = strlen(s) + 1;
    char *text = malloc(n);
    if (!text)
        return -1;
    memcpy(text, s, n - 1);
    text[n - 1] = '\n';
    size_t off = 0;
    int rc = 0;
    while (off < n) {
        double left = deadline - cli_now();
        struct pollfd pf = {.fd = p->to, .events = POLLOUT};
        int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = -1;
            break;
        }
        ssize_t k = write(p->to, text + off, n - off);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0) {
            rc = -1;
            break;
        }
        off += (size_t)k;
    }
    free(text);
    return rc;
}

/* Start the student of entrant e in uid slot `slot` (kit_grade.py
 * --player): 0 and p running, or -1 with p->why said (p->out set when the
 * student cannot be run at all). */
static int proc_start(const league *lg, const entrant *e, int slot, proc *p)
{
    char job[CLI_PATH], grader[CLI_PATH], harness[CLI_PATH];
    cli_pathf(job, sizeof job, "%s/player-%d.json", lg->kitdir, slot);
    cli_pathf(grader, sizeof grader, "%s/kit_grade.py", lg->kitdir);
    cli_pathf(harness, sizeof harness, "%s/kit_harness.py", lg->kitdir);
    json_error_t je;
    json_t *shapes = json_loads(lg->suite->shapes, 0, &je); /* the engine's own text: valid */
    json_t *j = json_pack("{s:s,s:s?,s:s,s:s,s:o,s:s,s:o,s:{s:f,s:f,s:i,s:I,s:i}}", "submission", e->path,
                          "module", lg->module, "harness", harness, "sandbox",
                          strcmp(lg->sandbox, "none") && __atomic_load_n(&lg->probed, __ATOMIC_RELAXED)
                              ? "bwrap-probed" : lg->sandbox, "uid",
                          json_integer(CLI_UID_BASE + slot), "course_name", lg->suite->course_name,
                          "shapes", shapes ? shapes : json_null(), "limits", "call_timeout",
                          lg->move_timeout, "import_timeout", 10.0, "cpu", 3600, "memory",
                          (json_int_t)lg->memory, "nproc", 64);
    int w = j ? cli_write_json(job, j, 0600) : -1;
    json_decref(j);
    p->pid = -1;
    p->to = p->from = -1;
    p->len = 0;
    if (!p->buf && !(p->buf = malloc(LG_LINE_MAX)))
        w = -1;
    if (w) {
        snprintf(p->why, sizeof p->why, "cannot write %.200s", job);
        return -1;
    }
    int in[2], outp[2];
    if (pipe2(in, O_CLOEXEC))
        return snprintf(p->why, sizeof p->why, "no pipe: %s", strerror(errno)), -1;
    if (pipe2(outp, O_CLOEXEC)) {
        close(in[0]);
        close(in[1]);
        return snprintf(p->why, sizeof p->why, "no pipe: %s", strerror(errno)), -1;
    }
    /* made before the fork: the child of a threaded process only calls what is safe there */
    char *argv[] = {(char *)cli_python(), "-I", grader, "--player", job, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(outp[1], 1);
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    if (pid < 0) {
        close(in[1]);
        close(outp[0]);
        return snprintf(p->why, sizeof p->why, "cannot start python3: %s", strerror(errno)), -1;
    }
    setpgid(pid, pid);
    p->pid = pid;
    p->to = in[1];
    p->from = outp[0];
    fcntl(p->to, F_SETFL, O_NONBLOCK);
    return 0;
}

/* Read p's first lines: its sandbox, then whether the module imported and
 * has the function. 0 when it is ready to play, else -1 with p->why (and
 * p->out: the student plays no move of its own; *fatal: --sandbox bwrap
 * where bubblewrap cannot run). */
static int proc_ready(proc *p, int *fatal)
{
    double deadline = cli_now() + 40; /* the sandbox made (~0.1 s), then 10 s to import */
    for (int i = 0; i < 2; i++) {
        int late;
        char *line = proc_line(p, deadline, &late);
        json_t *m = line ? json_loads(line, 0, NULL) : NULL;
        free(line);
        const char *why = json_string_value(json_object_get(m, "import"));
        if (m && json_object_get(m, "sandbox")) { /* the sandbox made: the harness's first line is ours to send */
            const char *kind = json_string_value(json_object_get(m, "sandbox"));
            snprintf(p->sandbox, sizeof p->sandbox, "%s", kind ? kind : "?");
            char *head = json_dumps(json_object_get(m, "head"), JSON_COMPACT);
            int sent = head ? proc_send(p, head, deadline) : -1;
            free(head);
            if (sent) {
                json_decref(m);
                snprintf(p->why, sizeof p->why, "the player's process ended before its first move");
                p->out = 1;
                return -1;
            }
        } else if (m && json_is_true(json_object_get(m, "ready"))) {
            json_decref(m);
            return 0;
        } else {
            if (why) {
                snprintf(p->why, sizeof p->why, "the module could not be imported: %.200s", why);
                *fatal |= strncmp(why, "--sandbox bwrap", 15) == 0;
            } else if (json_is_true(json_object_get(m, "missing"))) {
                snprintf(p->why, sizeof p->why, "the module has no function of that name");
            } else {
                snprintf(p->why, sizeof p->why, "%s", late ? "the module was not ready within 40 s"
                                                           : "the process ended while importing the module");
            }
            json_decref(m);
            p->out = 1;
            return -1;
        }
        json_decref(m);
    }
    snprintf(p->why, sizeof p->why, "the player did not start");
    p->out = 1;
    return -1;
}

/* ---- playing a table ----------------------------------------------------------------- */

typedef struct worker {
    league *lg;
    int index;
    proc procs[GAME_MAX_SEATS]; /* by the table's seat at rotation 0 */
    int fatal;
} worker;

/* A replaced move: counted, and kept as an example (the first few of each
 * seat in the game, a reason said just before for the seat not again). */
/* The uid slot of the student at place i of w's table: its own among all
 * running at once (cli_hold_uids holds jobs x P of them). */
static int uid_slot(const worker *w, int i)
{
    return w->index * w->lg->players + i;
}

static void note(record *r, int seat, int kind, int move, const char *why)
{
    r->bad[seat][kind]++;
    if (!r->inc && !(r->inc = calloc(GAME_MAX_SEATS * LG_EXAMPLES, sizeof *r->inc)))
        return;
    incident *mine = r->inc + seat * LG_EXAMPLES;
    int n = r->ninc[seat];
    if (n == LG_EXAMPLES || (n && mine[n - 1].kind == kind && strncmp(mine[n - 1].reason, why, 200) == 0))
        return;
    mine[n] = (incident){.seat = seat, .kind = kind, .move = move};
    snprintf(mine[n].reason, sizeof mine[n].reason, "%.230s", why);
    r->ninc[seat]++;
}

/* One move of a student's seat: asked, applied when legal; -1 when it was
 * not (then the caller's fallback plays), with the kind in *kind and why. */
static int student_move(worker *w, proc *p, void *st, long g, int seat, int moveno, int *kind, char *why,
                        size_t whylen)
{
    league *lg = w->lg;
    const game_ops *ops = lg->ops;
    if (p->out) {
        *kind = BAD_ERROR;
        snprintf(why, whylen, "%s", p->why);
        return -1;
    }
    if (p->pid < 0) { /* ended at a move before: started again */
        int fatal = 0;
        if (proc_start(lg, &lg->ent[entrant_at(lg, g, seat)], uid_slot(w, (int)(p - w->procs)), p) ||
            proc_ready(p, &fatal)) {
            w->fatal |= fatal;
            *kind = BAD_ERROR;
            snprintf(why, whylen, "started again: %s", p->why);
            proc_end(p, 1);
            p->out = 1;
            return -1;
        }
    }
    const game_fn *fn = NULL;
    json_t *args = ops->fn_args ? ops->fn_args(st, seat, &fn) : NULL;
    uint64_t seed = rng_mix64(lg->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)g * 100003ULL + (uint64_t)moveno) &
                    ((1ULL << 53) - 1);
    json_t *req = json_pack("{s:o,s:I}", "args", args ? args : json_array(), "seed", (json_int_t)seed);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    double t0 = cli_now(), deadline = t0 + lg->move_timeout + 0.5;
    int late = 0, rc = -1;
    char *line = NULL;
    if (!text || proc_send(p, text, deadline) == 0)
        line = proc_line(p, deadline, &late);
    free(text);
    json_t *m = line ? json_loads(line, 0, NULL) : NULL;
    json_t *o = json_object_get(m, "o");
    const char *what = json_string_value(json_array_get(o, 0)), *said = json_string_value(json_array_get(o, 1));
    if (!line) {
        *kind = late ? BAD_LATE : BAD_ERROR;
        if (late)
            snprintf(why, whylen, "no answer within %g s (the process was ended)", lg->move_timeout);
        else
            snprintf(why, whylen, "the player's process ended (out of memory, an exit, or killed)");
    } else if (!what) {
        *kind = BAD_ERROR;
        snprintf(why, whylen, "the player's process wrote what is not an answer");
    } else if (strcmp(what, "value") == 0) {
        game_err e = {0};
        json_t *play = json_array_get(o, 1);
        if (game_apply(ops, st, seat, play, NULL, &e)) {
            char *pt = json_dumps(play, JSON_COMPACT | JSON_ENCODE_ANY);
            *kind = BAD_INVALID;
            snprintf(why, whylen, "illegal play %.80s: %.140s", pt ? pt : "?", e.detail);
            free(pt);
        } else {
            rc = 0;
        }
    } else if (strcmp(what, "timeout") == 0) {
        *kind = BAD_LATE;
        snprintf(why, whylen, "no answer within %g s", lg->move_timeout);
    } else if (strcmp(what, "raised") == 0) {
        *kind = BAD_ERROR;
        snprintf(why, whylen, "raised %.200s", said ? said : "?");
    } else {
        *kind = BAD_INVALID;
        snprintf(why, whylen, "%.200s", said ? said : "not a play");
    }
    json_decref(m);
    free(line);
    if (!line || !what) { /* the process is late, gone or broken: ended, started again at its next move */
        proc_end(p, 1);
        if (++p->restarts > LG_RESTARTS) {
            p->out = 1;
            snprintf(p->why, sizeof p->why, "not asked again after %d restarts in this table", LG_RESTARTS);
        }
    }
    return rc;
}

static json_t *game_save(const league *lg, long g, const void *st)
{
    json_t *seats = json_array();
    for (int s = 0; s < lg->players; s++) {
        const entrant *e = &lg->ent[entrant_at(lg, g, s)];
        json_array_append_new(seats, e->bot ? json_pack("{s:i,s:s,s:s}", "seat", s, "name", e->name + 4, "bot", e->bot)
                                            : json_pack("{s:i,s:s}", "seat", s, "name", e->name));
    }
    return json_pack("{s:s,s:s,s:s,s:I,s:o,s:o}", "format", "json", "game", lg->ops->name, "variant", lg->variant,
                     "seed", (json_int_t)table_seed(lg, g / lg->players), "seats", seats, "state",
                     lg->ops->encode(st));
}

static void play_game(worker *w, void *st, long g)
{
    league *lg = w->lg;
    const game_ops *ops = lg->ops;
    record *r = &lg->rec[g];
    game_err e = {0};
    free(r->inc);
    memset(r, 0, sizeof *r);
    if (game_init(ops, st, lg->variant, lg->players, table_seed(lg, g / lg->players), NULL, &e)) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "the deal failed: %s", e.detail);
        return;
    }
    int P = lg->players;
    game_status gs;
    int moveno = 0;
    for (long steps = 0;; steps++) {
        if (steps >= LG_MAX_STEPS || stopping) {
            r->failed = 1;
            snprintf(r->error, sizeof r->error, stopping ? "stopped" : "not over after %d plays", LG_MAX_STEPS);
            return;
        }
        if (game_autoplay(ops, st, NULL))
            continue;
        ops->status(st, &gs);
        if (gs.over)
            break;
        int seat = gs.to_move;
        const entrant *en = &lg->ent[entrant_at(lg, g, seat)];
        char expl[320];
        const char *bot = en->bot;
        if (!bot) {
            proc *p = &w->procs[table_place(lg, g, seat)];
            int kind;
            char why[240];
            r->moves[seat]++;
            if (student_move(w, p, st, g, seat, moveno, &kind, why, sizeof why) == 0) {
                moveno++;
                continue;
            }
            note(r, seat, kind, moveno, why);
            bot = lg->fallback;
        }
        moveno++;
        if (game_bot_play(ops, st, bot, NULL, expl, sizeof expl, &e)) {
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "the bot %s at seat %d failed: %s", bot, seat, e.detail);
            return;
        }
    }
    r->winners = gs.winners ? gs.winners : gs.winner >= 0 ? 1u << gs.winner : 0;
    r->ending = gs.result ? gs.result : "over";
    r->turns = gs.turns;
    r->rounds = gs.rounds;
    r->plays = gs.plays;
    r->lower_is_better = gs.lower_is_better;
    for (int s = 0; s < P; s++) {
        r->score[s] = gs.score[s];
        const entrant *en = &lg->ent[entrant_at(lg, g, s)];
        if (!en->bot)
            snprintf(r->sandbox[s], sizeof r->sandbox[s], "%s", w->procs[table_place(lg, g, s)].sandbox);
    }
    char path[CLI_PATH];
    cli_pathf(path, sizeof path, "%s/%ld.json", lg->gamesdir, g);
    json_t *save = game_save(lg, g, st);
    char *text = save ? json_dumps(save, JSON_COMPACT) : NULL;
    if (!text || cli_write_file(path, text, strlen(text), 0644)) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "cannot write %.300s", path);
    }
    free(text);
    json_decref(save);
    r->done = 1;
}

static void play_table(worker *w, void *st, long t)
{
    league *lg = w->lg;
    int P = lg->players;
    for (int i = 0; i < P; i++) { /* every student of the table started at once */
        proc *p = &w->procs[i];
        memset(p, 0, sizeof *p);
        p->pid = -1;
        p->to = p->from = -1;
        const entrant *e = &lg->ent[lg->seats[t * P + i]];
        if (!e->bot && proc_start(lg, e, uid_slot(w, i), p))
            p->out = 1;
    }
    for (int i = 0; i < P; i++) {
        proc *p = &w->procs[i];
        if (p->pid > 0 && proc_ready(p, &w->fatal))
            proc_end(p, 1);
        else if (strcmp(p->sandbox, "bwrap") == 0)
            __atomic_store_n(&lg->probed, 1, __ATOMIC_RELAXED);
    }
    for (int k = 0; k < P && !w->fatal; k++)
        play_game(w, st, t * P + k);
    for (int i = 0; i < P; i++) /* every student told at once that the table is over */
        if (w->procs[i].to >= 0) {
            close(w->procs[i].to);
            w->procs[i].to = -1;
        }
    for (int i = 0; i < P; i++) {
        proc_end(&w->procs[i], 0);
        free(w->procs[i].buf);
        w->procs[i].buf = NULL;
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    league *lg = w->lg;
    void *st = malloc(lg->ops->state_size);
    for (;;) {
        long t = __atomic_fetch_add(&lg->next_table, 1, __ATOMIC_RELAXED);
        if (t >= lg->my_tables || stopping || w->fatal || !st)
            break;
        play_table(w, st, t * lg->nshards + (lg->shard - 1));
        __atomic_add_fetch(&lg->done_tables, 1, __ATOMIC_RELAXED);
    }
    free(st);
    return NULL;
}

/* ---- the part a run writes, and the standings from the parts ----------------------- */

static json_t *ints(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* What every part of one league must agree on. */
static json_t *league_params(const league *lg, long long asked)
{
    json_t *names = json_array();
    for (int i = 0; i < lg->nent; i++)
        json_array_append_new(names, json_string(lg->ent[i].name));
    return json_pack("{s:s,s:s,s:s,s:I,s:I,s:i,s:i,s:I,s:I,s:f,s:s,s:s,s:o}", "game", lg->ops->name, "title",
                     lg->ops->title, "variant", lg->variant, "seed", (json_int_t)lg->seed, "games_per_player",
                     (json_int_t)asked, "players", lg->players, "rounds", lg->rounds, "tables",
                     (json_int_t)lg->tables, "games", (json_int_t)lg->games, "move_timeout", lg->move_timeout,
                     "fallback", lg->fallback, "function", lg->suite->course_name, "entrants", names);
}

static json_t *record_json(const league *lg, long g)
{
    const record *r = &lg->rec[g];
    int P = lg->players;
    json_t *seats = json_array(), *winners = json_array(), *scores = json_array(), *inc = json_array(),
           *sandbox = json_array();
    int bad[NBAD][GAME_MAX_SEATS];
    for (int s = 0; s < P; s++) {
        json_array_append_new(seats, json_string(lg->ent[entrant_at(lg, g, s)].name));
        if (r->winners & (1u << s))
            json_array_append_new(winners, json_integer(s));
        json_array_append_new(scores, json_real(round(r->score[s] * 1e6) / 1e6));
        json_array_append_new(sandbox, r->sandbox[s][0] ? json_string(r->sandbox[s]) : json_null());
        for (int k = 0; k < NBAD; k++)
            bad[k][s] = r->bad[s][k];
    }
    for (int s = 0; s < P; s++)
        for (int i = 0; i < r->ninc[s]; i++) {
            const incident *in = &r->inc[s * LG_EXAMPLES + i];
            json_array_append_new(inc, json_pack("{s:i,s:s,s:i,s:s}", "seat", in->seat, "kind", BAD_NAMES[in->kind],
                                                 "move", in->move, "reason", in->reason));
        }
    return json_pack("{s:I,s:I,s:i,s:I,s:o,s:o,s:o,s:i,s:i,s:i,s:s,s:b,s:o,s:o,s:o,s:o,s:o,s:o}", "g", (json_int_t)g,
                     "table", (json_int_t)(g / P), "rotation", (int)(g % P), "seed",
                     (json_int_t)table_seed(lg, g / P), "seats", seats, "winners", winners, "scores", scores,
                     "turns", r->turns, "rounds", r->rounds, "plays", r->plays, "ending",
                     r->ending ? r->ending : "over", "lower_is_better", r->lower_is_better, "moves",
                     ints(r->moves, P), "late", ints(bad[BAD_LATE], P), "invalid", ints(bad[BAD_INVALID], P),
                     "error", ints(bad[BAD_ERROR], P), "incidents", inc, "sandbox", sandbox);
}

/* One comparison of two entrants in a game: i < j, si what i scored (1 a
 * win, 0.5 a draw, 0 a loss). */
typedef struct pairing {
    int i, j;
    double n, si;
} pairing;

static int by_pair(const void *a, const void *b)
{
    const pairing *x = a, *y = b;
    return x->i != y->i ? (x->i > y->i) - (x->i < y->i) : (x->j > y->j) - (x->j < y->j);
}

/* Bradley-Terry by the MM algorithm (Hunter 2004) over the pairs (each
 * pair once, its comparisons summed), every entrant also given one draw
 * against a fixed opponent of strength 1 (a prior that keeps a player who
 * never or always wins finite). rating: Elo scale, mean 1500; se: its
 * standard error from the diagonal of the observed information (the
 * opponents' ratings taken as known). */
static void bt_fit(int n, const pairing *pr, long np, double *rating, double *se)
{
    double *g = malloc((size_t)n * sizeof *g), *w = calloc((size_t)n, sizeof *w),
           *d = malloc((size_t)n * sizeof *d);
    if (!g || !w || !d) {
        for (int i = 0; i < n; i++)
            rating[i] = 1500, se[i] = INFINITY;
        free(g), free(w), free(d);
        return;
    }
    for (int i = 0; i < n; i++)
        g[i] = 1, w[i] = 0.5;
    for (long k = 0; k < np; k++) {
        w[pr[k].i] += pr[k].si;
        w[pr[k].j] += pr[k].n - pr[k].si;
    }
    for (int it = 0; it < 20000; it++) {
        for (int i = 0; i < n; i++)
            d[i] = 1 / (g[i] + 1);
        for (long k = 0; k < np; k++) {
            double q = pr[k].n / (g[pr[k].i] + g[pr[k].j]);
            d[pr[k].i] += q;
            d[pr[k].j] += q;
        }
        double change = 0;
        for (int i = 0; i < n; i++) {
            double ng = w[i] / d[i], dl = fabs(log(ng) - log(g[i]));
            change = dl > change ? dl : change;
            g[i] = ng;
        }
        if (change < 1e-10)
            break;
    }
    double mean = 0;
    for (int i = 0; i < n; i++) {
        double p0 = g[i] / (g[i] + 1);
        d[i] = p0 * (1 - p0); /* now the information */
        mean += 400 * log10(g[i]) / n;
    }
    for (long k = 0; k < np; k++) {
        double p = g[pr[k].i] / (g[pr[k].i] + g[pr[k].j]);
        d[pr[k].i] += pr[k].n * p * (1 - p);
        d[pr[k].j] += pr[k].n * p * (1 - p);
    }
    for (int i = 0; i < n; i++) {
        rating[i] = 1500 + 400 * log10(g[i]) - mean;
        se[i] = 400 / log(10) / sqrt(d[i]);
    }
    free(g), free(w), free(d);
}

typedef struct standing {
    int e;
    double rating, se;
    long games, wins, moves, bad[NBAD];
    double score;
    json_t *examples, *sandbox;
} standing;

static int by_rating(const void *a, const void *b)
{
    const standing *x = a, *y = b;
    if (x->rating != y->rating)
        return x->rating < y->rating ? 1 : -1;
    return (x->e > y->e) - (x->e < y->e);
}

/* An entrant's name as the standings show it: a house bot's without its
 * "bot:" (which keeps a student named like a bot apart in "entrants"). */
static const char *shown_name(const char *name)
{
    return strncmp(name, "bot:", 4) == 0 ? name + 4 : name;
}

static int index_of(json_t *names, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v) if (strcmp(json_string_value(v), s) == 0) return (int)i;
    return -1;
}

/* The standings of params' league from its games (every game once, in
 * game order): a new object, or NULL with why. */
static json_t *standings_of(const json_t *params, json_t *games, char *why, size_t whylen)
{
    json_t *names = json_object_get(params, "entrants");
    int n = (int)json_array_size(names);
    long ng = (long)json_array_size(games);
    standing *sd = calloc((size_t)n, sizeof *sd);
    pairing *pr = malloc(((size_t)ng * GAME_MAX_SEATS * GAME_MAX_SEATS / 2 + 1) * sizeof *pr);
    double *rating = malloc((size_t)n * sizeof *rating), *se = malloc((size_t)n * sizeof *se);
    json_t *out = NULL, *list = json_array();
    long np = 0;
    if (!sd || !pr || !rating || !se) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        sd[i].e = i;
        sd[i].examples = json_array();
        sd[i].sandbox = NULL;
    }
    size_t gi;
    json_t *gm;
    json_array_foreach(games, gi, gm) {
        json_t *seats = json_object_get(gm, "seats");
        int P = (int)json_array_size(seats), ent[GAME_MAX_SEATS];
        unsigned won = 0;
        size_t k;
        json_t *v;
        json_array_foreach(json_object_get(gm, "winners"), k, v) won |= 1u << json_integer_value(v);
        for (int s = 0; s < P && s < GAME_MAX_SEATS; s++) {
            ent[s] = index_of(names, json_string_value(json_array_get(seats, (size_t)s)));
            if (ent[s] < 0) {
                snprintf(why, whylen, "game %zu names an entrant the league has not", gi);
                goto done;
            }
            standing *x = &sd[ent[s]];
            x->games++;
            x->wins += (won >> s) & 1;
            x->score += json_number_value(json_array_get(json_object_get(gm, "scores"), (size_t)s));
            x->moves += json_integer_value(json_array_get(json_object_get(gm, "moves"), (size_t)s));
            for (int b = 0; b < NBAD; b++)
                x->bad[b] += json_integer_value(json_array_get(json_object_get(gm, BAD_NAMES[b]), (size_t)s));
            json_t *sb = json_array_get(json_object_get(gm, "sandbox"), (size_t)s);
            if (json_is_string(sb) && !x->sandbox)
                x->sandbox = sb;
        }
        json_array_foreach(json_object_get(gm, "incidents"), k, v) {
            int s = (int)json_integer_value(json_object_get(v, "seat"));
            json_t *ex = s >= 0 && s < P ? sd[ent[s]].examples : NULL;
            json_t *prev = ex ? json_array_get(ex, json_array_size(ex) - 1) : NULL;
            if (prev && json_equal(json_object_get(prev, "reason"), json_object_get(v, "reason")) &&
                json_equal(json_object_get(prev, "kind"), json_object_get(v, "kind")))
                continue; /* said just before */
            if (ex && json_array_size(ex) < LG_EXAMPLES)
                json_array_append_new(ex,
                                      json_pack("{s:O,s:i,s:O,s:O,s:O}", "game", json_object_get(gm, "g"), "seat", s,
                                                "move", json_object_get(v, "move"), "kind",
                                                json_object_get(v, "kind"), "reason", json_object_get(v, "reason")));
        }
        for (int a = 0; a < P; a++)
            for (int b = a + 1; b < P; b++) {
                int wa = (won >> a) & 1, wb = (won >> b) & 1;
                if (ent[a] == ent[b] || (won && !wa && !wb))
                    continue; /* two losers: no result between them */
                double sa = !won || (wa && wb) ? 0.5 : wa ? 1 : 0;
                int lo = ent[a] < ent[b] ? ent[a] : ent[b];
                pr[np++] = (pairing){lo, lo == ent[a] ? ent[b] : ent[a], 1, lo == ent[a] ? sa : 1 - sa};
            }
    }
    qsort(pr, (size_t)np, sizeof *pr, by_pair);
    long m = 0; /* each pair once */
    for (long k = 0; k < np; k++) {
        if (m && pr[m - 1].i == pr[k].i && pr[m - 1].j == pr[k].j) {
            pr[m - 1].n += pr[k].n;
            pr[m - 1].si += pr[k].si;
        } else {
            pr[m++] = pr[k];
        }
    }
    np = m;
    bt_fit(n, pr, np, rating, se);
    for (int i = 0; i < n; i++)
        sd[i].rating = rating[i], sd[i].se = se[i];
    qsort(sd, (size_t)n, sizeof *sd, by_rating);
    int *rank_of = malloc((size_t)n * sizeof *rank_of);
    for (int r = 0; rank_of && r < n; r++)
        rank_of[sd[r].e] = r;
    for (int r = 0; r < n; r++) {
        standing *x = &sd[r];
        const char *name = json_string_value(json_array_get(names, (size_t)x->e));
        int bot = shown_name(name) != name;
        json_t *h2h = json_array();
        for (long k = 0; k < np; k++) {
            int other = pr[k].i == x->e ? pr[k].j : pr[k].j == x->e ? pr[k].i : -1;
            if (other < 0)
                continue;
            double mine = pr[k].i == x->e ? pr[k].si : pr[k].n - pr[k].si;
            const char *on = json_string_value(json_array_get(names, (size_t)other));
            json_array_append_new(h2h, json_pack("{s:s,s:i,s:o,s:o}", "opponent", shown_name(on),
                                                 "rank", rank_of ? rank_of[other] + 1 : 0, "comparisons",
                                                 cli_json_round(pr[k].n, 1), "score", cli_json_round(mine, 1)));
        }
        double z = 1.959963984540054;
        long replaced = x->bad[0] + x->bad[1] + x->bad[2];
        json_t *o = json_pack("{s:i,s:s,s:s,s:o,s:[oo],s:I,s:I,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:o,s:O?,s:o}", "rank", r + 1,
                              "name", shown_name(name), "kind", bot ? "house bot" : "student", "rating",
                              cli_json_round(x->rating, 1), "rating_95", cli_json_round(x->rating - z * x->se, 1),
                              cli_json_round(x->rating + z * x->se, 1), "games", (json_int_t)x->games, "wins", (json_int_t)x->wins,
                              "win_rate", cli_json_round(x->games ? (double)x->wins / (double)x->games : 0, 4), "avg_score",
                              cli_json_round(x->games ? x->score / (double)x->games : 0, 3), "moves", (json_int_t)x->moves,
                              "late", (json_int_t)x->bad[BAD_LATE], "invalid", (json_int_t)x->bad[BAD_INVALID],
                              "error", (json_int_t)x->bad[BAD_ERROR], "replaced", (json_int_t)replaced, "examples",
                              x->examples, "sandbox", x->sandbox, "head_to_head", h2h);
        x->examples = NULL;
        json_array_append_new(list, o);
    }
    free(rank_of);
    json_t *gl = json_array();
    json_array_foreach(games, gi, gm) {
        json_t *seats = json_array(), *won = json_array();
        size_t k;
        json_t *v;
        json_array_foreach(json_object_get(gm, "seats"), k, v)
            json_array_append_new(seats, json_string(shown_name(json_string_value(v))));
        json_array_foreach(json_object_get(gm, "winners"), k, v)
            json_array_append(won, json_array_get(seats, (size_t)json_integer_value(v)));
        char save[64];
        snprintf(save, sizeof save, "games/%lld.json", (long long)json_integer_value(json_object_get(gm, "g")));
        json_array_append_new(gl, json_pack("{s:O,s:O,s:o,s:o,s:O,s:O,s:O,s:s}", "g", json_object_get(gm, "g"), "seed",
                                            json_object_get(gm, "seed"), "seats", seats, "winners", won, "scores",
                                            json_object_get(gm, "scores"), "turns", json_object_get(gm, "turns"),
                                            "ending", json_object_get(gm, "ending"), "save", save));
    }
    out = json_pack("{s:O,s:s,s:o,s:o}", "league", params, "rating_method",
                    "bradley-terry-mm (a win beats every other seat, a shared win or no winner is a draw, two losers "
                    "no result; one virtual draw each against a fixed opponent), Elo scale, mean 1500; 95% interval "
                    "from the diagonal of the observed information",
                    "standings", list, "games", gl);
    list = NULL;
done:
    for (int i = 0; sd && i < n; i++)
        json_decref(sd[i].examples);
    json_decref(list);
    free(sd), free(pr), free(rating), free(se);
    return out;
}

/* ---- standings.html ---------------------------------------------------------------- */

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w < 0)
            return;
        if (b->p && b->n + (size_t)w < b->cap) {
            b->n += (size_t)w;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 65536) + (size_t)w;
        char *np = realloc(b->p, cap);
        if (!np)
            return;
        b->p = np;
        b->cap = cap;
    }
}

static void esc(buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '&': put(b, "&amp;"); break;
        case '"': put(b, "&quot;"); break;
        case '\'': put(b, "&#39;"); break;
        default: put(b, "%c", *s);
        }
    }
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static double numv(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* The page a course publishes: ranks and ratings, each player's head to
 * head and misbehaviour, every game with its save and its replay link. */
static char *standings_html(const json_t *doc)
{
    buf b = {0};
    const json_t *lp = json_object_get(doc, "league");
    put(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>League: ");
    esc(&b, str(lp, "title"));
    put(&b, "</title>\n<style>body{font:15px/1.45 system-ui,sans-serif;margin:1rem auto;max-width:70rem;padding:0 1rem;"
            "color:#1b1b1b}table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.2rem .55rem;"
            "border-bottom:1px solid #ddd;text-align:left}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
            ".bot{color:#555;font-style:italic}details{margin:.3rem 0}summary{cursor:pointer}"
            ".wrap{overflow-x:auto}</style></head><body>\n<h1>League: ");
    esc(&b, str(lp, "title"));
    put(&b, " (");
    esc(&b, str(lp, "variant"));
    long long rounds = (long long)numv(lp, "rounds");
    put(&b, ")</h1>\n<p>%lld players, %lld games (%lld round%s; each table played %lld times with the seats "
            "rotated), seed %lld. A move had %g s; a late, illegal or failed move was played by the bot ",
        (long long)json_array_size(json_object_get(lp, "entrants")), (long long)numv(lp, "games"), rounds,
        rounds == 1 ? "" : "s", (long long)numv(lp, "players"), (long long)numv(lp, "seed"), numv(lp, "move_timeout"));
    esc(&b, str(lp, "fallback"));
    put(&b, ". Ratings: ");
    esc(&b, str(doc, "rating_method"));
    put(&b, ".</p>\n<h2>Standings</h2>\n<div class=\"wrap\"><table><thead><tr><th class=\"n\">#</th><th>player</th>"
            "<th class=\"n\">rating</th><th class=\"n\">95%% interval</th><th class=\"n\">games</th>"
            "<th class=\"n\">wins</th><th class=\"n\">win %%</th><th class=\"n\">avg score</th>"
            "<th class=\"n\">moves</th><th class=\"n\">replaced (late / illegal / error)</th></tr></thead><tbody>\n");
    size_t i, k;
    json_t *x, *y;
    json_array_foreach(json_object_get(doc, "standings"), i, x) {
        int bot = strcmp(str(x, "kind"), "student") != 0;
        json_t *ci = json_object_get(x, "rating_95");
        put(&b, "<tr><td class=\"n\">%lld</td><td%s><a href=\"#p-%zu\">", (long long)numv(x, "rank"),
            bot ? " class=\"bot\"" : "", i);
        esc(&b, str(x, "name"));
        put(&b, "</a>%s</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f&ndash;%.0f</td><td class=\"n\">%lld</td>"
                "<td class=\"n\">%lld</td><td class=\"n\">%.1f</td><td class=\"n\">%.2f</td><td class=\"n\">%lld</td>"
                "<td class=\"n\">%lld (%lld / %lld / %lld)</td></tr>\n",
            bot ? " (house bot)" : "", numv(x, "rating"), json_number_value(json_array_get(ci, 0)),
            json_number_value(json_array_get(ci, 1)), (long long)numv(x, "games"), (long long)numv(x, "wins"),
            100 * numv(x, "win_rate"), numv(x, "avg_score"), (long long)numv(x, "moves"), (long long)numv(x, "replaced"),
            (long long)numv(x, "late"), (long long)numv(x, "invalid"), (long long)numv(x, "error"));
    }
    put(&b, "</tbody></table></div>\n<h2>Players</h2>\n");
    json_array_foreach(json_object_get(doc, "standings"), i, x) {
        put(&b, "<details id=\"p-%zu\"><summary>%lld. ", i, (long long)numv(x, "rank"));
        esc(&b, str(x, "name"));
        put(&b, "</summary>\n");
        if (json_array_size(json_object_get(x, "examples"))) {
            put(&b, "<p>Moves replaced (the first %d):</p><ul>\n", LG_EXAMPLES);
            json_array_foreach(json_object_get(x, "examples"), k, y) {
                put(&b, "<li><a href=\"#g-%lld\">game %lld</a>, move %lld: %s: ", (long long)numv(y, "game"),
                    (long long)numv(y, "game"), (long long)numv(y, "move"), str(y, "kind"));
                esc(&b, str(y, "reason"));
                put(&b, "</li>\n");
            }
            put(&b, "</ul>\n");
        }
        put(&b, "<div class=\"wrap\"><table><thead><tr><th>opponent</th><th class=\"n\">rank</th>"
                "<th class=\"n\">comparisons</th><th class=\"n\">score</th></tr></thead><tbody>\n");
        json_array_foreach(json_object_get(x, "head_to_head"), k, y) {
            put(&b, "<tr><td>");
            esc(&b, str(y, "opponent"));
            put(&b, "</td><td class=\"n\">%lld</td><td class=\"n\">%g</td><td class=\"n\">%g</td></tr>\n",
                (long long)numv(y, "rank"), numv(y, "comparisons"), numv(y, "score"));
        }
        put(&b, "</tbody></table></div></details>\n");
    }
    put(&b, "<h2>Games</h2>\n<div class=\"wrap\"><table><thead><tr><th class=\"n\">game</th><th>seats (0, 1, ...)</th>"
            "<th>won</th><th>ending</th><th>save</th><th>replay</th></tr></thead><tbody>\n");
    json_array_foreach(json_object_get(doc, "games"), i, x) {
        long long g = (long long)numv(x, "g");
        put(&b, "<tr id=\"g-%lld\"><td class=\"n\">%lld</td><td>", g, g);
        json_array_foreach(json_object_get(x, "seats"), k, y) {
            put(&b, "%s", k ? ", " : "");
            esc(&b, json_string_value(y));
        }
        put(&b, "</td><td>");
        json_array_foreach(json_object_get(x, "winners"), k, y) {
            put(&b, "%s", k ? ", " : "");
            esc(&b, json_string_value(y));
        }
        put(&b, "</td><td>");
        esc(&b, str(x, "ending"));
        put(&b, "</td><td><a href=\"");
        esc(&b, str(x, "save"));
        put(&b, "\">save</a></td><td>");
        const char *url = str(x, "replay");
        if (*url) {
            put(&b, "<a href=\"");
            esc(&b, url);
            put(&b, "\">replay</a>");
        } else {
            put(&b, "&mdash;");
        }
        put(&b, "</td></tr>\n");
    }
    put(&b, "</tbody></table></div>\n</body></html>\n");
    return b.p;
}

/* ---- publishing the games to a Croupier server ------------------------------------ */

/* POST body to base + path (with the header lines hdr, may be NULL),
 * waiting out the server's quotas: REMOTE_OK with *ans, or why. */
static int post(const char *base, const char *path, const char *hdr, const json_t *body, int want, json_t **ans,
                char *why, size_t whylen)
{
    remote_url u;
    char url[1400];
    snprintf(url, sizeof url, "%s%s", base, path);
    if (remote_url_parse(url, &u, why, whylen))
        return REMOTE_ERROR;
    int r = REMOTE_ERROR;
    for (int attempt = 0; attempt < 120; attempt++) {
        r = remote_post(&u, hdr, body, 30000, want, ans, why, whylen);
        if (r != REMOTE_BUSY)
            break;
        sleep(1);
    }
    return r;
}

/* Game x of the standings played again on the server at base: created from
 * its seed with a person in every seat (the seats' names), then each play of
 * its history sent by its seat, the plays the server makes itself (forced
 * ones) checked against the history. Its id into id: 0, or -1 with why. */
static int publish_game(const game_ops *ops, const char *dir, const char *base, json_t *x, char *id, size_t idlen,
                        char *why, size_t whylen)
{
    char path[CLI_PATH];
    cli_pathf(path, sizeof path, "%s/%s", dir, str(x, "save"));
    json_t *save = json_load_file(path, 0, NULL), *hist = NULL, *ans = NULL;
    void *st = calloc(1, ops->state_size);
    game_err e = {0};
    int rc = -1;
    if (!save || !st || ops->decode(st, json_object_get(save, "state"), &e)) {
        snprintf(why, whylen, "cannot read the save %.150s%s%.150s", path, e.detail[0] ? ": " : "", e.detail);
        goto out;
    }
    hist = ops->history(st, SEAT_ADMIN);
    json_t *players = json_array();
    size_t i, n = json_array_size(hist), done = 0;
    int over = 0;
    json_t *v;
    json_array_foreach(json_object_get(save, "seats"), i, v) {
        char nm[80];
        snprintf(nm, sizeof nm, "%s%s", str(v, "name"), json_object_get(v, "bot") ? " (bot)" : "");
        json_array_append_new(players, json_pack("{s:s}", "name", nm));
    }
    json_t *body = json_pack("{s:s,s:O,s:O,s:o,s:{s:s}}", "game", ops->name, "variant",
                             json_object_get(save, "variant"), "seed", json_object_get(save, "seed"), "players",
                             players, "options", "spectators", "public");
    int r = post(base, "/games", NULL, body, 201, &ans, why, whylen);
    json_decref(body);
    const char *gid = json_string_value(json_object_get(ans, "id"));
    if (r != REMOTE_OK || !gid) {
        if (r == REMOTE_OK)
            snprintf(why, whylen, "the server's answer to POST /games has no id");
        goto out;
    }
    snprintf(id, idlen, "%s", gid);
    json_t *seats = json_incref(json_object_get(ans, "seats"));
    done = json_array_size(json_object_get(ans, "applied"));
    over = json_is_true(json_object_get(json_object_get(ans, "status"), "over"));
    json_decref(ans);
    ans = NULL;
    char ppath[200];
    snprintf(ppath, sizeof ppath, "/games/%s/plays", id);
    while (done < n) {
        json_t *rec = json_array_get(hist, done);
        int seat = (int)json_integer_value(json_object_get(rec, "seat"));
        const char *tok = json_string_value(json_object_get(json_array_get(seats, (size_t)seat), "token"));
        char hdr[300];
        snprintf(hdr, sizeof hdr, "Authorization: Bearer %s\r\n", tok ? tok : "");
        json_t *pb = json_pack("{s:O}", "play", json_object_get(rec, "play"));
        r = post(base, ppath, hdr, pb, 200, &ans, why, whylen);
        json_decref(pb);
        size_t k = json_array_size(json_object_get(ans, "applied"));
        /* the server's plays are the league's: the same seats in the same order (their
         * plays as the reply shows them: a card drawn blind is "XX" there); a deal that
         * differed would have the server refuse a play */
        for (size_t j = 0; r == REMOTE_OK && j < k; j++) {
            json_t *a = json_array_get(json_object_get(ans, "applied"), j), *h = json_array_get(hist, done + j);
            if (!h || !json_equal(json_object_get(a, "seat"), json_object_get(h, "seat"))) {
                snprintf(why, whylen, "the server's game went another way at its play %zu", done + j);
                r = REMOTE_ERROR;
            }
        }
        over = json_is_true(json_object_get(json_object_get(ans, "status"), "over"));
        json_decref(ans);
        ans = NULL;
        if (r != REMOTE_OK || !k) {
            if (r == REMOTE_OK)
                snprintf(why, whylen, "the server applied nothing for play %zu", done);
            json_decref(seats);
            goto out;
        }
        done += k;
    }
    json_decref(seats);
    if (!over && n) {
        snprintf(why, whylen, "the server's game is not over after the league's %zu plays", n);
        goto out;
    }
    rc = 0;
out:
    json_decref(ans);
    json_decref(hist);
    json_decref(save);
    free(st);
    return rc;
}

/* Each game of the standings played again on the server at base (readable
 * by anyone: a finished game shows every card), its replay link set in the
 * games list: the number published, or -1 with why. */
static int publish(const game_ops *ops, json_t *doc, const char *dir, const char *base, int quiet, char *why,
                   size_t whylen)
{
    mg_init_library(0);
    int n = 0, rc = 0;
    size_t i, total = json_array_size(json_object_get(doc, "games"));
    json_t *x;
    json_array_foreach(json_object_get(doc, "games"), i, x) {
        char id[96], w[400];
        if (publish_game(ops, dir, base, x, id, sizeof id, w, sizeof w)) {
            snprintf(why, whylen, "game %lld: %.360s", (long long)numv(x, "g"), w);
            rc = -1;
            break;
        }
        char link[1400];
        snprintf(link, sizeof link, "%s/#game=%s&at=-1", base, id);
        json_object_set_new(x, "replay", json_string(link));
        n++;
        if (!quiet && isatty(STDERR_FILENO))
            fprintf(stderr, "\r%d/%zu games published", n, total);
    }
    if (!quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "\n");
    mg_exit_library();
    return rc ? -1 : n;
}

/* standings.json and standings.html into dir: 0, or -1. */
static int write_standings(const char *dir, json_t *doc)
{
    char path[CLI_PATH];
    cli_pathf(path, sizeof path, "%s/standings.json", dir);
    if (cli_write_json(path, doc, 0644))
        return -1;
    char *html = standings_html(doc);
    cli_pathf(path, sizeof path, "%s/standings.html", dir);
    int rc = html ? cli_write_file(path, html, strlen(html), 0644) : -1;
    free(html);
    return rc;
}

static void print_standings(const json_t *doc, FILE *f)
{
    fprintf(f, "%4s  %-24s %7s  %-13s %6s %6s %9s\n", "rank", "player", "rating", "95% interval", "games", "wins",
            "replaced");
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(doc, "standings"), i, x) {
        json_t *ci = json_object_get(x, "rating_95");
        char name[64];
        snprintf(name, sizeof name, "%s%s", str(x, "name"), strcmp(str(x, "kind"), "student") ? " (bot)" : "");
        fprintf(f, "%4lld  %-24s %7.0f  %5.0f-%-7.0f %6lld %6lld %9lld\n", (long long)numv(x, "rank"), name,
                numv(x, "rating"), json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
                (long long)numv(x, "games"), (long long)numv(x, "wins"), (long long)numv(x, "replaced"));
    }
}

/* Standings of params and games into dir (published first when base is
 * set), printed unless quiet: 0, or 1. */
static int finish(const char *dir, const json_t *params, json_t *games, const char *base, int quiet)
{
    char why[400];
    json_t *doc = standings_of(params, games, why, sizeof why);
    if (!doc) {
        fprintf(stderr, "croupier league: %s\n", why);
        return 1;
    }
    int published = 0;
    if (base) {
        int n = publish(game_find(str(params, "game")), doc, dir, base, quiet, why, sizeof why);
        if (n < 0) /* the standings are written all the same: the games need not be played again */
            fprintf(stderr, "croupier league: --publish %s: %s; the standings are written without replay links "
                            "(publish them later: croupier league merge --publish URL --out %s %s/part-*.json)\n",
                    base, why, dir, dir);
        else if (!quiet)
            fprintf(stderr, "croupier league: %d games imported into %s\n", n, base);
        published = n < 0 ? -1 : 1;
    }
    int rc = write_standings(dir, doc);
    if (rc)
        fprintf(stderr, "croupier league: cannot write the standings into %s: %s\n", dir, strerror(errno));
    else if (!quiet)
        print_standings(doc, stdout);
    json_decref(doc);
    return rc || published < 0 ? 1 : 0;
}

/* ---- the command line ------------------------------------------------------------ */

typedef struct largs {
    const char *game, *variant, *bots, *fallback, *module, *sandbox, *out, *publish, *dir;
    long long games, seed, players, jobs, memory;
    double move_timeout;
    int shard, nshards, quiet;
} largs;

static int bad_arg(const char *opt, const char *want, const char *got)
{
    fprintf(stderr, "croupier league: %s takes %s, not '%s'\n", opt, want, got);
    return 2;
}

static int parse_args(int argc, char **argv, largs *a)
{
    *a = (largs){.games = 20, .seed = 1, .memory = 1LL << 30, .move_timeout = 1, .sandbox = "auto", .shard = 1,
                 .nshards = 1};
    static const struct option opts[] = {
        {"game", required_argument, 0, 'g'}, {"variant", required_argument, 0, 'v'},
        {"games", required_argument, 0, 'n'}, {"seed", required_argument, 0, 's'},
        {"bots", required_argument, 0, 'b'}, {"players", required_argument, 0, 'p'},
        {"move-timeout", required_argument, 0, 'T'}, {"fallback", required_argument, 0, 'F'},
        {"module", required_argument, 0, 'm'}, {"memory", required_argument, 0, 'M'},
        {"sandbox", required_argument, 0, 'S'}, {"jobs", required_argument, 0, 'j'},
        {"shard", required_argument, 0, 'H'}, {"out", required_argument, 0, 'o'},
        {"publish", required_argument, 0, 'P'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'g': a->game = optarg; break;
        case 'v': a->variant = optarg; break;
        case 'b': a->bots = optarg; break;
        case 'F': a->fallback = optarg; break;
        case 'm': a->module = optarg; break;
        case 'o': a->out = optarg; break;
        case 'P': a->publish = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'n':
            if (cli_number(optarg, 1, 10000, &a->games))
                return bad_arg("--games", "1..10000", optarg);
            break;
        case 's':
            if (cli_number(optarg, 0, (1LL << 53) - 1, &a->seed))
                return bad_arg("--seed", "0..2^53-1", optarg);
            break;
        case 'p':
            if (cli_number(optarg, 1, GAME_MAX_SEATS, &a->players))
                return bad_arg("--players", "a number of seats", optarg);
            break;
        case 'j':
            if (cli_number(optarg, 1, LG_MAX_JOBS, &a->jobs))
                return bad_arg("--jobs", "1..64", optarg);
            break;
        case 'M':
            if (cli_bytes(optarg, 1LL << 40, &a->memory) || a->memory < (64LL << 20))
                return bad_arg("--memory", "64M..1T (K, M, G, T)", optarg);
            break;
        case 'T':
            errno = 0;
            a->move_timeout = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(a->move_timeout >= 0.01 && a->move_timeout <= 60))
                return bad_arg("--move-timeout", "0.01..60 seconds", optarg);
            break;
        case 'S':
            if (strcmp(optarg, "auto") && strcmp(optarg, "bwrap") && strcmp(optarg, "none"))
                return bad_arg("--sandbox", "auto, bwrap or none", optarg);
            a->sandbox = optarg;
            break;
        case 'H': {
            long long i, n;
            char tmp[64];
            const char *slash = strchr(optarg, '/');
            if (!slash || (size_t)(slash - optarg) >= sizeof tmp)
                return bad_arg("--shard", "I/N (1 <= I <= N <= 10000)", optarg);
            snprintf(tmp, sizeof tmp, "%.*s", (int)(slash - optarg), optarg);
            if (cli_number(slash + 1, 1, 10000, &n) || cli_number(tmp, 1, n, &i))
                return bad_arg("--shard", "I/N (1 <= I <= N <= 10000)", optarg);
            a->shard = (int)i;
            a->nshards = (int)n;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!a->game || !a->out) {
        fprintf(stderr, "croupier league: --game and --out are required (croupier league --help)\n");
        return 2;
    }
    if (optind + 1 != argc) {
        fprintf(stderr, optind >= argc ? "croupier league: PLAYERS, the folder of the students' players, is required\n"
                                       : "croupier league: unexpected argument '%s'\n",
                optind < argc ? argv[optind + 1] : "");
        return 2;
    }
    a->dir = argv[optind];
    return -1;
}

/* The game, its play function, the bots and the entrants into lg: 0, or 2. */
static int set_up(league *lg, const largs *a)
{
    const game_ops *ops = game_find(a->game);
    if (!ops) {
        fprintf(stderr, "croupier league: unknown game '%s' (see `croupier games`)\n", a->game);
        return 2;
    }
    lg->ops = ops;
    lg->variant = a->variant ? a->variant : ops->variants[0];
    if (!game_has_variant(ops, lg->variant)) {
        fprintf(stderr, "croupier league: %s has no variant '%s'\n", ops->name, lg->variant);
        return 2;
    }
    for (int i = 0; i < ops->nsuites && !lg->suite; i++)
        if (ops->suites[i].judge && strcmp(ops->suites[i].variant, lg->variant) == 0)
            lg->suite = &ops->suites[i];
    if (!ops->fn_args || !lg->suite) {
        fprintf(stderr, "croupier league: %s (%s) has no play function of a course for students to write "
                        "(a league plays comp10001bo or phazed)\n", ops->name, lg->variant);
        return 2;
    }
    /* by default the weakest: a player is not lifted by the moves it failed */
    lg->fallback = a->fallback ? a->fallback : game_has_bot(ops, "random") ? "random" : ops->bots[0].name;
    if (!game_has_bot(ops, lg->fallback)) {
        fprintf(stderr, "croupier league: %s has no bot '%s' for --fallback\n", ops->name, lg->fallback);
        return 2;
    }
    int usual = ops->default_players ? ops->default_players : ops->min_players;
    lg->players = a->players ? (int)a->players : usual;
    if (lg->players < ops->min_players || lg->players > ops->max_players) {
        fprintf(stderr, "croupier league: %s takes %d-%d players, not %d\n", ops->name, ops->min_players,
                ops->max_players, lg->players);
        return 2;
    }
    int nb = 0;
    const char *bots[64];
    char bl[1024] = "";
    if (a->bots) {
        if (strlen(a->bots) >= sizeof bl) {
            fprintf(stderr, "croupier league: --bots is too long\n");
            return 2;
        }
        snprintf(bl, sizeof bl, "%s", a->bots);
        for (char *p = bl, *tok; (tok = strsep(&p, ","));) {
            if (!game_has_bot(ops, tok) || nb == 64) {
                fprintf(stderr, "croupier league: %s has no bot '%s' for --bots (see `croupier games`)\n", ops->name,
                        tok);
                return 2;
            }
            bots[nb++] = game_find_bot(ops, tok)->name;
        }
    }
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(bots[j], bots[i]) == 0) {
                fprintf(stderr, "croupier league: --bots names %s twice\n", bots[i]);
                return 2;
            }
    char **names = NULL, **paths = NULL;
    int ns = 0;
    if (cli_list_students("league", a->dir, &names, &paths, &ns)) {
        fprintf(stderr, "croupier league: cannot read %s: %s\n", a->dir, strerror(errno));
        return 2;
    }
    lg->nent = ns + nb;
    if (lg->nent > LG_MAX_ENTRANTS || lg->nent < lg->players) {
        fprintf(stderr, "croupier league: %d players (%d students, %d bots) for tables of %d: a league takes %d to %d "
                        "(add house bots with --bots)\n", lg->nent, ns, nb, lg->players, lg->players, LG_MAX_ENTRANTS);
        for (int i = 0; i < ns; i++)
            free(names[i]), free(paths[i]);
        free(names);
        free(paths);
        return 2;
    }
    lg->ent = calloc((size_t)lg->nent, sizeof *lg->ent);
    for (int i = 0; lg->ent && i < ns; i++)
        lg->ent[i] = (entrant){.name = names[i], .path = paths[i]};
    for (int i = 0; lg->ent && i < nb; i++) {
        char *nm = malloc(strlen(bots[i]) + 5);
        if (nm)
            sprintf(nm, "bot:%s", bots[i]);
        lg->ent[ns + i] = (entrant){.name = nm, .bot = bots[i]};
    }
    free(names);
    free(paths);
    lg->nbots = nb;
    if (!lg->ent)
        return 2;
    lg->rounds = (int)((a->games + lg->players - 1) / lg->players);
    lg->per_round = (lg->nent + lg->players - 1) / lg->players;
    lg->tables = (long)lg->rounds * lg->per_round;
    lg->games = lg->tables * lg->players;
    if (lg->games > LG_MAX_GAMES) {
        fprintf(stderr, "croupier league: %ld games: at most %d in one league (fewer --games)\n", lg->games,
                LG_MAX_GAMES);
        return 2;
    }
    lg->seats = malloc((size_t)lg->games * sizeof *lg->seats);
    lg->rec = calloc((size_t)lg->games, sizeof *lg->rec);
    if (!lg->seats || !lg->rec)
        return 2;
    for (int r = 0; r < lg->rounds; r++)
        deal_round(lg, r);
    return 0;
}

static int cmd_merge(int argc, char **argv);

int cmd_league(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    largs a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    league lg = {.seed = (uint64_t)a.seed, .move_timeout = a.move_timeout, .memory = a.memory, .module = a.module,
                 .sandbox = a.sandbox, .shard = a.shard, .nshards = a.nshards};
    if ((rc = set_up(&lg, &a)))
        return rc;
    long jobs = a.jobs ? (long)a.jobs : sysconf(_SC_NPROCESSORS_ONLN);
    lg.jobs = (int)(jobs < 1 ? 1 : jobs > LG_MAX_JOBS ? LG_MAX_JOBS : jobs);
    lg.my_tables = lg.tables > lg.shard - 1 ? (lg.tables - (lg.shard - 1) + lg.nshards - 1) / lg.nshards : 0;
    char *out = cli_make_dir(a.out, 0755) ? NULL : realpath(a.out, NULL);
    if (!out || strlen(out) > CLI_PATH / 2) {
        fprintf(stderr, "croupier league: cannot make %s: %s\n", a.out, out ? "the path is too long" : strerror(errno));
        free(out);
        return 1;
    }
    cli_pathf(lg.kitdir, sizeof lg.kitdir, "%s/.croupier", out);
    cli_pathf(lg.gamesdir, sizeof lg.gamesdir, "%s/games", out);
    char path[CLI_PATH];
    if (cli_make_dir(lg.kitdir, 0700) || chmod(lg.kitdir, 0700) || cli_make_dir(lg.gamesdir, 0755)) {
        fprintf(stderr, "croupier league: cannot write into %s: %s\n", out, strerror(errno));
        free(out);
        return 1;
    }
    cli_pathf(path, sizeof path, "%s/kit_harness.py", lg.kitdir);
    int w = cli_write_file(path, kit_harness_py, kit_harness_py_len, 0600);
    cli_pathf(path, sizeof path, "%s/kit_grade.py", lg.kitdir);
    w = w || cli_write_file(path, kit_grade_py, kit_grade_py_len, 0600);
    if (w) {
        fprintf(stderr, "croupier league: cannot write into %s: %s\n", lg.kitdir, strerror(errno));
        free(out);
        return 1;
    }
    int uids = cli_hold_uids("league", lg.jobs * lg.players);
    struct sigaction sa = {0}, old_int, old_term, old_pipe;
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    struct sigaction ign = {0};
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe); /* a player that hangs up is its error, not our end */
    if (!a.quiet)
        fprintf(stderr, "croupier league: %d players (%d house bots), %ld games in %d round%s of %d table%s%s\n",
                lg.nent, lg.nbots, lg.games, lg.rounds, lg.rounds == 1 ? "" : "s", lg.per_round,
                lg.per_round == 1 ? "" : "s", lg.nshards > 1 ? " (this shard: its part)" : "");
    pthread_t tid[LG_MAX_JOBS];
    worker *wk = calloc((size_t)lg.jobs, sizeof *wk);
    int started = 0;
    double t0 = cli_now();
    for (int i = 0; wk && i < lg.jobs; i++) {
        wk[i] = (worker){.lg = &lg, .index = i};
        if (pthread_create(&tid[i], NULL, work, &wk[i]))
            break;
        started++;
    }
    int tty = !a.quiet && isatty(STDERR_FILENO);
    for (long last = -1; started;) {
        long d = __atomic_load_n(&lg.done_tables, __ATOMIC_RELAXED);
        int fatal = 0;
        for (int i = 0; i < started; i++)
            fatal |= wk[i].fatal;
        if (d != last && !a.quiet) {
            double el = cli_now() - t0, left = d ? el / (double)d * (double)(lg.my_tables - d) : 0;
            fprintf(stderr, "%s%ld/%ld tables, %ld games, %.0f s, about %.0f s left%s", tty ? "\r" : "", d,
                    lg.my_tables, d * lg.players, el, left, tty ? "   " : "\n");
            last = d;
        }
        if (d >= lg.my_tables || stopping || fatal) {
            lg.next_table = lg.my_tables; /* nothing more started */
            break;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (tty)
        fprintf(stderr, "\n");
    int fatal = !wk || !started;
    for (int i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        fatal |= wk[i].fatal;
    }
    double secs = cli_now() - t0;
    free(wk);
    if (uids >= 0)
        close(uids);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    rc = 0;
    json_t *params = league_params(&lg, a.games), *games = json_array();
    if (fatal) {
        fprintf(stderr, "croupier league: --sandbox bwrap: bubblewrap cannot make a sandbox here (or no thread "
                        "started): the league stopped\n");
        rc = 1;
    } else if (stopping) {
        fprintf(stderr, "croupier league: stopped (signal %d)\n", (int)stopping);
        rc = 1;
    }
    for (long t = lg.shard - 1; !rc && t < lg.tables; t += lg.nshards)
        for (int k = 0; k < lg.players; k++) {
            long g = t * lg.players + k;
            if (lg.rec[g].failed || !lg.rec[g].done) {
                fprintf(stderr, "croupier league: game %ld (seed %llu): %s\n", g,
                        (unsigned long long)table_seed(&lg, t), lg.rec[g].error[0] ? lg.rec[g].error : "not played");
                rc = 1;
                break;
            }
            json_array_append_new(games, record_json(&lg, g));
        }
    if (!rc) {
        json_t *part = json_pack("{s:O,s:[ii],s:O,s:o}", "league", params, "shard", lg.shard, lg.nshards, "games",
                                 games, "timing", json_pack("{s:o,s:i}", "seconds", cli_json_round(secs, 2), "jobs", lg.jobs));
        cli_pathf(path, sizeof path, "%s/part-%d-of-%d.json", out, lg.shard, lg.nshards);
        if (!part || cli_write_json(path, part, 0644)) {
            fprintf(stderr, "croupier league: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
        }
        json_decref(part);
        if (!a.quiet)
            fprintf(stderr, "croupier league: %zu games in %.1f s (%.2f games/s, %d jobs)\n", json_array_size(games),
                    secs, (double)json_array_size(games) / (secs > 0 ? secs : 1e-9), lg.jobs);
    }
    if (!rc && lg.nshards == 1)
        rc = finish(out, params, games, a.publish, a.quiet);
    else if (!rc && !a.quiet)
        fprintf(stderr, "croupier league: part %d of %d written to %s; when every part is played: croupier league "
                        "merge --out DIR PART.json...\n", lg.shard, lg.nshards, path);
    json_decref(params);
    json_decref(games);
    for (int i = 0; i < lg.nent; i++) {
        free(lg.ent[i].name);
        free(lg.ent[i].path);
    }
    free(lg.ent);
    free(lg.seats);
    for (long g = 0; g < lg.games; g++)
        free(lg.rec[g].inc);
    free(lg.rec);
    free(out);
    return rc;
}

/* ---- croupier league merge ------------------------------------------------------- */

static int by_g(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "g")),
               y = json_integer_value(json_object_get(*(json_t *const *)b, "g"));
    return (x > y) - (x < y);
}

/* The game saves of the part at part_path (its folder's games/) into dir's games/. */
static int copy_saves(const char *part_path, const char *dir, json_t *games)
{
    char from[CLI_PATH], to[CLI_PATH], src[CLI_PATH];
    snprintf(src, sizeof src, "%s", part_path);
    char *slash = strrchr(src, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(src, sizeof src, ".");
    size_t i;
    json_t *g;
    json_array_foreach(games, i, g) {
        json_int_t n = json_integer_value(json_object_get(g, "g"));
        cli_pathf(from, sizeof from, "%s/games/%lld.json", src, (long long)n);
        cli_pathf(to, sizeof to, "%s/games/%lld.json", dir, (long long)n);
        char *rf = realpath(from, NULL), *rt = realpath(to, NULL);
        int same = rf && rt && strcmp(rf, rt) == 0;
        free(rf);
        free(rt);
        if (same)
            continue;
        json_t *save = json_load_file(from, 0, NULL);
        int rc = save ? cli_write_json(to, save, 0644) : -1;
        json_decref(save);
        if (rc) {
            fprintf(stderr, "croupier league merge: cannot copy %s to %s\n", from, to);
            return -1;
        }
    }
    return 0;
}

static int cmd_merge(int argc, char **argv)
{
    const char *out = NULL, *base = NULL;
    int quiet = 0;
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"publish", required_argument, 0, 'P'},
                                         {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'P': base = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "croupier league merge: --out DIR and the parts (PART.json...) are required\n");
        return 2;
    }
    char gd[CLI_PATH];
    cli_pathf(gd, sizeof gd, "%s/games", out);
    if (cli_make_dir(out, 0755) || cli_make_dir(gd, 0755)) {
        fprintf(stderr, "croupier league merge: cannot make %s: %s\n", out, strerror(errno));
        return 1;
    }
    json_t *params = NULL, *games = json_array();
    int rc = 0, nshards = 0;
    for (int i = optind; i < argc && !rc; i++) {
        json_error_t je;
        json_t *part = json_load_file(argv[i], 0, &je);
        json_t *pp = json_object_get(part, "league"), *pg = json_object_get(part, "games");
        int n = (int)json_integer_value(json_array_get(json_object_get(part, "shard"), 1));
        if (!json_is_object(pp) || !json_is_array(pg)) {
            fprintf(stderr, "croupier league merge: %s is not a part of a league: %s\n", argv[i],
                    part ? "no league or games" : je.text);
            rc = 2;
        } else if (params && (!json_equal(params, pp) || n != nshards)) {
            fprintf(stderr, "croupier league merge: %s is a part of another league (its parameters or its "
                            "number of shards differ from %s's)\n", argv[i], argv[optind]);
            rc = 2;
        } else {
            if (!params)
                params = json_incref(pp), nshards = n;
            json_array_extend(games, pg);
            rc = copy_saves(argv[i], out, pg) ? 1 : 0;
        }
        json_decref(part);
    }
    long want = params ? (long)json_integer_value(json_object_get(params, "games")) : 0;
    if (!rc) {
        size_t n = json_array_size(games);
        json_t **v = malloc((n + 1) * sizeof *v);
        for (size_t i = 0; v && i < n; i++)
            v[i] = json_incref(json_array_get(games, i));
        if (v)
            qsort(v, n, sizeof *v, by_g);
        json_array_clear(games);
        for (size_t i = 0; v && i < n; i++) {
            long g = (long)json_integer_value(json_object_get(v[i], "g"));
            if (!rc && g != (long)i) {
                fprintf(stderr, "croupier league merge: game %ld is %s: the parts given are not the league's %d "
                                "parts, each once\n", g < (long)i ? g : (long)i, g < (long)i ? "in two parts" : "in none",
                        nshards);
                rc = 2;
            }
            json_array_append_new(games, v[i]);
        }
        free(v);
        if (!rc && (long)n != want) {
            fprintf(stderr, "croupier league merge: %zu of the league's %ld games: a part is missing\n", n, want);
            rc = 2;
        }
    }
    if (!rc)
        rc = finish(out, params, games, base, quiet);
    json_decref(params);
    json_decref(games);
    return rc;
}
