#!/usr/bin/env bash
# Runs the end-to-end suites against other real Copilot CLI versions (the contract tests).
# Usage: scripts/cli-matrix.sh [version ...]   (default: the oldest supported and the newest published)
#        MATRIX_ALL=1 scripts/cli-matrix.sh     (every end-to-end suite, not only the contract ones)
#        scripts/cli-matrix.sh --install-only [version ...]   (installs the versions, runs nothing:
#        .ci/run downloads them while it lints and builds)
set -euo pipefail
cd "$(dirname "$0")/.."

install_only=false
if [ "${1:-}" = --install-only ]; then
  install_only=true
  shift
fi

OLDEST_SUPPORTED=1.0.85
DEFAULT=$(node -e "console.log(require('./package.json').devDependencies['@github/copilot'].replace(/^[^0-9]*/, ''))")
if [ $# -gt 0 ]; then
  versions=("$@")
else
  newest=$(npm view @github/copilot version 2>/dev/null || echo "$DEFAULT")
  versions=("$OLDEST_SUPPORTED")
  [ "$newest" != "$DEFAULT" ] && versions+=("$newest")
fi

# The contract suites: what depends on the CLI's version — the protocol (connect, session,
# events, permission requests, shell.exec/kill, resume, fleet, MCP and agent files), the CLI's own
# sandbox and tools (grep/glob) behind the outer wall, and what the CLI reads from the tree. The
# other end-to-end suites test the action's own logic with the CLI as a driver (publish, the
# comment, rollups, the audit's corner cases) and run against the pinned version in `npm test`.
# MATRIX_ALL=1 runs every end-to-end suite against each version.
CONTRACT=(spine startup robustness sandbox cli-wall resume fleet mcp-agent hostile-agent
  untrusted-config tree-links environment)
if [ "${MATRIX_ALL:-}" = 1 ]; then
  suites=(__tests__/e2e/)
else
  suites=()
  for name in "${CONTRACT[@]}"; do suites+=("__tests__/e2e/$name.test.ts"); done
fi

for version in "${versions[@]}"; do
  prefix=".cache/cli-$version"
  if [ ! -x "$prefix/node_modules/@github/copilot-linux-x64/copilot" ]; then
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "@github/copilot@$version"
  fi
  binary="$prefix/node_modules/@github/copilot-$(node -p 'process.platform + "-" + process.arch')/copilot"
  if [ "$install_only" = true ]; then
    echo "Copilot CLI $version: $binary"
    continue
  fi
  echo "::group::e2e against Copilot CLI $version"
  COPILOT_CLI_PATH="$PWD/$binary" npm test -- "${suites[@]}"
  echo "::endgroup::"
done
