#!/usr/bin/env bash
# CI for the VS Code client (called by the repository's .ci/run):
#   apt prerequisites → npm ci → settings schema check → lint → typecheck → unit + manifest tests
#   → build → package (.vsix) → end-to-end test in code-server 4.100.3 with headless Chromium.
# Assumes `turnlens` is pip-installed in the current python (or in $TURNLENS_PYTHON).
# Environment: TURNLENS_PYTHON (default python3), TURNLENS_E2E_SCREENSHOT=1 to also rewrite
# docs/img/vscode.png, TURNLENS_SKIP_E2E=1 to stop before the end-to-end test.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
START=$SECONDS
section() {
  printf '\n==== [client-vscode %3ss] %s ====\n' "$((SECONDS - START))" "$*"
}

section "prerequisites"
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
for pkg in fonts-noto-color-emoji pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
PYTHON="${TURNLENS_PYTHON:-python3}"
"$PYTHON" -c 'import turnlens' || { echo "turnlens is not importable by $PYTHON (pip install -e <repo>)" >&2; exit 1; }
echo "node $(node --version), npm $(npm --version), $("$PYTHON" --version), $(chromium --version 2>/dev/null | head -1)"

section "npm ci"
npm ci --no-audit --no-fund

section "contributes.configuration matches \`turnlens schema\`"
npm run --silent check-config

section "lint (eslint)"
npm run --silent lint

section "typecheck (tsc --noEmit)"
npm run --silent typecheck

section "unit and manifest tests (node --test)"
npm test

section "build and package"
npm run --silent build
npm run package
ls -l turnlens-*.vsix

if [[ "${TURNLENS_SKIP_E2E:-0}" == 1 ]]; then
  section "end-to-end test skipped (TURNLENS_SKIP_E2E=1)"
  exit 0
fi

section "code-server 4.100.3 (cached)"
bash scripts/install-code-server.sh

section "end-to-end test in code-server + headless Chromium"
TURNLENS_E2E_SCREENSHOT="${TURNLENS_E2E_SCREENSHOT:-0}" npm run e2e

section "done"
