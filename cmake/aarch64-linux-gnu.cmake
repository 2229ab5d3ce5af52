# Cross build for arm64 (make test-arm64, docs/INSTALL.md): Debian's aarch64 toolchain
# (gcc-aarch64-linux-gnu) and the arm64 libraries installed by multiarch
# (dpkg --add-architecture arm64; the -dev:arm64 packages, scripts/deps.sh --test) in
# /usr/lib/aarch64-linux-gnu. Programs built here run under QEMU user mode: CTest and the
# build's own generators (gen_cl100k, the man page) prefix them with the emulator.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# libc6:arm64 (a dependency of the -dev:arm64 packages) puts the loader in /lib, so no -L.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# pkg-config reads the arm64 .pc files only, plus cmake/pkgconfig-aarch64 (libpq, see there).
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig:${CMAKE_CURRENT_LIST_DIR}/pkgconfig-aarch64")
set(ENV{PKG_CONFIG_PATH} "")
