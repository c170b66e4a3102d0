#!/usr/bin/env python3
"""What a record class costs to define and to build, four ways (issue 26 item 5).

A diagnosis defines 24-32 record classes on every start (Record subclasses reached by a
`diagnose --evidence` run of one engine's fixture), so the definition cost is start-up time;
records built per log line make the construction cost scan time. Compared: a hand-written
Record subclass (__slots__ and a written __init__), llmdoctor.model.record (the same from
annotations, one generated __init__), @dataclass(slots=True) and
@dataclass(slots=True, frozen=True). Medians of several rounds; the machine is shared, so
read the ratios more than the microseconds.
Usage: bench/record_cost.py [--fields N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llmdoctor.model import Record, record  # noqa: E402


def _sources(n: int) -> tuple[str, str]:
    names = [f"f{i}" for i in range(n)]
    plain = ("class C(Record):\n    __slots__ = (%s,)\n\n    def __init__(self, %s) -> None:\n%s\n" % (
        ", ".join(repr(x) for x in names), ", ".join(f"{x}: int | None = None" for x in names),
        "\n".join(f"        self.{x} = {x}" for x in names)))
    annotated = "class C(Record):\n" + "\n".join(f"    {x}: int | None = None" for x in names) + "\n"
    return plain, annotated


def _makers(n: int):
    plain, annotated = _sources(n)
    plain_code, ann_code = compile(plain, "<plain>", "exec"), compile(annotated, "<annotated>", "exec")
    dc_code = compile(annotated.replace("(Record)", ""), "<dc>", "exec")

    def run(code, decorate=None):
        ns = {"Record": Record}
        exec(code, ns)
        return decorate(ns["C"]) if decorate else ns["C"]

    return {
        "hand-written Record": lambda: run(plain_code),
        "model.record": lambda: run(ann_code, record),
        "dataclass(slots)": lambda: run(dc_code, dataclass(slots=True)),
        "dataclass(slots, frozen)": lambda: run(dc_code, dataclass(slots=True, frozen=True)),
    }


def _median(fn, n: int, rounds: int = 7) -> float:
    xs = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        xs.append((time.perf_counter() - t) / n)
    return statistics.median(xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fields", type=int, default=8)
    args = ap.parse_args()
    args_ = tuple(range(args.fields))
    print(f"{'':<26} {'define us':>10} {'x hand':>7} {'build ns':>9} {'x hand':>7}  ({args.fields} fields)")
    base = None
    for name, make in _makers(args.fields).items():
        d = _median(make, 200)
        cls = make()
        c = _median(lambda: cls(*args_), 20000)
        base = base or (d, c)
        print(f"{name:<26} {d * 1e6:10.1f} {d / base[0]:7.1f} {c * 1e9:9.0f} {c / base[1]:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
