"""mutants.py: the mistakes students make, as switches in the kit's own
course implementations (comp10001bo.py, phazed.py).

Each mutant breaks one clause of one course function the way students'
code does. The implementations ask bug("name") at the place where that
clause is decided; the mutant that is on is the one named by the
environment variable KIT_MUTANT when the module is imported (none: the
correct implementation). run_kit.py runs every generated suite against the
implementation (it must pass) and against every mutant listed for that
function (each must fail), and prints the per-clause report of each run.

A row: (name, [(game, fn, variant), ...] the suites that must catch it,
what the student's code does).
"""

import os

BO = "comp10001bo"
PZ = "phazed"
STD = "standard"
BONUS = "bonus"


def _fns(game, names, variants=(STD, BONUS)):
    """The suites of `names` (functions of `game`) in `variants` (both by
    default: a standard clause is a clause of the bonus game too)."""
    return [(game, f, v) for f in names.split() for v in variants]


MUTANTS = [
    # --- Comp10001-Bo: match_build (and everything that places on a build pile)
    ("build-start-any", _fns(BO, "match_build is_valid_play"),
     "an empty build pile takes any card, not only a 2 or a King"),
    ("build-start-two-only", _fns(BO, "match_build is_valid_play"),
     "an empty build pile takes a 2 but not a King"),
    ("build-colour-ignored", _fns(BO, "match_build is_valid_play"),
     "a build pile does not follow colour"),
    ("build-wraps", _fns(BO, "match_build"),
     "a build pile wraps from King to 2 (the discard piles' rule)"),
    ("build-ascending-only", _fns(BO, "match_build is_valid_play"),
     "a build pile only goes up (a 3 on a 4 is refused)"),
    ("build-ace-any-colour", _fns(BO, "match_build"),
     "an Ace completes a build pile of either colour"),
    ("build-ace-adjacent", _fns(BO, "match_build"),
     "an Ace is a 1: it goes only on a 2"),
    # --- match_discard
    ("discard-ace-allowed", _fns(BO, "match_discard is_valid_play"),
     "an Ace may go on a discard pile"),
    ("discard-no-wrap", _fns(BO, "match_discard"),
     "discard piles do not wrap from King to 2"),
    ("discard-start-others", _fns(BO, "match_discard is_valid_play"),
     "a player may start another player's empty discard pile"),
    ("discard-start-not-from-hand", _fns(BO, "match_discard"),
     "an empty discard pile may be started from the stockpile or a discard pile"),
    ("discard-colour-ignored", _fns(BO, "match_discard is_valid_play"),
     "discard piles need not alternate in colour"),
    ("discard-restart-invalid", _fns(BO, "match_discard is_valid_play"),
     "an illegal placement from the hand is invalid (0), not a turn-ending restart (2)"),
    ("discard-restart-any-source", _fns(BO, "match_discard"),
     "an illegal placement from the stockpile or a discard pile is a restart (2), not invalid"),
    # --- is_valid_play
    ("ivp-discard-not-top", _fns(BO, "is_valid_play play"),
     "a discard-pile card is not checked to be the top of its pile (and the play takes any card of a pile)"),
    ("ivp-stock-any-player", _fns(BO, "is_valid_play"),
     "a stockpile play may take the top of any player's stockpile"),
    ("ivp-same-pile", _fns(BO, "is_valid_play"),
     "a discard-pile card may go back onto the pile it came from (judged against the card under it)"),
    ("ivp-hand-not-checked", _fns(BO, "is_valid_play"),
     "a card played from the hand is not checked to be in the hand"),
    ("ivp-noplay-hand-only", _fns(BO, "is_valid_play"),
     "a claim of no play looks at the hand only (an empty hand is answered 3 without looking at the "
     "stockpile or the discard piles)"),
    ("ivp-noplay-legal-only", _fns(BO, "is_valid_play"),
     "a claim of no play counts only non-turn-ending plays (starting or restarting a discard pile is "
     "forgotten)"),
    ("ivp-stock-identity", _fns(BO, "is_valid_play"),
     "the stockpile's top is compared with `is`, not `==` (equal strings need not be the same object)"),
    ("noplay-empty-stockpile", _fns(BO, "is_valid_play"),
     "a claim of no play reads the top card of the player's stockpile even when it is empty (None): a crash"),
    ("ivp-start-not-turn-ending", _fns(BO, "is_valid_play"),
     "starting a discard pile is answered 1, as if it did not end the turn"),
    # --- play
    ("play-stock-of-player-0", _fns(BO, "play"),
     "the play reads stockpiles[0] as its own stockpile, whoever plays"),
    ("play-gives-up", _fns(BO, "play"),
     "the play answers no play when only turn-ending plays are left"),
    ("play-ace-to-discard", _fns(BO, "play"),
     "the play discards an Ace from the hand when it has nothing better"),
    ("play-starts-others-pile", _fns(BO, "play"),
     "the play starts an empty discard pile of the next player"),
    # --- bonus: jokers (validators with variant bonus) and the embargo (comp10001bo_bonus)
    ("joker-no-build-start", _fns(BO, "match_build", (BONUS,)),
     "a joker may not start a build pile"),
    ("joker-build-anything-next", _fns(BO, "match_build", (BONUS,)),
     "anything of the pile's colour goes on a joker on a build pile (its reading is not held to the "
     "card under it)"),
    ("joker-discard-anything-next", _fns(BO, "match_discard", (BONUS,)),
     "anything goes on a joker on a discard pile (its reading is not held to the card under it)"),
    ("joker-transparent", _fns(BO, "match_discard", (BONUS,)),
     "a card on a joker is judged against the card under the joker"),
    ("joker-ace-refused", _fns(BO, "match_build", (BONUS,)),
     "an Ace may not complete a build pile topped by a joker"),
    ("joker-discard-turn-ending", _fns(BO, "match_discard", (BONUS,)),
     "a joker on a non-empty discard pile ends the turn (2)"),
    ("embargo-any-stockpile", _fns(BO, "play", (BONUS,)),
     "the embargo is played on a player whose stockpile holds more than 3 cards"),
    ("embargo-twice", _fns(BO, "play", (BONUS,)),
     "the embargo card is played again after it has been used (holds_embargo not read)"),
    ("embargo-already-embargoed", _fns(BO, "play", (BONUS,)),
     "the embargo is played on a player who is already embargoed"),
    ("embargoed-plays-hand", _fns(BO, "play", (BONUS,)),
     "an embargoed player still plays from the hand and the discard piles"),
    ("embargo-clear-not-embargoed", _fns(BO, "play", (BONUS,)),
     "the player clears an embargo it is not under"),

    # --- Phazed: group_type
    ("acc-ace-wild", _fns(PZ, "group_type phase_type"),
     "an Ace is a wild in an accumulation (any value 1-13) instead of 1"),
    ("run-no-wrap", _fns(PZ, "group_type"),
     "a run does not wrap from King to 2"),
    ("naturals-unchecked", _fns(PZ, "group_type phase_type"),
     "a group with fewer than two natural cards is accepted"),
    ("run-any-order", _fns(PZ, "group_type"),
     "a run is judged as a set of values, in any order"),
    ("set-no-wilds", _fns(PZ, "group_type phase_type"),
     "Aces are not wild in sets of the same value"),
    ("colour-run-wild-colour", _fns(PZ, "group_type"),
     "the colour of a Wild counts in a run of one colour"),
    ("colour-run-ends-only", _fns(PZ, "group_type"),
     "a run of one colour is checked on its first natural card and its last card only"),
    ("run-ace-as-one", _fns(PZ, "group_type"),
     "an Ace in a run may stand for 1 (A-2-3, K-A-2)"),
    ("set-any-size", _fns(PZ, "group_type"),
     "a set of three of a value is any number of cards of that value"),
    ("acc-colour-ignores-aces", _fns(PZ, "group_type"),
     "the colour of an Ace does not count in an accumulation of one colour"),
    # --- phase_type
    ("phase-first-group-only", _fns(PZ, "phase_type"),
     "one group judged where the phase needs two (the second is not looked at)"),
    ("phase7-any-order", _fns(PZ, "phase_type play"),
     "phase 7 accepts the set before the run"),
    ("phase6-one-colour", _fns(PZ, "phase_type"),
     "phase 6 needs both accumulations in the same colour"),
    ("phase-types-exclusive", _fns(PZ, "phase_type"),
     "one phase type only: two 34-accumulations of one colour are [6], not [3, 6]"),
    ("phase1-distinct-values", _fns(PZ, "phase_type"),
     "phase 1 and 4 need sets of two different values"),
    ("phase-extra-groups", _fns(PZ, "phase_type"),
     "groups beyond those the phase needs are ignored"),
    # --- is_valid_play
    ("pickup-mid-turn", _fns(PZ, "is_valid_play"),
     "a pick-up is allowed after the first play of the turn"),
    ("pickup-first-turn-refused", _fns(PZ, "is_valid_play"),
     "a pick-up at the start of a hand (turn_history empty) is refused: whose turn is read from a last turn "
     "that does not exist"),
    ("pickup-discard-not-top", _fns(PZ, "is_valid_play"),
     "the card picked up from the discard pile is not checked to be the top"),
    ("phase-not-required", _fns(PZ, "is_valid_play"),
     "any phase may be played, not only the one the player needs now"),
    ("phase-cards-unchecked", _fns(PZ, "is_valid_play"),
     "the phase's cards are not checked to be in the hand at all"),
    ("phase-held-as-set", _fns(PZ, "is_valid_play"),
     "the phase's cards are checked to be in the hand one by one, not as a multiset (two 2S need one)"),
    ("place-before-phase", _fns(PZ, "is_valid_play"),
     "a card may be placed on the table before the player's own phase"),
    ("acc-last-card-short", _fns(PZ, "is_valid_play"),
     "the last card of the hand may leave an accumulation short of its target"),
    ("discard-acc-incomplete", _fns(PZ, "is_valid_play"),
     "a discard is allowed while an accumulation is short of its target"),
    ("place-run-middle", _fns(PZ, "is_valid_play"),
     "a run's index is not checked: a card that continues either end may go at any index"),
    ("turn-order-ignored", _fns(PZ, "is_valid_play"),
     "whose turn it is is not read from turn_history"),
    ("run-full", _fns(PZ, "is_valid_play"),
     "a run grows past twelve cards (the values come round again)"),
    ("acc-overshoot", _fns(PZ, "is_valid_play"),
     "a card may take an accumulation past its next target"),
    # --- score
    ("score-ace-one", _fns(PZ, "score"), "an Ace scores 1 (its accumulation value) instead of 25"),
    ("score-ten-zero", _fns(PZ, "score"), "a ten ('0') scores 0"),
    ("score-faces-ten", _fns(PZ, "score"), "Jacks, Queens and Kings score 10"),
    ("score-ace-eleven", _fns(PZ, "score"), "an Ace scores 11"),
    ("score-last-card-skipped", _fns(PZ, "score"), "the last card of the hand is not counted"),
    ("score-joker-zero", _fns(PZ, "score", (BONUS,)), "a Joker scores 0 instead of 15"),
    # --- play
    ("play-any-phase", _fns(PZ, "play", (STD,)),
     "plays whichever phase the hand holds, not the one the player needs now"),
    ("play-pickup-twice", _fns(PZ, "play"),
     "picks up again after its first play (turn_history read wrongly)"),
    ("play-place-before-phase", _fns(PZ, "play"),
     "places cards on other players' groups before its own phase"),
    ("play-discard-not-held", _fns(PZ, "play"),
     "discards the top of the discard pile instead of a card it holds"),
    ("play-discards-acc-open", _fns(PZ, "play"),
     "discards while an accumulation it played to this turn is short of its target"),
    ("play-skip-self", _fns(PZ, "play", (BONUS,)),
     "plays its Skip on itself"),
    ("play-discard-joker", _fns(PZ, "play", (BONUS,)),
     "discards a Joker instead of playing it as a Skip"),
    ("play-pickup-joker", _fns(PZ, "play", (BONUS,)),
     "picks up a Joker from the discard pile"),
    ("play-phase-done", _fns(PZ, "play", (BONUS,)),
     "plays a phase it has already completed (bonus: each phase once)"),
]

# Mutants that the generated suites do not catch yet, and the cases they
# lack: run_kit.py runs them, reports them as gaps and does not count them.
# A key is a mutant ("name": every suite it is listed for) or a mutant in
# one function's suites ("name/fn").
GAPS = {
}


def gap(name, suite):
    """What the suite lacks to catch mutant `name`, or None."""
    return GAPS.get(f"{name}/{suite[1]}") or GAPS.get(name)

NAMES = {m[0] for m in MUTANTS}
assert {k.split("/")[0] for k in GAPS} <= NAMES, "every gap is a mutant"
assert len(NAMES) == len(MUTANTS), "mutant names are unique"

ACTIVE = os.environ.get("KIT_MUTANT", "")
if ACTIVE and ACTIVE not in NAMES:
    raise SystemExit(f"KIT_MUTANT={ACTIVE}: no such mutant (tests/kit/mutants.py)")


def bug(name):
    """True when the mutant `name` is on."""
    assert name in NAMES, f"bug({name!r}) is not in the MUTANTS table"
    return name == ACTIVE
