"""The glue check: each adapter's converted message beside the library's own output, case by case.

An adapter converts what its library built into the shapes the suite reads; the conversion
must neither make nor hide a result (harnesses/README.md). So every adapter module offers

* ``glue_view(case) -> {"library": V, "adapter": V}`` (Python; a JavaScript peer exports
  ``glueView``): ``library`` read from the library's own output object for the case's chunks
  fed through the path the strategy uses, ``adapter`` read from the adapter's converted
  message through its own ``extract`` and ``content_text``; ``V = {"text": str | None,
  "calls": [{"id", "name", "arguments"}], "stop": str | None, "refused": str | None}``;
* ``GLUE_LISTED: dict[str, str]``: the difference keys the adapter knows of, each with why
  (as its module docstring lists its glue choices); a key ``KEY:CASE_ID`` lists a difference
  on that case alone.

This runner loads the cases of the harness's format from the bundled corpus, asks the
adapter for both views of each (a ``glue_view`` answers ``None`` for a case it has no library
view of: a message case the adapter reads with no library call), compares them and reports
every difference (case, key, library value, adapter value), listed or not. Keys: ``refused``
(one side refused, the other did not), ``refused.type`` (both refused, with other errors:
``"provider error"`` stands for the suite's ``StreamError`` and the SDK's ``APIError`` alike),
``stop``, ``text``, ``text.type`` (content that is no text on one side), ``calls.count``,
``calls.order`` (the same calls in another order), ``calls.id``, ``calls.name``,
``calls.arguments`` (the first call that differs), ``view`` (the adapter's ``glue_view``
raised). No text and ``""`` read alike, and so do a call name ``None`` and ``""`` (a
``ToolCall``'s name is a string).

    python -m harnesses.glue_check HARNESS_ID [--out glue.json] [--case ID ...]   # in the harness's virtualenv

A Python adapter is imported here (run it in the harness's virtualenv); a JavaScript one is run
as ``node harnesses/js/glue_check.mjs <adapter.mjs>``, one case JSON per stdin line; it prints
one view JSON per case (``null`` for a case it has no library view of), optionally after a
first line ``{"GLUE_LISTED": {...}}``; without that line the adapter module's ``GLUE_LISTED``
export is read with node. Without that runner in the checkout the check says so and exits 3.
The record (``--out``) holds the adapter file's sha256, the corpus hash, the listed keys, the
counts and every difference; ``scripts/implementations_report.py collect`` stores it in the
harness's results, and ``check`` fails on a difference not listed or a record older than the
adapter file.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "harnesses" / "harnesses.toml"
JS_RUNNER = ROOT / "harnesses" / "js" / "glue_check.mjs"
NO_RUNNER = 3  # the exit code when the JavaScript runner is not in the checkout
KEYS = ("text", "text.type", "stop", "refused", "refused.type", "calls.count", "calls.order", "calls.id", "calls.name",
        "calls.arguments", "view")

__all__ = ["KEYS", "adapter_view", "call", "compare", "refusal", "run", "view"]


# -- what an adapter's glue_view uses -------------------------------------------------------
def call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """One call of a view."""
    return {"id": call_id, "name": name, "arguments": arguments}


def view(text: Any = None, calls: Iterable[dict[str, Any]] = (), stop: Any = None, refused: Any = None) -> dict[str, Any]:
    """A view (V): what one side answered for a case."""
    return {"text": text, "calls": list(calls), "stop": stop, "refused": refused}


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def _provider_error(exc: BaseException) -> bool:
    """An error the provider sent in the stream: the suite's ``StreamError``, or the SDK's
    ``APIError`` / ``APIStatusError`` for an error event (openai, anthropic)."""
    kind = type(exc)
    return kind.__name__ == "StreamError" or (
        kind.__name__ in ("APIError", "APIStatusError") and kind.__module__.split(".")[0] in ("openai", "anthropic"))


def refusal(exc: BaseException | None) -> str | None:
    """How a view names a refusal: ``"provider error"`` when the chain of causes holds one
    (the adapter raises the suite's ``StreamError`` where the SDK under the library raises
    ``APIError``), else the type name of the first cause (the buffer wraps what
    ``accumulate`` raised in ``MalformedChunk``; the library's own exception is its cause)."""
    if exc is None:
        return None
    chain = _chain(exc)
    if any(_provider_error(e) for e in chain):
        return "provider error"
    own = [e for e in chain if type(e).__module__.split(".")[0] != "mcs_conformance"]
    return type(own[0] if own else chain[-1]).__name__


def adapter_view(strategy: Any, case: Any, stop: Callable[[list[Any], Any], Any] | None = None,
                 arguments: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """The adapter's answer for a stream case: its chunks fed to a buffer over ``strategy``
    alone (as the suite feeds them), the message read by its ``extract`` and ``content_text``.

    ``stop(chunks, message)`` gives the adapter's finish reason from the chunks it accepted
    and its message (for a message that holds none, the wire's that its ``is_done`` reads); ``arguments(call)`` a
    ``ToolCall``'s arguments as the library holds them (default: the raw text when the
    adapter kept it, else the object)."""
    from mcs_conformance import LLMStreamBuffer, MCSError

    buf = LLMStreamBuffer([strategy])
    fed: list[Any] = []
    refused = None
    for chunk in json.loads(json.dumps(case.chunks)):
        try:
            buf.feed(chunk)
        except MCSError as exc:
            refused = exc
            break
        fed.append(chunk)
    if refused is not None:
        return view(refused=refusal(refused))
    message = buf.as_dict()
    if message is None:
        return view(stop=stop(fed, message) if stop else None)
    calls = strategy.extract(message)
    read = arguments or (lambda c: c.raw_arguments if c.raw_arguments is not None else c.arguments)
    return view(text=strategy.content_text(message), calls=[call(c.id, c.name, read(c)) for c in calls],
                stop=stop(fed, message) if stop else None)


# -- comparing -------------------------------------------------------------------------------
def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True, default=repr)


def compare(library: dict[str, Any], adapter: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Every difference between two views: ``(key, library value, adapter value)``."""
    out: list[tuple[str, Any, Any]] = []
    lr, ar = library.get("refused"), adapter.get("refused")
    if (lr is None) != (ar is None):
        out.append(("refused", lr, ar))
    elif lr is not None and lr != ar:
        out.append(("refused.type", lr, ar))
    if lr is not None or ar is not None:
        return out  # a refusal has no message to compare
    if not _same(library.get("stop"), adapter.get("stop")):
        out.append(("stop", library.get("stop"), adapter.get("stop")))
    lt, at = library.get("text"), adapter.get("text")
    if not all(isinstance(t, (str, type(None))) for t in (lt, at)):
        out.append(("text.type", lt, at))  # content that is no text (a list of parts, a number)
    elif (lt or "") != (at or ""):  # no text and "" read alike
        out.append(("text", lt, at))
    lc, ac = library.get("calls") or [], adapter.get("calls") or []
    if len(lc) != len(ac):
        out.append(("calls.count", lc, ac))
        return out
    if sorted(map(_key, lc)) == sorted(map(_key, ac)) and list(map(_key, lc)) != list(map(_key, ac)):
        out.append(("calls.order", lc, ac))
        return out
    for part in ("id", "name", "arguments"):
        for n, (x, y) in enumerate(zip(lc, ac)):
            if part == "name" and (x.get(part) or "") == (y.get(part) or ""):
                continue  # a call without a name: None and "" read alike (ToolCall.name is a str)
            if not _same(x.get(part), y.get(part)):
                out.append((f"calls.{part}", {"call": n, part: x.get(part)}, {"call": n, part: y.get(part)}))
                break
    return out


def _key(c: dict[str, Any]) -> str:
    return json.dumps({**c, "name": c.get("name") or ""}, sort_keys=True, default=repr)


# -- running ---------------------------------------------------------------------------------
def manifest_entry(harness_id: str) -> dict[str, Any]:
    for h in tomllib.loads(MANIFEST.read_text(encoding="utf-8"))["harness"]:
        if h["id"] == harness_id:
            return h
    raise SystemExit(f"error: unknown harness id {harness_id!r} (harnesses/harnesses.toml)")


def adapter_file(h: dict[str, Any]) -> Path:
    spec = h["strategy"]
    if spec.startswith("exec:"):
        return ROOT / spec.split()[-1]
    module = spec.partition(":")[0]
    return ROOT / (module.replace(".", "/") + ".py")


def _python_views(h: dict[str, Any], cases: Sequence[Any]) -> tuple[dict[str, str], list[Any]]:
    import warnings

    warnings.simplefilter("ignore")  # pydantic's serializer warnings on malformed chunks: noise here
    module = importlib.import_module(h["strategy"].partition(":")[0])
    listed = dict(getattr(module, "GLUE_LISTED"))
    views = []
    for case in cases:
        try:
            views.append(module.glue_view(case.fresh()))
        except Exception as exc:  # the view itself broke: a difference nobody listed
            views.append(exc)
    return listed, views


def _js_views(h: dict[str, Any], cases: Sequence[Any], node: str) -> tuple[dict[str, str], list[Any]]:
    if not JS_RUNNER.is_file():
        print(f"note: {JS_RUNNER.relative_to(ROOT)} is not in this checkout: the JavaScript adapters' glue views "
              f"cannot be read yet (harness {h['id']}); no glue record written", file=sys.stderr)
        raise SystemExit(NO_RUNNER)
    lines = "".join(json.dumps(c.data, ensure_ascii=False) + "\n" for c in cases)
    done = subprocess.run([node, str(JS_RUNNER), str(adapter_file(h))], input=lines, capture_output=True,
                          text=True, cwd=ROOT, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"error: {JS_RUNNER.relative_to(ROOT)} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    out = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if out and isinstance(out[0], dict) and "GLUE_LISTED" in out[0] and len(out) == len(cases) + 1:
        listed, views = out[0]["GLUE_LISTED"], out[1:]
    else:  # one view a case: the listed keys are the module's export
        views = out
        read = subprocess.run([node, "--input-type=module", "-e",
                               "const m = await import(process.argv[1]); "
                               "console.log(JSON.stringify(m.GLUE_LISTED ?? null))", adapter_file(h).as_uri()],
                              capture_output=True, text=True, cwd=ROOT, timeout=600)
        listed = json.loads(read.stdout.strip().splitlines()[-1]) if read.returncode == 0 and read.stdout.strip() else None
        if not isinstance(listed, dict):
            raise SystemExit(f"error: {adapter_file(h).relative_to(ROOT)} exports no GLUE_LISTED object "
                             f"({read.stderr.strip()[-500:]})")
    if len(views) != len(cases):
        raise SystemExit(f"error: {JS_RUNNER.relative_to(ROOT)} printed {len(views)} views for {len(cases)} cases")
    return listed, [v if v is None or "library" in v else RuntimeError(v.get("error", "no view")) for v in views]


def run(harness_id: str, node: str = "node", only: Sequence[str] = ()) -> dict[str, Any]:
    """The glue record of one harness: every difference of every stream case of its format."""
    from mcs_conformance.corpus_tools.corpus import load_corpus

    h = manifest_entry(harness_id)
    corpus = load_corpus()
    cases = [c for c in corpus.for_format(h["format"]) if not only or c.id in only]
    listed, views = (_js_views(h, cases, node) if h["strategy"].startswith("exec:")
                     else _python_views(h, cases))
    differences, viewed = [], 0
    for case, v in zip(cases, views):
        if v is None:  # the adapter has no library view of this case (a message case it reads alone)
            continue
        viewed += 1
        if isinstance(v, Exception):
            found = [("view", None, f"{type(v).__name__}: {v}"[:300])]
        else:
            found = compare(v["library"], v["adapter"])
        for key, lib, ad in found:
            differences.append({"case": case.id, "key": key, "listed": key in listed or f"{key}:{case.id}" in listed,
                                "library": _short(lib), "adapter": _short(ad)})
    path = adapter_file(h)
    unlisted = sum(not d["listed"] for d in differences)
    return {
        "adapter": path.relative_to(ROOT).as_posix(),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "corpus_hash": corpus.content_hash,
        "cases": viewed,
        "listed": dict(sorted(listed.items())),
        "differences_listed": len(differences) - unlisted,
        "differences_unlisted": unlisted,
        "differences": differences,
    }


def _short(value: Any) -> str:
    """A value as ASCII JSON text of at most 300 characters (a case's lone surrogate stays an escape)."""
    text = json.dumps(value, sort_keys=True, default=repr)
    return text if len(text) <= 300 else text[:297] + "..."


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("harness")
    p.add_argument("--out", type=Path, default=None, help="write the record here (JSON)")
    p.add_argument("--node", default=os.environ.get("NODE", "node"))
    p.add_argument("--case", action="append", default=[], help="only this case id (repeatable)")
    args = p.parse_args(argv)
    record = run(args.harness, args.node, args.case)
    text = json.dumps(record, indent=1) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    for d in record["differences"]:
        if not d["listed"]:
            print(f"unlisted: {d['case']}: {d['key']}: library {d['library'][:200]} adapter {d['adapter'][:200]}")
    print(f"{args.harness}: {record['cases']} cases, {record['differences_listed']} listed differences, "
          f"{record['differences_unlisted']} not listed ({record['adapter']})")
    return 1 if record["differences_unlisted"] else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
