"""The ``mcs-conformance`` command: run the suite, list invariants and cases, manage the corpus."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from . import __version__

__all__ = ["main"]


def _cmd_check(args: argparse.Namespace, extra: list[str]) -> int:
    import pytest

    argv = [f"--mcs-strategy={args.strategy}", "--mcs-only", "-p", "no:cacheprovider", *extra]
    if not any(a.startswith("--mcs-report") for a in extra):
        argv.append(f"--mcs-report={args.report}")
    return int(pytest.main(argv))


def _cmd_list(args: argparse.Namespace) -> int:
    from .corpus import load_corpus
    from .invariants import CHECKS

    if args.what in ("invariants", "all"):
        print(f"{'id':<15} {'family':<10} title")
        for c in CHECKS.values():
            print(f"{c.id:<15} {c.family:<10} {c.title}")
    if args.what in ("cases", "all"):
        corpus = load_corpus(args.corpus)
        if args.what == "all":
            print()
        _print_cases(corpus)
    return 0


def _print_cases(corpus: Any) -> None:
    kinds: Counter[str] = Counter()
    for case in corpus.cases:
        kinds[case.provenance["kind"]] += 1
        print(f"{case.id:<60} {case.provenance['kind']:<10} {','.join(case.tags)}")
    counts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    print(f"\n{len(corpus.cases)} cases ({counts}); corpus {corpus.version} {corpus.content_hash}")


def _cmd_corpus(args: argparse.Namespace) -> int:
    from .corpus import CorpusError, load_corpus

    if args.corpus_cmd == "validate":
        dirs = args.dirs
        try:
            corpus = load_corpus(dirs, bundled=not dirs or args.with_bundled)
        except CorpusError as exc:
            hint = ""
            if dirs and not args.with_bundled and "no descriptor" in str(exc):
                hint = " (to use the bundled descriptors, add --with-bundled)"
            print(f"error: {exc}{hint}", file=sys.stderr)
            return 1
        print(f"ok: {len(corpus.cases)} cases and {len(corpus.descriptors)} descriptors are valid ({corpus.content_hash})")
        return 0
    if args.corpus_cmd == "list":
        try:
            corpus = load_corpus(args.dirs)
        except CorpusError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        _print_cases(corpus)
        return 0
    if args.corpus_cmd == "import":
        from .importer import ImportProblem, import_capture

        try:
            case = import_capture(
                args.format, Path(args.capture), case_id=args.id, description=args.description,
                provenance={"kind": args.kind, "source": args.source, "license": args.license,
                            **({"commit": args.commit} if args.commit else {}),
                            **({"model": args.model} if args.model else {}),
                            **({"captured": args.captured} if args.captured else {}),
                            **({"why": args.why} if args.why else {})},
                tags=args.tag,
            )
        except ImportProblem as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        text = json.dumps(case, indent=2, ensure_ascii=False) + "\n"
        if args.output:
            Path(args.output).parent.mkdir(parents=True, exist_ok=True)
            Path(args.output).write_text(text, encoding="utf-8", errors="backslashreplace")  # lone surrogates: JSON escapes
            print(f"wrote {args.output}: review expect.* before adding it to a corpus")
        else:
            sys.stdout.write(text)
        return 0
    return 2


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import badge, markdown

    try:
        data = json.loads(Path(args.json).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read the JSON report {args.json}: {exc}", file=sys.stderr)
        return 1
    md = markdown(data)
    if args.markdown:
        Path(args.markdown).write_text(md, encoding="utf-8")
    else:
        sys.stdout.write(md)
    if args.badge:
        Path(args.badge).write_text(json.dumps(badge(data)) + "\n", encoding="utf-8")
    return 0


def _cmd_descriptor(args: argparse.Namespace) -> int:
    """``descriptor explain``: what the fuzzers generate for one case under one descriptor."""
    from .corpus import CorpusError, load_corpus, read_case, read_descriptor
    from .explain import ExplainError, explain, render

    try:
        as_files = Path(args.descriptor).is_file() and Path(args.case).is_file() and not args.corpus
        corpus = None if as_files else load_corpus(args.corpus)
        if Path(args.descriptor).is_file():
            descriptor = read_descriptor(args.descriptor)
        elif args.descriptor in corpus.descriptors:
            descriptor = corpus.descriptors[args.descriptor]
        else:
            raise CorpusError(f"{args.descriptor!r} is neither a descriptor file nor a loaded format "
                              f"(loaded: {', '.join(sorted(corpus.descriptors))}; add --corpus DIR for yours)")
        if Path(args.case).is_file():
            case = read_case(args.case)
        else:
            try:
                case = corpus.case(args.case)
            except KeyError:
                raise CorpusError(f"{args.case!r} is neither a case file nor a loaded case id "
                                  f"(add --corpus DIR for your cases; `mcs-conformance list cases` lists them)") from None
        data = explain(descriptor, case, args.chunk)
    except (CorpusError, ExplainError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n" if args.json else render(data))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mcs-conformance", description="Conformance suite for MCS streaming tool-call extraction.")
    p.add_argument("--version", action="version", version=f"mcs-conformance {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("check", help="run the suite against a strategy (extra arguments go to pytest)")
    c.add_argument("strategy", help="the strategy under test, as package.module:Attr")
    c.add_argument("--report", default=".mcs-conformance/report.json", help="JSON report path (Markdown beside it)")

    ls = sub.add_parser("list", help="list the invariants and/or the corpus cases")
    ls.add_argument("what", nargs="?", choices=("invariants", "cases", "all"), default="all")
    ls.add_argument("--corpus", action="append", default=[], metavar="DIR", help="also load an author corpus folder")

    r = sub.add_parser("report", help="turn a JSON report into Markdown and a shields.io badge JSON")
    r.add_argument("json", help="the JSON report written by --mcs-report")
    r.add_argument("--markdown", metavar="FILE", help="write the Markdown here (default: stdout)")
    r.add_argument("--badge", metavar="FILE", help="write a shields.io endpoint JSON here")

    co = sub.add_parser("corpus", help="validate, list or import corpus cases")
    csub = co.add_subparsers(dest="corpus_cmd", required=True)
    v = csub.add_parser("validate", help="validate corpus folders (default: the bundled corpus)")
    v.add_argument("dirs", nargs="*")
    v.add_argument("--with-bundled", action="store_true", help="validate the folders together with the bundled corpus")
    li = csub.add_parser("list", help="list case ids, tags and provenance counts")
    li.add_argument("dirs", nargs="*")
    im = csub.add_parser("import", help="turn a raw capture (SSE or JSONL) into a case file")
    im.add_argument("capture")
    im.add_argument("--format", required=True, help="openai-chat, openai-responses or anthropic-messages")
    im.add_argument("--id", required=True, help="the case id, format/slug")
    im.add_argument("--description", required=True)
    im.add_argument("--kind", choices=("recorded", "sanitized", "synthetic"), default="recorded")
    im.add_argument("--source", required=True, help="where the capture comes from (owner/repo, or your project)")
    im.add_argument("--license", required=True)
    im.add_argument("--commit")
    im.add_argument("--model")
    im.add_argument("--captured", help="capture date, YYYY-MM-DD")
    im.add_argument("--why", help="for synthetic cases: why no recording covers this")
    im.add_argument("--tag", action="append", default=[])
    im.add_argument("-o", "--output", help="write the case here (default: stdout)")

    de = sub.add_parser("descriptor", help="check a format descriptor against a case")
    dsub = de.add_subparsers(dest="descriptor_cmd", required=True)
    ex = dsub.add_parser("explain", help="print the re-chunkings, merges, noise and text carriage the suite "
                                         "generates for a case")
    ex.add_argument("descriptor", help="a descriptor file, or the format name of a loaded descriptor")
    ex.add_argument("--case", required=True, help="a case file, or the id of a loaded case")
    ex.add_argument("--corpus", action="append", default=[], metavar="DIR", help="also load an author corpus folder")
    ex.add_argument("--chunk", type=int, help="the chunk whose character split is shown (default: the first "
                                              "with a delta of two characters or more)")
    ex.add_argument("--json", action="store_true", help="print the full data as JSON, nothing cut")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv[:1] == ["check"]:
        args, extra = parser.parse_known_args(argv)
        return _cmd_check(args, extra)
    args = parser.parse_args(argv)
    if args.cmd == "list":
        return _cmd_list(args)
    if args.cmd == "corpus":
        return _cmd_corpus(args)
    if args.cmd == "report":
        return _cmd_report(args)
    if args.cmd == "descriptor":
        return _cmd_descriptor(args)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
