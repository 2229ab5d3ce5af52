#!/bin/sh
# Stands in for qemu-x86_64 when CMake did not find it (CMakeLists.txt, APIDEX_QEMU_CPU): the
# emulated test runs fail with this message instead of passing unseen.
echo "qemu-x86_64 not found: the emulated test runs need Debian's qemu-user" \
  "(scripts/deps.sh --test installs it; make test runs it first)" >&2
exit 1
