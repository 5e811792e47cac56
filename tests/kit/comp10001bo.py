"""comp10001bo.py: the Comp10001-Bo course functions in plain Python,
written for the kit from the course's specification (match_build,
match_discard, is_valid_play, play) and the rules of the game and its bonus
version (jokers "ZZ", embargo cards: comp10001bo_bonus).

This is the kit's own "student": run_kit.py checks that the generated
suites pass it, and that they fail each of its mutants (mutants.py: bug()
switches one clause to a mistake students make).

The validators take the bonus game's jokers "ZZ" in every card argument (a
standard game holds none, so they answer both variants alike). Embargo
plays are invalid to is_valid_play, which is not told who holds or suffers
an embargo; comp10001bo_bonus is, and plays them.
"""

from mutants import bug

VALUES = {"A": 1, "0": 10, "J": 11, "Q": 12, "K": 13, **{str(v): v for v in range(2, 10)}}
SUITS = "SHDC"
JOKER = "ZZ"
FROM_HAND, FROM_DISCARD, FROM_STOCK, NONE, EMBARGO, CLEAR = range(6)
TO_BUILD, TO_DISCARD, TO_PLAYER = 0, 1, 2
NO_PLAY = (NONE, None, (None, None))


def is_card(c):
    return c == JOKER or (isinstance(c, str) and len(c) == 2 and c[0] in VALUES and c[1] in SUITS)


def value(c):
    return VALUES[c[0]]


def red(c):
    return c[1] in "HD"


def joker(c):
    return c == JOKER


def ace(c):
    return not joker(c) and value(c) == 1


# --- jokers: what a card on a pile may be read as ---------------------------
# A reading is (value, red) with value 2..13; a joker is every reading, an
# Ace none (it never stays on a pile), a natural card its own.

ALL = frozenset((v, r) for v in range(2, 14) for r in (False, True))
STARTS = frozenset(x for x in ALL if x[0] in (2, 13))


def readings(c):
    if joker(c):
        return ALL
    return frozenset() if ace(c) else frozenset({(value(c), red(c))})


def after_build(s):
    """The readings a card placed on a build-pile card read as s may take."""
    return frozenset((v + d, r) for v, r in s for d in (-1, 1) if 2 <= v + d <= 13)


def after_discard(s):
    return frozenset(((v + d - 2) % 12 + 2, not r) for v, r in s for d in (-1, 1))


def build_top(pile):
    """The readings of the top of a build pile, given every card under it."""
    s = readings(pile[0]) & STARTS
    for c in pile[1:]:
        s = after_build(s) & readings(c)
    return s


def discard_top(pile):
    """The readings of the top of a discard pile: those of its last natural
    card, then one step per joker above it (anything, when only jokers)."""
    m = len(pile) - 1
    while m >= 0 and joker(pile[m]):
        m -= 1
    s = readings(pile[m]) if m >= 0 else ALL
    for _ in pile[m + 1:]:
        s = ALL if bug("joker-discard-anything-next") else after_discard(s)
    return s


def has_joker(card, pile):
    return joker(card) or any(joker(c) for c in pile)


# --- match_build ---------------------------------------------------------------

def comp10001bo_match_build(play_card, build_pile):
    if not is_card(play_card):
        return False
    if has_joker(play_card, build_pile):
        return build_with_jokers(play_card, build_pile)
    v = value(play_card)
    if not build_pile:
        if bug("build-start-any"):
            return True
        if bug("build-start-two-only"):
            return v == 2
        return v in (2, 13)
    top = build_pile[-1]
    if red(play_card) != red(top) and not bug("build-colour-ignored") and not (
            v == 1 and bug("build-ace-any-colour")):
        return False
    if v == 1 and not bug("build-ace-adjacent"):
        return True
    if bug("build-ascending-only"):
        return v == value(top) + 1
    if bug("build-wraps") and {v, value(top)} == {2, 13}:
        return True
    return abs(v - value(top)) == 1


def build_with_jokers(card, pile):
    if not pile:
        return bool(readings(card) & STARTS) and not (joker(card) and bug("joker-no-build-start"))
    top = build_top(pile)
    if joker(pile[-1]) and bug("joker-build-anything-next"):
        top = frozenset(x for x in ALL if x[1] in {r for _, r in top})
    if ace(card):
        if joker(pile[-1]) and bug("joker-ace-refused"):
            return False
        return any(r == red(card) for _, r in top)
    return bool(after_build(top) & readings(card))


# --- match_discard -------------------------------------------------------------

def comp10001bo_match_discard(play_card, discard_pile, player_no, to_player_no, from_hand=True):
    if not is_card(play_card):
        return 0
    if ace(play_card) and not bug("discard-ace-allowed"):
        return 0
    if not discard_pile:
        own = player_no == to_player_no or bug("discard-start-others")
        return 2 if own and (from_hand or bug("discard-start-not-from-hand")) else 0
    if joker(play_card):
        return 2 if bug("joker-discard-turn-ending") else 1
    if has_joker(play_card, discard_pile):
        pile = discard_pile
        if joker(pile[-1]) and bug("joker-transparent"):
            pile = [c for c in pile if not joker(c)] or pile
        fits = bool(after_discard(discard_top(pile)) & readings(play_card))
    else:
        top = discard_pile[-1]
        a, b = value(play_card), value(top)
        adjacent = abs(a - b) == 1 or ({a, b} == {2, 13} and not bug("discard-no-wrap"))
        fits = adjacent and (red(play_card) != red(top) or bug("discard-colour-ignored"))
    if fits:
        return 1
    if bug("discard-restart-invalid"):
        return 0
    return 2 if from_hand or bug("discard-restart-any-source") else 0


# --- is_valid_play -------------------------------------------------------------

def _int(x, lo, hi):
    return type(x) is int and lo <= x <= hi


def _pair(x, lo, hi):
    return isinstance(x, (list, tuple)) and len(x) == 2 and _int(x[0], lo, hi) and _int(x[1], lo, hi)


def well_formed(play):
    """True when play has one of the shapes of a play (a malformed play is
    simply invalid)."""
    if not isinstance(play, (list, tuple)) or len(play) != 3 or not _int(play[0], 0, 5):
        return False
    t, src, dst = play
    if not isinstance(dst, (list, tuple)) or len(dst) != 2:
        return False
    if t == NONE:
        return src is None and list(dst) == [None, None]
    if t == EMBARGO:
        return src is None and dst[0] == TO_PLAYER and _int(dst[1], 0, 3)
    if t == CLEAR:
        ok = src is None
    elif t == FROM_DISCARD:
        ok = isinstance(src, (list, tuple)) and len(src) == 2 and is_card(src[0]) and _pair(src[1], 0, 3)
    else:
        ok = is_card(src)
    if ok and _int(dst[0], TO_BUILD, TO_BUILD):
        return _int(dst[1], 0, 3)
    return ok and _int(dst[0], TO_DISCARD, TO_DISCARD) and _pair(dst[1], 0, 3)


def card_of(play):
    return play[1][0] if play[0] == FROM_DISCARD else play[1]


class Table:
    """One seat's view: hand, stockpiles, discard piles, build piles and,
    for the bonus game's play function (embargo_known), who holds and who
    suffers an embargo."""

    def __init__(self, player_no, hand, stockpiles, discard_piles, build_piles):
        self.me, self.hand = player_no, list(hand)
        self.stock = [tuple(s) for s in stockpiles]
        self.discard = [[list(p) for p in mine] for mine in discard_piles]
        self.build = [list(p) for p in build_piles]
        self.embargo_known = False
        self.holds = [True] * 4
        self.embargoed_by = [None] * 4

    def own_stock_top(self):
        top, count = self.stock[0 if bug("play-stock-of-player-0") else self.me]
        return top if count else None

    def embargoed(self):
        return self.embargo_known and self.embargoed_by[self.me] is not None

    def judge(self, play):
        """0, 1, 2 or 3 as comp10001bo_is_valid_play answers."""
        if not well_formed(play):
            return 0
        t = play[0]
        if t == NONE:
            return 0 if self.any_play() else 3
        if t in (EMBARGO, CLEAR):
            return self.judge_embargo(play)
        if self.embargoed() and t in (FROM_HAND, FROM_DISCARD):
            return 0
        card, dst = card_of(play), play[2]
        if t == FROM_HAND and card not in self.hand and not bug("ivp-hand-not-checked"):
            return 0
        if t == FROM_DISCARD:
            o, k = play[1][1]
            pile = self.discard[o][k]
            if not pile or (pile[-1] != card and not (bug("ivp-discard-not-top") and card in pile)):
                return 0
        if t == FROM_STOCK:
            tops = [s[0] for s in self.stock if s[1]] if bug("ivp-stock-any-player") else [self.own_stock_top()]
            if bug("ivp-stock-identity"):  # `card is not top`: equal strings need not be one object
                tops = [x for x in tops if x is card]
            if card not in tops:
                return 0
        if dst[0] == TO_BUILD:
            return 1 if comp10001bo_match_build(card, self.build[dst[1]]) else 0
        o, k = dst[1]
        pile = self.discard[o][k]
        if t == FROM_DISCARD and tuple(play[1][1]) == (o, k):
            if not bug("ivp-same-pile"):
                return 0
            pile = pile[:-1]  # (the mutant moves the card first, then judges it on what it left)
        r = comp10001bo_match_discard(card, pile, self.me, o, t == FROM_HAND)
        if r == 2 and not pile and bug("ivp-start-not-turn-ending"):
            return 1
        return r

    def judge_embargo(self, play):
        me = self.me
        if not self.embargo_known:
            return 0
        if play[0] == CLEAR:
            return 2 if self.embargoed() or bug("embargo-clear-not-embargoed") else 0
        t = play[2][1]
        if not self.holds[me] and not bug("embargo-twice"):
            return 0
        if self.embargoed() or t == me or not self.stock[t][1]:
            return 0
        if self.embargoed_by[t] is not None and not bug("embargo-already-embargoed"):
            return 0
        return 2 if self.stock[t][1] <= 3 or bug("embargo-any-stockpile") else 0

    def candidates(self, hand_only=False):
        """Every play of a card from a source to a pile and, in the bonus
        game, the embargo plays (unjudged: judge() says which are valid)."""
        sources = [(FROM_HAND, c) for c in dict.fromkeys(self.hand)]
        if not hand_only:
            top = self.own_stock_top()
            if top:
                sources.insert(0, (FROM_STOCK, top))
            for o in range(4):
                for k in range(4):
                    pile = self.discard[o][k]
                    # a student who looks for any card of a pile, not its top
                    cards = dict.fromkeys(pile) if bug("ivp-discard-not-top") else pile[-1:]
                    sources += [(FROM_DISCARD, (c, (o, k))) for c in cards]
        dests = [(TO_BUILD, b) for b in range(4)] + [(TO_DISCARD, (o, k)) for o in range(4) for k in range(4)]
        plays = [(t, src, dst) for t, src in sources for dst in dests]
        if self.embargo_known and not hand_only:
            plays += [(EMBARGO, None, (TO_PLAYER, t)) for t in range(4)]
            plays += [(CLEAR, None, dst) for dst in dests]
        return plays

    def any_play(self):
        """Is there a play of a card, legal or turn-ending (embargo plays are
        not counted: is_valid_play does not know them)?"""
        if bug("noplay-empty-stockpile"):
            value(self.stock[self.me][0])  # the top card's value, read even when the stockpile is empty (None)
        wanted = (1,) if bug("ivp-noplay-legal-only") else (1, 2)
        cands = self.candidates(bug("ivp-noplay-hand-only"))
        return any(self.judge(p) in wanted for p in cands if p[0] < NONE)


def comp10001bo_is_valid_play(play, player_no, hand, stockpiles, discard_piles, build_piles):
    return Table(player_no, hand, stockpiles, discard_piles, build_piles).judge(play)


# --- play ------------------------------------------------------------------------

def rank(play, verdict):
    """Lower is better: stockpile to a build pile first, then other build
    plays, an embargo, moves between discard piles, clearing an embargo,
    and last the turn-ending discards (the highest card first)."""
    t, dst = play[0], play[2]
    if t == EMBARGO:
        return (1, 0)
    if t == CLEAR:
        return (3, -100)
    card = card_of(play)
    source = {FROM_STOCK: 0, FROM_DISCARD: 1, FROM_HAND: 2}[t]
    if dst[0] == TO_BUILD:
        return (0, source)
    if verdict == 1:
        return (2, source)
    return (3, 0 if joker(card) else -value(card))


def choose(table):
    """The best valid play by rank(); no play when there is none."""
    scored = [(rank(p, v), i, p) for i, p in enumerate(table.candidates()) for v in [table.judge(p)] if v in (1, 2)]
    if not scored:
        return NO_PLAY
    key, _, best = min(scored)
    if key[0] == 3:  # only a turn-ending play is left
        if bug("play-gives-up"):
            return NO_PLAY
        return blunder(table) or best
    return best


def blunder(table):
    """The play mutants that end the turn their own way."""
    if bug("play-ace-to-discard"):
        for c in table.hand:
            if ace(c):
                return (FROM_HAND, c, (TO_DISCARD, (table.me, 0)))
    if bug("play-starts-others-pile") and table.hand and not table.embargoed():
        nxt = (table.me + 1) % 4
        for k in range(4):
            if not table.discard[nxt][k]:
                return (FROM_HAND, table.hand[0], (TO_DISCARD, (nxt, k)))
    return None


def comp10001bo_play(player_no, hand, stockpiles, discard_piles, build_piles, play_history):
    return choose(Table(player_no, hand, stockpiles, discard_piles, build_piles))


def comp10001bo_bonus(player_no, hand, holds_embargo, embargoed, stockpiles, discard_piles, build_piles,
                      play_history):
    table = Table(player_no, hand, stockpiles, discard_piles, build_piles)
    table.embargo_known = True
    for who, play in play_history:  # embargo plays are public
        if play[0] == EMBARGO:
            table.holds[who] = False
            table.embargoed_by[play[2][1]] = who
        elif play[0] == CLEAR:
            table.embargoed_by[who] = None
    # the player's own state is what its arguments say
    table.holds[player_no] = bool(holds_embargo)
    table.embargoed_by[player_no] = None if bug("embargoed-plays-hand") else embargoed
    if embargoed is not None:
        table.holds[embargoed] = False
        for k in range(4):  # one embargo card, one target
            if k != player_no and table.embargoed_by[k] == embargoed:
                table.embargoed_by[k] = None
    return choose(table)
