"""run_kit.py: the generated suites find real bugs.

For every suite of the autograder kit (docs/autograder.md: each course
function of Comp10001-Bo and Phazed, standard and bonus), this writes the
self-contained test file with `croupier cases --format pytest` and runs it
in its plain mode (`python3 FILE MODULE`) against the kit's own
implementation (comp10001bo.py, phazed.py): every case must pass. Then
against each mutant that mutants.py lists for that suite (KIT_MUTANT=name):
the suite must fail. It prints, for every run, which clauses failed and how
often (the per-clause report of the test file), and ends with one line
"kit: N passed, N failed" (one check per run) for tests/run.sh.

    python3 tests/kit/run_kit.py [--n 1000] [--seed 1] [--only GAME[/FN[/VARIANT]]]
                                 [--keep DIR] [--jobs 2]

Environment: CROUPIER_BIN (default build/croupier).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from mutants import MUTANTS, gap  # noqa: E402
from server import binary  # noqa: E402

# The suites come from the binary's registry (`croupier cases --list`),
# never from a list here: a game added to the registry has its suites run
# (and fails the kit until tests/kit/<game>.py, its reference "student",
# and its mutants are written), instead of being skipped.
MIN_MUTANTS = 5
CLAUSE_ROW = re.compile(r"^\s*([a-z0-9][a-z0-9_.-]*\.[a-z0-9_.-]+)\s+(\d+)\s+(\d+)\b")


def mutants_for(suite):
    return [name for name, suites, _ in MUTANTS if suite in suites]


def generated_suites():
    """The suites the binary generates: (game, fn, variant) of `croupier cases --list`."""
    out = subprocess.run([binary(), "cases", "--list"], check=True, capture_output=True, text=True).stdout
    return {tuple(line.split()[:3]) for line in out.splitlines()[1:] if line.strip()}


def write_suite(suite, n, seed, out):
    game, fn, variant = suite
    subprocess.run([binary(), "cases", "--game", game, "--fn", fn, "--variant", variant, "--n", str(n),
                    "--seed", str(seed), "--format", "pytest", "--out", out], check=True,
                   capture_output=True, text=True)


def run_suite(path, module, mutant):
    """(exit status, {clause: (cases, failed)}, output) of the plain mode.
    The implementation must also meet the course's quality bars
    (CROUPIER_QUALITY=1: a play below a bar fails its case)."""
    env = {**os.environ, "PYTHONPATH": HERE, "KIT_MUTANT": mutant or "", "CROUPIER_QUALITY": "0" if mutant else "1"}
    env.pop("STUDENT_MODULE", None)
    p = subprocess.run([sys.executable, path, module], cwd=os.path.dirname(path), env=env,
                       capture_output=True, text=True, timeout=1800)
    clauses = {}
    for line in p.stdout.splitlines():
        m = CLAUSE_ROW.match(line)
        if m:
            clauses[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return p.returncode, clauses, p.stdout + p.stderr


def describe(clauses):
    failed = [(c, n, f) for c, (n, f) in clauses.items() if f]
    if not failed:
        return "no clause failed"
    return ", ".join(f"{c} {f}/{n}" for c, n, f in sorted(failed, key=lambda x: (-x[2], x[0])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    problems = []
    known = generated_suites()
    listed = {s for _, suites, _ in MUTANTS for s in suites}
    for s in sorted(listed - known):
        problems.append(f"mutants.py lists a suite that does not exist: {s}")
    suites = sorted(s for s in known if "/".join(s).startswith(args.only))
    games = sorted({g for g, _, _ in known})
    for g in sorted({g for g, _, _ in suites}):
        if not os.path.exists(os.path.join(HERE, f"{g}.py")):
            problems.append(f"{g}: the registry has its suites, tests/kit/{g}.py (its reference implementation) is missing")
    for s in suites:
        caught = [m for m in mutants_for(s) if not gap(m, s)]
        if len(caught) < MIN_MUTANTS:
            problems.append(f"{'/'.join(s)}: {len(caught)} mutants (gaps aside), fewer than {MIN_MUTANTS}")
    code = "".join(open(os.path.join(HERE, f"{g}.py")).read() for g in games if os.path.exists(os.path.join(HERE, f"{g}.py")))
    for name, _, _ in MUTANTS:
        if f'bug("{name}")' not in code:
            problems.append(f"mutant {name}: no bug(\"{name}\") in any game's module ({', '.join(f'{g}.py' for g in games)})")

    work = args.keep or tempfile.mkdtemp(prefix="croupier-kit-")
    os.makedirs(work, exist_ok=True)
    passed = failed = 0

    def one(suite):
        game, fn, variant = suite
        path = os.path.join(work, f"test_{game}_{fn}_{variant}.py")
        write_suite(suite, args.n, args.seed, path)
        runs = [(None, run_suite(path, game, None))]
        runs += [(m, run_suite(path, game, m)) for m in mutants_for(suite)]
        return suite, runs

    print(f"suites of the registry: {len(known)} ({', '.join(games)}), running {len(suites)}")
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for suite, runs in pool.map(one, [s for s in suites if os.path.exists(os.path.join(HERE, f"{s[0]}.py"))]):
            game, fn, variant = suite
            print(f"{game} {fn} [{variant}], {args.n} cases, seed {args.seed}:")
            for mutant, (rc, clauses, out) in runs:
                total = sum(n for n, _ in clauses.values())
                bad = sum(f for _, f in clauses.values())
                if mutant is None:
                    ok = rc == 0 and total == args.n and bad == 0
                    print(f"  {'ok  ' if ok else 'FAIL'} the implementation: {bad} of {total} cases failed"
                          f" ({len(clauses)} clauses)")
                elif gap(mutant, suite):
                    caught = rc != 0 and bad > 0
                    print(f"  {'ok  ' if caught else 'GAP '} {mutant}: {bad} of {total} failed: "
                          + (f"{describe(clauses)} (a known gap no longer: drop it from GAPS)" if caught
                             else f"the suite lacks {gap(mutant, suite)}"))
                    continue
                else:
                    ok = rc != 0 and bad > 0
                    print(f"  {'ok  ' if ok else 'FAIL'} {mutant}: {bad} of {total} failed: {describe(clauses)}")
                if not ok:
                    tail = "\n".join(out.strip().splitlines()[-25:])
                    print("        " + tail.replace("\n", "\n        "))
                passed, failed = passed + ok, failed + (not ok)
    for p in problems:
        print("FAIL", p)
    failed += len(problems)
    if not args.keep:
        subprocess.run(["rm", "-rf", work])
    print(f"kit: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
