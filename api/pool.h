/* pool.h: run api_handle() on threads with large stacks (see pool.c). */
#ifndef CROUPIER_POOL_H
#define CROUPIER_POOL_H

#include <stddef.h>

#include "http.h"

/* Start `threads` threads with `stack_bytes` stacks. 0 or -1. */
int pool_start(int threads, size_t stack_bytes);
/* api_handle() on a pool thread; returns when the response is ready. */
void pool_handle(const api_config *cfg, const http_req *req, http_res *res);
/* Finish queued jobs and join the threads (after the front end stopped). */
void pool_stop(void);

#endif
