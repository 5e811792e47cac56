/* err.c: lookups into the error table of err.h. */
#include "err.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *slug;
    const char *title;
    int status;
} table[ERR__COUNT] = {
#define X(name, slug, status, title) {slug, title, status},
    ERR_TABLE(X)
#undef X
};

static int idx(int code)
{
    int i = -code;
    return (i >= 0 && i < ERR__COUNT) ? i : ERR_INTERNAL_IDX;
}

const char *err_slug(int code) { return table[idx(code)].slug; }
const char *err_title(int code) { return table[idx(code)].title; }
int err_status(int code) { return table[idx(code)].status; }

int err_set(game_err *e, int code, const char *pointer, const char *fmt, ...)
{
    if (!e)
        return code;
    e->code = code;
    snprintf(e->pointer, sizeof e->pointer, "%s", pointer ? pointer : "");
    e->rule[0] = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    return code;
}

int err_rule(game_err *e, const char *rule, const char *fmt, ...)
{
    if (!e)
        return ERR_ILLEGAL;
    e->code = ERR_ILLEGAL;
    e->pointer[0] = 0;
    snprintf(e->rule, sizeof e->rule, "%s", rule ? rule : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    return ERR_ILLEGAL;
}

void err_prefix(game_err *e, const char *prefix)
{
    if (!e || !prefix || !*prefix)
        return;
    char tmp[sizeof e->pointer];
    snprintf(tmp, sizeof tmp, "%s%s", prefix, e->pointer);
    memcpy(e->pointer, tmp, sizeof tmp);
}
