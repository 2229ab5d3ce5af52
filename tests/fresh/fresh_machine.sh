#!/usr/bin/env bash
# `make test-fresh`: apidex on clean Debian 12 (bookworm) machines, as a user gets it.
#  1. a debootstrapped root gets the .deb (`make deb`) by `apt-get install ./apidex_*.deb`,
#     so its Depends are resolved by apt alone; then a smoke test: index the repo's
#     examples, search, and `apidex serve` answers /healthz on 127.0.0.1 (as a non-root user,
#     the Dockerfile's runtime stage);
#  2. a second clean root gets the source tarball (`make dist`) and `make` alone, and runs
#     `make demo` in it (deps.sh --build installs the rest from Debian's archive).
# Root only (debootstrap, chroot, mounts); needs Debian's archive (the mirror of
# /etc/apt/sources.list*). The base root is cached in $FRESH_CACHE (a tarball) between
# runs. Prints the time of each step. Not part of `make test` (it takes minutes).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
[ "$(id -u)" -eq 0 ] || { echo "fresh: run as root (debootstrap, chroot)" >&2; exit 1; }
cache=${FRESH_CACHE:-/var/tmp/apidex-fresh}
mirror=${FRESH_MIRROR:-$( (grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list \
  /etc/apt/sources.list.d 2>/dev/null || true) | head -n1 | awk '{print $2}')}
mirror=${mirror:-http://deb.debian.org/debian}
mounted=()
unmount_all() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
# never rm -rf a root while something is mounted under it
remove_tree() {
  if grep -q " $1/" /proc/mounts; then
    echo "fresh: $1 still has mounts: left in place" >&2
    return 0
  fi
  rm -rf "$1"
}
cleanup() {
  unmount_all
  remove_tree "$work"
}
work=$(mktemp -d /var/tmp/apidex-fresh-run.XXXXXX)
trap cleanup EXIT
t0=$SECONDS
step() { printf 'fresh: [%4ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() { echo "fresh: FAIL: $*" >&2; exit 1; }

# A clean root from the cached base (debootstrapped once).
new_root() {
  local root=$1
  if [ ! -f "$cache/bookworm-base.tar" ]; then
    step "debootstrap bookworm from $mirror (once; cached in $cache)"
    mkdir -p "$cache"
    rm -rf "$cache/base"
    debootstrap --variant=minbase bookworm "$cache/base" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      { tail -n 20 "$cache/debootstrap.log" >&2; fail "debootstrap"; }
    tar -C "$cache/base" -cf "$cache/bookworm-base.tar.tmp" . && mv "$cache/bookworm-base.tar.tmp" "$cache/bookworm-base.tar"
    rm -rf "$cache/base"
  fi
  mkdir -p "$root"
  tar -C "$root" -xf "$cache/bookworm-base.tar"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # /proc only (apt and the shell want it); debootstrap made the few device nodes in /dev
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
}
in_root() { local root=$1; shift; chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# ---- 1. the .deb on a clean machine
step "make deb"
make --no-print-directory deb >"$work/deb.log" 2>&1 || { tail -n 20 "$work/deb.log" >&2; fail "make deb"; }
deb=$(ls build-deb/apidex_*.deb | head -n1)
step "built $deb ($(du -k "$deb" | cut -f1) kB); Depends: $(dpkg-deb -f "$deb" Depends)"
root=$work/deb-root
new_root "$root"
cp "$deb" "$root/tmp/"
cp -r examples "$root/tmp/examples"
step "apt-get install ./$(basename "$deb") in a clean root"
in_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb")" \
  >"$work/install.log" 2>&1 || { tail -n 20 "$work/install.log" >&2; fail "installing the .deb"; }
step "smoke test as a non-root user: index, search, serve /healthz"
in_root "$root" useradd --create-home apidex
in_root "$root" chown -R apidex /tmp/examples
in_root "$root" su apidex -s /bin/bash -c 'set -e
  cd /tmp
  apidex version
  apidex index examples --db /tmp/smoke.db
  apidex search "add a recipe to a cookbook" --db /tmp/smoke.db --color never | head -n 5 | grep -q "/"
  apidex serve --db /tmp/smoke.db --listen 127.0.0.1:0 --port-file /tmp/port --access-log none &
  pid=$!
  for i in $(seq 1 100); do [ -s /tmp/port ] && break; sleep 0.1; done
  port=$(cat /tmp/port)
  exec 3<>/dev/tcp/127.0.0.1/$port
  printf "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3
  reply=$(cat <&3)
  kill $pid
  case "$reply" in "HTTP/1."*" 200 "*) echo "healthz: 200";; *) echo "healthz: $reply"; exit 1;; esac
  man -w apidex >/dev/null 2>&1 || test -f /usr/share/man/man1/apidex.1*
' >"$work/smoke.log" 2>&1 || { cat "$work/smoke.log" >&2; fail "smoke test of the installed .deb"; }
sed 's/^/fresh:        /' "$work/smoke.log"
step "the .deb works on a clean Debian 12"
unmount_all
remove_tree "$root"

# ---- 2. make demo from the source tarball on a clean machine
step "make dist"
make --no-print-directory dist BUILD="$work/dist" >"$work/dist.log" 2>&1 || { cat "$work/dist.log" >&2; fail "make dist"; }
tarball=$(ls "$work"/dist/apidex-*.tar.gz)
root=$work/src-root
new_root "$root"
tar -C "$root/root" -xzf "$tarball"
dir=$(basename "$tarball" .tar.gz)
step "apt-get install make, then make demo from $(basename "$tarball") (offline source, apt for the packages)"
in_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends make" \
  >"$work/make.log" 2>&1 || { tail -n 20 "$work/make.log" >&2; fail "installing make"; }
in_root "$root" sh -c "cd /root/$dir && JOBS=\$(nproc) nice -n 10 make demo" >"$work/demo.log" 2>&1 ||
  { tail -n 40 "$work/demo.log" >&2; fail "make demo from the tarball"; }
sed 's/^/fresh:        /' "$work/demo.log" | tail -n 25
grep -q 'POST' "$work/demo.log" || fail "make demo printed no answers"
[ ! -e "$root/root/$dir/build/test_core_sys" ] || fail "make demo built the unit tests"
step "make demo works from the tarball on a clean Debian 12"
