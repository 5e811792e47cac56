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
 * each holds one connection at a time (front_civet.c says the deadlines
 * that bound how long, front_conn.c enforces them). access_log: a file
 * descriptor open for appending (one line per request, secrets redacted),
 * or -1. 0 or -1 with a message in err. */
int front_civet_start(front_civet *fc, const char *listen, int threads,
                      int access_log, char *err, size_t errlen);
/* Stop accepting, wait for requests in flight, free everything. */
void front_civet_stop(front_civet *fc);

#endif
