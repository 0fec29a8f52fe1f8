# Unity builds: BRAID_UNITY_BATCH of a target's files are compiled as one
# translation unit, which parses the headers they share once instead of
# once a file. Every target gets it: the test executables (GoogleTest,
# GoogleMock and our headers in every file), the braid command (CLI11 and
# nlohmann/json in most of its files) and the libraries (the standard
# library, nlohmann/json, SQLite's and CUDA's headers). On the 2-core CI
# machine compiling is most of its time (CONTRIBUTING.md). 0 puts all of a
# target's files in one unit (what a new file is checked with: it then
# builds in any batch); -1 compiles one file at a time, as an IDE or a
# single-file edit wants.
set(BRAID_UNITY_BATCH 8 CACHE STRING "Files per unity translation unit of every target (0 all, -1 off)")

# Sets the defaults every target made after it takes (CMAKE_UNITY_BUILD
# initialises each target's UNITY_BUILD): called once, before the
# project's directories are added.
macro(braid_unity_defaults)
  if(BRAID_UNITY_BATCH GREATER_EQUAL 0)
    set(CMAKE_UNITY_BUILD ON)
    set(CMAKE_UNITY_BUILD_BATCH_SIZE ${BRAID_UNITY_BATCH})
    # GCC's -Wsubobject-linkage is for headers: a class in one, with a
    # member whose type is in an anonymous namespace, differs in every file
    # that includes it. A unity unit includes the .cc files themselves, so
    # each .cc's own private class with a member of its own anonymous
    # namespace's type (preset_table.cc's Index, run_writer.cc's Open) would
    # be reported though no other file sees it.
    add_compile_options($<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-subobject-linkage>)
  endif()
endmacro()
