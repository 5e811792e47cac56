/* fd_lookup.c: what front_conn_socket() (api/front_conn.c) costs, the
 * kernel's answer to "which descriptor is this connection's socket" that
 * replaced reading civetweb's struct. It runs once per connection, on its
 * first request: one getpeername() per descriptor number below the size of
 * the descriptor table (FDSize), but those of connections it found before,
 * so its cost grows with the descriptors the process holds: 1 per open
 * connection here (the clients are a child process), with none of the
 * others found yet (all of them still reading their first request: the
 * worst case) and with all of them found (the usual case). Prints
 * microseconds per lookup; a figure, never pass/fail.
 *
 *   make build/bench/fd_lookup && build/bench/fd_lookup
 */
#include "front_conn.h"

#include <civetweb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static double lookup_us(struct mg_request_info *ri, int want, int rounds)
{
    int64_t t0 = front_conn_now_us();
    for (int i = 0; i < rounds; i++) {
        if (front_conn_socket(ri) != want) {
            fprintf(stderr, "fd_lookup: wrong socket\n");
            exit(1);
        }
        front_conn_release(want); /* asked again next round */
    }
    return (double)(front_conn_now_us() - t0) / rounds;
}

enum { MAX_CONNS = 2048 };

int main(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    int ports[2];
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4096) ||
        getsockname(ls, (struct sockaddr *)&a, &alen) || pipe(ports))
        return perror("fd_lookup: listen"), 1;
    /* the clients in a child, as on a server: this process holds one end */
    pid_t child = fork();
    if (child == 0) {
        close(ls);
        for (int i = 0; i < MAX_CONNS; i++) {
            int c = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in me;
            socklen_t ml = sizeof me;
            if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) ||
                getsockname(c, (struct sockaddr *)&me, &ml))
                _exit(1);
            int port = ntohs(me.sin_port);
            if (write(ports[1], &port, sizeof port) != sizeof port)
                _exit(1);
        }
        pause();
        _exit(0);
    }
    static const int counts[] = {1, 128, 512, 2048};
    static int server_fd[MAX_CONNS], client_port[MAX_CONNS];
    int open = 0;
    struct mg_request_info ri;
    memset(&ri, 0, sizeof ri);
    snprintf(ri.remote_addr, sizeof ri.remote_addr, "127.0.0.1");
    ri.server_port = ntohs(a.sin_port);
    printf("connections  last, none found (us)  middle, none found (us)  last, the others found (us)\n");
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        for (; open < counts[k]; open++) {
            if (read(ports[0], &client_port[open], sizeof(int)) != sizeof(int))
                return fprintf(stderr, "fd_lookup: the client failed\n"), 1;
            server_fd[open] = accept(ls, NULL, NULL);
            if (server_fd[open] < 0)
                return perror("fd_lookup: accept"), 1;
        }
        for (int i = 0; i < open; i++)
            front_conn_release(server_fd[i]);
        ri.remote_port = client_port[open - 1];
        double last = lookup_us(&ri, server_fd[open - 1], 100);
        ri.remote_port = client_port[open / 2];
        double mid = lookup_us(&ri, server_fd[open / 2], 100);
        for (int i = 0; i < open - 1; i++) { /* the others, found as their first requests came */
            ri.remote_port = client_port[i];
            front_conn_socket(&ri);
        }
        ri.remote_port = client_port[open - 1];
        double found = lookup_us(&ri, server_fd[open - 1], 100);
        printf("%11d  %21.1f  %23.1f  %27.1f\n", open, last, mid, found);
    }
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    return 0;
}
