#!/usr/bin/env bash
# Installs the missing dependencies of apidex on Debian 12, non-interactively, in sets:
#   scripts/deps.sh --build   what building and running apidex need (make demo, make deps-build)
#   scripts/deps.sh --test    the build set plus the test tools and the npm packages the tests
#                             use (make deps, make test; the default)
#   scripts/deps.sh --bench   the test set plus the baselines the benchmarks measure (make bench)
#   scripts/deps.sh --fresh   the build set plus debootstrap (make test-fresh)
# Idempotent: does nothing (and needs no network) when everything is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
set_name=${1:---test}
set_name=${set_name#--}

# Compiler, CMake and the libraries apidex links (their -dev packages bring the runtime ones);
# file: CPack's Debian packager (make deb) finds the programs dpkg-shlibdeps reads with it.
BUILD_PACKAGES=(
  build-essential cmake pkg-config file
  libjson-c-dev libfyaml-dev libsqlite3-dev libopenblas-pthread-dev
  libmicrohttpd-dev libcurl4-openssl-dev libpcre2-dev libutf8proc-dev
  libxxhash-dev libzstd-dev libstemmer-dev libpq-dev libmd4c-dev
)
# What the tests run besides apidex: cmocka, the sanitizer and fuzz builds (clang), lint,
# command-line tools the e2e scripts call, the shells of the completion tests, PostgreSQL,
# the browser of the web page test, QEMU for the emulated runs (an x86-64 CPU without AVX-512,
# arm64), Node for the MCP tests.
TEST_PACKAGES=(
  libcmocka-dev clang clang-format libclang-rt-14-dev git sqlite3 curl zstd
  nodejs npm python3 python3-numpy zsh fish man-db qemu-user
  postgresql-15 chromium wrk cmark-gfm
)
# The arm64 run of make test (make test-arm64) on an amd64 host: Debian's aarch64 cross
# compiler and the arm64 libraries by multiarch (dpkg --add-architecture arm64, below), the
# programs run under qemu-aarch64 (qemu-user). libpq-dev is not co-installable across
# architectures: the cross build takes the host's headers and libpq5:arm64's library
# (cmake/pkgconfig-aarch64/libpq.pc).
ARM64_PACKAGES=()
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  ARM64_PACKAGES=(gcc-aarch64-linux-gnu)
  # the libraries of BUILD_PACKAGES (one list: a library added there is cross-built too),
  # libpq5 for libpq-dev, and cmocka for the unit tests
  for p in "${BUILD_PACKAGES[@]}" libpq5 libcmocka-dev; do
    case "$p" in build-essential | cmake | pkg-config | file | libpq-dev) continue ;; esac
    ARM64_PACKAGES+=("$p:arm64")
  done
fi
case "$set_name" in
  build) APT_PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  test) APT_PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${ARM64_PACKAGES[@]}") ;;
  bench) APT_PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" python3-torch python3-faiss) ;;
  fresh) APT_PACKAGES=("${BUILD_PACKAGES[@]}" debootstrap zstd) ;;
  *)
    echo "usage: scripts/deps.sh [--build | --test | --bench | --fresh]" >&2
    exit 2
    ;;
esac

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
  echo "deps: installing the $set_name set's Debian packages (apt-get, a minute or more):" \
    "${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  if printf '%s\n' "${missing[@]}" | grep -q ':arm64$' &&
    ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "deps: adding the arm64 architecture to dpkg (multiarch, for make test-arm64)" >&2
    $SUDO dpkg --add-architecture arm64
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# npm packages the tests use (MCP SDK and conformance suite, tiktoken and transformers for
# the tokenizer parity tests, ...; pinned in tools/node/package-lock.json). The build needs
# none of them: the cl100k ranks it embeds are in tools/cl100k/.
case "$set_name" in test | bench) ;; *) exit 0 ;; esac
stamp="$here/tools/node/node_modules/.apidex-stamp"
# A linked node_modules (git worktrees sharing one) is left alone: npm ci would empty the
# folder it points to under every other worktree. Its owner keeps it current.
if [ -L "$here/tools/node/node_modules" ]; then
  [ -f "$stamp" ] || echo "deps: tools/node/node_modules is a link: not running npm ci in it" >&2
elif [ ! -f "$stamp" ] || [ "$here/tools/node/package-lock.json" -nt "$stamp" ]; then
  echo "deps: installing the npm packages the tests use in tools/node (npm ci, about 30 s)" >&2
  (cd "$here/tools/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$stamp"
fi
