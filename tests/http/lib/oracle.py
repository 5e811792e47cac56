"""The course functions answered by a running Croupier server: the
server-backed reference that tests/http/cases.test.mjs grades with the
generated pytest files (docs/autograder.md). Standard library only.

CROUPIER_URL is the server (http://127.0.0.1:PORT); CROUPIER_VARIANT the
variant every function is asked for (default standard).
"""
import json
import os
import urllib.request


def _call(path, args):
    url = os.environ["CROUPIER_URL"] + path + "?variant=" + os.environ.get("CROUPIER_VARIANT", "standard")
    req = urllib.request.Request(url, data=json.dumps(list(args)).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["result"]


def _tuple(v):
    return tuple(_tuple(x) for x in v) if isinstance(v, list) else v


def _phazed_play(v):
    """A Phazed play as the course writes it: a phase's groups stay lists."""
    if v[0] == 3:
        return (3, (v[1][0], v[1][1]))
    return _tuple(v)


def comp10001bo_match_build(*args):
    return _call("/validate/comp10001bo/match_build", args)


def comp10001bo_match_discard(*args):
    return _call("/validate/comp10001bo/match_discard", args)


def comp10001bo_is_valid_play(*args):
    return _call("/validate/comp10001bo/is_valid_play", args)


def comp10001bo_play(*args):
    return _tuple(_call("/play/comp10001bo", args))


def comp10001bo_bonus(*args):
    return _tuple(_call("/play/comp10001bo/bonus", args))


def phazed_group_type(*args):
    return _call("/validate/phazed/group_type", args)


def phazed_phase_type(*args):
    return _call("/validate/phazed/phase_type", args)


def phazed_is_valid_play(*args):
    return _call("/validate/phazed/is_valid_play", args)


def phazed_score(*args):
    return _call("/validate/phazed/score", args)


def phazed_play(*args):
    return _phazed_play(_call("/play/phazed", args))
