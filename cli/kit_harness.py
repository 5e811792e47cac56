#!/usr/bin/env python3
"""A Croupier autograder suite: generated cases of one course function, and
the harness that checks a student's module against them.

    STUDENT_MODULE=phazed pytest test_phazed_is_valid_play.py
    python3 test_phazed_is_valid_play.py phazed    # without pytest

`croupier cases --format pytest` writes this file with the suite in
SUITE_JSON (docs/autograder.md in the Croupier repository describes the
cases, the shapes and the report). Python 3 standard library only; pytest
for the first form. The plain form exits 0 only when every case passes.

Environment: STUDENT_MODULE (a module name, or a path to a .py file),
CROUPIER_TIMEOUT (seconds per call, default 10), CROUPIER_QUALITY=1 (the
quality bars of play functions count as failures), CROUPIER_SHOW (failures
printed in full by the plain form, default 20). The harness alone
(cli/kit_harness.py, no suite inside) reads the suite from the json file
named by CROUPIER_SUITE.
"""
import collections
import copy
import gc
import importlib
import importlib.util
import json
import os
import signal
import sys

SUITE_JSON = None  # croupier cases --format pytest: the suite, as JSON text


def load_suite():
    if SUITE_JSON is not None:
        return json.loads(SUITE_JSON)
    path = os.environ.get("CROUPIER_SUITE")
    if not path:
        raise SystemExit("no suite: this harness needs CROUPIER_SUITE=<suite.json> "
                         "(croupier cases --format json)")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# --- JSON values to the course's Python values (docs/autograder.md, shapes) ---

def deep_tuple(v):
    if isinstance(v, list):
        return tuple(deep_tuple(x) for x in v)
    return v


def convert(v, shape):
    """The Python value of JSON value v under `shape`."""
    if v is None or shape == "any" or not isinstance(v, list):
        return v
    if shape == "tuple":
        return deep_tuple(v)
    if "tuple" in shape:
        s = shape["tuple"]
        return tuple(convert(x, s[i] if i < len(s) else "any") for i, x in enumerate(v))
    if "tuple_of" in shape:
        return tuple(convert(x, shape["tuple_of"]) for x in v)
    if "list" in shape:
        return [convert(x, shape["list"]) for x in v]
    if "by_first" in shape:
        cases = shape["by_first"]
        key = json.dumps(v[0]) if v else None
        return convert(v, cases.get(key, cases.get("*", "any")))
    raise ValueError("unknown shape %r" % (shape,))


def plain_same(a, v):
    """False only where same(a, convert(v, shape)) is False for every shape:
    Python value a against JSON value v, a tuple and a list alike (an object
    is left to same)."""
    if isinstance(a, (list, tuple)):
        return isinstance(v, list) and len(a) == len(v) and all(plain_same(x, y) for x, y in zip(a, v))
    if isinstance(v, list):
        return False
    return isinstance(a, dict) or a == v


def same(a, b):
    """Equal as the course compares, but True is not 1 and a tuple not a list."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b)))
    return type(a) is type(b) and a == b


# --- the checker of Phazed phase plays ("check": "phazed.phase-play") ---------

_VALUES = "234567890JQKA"


def _is_card(c):
    return (isinstance(c, str) and len(c) == 2 and c[0] in _VALUES and c[1] in "SHDC")


def _rank(c):
    return _VALUES.index(c[0]) + 2


def _wild(c):
    return c[0] == "A"


def _black(c):
    return c[1] in "SC"


def _run_start(g):
    """The value of position 0 of a run (runs wrap K to 2), 0 if not a run."""
    if not 1 <= len(g) <= 12:
        return 0
    start = 0
    for i, c in enumerate(g):
        if _wild(c):
            continue
        s = (_rank(c) - 2 - i) % 12 + 2
        if start and s != start:
            return 0
        start = s
    return start


def group_types(g):
    """phazed_group_type: the sorted group types (1-7) of a list of cards."""
    if not isinstance(g, (list, tuple)) or not g or not all(_is_card(c) for c in g):
        return []
    nat = [c for c in g if not _wild(c)]
    n, t = len(g), set()
    if len(nat) >= 2:
        ranks = {_rank(c) for c in nat}
        if n == 3 and len(ranks) == 1:
            t.add(1)
        if n == 7 and len({c[1] for c in nat}) == 1:
            t.add(2)
        if n == 4 and len(ranks) == 1:
            t.add(3)
        if n == 8 and _run_start(g):
            t.add(4)
        if n == 4 and _run_start(g) and len({_black(c) for c in nat}) == 1:
            t.add(5)
    if sum(1 if _wild(c) else _rank(c) for c in g) == 34:
        t.add(6)
        if len({_black(c) for c in g}) == 1:
            t.add(7)
    return sorted(t)


def phase_types(p):
    """phazed_phase_type: the sorted phase types (1-7) of a list of groups."""
    if not isinstance(p, (list, tuple)) or not 1 <= len(p) <= 2:
        return []
    t = [set(group_types(g)) for g in p]
    r = set()
    if len(p) == 1:
        if 2 in t[0]:
            r.add(2)
        if 4 in t[0]:
            r.add(5)
        return sorted(r)
    both = t[0] & t[1]
    for group, phase in ((1, 1), (6, 3), (3, 4), (7, 6)):
        if group in both:
            r.add(phase)
    if 5 in t[0] and 3 in t[1]:
        r.add(7)
    return sorted(r)


def check_phazed_phase_play(play, args, variant):
    """None when `play` is a phase play the player may make now, else why not."""
    player_id, _table, _history, status, hand, _discard = args
    if not (isinstance(play, tuple) and len(play) == 2 and play[0] == 3
            and isinstance(play[1], tuple) and len(play[1]) == 2):
        return "not a phase play (3, (phase_id, groups))"
    pid, groups = play[1]
    if variant == "bonus":
        allowed = [k + 1 for k in range(7) if not status[player_id][k]]
    else:
        allowed = [status[player_id] + 1] if status[player_id] < 7 else []
    if pid not in allowed:
        return "phase %r is not one the player may play now (%s)" % (pid, allowed)
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        return "the groups of a phase play are a list of lists of cards"
    if pid not in phase_types(groups):
        return "the groups do not form phase %d" % pid
    need = collections.Counter(c for g in groups for c in g)
    have = collections.Counter(hand)
    short = sorted(c for c in need if need[c] > have[c])
    if short:
        return "the hand does not hold %s" % ", ".join(short)
    return None


CHECKERS = {"phazed.phase-play": check_phazed_phase_play}


# --- running a case ----------------------------------------------------------

class Timeout(BaseException):
    """A call's time ran out (a BaseException: `except Exception` in the
    student's code does not swallow it)."""


def _alarm(_sig, _frame):
    raise Timeout()


def call_with_timeout(fn, args, seconds):
    use = hasattr(signal, "setitimer") and seconds > 0
    try:
        if use:
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
    except ValueError:  # not the main thread
        use = False
    try:
        return fn(*args)
    finally:
        if use:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


Result = collections.namedtuple("Result", "case ok message quality")


def case_args(suite, case, fresh=False):
    """The case's arguments as the course function takes them: a copy, or
    (fresh: they were just parsed and serve one call) converted as they are."""
    params = suite["shapes"]["params"]
    return [convert(a if fresh else copy.deepcopy(a), params[i]["shape"] if i < len(params) else "any")
            for i, a in enumerate(case["args"])]


def call_case(fn, suite, case, timeout=None, fresh=False):
    """Call fn on the case's arguments: an outcome, ("value", v), ("raised",
    text), ("timeout", seconds) or ("missing",) (judge_case reads it; the
    grader's parent also builds ("ended", why) when the process died)."""
    if timeout is None:
        timeout = float(os.environ.get("CROUPIER_TIMEOUT", "10"))
    if fn is None:
        return ("missing",)
    try:
        return ("value", call_with_timeout(fn, case_args(suite, case, fresh), timeout))
    except Timeout:
        return ("timeout", timeout)
    except Exception as ex:  # the student's code raised: a failure of this case
        return ("raised", "%s: %s" % (type(ex).__name__, ex))


def judge_case(suite, case, outcome):
    """The Result of a case whose call gave `outcome` (call_case)."""
    ret_shape = suite["shapes"]["return"]

    def fail(text, quality=None):  # the message is written for a failure only
        shown = "%s(%s)" % (suite["course_name"], ", ".join(repr(a) for a in case_args(suite, case)))
        clause = suite["_sentences"].get(case["rule"], "")
        return Result(case, False, "case %d [%s]\n  call:     %s\n%s  clause:   %s\n  why:      %s" % (
            case["id"], case["rule"], shown, text, clause, case.get("why", "")), quality or {})

    kind = outcome[0]
    if kind == "missing":
        return fail("  the module has no function %s\n" % suite["course_name"])
    if kind == "timeout":
        return fail("  no answer within %g s\n" % outcome[1])
    if kind == "raised":
        return fail("  raised:   %s\n" % outcome[1])
    if kind == "ended":
        return fail("  no answer: %s\n" % outcome[1])
    actual = outcome[1]
    if "expected" in case:
        expected = convert(case["expected"], ret_shape)
        if same(actual, expected):
            return Result(case, True, "", {})
        return fail("  expected: %r\n  actual:   %r\n" % (expected, actual))
    legal = case["legal"]
    # converted only where the plain values agree: a play suite's case lists
    # every legal play, and converting them all was most of the grader's time
    ok = any(plain_same(actual, p) and same(actual, convert(p, ret_shape)) for p in legal)
    why_not = None if ok else "not one of the %d legal plays (e.g. %s)" % (
        len(legal), ", ".join(repr(convert(p, ret_shape)) for p in legal[:3]))
    if not ok and case.get("check"):
        checker = CHECKERS.get(case["check"])
        if checker is None:
            why_not = "no checker %r in this harness" % case["check"]
        elif isinstance(actual, tuple) and actual[:1] == (3,):
            why_not = checker(actual, case_args(suite, case), suite["variant"])
            ok = why_not is None
    quality = {}
    for bar, prop in (case.get("quality") or {}).items():
        types = prop.get("play_type")
        quality[bar] = ok and isinstance(actual, tuple) and bool(actual) and (
            types is None or actual[0] in types)
    if not ok:
        return fail("  actual:   %r\n  illegal:  %s\n" % (actual, why_not), quality)
    if os.environ.get("CROUPIER_QUALITY") == "1" and not all(quality.values()):
        missed = ", ".join(b for b, met in quality.items() if not met)
        return fail("  actual:   %r\n  legal, but below the bar %s\n" % (actual, missed), quality)
    return Result(case, True, "", quality)


def run_case(fn, suite, case, timeout=None):
    """Call fn on the case's arguments; a Result (quality: {bar: met})."""
    return judge_case(suite, case, call_case(fn, suite, case, timeout))


def summary(suite, results):
    """The per-clause report: lines of text."""
    count = collections.OrderedDict((c["id"], [0, 0]) for c in suite["clauses"])
    bars = collections.OrderedDict()
    for r in results:
        row = count.setdefault(r.case["rule"], [0, 0])
        row[0] += 1
        row[1] += not r.ok
        for bar, met in r.quality.items():
            b = bars.setdefault(bar, [0, 0])
            b[0] += 1
            b[1] += not met
    width = max([len("clause")] + [len(k) for k in count])
    lines = ["%s (%s), %d cases, seed %s" % (suite["course_name"], suite["variant"], len(results),
                                             suite.get("seed")),
             "%-*s %6s %7s" % (width, "clause", "cases", "failed")]
    for k, (n, bad) in count.items():
        line = "%-*s %6d %7d" % (width, k, n, bad)
        if bad:
            line += "  " + suite["_sentences"].get(k, "")
        lines.append(line)
    failed = sum(not r.ok for r in results)
    lines.append("%-*s %6d %7d" % (width, "total", len(results), failed))
    for bar, (n, missed) in bars.items():
        lines.append("quality bar %s: %d cases, %d below the bar%s" % (
            bar, n, missed, "" if os.environ.get("CROUPIER_QUALITY") == "1" else " (not counted as failures)"))
    return lines


def import_student(name):
    if name.endswith(".py"):
        spec = importlib.util.spec_from_file_location(os.path.basename(name)[:-3], name)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(name)


# --- the sandboxed side of croupier grade (cli/kit_grade.py is the parent) --
# `python3 kit_harness.py --serve` reads one request on stdin: {"module": a
# path to the student's .py file, "course_name", "shapes", "timeout" (per
# call), "import_timeout", "cases": [{"id", "args"}]}: arguments only, never
# an expected answer. It writes one JSON line per event on its stdout
# ({"import": why} or {"ready": true}, {"missing": true}, then {"id": i, "o":
# outcome}); the student's own prints go to stderr. The parent compares.

def encode(v, depth=0):
    """v as JSON that keeps Python's types: {"L": [...]} a list, {"T": [...]}
    a tuple, {"D": [[k, v], ...]} a dict, {"R": repr} anything else."""
    t = type(v)
    if v is None or t in (bool, int, float, str):
        return v
    if depth > 40:
        return {"R": "(nested deeper than 40)"}
    if t is list:
        return {"L": [encode(x, depth + 1) for x in v]}
    if t is tuple:
        return {"T": [encode(x, depth + 1) for x in v]}
    if t is dict:
        return {"D": [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in v.items()]}
    try:
        r = repr(v)
    except Exception:
        r = "(an unprintable %s)" % t.__name__
    return {"R": r[:300]}


def _channel():
    """The answers' channel (our stdout); the student's own prints go to stderr."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(obj, strict=False):
        text = json.dumps(obj, allow_nan=not strict) + "\n"  # raises before anything is written
        out.write(text)
        out.flush()
    return send


def _student_fn(req, send):
    """Import the student's module of req and say so: its function, or None
    (the reason sent)."""
    path = req["module"]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        mod = call_with_timeout(import_student, [path], float(req.get("import_timeout", 10)))
    except Timeout:
        send({"import": "the module was not imported within %g s" % float(req.get("import_timeout", 10))})
        return None
    except BaseException as ex:  # SystemExit, ImportError, SyntaxError ...
        send({"import": "%s: %s" % (type(ex).__name__, ex)})
        return None
    fn = getattr(mod, req["course_name"], None)
    send({"ready": True} if callable(fn) else {"missing": True})
    return fn if callable(fn) else None


def serve():
    send = _channel()
    # The request (a suite's every case, 1.5 MB for Comp10001-Bo's play) is
    # parsed with the cyclic collector off (it ran over the growing tree
    # again and again: 4 times the parse), then frozen out of its sight, so
    # the collections the student's code causes do not walk it either.
    gc.disable()
    req = json.load(sys.stdin)
    gc.freeze()
    gc.enable()
    sys.stdin.close()
    suite = {"shapes": req["shapes"]}
    fn = _student_fn(req, send)
    if fn is None:
        return 0
    timeout = float(req.get("timeout", 10))

    def answer(*args):
        return encode(fn(*args))

    for case in req["cases"]:  # each case's arguments were just parsed and serve this one call
        try:
            o = list(call_case(answer, suite, case, timeout, fresh=True))
        except BaseException as ex:  # SystemExit, KeyboardInterrupt from the student's code
            o = ["raised", "%s: %s" % (type(ex).__name__, ex)]
        send({"id": case["id"], "o": o})
    return 0


# `python3 kit_harness.py --play` (croupier league, cli/league.c): the
# student's play function as a player. The first line on stdin is as for
# --serve without cases; then one line per move, {"args": [...], "seed": n},
# each answered by one line {"o": outcome} once the call returns: ("value",
# the play as plain JSON, tuples as arrays), ("raised", text), ("timeout",
# seconds) or ("invalid", why) for an answer that is not JSON. Python's
# `random` is seeded with the move's seed before each call, so a league is
# the same for the same seed.
def play():
    import random
    send = _channel()
    req = json.loads(sys.stdin.readline())
    suite = {"shapes": req["shapes"]}
    fn = _student_fn(req, send)
    if fn is None:
        return 0
    timeout = float(req.get("timeout", 1))
    for line in sys.stdin:
        move = json.loads(line)
        random.seed(move.get("seed", 0))
        try:
            o = list(call_case(fn, suite, move, timeout, fresh=True))
        except BaseException as ex:  # SystemExit, KeyboardInterrupt from the student's code
            o = ["raised", "%s: %s" % (type(ex).__name__, ex)]
        try:
            send({"o": o}, strict=True)
        except (TypeError, ValueError, RecursionError) as ex:
            send({"o": ["invalid", "the play is not JSON: %s" % str(ex)[:200]]})
    return 0


def prepared_suite():
    suite = load_suite()
    suite["_sentences"] = {c["id"]: c["sentence"] for c in suite["clauses"]}
    return suite


def main(argv):
    name = argv[1] if len(argv) > 1 else os.environ.get("STUDENT_MODULE")
    if not name:
        print("usage: python3 %s STUDENT_MODULE" % os.path.basename(argv[0]), file=sys.stderr)
        return 2
    suite = prepared_suite()
    fn = getattr(import_student(name), suite["course_name"], None)
    results = [run_case(fn, suite, c) for c in suite["cases"]]
    show = int(os.environ.get("CROUPIER_SHOW", "20"))
    bad = [r for r in results if not r.ok]
    for r in bad[:show]:
        print(r.message + "\n")
    if len(bad) > show:
        print("... and %d more failed cases (CROUPIER_SHOW=N prints more)\n" % (len(bad) - show))
    print("\n".join(summary(suite, results)))
    print("%d passed, %d failed" % (len(results) - len(bad), len(bad)))
    return 0 if not bad else 1


# pytest only where pytest collects this file (a suite inside or named):
# importing it costs some 150 ms, which the graders' runners (--serve) and
# the plain form would pay at every start
pytest = None
if __name__ != "__main__" and (SUITE_JSON is not None or os.environ.get("CROUPIER_SUITE")):
    try:
        import pytest
    except ImportError:
        pass

if pytest is not None:
    _SUITE = prepared_suite()
    _RESULTS = []

    class _Report:
        def pytest_terminal_summary(self, terminalreporter):
            terminalreporter.section("Croupier: per-clause report")
            for line in summary(_SUITE, _RESULTS):
                terminalreporter.write_line(line)

    @pytest.fixture(scope="module")
    def student(request):
        name = os.environ.get("STUDENT_MODULE")
        if not name:
            pytest.fail("set STUDENT_MODULE to the student's module (name or path)", pytrace=False)
        if not request.config.pluginmanager.has_plugin("croupier-report"):
            request.config.pluginmanager.register(_Report(), "croupier-report")
        return getattr(import_student(name), _SUITE["course_name"], None)

    @pytest.mark.parametrize("case", _SUITE["cases"], ids=lambda c: "%d-%s" % (c["id"], c["rule"]))
    def test_case(student, case):
        r = run_case(student, _SUITE, case)
        _RESULTS.append(r)
        if not r.ok:
            pytest.fail(r.message, pytrace=False)

if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else play() if sys.argv[1:] == ["--play"] else main(sys.argv))
