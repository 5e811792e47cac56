"""phazed.py: the Phazed course functions in plain Python, written for the
kit from the course's function descriptions (group_type, phase_type,
is_valid_play, score, play) and the rules of the game and its bonus
version (phases in any order, Jokers "ZZ" played as Skip cards).

This is the kit's own "student": run_kit.py checks that the generated
suites pass it, and that they fail each of its mutants (mutants.py: bug()
switches one clause to a mistake students make).

The bonus forms need no switch: a phase_status of lists of 7 booleans is
the bonus game's, and so is a Joker.
"""

from mutants import bug

RANKS = {"A": 14, "0": 10, "J": 11, "Q": 12, "K": 13, **{str(v): v for v in range(2, 10)}}
SUITS = "SHDC"
JOKER = "ZZ"
PICK_DECK, PICK_DISCARD, PHASE, PLACE, DISCARD, SKIP = range(1, 7)
# group kinds of the phases' groups
VSET, SSET, RUN, CRUN, ACC, CACC = "vset", "sset", "run", "crun", "acc", "cacc"
# the groups of each phase: (kind, size); an accumulation's size is its total
PHASE_GROUPS = {1: ((VSET, 3), (VSET, 3)), 2: ((SSET, 7),), 3: ((ACC, 34), (ACC, 34)), 4: ((VSET, 4), (VSET, 4)),
                5: ((RUN, 8),), 6: ((CACC, 34), (CACC, 34)), 7: ((CRUN, 4), (VSET, 4))}
# an accumulation completed at 34 grows by 21, 13, 8, 5, 3, 2, 1, 1
COMPLETE = (34, 55, 68, 76, 81, 84, 86, 87, 88)


def is_card(c):
    return c == JOKER or (isinstance(c, str) and len(c) == 2 and c[0] in RANKS and c[1] in SUITS)


def rank(c):
    return RANKS[c[0]]


def wild(c):
    return c != JOKER and c[0] == "A"


def black(c):
    return c[1] in "SC"


def acc_value(c):
    return 1 if wild(c) else rank(c)


def cards_ok(g, at_least=0):
    return isinstance(g, (list, tuple)) and len(g) >= at_least and all(is_card(c) for c in g)


# --- group_type ------------------------------------------------------------------

def naturals(g):
    return [c for c in g if not wild(c)]


def same(xs):
    return len(set(xs)) == 1


def is_set_of_value(g, n):
    if bug("set-any-size"):
        if len(g) < n:
            return False
    elif len(g) != n:
        return False
    if bug("set-no-wilds"):
        return same(c[0] for c in g)
    return same(rank(c) for c in naturals(g))


def cyc(start, i):
    """The value at position i of a run that starts at `start` (2..13, K
    wraps to 2)."""
    return (start - 2 + i) % 12 + 2


def run_start(g):
    """The value of the run's first position, or None when g is no run:
    the naturals fix every position, a Wild stands for 2..K."""
    if not 1 <= len(g) <= 12:
        return None
    if bug("run-any-order"):
        vals = [rank(c) for c in naturals(g)]
        if len(set(vals)) != len(vals):
            return None
        for s in range(2, 14):
            if all(v in {cyc(s, i) for i in range(len(g))} for v in vals):
                return s
        return None
    low = 1 if bug("run-ace-as-one") else 2  # (the mutant's values run A=1 .. K=13)
    starts = {(rank(c) - low - i) % (14 - low) + low for i, c in enumerate(g) if not wild(c)}
    if len(starts) != 1:
        return None
    s = starts.pop()
    if bug("run-no-wrap") and s + len(g) - 1 > 13:
        return None
    return s


def colour_of(cards):
    """'black' or 'red' when every card of `cards` has it, else None."""
    cols = {black(c) for c in cards}
    return ("black" if cols.pop() else "red") if len(cols) == 1 else None


def group_types(g):
    """The set of group types (1-7) of the list of cards g."""
    if not cards_ok(g, 1) or JOKER in g:
        return set()
    t = set()
    if len(naturals(g)) >= (1 if bug("naturals-unchecked") else 2):
        if is_set_of_value(g, 3):
            t.add(1)
        if len(g) == 7 and same(c[1] for c in naturals(g)):
            t.add(2)
        if is_set_of_value(g, 4):
            t.add(3)
        if len(g) == 8 and run_start(g):
            t.add(4)
        if len(g) == 4 and run_start(g) and colour_of(run_colour_cards(g)):
            t.add(5)
    if accumulates(g, 34):
        t.add(6)
        if colour_of(naturals(g) if bug("acc-colour-ignores-aces") else g):
            t.add(7)
    return t


def run_colour_cards(g):
    """The cards whose colour makes a run of one colour: its naturals."""
    if bug("colour-run-wild-colour"):
        return g
    if bug("colour-run-ends-only"):
        return [naturals(g)[0], g[-1]]
    return naturals(g)


def accumulates(g, total):
    if bug("acc-ace-wild"):  # Aces worth anything from 1 to 13
        base, aces = sum(rank(c) for c in naturals(g)), len(g) - len(naturals(g))
        return base + aces <= total <= base + 13 * aces
    return sum(acc_value(c) for c in g) == total


def phazed_group_type(group):
    return sorted(group_types(group))


# --- phase_type ------------------------------------------------------------------

def phase_types(phase):
    if not isinstance(phase, (list, tuple)):
        return set()
    groups = list(phase)
    if bug("phase-extra-groups"):
        groups = groups[:2]
    if not 1 <= len(groups) <= 2 or not all(cards_ok(g) for g in groups):
        return set()
    t = [group_types(g) for g in groups]
    if len(groups) == 1:
        return {p for p, gt in ((2, 2), (5, 4)) if gt in t[0]}
    if bug("phase-first-group-only"):
        t[1] = t[0]
    both = t[0] & t[1]
    out = {p for p, gt in ((1, 1), (3, 6), (4, 3), (6, 7)) if gt in both}
    if 5 in t[0] and 3 in t[1]:
        out.add(7)
    if bug("phase7-any-order") and 3 in t[0] and 5 in t[1]:
        out.add(7)
    if bug("phase6-one-colour") and 6 in out and colour_of(groups[0]) != colour_of(groups[1]):
        out.discard(6)
    if bug("phase-types-exclusive") and 6 in out:
        out.discard(3)
    if bug("phase1-distinct-values") and out & {1, 4}:
        r0, r1 = ({rank(c) for c in naturals(g)} for g in groups)
        if r0 == r1:
            out -= {1, 4}
    return out


def phazed_phase_type(phase):
    return sorted(phase_types(phase))


# --- score -------------------------------------------------------------------------

def card_points(c):
    if c == JOKER:
        return 0 if bug("score-joker-zero") else 15
    if wild(c):
        return 1 if bug("score-ace-one") else 11 if bug("score-ace-eleven") else 25
    if c[0] == "0" and bug("score-ten-zero"):
        return 0
    if c[0] in "JQK" and bug("score-faces-ten"):
        return 10
    return rank(c)


def phazed_score(hand):
    cards = hand[:-1] if bug("score-last-card-skipped") else hand
    return sum(card_points(c) for c in cards)


# --- is_valid_play -------------------------------------------------------------------

def _int(x, lo, hi):
    return type(x) is int and lo <= x <= hi


def parse(play, bonus):
    """The play as (type, content) when it has a play's shape, else None."""
    if not isinstance(play, (list, tuple)) or len(play) != 2 or not _int(play[0], 1, 6 if bonus else 5):
        return None
    t, c = play
    if not bonus and c == JOKER:
        return None
    if t == PICK_DECK:
        return play if c is None or c == "XX" or is_card(c) else None
    if t in (PICK_DISCARD, DISCARD):
        return play if is_card(c) else None
    if t == SKIP:
        return play if _int(c, 0, 3) else None
    if not isinstance(c, (list, tuple)) or len(c) != 2:
        return None
    if t == PLACE:
        pos = c[1]
        ok = (is_card(c[0]) and isinstance(pos, (list, tuple)) and len(pos) == 3 and _int(pos[0], 0, 3)
              and _int(pos[1], 0, 1) and _int(pos[2], 0, 108))
        return play if ok else None
    groups = c[1]
    ok = (_int(c[0], 1, 7) and isinstance(groups, (list, tuple)) and 1 <= len(groups) <= 2
          and all(cards_ok(g) and len(g) <= 32 and (bonus or JOKER not in g) for g in groups))
    return play if ok else None


def remove_all(hand, cards, as_set=False):
    """hand without `cards` (a multiset), or None when it does not hold them."""
    left = list(hand)
    for c in cards:
        if c not in left:
            return None
        if not as_set:
            left.remove(c)
    return left


class Hand:
    """The hand as a player sees it: whose turn it is (from turn_history),
    the table, the phases done, the cards held and the discard."""

    def __init__(self, player_id, table, turn_history, phase_status, hand, discard):
        self.me, self.np = player_id, len(table)
        self.phase = [t[0] for t in table]
        self.groups = [[list(g) for g in t[1]] for t in table]
        self.status = list(phase_status)
        self.bonus = bool(self.status) and isinstance(self.status[0], (list, tuple))
        self.hand, self.discard = list(hand), discard
        # whose turn: nobody's yet (anyone opens the hand); the last turn's
        # player while it has not ended; else the next player in seat order
        # who is not to be skipped
        last, ended, pending = None, True, set()
        for who, plays in turn_history:
            pending.discard(who)
            last, ended = who, not plays or plays[-1][0] in (DISCARD, SKIP)
            pending |= {p[1] for p in plays if p[0] == SKIP}
        nxt = last
        if last is not None and ended:
            nxt = (last + 1) % self.np
            for _ in range(self.np - 1):
                if nxt not in pending:
                    break
                nxt = (nxt + 1) % self.np
        opening = last is None and not bug("pickup-first-turn-refused")
        self.turn = opening or nxt == player_id or bug("turn-order-ignored")
        self.mid = last == player_id and not ended

    def kind(self, p, g):
        return PHASE_GROUPS[self.phase[p]][g][0]

    def required(self, phase):
        if self.bonus:
            return not self.status[self.me][phase - 1]
        return self.status[self.me] + 1 == phase

    def incomplete_accumulations(self, groups=None):
        groups = groups or self.groups
        return [(p, g) for p in range(self.np) if self.phase[p] for g in range(len(groups[p]))
                if self.kind(p, g) in (ACC, CACC) and sum(acc_value(c) for c in groups[p][g]) not in COMPLETE]

    def fits(self, card, p, g, idx):
        grp, kind = self.groups[p][g], self.kind(p, g)
        n = len(grp)
        if kind == VSET:
            return wild(card) or {rank(card)} == {rank(c) for c in naturals(grp)}
        if kind == SSET:
            return wild(card) or {card[1]} == {c[1] for c in naturals(grp)}
        if kind in (RUN, CRUN):
            start = run_start(grp)
            if (n >= 12 and not bug("run-full")) or not start:
                return False
            if idx not in (0, n) and not bug("place-run-middle"):
                return False
            if wild(card):
                return True
            if kind == CRUN and colour_of([card]) != colour_of(naturals(grp)):
                return False
            if idx not in (0, n):  # (a mutant's run: a card that continues either end, at any index)
                return rank(card) in (cyc(start, 11), cyc(start, n))
            return rank(card) == (cyc(start, 11) if idx == 0 else cyc(start, n))
        if kind == CACC and black(card) != black(grp[0]):
            return False
        total = sum(acc_value(c) for c in grp)
        nxt = next((t for t in COMPLETE if t > total), None)
        if bug("acc-overshoot"):
            return nxt is not None
        return nxt is not None and total + acc_value(card) <= nxt

    def judge(self, play):
        """True when play is valid now (phazed_is_valid_play)."""
        play = parse(play, self.bonus)
        if play is None or not self.turn:
            return False
        t, c = play
        if t in (PICK_DECK, PICK_DISCARD):
            if self.mid and not bug("pickup-mid-turn"):
                return False
            if t == PICK_DECK:
                return True
            if self.discard == JOKER and bug("play-pickup-joker"):
                return c == JOKER
            return self.discard is not None and self.discard != JOKER and (
                c == self.discard or bug("pickup-discard-not-top"))
        if not self.mid:
            return False
        if t == PHASE:
            pid, groups = c
            if self.phase[self.me]:
                return False
            if not (self.required(pid) or bug("phase-not-required") or bug("play-any-phase")
                    or bug("play-phase-done")):
                return False
            if pid not in phase_types(groups):
                return False
            if bug("phase-cards-unchecked"):
                return True
            return remove_all(self.hand, [x for g in groups for x in g], bug("phase-held-as-set")) is not None
        card = JOKER if t == SKIP else c if t == DISCARD else c[0]
        if card not in self.hand:
            return False
        if t == PLACE:
            p, g, idx = c[1]
            if not self.phase[self.me] and not (bug("place-before-phase") or bug("play-place-before-phase")):
                return False
            if card == JOKER or p >= self.np or not self.phase[p] or g >= len(self.groups[p]):
                return False
            if idx > len(self.groups[p][g]) or not self.fits(card, p, g, idx):
                return False
            if len(self.hand) == 1 and not bug("acc-last-card-short"):
                after = [[list(x) for x in gs] for gs in self.groups]
                after[p][g].insert(idx, card)
                return not self.incomplete_accumulations(after)
            return True
        if self.incomplete_accumulations() and not bug("discard-acc-incomplete"):
            return False
        if t == DISCARD:
            return card != JOKER
        return c < self.np and (c != self.me or bug("play-skip-self"))


def phazed_is_valid_play(play, player_id, table, turn_history, phase_status, hand, discard):
    return Hand(player_id, table, turn_history, phase_status, hand, discard).judge(play)


# --- play ----------------------------------------------------------------------------

def subsets(cards, total, colour=None, limit=64):
    """Sub-multisets of `cards` whose accumulation values add up to
    `total` (all of one colour, when given), at most `limit` of them."""
    pool = sorted((c for c in cards if c != JOKER and (colour is None or black(c) == colour)),
                  key=acc_value, reverse=True)
    out = []

    def walk(i, left, chosen):
        if len(out) >= limit:
            return
        if left == 0:
            out.append(list(chosen))
            return
        for j in range(i, len(pool)):
            if j > i and pool[j] == pool[j - 1]:
                continue
            v = acc_value(pool[j])
            if v <= left:
                chosen.append(pool[j])
                walk(j + 1, left - v, chosen)
                chosen.pop()

    walk(0, total, [])
    return out


def take(cards, want, used):
    """The first card of `cards` not in `used` (index set) that `want` accepts."""
    for i, c in enumerate(cards):
        if i not in used and want(c):
            used.add(i)
            return c
    return None


def candidate_groups(kind, size, cards):
    """Groups of `kind` and `size` that the multiset `cards` can make (some
    of them: enough to find a phase when the hand holds one)."""
    wilds = [c for c in cards if wild(c)]
    nat = [c for c in cards if c != JOKER and not wild(c)]
    if kind in (VSET, SSET):
        keyf = (lambda c: c[1]) if kind == SSET else rank
        for key in dict.fromkeys(keyf(c) for c in nat):
            same_key = [c for c in nat if keyf(c) == key]
            for a in range(min(len(same_key), size), 1, -1):
                if size - a <= len(wilds):
                    yield same_key[:a] + wilds[:size - a]
    elif kind in (RUN, CRUN):
        for start in range(2, 14):
            for col in ([None] if kind == RUN else [True, False]):
                used, group, nw = set(), [], 0
                for i in range(size):
                    c = take(nat, lambda x, v=cyc(start, i): rank(x) == v and (col is None or black(x) == col), used)
                    if c is None:
                        nw += 1
                        c = wilds[nw - 1] if nw <= len(wilds) else None
                    if c is None:
                        break
                    group.append(c)
                if len(group) == size and size - nw >= 2:
                    yield group
    else:
        for col in ([None] if kind == ACC else [True, False]):
            yield from subsets(cards, size, col)


def find_phase(h, pid):
    """A valid play of phase pid from the hand, or None."""
    (k0, n0), *second = PHASE_GROUPS[pid]
    for g0 in candidate_groups(k0, n0, h.hand):
        if not second:
            options = [[g0]]
        else:
            (k1, n1), = second
            options = ([g0, g1] for g1 in candidate_groups(k1, n1, remove_all(h.hand, g0)))
        for groups in options:
            if pid == 7 and bug("phase7-any-order"):
                groups = groups[::-1]
            play = (PHASE, (pid, groups))
            if h.judge(play):
                return play
    return None


def phases_to_try(h):
    return [p for p in range(1, 8) if h.required(p) or bug("play-any-phase") or bug("play-phase-done")]


def placements(h):
    """Valid placements, but none that leaves an accumulation short of its
    target (the turn could not end)."""
    out = []
    for card in dict.fromkeys(h.hand):
        for p in range(h.np):
            for g in range(len(h.groups[p]) if h.phase[p] else 0):
                n = len(h.groups[p][g])
                for idx in ([0, n] if h.kind(p, g) in (RUN, CRUN) else [n]):
                    play = (PLACE, (card, (p, g, idx)))
                    if not h.judge(play):
                        continue
                    if h.kind(p, g) in (ACC, CACC):
                        total = sum(acc_value(c) for c in h.groups[p][g]) + acc_value(card)
                        if total not in COMPLETE:
                            continue
                    out.append(play)
    return out


def finish_accumulation(h):
    """A card towards the target of an accumulation left short this turn."""
    for p, g in h.incomplete_accumulations():
        grp = h.groups[p][g]
        total = sum(acc_value(c) for c in grp)
        need = next(t for t in COMPLETE if t > total) - total
        colour = black(grp[0]) if h.kind(p, g) == CACC else None
        for sub in subsets(h.hand, need, colour, 1):
            return (PLACE, (sub[0], (p, g, len(grp))))
    return None


def wants(h, card):
    """Take the discard when it is a Wild, or a value or suit the hand holds."""
    if card == JOKER:
        return bug("play-pickup-joker")
    return wild(card) or any(c != JOKER and (c[0] == card[0]) for c in h.hand)


def phazed_play(player_id, table, turn_history, phase_status, hand, discard):
    h = Hand(player_id, table, turn_history, phase_status, hand, discard)
    if not h.mid or bug("play-pickup-twice"):
        if discard is not None and wants(h, discard):
            return (PICK_DISCARD, discard)
        if not h.mid:
            return (PICK_DECK, None)
    if h.incomplete_accumulations():
        play = None if bug("play-discards-acc-open") else finish_accumulation(h)
        if play:
            return play
    elif not h.phase[h.me]:
        for pid in phases_to_try(h):
            play = find_phase(h, pid)
            if play:
                return play
    found = [] if h.incomplete_accumulations() else placements(h)
    if found:
        return found[0]
    if JOKER in h.hand:
        if bug("play-discard-joker"):
            return (DISCARD, JOKER)
        return (SKIP, h.me if bug("play-skip-self") else (h.me + 1) % h.np)
    if bug("play-discard-not-held") and discard is not None and discard not in h.hand:
        return (DISCARD, discard)
    # the highest card, a Wild last
    return (DISCARD, max(h.hand, key=lambda c: (not wild(c), acc_value(c))))
