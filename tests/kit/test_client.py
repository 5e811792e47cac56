"""test_client.py: clients/python/croupier.py against a real server.

The course functions answer the course's own examples with the course's
Python values (tuples where the specifications have tuples); BASE_URL and
CROUPIER_URL choose the server; Client plays a stored game (create, view,
legal, hint, play with If-Match, plays, events); every refusal is a
CroupierError carrying the problem+json. Run by tests/run.sh:
python3 -m unittest discover -s tests/kit -p 'test_*.py'.
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "clients", "python")]

import croupier  # noqa: E402
from server import ROOT, Server, note_tokens  # noqa: E402

E4 = ([], [], [], [])
NO_DISCARDS = (E4, E4, E4, E4)
NO_PLAY = (3, None, (None, None))
STOCK = (("9C", 8), ("0D", 8), ("3H", 8), ("KD", 8))


def setUpModule():
    global SERVER
    SERVER = Server().__enter__()
    croupier.BASE_URL = SERVER.url


def tearDownModule():
    SERVER.__exit__(None, None, None)


class CourseFunctions(unittest.TestCase):
    def test_comp10001bo_examples(self):
        c = croupier
        self.assertIs(c.comp10001bo_match_build("2C", []), True)
        self.assertIs(c.comp10001bo_match_build("3C", []), False)
        self.assertEqual(c.comp10001bo_match_discard("2H", ["KS"], 0, 0), 1)
        self.assertEqual(c.comp10001bo_match_discard("QC", ["JC"], 0, 0, False), 0)
        self.assertEqual(c.comp10001bo_match_discard("5H", [], 0, 0), 2)
        self.assertEqual(c.comp10001bo_is_valid_play((0, "2C", (0, 0)), 0, ["2C", "AS", "9D", "0D", "0S"], STOCK,
                                                     NO_DISCARDS, E4), 1)
        self.assertEqual(c.comp10001bo_is_valid_play((0, "9D", (1, (0, 0))), 0, ["AS", "9D", "0D", "0S"], STOCK,
                                                     ((["5S"], [], [], []), E4, E4, E4), E4), 2)
        self.assertEqual(c.comp10001bo_is_valid_play(NO_PLAY, 0, [], STOCK, ((["5S"], [], [], []), E4, E4, E4), E4), 3)
        # 002's play examples: the play comes back as the course's 3-tuple
        stock = (("7H", 7), ("3C", 8), ("3H", 8), ("KD", 8))
        disc = ((["7H"], [], [], []), E4, E4, E4)
        hist = [(0, (2, "2C", (0, 0))), (0, NO_PLAY), (1, (2, "3C", (0, 0)))]
        self.assertEqual(c.comp10001bo_play(0, [], stock, disc, (["2C"], [], [], []), hist[:1]), NO_PLAY)
        got = c.comp10001bo_play(1, [], stock, disc, (["2C"], [], [], []), hist)
        self.assertEqual(got, (2, "3C", (0, 0)))
        self.assertIsInstance(got[2], tuple)

    def test_comp10001bo_play_from_a_discard_pile_is_nested_tuples(self):
        disc = (E4, (["3C", "2C"], [], [], []), E4, E4)
        got = croupier.comp10001bo_play(0, [], (("9C", 8), ("0D", 8), ("3H", 8), ("KD", 8)), disc, E4, [])
        self.assertEqual(got[:2], (1, ("2C", (1, 0))))
        self.assertEqual(got[2][0], 0)
        self.assertTrue(all(isinstance(x, tuple) for x in (got, got[1], got[1][1], got[2])))

    def test_comp10001bo_bonus_form(self):
        # jokers are cards of the bonus game only
        self.assertIs(croupier.comp10001bo_match_build("ZZ", [], variant="bonus"), True)
        with self.assertRaises(croupier.CroupierError) as e:
            croupier.comp10001bo_match_build("2C", ["ZZ"])
        self.assertEqual(e.exception.status, 400)
        self.assertEqual(e.exception.pointers, ["/1/0"])
        got = croupier.comp10001bo_bonus(1, [], True, None, (("7H", 7), ("3C", 8), ("3H", 8), ("KD", 8)),
                                         ((["7H"], [], [], []), E4, E4, E4), (["2C"], [], [], []), [])
        self.assertEqual(got, (2, "3C", (0, 0)))

    def test_phazed_examples(self):
        c = croupier
        self.assertEqual(c.phazed_group_type(["KS", "0C", "8C", "3S"]), [6, 7])
        self.assertEqual(c.phazed_phase_type([["2C", "KC", "QS", "7C"], ["3H", "7H", "0D", "KD", "AD"]]), [3, 6])
        self.assertIs(c.phazed_is_valid_play((5, "JS"), 1, [(None, []), (1, [["2S", "2S", "2C"], ["AS", "5S", "5S"]]),
                                                            (None, []), (None, [])],
                                             [(0, [(2, "JS"), (5, "JS")]),
                                              (1, [(1, "XX"), (3, (1, [["2S", "2S", "2C"], ["AS", "5S", "5S"]]))])],
                                             [0, 1, 0, 0], ["AD", "8S", "9S", "0S", "JS"], "JS"), True)
        self.assertEqual(c.phazed_score(["2D", "9S", "AD", "0D"]), 46)
        self.assertEqual(c.phazed_score(["ZZ"], variant="bonus"), 15)
        got = c.phazed_play(1, [(None, []), (5, [["2C", "3H", "4D", "AD", "6S", "7C", "8S", "9H", "0S", "JS"]]),
                                (None, []), (None, [])],
                            [(0, [(2, "JS"), (5, "JS")]),
                             (1, [(2, "JS"), (3, (5, [["2C", "3H", "4D", "AD", "6S", "7C", "8S", "9H"]])),
                                  (4, ("0S", (1, 0, 8))), (4, ("JS", (1, 0, 9)))])],
                            [0, 5, 0, 0], ["5D"], None)
        self.assertEqual(got, (5, "5D"))

    def test_phazed_play_shapes(self):
        empty = [(None, []), (None, []), (None, []), (None, [])]
        hand = ["2S", "2H", "2C", "7H", "7S", "7D", "9C", "JD", "QH", "KC", "3S"]
        got = croupier.phazed_play(0, empty, [(0, [(1, "XX")])], [0, 0, 0, 0], hand, "4D")
        self.assertEqual(got[0], 3)
        self.assertIsInstance(got, tuple)
        self.assertIsInstance(got[1], tuple)
        self.assertEqual(got[1][0], 1)
        self.assertIsInstance(got[1][1], list)  # a phase's groups are lists, as the course writes them
        self.assertTrue(all(isinstance(g, list) for g in got[1][1]))
        table = [(None, []), (1, [["2S", "2S", "2C"], ["AS", "5S", "5S"]]), (None, []), (None, [])]
        hist = [(0, [(1, "XX"), (5, "9C")]), (1, [(1, "XX"), (3, (1, [["2S", "2S", "2C"], ["AS", "5S", "5S"]]))])]
        got = croupier.phazed_play(1, table, hist, [0, 1, 0, 0], ["2D", "KC", "9S"], "9C")
        self.assertEqual(got, (4, ("2D", (1, 0, 3))))
        self.assertIsInstance(got[1][1], tuple)

    def test_from_json_shapes(self):
        f = croupier.from_json
        self.assertEqual(f([[["2C"], []], [[], []]], {"tuple_of": {"tuple_of": "any"}}), ((["2C"], []), ([], [])))
        self.assertEqual(f([[0, [2, "2C", [0, 0]]]], {"list": "tuple"}), [(0, (2, "2C", (0, 0)))])
        self.assertEqual(f([[None, []], [1, [["2S"]]]], {"list": {"tuple": ["any", "any"]}}), [(None, []), (1, [["2S"]])])
        pz, bo = croupier.phazed_play.returns, croupier.comp10001bo_play.returns  # the server's shapes
        self.assertEqual(f([3, [1, [["2S"], ["5S"]]]], pz), (3, (1, [["2S"], ["5S"]])))
        self.assertEqual(f([4, ["AD", [1, 0, 3]]], pz), (4, ("AD", (1, 0, 3))))
        self.assertEqual(f([1, ["2C", [1, 0]], [1, [2, 3]]], bo), (1, ("2C", (1, 0)), (1, (2, 3))))
        self.assertEqual(f([4, None, [2, 1]], bo), (4, None, (2, 1)))
        self.assertEqual(f([3, None, [None, None]], bo), NO_PLAY)
        self.assertEqual(f([6, 2], pz), (6, 2))
        self.assertEqual(f([1, None], pz), (1, None))

    def test_the_functions_are_the_servers(self):
        rows = {f["name"]: f for g in croupier.Client().rules()["games"] for f in g.get("functions") or []}
        self.assertEqual(set(croupier.functions()), set(rows))
        self.assertGreaterEqual(len(rows), 10)
        for name, row in rows.items():
            fn = getattr(croupier, name)
            self.assertEqual(fn.params, [p["name"] for p in row["params"]], name)
            self.assertEqual(fn.__doc__, row["signature"])
        with self.assertRaises(AttributeError) as e:
            croupier.phazed_no_such_function
        self.assertIn("phazed_score", str(e.exception))
        self.assertFalse(hasattr(croupier, "no_such_thing"))
        # arguments by the course's names, checked before any request
        self.assertEqual(croupier.comp10001bo_match_discard(play_card="2C", discard_pile=[], player_no=0,
                                                            to_player_no=0), 2)
        self.assertEqual(croupier.comp10001bo_match_discard("2C", [], 0, 0, False), 0)
        for bad in (lambda: croupier.phazed_score(), lambda: croupier.phazed_score([], hands=[]),
                    lambda: croupier.phazed_score([], hand=[]), lambda: croupier.phazed_score([], []),):
            with self.assertRaises(TypeError):
                bad()

    def test_generated_cases_agree_with_the_course_functions(self):
        cl = croupier.Client()
        suite = cl.cases("comp10001bo", "is_valid_play", n=40, seed=5)
        self.assertEqual(suite["course_name"], "comp10001bo_is_valid_play")
        self.assertEqual(len(suite["cases"]), 40)
        for case in suite["cases"]:
            args = croupier.case_args(suite, case)
            self.assertIsInstance(args[0], tuple)  # the play
            self.assertIsInstance(args[3][0], tuple)  # a stockpile
            self.assertEqual(croupier.comp10001bo_is_valid_play(*args), croupier.case_expected(suite, case), case)
        suite = cl.cases("comp10001bo", "match_build", n=5, seed=5, variant="bonus")
        self.assertEqual(suite["variant"], "bonus")
        for case in suite["cases"]:
            got = croupier.comp10001bo_match_build(*croupier.case_args(suite, case), variant="bonus")
            self.assertIs(got, case["expected"])
        with self.assertRaises(croupier.CroupierError) as e:
            cl.cases("comp10001bo", "no_such_function")
        self.assertEqual(e.exception.status, 404)

    def test_argument_errors_name_the_argument(self):
        with self.assertRaises(croupier.CroupierError) as e:
            croupier.comp10001bo_is_valid_play(NO_PLAY, 0, "not a hand", STOCK, NO_DISCARDS, E4)
        err = e.exception
        self.assertEqual(err.status, 400)
        self.assertEqual(err.problem["status"], 400)
        self.assertIn("/2", err.pointers)
        self.assertIn("/2", str(err))
        with self.assertRaises(croupier.CroupierError) as e:
            croupier.phazed_score(["2D"], variant="nonsense")
        self.assertEqual(e.exception.status, 400)

    def test_base_url_and_environment(self):
        saved = croupier.BASE_URL
        try:
            croupier.BASE_URL = "http://127.0.0.1:9"  # discard port: nothing answers
            with self.assertRaises(croupier.CroupierUnavailable) as e:
                croupier.phazed_score([])
            self.assertIn("127.0.0.1:9", str(e.exception))
            self.assertIn("CROUPIER_URL", str(e.exception))
        finally:
            croupier.BASE_URL = saved
        # a fresh interpreter reads CROUPIER_URL: the two lines of an autograder
        code = "import croupier; print(croupier.BASE_URL, croupier.phazed_score(['KD', 'AS']))"
        out = subprocess.run([sys.executable, "-c", code], cwd=os.path.join(ROOT, "clients", "python"),
                             env={**os.environ, "CROUPIER_URL": SERVER.url}, capture_output=True, text=True,
                             check=True).stdout.split()
        self.assertEqual(out, [SERVER.url, "38"])


class Games(unittest.TestCase):
    def test_a_game_through_the_client(self):
        cl = croupier.Client(SERVER.url)
        game = cl.create("phazed", [{"name": "me"}, {"bot": "greedy"}, {"bot": "greedy"}, {"bot": "greedy"}],
                         seed=7)
        me = game["seats"][0]["token"]
        note_tokens(me)
        gid = game["id"]
        view = cl.view(gid, me)
        self.assertEqual(view["version"], game["version"])
        self.assertEqual(view["state"]["hand"], game["state"]["hand"])
        self.assertNotIn("hand", cl.view(gid)["state"])  # a spectator sees no hand
        legal = cl.legal(gid, me)
        self.assertIn([1, None], legal)
        hint = cl.hint(gid, me)
        self.assertIn(hint["play"], legal)
        self.assertTrue(hint["explanation"])
        # If-Match: a stale version is refused and changes nothing
        with self.assertRaises(croupier.CroupierError) as e:
            cl.play(gid, me, [1, None], version=view["version"] + 5)
        self.assertEqual(e.exception.status, 412)
        self.assertEqual(e.exception.problem["version"], view["version"])
        self.assertEqual(cl.view(gid, me)["version"], view["version"])
        # a play the rules forbid: 422 with the rule and the legal plays
        with self.assertRaises(croupier.CroupierError) as e:
            cl.play(gid, me, [5, view["state"]["hand"][0]], version=view["version"])
        self.assertEqual(e.exception.status, 422)
        self.assertTrue(e.exception.problem.get("legal"))
        # no token: the server wants one
        with self.assertRaises(croupier.CroupierError) as e:
            cl.play(gid, None, [1, None])
        self.assertEqual(e.exception.status, 401)
        done = cl.play(gid, me, [1, None], version=view["version"])
        self.assertEqual(done["version"], view["version"] + 1)
        self.assertEqual(done["applied"][0]["play"][0], 1)
        hand = done["state"]["hand"]
        done = cl.play(gid, me, [5, hand[-1]], version=done["version"])
        self.assertGreater(len(done["applied"]), 1)  # the bots played after the discard
        events = cl.events(gid, me)
        self.assertEqual([e["n"] for e in events], list(range(1, len(events) + 1)))
        self.assertEqual(cl.events(gid, me, after=len(events) - 1), events[-1:])
        history = cl.plays(gid, me)["plays"]
        self.assertEqual(len(history), len(events))
        self.assertEqual((history[0]["seat"], history[0]["play"][0]), (0, 1))
        # someone else's turn is a 409 (not a 403: the seat is ours)
        if cl.view(gid, me)["state"]["current"] != 0:
            with self.assertRaises(croupier.CroupierError) as e:
                cl.play(gid, me, [1, None])
            self.assertEqual(e.exception.status, 409)

    def test_taking_a_play_back(self):
        cl = croupier.Client(SERVER.url)
        for seed in range(1, 60):
            game = cl.create("comp10001bo", [{"name": "me"}] + [{"bot": "random"}] * 3, seed=seed)
            me = game["seats"][0]["token"]
            note_tokens(me)
            builds = [p for p in cl.legal(game["id"], me) if p[0] == 0 and p[2][0] == 0]
            if builds:
                break
        gid = game["id"]
        before = cl.view(gid, me)
        done = cl.play(gid, me, builds[0], version=before["version"])
        self.assertEqual(len(done["applied"]), 1)  # the turn goes on
        back = cl.take_back(gid, me, version=done["version"])
        self.assertEqual(back["undone"], {"n": done["applied"][0]["n"], "seat": 0, "play": builds[0]})
        self.assertEqual(cl.view(gid, me)["state"], before["state"])
        with self.assertRaises(croupier.CroupierError) as e:  # nothing of ours is left to take back
            cl.take_back(gid, me)
        self.assertIn(e.exception.status, (404,))
        # a discard ends the turn: the bots' plays came after it
        end = [p for p in cl.legal(gid, me) if p[0] == 0 and p[2][0] == 1][0]
        done = cl.play(gid, me, end)
        with self.assertRaises(croupier.CroupierError) as e:
            cl.take_back(gid, me, n=done["applied"][0]["n"])
        self.assertEqual(e.exception.status, 409)
        self.assertEqual(e.exception.problem["type"], "/problems/cannot-take-back")

    def test_unknown_game(self):
        with self.assertRaises(croupier.CroupierError) as e:
            croupier.Client(SERVER.url).view("no-such-game-id-000000")
        self.assertEqual(e.exception.status, 404)
        self.assertEqual(e.exception.problem["status"], 404)

    def test_rules(self):
        rules = croupier.Client().rules("phazed")
        self.assertEqual(rules["game"], "phazed")
        self.assertEqual([g["game"] for g in croupier.Client().rules()["games"]][:1], ["comp10001bo"])


if __name__ == "__main__":
    unittest.main()
