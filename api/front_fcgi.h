/* front_fcgi.h: the FastCGI / CGI front end (see front_fcgi.c). */
#ifndef CROUPIER_FRONT_FCGI_H
#define CROUPIER_FRONT_FCGI_H

#include <stddef.h>

#include "http.h"

/* 1 when started by a CGI server (one request on stdin/stdout/environment). */
int front_fcgi_is_cgi(void);
/* Answer the one CGI request. 0 or 1. */
int front_fcgi_cgi(const api_config *cfg);
/* Serve FastCGI on `listen` (":9000", "127.0.0.1:9000" or a socket path;
 * NULL/"" = the socket on fd 0 given by a spawning server) with `threads`
 * workers until *stopping. 0 or -1 with a message. */
int front_fcgi_run(const api_config *cfg, const char *listen, int threads,
                   const int *stopping, char *errbuf, size_t errlen);

#endif
