# What the licence SDK links with, found the same way when it is built and when its installed
# package is found: threads, libsodium (as the target vertex_licence::sodium) and, outside Windows,
# libcurl.
# MinGW's "win32" thread model (the default compiler of Debian's g++-mingw-w64) has no std::mutex
# or std::thread before GCC 13; the SDK needs them: use the posix one.
if(MINGW)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -std=c++17)
  check_cxx_source_compiles("#include <mutex>\n#include <thread>\nint main() { std::mutex m; std::lock_guard<std::mutex> l(m); std::thread t([] {}); t.join(); }"
                            VERTEX_LICENCE_STD_THREADS)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT VERTEX_LICENCE_STD_THREADS)
    message(FATAL_ERROR "This MinGW compiler (${CMAKE_CXX_COMPILER}) has no std::mutex or std::thread: it uses the win32 thread model. "
                        "Use the posix one (Debian: x86_64-w64-mingw32-g++-posix; sdk/cpp/cmake/mingw-w64-x86_64.cmake picks it).")
  endif()
endif()

find_package(Threads REQUIRED)

if(NOT TARGET vertex_licence::sodium)
  # vcpkg's package (MSVC), else pkg-config (Linux, macOS, a MinGW build given CMAKE_PREFIX_PATH).
  find_package(unofficial-sodium CONFIG QUIET)
  if(TARGET unofficial-sodium::sodium)
    set(_vertex_licence_sodium unofficial-sodium::sodium)
  else()
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(VERTEX_LICENCE_SODIUM QUIET IMPORTED_TARGET GLOBAL libsodium)
    endif()
    if(NOT TARGET PkgConfig::VERTEX_LICENCE_SODIUM)
      message(FATAL_ERROR "libsodium was not found. Debian, Ubuntu: apt-get install libsodium-dev pkg-config; macOS: brew install libsodium pkg-config; "
                          "MSVC: vcpkg install libsodium; MinGW from Linux: sdk/cpp/tools/libsodium-mingw.sh, then -DCMAKE_PREFIX_PATH=<the folder it prints>.")
    endif()
    set(_vertex_licence_sodium PkgConfig::VERTEX_LICENCE_SODIUM)
  endif()
  add_library(vertex_licence::sodium INTERFACE IMPORTED GLOBAL)
  target_link_libraries(vertex_licence::sodium INTERFACE ${_vertex_licence_sodium})
  unset(_vertex_licence_sodium)
endif()

if(NOT WIN32)
  find_package(CURL REQUIRED)
endif()
