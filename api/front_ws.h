/* front_ws.h: the WebSocket endpoint of the civetweb front end. */
#ifndef CROUPIER_FRONT_WS_H
#define CROUPIER_FRONT_WS_H

#include "http.h"

struct mg_context;

/* Register /games/{id}/ws and start the poller thread. 0 or -1. */
int front_ws_start(struct mg_context *ctx, const api_config *cfg);
/* Stop the poller (call before mg_stop, which closes the connections). */
void front_ws_stop(void);
/* civetweb closes `conn` (its connection_close callback, on its worker). */
struct mg_connection;
void front_ws_closed(const struct mg_connection *conn);

#endif
