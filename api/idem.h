/* idem.h: Idempotency-Key on the routes that create or change games
 * (api/idem.c has the design: the answer is stored by the write itself, in
 * its transaction; keys are scoped by token, method and path; answers are
 * sealed and kept 24 hours).
 *
 * A keyed route's request goes: idem_begin() (before the handler: claims
 * the key, or answers a replay, 409 in flight, 422 reused, 400) -> the
 * handler builds its answer `ok` before writing, idem_answer() seals it
 * into the store_answer its write stores -> idem_settled() after the write
 * (a key answered by another request first: its answer) -> idem_end()
 * (after the handler: a key without a stored answer is released).
 */
#ifndef CROUPIER_IDEM_H
#define CROUPIER_IDEM_H

#include "http.h"
#include "store.h"

typedef struct idem_ticket {
    int on;                 /* the request carries a key, claimed for it */
    int answered;           /* its answer is stored (by its write) or was replayed */
    int unknown;            /* its write's outcome is unknown: the claim is kept */
    store_idem row;         /* id, fingerprint and owner of the claim */
    unsigned char seal[32]; /* seals the stored answer */
} idem_ticket;

/* Before the handler of a keyed route: 0 to run it (t->on when a key was
 * given and claimed), or 1 with the answer in res. */
int idem_begin(const api_config *cfg, const http_req *req, idem_ticket *t, http_res *res);
/* The answer `ok` sealed for its write (t NULL or off: *a zeroed, no
 * answer). 0 or ERR_INTERNAL; free with idem_answer_free(). */
int idem_answer(const idem_ticket *t, const http_res *ok, store_answer *a);
void idem_answer_free(store_answer *a);
/* After the write (its result rc): 0 when the key is answered (by this
 * write, or res now holds the answer another request with the key stored
 * first), else the error to answer (ERR_IDEM_BUSY becomes ERR_CONFLICT). */
int idem_settled(const api_config *cfg, const http_req *req, idem_ticket *t, int rc,
                 http_res *res);
/* After the handler: release a key whose answer was not stored. */
void idem_end(const api_config *cfg, idem_ticket *t, const http_res *res);

#endif
