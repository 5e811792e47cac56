/* fc_text.c: the seed's C++/Java save format ("fivecrowns-text").
 *
 *   Round: 1
 *
 *   Computer:
 *      Score: 0
 *      Hand: XS KH J1
 *
 *   Human:
 *      Score: 0
 *      Hand: JD 3T QC
 *
 *   Draw Pile: 6S 5S ...        (first card = top)
 *
 *   Discard Pile: 8T 6S ...     (first card = top)
 *
 *   Next Player: Human
 *
 * Seat 0 is the Human, seat 1 the Computer; only 2-player games have this
 * format. A save is taken before a player's turn: export refuses a game in
 * the middle of a turn (after the draw), during the last turns after
 * someone went out (the format cannot say so), or when the game is over.
 * Reading is lenient: labels in any case, any indentation (spaces, tabs),
 * blank lines, trailing spaces, CR LF, no final newline, `10` for `X`, the
 * two player blocks in either order. Card-count oddities (a total other
 * than 116, a card more than twice, cards missing) load with warnings; an
 * unknown card, a missing or repeated section, a bad number, unexpected
 * text, or a hand that does not hold the round's r+2 cards is an error
 * naming the line, and so is a save holding more than FC_PILE cards in all
 * (the piles could not take the round's discards). A text without any
 * "Round:" line is not a Five Crowns save (ERR_NOT_FOUND). The game resumes at the start of the Next Player's
 * turn (before the draw); later rounds are dealt from fresh double decks.
 */
#include "fc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- export --------------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void put(sbuf *b, const char *s)
{
    size_t k = strlen(s);
    if (b->n + k + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 1024) + k;
        char *q = realloc(b->p, cap);
        if (!q)
            return;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, k + 1);
    b->n += k;
}

static void put_cards(sbuf *b, const uint8_t *c, int n, int top_last)
{
    for (int i = 0; i < n; i++) {
        put(b, i ? " " : "");
        put(b, fc_card_str(c[top_last ? n - 1 - i : i]));
    }
}

int fc_export_text(const fc_state *st, char **out, size_t *len, game_err *e)
{
    *out = NULL;
    *len = 0;
    if (st->np != 2)
        return err_set(e, ERR_BAD_QUERY, "/format",
                       "the fivecrowns-text format holds 2-player games (Human and Computer); this game has %d players",
                       st->np);
    if (st->phase == FC_PH_OVER)
        return err_set(e, ERR_BAD_QUERY, "/format",
                       "the game is over; the fivecrowns-text format saves a game in progress (use format=json)");
    if (st->phase == FC_PH_DISCARD)
        return err_set(e, ERR_BAD_QUERY, "/format",
                       "a fivecrowns-text save is taken before a player's turn: player %d has drawn and must discard first",
                       st->cur + 1);
    if (st->went_out >= 0)
        return err_set(e, ERR_BAD_QUERY, "/format",
                       "player %d has gone out and the last turns are under way, which the fivecrowns-text format cannot record; save after the round (or use format=json)",
                       st->went_out + 1);
    sbuf b = {0};
    char line[64];
    snprintf(line, sizeof line, "Round: %d\n\nComputer:\n   Score: %d\n   Hand: ", st->round, st->score[1]);
    put(&b, line);
    put_cards(&b, st->hand[1], st->nhand[1], 0);
    snprintf(line, sizeof line, "\n\nHuman:\n   Score: %d\n   Hand: ", st->score[0]);
    put(&b, line);
    put_cards(&b, st->hand[0], st->nhand[0], 0);
    put(&b, "\n\nDraw Pile: ");
    put_cards(&b, st->draw, st->ndraw, 1);
    put(&b, "\n\nDiscard Pile: ");
    put_cards(&b, st->disc, st->ndisc, 1);
    put(&b, "\n\nNext Player: ");
    put(&b, st->cur == 0 ? "Human\n" : "Computer\n");
    if (!b.p)
        return err_set(e, ERR_INTERNAL, "", "out of memory");
    *out = b.p;
    *len = b.n;
    return 0;
}

/* --- import --------------------------------------------------------------- */

enum { L_ROUND, L_COMPUTER, L_HUMAN, L_SCORE, L_HAND, L_DRAW, L_DISCARD, L_NEXT, L_N };
static const char *const LABEL[L_N] = {"Round:", "Computer:", "Human:", "Score:", "Hand:",
                                       "Draw Pile:", "Discard Pile:", "Next Player:"};

/* Case-insensitive prefix match allowing any run of blanks where the label
 * has a space; returns the length matched or 0. */
static size_t match_label(const char *s, size_t n, const char *label)
{
    size_t i = 0;
    for (const char *l = label; *l; l++) {
        if (*l == ' ') {
            if (i >= n || (s[i] != ' ' && s[i] != '\t'))
                return 0;
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            continue;
        }
        if (*l == ':') /* allow blanks before the colon */
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
        if (i >= n || tolower((unsigned char)s[i]) != tolower((unsigned char)*l))
            return 0;
        i++;
    }
    return i;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static int parse_int(const char *s, size_t n, long lo, long hi, long *out)
{
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_cards(const char *s, size_t n, int line, uint8_t *out, int max, int *cnt, game_err *e)
{
    size_t i = 0;
    int k = 0;
    while (i < n) {
        while (i < n && is_blank(s[i]))
            i++;
        if (i >= n)
            break;
        size_t j = i;
        while (j < n && !is_blank(s[j]))
            j++;
        int c = fc_card_parse_n(s + i, j - i);
        if (!c)
            return err_set(e, ERR_BAD_MEMBER, "", "line %d: unknown card \"%.*s\" (rank 3456789XJQK or 10, suit SCDHT; jokers J1 J2 J3)",
                           line, (int)(j - i > 16 ? 16 : j - i), s + i);
        if (k >= max)
            return err_set(e, ERR_BAD_MEMBER, "", "line %d: more than %d cards", line, max);
        out[k++] = (uint8_t)c;
        i = j;
    }
    *cnt = k;
    return 0;
}

int fc_import_text(void *vst, const char *text, size_t len, json_t **seats, json_t **warnings,
                   game_err *e)
{
    fc_state *st = vst;
    *seats = NULL;
    *warnings = NULL;
    int seen[L_N] = {0};
    int pline[2][2] = {{0, 0}, {0, 0}}; /* [seat][score/hand] line */
    int block = -1, line = 0, any_round = 0;
    long round = 0, score[2] = {0, 0};
    uint8_t hand[2][FC_PILE], draw[FC_PILE], disc[FC_PILE];
    int nh[2] = {0, 0}, nd = 0, nc = 0, next = -1, hand_line[2] = {0, 0};

    /* first pass: is it a Five Crowns save at all? */
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        size_t a = i;
        while (a < j && is_blank(text[a]))
            a++;
        if (match_label(text + a, j - a, "Round:"))
            any_round = 1;
        i = j + 1;
    }
    if (!any_round)
        return err_set(e, ERR_NOT_FOUND, "", "not a Five Crowns save: no \"Round:\" line");

    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        line++;
        size_t a = i, z = j;
        i = j + 1;
        while (a < z && is_blank(text[a]))
            a++;
        while (z > a && is_blank(text[z - 1]))
            z--;
        if (a == z)
            continue;
        const char *ln = text + a;
        size_t n = z - a;
        int which = -1;
        size_t m = 0;
        for (int k = 0; k < L_N && which < 0; k++)
            if ((m = match_label(ln, n, LABEL[k])))
                which = k;
        if (which < 0)
            return err_set(e, ERR_BAD_MEMBER, "", "line %d: unexpected text \"%.*s\"", line, (int)(n < 40 ? n : 40), ln);
        const char *v = ln + m;
        size_t vn = n - m;
        while (vn && is_blank(*v))
            v++, vn--;
        if (which == L_SCORE || which == L_HAND) {
            if (block < 0)
                return err_set(e, ERR_BAD_MEMBER, "", "line %d: \"%s\" outside a Computer: or Human: section",
                               line, LABEL[which]);
            int f = which == L_HAND;
            if (pline[block][f])
                return err_set(e, ERR_BAD_MEMBER, "", "line %d: a second \"%s\" for the %s (first on line %d)", line,
                               LABEL[which], block ? "Computer" : "Human", pline[block][f]);
            pline[block][f] = line;
            if (which == L_SCORE) {
                if (parse_int(v, vn, 0, FC_MAXSCORE, &score[block]))
                    return err_set(e, ERR_BAD_MEMBER, "", "line %d: the score must be a whole number from 0 to %d, not \"%.*s\"",
                                   line, FC_MAXSCORE, (int)(vn < 20 ? vn : 20), v);
            } else {
                if (parse_cards(v, vn, line, hand[block], FC_PILE, &nh[block], e))
                    return ERR_BAD_MEMBER;
                hand_line[block] = line;
            }
            continue;
        }
        if (seen[which])
            return err_set(e, ERR_BAD_MEMBER, "", "line %d: a second \"%s\" section (first on line %d)", line,
                           LABEL[which], seen[which]);
        seen[which] = line;
        switch (which) {
        case L_ROUND:
            if (parse_int(v, vn, 1, FC_ROUNDS, &round))
                return err_set(e, ERR_BAD_MEMBER, "", "line %d: the round must be a number from 1 to %d, not \"%.*s\"",
                               line, FC_ROUNDS, (int)(vn < 20 ? vn : 20), v);
            block = -1;
            break;
        case L_COMPUTER:
        case L_HUMAN:
            if (vn)
                return err_set(e, ERR_BAD_MEMBER, "", "line %d: unexpected text after \"%s\"", line, LABEL[which]);
            block = which == L_COMPUTER ? 1 : 0;
            break;
        case L_DRAW:
            if (parse_cards(v, vn, line, draw, FC_PILE, &nd, e))
                return ERR_BAD_MEMBER;
            block = -1;
            break;
        case L_DISCARD:
            if (parse_cards(v, vn, line, disc, FC_PILE, &nc, e))
                return ERR_BAD_MEMBER;
            block = -1;
            break;
        case L_NEXT:
            if (vn == 5 && strncasecmp(v, "human", 5) == 0)
                next = 0;
            else if (vn == 8 && strncasecmp(v, "computer", 8) == 0)
                next = 1;
            else
                return err_set(e, ERR_BAD_MEMBER, "", "line %d: the next player is \"Human\" or \"Computer\", not \"%.*s\"",
                               line, (int)(vn < 20 ? vn : 20), v);
            block = -1;
            break;
        }
    }
    int end = line + 1;
    for (int k = 0; k < L_N; k++)
        if (k != L_SCORE && k != L_HAND && !seen[k])
            return err_set(e, ERR_BAD_MEMBER, "", "line %d (end of the text): the \"%s\" section is missing", end,
                           LABEL[k]);
    for (int b = 1; b >= 0; b--)
        for (int f = 0; f < 2; f++)
            if (!pline[b][f])
                return err_set(e, ERR_BAD_MEMBER, "", "line %d: the %s section (line %d) has no \"%s\" line",
                               seen[b ? L_COMPUTER : L_HUMAN], b ? "Computer" : "Human",
                               seen[b ? L_COMPUTER : L_HUMAN], f ? "Hand:" : "Score:");
    int deal = (int)round + 2;
    for (int b = 1; b >= 0; b--)
        if (nh[b] != deal)
            return err_set(e, ERR_BAD_MEMBER, "", "line %d: the %s hand holds %d cards; round %ld deals %d", hand_line[b],
                           b ? "Computer" : "Human", nh[b], round, deal);
    if (nd == 0 && nc == 0)
        return err_set(e, ERR_BAD_MEMBER, "", "line %d: the draw pile and the discard pile are both empty",
                       seen[L_DRAW]);
    /* Capacity: cards only move between the piles and the hands within a
     * round, so FC_PILE cards in all keep every pile in its array. */
    if (nh[0] + nh[1] + nd > FC_PILE)
        return err_set(e, ERR_BAD_MEMBER, "",
                       "line %d: the draw pile holds %d cards; with the %d in the hands that is more than the %d cards a game can hold",
                       seen[L_DRAW], nd, nh[0] + nh[1], FC_PILE);
    if (nh[0] + nh[1] + nd + nc > FC_PILE)
        return err_set(e, ERR_BAD_MEMBER, "",
                       "line %d: the discard pile holds %d cards; with the hands and the draw pile that makes %d, more than the %d cards a game can hold",
                       seen[L_DISCARD], nc, nh[0] + nh[1] + nd + nc, FC_PILE);

    /* warnings: card counts */
    json_t *w = json_array();
    int count[FC_NTYPES + 1] = {0}, total = nd + nc + nh[0] + nh[1];
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < nh[b]; i++)
            count[hand[b][i]]++;
    for (int i = 0; i < nd; i++)
        count[draw[i]]++;
    for (int i = 0; i < nc; i++)
        count[disc[i]]++;
    char msg[512];
    if (total != FC_DECK) {
        snprintf(msg, sizeof msg, "the save holds %d cards; two decks hold %d", total, FC_DECK);
        json_array_append_new(w, json_string(msg));
    }
    for (int c = 1; c <= FC_NTYPES; c++)
        if (count[c] > 2) {
            snprintf(msg, sizeof msg, "%s appears %d times; two decks hold 2 of each card", fc_card_str(c), count[c]);
            json_array_append_new(w, json_string(msg));
        }
    size_t k = (size_t)snprintf(msg, sizeof msg, "missing from the save:");
    int missing = 0;
    for (int c = 1; c <= FC_NTYPES; c++)
        if (count[c] < 2) {
            missing++;
            if (k < sizeof msg - 16)
                k += (size_t)snprintf(msg + k, sizeof msg - k, " %s%s", fc_card_str(c), count[c] == 0 ? " (both)" : "");
        }
    if (missing)
        json_array_append_new(w, json_string(msg));

    /* the state: the Next Player's turn starts (draw phase); built on the
     * heap (~40 KB) and copied out only when whole */
    fc_state *s = calloc(1, sizeof *s);
    if (!s) {
        json_decref(w);
        return err_set(e, ERR_INTERNAL, "", "out of memory");
    }
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ (unsigned char)text[i]) * 1099511628211ULL;
    fc_new_game(s, 2, hash, 0, -1); /* closed, as a new game (rulings) */
    s->round = (uint8_t)round;
    s->first_round = (uint8_t)round;
    s->imported = 1;
    s->call = -1;
    s->toss = -1;
    memset(s->hand, 0, sizeof s->hand);
    memset(s->draw, 0, sizeof s->draw);
    memset(s->disc, 0, sizeof s->disc);
    for (int b = 0; b < 2; b++) {
        s->score[b] = (uint16_t)score[b];
        s->nhand[b] = (uint8_t)nh[b];
        memcpy(s->hand[b], hand[b], (size_t)nh[b]);
    }
    s->ndraw = (uint8_t)nd;
    for (int i = 0; i < nd; i++)
        s->draw[i] = draw[nd - 1 - i];
    s->ndisc = (uint8_t)nc;
    for (int i = 0; i < nc; i++)
        s->disc[i] = disc[nc - 1 - i];
    s->cur = (uint8_t)next;
    s->starter = (uint8_t)next;
    s->went_out = -1;
    s->phase = FC_PH_DRAW;
    s->round_turns = 0;
    s->turns = 0;
    s->nhist = 0;
    game_err ce = {0};
    if (fc_check_capacity(s, &ce)) { /* unreachable after the checks above: a guard */
        free(s);
        json_decref(w);
        return err_set(e, ERR_BAD_MEMBER, "", "line %d (end of the text): %s %s", end, ce.pointer, ce.detail);
    }
    memcpy(st, s, sizeof *s);
    free(s);
    *warnings = w;
    *seats = json_pack("[{s:s},{s:s,s:s}]", "name", "Human", "bot", "strategy", "name", "Computer");
    return 0;
}
