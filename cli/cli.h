/* cli.h: the command-line tools over the engine. */
#ifndef CROUPIER_CLI_H
#define CROUPIER_CLI_H

int cmd_selfplay(int argc, char **argv);
int cmd_tournament(int argc, char **argv);
int cmd_cases(int argc, char **argv);
int cmd_grade(int argc, char **argv);
int cmd_league(int argc, char **argv); /* league.c (docs/league.md) */
/* args.c: a whole number lo..hi in s: 0, or -1 when it is not one. */
int cli_number(const char *s, long long lo, long long hi, long long *out);
/* args.c: a size in bytes, a whole number with an optional K, M, G or T
 * (powers of 1024), 0..hi: 0, or -1. */
int cli_bytes(const char *s, long long hi, long long *out);

/* cohort.c: what grade and league share (docs/autograder.md). A path is at
 * most CLI_PATH bytes; run by root, the students' code runs as uids
 * CLI_UID_BASE + slot. */
#include <jansson.h>
#include <sys/types.h>
enum { CLI_PATH = 4096, CLI_UID_BASE = 65000 };
/* printf into buf: an empty string when it does not fit (which no open() takes) */
void cli_pathf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* path written whole or not at all (a temporary file renamed): 0 or -1 */
int cli_write_file(const char *path, const void *p, size_t n, mode_t mode);
int cli_write_json(const char *path, const json_t *v, mode_t mode);
/* a folder that exists or is made: 0, or -1 */
int cli_make_dir(const char *path, mode_t mode);
double cli_now(void); /* CLOCK_MONOTONIC seconds */
/* v rounded to `places` decimals as a JSON number, so that a report's text
 * does not vary with the last bit (tournament and league reports) */
json_t *cli_json_round(double v, int places);
const char *cli_python(void); /* $CROUPIER_PYTHON, else /usr/bin/python3 when there is one, else python3 */
int cli_name_ok(const char *s); /* a student's name: letters, digits, _ - . */
/* The students of dir, sorted: names[] and paths[] (malloc'd, count of
 * them); messages start "croupier CMD:". 0, or -1 when dir cannot be read. */
int cli_list_students(const char *cmd, const char *dir, char ***names, char ***paths, int *count);
/* As root: wait for, then hold, the students' uids (an flock): its
 * descriptor (close it when the students are gone), or -1 when not root. */
int cli_hold_uids(const char *cmd, int jobs);

/* purge.c: games expire (docs/operations.md, retention). A finished game
 * whose last play is older than finished_days, and any game with no write
 * for idle_days, are removed (0: that rule is off). */
typedef struct purge_policy {
    int finished_days, idle_days;
} purge_policy;
enum { EXPIRE_FINISHED_DAYS = 30, EXPIRE_IDLE_DAYS = 90, EXPIRE_DAYS_MAX = 36500 };
int cmd_purge(int argc, char **argv);
struct store;
/* The server's purger thread (a pass soon after start, then every hour):
 * 0, or -1 when it cannot run. purge_stop() ends it (before the store is
 * closed). */
int purge_start(struct store *st, const purge_policy *p);
void purge_stop(void);

/* remote.c: a remote player (docs/tournaments.md, "Remote players"). */
#include <jansson.h>
#include <stddef.h>

typedef struct remote_url {
    char host[256];
    int port;
    char path[1024];
} remote_url;

/* What a remote call gave. */
enum { REMOTE_OK, REMOTE_LATE, REMOTE_ERROR, REMOTE_INVALID, REMOTE_BUSY };

/* Split "http://host[:port][/path]"; -1 with a message in err for any
 * other scheme or a malformed URL. */
int remote_url_parse(const char *url, remote_url *out, char *err, size_t errlen);
/* POST `body` (borrowed) as JSON and wait at most timeout_ms in all. REMOTE_OK:
 * *answer is the play (a new reference: the "play" member of an object
 * answer that has one, else the whole answer). Otherwise *answer is NULL and
 * why says what went wrong: REMOTE_LATE (no whole answer in time),
 * REMOTE_ERROR (connection, HTTP status not 200), REMOTE_INVALID (not
 * JSON). The caller has run mg_init_library(0). Thread-safe. */
int remote_call(const remote_url *u, const json_t *body, int timeout_ms, json_t **answer,
                char *why, size_t whylen);
/* The same POST with more header lines (NULL, or lines each ending
 * "\r\n"), the answer whole (a new reference) when the status is `want`;
 * REMOTE_BUSY for a 429 or 503 (ask again later). */
int remote_post(const remote_url *u, const char *headers, const json_t *body, int timeout_ms, int want,
                json_t **answer, char *why, size_t whylen);

#endif
