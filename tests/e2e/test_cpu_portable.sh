#!/usr/bin/env bash
# apidex on a CPU without AVX-512: a local-model `apidex embed` under QEMU user mode with a
# Haswell CPU model (AVX2 and FMA, no AVX-512) gives the vector it gives on this CPU, in the
# environment CTest gives every test and once more with OPENBLAS_CORETYPE unset so apidex's
# own choice of the BLAS core (src/embed/cpu.c) is what runs. A forced AVX-512 core dies there
# with SIGILL. (Every unit test and test_embed_cli.sh run under the same model as CTest's
# qemu_haswell_* tests, CMakeLists.txt.)
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN must point to the apidex binary}
src=${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
name=test_cpu_portable
if [ "${APIDEX_SANITIZED:-}" = 1 ]; then
  echo "$name: skipped under the sanitizers (ASan's shadow memory does not map under QEMU user mode; the release pass runs it)"
  exit 0
fi
command -v qemu-x86_64 >/dev/null || { echo "$name: FAIL: qemu-x86_64 not found (scripts/deps.sh installs qemu-user)" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || { echo "$name: skipped (not an x86-64 host)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
pass=0

if "$PY" -c 'import numpy' 2>/dev/null; then
  export APIDEX_CACHE_DIR=$tmp/cache
  unset APIDEX_MODEL APIDEX_EMBED_URL APIDEX_EMBED_KEY OPENAI_API_KEY APIDEX_EMBED_PROVIDER
  "$PY" "$src/tests/embed/gen_bert.py" --out "$APIDEX_CACHE_DIR/models/bge-mini-en" \
    --hidden 32 --layers 2 --heads 2 --vocab 300
  "$bin" embed --model bge-mini-en --json "list the movies" >"$tmp/native.json"
  for env_mode in as-given unset; do
    envs=()
    [ "$env_mode" = unset ] && envs=(-u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
    rc=0
    env "${envs[@]}" qemu-x86_64 -cpu Haswell "$bin" embed --model bge-mini-en --json \
      "list the movies" >"$tmp/q.json" 2>"$tmp/q.err" || rc=$?
    [ "$rc" = 0 ] || { grep -v "TCG doesn't" "$tmp/q.err" >&2; fail "apidex embed under QEMU Haswell ($env_mode OPENBLAS_CORETYPE) exited $rc"; }
    # the same vector as on this CPU, within float tolerance
    "$PY" - "$tmp/native.json" "$tmp/q.json" <<'PYEOF' || fail "apidex embed under QEMU Haswell ($env_mode) differs from native"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
va, vb = a["embeddings"][0], b["embeddings"][0]
assert len(va) == len(vb) and len(va) > 0, (len(va), len(vb))
assert max(abs(x - y) for x, y in zip(va, vb)) < 1e-4
PYEOF
    pass=$((pass + 1))
  done
else
  echo "$name: apidex embed part skipped (/usr/bin/python3 with numpy not found)"
fi
echo "$name: $pass passed, 0 failed"
