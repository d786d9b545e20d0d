"""Command line: ``python -m pyspark_ext {build,conf,formats,rules,demo,verify,producers,advise}``."""
from __future__ import annotations

import argparse
import sys

import pyspark


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyspark_ext")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="compile the extension jar and print its path")
    build.add_argument("--force", action="store_true", help="rebuild even if cached")
    conf = sub.add_parser("conf", help="print the Spark settings that enable the extension, as key=value")
    conf.add_argument("--connect-server", action="store_true",
                      help="the settings for a Spark Connect server (adds the relation plugin "
                           "behind explain_read_schema for Connect clients)")
    conf.add_argument("--markdown", action="store_true",
                      help="print instead the table of every extension setting (docs/configuration.md), "
                           "read from the jar's declarations in a local session")
    sub.add_parser("formats", help="print the features × formats tables (docs/table-formats.md), read "
                                   "from the jar's decisions in a local session")
    sub.add_parser("rules", help="print the table of the rules the extension wires, in the order Spark "
                                 "runs them (docs/architecture.md), read from the jar in a local session")
    demo = sub.add_parser("demo", help="run the demo on generated nested and shredded variant data")
    demo.add_argument("--rows", type=int, default=30_000, help="nested events")
    demo.add_argument("--variant-rows", type=int, default=100_000, help="variant events")
    demo.add_argument("--dir", default=None, help="where to write the data (default: a cache dir)")
    verify = sub.add_parser("verify", help="run a workload's queries with the extension off and on, and compare")
    verify.add_argument("--queries", required=True, action="append", metavar="FILE.sql",
                        help="SQL file, one statement per ';' (repeatable)")
    verify.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable)")
    verify.add_argument("--format", choices=["text", "json"], default="text")
    verify.add_argument("--master", default=None, help="Spark master (default: Spark's own)")
    verify.add_argument("--no-progress", action="store_true")
    verify.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="warm runs timed each way per query, alternating, after one run each way "
                             "to warm up; the median is reported (default 1)")
    verify.add_argument("--allow-failing-queries", action="store_true",
                        help="a query that fails with the same error both ways passes (it is "
                             "still reported); by default it fails the run with exit code 3")
    producers_missing = None
    try:
        from .producers.cli import add_parser as add_producers
        add_producers(sub)
    except ImportError as e:  # pyspark 3.5 lacks pyspark.sql.conversion, which the producers use
        producers_missing = (f"pyspark-ext producers need pyspark 4.0 or later; this environment has "
                             f"pyspark {pyspark.__version__} ({e})")
        stub = sub.add_parser("producers", help="run a producers pipeline (pyspark 4.0 or later)")
        stub.add_argument("rest", nargs=argparse.REMAINDER)
    from .advisor.cli import add_parser as add_advise_parser
    add_advise_parser(sub)
    args = parser.parse_args(argv)

    if args.command == "build":
        from .jar import build_jar
        print(build_jar(force=args.force))
    elif args.command == "conf" and args.markdown:
        from .settings_table import generate
        print(generate())
    elif args.command == "formats":
        from .formats_table import generate as generate_formats
        print(generate_formats())
    elif args.command == "rules":
        from .rules_table import generate as generate_rules
        print(generate_rules())
    elif args.command == "conf":
        from .loaded import ExtensionNotLoadedError
        from .session import connect_server_confs, extension_confs
        try:
            confs = connect_server_confs() if args.connect_server else extension_confs()
        except ExtensionNotLoadedError as e:
            print(f"pyspark-ext: {e}", file=sys.stderr)
            return 1
        for key, value in confs.items():
            print(f"{key}={value}")
    elif args.command == "demo":
        from .demo import run_demo
        run_demo(rows=args.rows, directory=args.dir, variant_rows=args.variant_rows)
    elif args.command == "verify":
        from .verify import main as verify_main
        return verify_main(args.queries, args.conf, args.format, args.master, not args.no_progress,
                           args.allow_failing_queries, args.repeat)
    elif args.command == "producers" and producers_missing:
        print(producers_missing, file=sys.stderr)
        return 2
    elif args.command == "producers":
        from .producers.cli import main as producers_main
        return producers_main(args)
    elif args.command == "advise":
        from .advisor.cli import run as run_advise
        return run_advise(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
