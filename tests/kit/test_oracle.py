"""test_oracle.py: the kit's own course implementations (comp10001bo.py,
phazed.py) against Croupier, on positions of real games.

The kit's play functions play whole games as a remote player of
`croupier tournament` (docs/tournaments.md): every move must be legal. Each
position they were asked about is kept, and in a sample of them the kit's
validators and Croupier's (through clients/python/croupier.py) judge the
same plays: every play the kit's enumeration makes there, Phazed's phases
for every phase id, placements at every end and inside runs, claims of no
play, and the same plays by the wrong player. They must answer alike, in
value and in Python type. Independent of the generated suites (run_kit.py),
which aim at every clause; this checks the implementation where real games
go.
"""

import json
import os
import random
import subprocess
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "clients", "python")]

import comp10001bo as bo  # noqa: E402
import croupier  # noqa: E402
import phazed as pz  # noqa: E402
from server import Server, binary  # noqa: E402

PLAY_FNS = {"comp10001bo_play": bo.comp10001bo_play, "comp10001bo_bonus": bo.comp10001bo_bonus,
            "phazed_play": pz.phazed_play}
# game, variant, games, positions compared
RUNS = [("comp10001bo", "standard", 8, 60), ("comp10001bo", "bonus", 8, 60),
        ("phazed", "standard", 4, 40), ("phazed", "bonus", 4, 40)]


class Player(BaseHTTPRequestHandler):
    """A remote player of croupier tournament: the kit's play functions."""
    seen = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Player.seen.append(body)
        out = json.dumps({"play": PLAY_FNS[body["function"]](*body["args"])}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def play_games(game, variant, games):
    """Positions the kit's player was asked about, and the tournament's
    report on its moves."""
    Player.seen = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Player)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/play"
        out = subprocess.run([binary(), "tournament", "--game", game, "--variant", variant, "--bots",
                              f"{url},planner", "--games", str(games), "--json", "--quiet", "--jobs", "2",
                              "--remote-timeout", "60000"], capture_output=True, text=True, check=True).stdout
    finally:
        srv.shutdown()
        srv.server_close()
    return Player.seen, json.loads(out)["remote"]["players"][0]


def bo_questions(rng, args):
    """(function name, kit function, client function, args) for a position."""
    deck = [v + s for v in "A234567890JQK" for s in "SHDC"] + (["ZZ"] if len(args) == 8 else [])
    if len(args) == 8:
        me, hand, _, _, stock, disc, build, _ = args
    else:
        me, hand, stock, disc, build, _ = args
    plays = bo.Table(me, hand, stock, disc, build).candidates()
    plays = rng.sample(plays, min(25, len(plays))) + [bo.NO_PLAY, (4, None, (2, 1)), (5, None, (0, 0)),
                                                      (0, "1C", (0, 0)), (1, ("2C", (0, 0)), (1, (0, 0)))]
    qs = [("is_valid_play", bo.comp10001bo_is_valid_play, croupier.comp10001bo_is_valid_play,
           [p, me, hand, stock, disc, build]) for p in plays]
    for pile in build:
        qs.append(("match_build", bo.comp10001bo_match_build, croupier.comp10001bo_match_build,
                   [rng.choice(deck), pile]))
    for owner in range(4):
        for pile in disc[owner]:
            qs.append(("match_discard", bo.comp10001bo_match_discard, croupier.comp10001bo_match_discard,
                       [rng.choice(deck), pile, me, owner, rng.random() < 0.5]))
    return qs


def pz_questions(rng, args):
    me, table, history, status, hand, discard = args
    deck = [v + s for v in "234567890JQKA" for s in "SHDC"]
    plays = [(1, None), (1, "XX"), (2, discard), (2, rng.choice(deck)), (5, rng.choice(deck))]
    plays += [(5, c) for c in dict.fromkeys(hand)] + [(6, p) for p in range(len(table))]
    for pid in range(1, 8):
        kinds = pz.PHASE_GROUPS[pid]
        for g0 in list(pz.candidate_groups(*kinds[0], hand))[:3]:
            if len(kinds) == 1:
                plays += [(3, (pid, [g0])), (3, (rng.randint(1, 7), [g0]))]
                continue
            for g1 in list(pz.candidate_groups(*kinds[1], pz.remove_all(hand, g0)))[:2]:
                plays += [(3, (pid, [g0, g1])), (3, (pid, [g1, g0])), (3, (rng.randint(1, 7), [g0, g1]))]
    for card in dict.fromkeys(hand):
        for p, (_, groups) in enumerate(table):
            for g, grp in enumerate(groups):
                plays += [(4, (card, (p, g, i))) for i in {0, len(grp), rng.randint(0, len(grp))}]
    qs = []
    for play in plays:
        for who in [me] + ([(me + 1) % len(table)] if rng.random() < 0.3 else []):
            qs.append(("is_valid_play", pz.phazed_is_valid_play, croupier.phazed_is_valid_play,
                       [play, who, table, history, status, hand, discard]))
    groups = [g for _, gs in table for g in gs] + [rng.sample(hand, min(len(hand), k)) for k in (3, 4, 7, 8)]
    qs += [("group_type", pz.phazed_group_type, croupier.phazed_group_type, [g]) for g in groups]
    phases = [gs for _, gs in table if gs] + [p[1][1] for p in plays if p[0] == 3][:10]
    qs += [("phase_type", pz.phazed_phase_type, croupier.phazed_phase_type, [ph]) for ph in phases]
    qs.append(("score", pz.phazed_score, croupier.phazed_score, [hand]))
    return qs


class Oracle(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server().__enter__()
        croupier.BASE_URL = cls.server.url

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def check(self, game, variant, games, positions):
        seen, report = play_games(game, variant, games)
        self.assertGreater(report["moves"], games * 10)
        self.assertEqual((report["invalid"], report["late"], report["error"]), (0, 0, 0),
                         f"the kit's {game} {variant} player: {report.get('examples')}")
        rng = random.Random(f"{game}-{variant}")
        questions = bo_questions if game == "comp10001bo" else pz_questions
        counts = {}
        for body in rng.sample(seen, min(positions, len(seen))):
            for fn, mine, theirs, args in questions(rng, body["args"]):
                want = theirs(*args, variant=variant)
                got = mine(*args)
                counts[fn] = counts.get(fn, 0) + 1
                self.assertEqual((got, type(got)), (want, type(want)), f"{game} {variant} {fn}{json.dumps(args)}")
        self.assertGreaterEqual(min(counts.values()), positions, counts)

    def test_comp10001bo_standard(self):
        self.check(*RUNS[0])

    def test_comp10001bo_bonus(self):
        self.check(*RUNS[1])

    def test_phazed_standard(self):
        self.check(*RUNS[2])

    def test_phazed_bonus(self):
        self.check(*RUNS[3])


if __name__ == "__main__":
    unittest.main()
