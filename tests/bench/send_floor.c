/* send_floor.c: the anchor of the fan-out figures (BENCH=events): what the
 * kernel alone charges a writer for one copy of an event on a loopback TCP
 * socket, with no HTTP, no JSON and no framing.
 *
 *   build/bench/send_floor N ROUNDS BYTES loop|threads
 *
 * A child process connects N sockets to the parent and reads them all
 * (epoll), as the bench's followers do. The parent sends BYTES bytes to
 * every socket, ROUNDS times, 5 ms apart (a play, then quiet):
 *   loop     one thread writes every socket in turn (an event loop: nginx +
 *            nchan's way);
 *   threads  a thread a socket, each woken by one condition variable's
 *            broadcast and then writing its own socket (a thread per
 *            stream: civetweb's way, croupier serve's fan-out).
 * Prints the parent's CPU (getrusage: all its threads, user + system) over
 * the rounds, per send, in microseconds:
 *   send_floor: mode=loop sockets=200 rounds=100 bytes=400 us_per_send=7.9
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int n_socks, rounds, nbytes;
static int *fds;
static char *payload;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static int round_no, finished;

static double cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec +
           ru.ru_stime.tv_usec;
}

static void send_all(int fd)
{
    for (int off = 0; off < nbytes;) {
        ssize_t k = send(fd, payload + off, (size_t)(nbytes - off), MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            perror("send");
            exit(1);
        }
        off += (int)k;
    }
}

static void *stream(void *arg)
{
    int fd = *(int *)arg, seen = 0;
    for (;;) {
        pthread_mutex_lock(&mu);
        while (round_no == seen)
            pthread_cond_wait(&go, &mu);
        seen = round_no;
        pthread_mutex_unlock(&mu);
        if (seen > rounds)
            return NULL;
        send_all(fd);
        pthread_mutex_lock(&mu);
        if (++finished == n_socks)
            pthread_cond_signal(&done);
        pthread_mutex_unlock(&mu);
    }
}

static void reader(int port)
{
    int ep = epoll_create1(0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int i = 0; i < n_socks; i++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
            perror("connect");
            _exit(1);
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = s};
        epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
    }
    static char buf[65536];
    struct epoll_event evs[256];
    for (int open = n_socks; open > 0;) {
        int k = epoll_wait(ep, evs, 256, -1);
        for (int i = 0; i < k; i++) {
            ssize_t r = read(evs[i].data.fd, buf, sizeof buf);
            if (r == 0) {
                close(evs[i].data.fd);
                open--;
            }
        }
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[4], "loop") && strcmp(argv[4], "threads"))) {
        fprintf(stderr, "usage: send_floor N ROUNDS BYTES loop|threads\n");
        return 2;
    }
    n_socks = atoi(argv[1]);
    rounds = atoi(argv[2]);
    nbytes = atoi(argv[3]);
    int threads = strcmp(argv[4], "threads") == 0;
    if (n_socks < 1 || rounds < 1 || nbytes < 1)
        return 2;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    payload = malloc((size_t)nbytes);
    fds = calloc((size_t)n_socks, sizeof *fds);
    memset(payload, 'x', (size_t)nbytes);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4096) ||
        getsockname(ls, (struct sockaddr *)&a, &al)) {
        perror("listen");
        return 1;
    }
    pid_t child = fork();
    if (child == 0)
        reader(ntohs(a.sin_port));
    int one = 1;
    for (int i = 0; i < n_socks; i++) {
        fds[i] = accept(ls, NULL, NULL);
        if (fds[i] < 0) {
            perror("accept");
            return 1;
        }
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* as civetweb */
    }
    pthread_t *th = NULL;
    if (threads) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 64 * 1024);
        th = calloc((size_t)n_socks, sizeof *th);
        for (int i = 0; i < n_socks; i++)
            if (pthread_create(&th[i], &at, stream, &fds[i])) {
                perror("pthread_create");
                return 1;
            }
    }
    struct timespec gap = {0, 5 * 1000 * 1000};
    nanosleep(&gap, NULL);
    double cpu = 0;
    for (int r = 1; r <= rounds; r++) {
        double t0 = cpu_us();
        if (threads) {
            pthread_mutex_lock(&mu);
            finished = 0;
            round_no = r;
            pthread_cond_broadcast(&go);
            while (finished < n_socks)
                pthread_cond_wait(&done, &mu);
            pthread_mutex_unlock(&mu);
        } else {
            for (int i = 0; i < n_socks; i++)
                send_all(fds[i]);
        }
        cpu += cpu_us() - t0;
        nanosleep(&gap, NULL);
    }
    if (threads) {
        pthread_mutex_lock(&mu);
        round_no = rounds + 1;
        pthread_cond_broadcast(&go);
        pthread_mutex_unlock(&mu);
        for (int i = 0; i < n_socks; i++)
            pthread_join(th[i], NULL);
    }
    for (int i = 0; i < n_socks; i++)
        close(fds[i]);
    waitpid(child, NULL, 0);
    printf("send_floor: mode=%s sockets=%d rounds=%d bytes=%d us_per_send=%.1f\n", argv[4],
           n_socks, rounds, nbytes, cpu / ((double)rounds * n_socks));
    return 0;
}
