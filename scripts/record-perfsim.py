#!/usr/bin/env python3
"""record-perfsim.py -- re-record Perf-Sim cycles of the corpus kernels into tests/data/perfsim.tsv.

usage: scripts/record-perfsim.py [--ptoc PATH] [--out FILE] [--limit N] [--changed-from OLD_PTOC]

For every program of the corpus (below), at each optimisation level, compiles it with
`ptoc --emit cpp -O<level>` and runs the kernels through Perf-Sim
(`../shared/perfsim/cycles.py --pto PROGRAM DIR`, pto-isa's cost model; it needs clang++-19 and
../shared/pto-isa-costmodel). One TSV row per kernel Perf-Sim ran: program, kernel, opt level,
total cycles and busy cycles per pipe. Kernels that do not compile or run there are left out
(printed on stderr). tests/cycle_model.rs compares ptoc's cycle model with these rows.

With --changed-from, only the kernels whose C++ differs between OLD_PTOC and --ptoc are run
again; the rows of the others are kept from the existing --out file (a full run takes an hour on
two cores, most compiler changes touch a handful of kernels).

Corpus: examples/*.pto at -O0 and -O1, lit-tests/codegen/*.pto at -O1, ../shared/conformance-dsl
(input.pto) at -O0 and -O1, ../shared/systests (program.pto) at -O1, and programs of
../shared/tools/genmix.py (every kind, a fixed list of seeds) at -O1. A genmix program is named
`genmix:<kind>:<seed>` in the table; the test regenerates it with the same command.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
PERFSIM = SHARED / "perfsim" / "cycles.py"
GENMIX = SHARED / "tools" / "genmix.py"
PIPES = ("MTE2", "MTE1", "CUBE", "FIXP", "VEC", "MTE3", "Scalar")
GENMIX_KINDS = ("vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed")
GENMIX_SEEDS = range(1, 5)


def corpus() -> list[tuple[str, list[int]]]:
    """(program name, opt levels) in a fixed order."""
    out: list[tuple[str, list[int]]] = []
    for p in sorted((ROOT / "examples").glob("*.pto")):
        out.append((str(p.relative_to(ROOT)), [0, 1]))
    for p in sorted((ROOT / "lit-tests" / "codegen").glob("*.pto")):
        out.append((str(p.relative_to(ROOT)), [1]))
    for p in sorted((SHARED / "conformance-dsl").glob("*/input.pto")):
        out.append(("../shared/" + str(p.relative_to(SHARED)), [0, 1]))
    for p in sorted((SHARED / "systests").glob("*/program.pto")):
        out.append(("../shared/" + str(p.relative_to(SHARED)), [1]))
    for kind in GENMIX_KINDS:
        for seed in GENMIX_SEEDS:
            out.append((f"genmix:{kind}:{seed}", [1]))
    return out


def source(name: str, tmp: Path) -> Path:
    """The .pto file of a program name (a genmix program is generated into `tmp`)."""
    if name.startswith("genmix:"):
        _, kind, seed = name.split(":")
        text = subprocess.run(
            [sys.executable, str(GENMIX), "--seed", seed, "--kind", kind],
            check=True, capture_output=True, text=True,
        ).stdout
        path = tmp / f"genmix_{kind}_{seed}.pto"
        path.write_text(text)
        return path
    return (ROOT / name).resolve()


def parse(line: str) -> tuple[str, dict[str, int]] | None:
    """`k cycles=9963 instrs=36 ... Scalar=19 bound=9767` -> (k, fields); None for failures."""
    parts = line.split()
    if len(parts) < 2 or not parts[1].startswith("cycles="):
        return None
    fields = {}
    for p in parts[1:]:
        k, _, v = p.partition("=")
        if v.isdigit():
            fields[k] = int(v)
    if "STUCK" in fields:
        return None
    return parts[0], fields


def kernels_text(outdir: Path) -> list[tuple[str, str]]:
    """The emitted kernel sources of an output directory, by path."""
    return [(str(p.relative_to(outdir)), p.read_text()) for p in sorted(outdir.glob("kernels/*/*.cpp"))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptoc", default=str(ROOT / "target" / "release" / "ptoc"))
    ap.add_argument("--out", default=str(ROOT / "tests" / "data" / "perfsim.tsv"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N programs (0: all)")
    ap.add_argument("--changed-from", metavar="OLD_PTOC",
                    help="re-run only programs whose C++ differs from what OLD_PTOC emits; keep the other rows")
    args = ap.parse_args()
    kept: dict[tuple[str, str], list[str]] = {}
    if args.changed_from:
        for line in Path(args.out).read_text().splitlines()[2:]:
            cols = line.split("\t")
            kept.setdefault((cols[0], cols[2]), []).append(line)
    if not PERFSIM.exists() or not (SHARED / "pto-isa-costmodel").exists():
        print("record-perfsim: ../shared/perfsim or ../shared/pto-isa-costmodel is missing", file=sys.stderr)
        return 1
    programs = corpus()
    if args.limit:
        programs = programs[: args.limit]
    rows: list[str] = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for i, (name, levels) in enumerate(programs):
            src = source(name, tmp)
            for opt in levels:
                outdir = tmp / f"p{i}_O{opt}"
                r = subprocess.run(
                    [args.ptoc, "--emit", "cpp", f"-O{opt}", "-o", str(outdir), str(src)],
                    capture_output=True, text=True,
                )
                if r.returncode != 0:
                    print(f"skip {name} -O{opt}: ptoc exit {r.returncode}", file=sys.stderr)
                    break
                if not any(outdir.glob("kernels/*/*.cpp")):
                    break
                if args.changed_from and (name, str(opt)) in kept:
                    olddir = tmp / f"p{i}_O{opt}_old"
                    subprocess.run(
                        [args.changed_from, "--emit", "cpp", f"-O{opt}", "-o", str(olddir), str(src)],
                        capture_output=True, text=True,
                    )
                    if kernels_text(olddir) == kernels_text(outdir):
                        rows.extend(kept[(name, str(opt))])
                        continue
                    print(f"changed: {name} -O{opt}", file=sys.stderr)
                r = subprocess.run(
                    [sys.executable, str(PERFSIM), "--pto", str(src), str(outdir)],
                    capture_output=True, text=True, env=dict(os.environ),
                )
                for line in r.stdout.splitlines():
                    got = parse(line)
                    if got is None:
                        print(f"skip {name} -O{opt}: {line[:160]}", file=sys.stderr)
                        continue
                    kernel, f = got
                    rows.append("\t".join([name, kernel, str(opt), str(f["cycles"])] + [str(f.get(p, 0)) for p in PIPES]))
            print(f"[{i + 1}/{len(programs)}] {name}: {len(rows)} rows", file=sys.stderr, flush=True)
    header = "\t".join(["program", "kernel", "opt", "cycles"] + list(PIPES))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        "# Perf-Sim cycles of the corpus kernels (scripts/record-perfsim.py; pto-isa 995589ab cost model)\n"
        + header + "\n" + "\n".join(rows) + "\n"
    )
    print(f"record-perfsim: {len(rows)} kernels -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
