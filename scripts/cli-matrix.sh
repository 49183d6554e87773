#!/usr/bin/env bash
# Runs the end-to-end suites against other real Copilot CLI versions (the contract tests).
# Usage: scripts/cli-matrix.sh [version ...]   (default: the oldest supported and the newest published)
set -euo pipefail
cd "$(dirname "$0")/.."

OLDEST_SUPPORTED=1.0.85
DEFAULT=$(node -e "console.log(require('./package.json').devDependencies['@github/copilot'].replace(/^[^0-9]*/, ''))")
if [ $# -gt 0 ]; then
  versions=("$@")
else
  newest=$(npm view @github/copilot version 2>/dev/null || echo "$DEFAULT")
  versions=("$OLDEST_SUPPORTED")
  [ "$newest" != "$DEFAULT" ] && versions+=("$newest")
fi

for version in "${versions[@]}"; do
  prefix=".cache/cli-$version"
  if [ ! -x "$prefix/node_modules/@github/copilot-linux-x64/copilot" ]; then
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "@github/copilot@$version"
  fi
  binary="$prefix/node_modules/@github/copilot-$(node -p 'process.platform + "-" + process.arch')/copilot"
  echo "::group::e2e against Copilot CLI $version"
  COPILOT_CLI_PATH="$PWD/$binary" npm test -- __tests__/e2e/
  echo "::endgroup::"
done
