#!/usr/bin/env bash
# test_registry_watch.sh with the watch's polling fallback (the one every system without
# inotify uses, and every build with -DAPIDEX_PORTABLE_ONLY=ON): the same changes must be
# seen by scanning the folders' modification times.
set -euo pipefail
APIDEX_WATCH_POLL=1 exec bash "$(dirname "$0")/test_registry_watch.sh"
