#!/usr/bin/env bash
# Builds libsodium for 64-bit Windows (static, MinGW-w64) from Debian's own source package and
# prints where it is. The build is kept in a folder named for the source version, so a second run
# with the same version prints the folder at once; a new Debian version builds afresh.
#
#   sdk/cpp/tools/libsodium-mingw.sh [cache folder]    # default: ~/.cache/vertex-licence
#
# Needs deb-src in apt's sources, and autoconf, automake, libtool and g++-mingw-w64-x86-64.
set -euo pipefail

cache="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/vertex-licence}"
# "libsodium_1.0.18-1+deb12u1.dsc": the version apt-get source would fetch, read without fetching.
dsc="$(apt-get source --print-uris libsodium 2>/dev/null | awk '$2 ~ /^libsodium_.*\.dsc$/ { print $2; exit }' || true)"
if [ -z "$dsc" ]; then
  echo "apt knows no source package for libsodium: add deb-src to apt's sources and run apt-get update." >&2
  exit 1
fi
version="${dsc#libsodium_}"
version="${version%.dsc}"
prefix="$cache/libsodium-$version-mingw64"
if [ -f "$prefix/lib/libsodium.a" ] && [ -f "$prefix/include/sodium.h" ]; then
  echo "$prefix"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work" "$prefix.partial"' EXIT
log="$work/build.log"
# Quiet when all is well; the whole log when a step fails.
if ! (
  set -e
  cd "$work" && apt-get source libsodium
  cd "$work"/libsodium-*/
  # Debian's tree carries no configure script: make it, as Debian's own build does.
  ./autogen.sh -s
  ./configure --host=x86_64-w64-mingw32 --prefix="$prefix.partial" --disable-shared --enable-static
  make -j"$(nproc)"
  make install
) >"$log" 2>&1; then
  cat "$log" >&2
  echo "libsodium $version could not be built for Windows (the log is above)." >&2
  exit 1
fi
mkdir -p "$cache"
rm -rf "$prefix"
# The prefix named in libsodium.pc is the folder it was installed in; say where it now lives.
sed -i "s|^prefix=.*|prefix=$prefix|" "$prefix.partial/lib/pkgconfig/libsodium.pc"
mv "$prefix.partial" "$prefix"
echo "$prefix"
