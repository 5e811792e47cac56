#!/usr/bin/env python3
"""The grader's parent side: `croupier grade` (docs/autograder.md, "Grading a
cohort") runs it once per student, and the Gradescope bundle's run_autograder
once per submission. Python 3 standard library only; built into the binary
beside cli/kit_harness.py, whose checker it uses.

    python3 kit_grade.py --student JOB.json      one student, every suite of JOB
    python3 kit_grade.py --cohort RUN.json       grades.csv, cohort.json, cohort.html
    python3 kit_grade.py --player JOB.json       one student as a player of croupier league
    python3 kit_grade.py --gradescope ROOT       ROOT/submission -> ROOT/results/results.json
    python3 kit_grade.py --zip DIR FILE.zip      DIR's files as FILE.zip

The student's code runs in a process of its own (kit_harness.py --serve),
under bubblewrap when it works here, with rlimits set before exec and a
wall-clock limit that kills its process group. That process is given the
cases' arguments only, over a pipe; the expected answers stay in this
process, which compares.
"""
import csv
import gc
import html
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit_harness as kh  # noqa: E402

NOBODY = 65534
ANSWER_CAP = 64 << 20      # bytes of answers a runner may write
OUTPUT_KEEP = 4096         # bytes of the student's own output kept for the report
RESTARTS = 3               # runners started again after one died mid-suite
SUBMISSION_CAP = 16 << 20  # bytes of a submission copied into the sandbox

DEFAULT_LIMITS = {"call_timeout": 5.0, "import_timeout": 10.0, "wall": 300.0, "cpu": 300,
                  "memory": 1 << 30, "nofile": 64, "nproc": 64, "fsize": 16 << 20, "tmpfs": 64 << 20}


def atomic_write(path, text):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# --- the sandbox --------------------------------------------------------------

def sandbox_python():
    """The python3 the student's code runs on: the system's (bubblewrap binds
    /usr; the user nobody may run it)."""
    for p in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(p, os.X_OK):
            return p
    return sys.executable


def processes_of(uid):
    """How many processes uid runs now (RLIMIT_NPROC counts them all)."""
    n = 0
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/status" % pid, encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        n += int(line.split()[1]) == uid
                        break
        except (OSError, ValueError):
            continue
    return n


def preexec(lim, drop, uid=NOBODY):
    """In the child, before exec: a session of its own, the rlimits, and as
    root the uid nobody (so RLIMIT_NPROC holds and no file of ours is
    writable). Run as another user, RLIMIT_NPROC is that user's processes
    now plus the limit (it counts every process of the uid)."""
    nproc = int(lim["nproc"]) + (0 if drop else processes_of(os.getuid()))

    def f():
        os.setsid()
        cpu = int(lim["cpu"])
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (int(lim["memory"]), int(lim["memory"])))
        resource.setrlimit(resource.RLIMIT_NOFILE, (int(lim["nofile"]), int(lim["nofile"])))
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(lim["fsize"]), int(lim["fsize"])))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if drop:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
    return f


def bwrap_args(stage, lim):
    cmd = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
           "--ro-bind", "/usr", "/usr"]
    for d in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(d):
            cmd += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
    for f in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime"):
        if os.path.exists(f):
            cmd += ["--ro-bind", f, f]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(int(lim["tmpfs"])), "--tmpfs", "/tmp",
            "--ro-bind", os.path.join(stage, "croupier"), "/croupier",
            "--ro-bind", os.path.join(stage, "submission"), "/submission",
            "--chdir", "/submission", "--"]
    return cmd


# The student's whole environment. Python runs with -s (no user site), not
# -I: -I would ignore PYTHONHASHSEED, and a student whose code iterates a
# set of strings would then play differently in every run (found by a
# league of public student code); nothing else of ours is in PYTHON*.
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
       "PYTHONHASHSEED": "0"}


def probe_bwrap(lim, drop, uid):
    """'bwrap' when bubblewrap runs a sandbox here, else why not."""
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed"
    stage = tempfile.mkdtemp(prefix="croupier-probe-")
    try:
        os.chmod(stage, 0o755)
        for d in ("croupier", "submission"):
            os.mkdir(os.path.join(stage, d), 0o755)
        r = subprocess.run(bwrap_args(stage, lim) + ["true"], env=ENV, preexec_fn=preexec(lim, drop, uid),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=30)
        if r.returncode == 0:
            return "bwrap"
        return "bubblewrap cannot make a sandbox here: %s" % r.stderr.decode("utf-8", "replace").strip()
    except (OSError, subprocess.SubprocessError) as ex:
        return "bubblewrap cannot make a sandbox here: %s" % ex
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def copy_submission(src, dst):
    """Regular files and folders of src (a .py file or a folder) into dst,
    readable by all, no symbolic link followed; the module's path inside."""
    os.makedirs(dst, 0o755, exist_ok=True)
    total = 0
    if os.path.isfile(src):
        shutil.copyfile(src, os.path.join(dst, os.path.basename(src)))
        os.chmod(os.path.join(dst, os.path.basename(src)), 0o644)
        return
    for root, dirs, files in os.walk(src, followlinks=False):
        rel = os.path.relpath(root, src)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d)) and d != "__pycache__"]
        for d in dirs:
            os.makedirs(os.path.join(dst, rel, d), 0o755, exist_ok=True)
        for name in files:
            p = os.path.join(root, name)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            total += os.path.getsize(p)
            if total > SUBMISSION_CAP:
                raise ValueError("the submission is larger than %d MiB" % (SUBMISSION_CAP >> 20))
            shutil.copyfile(p, os.path.join(dst, rel, name))
            os.chmod(os.path.join(dst, rel, name), 0o644)


class SandboxUnavailable(RuntimeError):
    """--sandbox bwrap, where bubblewrap cannot make a sandbox: the run stops."""


class Sandbox:
    """Where one student's code runs: a staged copy of the submission and of
    the harness, under bubblewrap ('bwrap') or, where it cannot run, plainly
    with the rlimits ('rlimits')."""

    def __init__(self, submission, module, harness, lim, want, uid=NOBODY):
        self.lim = lim
        self.drop = os.getuid() == 0
        self.uid = uid
        self.warnings = []
        self.kind = "rlimits"
        why = "--sandbox none"
        if want == "bwrap-probed":  # croupier league: bubblewrap ran here for a student before
            self.kind = "bwrap"
        elif want in ("auto", "bwrap"):
            why = probe_bwrap(lim, self.drop, uid)
            if why == "bwrap":
                self.kind = "bwrap"
            elif want == "bwrap":
                raise SandboxUnavailable(why)
        if self.kind != "bwrap":
            self.warnings.append("no sandbox: %s; the student's code ran with rlimits only (CPU, memory, "
                                 "files, processes, file size) in a fresh process%s: it could use the "
                                 "network and read what its uid may read" % (
                                     why, " as the user nobody" if self.drop else ""))
        self.stage = tempfile.mkdtemp(prefix="croupier-sandbox-")
        os.chmod(self.stage, 0o755)
        os.mkdir(os.path.join(self.stage, "croupier"), 0o755)
        shutil.copyfile(harness, os.path.join(self.stage, "croupier", "kit_harness.py"))
        os.chmod(os.path.join(self.stage, "croupier", "kit_harness.py"), 0o644)
        copy_submission(submission, os.path.join(self.stage, "submission"))
        if self.kind == "bwrap":
            self.cmd = bwrap_args(self.stage, lim) + [sandbox_python(), "-s", "/croupier/kit_harness.py"]
            self.cwd = "/"
            self.module = "/submission/" + module
        else:
            self.cmd = [sandbox_python(), "-s", os.path.join(self.stage, "croupier", "kit_harness.py")]
            self.cwd = os.path.join(self.stage, "submission")
            self.module = os.path.join(self.cwd, module)
        # the harness's mode comes after: --serve (grading), --play (a league)

    def close(self):
        shutil.rmtree(self.stage, ignore_errors=True)

    def run(self, request, wall):
        """One runner: (lines of answers, how it ended, output bytes, output head)."""
        p = subprocess.Popen(self.cmd + ["--serve"], cwd=self.cwd, env=ENV, preexec_fn=preexec(self.lim, self.drop, self.uid),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             close_fds=True)
        lines, state = [], {"answers": 0, "out": 0, "head": b"", "capped": False}

        def write():
            try:
                p.stdin.write(request)
                p.stdin.close()
            except OSError:
                pass

        def read_answers():
            for line in p.stdout:
                state["answers"] += len(line)
                if state["answers"] > ANSWER_CAP:
                    state["capped"] = True
                    kill(p)
                    break
                lines.append(line)

        threads = [threading.Thread(target=t, daemon=True)
                   for t in (write, read_answers, lambda: drain_output(p.stderr, state))]
        for t in threads:
            t.start()
        late = False
        try:
            p.wait(timeout=max(wall, 0.1))
        except subprocess.TimeoutExpired:
            late = True
        kill(p)
        p.wait()
        reap_orphans()
        if self.drop:
            kill_uid(self.uid)
        for t in threads:
            t.join(timeout=5)
        if late:
            ended = "late"
        elif state["capped"]:
            ended = "capped"
        else:
            ended = p.returncode
        return lines, ended, state["out"], state["head"]


def drain_output(f, state):
    """Read what the student's code printed to its end: state["out"] counts
    the bytes, state["head"] keeps the first OUTPUT_KEEP."""
    while True:
        b = f.read(65536)
        if not b:
            break
        state["out"] += len(b)
        if len(state["head"]) < OUTPUT_KEEP:
            state["head"] += b[:OUTPUT_KEEP - len(state["head"])]


def kill(p):
    """SIGKILL the runner's process group (bubblewrap's pid namespace goes with it)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass


def subreaper():
    """Make this process the reaper of its orphaned descendants (Linux
    PR_SET_CHILD_SUBREAPER): bubblewrap's helper, orphaned when the runner's
    group is killed, is then ours to reap at once (reap_orphans) instead of
    a zombie left to PID 1, which in a container may reap late (seen: half
    a second, as long as the whole suite's calls)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap_orphans():
    """Reap every child that has ended (call only when no subprocess of ours
    is being waited for)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_uid(uid):
    """SIGKILL every process of uid (a student's uid of its own: what escaped
    the process group, and what would count against the next student's
    RLIMIT_NPROC). A zombie has ended already: it is not waited for."""
    for _ in range(10):
        pids = []
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/status" % pid, encoding="ascii", errors="replace") as f:
                    mine = zombie = False
                    for line in f:
                        if line.startswith("State:"):
                            zombie = line.split()[1] == "Z"
                        elif line.startswith("Uid:"):
                            mine = int(line.split()[1]) == uid
                            break
                    if mine and not zombie:
                        pids.append(int(pid))
            except (OSError, ValueError, IndexError):
                continue
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def why_ended(ended, lim, wall):
    if ended == "late":
        return "the student's time ran out (%g s of wall-clock time for the suite)" % wall
    if ended == "capped":
        return "the process wrote more than %d MiB of answers" % (ANSWER_CAP >> 20)
    if ended < 0:
        sig = -ended
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        hint = {signal.SIGXCPU: " (the CPU limit, %d s)" % lim["cpu"],
                signal.SIGKILL: " (the CPU limit, %d s, or killed)" % lim["cpu"],
                signal.SIGSEGV: " (a crash)", signal.SIGXFSZ: " (a file past %d MiB)" % (lim["fsize"] >> 20)
                }.get(sig, "")
        return "the process was killed by %s%s" % (name, hint)
    return "the process exited with status %d (sys.exit or os._exit in the student's code?)" % ended


# --- grading one suite ----------------------------------------------------------

class Opaque:
    """A returned value of no JSON type: equal to nothing."""

    def __init__(self, r):
        self.r = r

    def __repr__(self):
        return self.r


def decode(v):
    if isinstance(v, dict):
        if "L" in v:
            return [decode(x) for x in v["L"]]
        if "T" in v:
            return tuple(decode(x) for x in v["T"])
        if "D" in v:
            try:
                return {decode(k): decode(x) for k, x in v["D"]}
            except TypeError:
                return Opaque("(a dict)")
        return Opaque(str(v.get("R", "?")))
    return v


def outcome_of(o):
    """An answer line's outcome; whatever the student's code wrote there."""
    bad = ("ended", "the process wrote a line that is not an answer")
    if not isinstance(o, list) or len(o) not in (1, 2) or o[0] not in ("value", "raised", "timeout", "missing"):
        return bad
    arg = o[1] if len(o) > 1 else None
    try:
        if o[0] == "value":
            return ("value", decode(arg))
        if o[0] == "timeout":
            return ("timeout", float(arg))
    except (RecursionError, TypeError, ValueError):
        return bad
    return ("raised", str(arg)[:2000]) if o[0] == "raised" else ("missing",)


def outcomes(box, suite, lim):
    """{case id: outcome} for every case of the suite, and notes."""
    pending = [c["id"] for c in suite["cases"]]
    byid = {c["id"]: c for c in suite["cases"]}
    waiting = set(pending)
    got, notes, out = {}, [], {"bytes": 0, "head": b""}
    deadline = time.monotonic() + lim["wall"]
    restarts = 0
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            for i in pending:
                got[i] = ("ended", why_ended("late", lim, lim["wall"]))
            break
        req = json.dumps({"module": box.module, "course_name": suite["course_name"], "shapes": suite["shapes"],
                          "timeout": lim["call_timeout"], "import_timeout": lim["import_timeout"],
                          "cases": [{"id": i, "args": byid[i]["args"]} for i in pending]}).encode()
        lines, ended, nout, head = box.run(req, left)
        out["bytes"] += nout
        if len(out["head"]) < OUTPUT_KEEP:
            out["head"] += head[:OUTPUT_KEEP - len(out["head"])]
        ready, stop = False, None
        for line in lines:
            try:
                m = json.loads(line)
            except (ValueError, RecursionError):
                m = {}
            if not isinstance(m, dict):
                m = {}
            if "import" in m:
                stop = ("ended", "the module could not be imported: %s" % m["import"])
            elif m.get("ready"):
                ready = True
            elif m.get("missing"):
                stop = ("missing",)
            elif type(m.get("id")) is int and m["id"] in waiting:
                got[m["id"]] = outcome_of(m.get("o"))
                waiting.discard(m["id"])
        pending = [i for i in pending if i in waiting]
        if stop:
            for i in pending:
                got[i] = stop
            break
        if not pending:
            break
        why = why_ended(ended, lim, lim["wall"])
        if ended == "late" or not ready:
            if not ready:
                why = "the module ended the process while being imported: " + why
            for i in pending:
                got[i] = ("ended", why)
            break
        first = pending.pop(0)
        waiting.discard(first)
        got[first] = ("ended", why)
        restarts += 1
        notes.append("case %d: %s; started again for the rest" % (first, why))
        if restarts > RESTARTS:
            for i in pending:
                got[i] = ("ended", why + " (gave up after %d restarts)" % RESTARTS)
            notes.append("gave up after %d restarts" % RESTARTS)
            break
    return got, notes, out


def case_size(case):
    return len(json.dumps(case["args"]))


def grade_suite(box, suite, lim):
    if isinstance(box, Unrun):
        got, notes, out = box.got, [], {"bytes": 0, "head": b""}
    else:
        got, notes, out = outcomes(box, suite, lim)
    def judged(c):
        try:
            return kh.judge_case(suite, c, got[c["id"]])
        except Exception as ex:  # a returned value the checks cannot take (nested past the stack ...)
            return kh.judge_case(suite, c, ("ended", "the answer could not be judged (%s)" % type(ex).__name__))

    results = [judged(c) for c in suite["cases"]]
    clauses = []
    for cl in suite["clauses"]:
        mine = [r for r in results if r.case["rule"] == cl["id"]]
        bad = sorted((r for r in mine if not r.ok), key=lambda r: (case_size(r.case), r.case["id"]))
        ex = None
        if bad:
            c = bad[0].case
            ex = {"id": c["id"], "args": c["args"], "message": bad[0].message, "size": case_size(c)}
            for k in ("expected", "legal", "check"):
                if k in c:
                    ex[k] = c[k] if k != "legal" else c[k][:5]
        clauses.append({"id": cl["id"], "sentence": cl["sentence"], "cases": len(mine), "failed": len(bad),
                        "example": ex})
    passed = sum(r.ok for r in results)
    # no case reached the function (not in the module, or no module to run): the
    # cohort counts such a student apart, not as failing every clause
    absent = bool(results) and all(got.get(c["id"], ("",))[0] in ("missing", "ended") for c in suite["cases"]) \
        and len({got.get(c["id"]) for c in suite["cases"]}) == 1
    return {"suite": "%s/%s/%s" % (suite["game"], suite["fn"], suite["variant"]), "game": suite["game"],
            "absent": absent,
            "fn": suite["fn"], "course_name": suite["course_name"], "variant": suite["variant"],
            "seed": suite["seed"], "cases": len(results), "passed": passed, "failed": len(results) - passed,
            "score": round(passed / len(results), 4) if results else 0.0, "clauses": clauses,
            "summary": kh.summary(suite, results), "notes": notes,
            "output": {"bytes": out["bytes"], "head": out["head"].decode("utf-8", "replace")}}


def load_suite(path):
    with open(path, encoding="utf-8") as f:
        suite = json.load(f)
    suite["_sentences"] = {c["id"]: c["sentence"] for c in suite["clauses"]}
    return suite


def find_module(submission, module):
    """The module's file name inside the submission, or why there is none."""
    if os.path.isfile(submission):
        return os.path.basename(submission), None
    if module:
        name = module if module.endswith(".py") else module + ".py"
        if os.path.isfile(os.path.join(submission, name)):
            return name, None
        return None, "the submission has no %s" % name
    py = sorted(f for f in os.listdir(submission) if f.endswith(".py") and os.path.isfile(os.path.join(submission, f)))
    if len(py) == 1:
        return py[0], None
    if not py:
        return None, "the submission holds no .py file"
    return None, "the submission holds several .py files (%s): --module names the one to grade" % ", ".join(py)


def grade_student(student, submission, module, suites, lim, sandbox, harness, uid=NOBODY):
    """The student's record: every suite graded."""
    t0 = time.monotonic()
    rec = {"student": student, "sandbox": None, "warnings": [], "suites": []}
    name, why = find_module(submission, module)
    box = None
    try:
        if name:
            box = Sandbox(submission, name, harness, lim, sandbox, uid)
            rec["sandbox"], rec["warnings"] = box.kind, box.warnings
    except (OSError, ValueError) as ex:
        why = str(ex)
    try:
        for path in suites:
            suite = load_suite(path)
            if box is None:
                got = {c["id"]: ("ended", why) for c in suite["cases"]}
                r = grade_suite(Unrun(got), suite, lim)
            else:
                r = grade_suite(box, suite, lim)
            rec["suites"].append(r)
    finally:
        if box:
            box.close()
    if why:
        rec["warnings"].append(why)
    rec["module"] = name
    rec["passed"] = sum(s["passed"] for s in rec["suites"])
    rec["failed"] = sum(s["failed"] for s in rec["suites"])
    total = rec["passed"] + rec["failed"]
    rec["score"] = round(rec["passed"] / total, 4) if total else 0.0
    rec["seconds"] = round(time.monotonic() - t0, 3)
    return rec


class Unrun:
    """No sandbox (no module to run): every case already has its outcome."""

    def __init__(self, got):
        self.got = got


# --- what a student's record becomes -------------------------------------------

def report_text(rec):
    lines = ["%s: %d passed, %d failed (score %.4f)%s" % (
        rec["student"], rec["passed"], rec["failed"], rec["score"],
        ", sandbox: %s" % rec["sandbox"] if rec["sandbox"] else "")]
    for w in rec["warnings"]:
        lines.append("warning: " + w)
    for s in rec["suites"]:
        lines.append("")
        lines += s["summary"]
        lines.append("%d passed, %d failed" % (s["passed"], s["failed"]))
        for n in s["notes"]:
            lines.append("note: " + n)
        if s["output"]["bytes"]:
            lines.append("note: the code printed %d bytes (first %d below)" % (
                s["output"]["bytes"], min(OUTPUT_KEEP, s["output"]["bytes"])))
            lines += ["  | " + x for x in s["output"]["head"].splitlines()[:20]]
        for c in s["clauses"]:
            if c["example"]:
                lines.append("")
                lines.append("smallest failing case of %s (%d of %d failed):" % (c["id"], c["failed"], c["cases"]))
                lines.append(c["example"]["message"])
    return "\n".join(lines) + "\n"


def gradescope(rec, visibility="visible"):
    """Gradescope's results.json (its autograder specification): a test per
    clause of each suite, scored by the cases passed."""
    tests = []
    for k, s in enumerate(rec["suites"]):
        for j, c in enumerate(c for c in s["clauses"] if c["cases"]):
            out = c["sentence"]
            if c["example"]:
                out += "\n\n%d of %d cases failed; the smallest:\n%s" % (c["failed"], c["cases"],
                                                                       c["example"]["message"])
            tests.append({"name": "%s (%s): %s" % (s["course_name"], s["variant"], c["id"]),
                          "number": "%d.%d" % (k + 1, j + 1), "score": c["cases"] - c["failed"],
                          "max_score": c["cases"], "status": "failed" if c["failed"] else "passed",
                          "output": out, "tags": [s["course_name"], c["id"]], "visibility": visibility})
    output = "\n".join(["%s: %d of %d cases passed" % (s["course_name"], s["passed"], s["cases"])
                        for s in rec["suites"]] + ["warning: " + w for w in rec["warnings"]])
    return {"score": rec["passed"], "execution_time": int(round(rec["seconds"])), "output": output,
            "visibility": visibility, "stdout_visibility": "hidden", "tests": tests,
            "leaderboard": [{"name": "cases passed", "value": rec["passed"]},
                            {"name": "clauses failed", "value": sum(1 for s in rec["suites"] for c in s["clauses"]
                                                                    if c["failed"]), "order": "asc"}]}


EXIT_NO_SANDBOX = 3  # --sandbox bwrap where bubblewrap cannot run: cli/grade.c stops the run


def cmd_student(job_path):
    subreaper()
    # One student's grader lives a few seconds and makes no garbage cycles
    # worth collecting; with the collector on, parsing the suites (hundreds of
    # thousands of lists) cost 4 times the parse (a Comp10001-Bo play suite:
    # 200 ms, 50 ms without).
    gc.disable()
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    lim = dict(DEFAULT_LIMITS, **job.get("limits", {}))
    try:
        rec = grade_student(job["student"], job["submission"], job.get("module"), job["suites"], lim,
                            job.get("sandbox", "auto"), job["harness"], int(job.get("uid", NOBODY)))
    except SandboxUnavailable as ex:
        sys.stderr.write("croupier grade: --sandbox bwrap: %s\n" % str(ex).replace("\n", " "))
        return EXIT_NO_SANDBOX
    rec["params"] = job["params"]
    out = job["out"]
    os.makedirs(os.path.dirname(out["gradescope"]), exist_ok=True)
    atomic_write(out["text"], report_text(rec))
    atomic_write(out["gradescope"], json.dumps(gradescope(rec, job.get("visibility", "visible")), indent=1) + "\n")
    atomic_write(out["json"], json.dumps(rec, indent=1) + "\n")  # last: the record says the student is done
    return 0


# --- a player of croupier league (cli/league.c) ---------------------------------

def cmd_player(job_path):
    """One student as a player: its code started in its sandbox (as for
    grading) as `kit_harness.py --play`, on our stdin and stdout (the league
    talks to it directly). The first line out is ours: {"sandbox": kind,
    "warnings": [...], "head": the first line the league sends it}, or
    {"import": why} when there is nothing to run. Ends when the student's
    process does (the league closed its stdin, or it died) or at SIGTERM;
    the student's processes and its staged copy go with us."""
    subreaper()
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    lim = dict(DEFAULT_LIMITS, **job.get("limits", {}))
    uid = int(job.get("uid", NOBODY))

    def say(obj):
        os.write(1, (json.dumps(obj) + "\n").encode())

    name, why = find_module(job["submission"], job.get("module"))
    if not name:
        say({"import": why})
        return 0
    try:
        box = Sandbox(job["submission"], name, job["harness"], lim, job.get("sandbox", "auto"), uid)
    except SandboxUnavailable as ex:
        say({"import": "--sandbox bwrap: %s" % ex})
        return EXIT_NO_SANDBOX
    except (OSError, ValueError) as ex:
        say({"import": str(ex)})
        return 0
    p = None

    def stop(_sig=None, _frame=None):
        if p is not None:
            kill(p)
        if box.drop:
            kill_uid(box.uid)
        box.close()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        head = {"module": box.module, "course_name": job["course_name"], "shapes": job["shapes"],
                "timeout": lim["call_timeout"], "import_timeout": lim["import_timeout"]}
        say({"sandbox": box.kind, "warnings": box.warnings, "head": head})
        p = subprocess.Popen(box.cmd + ["--play"], cwd=box.cwd, env=ENV,
                             preexec_fn=preexec(lim, box.drop, box.uid), stdin=0, stdout=1,
                             stderr=subprocess.DEVNULL, close_fds=True)
        # the pipes are the student's alone now: its end, and the league's, are seen at once
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        p.wait()
    except OSError:
        pass
    stop()
    return 0


# --- the cohort -------------------------------------------------------------------

def cohort(records, params):
    suites = {}
    for rec in records:
        for s in rec["suites"]:
            row = suites.setdefault(s["suite"], {"suite": s["suite"], "course_name": s["course_name"],
                                                 "variant": s["variant"], "students": 0, "students_absent": 0,
                                                 "absent": [], "clauses": {}})
            row["students"] += 1
            if s.get("absent"):  # the function never ran: counted apart, not in the clauses
                row["students_absent"] += 1
                row["absent"].append(rec["student"])
            for c in s["clauses"]:
                cl = row["clauses"].setdefault(c["id"], {"id": c["id"], "sentence": c["sentence"],
                                                         "students_failing": 0, "example": None})
                if c["failed"] and not s.get("absent"):
                    cl["students_failing"] += 1
                    e = cl["example"]
                    if e is None or c["example"]["size"] < e["size"]:
                        cl["example"] = dict(c["example"], student=rec["student"])
    out = []
    for row in suites.values():
        cls = list(row["clauses"].values())
        for cl in cls:
            ran = row["students"] - row["students_absent"]
            cl["share"] = round(cl["students_failing"] / ran, 4) if ran else 0.0
        row["clauses"] = cls
        out.append(row)
    return {"params": params, "students": len(records), "suites": out}


def cohort_html(doc):
    e = html.escape
    parts = ["<!doctype html><html lang=en><meta charset=utf-8><title>Croupier: the cohort by clause</title>",
             "<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}"
             "td.n{text-align:right}pre{margin:0;white-space:pre-wrap;max-width:60em}</style>",
             "<h1>The cohort by clause</h1><p>%d students; game %s, variant %s, %s cases a suite, seed %s.</p>" % (
                 doc["students"], e(str(doc["params"].get("game"))), e(str(doc["params"].get("variant"))),
                 e(str(doc["params"].get("n"))), e(str(doc["params"].get("seed"))))]
    for s in doc["suites"]:
        parts.append("<h2>%s (%s)</h2><table><tr><th>clause</th><th>students failing</th><th>share</th>"
                     "<th>rule</th><th>smallest failing case</th></tr>" % (e(s["course_name"]), e(s["variant"])))
        if s.get("students_absent"):
            parts.insert(len(parts) - 1, "<p>%d of %d students have no %s that runs (%s): not counted in the "
                         "shares below.</p>" % (s["students_absent"], s["students"], e(s["course_name"]),
                                                e(", ".join(s["absent"]))))
        for c in sorted(s["clauses"], key=lambda c: -c["students_failing"]):
            ex = c["example"]
            parts.append("<tr><td><code>%s</code></td><td class=n>%d</td><td class=n>%.0f%%</td><td>%s</td>"
                         "<td>%s</td></tr>" % (e(c["id"]), c["students_failing"], 100 * c["share"], e(c["sentence"]),
                                               "<pre>%s</pre>" % e(ex["message"]) if ex else ""))
        parts.append("</table>")
    return "\n".join(parts) + "\n</html>\n"


def cmd_cohort(run_path):
    with open(run_path, encoding="utf-8") as f:
        run = json.load(f)
    out = run["out"]
    records = []
    for student in run["students"]:
        with open(os.path.join(out, "students", student + ".json"), encoding="utf-8") as f:
            records.append(json.load(f))
    with open(os.path.join(out, "grades.csv.tmp"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["student", "suite", "passed", "failed", "score"])
        for rec in records:
            for s in rec["suites"]:
                w.writerow([rec["student"], s["suite"], s["passed"], s["failed"], "%.4f" % s["score"]])
    os.replace(os.path.join(out, "grades.csv.tmp"), os.path.join(out, "grades.csv"))
    doc = cohort(records, run["params"])
    atomic_write(os.path.join(out, "cohort.json"), json.dumps(doc, indent=1) + "\n")
    atomic_write(os.path.join(out, "cohort.html"), cohort_html(doc))
    return 0


# --- Gradescope -------------------------------------------------------------------

def cmd_gradescope(root):
    """run_autograder: ROOT/submission graded with the bundle's suites
    (ROOT/source/grade.json), ROOT/results/results.json written."""
    src = os.path.join(root, "source")
    with open(os.path.join(src, "grade.json"), encoding="utf-8") as f:
        conf = json.load(f)
    lim = dict(DEFAULT_LIMITS, **conf.get("limits", {}))
    subreaper()
    suites = [os.path.join(src, p) for p in conf["suites"]]
    for p in suites:  # the expected answers: ours alone, whatever the unzip kept
        os.chmod(p, 0o600)
    try:
        rec = grade_student("submission", os.path.join(root, "submission"), conf.get("module"), suites, lim,
                            conf.get("sandbox", "auto"), os.path.join(src, "kit_harness.py"))
    except SandboxUnavailable as ex:
        sys.stderr.write("croupier autograder: --sandbox bwrap: %s\n" % str(ex).replace("\n", " "))
        return EXIT_NO_SANDBOX
    os.makedirs(os.path.join(root, "results"), exist_ok=True)
    atomic_write(os.path.join(root, "results", "results.json"),
                 json.dumps(gradescope(rec, conf.get("visibility", "visible")), indent=1) + "\n")
    print(report_text(rec))
    return 0


def cmd_zip(src, dst):
    tmp = dst + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(os.listdir(src)):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            mode = 0o755 if name in ("setup.sh", "run_autograder") else 0o600 if name.startswith("suite-") else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(os.path.join(src, name), "rb") as f:
                z.writestr(info, f.read())
    os.replace(tmp, dst)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--student":
        return cmd_student(argv[2])
    if len(argv) == 3 and argv[1] == "--player":
        return cmd_player(argv[2])
    if len(argv) == 3 and argv[1] == "--cohort":
        return cmd_cohort(argv[2])
    if len(argv) == 3 and argv[1] == "--gradescope":
        return cmd_gradescope(argv[2])
    if len(argv) == 4 and argv[1] == "--zip":
        return cmd_zip(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
