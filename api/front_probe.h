/* front_probe.h: what civetweb 1.15 does not tell, learnt at start from a
 * request of our own (see front_probe.c). */
#ifndef CROUPIER_FRONT_PROBE_H
#define CROUPIER_FRONT_PROBE_H

struct mg_connection;
struct mg_request_info;

/* Once the server listens on port (IPv6 loopback when ipv6, else IPv4):
 * send the probe and wait for its answer (at most 2 s). Not on a worker. */
void front_probe_run(int port, int ipv6);
/* On a worker whose connection's socket is known: 1 when this request is
 * the probe (it is answered 204 here, and the chunk state learnt), else 0. */
int front_probe_answer(struct mg_connection *conn, const struct mg_request_info *ri);
/* 1 when the chunk state was learnt; else chunked bodies are refused. */
int front_probe_knows_chunks(void);
/* civetweb's is_chunked of conn (1 reading, 2 broken, 3 last chunk read
 * without its empty line, 4 complete), -1 when unlearnt. */
int front_probe_chunk_state(const struct mg_connection *conn);

#endif
