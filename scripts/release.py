"""Build the release and prove it works as a new user installs it.

    python scripts/release.py                 # build dist/, check it, install it into an empty virtualenv, run it
    python scripts/release.py --skip-install  # build and check only
    python scripts/release.py --keep          # keep the temporary folder of the install run (its path is printed)
    python scripts/release.py --reference text-json --workers 0   # one reference strategy, in one process

Steps, each printed as ``ok:`` or ``error:``:

1. the version: ``mcs_conformance.__version__`` is the only place it is written; the top entry of
   CHANGELOG.md names it and the corpus it bundles, and the pins in README.md and docs/ci.md name
   both;
2. the build: ``python -m build`` writes the sdist, then the wheel from the sdist, into --outdir;
3. the metadata: ``twine check --strict`` on both;
4. the file lists: the wheel holds exactly the files git tracks under ``mcs_conformance/`` (nothing
   missing, nothing stray) and its metadata; the sdist holds those, the files the build reads
   (pyproject.toml, README.md, LICENSE, MANIFEST.in) and CHANGELOG.md, and what setuptools generates;
5. the install: a new virtualenv in a temporary folder outside the clone, the wheel installed with
   pip (and pytest-xdist, as docs/ci.md's job has it), nothing of the clone on ``sys.path``; then
   the bundled Hermes example and the suite on each reference strategy that has a golden-snapshot
   folder in tests/mcs-conformance/ (copied beside it) run green from it, and a
   new author's strategy module in an empty folder gets the first-run message, the command it
   prints writes the snapshots, and the second run is green.

Exit 0 when the folder can be uploaded as it is (``twine upload dist/*``); docs/releasing.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "mcs_conformance"
DIST_NAME = "mcs-conformance"
# files of the tree the sdist carries besides the package: what the build reads, and the changelog
SDIST_EXTRA = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "CHANGELOG.md")
# what setuptools writes into an sdist itself
SDIST_GENERATED = re.compile(r"^(PKG-INFO|setup\.cfg|mcs_conformance\.egg-info/[^/]+)$")
WHEEL_METADATA = ("METADATA", "WHEEL", "RECORD", "entry_points.txt", "top_level.txt", "licenses/LICENSE")
# documents whose examples pin the package (`mcs-conformance==X.Y.Z`) and the corpus
# (`--mcs-corpus-version=V`, `corpus-version: "V"`): they must name the current ones
PINNED_IN = ("README.md", "docs/ci.md")
# the reference strategies whose suites run from the installed wheel: every golden-snapshot folder of
# tests/mcs-conformance/ named <name>@mcs_conformance.strategies.<Attr> (a new reference strategy
# joins by committing its snapshots)
SNAPSHOTS = ROOT / "tests" / "mcs-conformance"
PUBLIC = "mcs_conformance.strategies"


def reference_folders(snapshots: Path = SNAPSHOTS) -> dict[str, str]:
    """Strategy name -> snapshot folder, for the reference strategies with committed snapshots."""
    return {d.name.split("@", 1)[0]: d.name for d in sorted(snapshots.iterdir())
            if d.is_dir() and "@" in d.name and d.name.split("@", 1)[1].rsplit(".", 1)[0] == PUBLIC}


class ReleaseError(Exception):
    """A step found the release not fit to publish; the message says what and where."""


@dataclass
class Lists:
    """What one archive holds against what it should: the two differences, each sorted."""

    missing: list[str] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)

    def problems(self, archive: str) -> list[str]:
        out = [f"{archive} lacks {p}" for p in self.missing]
        return out + [f"{archive} holds {p}, which the tree does not track" for p in self.stray]


# --- the version -------------------------------------------------------------------------------


def package_version(root: Path = ROOT) -> str:
    """``__version__`` as written in the package's ``__init__.py`` (read, not imported)."""
    tree = ast.parse((root / PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    raise ReleaseError(f"{PACKAGE}/__init__.py assigns no string __version__")


def version_problems(root: Path = ROOT) -> list[str]:
    """Where the version is written twice, or a document names another one."""
    version = package_version(root)
    problems = []
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if "version" in project or "version" not in project.get("dynamic", []):
        problems.append("pyproject.toml writes a version: it must read it from mcs_conformance.__version__ "
                        "(dynamic = [\"version\"])")
    changelog = root / "CHANGELOG.md"
    heads = re.findall(r"(?m)^## (\S+)", changelog.read_text(encoding="utf-8")) if changelog.is_file() else []
    if not heads:
        problems.append("CHANGELOG.md has no '## <version>' entry")
    elif heads[0] != version:
        problems.append(f"CHANGELOG.md's top entry is {heads[0]}, the package's version is {version}")
    corpus = json.loads((root / PACKAGE / "corpus" / "manifest.json").read_text(encoding="utf-8"))["version"]
    if heads and heads[0] == version:
        top = re.split(r"(?m)^## ", changelog.read_text(encoding="utf-8"))[1]
        if f"corpus {corpus}" not in top:
            problems.append(f"CHANGELOG.md's entry for {version} does not name the corpus it bundles, {corpus} "
                            f"(write 'It bundles corpus {corpus}.')")
    for rel in PINNED_IN:
        text = (root / rel).read_text(encoding="utf-8")
        for pin in sorted(set(re.findall(rf"{DIST_NAME}==([0-9][^\s\"'`]*)", text))):
            if pin != version:
                problems.append(f"{rel} pins {DIST_NAME}=={pin}, the package's version is {version}")
        for pin in sorted(set(re.findall(r"corpus-version[=:] ?\"?([0-9][0-9.]*[0-9])", text))):
            if pin != corpus:
                problems.append(f"{rel} pins the corpus version {pin}, the bundled corpus is {corpus}")
    return problems


# --- the file lists ----------------------------------------------------------------------------


def tracked(root: Path = ROOT) -> list[str]:
    """The files git tracks in the tree, repository-relative."""
    done = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError(f"git ls-files failed in {root}: the release is checked against a git checkout "
                           f"({done.stderr.strip()})")
    return sorted(p for p in done.stdout.split("\0") if p)


def compare(expected: set[str], actual: set[str]) -> Lists:
    return Lists(missing=sorted(expected - actual), stray=sorted(actual - expected))


def wheel_lists(names: list[str], tree: list[str], version: str) -> Lists:
    """The wheel against the tree: the tracked package files, and the dist-info's own files."""
    info = f"{PACKAGE}-{version}.dist-info/"
    expected = {p for p in tree if p.startswith(PACKAGE + "/")} | {info + m for m in WHEEL_METADATA}
    return compare(expected, {n for n in names if not n.endswith("/")})


def sdist_lists(members: list[str], tree: list[str], version: str) -> Lists:
    """The sdist against the tree: the package, SDIST_EXTRA, and what setuptools generates."""
    top = f"{PACKAGE}-{version}/"
    outside = sorted(m for m in members if not m.startswith(top) and m != top.rstrip("/"))
    inside = {m[len(top):] for m in members if m.startswith(top)}
    inside = {m for m in inside if m and not SDIST_GENERATED.match(m)}
    expected = {p for p in tree if p.startswith(PACKAGE + "/")} | {p for p in SDIST_EXTRA if p in tree}
    lists = compare(expected, inside)
    lists.stray += outside
    return lists


def archive_names(dist: Path, version: str) -> tuple[list[str], list[str]]:
    """The wheel's names and the sdist's regular-file members."""
    wheel = dist / f"{PACKAGE}-{version}-py3-none-any.whl"
    sdist = dist / f"{PACKAGE}-{version}.tar.gz"
    for path in (wheel, sdist):
        if not path.is_file():
            raise ReleaseError(f"the build wrote no {path.name} into {dist}")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    with tarfile.open(sdist) as tf:
        members = [m.name for m in tf.getmembers() if m.isfile()]
    return names, members


# --- running things ----------------------------------------------------------------------------


def run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None, what: str) -> subprocess.CompletedProcess:
    """Run a command; a non-zero exit is a ReleaseError naming the step and showing the output's end."""
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stdout[-3000:] + "\n" + done.stderr[-3000:]).strip()
        raise ReleaseError(f"{what}: `{' '.join(args)}` exited with {done.returncode} in {cwd}\n{tail}")
    return done


def build(outdir: Path) -> None:
    """The sdist, then the wheel built from it (so a file the sdist lacks is missing from the wheel too)."""
    for old in outdir.glob(f"{PACKAGE}-*"):
        old.unlink()
    run([sys.executable, "-m", "build", "--outdir", str(outdir), str(ROOT)], cwd=ROOT, what="the build")


def twine_check(outdir: Path, version: str) -> None:
    files = [str(outdir / f"{PACKAGE}-{version}-py3-none-any.whl"), str(outdir / f"{PACKAGE}-{version}.tar.gz")]
    run([sys.executable, "-m", "twine", "check", "--strict", *files], cwd=ROOT, what="twine check")


def clean_env(home: Path, venv: Path, **extra: str) -> dict[str, str]:
    """An environment with the virtualenv first on PATH and nothing that points into the clone."""
    return {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "CI": "true",
            "LANG": "C.UTF-8", **extra}


def install_and_run(outdir: Path, version: str, work: Path, references: list[str], workers: int) -> list[str]:
    """Install the wheel into a new virtualenv under ``work`` and run what a new user runs; the lines to print.

    ``workers`` > 0 installs pytest-xdist beside it, as docs/ci.md's job does, and runs the
    reference strategies' suites with ``-n workers``."""
    if work.resolve().is_relative_to(ROOT):
        raise ReleaseError(f"the install folder {work} is inside the clone {ROOT}")
    said = []
    t0 = time.monotonic()

    def took() -> str:
        nonlocal t0
        seconds, t0 = time.monotonic() - t0, time.monotonic()
        return f" ({seconds:.0f} s)"

    venv, home = work / "venv", work / "home"
    home.mkdir(parents=True)
    run([sys.executable, "-m", "venv", str(venv)], cwd=work, what="a new virtualenv")
    py = str(venv / "bin" / "python")
    pip_env = {**clean_env(home, venv), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if "PIP_CACHE_DIR" in os.environ or (Path.home() / ".cache" / "pip").is_dir():  # reuse downloads, not code
        pip_env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    wheel = outdir / f"{PACKAGE}-{version}-py3-none-any.whl"
    xdist = ["pytest-xdist>=3.5"] if workers else []
    run([py, "-m", "pip", "install", "--quiet", str(wheel), *xdist], cwd=work, env=pip_env,
        what="pip install of the wheel")

    probe = run([py, "-c", "import json, sys, mcs_conformance as m; "
                           "print(json.dumps([m.__file__, m.__version__, sys.path]))"],
                cwd=work, env=clean_env(home, venv), what="importing the installed package")
    where, got, path = json.loads(probe.stdout)
    if not Path(where).resolve().is_relative_to(venv.resolve()):
        raise ReleaseError(f"mcs_conformance was imported from {where}, not from the new virtualenv {venv}")
    if got != version:
        raise ReleaseError(f"the installed package says version {got}, the release is {version}")
    inside = [p for p in path if p and Path(p).resolve().is_relative_to(ROOT)]
    if inside:
        raise ReleaseError(f"sys.path of the installed run holds folders of the clone: {inside}")
    said.append(f"ok: the wheel installs into an empty virtualenv ({venv}); mcs_conformance {got} imports from it" + took())

    # the bundled example, copied out of the clone, run the way examples/README.md says
    example = work / "hermes"
    shutil.copytree(ROOT / "examples" / "hermes", example, ignore=shutil.ignore_patterns("__pycache__", ".mcs-conformance"))
    env = clean_env(home, venv, PYTHONPATH=str(example))
    run([str(venv / "bin" / "mcs-conformance"), "check", "hermes_strategy:HermesStrategy", "--mcs-corpus=corpus"],
        cwd=example, env=env, what="the Hermes example from the wheel")
    said.append("ok: " + _summary(example / ".mcs-conformance" / "report.json", "the Hermes example (examples/hermes)") + took())

    # the reference strategies with the clone's golden snapshots: the installed suite gives what the tree gives
    reference = work / "reference"
    folders = reference_folders()
    for name in references:
        folder = folders[name]
        shutil.copytree(ROOT / "tests" / "mcs-conformance" / folder, reference / "tests" / "mcs-conformance" / folder)
        module, attr = folder.split("@", 1)[1].rsplit(".", 1)
        parallel = ["-n", str(workers)] if workers else []
        report = reference / ".mcs-conformance" / f"{name}.json"
        run([str(venv / "bin" / "mcs-conformance"), "check", f"{module}:{attr}", f"--report={report}", *parallel],
            cwd=reference, env=clean_env(home, venv), what=f"the suite on {attr} from the wheel")
        said.append("ok: " + _summary(report, f"the suite on {attr}", snapshots=True) + took())

    # a new author: a strategy module in an empty folder, the first run, the command it prints, the second run
    mine = work / "author"
    (mine / "my_pkg").mkdir(parents=True)
    (mine / "my_pkg" / "__init__.py").write_text("", encoding="utf-8")
    (mine / "my_pkg" / "mytext.py").write_text(
        "from mcs_conformance.strategies import TextStrategy\n\n\nclass MyText(TextStrategy):\n    name = \"mytext\"\n",
        encoding="utf-8")
    env = clean_env(home, venv, PYTHONPATH=str(mine))
    args = [py, "-m", "pytest", "--mcs-strategy=my_pkg.mytext:MyText", "--mcs-only", "-q", "-p", "no:cacheprovider"]
    first = subprocess.run(args, cwd=mine, env=env, capture_output=True, text=True)
    lines = first.stdout.splitlines()
    command = next((ln.strip() for ln in lines if ln.strip().endswith("--snapshot-update")), None)
    if first.returncode != 1 or first.stdout.count("do not exist yet") != 1 or command is None:
        raise ReleaseError("a new author's first run should end with exit 1 and one message giving the command that "
                           f"writes the snapshots; it exited {first.returncode}:\n{first.stdout[-3000:]}")
    run(["bash", "-c", command], cwd=mine, env=env, what="the snapshot command the first run printed")
    run(args, cwd=mine, env=env, what="a new author's second run")
    said.append("ok: a new author's strategy in an empty folder: the first run names the snapshot command, "
                "the second run is green" + took())
    return said


def _summary(report_path: Path, what: str, snapshots: bool = False) -> str:
    """One line from a run's JSON report; a failing or snapshot-less item is a ReleaseError."""
    data = json.loads(report_path.read_text(encoding="utf-8"))
    outcomes: dict[str, int] = {}
    for r in data.get("results", []):
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    bad = {k: n for k, n in outcomes.items() if k in ("failed", "error", "stale-xfail")}
    if snapshots:
        bad.update({k: n for k, n in outcomes.items() if k == "no-snapshot"})
    if bad or not data.get("results"):
        raise ReleaseError(f"{what}: {bad or 'no result'} in {report_path}")
    return f"{what}: {len(data['results'])} items, " + ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))


# --- the command --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--outdir", default=str(ROOT / "dist"), help="where the sdist and wheel are written (default: dist/)")
    p.add_argument("--skip-install", action="store_true", help="build and check only, no virtualenv")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder of the install run")
    p.add_argument("--reference", action="append", choices=sorted(reference_folders()), metavar="NAME",
                   help="a reference strategy whose suite runs from the wheel (repeatable; default: every one "
                        "with a snapshot folder in tests/mcs-conformance/)")
    p.add_argument("--workers", type=int, default=2, help="pytest-xdist workers for those runs (0: one process)")
    args = p.parse_args(argv)
    outdir = Path(args.outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    problems: list[str] = []
    try:
        version = package_version()
        problems += version_problems()
        if not problems:
            print(f"ok: version {version}: written once (mcs_conformance/__init__.py), named by CHANGELOG.md and "
                  f"the pins of {', '.join(PINNED_IN)}")
        t = time.monotonic()
        build(outdir)
        print(f"ok: built {PACKAGE}-{version}.tar.gz and the wheel from it into {outdir} "
              f"({time.monotonic() - t:.0f} s)")
        twine_check(outdir, version)
        print("ok: twine check --strict passes on both")
        names, members = archive_names(outdir, version)
        tree = tracked()
        found = wheel_lists(names, tree, version).problems("the wheel") + \
            sdist_lists(members, tree, version).problems("the sdist")
        problems += found
        if not found:
            print(f"ok: the wheel's {len(names)} files and the sdist's {len(members)} match the tree "
                  "(nothing missing, nothing stray)")
        if not args.skip_install:
            work = Path(tempfile.mkdtemp(prefix="mcs-release-"))
            try:
                for line in install_and_run(outdir, version, work, args.reference or list(reference_folders()), args.workers):
                    print(line)
            finally:
                if args.keep:
                    print(f"kept: {work}")
                else:
                    shutil.rmtree(work, ignore_errors=True)
    except ReleaseError as exc:
        problems.append(str(exc))
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    seconds = time.monotonic() - started
    if problems:
        print(f"release check failed ({len(problems)} problem(s), {seconds:.0f} s)", file=sys.stderr)
        return 1
    print(f"release {version} is ready to upload: twine upload {outdir}/{PACKAGE}-{version}* ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
