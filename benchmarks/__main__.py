"""``python -m benchmarks run --suite NAME [--scale ROWS] [--repeat N] [--out DIR]``, or
``python -m benchmarks COMMAND ...`` for the commands that start processes of their own.
Suites and commands are listed in ``benchmarks/suites.py``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .suites import COMMANDS, SUITES, SuiteOptions, module, run


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in COMMANDS:
        return module(COMMANDS[argv[0]][0]).main(argv[1:])  # type: ignore[attr-defined]
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        epilog="commands: " + "; ".join(f"{name}: {what}" for name, (_, what) in COMMANDS.items()))
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", epilog="suites: " + "; ".join(f"{n}: {w}" for n, (_, w) in SUITES.items()))
    r.add_argument("--suite", default="quick", choices=list(SUITES))
    r.add_argument("--scale", type=int, default=None, help="rows of the suite's main dataset")
    r.add_argument("--repeat", type=int, default=None, help="timed runs per query and mode")
    r.add_argument("--out", default=None, help="output directory (default benchmarks/out/<suite>)")
    r.add_argument("--dataset", default="both", choices=["sorted", "unsorted", "both"],
                   help="variant datasets of the path-limit and spec suites")
    r.add_argument("--baseline-rows", type=int, default=None,
                   help="producers: rows of the groupBy + applyInPandas baseline (default: "
                        "min(scale, 200000); 0 skips it); its rows/s/core compare across sizes")
    r.add_argument("--skip", action="append", default=[], metavar="ENGINE/FORM",
                   help="peers: a configuration not to run, e.g. duckdb/unshredded (repeatable)")
    args = parser.parse_args(argv)
    options = SuiteOptions(
        suite=args.suite, out=Path(args.out or Path(__file__).resolve().parent / "out" / args.suite),
        scale=args.scale, repeat=args.repeat,
        kinds=("sorted", "unsorted") if args.dataset == "both" else (args.dataset,),
        baseline_rows=args.baseline_rows, skip=frozenset(args.skip))
    print(f"results in {run(options)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
