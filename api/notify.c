/* notify.c: see notify.h. Monotonic-clock condition variables, set up once. */
#include "notify.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

typedef struct bucket {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long gen;
    int waiters; /* threads in wait_on(): a write with none wakes nobody */
} bucket;

static bucket B[NOTIFY_BUCKETS + 1]; /* the last one: every write */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The later buckets (notify.h, notify_wait_later): bumped by one thread
 * NOTIFY_LATER_MS after the write, the buckets written since as bits of
 * `pend` (NOTIFY_BUCKETS is 64); at once when that thread could not start. */
static bucket L[NOTIFY_BUCKETS];
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long long pend;
    int up;
} D = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
_Static_assert(NOTIFY_BUCKETS <= 64, "the later buckets are bits of one word");

static void bump(bucket *b);

static void *later_thread(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&D.mu);
        while (!D.pend)
            pthread_cond_wait(&D.cv, &D.mu);
        pthread_mutex_unlock(&D.mu);
        struct timespec t = {0, NOTIFY_LATER_MS * 1000000L};
        nanosleep(&t, NULL); /* the writes of this while go out together */
        pthread_mutex_lock(&D.mu);
        unsigned long long take = D.pend;
        D.pend = 0;
        pthread_mutex_unlock(&D.mu);
        for (int i = 0; i < NOTIFY_BUCKETS; i++)
            if (take >> i & 1)
                bump(&L[i]);
    }
    return NULL;
}

static void setup(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    for (int i = 0; i <= NOTIFY_BUCKETS; i++) {
        pthread_mutex_init(&B[i].mu, NULL);
        pthread_cond_init(&B[i].cv, &a);
    }
    for (int i = 0; i < NOTIFY_BUCKETS; i++) {
        pthread_mutex_init(&L[i].mu, NULL);
        pthread_cond_init(&L[i].cv, &a);
    }
    pthread_condattr_destroy(&a);
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 64 * 1024);
    D.up = pthread_create(&th, &at, later_thread, NULL) == 0;
    pthread_attr_destroy(&at);
}

static unsigned slot_of(const char *id)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const unsigned char *s = (const unsigned char *)id; s && *s; s++)
        h = (h ^ *s) * 16777619u;
    return h % NOTIFY_BUCKETS;
}

static bucket *of(const char *id) { return &B[slot_of(id)]; }

/* The generation moves first, then the waiters are counted (both
 * sequentially consistent): a waiter counts itself before it compares the
 * generation, so either it sees the new one or this sees it and wakes it.
 * With nobody waiting (the usual case: no event stream open on a game of
 * that bucket) a write costs no lock and wakes no thread. */
static void bump(bucket *b)
{
    __atomic_add_fetch(&b->gen, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&b->waiters, __ATOMIC_SEQ_CST) == 0)
        return;
    pthread_mutex_lock(&b->mu);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static unsigned long gen_of(bucket *b)
{
    return __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
}

static int wait_on(bucket *b, unsigned long seen, int ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&b->mu);
    __atomic_add_fetch(&b->waiters, 1, __ATOMIC_SEQ_CST);
    int rc = 0;
    while (__atomic_load_n(&b->gen, __ATOMIC_SEQ_CST) == seen && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&b->cv, &b->mu, &t);
    __atomic_sub_fetch(&b->waiters, 1, __ATOMIC_SEQ_CST);
    int moved = __atomic_load_n(&b->gen, __ATOMIC_SEQ_CST) != seen;
    pthread_mutex_unlock(&b->mu);
    return moved;
}

static void (*write_hook)(const char *id);

void notify_on_write(void (*fn)(const char *id))
{
    __atomic_store_n(&write_hook, fn, __ATOMIC_RELEASE);
}

void notify_game(const char *id)
{
    pthread_once(&once, setup);
    unsigned slot = slot_of(id);
    bump(&B[slot]);
    bump(&B[NOTIFY_BUCKETS]);
    if (__atomic_load_n(&L[slot].waiters, __ATOMIC_SEQ_CST) == 0) {
        __atomic_add_fetch(&L[slot].gen, 1, __ATOMIC_SEQ_CST); /* nobody waits: no thread */
    } else if (!D.up) {
        bump(&L[slot]);
    } else {
        pthread_mutex_lock(&D.mu);
        if (!D.pend)
            pthread_cond_signal(&D.cv);
        D.pend |= 1ULL << slot;
        pthread_mutex_unlock(&D.mu);
    }
    void (*fn)(const char *) = __atomic_load_n(&write_hook, __ATOMIC_ACQUIRE);
    if (fn)
        fn(id);
}

unsigned long notify_seen(const char *id)
{
    pthread_once(&once, setup);
    return gen_of(of(id));
}

int notify_wait(const char *id, unsigned long seen, int ms)
{
    pthread_once(&once, setup);
    return wait_on(of(id), seen, ms);
}

void notify_all(void)
{
    pthread_once(&once, setup);
    for (int i = 0; i <= NOTIFY_BUCKETS; i++)
        bump(&B[i]);
    for (int i = 0; i < NOTIFY_BUCKETS; i++)
        bump(&L[i]);
}

unsigned long notify_seen_later(const char *id)
{
    pthread_once(&once, setup);
    return gen_of(&L[slot_of(id)]);
}

int notify_wait_later(const char *id, unsigned long seen, int ms)
{
    pthread_once(&once, setup);
    return wait_on(&L[slot_of(id)], seen, ms);
}

void notify_store_changed(const char *id, void *arg)
{
    (void)arg;
    if (id) {
        notify_game(id);
    } else {
        notify_all();
    }
}

unsigned long notify_total(void)
{
    pthread_once(&once, setup);
    return gen_of(&B[NOTIFY_BUCKETS]);
}

int notify_wait_any(unsigned long seen, int ms)
{
    pthread_once(&once, setup);
    return wait_on(&B[NOTIFY_BUCKETS], seen, ms);
}
