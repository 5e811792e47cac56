/* front_probe.c: the request of our own the civetweb front end sends itself
 * at start, over loopback, before any client's: its headers teach
 * front_conn_socket() where civetweb 1.15 keeps a connection's socket, and
 * its chunked body where it keeps the state of a chunked body (neither is
 * in civetweb's API). Learnt once, read by every worker (atomics).
 */
#include "front_probe.h"
#include "front_conn.h"

#include <civetweb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int g_probe_port; /* the local port of the probe's connection */

/* Where civetweb 1.15 keeps the state of a chunked request body (its
 * is_chunked: 1 reading, 2 broken, 3 the last chunk read but not the empty
 * line after it, 4 complete). It tells a body that ended properly from one
 * whose end never came (civetweb's own read timeout ended it) or that
 * carries a trailer section: mg_read() answers 0 for all three. Learnt
 * from the probe's chunked request as front_conn_socket() learns the socket:
 * the one word of the CHUNK_SPAN bytes from the socket's on that read 1
 * before its body was read and 4 after. In Debian 12's build it lies 88
 * bytes after the socket, and the struct goes on for 216 (2,512 bytes in
 * all, the stride of civetweb's array of connections): the span stays
 * inside the struct, since the last worker's is the array's end. Another
 * layout may put it out of reach: unlearnt (-1), chunked bodies are
 * refused (411), as RFC 9112 allows, rather than taken without knowing
 * how they ended. */
static long g_chunk_off = -1;
enum { CHUNK_SPAN = 128 };

int front_probe_chunk_state(const struct mg_connection *conn)
{
    long off = __atomic_load_n(&g_chunk_off, __ATOMIC_RELAXED);
    int v = -1;
    if (off >= 0)
        memcpy(&v, (const char *)conn + off, sizeof v);
    return v;
}

static void learn_chunk_state(struct mg_connection *conn)
{
    long fd_off = front_conn_socket_offset();
    const char *base = (const char *)conn;
    long ones[CHUNK_SPAN / sizeof(int)];
    int n = 0, v;
    for (long off = fd_off; fd_off >= 0 && off + (long)sizeof v <= fd_off + CHUNK_SPAN;
         off += (long)sizeof v) {
        memcpy(&v, base + off, sizeof v);
        if (v == 1)
            ones[n++] = off;
    }
    char sink[64];
    while (mg_read(conn, sink, sizeof sink) > 0)
        ;
    long found = -1;
    int hits = 0;
    for (int i = 0; i < n; i++) {
        memcpy(&v, base + ones[i], sizeof v);
        if (v == 4) {
            found = ones[i];
            hits++;
        }
    }
    if (hits == 1)
        __atomic_store_n(&g_chunk_off, found, __ATOMIC_RELAXED);
    else
        fprintf(stderr, "croupier: cannot find civetweb's chunked-body state (not civetweb "
                        "1.15's layout): request bodies in chunked encoding are refused (411)\n");
}

int front_probe_knows_chunks(void) { return __atomic_load_n(&g_chunk_off, __ATOMIC_RELAXED) >= 0; }

int front_probe_answer(struct mg_connection *conn, const struct mg_request_info *ri)
{
    if (!ri || ri->remote_port != __atomic_load_n(&g_probe_port, __ATOMIC_RELAXED) ||
        strcmp(ri->local_uri ? ri->local_uri : "", "/.croupier-probe") != 0)
        return 0;
    learn_chunk_state(conn);
    static const char done[] = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
    mg_disable_connection_keep_alive(conn);
    mg_write(conn, done, sizeof done - 1);
    return 1;
}

void front_probe_run(int port, int ipv6)
{
    int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return;
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_storage a;
    memset(&a, 0, sizeof a);
    socklen_t alen;
    if (ipv6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        s6->sin6_addr = in6addr_loopback;
        alen = sizeof *s6;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&a;
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        alen = sizeof *s4;
    }
    struct sockaddr_storage me;
    socklen_t mlen = sizeof me;
    if (connect(fd, (struct sockaddr *)&a, alen) == 0 &&
        getsockname(fd, (struct sockaddr *)&me, &mlen) == 0) {
        int mine = ntohs(ipv6 ? ((struct sockaddr_in6 *)&me)->sin6_port
                              : ((struct sockaddr_in *)&me)->sin_port);
        __atomic_store_n(&g_probe_port, mine, __ATOMIC_RELAXED);
        static const char req[] = "POST /.croupier-probe HTTP/1.1\r\nHost: localhost\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
        if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)) {
            char buf[256];
            while (read(fd, buf, sizeof buf) > 0)
                ;
        }
    }
    __atomic_store_n(&g_probe_port, -1, __ATOMIC_RELAXED);
    close(fd);
}
