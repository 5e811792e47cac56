/* args.c: what the commands' option parsing shares. Kept apart from main.c,
 * which dispatches to the commands: a command that needs it links this, not
 * the dispatcher (no command calls back into main.c). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>

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
