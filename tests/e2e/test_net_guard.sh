#!/usr/bin/env bash
# One outbound HTTP layer: libcurl transfers are set up in src/net only (net/net.h), so every
# request apidex sends gets the same rules (schemes, hosts, private addresses, redirects
# re-checked, credentials kept to their origin, timeouts, size cap, no proxy). Fails when
# curl_easy_init, curl_easy_setopt, curl_easy_perform or curl_multi_* appear anywhere else
# in src/ (a sixth client with its own policy). URL parsing (curl_url*, curl_easy_escape)
# is not a transfer and stays allowed.
set -uo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$src" || exit 1
found=$(grep -rnE 'curl_easy_(init|setopt|perform|duphandle)|curl_multi_|curl_share_' src \
  --include='*.c' --include='*.h' | grep -v '^src/net/')
if [ -n "$found" ]; then
  echo "FAIL: libcurl transfers outside src/net (send through net_send instead):"
  echo "$found"
  exit 1
fi
n=$(grep -rlE 'curl_easy_(init|setopt|perform)' src/net --include='*.c' | wc -l)
if [ "$n" -lt 1 ]; then
  echo "FAIL: no libcurl transfer in src/net either: is the guard still looking at the right place?"
  exit 1
fi
echo "ok libcurl transfers only in src/net ($n file(s))"
