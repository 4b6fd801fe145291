# smartarraysConfig.cmake - the CMake package of the smartarrays C library (built by cargo from
# crates/smartarrays-capi) and its headers (smartarrays.h, smartarrays/smartarrays.hpp).
#
#   find_package(smartarrays CONFIG REQUIRED)   # with smartarrays_DIR or CMAKE_PREFIX_PATH set
#   target_link_libraries(app PRIVATE smartarrays::smartarrays)   # shared libsmartarrays.so
#   target_link_libraries(app PRIVATE smartarrays::static)        # static libsmartarrays.a
#
# Works from the source tree (this file in <repo>/bindings/cmake) and from an install made by
# `make ffi-install PREFIX=...` (this file in <prefix>/lib/cmake/smartarrays). The library is
# SMARTARRAYS_LIBRARY / SMARTARRAYS_STATIC_LIBRARY when set, else the first found in <prefix>/lib,
# $ENV{CARGO_TARGET_DIR}/release, <repo>/target/release, then the debug directories.

cmake_minimum_required(VERSION 3.16)
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_sa_dir "${CMAKE_CURRENT_LIST_DIR}" REALPATH)
if(EXISTS "${_sa_dir}/../../../include/smartarrays.h")
  get_filename_component(_sa_prefix "${_sa_dir}/../../.." ABSOLUTE)
  set(_sa_includes "${_sa_prefix}/include")
  set(_sa_search "${_sa_prefix}/lib")
else()
  get_filename_component(_sa_repo "${_sa_dir}/../.." ABSOLUTE)
  set(_sa_includes "${_sa_repo}/crates/smartarrays-ffi/include" "${_sa_repo}/bindings/cpp/include")
  set(_sa_search)
  if(DEFINED ENV{CARGO_TARGET_DIR} AND NOT "$ENV{CARGO_TARGET_DIR}" STREQUAL "")
    list(APPEND _sa_search "$ENV{CARGO_TARGET_DIR}/release")
  endif()
  list(APPEND _sa_search "${_sa_repo}/target/release")
  if(DEFINED ENV{CARGO_TARGET_DIR} AND NOT "$ENV{CARGO_TARGET_DIR}" STREQUAL "")
    list(APPEND _sa_search "$ENV{CARGO_TARGET_DIR}/debug")
  endif()
  list(APPEND _sa_search "${_sa_repo}/target/debug")
endif()

if(NOT SMARTARRAYS_LIBRARY)
  find_library(SMARTARRAYS_LIBRARY NAMES libsmartarrays.so PATHS ${_sa_search} NO_DEFAULT_PATH)
endif()
if(NOT SMARTARRAYS_STATIC_LIBRARY)
  find_library(SMARTARRAYS_STATIC_LIBRARY NAMES libsmartarrays.a PATHS ${_sa_search} NO_DEFAULT_PATH)
endif()

if(NOT SMARTARRAYS_LIBRARY OR NOT EXISTS "${SMARTARRAYS_LIBRARY}")
  set(smartarrays_FOUND FALSE)
  set(smartarrays_NOT_FOUND_MESSAGE
      "libsmartarrays.so not found in ${_sa_search}; build it with `cargo build --release -p smartarrays-capi` or set SMARTARRAYS_LIBRARY")
  return()
endif()

if(NOT TARGET smartarrays::smartarrays)
  add_library(smartarrays::smartarrays SHARED IMPORTED)
  set_target_properties(smartarrays::smartarrays PROPERTIES
    IMPORTED_LOCATION "${SMARTARRAYS_LIBRARY}"
    IMPORTED_SONAME "libsmartarrays.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_sa_includes}")
endif()

if(SMARTARRAYS_STATIC_LIBRARY AND EXISTS "${SMARTARRAYS_STATIC_LIBRARY}" AND NOT TARGET smartarrays::static)
  add_library(smartarrays::static STATIC IMPORTED)
  # A Rust static library needs the system libraries the standard library uses.
  set_target_properties(smartarrays::static PROPERTIES
    IMPORTED_LOCATION "${SMARTARRAYS_STATIC_LIBRARY}"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "${_sa_includes}"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m;rt;util;gcc_s")
endif()

set(smartarrays_INCLUDE_DIRS "${_sa_includes}")
set(smartarrays_LIBRARIES smartarrays::smartarrays)
unset(_sa_dir)
unset(_sa_prefix)
unset(_sa_repo)
unset(_sa_includes)
unset(_sa_search)
