#!/usr/bin/env bash
# The .deb's Maintainer field (packaging/maintainer.cmake) names a real packager, never a
# made-up address: -DAPIDEX_DEB_MAINTAINER, else DEBEMAIL/DEBFULLNAME or EMAIL (as Debian's
# dch and dh_make read them), else the building account "apidex local build <user@host>";
# a value that is not "Name <address>" is refused; and the configured build's CPack
# settings carry the value the script gives.
set -euo pipefail
src="${APIDEX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
build="${APIDEX_BUILD_DIR:?APIDEX_BUILD_DIR not set}"
script="$src/packaging/maintainer.cmake"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# field [cmake -D args...]: the field the script gives in a clean environment plus $envs
envs=()
field() { env -i PATH="$PATH" "${envs[@]}" cmake "$@" -P "$script"; }

echo "== the override"
envs=(DEBEMAIL=jane@example.org)
[ "$(field -DAPIDEX_DEB_MAINTAINER='Ann Packager <ann@example.net>')" = \
  "Ann Packager <ann@example.net>" ] || fail "override: $(field -DAPIDEX_DEB_MAINTAINER='Ann Packager <ann@example.net>')"

echo "== Debian's variables"
envs=(DEBFULLNAME="Jane Doe" DEBEMAIL=jane@example.org)
[ "$(field)" = "Jane Doe <jane@example.org>" ] || fail "DEBFULLNAME+DEBEMAIL: $(field)"
envs=(DEBEMAIL="Jane Doe <jane@example.org>")
[ "$(field)" = "Jane Doe <jane@example.org>" ] || fail "DEBEMAIL with a name: $(field)"
envs=(EMAIL=joe@example.org NAME="Joe Bloggs")
[ "$(field)" = "Joe Bloggs <joe@example.org>" ] || fail "EMAIL+NAME: $(field)"

echo "== none set: the building account, named as a local build"
envs=(USER=builder)
got=$(field)
# user@host (cmake's FQDN or host name of this machine)
[[ "$got" =~ ^"apidex local build <builder@"[^@\ \<\>]+">"$ ]] || fail "no variables: '$got'"
envs=()
[[ "$(field)" =~ ^"apidex local build <"[^@\ ]+@[^@\ ]+">"$ ]] || fail "no USER: '$(field)'"

echo "== not an address: refused, saying how to give one"
envs=()
if field -DAPIDEX_DEB_MAINTAINER="just a name" >"$tmp/out" 2>"$tmp/err"; then
  fail "a field without an address was accepted: $(cat "$tmp/out")"
fi
grep -q 'APIDEX_DEB_MAINTAINER=' "$tmp/err" || fail "the refusal says nothing useful: $(cat "$tmp/err")"

echo "== the configured build's package carries it"
[ -f "$build/CPackConfig.cmake" ] || fail "$build/CPackConfig.cmake missing"
contact=$(sed -n 's/^set(CPACK_PACKAGE_CONTACT "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
[[ "$contact" =~ ^[^\<\>]+\ \<[^@\ ]+@[^@\ ]+\>$ ]] || fail "CPACK_PACKAGE_CONTACT is '$contact'"
case "$contact" in *.example\>) fail "CPACK_PACKAGE_CONTACT is a made-up address: $contact" ;; esac
echo ok
