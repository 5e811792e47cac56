"""croupier.py: Croupier from Python, standard library only (one file).

Two uses:

1. A reference implementation for an autograder. Every course function the
   server serves (GET /rules: Comp10001-Bo's and Phazed's) is here under its
   course name and parameters and answers by asking the server, with the
   Python value the course's own function returns (tuples where the
   specification has tuples, by the shape the server gives):

       import croupier                        # CROUPIER_URL, or set:
       croupier.BASE_URL = "http://127.0.0.1:8080"
       assert student.phazed_score(hand) == croupier.phazed_score(hand)

   The bonus forms take a keyword argument variant="bonus" (jokers "ZZ",
   Phazed's phase_status as lists of booleans); comp10001bo_bonus is the
   bonus game's play function.

2. A client for stored games: Client(base_url).create(...), .view, .legal,
   .play (with If-Match), .events, .hint, .plays, .rules, .cases.

Every error the server answers (RFC 9457 problem+json) is raised as
CroupierError, which carries the status and the problem document (its
"errors" list names the offending argument by JSON pointer); a server that
cannot be reached is CroupierUnavailable. Seat tokens travel in the
Authorization header, never in a URL.
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "BASE_URL", "TIMEOUT", "Client", "CroupierError", "CroupierUnavailable", "CourseFunction", "functions",
    "from_json", "case_args", "case_expected",
]

#: The server the course functions ask (read at every call).
BASE_URL = os.environ.get("CROUPIER_URL", "http://127.0.0.1:8080")
#: Seconds to wait for one answer.
TIMEOUT = 30.0


class CroupierError(Exception):
    """The server refused a request: .status (int), .problem (the
    problem+json document as a dict, or None), .pointers (the JSON pointers
    of the members it names)."""

    def __init__(self, status, problem, method="", url=""):
        self.status = status
        self.problem = problem if isinstance(problem, dict) else None
        self.method, self.url = method, url
        p = self.problem or {}
        self.pointers = [e.get("pointer") for e in p.get("errors", []) if isinstance(e, dict)]
        text = p.get("detail") or p.get("title") or (problem if isinstance(problem, str) else "")
        where = " at " + ", ".join(x for x in self.pointers if x) if any(self.pointers) else ""
        super().__init__(f"{method} {url}: {status} {p.get('title', '')}: {text}{where}".replace(": : ", ": "))


class CroupierUnavailable(CroupierError):
    """No answer at all (connection refused, time-out, not HTTP)."""

    def __init__(self, reason, method="", url=""):
        super().__init__(0, None, method, url)
        self.args = (f"{method} {url}: no answer from Croupier ({reason}); is the server running "
                     f"(croupier serve), and is BASE_URL / CROUPIER_URL right?",)


# --- from JSON to the course's Python values ----------------------------------
# JSON has only arrays; the courses use tuples. A shape (docs/autograder.md,
# the same grammar as the "shapes" of a generated suite) says where:
#   "any"                     as JSON reads (lists at every depth)
#   "tuple"                   this array and every array inside it: tuples
#   {"tuple": [S0, S1, ...]}  a tuple whose member i has shape Si
#   {"tuple_of": S}           a tuple whose every member has shape S
#   {"list": S}               a list whose every member has shape S
#   {"by_first": {"<v>": S, ..., "*": S}}  by the array's first member (as JSON text)

#: A Comp10001-Bo play: (play_type, source, destination), tuples throughout.
def from_json(value, shape):
    """The Python value of `value` (parsed JSON) under `shape`: the arrays
    the shape calls tuples become tuples."""
    if not isinstance(value, (list, tuple)):
        return value
    if shape == "any":
        return [from_json(v, "any") for v in value]
    if shape == "tuple":
        return tuple(from_json(v, "tuple") for v in value)
    (kind, arg), = shape.items()
    if kind == "tuple":
        return tuple(from_json(v, s) for v, s in zip(value, arg)) if len(arg) == len(value) else tuple(value)
    if kind == "tuple_of":
        return tuple(from_json(v, arg) for v in value)
    if kind == "list":
        return [from_json(v, arg) for v in value]
    if kind == "by_first":
        key = json.dumps(value[0]) if value else None
        return from_json(value, arg.get(key, arg.get("*", "any")))
    raise ValueError(f"unknown shape {shape!r}")


def case_args(suite, case):
    """The arguments of a generated case (Client.cases) as the course's
    function takes them, by the suite's shapes."""
    return [from_json(a, p["shape"]) for a, p in zip(case["args"], suite["shapes"]["params"])]


def case_expected(suite, case):
    """The expected answer of a generated case as the course's function
    returns it (play suites have "legal" lists instead)."""
    return from_json(case["expected"], suite["shapes"]["return"])


# --- HTTP ---------------------------------------------------------------------

class Client:
    """One Croupier server. Every method returns the parsed JSON reply and
    raises CroupierError when the server refuses."""

    def __init__(self, base_url=None, timeout=None):
        self.base_url = (base_url or BASE_URL).rstrip("/")
        self.timeout = TIMEOUT if timeout is None else timeout

    def request(self, method, path, body=None, token=None, headers=None, query=None):
        """One request; returns (status, headers, parsed JSON or text)."""
        url = self.base_url + path
        if query:
            q = {k: v for k, v in query.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        h = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            h["Content-Type"] = "application/json"
        if token:
            h["Authorization"] = "Bearer " + token
        h.update(headers or {})
        req = urllib.request.Request(url, data=data, headers=h, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return r.status, r.headers, _decode(r.read(), r.headers)
        except urllib.error.HTTPError as e:
            raise CroupierError(e.code, _decode(e.read(), e.headers), method, url) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise CroupierUnavailable(getattr(e, "reason", e), method, url) from None

    def get(self, path, token=None, query=None):
        return self.request("GET", path, token=token, query=query)[2]

    # service
    def rules(self, game=None):
        """GET /rules or /rules/{game}: games, variants, play shapes, the
        autograder functions with their parameters."""
        return self.get("/rules" + (f"/{_seg(game)}" if game else ""))

    def call(self, kind, game, fn, args, variant=None):
        """POST /{kind}/{game}[/{fn}] (kind "validate" or "play") with the
        positional arguments; returns the function's result as JSON gives it."""
        path = f"/{kind}/{_seg(game)}" + (f"/{_seg(fn)}" if fn else "")
        return self.request("POST", path, list(args), query={"variant": variant})[2]["result"]

    def cases(self, game, fn, n=None, seed=None, variant=None):
        """GET /cases/{game}/{fn}: a generated suite, the json document of
        docs/autograder.md (case_args / case_expected convert a case)."""
        return self.get(f"/cases/{_seg(game)}/{_seg(fn)}",
                        query={"n": n, "seed": seed, "variant": variant, "format": "json"})

    # stored games
    def create(self, game, players, variant=None, seed=None, options=None):
        """POST /games. players: [{"name": ...} or {"bot": strategy}, ...].
        The reply holds "id", "version", "seats" (each human seat's
        "token") and the creator's view in "state"."""
        body = {"game": game, "players": players}
        for k, v in (("variant", variant), ("seed", seed), ("options", options)):
            if v is not None:
                body[k] = v
        return self.request("POST", "/games", body)[2]

    def view(self, game_id, token=None):
        """GET /games/{id}: the caller's view; "version" is the game's."""
        return self.get(f"/games/{_seg(game_id)}", token)

    def legal(self, game_id, token):
        """GET /games/{id}/legal: the seat's legal plays now ([] when it is
        not its turn), every page of them."""
        path, query, plays = f"/games/{_seg(game_id)}/legal", {"limit": 5000}, []
        while True:
            page = self.get(path, token, query)
            plays += page["plays"]
            if len(plays) >= page.get("total", 0) or not page["plays"]:
                return plays
            query = {"offset": len(plays), "limit": 5000}

    def play(self, game_id, token, play, version=None):
        """POST /games/{id}/plays. With `version`, sent as If-Match: a play
        on a game that moved on since is refused (412) and nothing changes."""
        headers = {"If-Match": f'"{version}"'} if version is not None else None
        return self.request("POST", f"/games/{_seg(game_id)}/plays", {"play": play}, token, headers)[2]

    def take_back(self, game_id, token, n="last", version=None):
        """DELETE /games/{id}/plays/{n}: take back play `n` (default: the
        game's last), the last play of your turn, where the game allows it
        (Comp10001-Bo: a card from the hand or a discard pile; Phazed: a
        phase laid or a card placed). Returns {"version", "undone", "state",
        "status"}; a play that may not be taken back raises CroupierError
        409 cannot-take-back, its reason in problem["detail"]."""
        headers = {"If-Match": f'"{version}"'} if version is not None else None
        return self.request("DELETE", f"/games/{_seg(game_id)}/plays/{_seg(str(n))}", None, token,
                            headers)[2]

    def plays(self, game_id, token=None):
        """GET /games/{id}/plays: the history, as the caller may see it."""
        return self.get(f"/games/{_seg(game_id)}/plays", token)

    def events(self, game_id, token=None, after=0):
        """GET /games/{id}/events: the events numbered above `after`."""
        return self.get(f"/games/{_seg(game_id)}/events", token, {"after": after})

    def hint(self, game_id, token):
        """GET /games/{id}/hint: a recommended play and why."""
        return self.get(f"/games/{_seg(game_id)}/hint", token)


def _seg(s):
    return urllib.parse.quote(str(s), safe="")


def _decode(raw, headers):
    text = raw.decode("utf-8", "replace")
    if "json" in (headers.get("Content-Type") or ""):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


# --- the course functions ------------------------------------------------------
#
# None is written here: they are the server's. GET /rules lists every game's
# course functions with their course name, parameters and the shape of
# their answer, and croupier.<name> is built from that row on first use
# (a module __getattr__, PEP 562), so a game the server adds needs nothing
# of this file.

_CATALOGUES = {}  # BASE_URL -> {course name: CourseFunction}


class CourseFunction:
    """A course function the server serves (a row of GET /rules'
    "functions"), called as the course calls it: positional or keyword
    arguments by the course's parameter names, and variant=... for a
    variant; the answer as the course's Python value (its tuples)."""

    def __init__(self, game, row):
        self.game, self.kind, self.signature = game, row["kind"], row["signature"]
        self.__name__ = self.name = row["name"]
        self.__doc__ = row["signature"]
        rest = row["path"].split("/")[3:]  # /validate/<game>/<fn>, /play/<game>[/<fn>]
        self.fn = rest[0] if rest else None
        self.params = [p["name"] for p in row["params"]]
        self.required = [p["name"] for p in row["params"] if p["required"]]
        self.returns = row.get("returns", "any")

    def __repr__(self):
        return f"<croupier course function {self.signature}>"

    def __call__(self, *args, variant=None, **kwargs):
        if len(args) > len(self.params):
            raise TypeError(f"{self.name}() takes {len(self.params)} arguments, {len(args)} given")
        values = dict(zip(self.params, args))
        for k, v in kwargs.items():
            if k not in self.params:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
            values[k] = v
        missing = [p for p in self.required if p not in values]
        if missing:
            raise TypeError(f"{self.name}() missing required argument(s): {', '.join(missing)}")
        # the optional parameters left out at the end are not sent: the server's defaults
        n = max((i + 1 for i, p in enumerate(self.params) if p in values), default=0)
        result = Client().call(self.kind, self.game, self.fn, [values.get(p) for p in self.params[:n]], variant)
        return from_json(result, self.returns)


def functions():
    """{course name: CourseFunction} of the server at BASE_URL (asked once
    per BASE_URL; CroupierUnavailable when it does not answer)."""
    base = BASE_URL
    if base not in _CATALOGUES:
        fns = {}
        for g in Client(base).rules()["games"]:
            for row in g.get("functions") or []:
                fns[row["name"]] = CourseFunction(g["game"], row)
        _CATALOGUES[base] = fns
    return _CATALOGUES[base]


def _later(name):
    """The course function `name` of a server that has not answered yet:
    asked again at the call (CroupierUnavailable if it still does not)."""
    def call(*args, **kwargs):
        f = functions().get(name)
        if f is None:
            raise AttributeError(f"the server at {BASE_URL} has no course function {name}")
        return f(*args, **kwargs)
    call.__name__ = name
    return call


def __getattr__(name):
    if name.startswith("_") or "_" not in name:
        raise AttributeError(f"module 'croupier' has no attribute {name!r}")
    try:
        fns = functions()
    except CroupierUnavailable:
        return _later(name)
    if name in fns:
        return fns[name]
    raise AttributeError(f"module 'croupier' has no attribute {name!r} (the course functions of the server at "
                         f"{BASE_URL}: {', '.join(sorted(fns)) or 'none'})")
