#!/usr/bin/env bash
# Retrieval quality on the three task sets, with the same build:
#   RestBench (TMDB + Spotify, 157 tasks, one index over both specs) and the two held-out
#   corpus sets (bench/queries/corpus_tasks.json and corpus_tasks_2.json: 40 tasks each over
#   5 corpus specs, written without seeing the retriever; see bench/queries/README.md).
# Prints `apidex eval` for each. Quality numbers, not timings: they do not vary run to run.
#
#   bash bench/bench_retrieval.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: bench_retrieval.sh BUILD_DIR}" && pwd)
shared=${APIDEX_SHARED:-$here/../../shared}
rb=$shared/benchmarks/restbench
cs=$shared/corpus/specs
[ -d "$rb" ] && [ -d "$cs" ] || { echo "needs $rb and $cs (set APIDEX_SHARED)"; exit 2; }
echo "## RestBench: tmdb + spotify, pesl_socbench_cleaned"
"$build/apidex" eval --specs "$rb/specs" \
  --queries "$rb/pesl_socbench_cleaned/datasets/tmdb.json" "$rb/pesl_socbench_cleaned/datasets/spotify.json"
echo
echo "## held-out corpus tasks: slack, discord, stripe, twilio, digitalocean"
"$build/apidex" eval --queries "$here/queries/corpus_tasks.json" --specs \
  "$cs/apisguru2020__slack.com_1.2.0/swagger.yaml" \
  "$cs/discord__specs_openapi/openapi.json" \
  "$cs/stripe__spec3/spec3.json" \
  "$cs/twilio__spec_json_twilio_api_v2010/twilio_api_v2010.json" \
  "$cs/digitalocean__DigitalOcean-public.v2/specification/DigitalOcean-public.v2.yaml"
echo
echo "## held-out corpus tasks 2: rebilly, shutterstock, bungie, peertube, magento"
"$build/apidex" eval --queries "$here/queries/corpus_tasks_2.json" --specs \
  "$cs/apisguru2020__rebilly.com_2.1/openapi.yaml" \
  "$cs/apisguru2020__shutterstock.com_1.0.16/openapi.yaml" \
  "$cs/apisguru2020__bungie.net_2.0.0/swagger.yaml" \
  "$cs/apisguru2020__cpy.re_peertube_1.3.1/openapi.yaml" \
  "$cs/apisguru2020__magento.com_2.1/swagger.yaml"
