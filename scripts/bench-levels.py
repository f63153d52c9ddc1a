#!/usr/bin/env python3
"""bench-levels.py -- cycles of the corpus programs with loops at -O0, -O1 and -O2.

usage: scripts/bench-levels.py [--ptoc PATH] [--perfsim] [--all]

For every corpus program that has a loop (examples/*.pto, ../shared/conformance-dsl,
../shared/systests, ../shared/tools/genmix.py programs of the `loop` and `matmul` kinds, seeds
1-8), compiles it with `ptoc --emit cpp -O<level> --stats=json` and reads the cycle model's
estimate and critical-pipe bound per program (the sum over its kernels). With --perfsim the
kernels also run through Perf-Sim (../shared/perfsim/cycles.py, which needs clang++-19 and
../shared/pto-isa-costmodel) and its cycles are reported too. --all takes the programs without
loops as well.

Prints one row per program and the geometric means of -O2/-O0, -O2/-O1 and cycles/bound at
-O2, for each measure, then every program slower at -O2 than at -O1 or at -O1 than at -O0;
docs/performance.md records a run.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
PERFSIM = SHARED / "perfsim" / "cycles.py"
GENMIX = SHARED / "tools" / "genmix.py"
LEVELS = (0, 1, 2)


def corpus(tmp: Path) -> list[tuple[str, Path]]:
    out = [(str(p.relative_to(ROOT)), p) for p in sorted((ROOT / "examples").glob("*.pto"))]
    for p in sorted((SHARED / "conformance-dsl").glob("*/input.pto")):
        out.append((p.parent.name, p))
    for p in sorted((SHARED / "systests").glob("*/program.pto")):
        out.append((p.parent.name, p))
    for kind in ("loop", "matmul"):
        for seed in range(1, 9):
            text = subprocess.run(
                [sys.executable, str(GENMIX), "--seed", str(seed), "--kind", kind],
                check=True, capture_output=True, text=True,
            ).stdout
            p = tmp / f"genmix_{kind}_{seed}.pto"
            p.write_text(text)
            out.append((f"genmix:{kind}:{seed}", p))
    return out


def model(ptoc: str, prog: Path, level: int, outdir: Path) -> tuple[int, int] | None:
    r = subprocess.run(
        [ptoc, str(prog), f"-O{level}", "--emit", "cpp", "-o", str(outdir), "--stats=json"],
        capture_output=True, text=True,
    )
    if r.returncode != 0:
        return None
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    fs = stats["functions"]
    return sum(f.get("cycles", 0) for f in fs), sum(f.get("bound", 0) for f in fs)


def perfsim(prog: Path, outdir: Path) -> tuple[int, int] | None:
    r = subprocess.run([sys.executable, str(PERFSIM), "--pto", str(prog), str(outdir)], capture_output=True, text=True)
    cycles = bound = 0
    found = False
    for line in r.stdout.splitlines():
        m = re.search(r"cycles=(\d+).*bound=(\d+)", line)
        if m:
            found = True
            cycles += int(m.group(1))
            bound += int(m.group(2))
    return (cycles, bound) if found and r.returncode == 0 else None


def gmean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptoc", default=str(ROOT / "target" / "release" / "ptoc"))
    ap.add_argument("--perfsim", action="store_true")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    measures = ["model"] + (["perfsim"] if args.perfsim else [])
    ratios: dict[str, dict[str, list[float]]] = {m: {"O2/O0": [], "O2/O1": [], "O2/bound": []} for m in measures}
    slower: list[str] = []
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        progs = corpus(tmp)
        print("program\t" + "\t".join(f"{m}-O{l}" for m in measures for l in LEVELS) + "\tbound")
        for name, prog in progs:
            if not args.all and not re.search(r"pl\.(range|pipeline|parallel)\(", prog.read_text()):
                continue
            row: dict[str, dict[int, tuple[int, int]]] = {m: {} for m in measures}
            for level in LEVELS:
                out = tmp / f"out_{level}"
                subprocess.run(["rm", "-rf", str(out)])
                got = model(args.ptoc, prog, level, out)
                if got is None:
                    break
                row["model"][level] = got
                if args.perfsim:
                    ps = perfsim(prog, out)
                    if ps is None:
                        break
                    row["perfsim"][level] = ps
            if any(len(row[m]) != len(LEVELS) for m in measures):
                print(f"{name}\t(skipped: a level does not compile or run)", file=sys.stderr)
                continue
            cells = [str(row[m][l][0]) for m in measures for l in LEVELS]
            print(f"{name}\t" + "\t".join(cells) + f"\t{row[measures[-1]][2][1]}")
            for m in measures:
                c = {l: row[m][l][0] for l in LEVELS}
                b = row[m][2][1]
                if min(c.values()) <= 0 or b <= 0:
                    continue
                ratios[m]["O2/O0"].append(c[2] / c[0])
                ratios[m]["O2/O1"].append(c[2] / c[1])
                ratios[m]["O2/bound"].append(c[2] / b)
                if c[2] > c[1]:
                    slower.append(f"-O2 than -O1: {name} ({m}: -O2 {c[2]} > -O1 {c[1]})")
                if c[1] > c[0]:
                    slower.append(f"-O1 than -O0: {name} ({m}: -O1 {c[1]} > -O0 {c[0]})")
    for m in measures:
        n = len(ratios[m]["O2/O0"])
        print(f"{m}: {n} programs; geometric means " + ", ".join(f"{k} {gmean(v):.3f}" for k, v in ratios[m].items()))
    for s in slower:
        print(f"slower at {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
