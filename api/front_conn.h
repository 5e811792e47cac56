/* front_conn.h: a civetweb worker's connection: its socket, its deadlines,
 * its turn to run a handler, the response writer (see front_conn.c). Shared
 * by front_civet.c and front_ws.c; every call is made on a civetweb worker
 * thread unless it says otherwise. */
#ifndef CROUPIER_FRONT_CONN_H
#define CROUPIER_FRONT_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

struct mg_connection;
struct mg_request_info;

enum {
    CONN_HEADER_MS = 5000,       /* headers: a kept connection's next request, once begun; FastCGI's */
    CONN_KEEPALIVE_MS = 5000,    /* idle between two requests of a connection */
    CONN_BODY_MS = 10000,        /* a body, from the end of its headers */
    CONN_BODY_MS_PER_64K = 1000, /* ... plus this per 64 KiB of Content-Length */
    CONN_WRITE_MS = 10000,       /* a write (an event stream's, a FastCGI response) */
    CONN_STREAM_SNDBUF = 16 << 10, /* an event stream's socket send buffer (the kernel doubles it) */
};

/* This worker's connection (per-thread: a worker serves one at a time). */
typedef struct front_conn_worker {
    int slot;    /* this worker's deadline slot; -1 none (not a worker) */
    int fd;      /* the connection's socket; -1 unknown */
    int served;  /* requests answered on this connection */
    int64_t taken_us; /* when this worker took the connection (front_conn_now_us) */
    int begun;   /* the request read last reached us (begin_request or an
                    error), and was not yet ended (front_civet.c) */
    char *lo;    /* the lowest address of this worker's stack */
    char *probe; /* STACK_PROBE below its top (see front_conn_trim_stack) */
} front_conn_worker;
front_conn_worker *front_conn_self(void);

/* The deadline thread, with a slot for each of `threads` workers: 0, or -1
 * with a message. Stop it after civetweb stopped (mg_stop). */
int front_conn_start(int threads, char *err, size_t errlen);
void front_conn_stop(void);
/* civetweb's init_thread of a worker: take a slot, note the stack. */
void front_conn_worker_start(void);

/* The socket of the connection whose request is ri, found by asking the
 * kernel (the descriptor whose peer and local ports are ri's), -1 if none
 * is. Never reads civetweb's own memory. Once per connection: cache it. */
int front_conn_socket(const struct mg_request_info *ri);
/* Its connection closes (connection_close, before civetweb closes fd). */
void front_conn_release(int fd);
/* This worker's socket, -1 unknown. */
int front_conn_fd(void);
/* End a connection from another thread (shut its socket down both ways):
 * civetweb's reads and writes on it fail at once and it closes it. Only for
 * a socket known to be still open (its connection_close not yet run). */
void front_conn_cut(int fd);
/* An event stream (SSE, WebSocket) on socket fd: its send buffer is fixed
 * at CONN_STREAM_SNDBUF, so that a client that stops reading holds that
 * much of the kernel's memory, not the megabytes autotuning would grow to,
 * and meets the write timeout after that much rather than never. */
void front_conn_stream_socket(int fd);
/* 1 when this worker's client has closed its connection (or it broke). */
int front_conn_client_gone(void);

/* Shut this connection's read side in `ms` unless disarmed first. */
void front_conn_arm(int ms);
/* The same for a write (an event stream's): shut both ways, so that a
 * write still blocked then fails. civetweb bounds a write only by the gap
 * between two bytes the client takes, so one that takes a few now and then
 * would hold it for ever. */
void front_conn_arm_write(int ms);
/* Disarm; 1 when the deadline had passed (the read side was shut). */
int front_conn_disarm(void);
/* 1 when the armed deadline has passed. */
int front_conn_fired(void);

/* Give the stack below the current frame back: after a deep request
 * (always 0: only when pages below the probe are resident), or all of it
 * (1: the connection closes). */
void front_conn_trim_stack(int always);
int64_t front_conn_now_us(void); /* monotonic */

/* Turns: requests that may run bots, requests that take a store
 * connection, requests that never wait (front_conn.c). */
enum { CONN_GATE_NONE = -1, CONN_GATE_STORE = 0, CONN_GATE_BOTS = 1 };
/* Which turns a request needs. */
int front_conn_gate(const char *method, const char *path);
/* Wait for a turn of gate g: 0, run (then one front_conn_leave(g)); -1 no
 * turn within 10 s (answer 503); -2 waited, and the client is gone (answer
 * nothing). */
int front_conn_enter(int g);
void front_conn_leave(int g);

/* Write a whole response (status line, headers, body) in one write;
 * close: say Connection: close and stop civetweb reading on. */
void front_conn_write(struct mg_connection *conn, const http_res *res, int head_only,
                      int close);

#endif
