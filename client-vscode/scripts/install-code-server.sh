#!/usr/bin/env bash
# Install code-server 4.100.3 (VS Code 1.100.3) from npm into a cache folder outside the repo,
# for the end-to-end test. Reused when present (a stamp file marks a complete install).
# Prints the path of the code-server launcher on its last line.
#
# Offline quirks handled here (see shared/notes/real-editors.md):
#  - @vscode/ripgrep's postinstall downloads ripgrep from GitHub; we feed it Debian's rg through
#    its cache folder ($TMPDIR/vscode-ripgrep-cache-1.15.11/...).
#  - node-pty's postinstall runs `npx node-gyp`; npm 11 cancels that without a terminal unless
#    npm_config_yes=true.
set -euo pipefail

VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE_ROOT="${TURNLENS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/turnlens-e2e}"
DIR="$CACHE_ROOT/code-server-$VERSION"
BIN="$DIR/node_modules/code-server/out/node/entry.js"
STAMP="$DIR/.installed"

if [[ -f "$STAMP" && -f "$BIN" ]]; then
  echo "code-server $VERSION already installed in $DIR" >&2
  echo "$DIR/node_modules/.bin/code-server"
  exit 0
fi

need_apt=()
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
for pkg in pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  echo "installing apt packages: ${need_apt[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >&2
fi

rm -rf "$DIR"
mkdir -p "$DIR"
TMP_ROOT="$(mktemp -d)"
trap 'rm -rf "$TMP_ROOT"' EXIT
RG_CACHE="$TMP_ROOT/vscode-ripgrep-cache-1.15.11"
mkdir -p "$RG_CACHE"
cp "$(command -v rg)" "$TMP_ROOT/rg"
tar -C "$TMP_ROOT" -czf "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg

printf '{"name":"turnlens-e2e-code-server","private":true,"version":"0.0.0"}\n' > "$DIR/package.json"
echo "installing code-server@$VERSION into $DIR (about a minute)..." >&2
(
  cd "$DIR"
  TMPDIR="$TMP_ROOT" npm_config_yes=true npm install "code-server@$VERSION" \
    --unsafe-perm --foreground-scripts --no-audit --no-fund --loglevel=error >"$DIR/install.log" 2>&1
) || { echo "code-server install failed; log:" >&2; tail -40 "$DIR/install.log" >&2; exit 1; }
[[ -f "$BIN" ]] || { echo "code-server install incomplete: $BIN missing" >&2; exit 1; }
touch "$STAMP"
echo "$DIR/node_modules/.bin/code-server"
