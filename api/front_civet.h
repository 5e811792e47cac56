/* front_civet.h: the civetweb front end (see front_civet.c). */
#ifndef CROUPIER_FRONT_CIVET_H
#define CROUPIER_FRONT_CIVET_H

#include <stddef.h>

#include "http.h"

struct mg_context;

typedef struct front_civet {
    api_config cfg; /* read by every worker thread; do not change after start */
    struct mg_context *ctx;
    int port; /* the port actually bound (useful with :0) */
    int stopping; /* set by front_civet_stop: streams end */
} front_civet;

/* Start serving on `listen` ("ADDR:PORT") with `threads` civetweb workers:
 * each holds one connection at a time (see front_civet.c for the deadlines
 * that bound how long). access_log: a file descriptor open for appending
 * (one line per request, secrets redacted), or -1. 0 or -1 with a message
 * in err. */
int front_civet_start(front_civet *fc, const char *listen, int threads,
                      int access_log, char *err, size_t errlen);
/* Write a whole response (status line, headers, body) in one write. */
struct mg_connection;
void front_civet_write(struct mg_connection *conn, const http_res *res, int head_only,
                       int close);
/* On a worker thread: the socket of the connection it serves, -1 unknown. */
int front_civet_fd(void);
/* End a connection from another thread (shut its socket down both ways):
 * civetweb's reads and writes on it fail at once and it closes it. Only for
 * a socket known to be still open (its connection_close not yet run). */
void front_civet_cut(int fd);
/* Wait for a turn to run a request that may run bots (at most 4 per CPU at
 * once, at least 8; see front_civet.c): 0; -1 after 10 s (answer 503); -2
 * when the client went away while it waited (answer nothing). Every 0 is
 * followed by one front_civet_leave(). */
int front_civet_enter(void);
void front_civet_leave(void);
/* Stop accepting, wait for requests in flight, free everything. */
void front_civet_stop(front_civet *fc);

#endif
