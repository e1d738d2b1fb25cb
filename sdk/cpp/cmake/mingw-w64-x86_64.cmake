# Builds for 64-bit Windows from Linux with Debian's MinGW-w64 (g++-mingw-w64-x86-64), in its posix
# thread model (the SDK needs std::mutex and std::thread):
#
#   cmake -S sdk/cpp -B build/windows --toolchain "$PWD/sdk/cpp/cmake/mingw-w64-x86_64.cmake" \
#     -DCMAKE_PREFIX_PATH="$(sdk/cpp/tools/libsodium-mingw.sh)" -DVERTEX_SHOP_PUBLIC_KEY=<publicKey>
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config finds Windows libraries only: MinGW's own and those in CMAKE_PREFIX_PATH, never the
# build machine's libsodium.
set(ENV{PKG_CONFIG_LIBDIR} /usr/x86_64-w64-mingw32/lib/pkgconfig)

# A program that runs on its own: MinGW's runtime (libstdc++, winpthreads) linked in, no DLLs beside it.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
