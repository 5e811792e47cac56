/* pool.c: a few threads with roomy stacks that run api_handle() for the
 * civetweb front end. Debian builds civetweb with 100 KB worker stacks,
 * too small for the engine's searches (bots, the Five Crowns arranger); a
 * worker hands its request to this pool and waits. A handoff is two
 * condition-variable wakeups, much cheaper than a thread per request. */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    const api_config *cfg;
    const http_req *req;
    http_res *res;
    int done;
    pthread_cond_t cv;
    struct job *next;
} job;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work;
    job *head, *tail;
    pthread_t *th;
    int n, stop;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER};

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&P.mu);
    for (;;) {
        while (!P.head && !P.stop)
            pthread_cond_wait(&P.work, &P.mu);
        if (!P.head)
            break; /* stopping and nothing left */
        job *j = P.head;
        P.head = j->next;
        if (!P.head)
            P.tail = NULL;
        pthread_mutex_unlock(&P.mu);
        api_handle(j->cfg, j->req, j->res);
        pthread_mutex_lock(&P.mu);
        j->done = 1;
        pthread_cond_signal(&j->cv);
    }
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

int pool_start(int threads, size_t stack_bytes)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    P.th = calloc((size_t)threads, sizeof *P.th);
    P.stop = 0;
    for (int i = 0; P.th && i < threads; i++)
        if (pthread_create(&P.th[i], &attr, worker, NULL) == 0)
            P.n++;
    pthread_attr_destroy(&attr);
    return P.n > 0 ? 0 : -1;
}

void pool_handle(const api_config *cfg, const http_req *req, http_res *res)
{
    job j = {cfg, req, res, 0, PTHREAD_COND_INITIALIZER, NULL};
    pthread_mutex_lock(&P.mu);
    if (P.tail)
        P.tail->next = &j;
    else
        P.head = &j;
    P.tail = &j;
    pthread_cond_signal(&P.work);
    while (!j.done)
        pthread_cond_wait(&j.cv, &P.mu);
    pthread_mutex_unlock(&P.mu);
    pthread_cond_destroy(&j.cv);
}

void pool_stop(void)
{
    pthread_mutex_lock(&P.mu);
    P.stop = 1;
    pthread_cond_broadcast(&P.work);
    pthread_mutex_unlock(&P.mu);
    for (int i = 0; i < P.n; i++)
        pthread_join(P.th[i], NULL);
    free(P.th);
    P.th = NULL;
    P.n = 0;
}
