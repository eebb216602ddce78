"""The ``mcs-conformance`` command: run the suite, list invariants and cases, manage the corpus, record streams."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
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
    from .corpus_tools.corpus import load_corpus
    from .suite.invariants import CHECKS

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
    from .corpus_tools.corpus import CorpusError, load_corpus

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
        from .corpus_tools.lint import lint_corpus

        findings = lint_corpus(corpus)
        for finding in findings:
            print(f"{finding.severity}: {finding}", file=sys.stderr)
        errors = [f for f in findings if f.severity != "warning" or args.strict]
        if errors:
            print(f"{len(errors)} descriptor mistake(s): the checks that read through these fields would blame the "
                  "strategy for them" if not args.strict else f"{len(errors)} descriptor finding(s) (--strict)",
                  file=sys.stderr)
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
        return _cmd_corpus_import(args)
    if args.corpus_cmd == "diff":
        return _cmd_corpus_diff(args)
    return 2


def _cmd_corpus_import(args: argparse.Namespace) -> int:
    from .corpus_tools.corpus import CorpusError, load_corpus
    from .corpus_tools.importer import TO_FILL, ImportProblem, import_capture

    given = {"kind": args.kind, "source": args.source, "license": args.license, "commit": args.commit,
             "model": args.model, "captured": args.captured, "why": args.why}
    extra: dict[str, Any] = {}
    try:
        if args.corpus:
            corpus = load_corpus(args.corpus)
            fmt = args.format or args.id.split("/", 1)[0]
            if fmt in corpus.descriptors:
                extra["descriptor"] = corpus.descriptors[fmt]
        if args.message:
            extra["message"] = json.loads(Path(args.message).read_text(encoding="utf-8"))
            extra["message_source"] = args.message
        if args.strategy:
            from .suite.loader import StrategyPathError, load_strategy, not_a_strategy

            try:
                strategy = load_strategy(args.strategy)
            except StrategyPathError as exc:
                raise ImportProblem(f"--strategy {args.strategy}: {exc}") from None
            problem = not_a_strategy(strategy)
            if problem:
                raise ImportProblem(f"--strategy {args.strategy}: {problem}")
            extra.update(strategy=strategy, strategy_spec=args.strategy)
        case = import_capture(
            args.format, Path(args.capture), case_id=args.id, description=args.description,
            provenance={k: v for k, v in given.items() if v}, tags=args.tag, local=args.local, **extra,
        )
    except (ImportProblem, CorpusError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: --message {args.message}: {exc}", file=sys.stderr)
        return 1
    text = json.dumps(case, indent=2, ensure_ascii=False) + "\n"
    to_fill = case["provenance"].get("expect") == "to be filled in by the author"
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8", errors="backslashreplace")  # lone surrogates: JSON escapes
        print(f"wrote {args.output}: review expect.* before adding it to a corpus")
    else:
        sys.stdout.write(text)
    if to_fill:
        print(f"{case['format']} has no SDK oracle, and no stream=false body or strategy was named: fill in {TO_FILL}; "
              "then set provenance.expect to where they came from (the case fails the schema until then)",
              file=sys.stderr)
    return 0


def _cmd_corpus_diff(args: argparse.Namespace) -> int:
    from .corpus_tools.drift import DriftInputError, compare, load_side, render

    try:
        report = compare(load_side(args.old, args.format), load_side(args.new, args.format))
    except DriftInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n" if args.json else render(report))
    return 1 if report["drift"] else 0


def _cmd_record(args: argparse.Namespace) -> int:
    from .corpus_tools.proxy import RecordingProxy, UpstreamError

    try:
        proxy = RecordingProxy(args.upstream, args.out, host=args.host, port=args.port, fmt=args.format)
    except UpstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"recording {proxy.url} -> {proxy.upstream}; captures go to {args.out}/ (Ctrl-C stops)", file=sys.stderr, flush=True)
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        # serve_forever ends at its next poll; shutdown() waits for that, so not on this thread
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=proxy.server.shutdown, daemon=True).start()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        proxy.serve_forever()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        proxy.server.server_close()
    print(f"stopped: {len(proxy.captures)} capture(s) written to {args.out}/", file=sys.stderr)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .suite.report import badge, markdown

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
    from .corpus_tools.corpus import CorpusError, load_corpus, read_case, read_descriptor
    from .suite.explain import ExplainError, explain, render

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

    co = sub.add_parser("corpus", help="validate, list, import or diff corpus cases")
    csub = co.add_subparsers(dest="corpus_cmd", required=True)
    v = csub.add_parser("validate", help="validate corpus folders (default: the bundled corpus): the schemas, then "
                                         "descriptor paths that select nothing in any case (corpus_tools/lint.py)")
    v.add_argument("dirs", nargs="*")
    v.add_argument("--with-bundled", action="store_true", help="validate the folders together with the bundled corpus")
    v.add_argument("--strict", action="store_true", help="exit 1 on warnings too (a descriptor path that selects "
                                                          "nothing in any case)")
    li = csub.add_parser("list", help="list case ids, tags and provenance counts")
    li.add_argument("dirs", nargs="*")
    im = csub.add_parser("import", help="turn a capture (a capture folder, or a raw SSE or JSONL file) into a case file")
    im.add_argument("capture", help="a capture folder from 'record' or the recording transport, or an SSE/JSONL file")
    im.add_argument("--format", help="the format of a raw capture file: any format with a descriptor, bundled or "
                                     "in --corpus (a capture folder brings it from its request path)")
    im.add_argument("--corpus", action="append", default=[], metavar="DIR",
                    help="a corpus folder whose descriptor of the format is used (repeatable)")
    im.add_argument("--message", metavar="FILE", help="the recorded stream=false body of the same request: it is "
                                                      "expect.message (provenance.expect says so)")
    im.add_argument("--strategy", metavar="MODULE:ATTR", help="a strategy that builds expect from the stream (or reads "
                                                             "the calls and text of --message); provenance.expect names it")
    im.add_argument("--id", required=True, help="the case id, format/slug")
    im.add_argument("--description", required=True)
    im.add_argument("--kind", choices=("recorded", "sanitized", "synthetic"),
                    help="default: recorded (sanitized for a capture whose body had a secret scrubbed)")
    im.add_argument("--source", help="the repository (owner/name) the capture is kept in; a committed capture "
                                     "folder brings it from the 'origin' remote")
    im.add_argument("--license", required=True, help="the SPDX id of the capture's license (Apache-2.0, MIT, ...)")
    im.add_argument("--commit", help="the full commit id (40 hex digits) the capture is kept at, required unless "
                                     "--kind synthetic; a committed capture folder brings it")
    im.add_argument("--local", action="store_true",
                    help="the capture is kept in no repository (no remote, no commit): the case's provenance says "
                         "source 'local' and names the capture in path")
    im.add_argument("--model", help="default for a capture folder: the model the stream or request names")
    im.add_argument("--captured", help="capture date, YYYY-MM-DD (default for a capture folder: its date)")
    im.add_argument("--why", help="for synthetic cases: why no recording covers this")
    im.add_argument("--tag", action="append", default=[])
    im.add_argument("-o", "--output", help="write the case here (default: stdout)")
    di = csub.add_parser(
        "diff", help="what changed between two captures, cases or corpus versions (exit 1 on drift)",
        description="Compare NEW with OLD: event types and keys never seen before, keys that disappeared, the "
                    "completion signal, the final message, case changes, and what the format's descriptor or "
                    "chunk schema does not cover. Exit 0: no drift; 1: drift; 2: an argument cannot be read.")
    di.add_argument("old", help="'bundled', a corpus folder, a case file, a capture folder, a folder of captures, "
                                "or an SSE/JSONL file")
    di.add_argument("new", help="the same kinds as OLD")
    di.add_argument("--format", help="the format of raw SSE/JSONL files (or of captures whose URL does not tell)")
    di.add_argument("--json", action="store_true", help="print the report as JSON")

    rec = sub.add_parser(
        "record", help="a recording proxy: forwards to --upstream, writes one capture folder per request",
        description="Point any client's base URL at the printed address (plus the provider's path prefix, e.g. "
                    "/v1 for OpenAI). Requests are forwarded to UPSTREAM unchanged, responses stream back "
                    "unchanged, and each exchange is written to OUT as a capture folder (request.json, the body "
                    "as received, meta.json) with credentials, cookies and organisation ids replaced.")
    rec.add_argument("--upstream", required=True, help="the provider's base URL, e.g. https://api.openai.com")
    rec.add_argument("--out", required=True, help="the folder captures are written to")
    rec.add_argument("--port", type=int, default=0, help="the port to listen on (default: any free one, printed)")
    rec.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    rec.add_argument("--format", help="the wire format, when the request path does not tell it")

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
    br = sub.add_parser("bridge", help="where the strategy bridge's files are (docs/bridge.md)")
    br.add_argument("what", choices=("js", "schemas"),
                    help="js: the file: URL of the JavaScript server module (what MCS_BRIDGE_JS holds in a run); "
                         "schemas: the folder of the protocol's JSON Schemas")
    return p


def _cmd_bridge(args: argparse.Namespace) -> int:
    from pathlib import Path

    root = Path(__file__).resolve().parent
    print((root / "bridge" / "server.mjs").as_uri() if args.what == "js" else root / "schemas" / "bridge")
    return 0


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
    if args.cmd == "record":
        return _cmd_record(args)
    if args.cmd == "bridge":
        return _cmd_bridge(args)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
