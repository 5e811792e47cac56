/* parse_floor.c: what jansson alone costs to parse one request body, the
 * floor under croupier's CPU per `/validate` request (build/bench/parse_floor).
 *
 *   parse_floor [BODY]     (BODY: the JSON text; default: stdin)
 * prints "parse_floor: N bytes: X.XX us CPU per parse (median of R rounds)"
 *
 * The parse is croupier's (api/router.c: json_loadb with JSON_DECODE_ANY |
 * JSON_REJECT_DUPLICATES) on one thread, with jansson's allocations served
 * by a bump allocator that is reset after each parse, so the figure is the
 * lexer's and the tree's own work and the least any server using jansson
 * pays for this body. CPU time is the thread's (CLOCK_THREAD_CPUTIME_ID),
 * so the bench's driver and servers running beside it do not count; a
 * round is 20,000 parses, the figure the median of 9 rounds.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = 9, PER_ROUND = 20000, POOL = 1 << 20, BODY_MAX = 1 << 16 };

static unsigned char *pool; /* one thread: the program is single-threaded */
static size_t used;

static void *bump(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (used + n > POOL)
        return NULL; /* jansson then fails the parse: reported below */
    void *p = pool + used;
    used += n;
    return p;
}

static void nofree(void *p) { (void)p; }

static double thread_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static char body[BODY_MAX];
    size_t n;
    if (argc > 1) {
        n = strlen(argv[1]);
        if (n >= sizeof body) {
            fprintf(stderr, "parse_floor: the body is over %d bytes\n", BODY_MAX);
            return 2;
        }
        memcpy(body, argv[1], n);
    } else {
        n = fread(body, 1, sizeof body, stdin);
    }
    pool = malloc(POOL);
    if (!pool)
        return 2;
    json_set_alloc_funcs(bump, nofree);
    double per[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = thread_us();
        for (int i = 0; i < PER_ROUND; i++) {
            json_error_t je;
            used = 0;
            json_t *j = json_loadb(body, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
            if (!j) {
                fprintf(stderr, "parse_floor: not JSON: line %d column %d: %s\n", je.line,
                        je.column, je.text);
                return 1;
            }
        }
        per[r] = (thread_us() - t0) / PER_ROUND;
    }
    qsort(per, ROUNDS, sizeof per[0], by_value);
    printf("parse_floor: %zu bytes: %.2f us CPU per parse (median of %d rounds of %d; "
           "fastest round %.2f)\n",
           n, per[ROUNDS / 2], ROUNDS, PER_ROUND, per[0]);
    return 0;
}
