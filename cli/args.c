/* args.c: what the commands' option parsing shares. Kept apart from main.c,
 * which dispatches to the commands: a command that needs it links this, not
 * the dispatcher (no command calls back into main.c). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cli_number(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_bytes(const char *s, long long hi, long long *out)
{
    static const char units[] = "KMGT";
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    const char *u = *end ? strchr(units, *end == 'k' ? 'K' : *end) : NULL;
    if (*end && (!u || end[1]))
        return -1;
    for (long i = u ? u - units + 1 : 0; i > 0; i--) {
        if (v > hi / 1024)
            return -1;
        v *= 1024;
    }
    if (v > hi)
        return -1;
    *out = v;
    return 0;
}
