#!/usr/bin/env bash
# Installs every missing build/test dependency of apidex on Debian 12, non-interactively.
# Idempotent: does nothing (and needs no network) when everything is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

APT_PACKAGES=(
  build-essential cmake pkg-config git clang clang-format libclang-rt-14-dev
  libjson-c-dev libfyaml-dev libsqlite3-dev sqlite3 libopenblas-pthread-dev
  libmicrohttpd-dev libcurl4-openssl-dev curl libpcre2-dev libutf8proc-dev
  libxxhash-dev libzstd-dev libstemmer-dev libcmocka-dev
  nodejs npm python3 python3-numpy zsh fish man-db qemu-user
  postgresql-15 libpq-dev chromium wrk cmark-gfm
)
# `deps.sh --bench` (make bench) adds the baselines the benchmarks measure against.
if [ "${1:-}" = "--bench" ]; then APT_PACKAGES+=(python3-torch python3-faiss); fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  # nodejs/npm may come from elsewhere on a developer machine: accept the commands.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    python3) [ -x /usr/bin/python3 ] && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages (apt-get, a minute or more): ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# npm packages used by the parity and end-to-end tests (pinned in tools/node/package-lock.json).
if [ -f "$here/tools/node/package.json" ]; then
  stamp="$here/tools/node/node_modules/.apidex-stamp"
  # A linked node_modules (git worktrees sharing one) is left alone: npm ci would empty the
  # folder it points to under every other worktree. Its owner keeps it current.
  if [ -L "$here/tools/node/node_modules" ]; then
    [ -f "$stamp" ] || echo "deps: tools/node/node_modules is a link: not running npm ci in it" >&2
  elif [ ! -f "$stamp" ] || [ "$here/tools/node/package-lock.json" -nt "$stamp" ]; then
    echo "deps: installing the npm packages in tools/node (npm ci, about 30 s: the tokenizer" \
      "ranks the build embeds, the MCP SDK and conformance suite the tests use)" >&2
    (cd "$here/tools/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$stamp"
  fi
fi

# The cl100k_base ranks the build embeds (npm tiktoken, MIT): pin their content. A damaged
# or changed file gets one fresh `npm ci`; if it still differs, stop with the reason.
if [ -f "$here/tools/node/package.json" ]; then
  cl100k_json="$here/tools/node/node_modules/tiktoken/encoders/cl100k_base.json"
  cl100k_sha256=49a4e05dea02c8fafbd50cc4725c4aab8f39386c0afedef118e0dfebc2fe523a
  cl100k_ok() { [ -f "$cl100k_json" ] && echo "$cl100k_sha256  $cl100k_json" | sha256sum -c --status; }
  if ! cl100k_ok; then
    if [ -L "$here/tools/node/node_modules" ]; then
      # the same rule as above: never empty a node_modules other worktrees share
      echo "deps: $cl100k_json missing or changed in the linked tools/node/node_modules:" \
        "run npm ci in the folder it points to" >&2
      exit 1
    fi
    echo "deps: $cl100k_json missing or changed: reinstalling npm packages" >&2
    (cd "$here/tools/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$here/tools/node/node_modules/.apidex-stamp"
    if ! cl100k_ok; then
      echo "deps: $cl100k_json does not have sha256 $cl100k_sha256 (tiktoken version in package-lock.json?)" >&2
      exit 1
    fi
  fi
fi
