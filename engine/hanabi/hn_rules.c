/* hn_rules.c: the cards and the rules of a single play of Hanabi: the
 * cards' names and copies, which cards a hint touches, the judgement of a
 * play (each rejection named by a short rule id that api/ reports with its
 * 422s) and the generator of every legal play. Applying a judged play is
 * hn_game.c's.
 */
#include "hn.h"

#include <stdio.h>
#include <string.h>

static const char LETTERS[] = "RYBGWM";
static const char *const COLOR_NAMES[] = {"red", "yellow", "blue", "green", "white", "rainbow"};

int hn_copies(int rank) { return rank == 1 ? 3 : rank == 5 ? 1 : 2; }

char hn_color_letter(int suit) { return suit >= 0 && suit < 6 ? LETTERS[suit] : '?'; }
const char *hn_color_name(int suit) { return suit >= 0 && suit < 6 ? COLOR_NAMES[suit] : "?"; }

int hn_color_parse(char ch)
{
    const char *p = ch ? strchr(LETTERS, ch) : NULL;
    return p ? (int)(p - LETTERS) : -1;
}

int hn_card_parse(const char *s, int nsuits)
{
    if (!s || strlen(s) != 2)
        return 0;
    int suit = hn_color_parse(s[0]);
    if (suit < 0 || suit >= nsuits || s[1] < '1' || s[1] > '5')
        return 0;
    return hn_card(suit, s[1] - '0');
}

const char *hn_card_name(int c)
{
    static const char names[31][3] = {
        "??", "R1", "R2", "R3", "R4", "R5", "Y1", "Y2", "Y3", "Y4", "Y5",
        "B1", "B2", "B3", "B4", "B5", "G1", "G2", "G3", "G4", "G5",
        "W1", "W2", "W3", "W4", "W5", "M1", "M2", "M3", "M4", "M5"};
    return c >= 1 && c <= 30 ? names[c] : names[0];
}

int hn_touch(const hn_state *st, int target, int type, int value)
{
    int m = 0;
    for (int i = 0; i < st->nhand[target]; i++) {
        int c = st->hand[target][i];
        int hit = type == HN_HINT_COLOR
                      ? hn_suit(c) == value || (st->variant && hn_suit(c) == HN_RAINBOW)
                      : hn_rank(c) == value;
        if (hit)
            m |= 1 << i;
    }
    return m;
}

static int fail(char *why, size_t whylen, const char **rule, const char *id, const char *text)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", text);
    if (rule)
        *rule = id;
    return 0;
}

int hn_judge(const hn_state *st, const hn_play *p, char *why, size_t whylen,
             const char **rule)
{
    char buf[200];
    if (rule)
        *rule = "";
    if (p->type == HN_HINT_COLOR || p->type == HN_HINT_NUMBER) {
        if (p->target < 0 || p->target >= st->np) {
            snprintf(buf, sizeof buf, "there is no such player (the target is a seat from 0 to %d)", st->np - 1);
            return fail(why, whylen, rule, "hint.target", buf);
        }
        if (p->target == st->cur)
            return fail(why, whylen, rule, "hint.self", "a hint must go to another player");
        if (p->type == HN_HINT_COLOR && p->value == HN_RAINBOW)
            return fail(why, whylen, rule, "hint.rainbow",
                        st->variant ? "rainbow cannot be named in a hint (every colour hint touches rainbow cards)"
                                    : "there is no rainbow suit in the standard game");
        if (p->type == HN_HINT_COLOR && (p->value < 0 || p->value > 4))
            return fail(why, whylen, rule, "hint.color", "not a colour");
        if (p->type == HN_HINT_NUMBER && (p->value < 1 || p->value > 5))
            return fail(why, whylen, rule, "hint.number", "not a number from 1 to 5");
        if (st->hints == 0)
            return fail(why, whylen, rule, "hint.no-tokens", "no hint token is left: play or discard");
        if (!hn_touch(st, p->target, p->type, p->value)) {
            if (p->type == HN_HINT_COLOR)
                snprintf(buf, sizeof buf, "player %d holds no %s card%s", p->target + 1,
                         hn_color_name(p->value), st->variant ? " (nor rainbow)" : "");
            else
                snprintf(buf, sizeof buf, "player %d holds no %d", p->target + 1, p->value);
            return fail(why, whylen, rule, "hint.empty", buf);
        }
        if (why && whylen)
            snprintf(why, whylen, "a legal hint");
        return 1;
    }
    if (p->type != HN_PLAY && p->type != HN_DISCARD)
        return fail(why, whylen, rule, "action.type", "not an action");
    if (p->target < 0 || p->target >= st->nhand[st->cur]) {
        snprintf(buf, sizeof buf, "card %d is not in the hand (indexes 0 to %d)", p->target,
                 st->nhand[st->cur] - 1);
        return fail(why, whylen, rule, "card.index", buf);
    }
    if (p->type == HN_DISCARD && st->hints >= HN_MAXHINTS)
        return fail(why, whylen, rule, "discard.full-tokens",
                    "all 8 hint tokens are in hand: discarding is not allowed");
    if (why && whylen)
        snprintf(why, whylen, p->type == HN_PLAY ? "a legal play" : "a legal discard");
    return 1;
}

int hn_legal(const hn_state *st, hn_play *out)
{
    int n = 0, s = st->cur;
    if (st->over)
        return 0;
    for (int i = 0; i < st->nhand[s]; i++)
        out[n++] = (hn_play){HN_PLAY, i, 0};
    if (st->hints < HN_MAXHINTS)
        for (int i = 0; i < st->nhand[s]; i++)
            out[n++] = (hn_play){HN_DISCARD, i, 0};
    if (st->hints > 0)
        for (int d = 1; d < st->np; d++) {
            int t = (s + d) % st->np;
            for (int c = 0; c < 5; c++)
                if (hn_touch(st, t, HN_HINT_COLOR, c))
                    out[n++] = (hn_play){HN_HINT_COLOR, t, c};
            for (int r = 1; r <= 5; r++)
                if (hn_touch(st, t, HN_HINT_NUMBER, r))
                    out[n++] = (hn_play){HN_HINT_NUMBER, t, r};
        }
    return n;
}
