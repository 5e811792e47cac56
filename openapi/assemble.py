#!/usr/bin/env python3
"""Write openapi/openapi.yaml from openapi/base.yaml and each game's part.

The contract's shared part (routes, errors, the generic shapes) is
openapi/base.yaml. Each game's part is engine/<game>/openapi.yaml, beside its
code: `view:` names its view schema, `paths:` holds its autograder functions'
paths (as they stand under the document's `paths`), `schemas:` its shapes
(as they stand under `components.schemas`). Three comment lines of base.yaml
mark where they go:

    # @paths    every game's paths
    # @schemas  every game's schemas
    # @views    GameView's rule per game: "if game is <name> then <its view>"

Games go in by folder name. The parts are joined as text, so the comments
and layout of each survive; the result is parsed by the tests (and by the
server at start, --openapi) like any other document. Plain python3, no YAML
library: a part's sections are the lines under three top-level keys.

    python3 openapi/assemble.py           write openapi/openapi.yaml
    python3 openapi/assemble.py --check   exit 1 when it is not up to date
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "openapi", "openapi.yaml")
HEADER = ("# Written by `make openapi` (openapi/assemble.py) from openapi/base.yaml and\n"
          "# engine/<game>/openapi.yaml: edit those, not this file.\n")
MARK = re.compile(r"^( *)# @(paths|schemas|views)\b")


def part(path):
    """(game, view schema or None, path lines, schema lines) of one game's part."""
    game = os.path.basename(os.path.dirname(path))
    view, sections, cur = None, {"paths": [], "schemas": []}, None
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("#") or (cur is None and not line.strip()):
            continue
        m = re.match(r"^(view|paths|schemas):\s*(.*?)\s*$", line)
        if m:
            if m.group(1) == "view":
                view, cur = m.group(2) or None, None
            else:
                cur = m.group(1)
            continue
        if cur is None or (line and not line.startswith("  ")):
            sys.exit(f"{path}:{n}: not under view:, paths: or schemas: (indented two spaces)")
        sections[cur].append(line)
    for k in sections:
        while sections[k] and not sections[k][-1].strip():
            sections[k].pop()
    return game, view, sections["paths"], sections["schemas"]


def assemble():
    parts = [part(p) for p in sorted(glob.glob(os.path.join(ROOT, "engine", "*", "openapi.yaml")))]
    out, seen = [], set()
    for line in open(os.path.join(ROOT, "openapi", "base.yaml"), encoding="utf-8").read().split("\n"):
        m = MARK.match(line)
        if not m:
            out.append(line)
            continue
        pad, what = len(m.group(1)), m.group(2)
        seen.add(what)
        for game, view, paths, schemas in parts:
            if what == "paths":
                out += [(" " * (pad - 2) + l) if l else l for l in paths]
            elif what == "schemas":
                out += [(" " * (pad - 2) + l) if l else l for l in schemas]
            elif view:
                out.append(" " * pad + f"- if: {{properties: {{game: {{const: {game}}}}}}}")
                out.append(" " * pad + f"  then: {{$ref: '#/components/schemas/{view}'}}")
    missing = {"paths", "schemas", "views"} - seen
    if missing:
        sys.exit(f"openapi/base.yaml lacks the marks: {', '.join(sorted(missing))}")
    return HEADER + "\n".join(out)


def main():
    text = assemble()
    if "--check" in sys.argv[1:]:
        old = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if old != text:
            sys.exit("openapi/openapi.yaml is not what `make openapi` writes from openapi/base.yaml "
                     "and engine/*/openapi.yaml: run make openapi")
        return
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(OUT + ".tmp", OUT)


if __name__ == "__main__":
    main()
