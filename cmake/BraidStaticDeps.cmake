# BRAID_STATIC_DEPS (the GPU bundle's braid, kernels/cuda/bundle): Debian's
# libraries linked statically, so that the bundle runs where only glibc and
# the CUDA libraries are: libstdc++ and libgcc, SQLite (libsqlite3-dev's .a),
# OpenBLAS (libopenblas-pthread-dev's .a), zlib (zlib1g-dev's .a), libdeflate
# (libdeflate-dev's .a, found in the top CMakeLists.txt). simdjson
# stays shared: Debian ships no libsimdjson.a (the bundle carries the .so
# beside braid, found through the RPATH $ORIGIN/../lib). CUDA's libraries
# stay shared and are found on the target.
option(BRAID_STATIC_DEPS "Link Debian's libraries statically (the GPU bundle's braid)" OFF)
if(BRAID_STATIC_DEPS)
  find_library(SQLite3_LIBRARY NAMES libsqlite3.a REQUIRED)
  set(ZLIB_USE_STATIC_LIBS ON)
  find_library(BRAID_OPENBLAS_STATIC NAMES libopenblas.a PATH_SUFFIXES openblas-pthread
               PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-pthread REQUIRED)
  # OpenBLAS's LAPACK part is Fortran: its runtime, statically too.
  find_library(BRAID_GFORTRAN_STATIC NAMES libgfortran.a HINTS ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES} REQUIRED)
  find_library(BRAID_QUADMATH_STATIC NAMES libquadmath.a HINTS ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES} REQUIRED)
  find_package(Threads REQUIRED)
  add_library(BLAS::BLAS INTERFACE IMPORTED)
  set_target_properties(BLAS::BLAS PROPERTIES INTERFACE_LINK_LIBRARIES
    "${BRAID_OPENBLAS_STATIC};${BRAID_GFORTRAN_STATIC};${BRAID_QUADMATH_STATIC};Threads::Threads;m")
  add_link_options(-static-libstdc++ -static-libgcc)
  list(APPEND CMAKE_BUILD_RPATH "\$ORIGIN/../lib")
  message(STATUS "braid: static Debian libraries (${SQLite3_LIBRARY}, ${BRAID_OPENBLAS_STATIC})")
endif()
