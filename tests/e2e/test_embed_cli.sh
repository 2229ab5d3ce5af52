#!/usr/bin/env bash
# `apidex embed` and `apidex model` end to end: a generated model in a private cache, the JSON
# and plain outputs, stdin input, the HTTP provider and `model pull` against a local mock.
set -euo pipefail
bin=${APIDEX_BIN:?APIDEX_BIN must point to the apidex binary}
src=${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "test_embed_cli: skipped (/usr/bin/python3 with numpy not found)"
  exit 0
fi
tmp=$(mktemp -d)
mock_pid=""
cleanup() {
  [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
export APIDEX_CACHE_DIR=$tmp/cache
unset APIDEX_MODEL APIDEX_EMBED_URL APIDEX_EMBED_KEY OPENAI_API_KEY APIDEX_EMBED_PROVIDER
fail() { echo "test_embed_cli: FAIL: $*" >&2; exit 1; }
pass=0
ok() { pass=$((pass + 1)); }

start_mock() { # args for mock_server.py; sets mock_pid and mock_url
  rm -f "$tmp/port"
  "$PY" "$src/tests/embed/mock_server.py" --port-file "$tmp/port" --lifetime 60 "$@" \
    >"$tmp/mock.out" 2>&1 &
  mock_pid=$!
  for _ in $(seq 1 250); do [ -s "$tmp/port" ] && break; sleep 0.02; done
  [ -s "$tmp/port" ] || fail "mock server did not start"
  mock_url="http://127.0.0.1:$(cat "$tmp/port")"
}
stop_mock() { kill "$mock_pid" 2>/dev/null; wait "$mock_pid" 2>/dev/null || true; mock_pid=""; }

"$PY" "$src/tests/embed/gen_bert.py" --out "$APIDEX_CACHE_DIR/models/bge-mini-en" \
  --hidden 32 --layers 2 --heads 2 --vocab 300

# JSON output, model by name from the cache.
"$bin" embed --model bge-mini-en --json "list the movies" "get a user" >"$tmp/a.json"
"$PY" - "$tmp/a.json" <<'EOF' || fail "embed --json output"
import json, sys, math
d = json.load(open(sys.argv[1]))
assert d["model"] == "bge-mini-en" and d["dim"] == 32, d
assert len(d["embeddings"]) == 2 and all(len(e) == 32 for e in d["embeddings"])
for e in d["embeddings"]:
    assert abs(math.sqrt(sum(x * x for x in e)) - 1) < 1e-5
assert d["embeddings"][0] != d["embeddings"][1]
EOF
ok

# --precision bf16: close to f32 where the CPU has AVX-512 BF16, a clear refusal where not.
# Under QEMU (APIDEX_TEST_EMULATED_CPU names the emulated CPU: the Haswell model or arm64,
# neither with AVX-512) /proc/cpuinfo describes the host, not the CPU apidex runs on.
if [ -z "${APIDEX_TEST_EMULATED_CPU:-}" ] && grep -q avx512_bf16 /proc/cpuinfo; then
  "$bin" embed --model bge-mini-en --precision bf16 --json "list the movies" "get a user" \
    >"$tmp/b.json" || fail "embed --precision bf16"
  "$PY" - "$tmp/a.json" "$tmp/b.json" <<'EOF' || fail "bf16 vectors far from f32"
import json, sys
a = json.load(open(sys.argv[1]))["embeddings"]
b = json.load(open(sys.argv[2]))["embeddings"]
for x, y in zip(a, b):
    assert sum(p * q for p, q in zip(x, y)) > 0.999, (x, y)
    assert max(abs(p - q) for p, q in zip(x, y)) < 2e-2
EOF
else
  set +e
  "$bin" embed --model bge-mini-en --precision bf16 "x" >/dev/null 2>"$tmp/err"; rc=$?
  set -e
  [ "$rc" = 2 ] && grep -q "AVX-512 BF16" "$tmp/err" || fail "bf16 without the CPU support: exit $rc"
fi
set +e
"$bin" embed --model bge-mini-en --precision int8 "x" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "f32 or bf16" "$tmp/err" || fail "an unknown precision: exit $rc"
ok

# stdin, plain output, APIDEX_MODEL: the same vectors as the JSON run.
printf 'list the movies\nget a user\n' | APIDEX_MODEL=bge-mini-en "$bin" embed - >"$tmp/a.txt"
[ "$(wc -l <"$tmp/a.txt")" -eq 2 ] || fail "plain output should have 2 lines"
"$PY" - "$tmp/a.json" "$tmp/a.txt" <<'EOF' || fail "plain output differs from JSON"
import json, sys
d = json.load(open(sys.argv[1]))["embeddings"]
rows = [[float(x) for x in line.split()] for line in open(sys.argv[2])]
assert all(abs(a - b) < 1e-7 for r, e in zip(rows, d) for a, b in zip(r, e))
EOF
ok

# --query adds the bge prefix (the folder name says bge-*-en), so vectors change.
q=$("$bin" embed --model bge-mini-en --query "list the movies" | cut -d' ' -f1-4)
p=$("$bin" embed --model bge-mini-en "list the movies" | cut -d' ' -f1-4)
[ "$q" != "$p" ] || fail "--query should differ from a passage"
q2=$("$bin" embed --model bge-mini-en --query --no-prefix "list the movies" | cut -d' ' -f1-4)
[ "$q2" = "$p" ] || fail "--no-prefix query should equal the passage"
ok

# Truncation is counted on stderr.
long=$(printf 'movie %.0s' $(seq 1 700))
"$bin" embed --model bge-mini-en "$long" >/dev/null 2>"$tmp/err"
grep -q "1 of 1 texts were longer" "$tmp/err" || fail "truncation not reported"
ok

# Errors: usage (2), model not installed (3) with the way out.
set +e
"$bin" embed --model bge-mini-en >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no texts should be a usage error, got $rc"
"$bin" embed --model not-installed "x" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] || fail "missing model should exit 3, got $rc"
grep -q "apidex model pull not-installed" "$tmp/err" || fail "missing model message: $(cat "$tmp/err")"
set -e
ok

# The HTTP provider against the mock (with one 429 first, retried).
start_mock --dim 8 --fail-429 1 --log "$tmp/http.log"
"$bin" embed --embed-url "$mock_url" --model some-remote --retries 2 --json "a" "b" "c" >"$tmp/h.json"
"$PY" - "$tmp/h.json" <<'EOF' || fail "http embed output"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["model"] == "some-remote" and d["dim"] == 8 and len(d["embeddings"]) == 3, d
EOF
[ "$(grep -c POST "$tmp/http.log")" -eq 3 ] || fail "expected 429 + probe + one batch"
stop_mock
ok

# model pull: the pinned checksum of bge-small-en-v1.5 rejects random weights; nothing is
# installed; the manual steps are printed.
hub=$tmp/hub
"$PY" "$src/tests/embed/gen_bert.py" --out "$hub" --hidden 32 --layers 1 --heads 2 --vocab 300
start_mock --files-dir "$hub"
set +e
APIDEX_HF_BASE_URL=$mock_url "$bin" model pull bge-small-en-v1.5 >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 3 ] || fail "bad checksum should exit 3, got $rc"
grep -q "checksum mismatch for model.safetensors" "$tmp/err" || fail "checksum message"
grep -q "place them in" "$tmp/err" || fail "manual steps missing"
[ ! -e "$APIDEX_CACHE_DIR/models/bge-small-en-v1.5" ] || fail "a failed pull left files"
sum=$(sha256sum "$hub/model.safetensors" | cut -d' ' -f1)
dir=$("$bin" model pull --hub-url "$mock_url" --sha256 "model.safetensors=$sum" \
  org/tiny-bert-en 2>/dev/null)
[ "$dir" = "$APIDEX_CACHE_DIR/models/tiny-bert-en" ] || fail "pull printed '$dir'"
[ "$("$bin" model path tiny-bert-en)" = "$dir" ] || fail "model path"
"$bin" model list | grep -q "^tiny-bert-en " || fail "model list"
"$bin" embed --model tiny-bert-en "x" >/dev/null || fail "pulled model does not embed"
stop_mock
ok

# No route to the hub: fails fast with the manual steps.
set +e
start=$(date +%s)
APIDEX_HF_BASE_URL=http://127.0.0.1:1 "$bin" model pull bge-small-en-v1.5 >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 3 ] || fail "unreachable hub should exit 3, got $rc"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "pull did not fail fast"
grep -q "3c9f31665447c8911517620762200d2245a2518d6e7208acc78cd9db317e21ad" "$tmp/err" ||
  fail "manual steps should give the weights' sha256"
ok

echo "test_embed_cli: $pass passed, 0 failed"
