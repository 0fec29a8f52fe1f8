# Unity builds for the targets whose files are mostly headers parsed again:
# the test executables (GoogleTest, GoogleMock and our headers in every
# file) and the braid command (CLI11 and nlohmann/json in most of its files).
# BRAID_UNITY_BATCH of a target's files are compiled as one translation
# unit, which parses those headers once instead of once a file. 0 puts all
# of a target's files in one unit (what a new file is checked with: it then
# builds in any batch); -1 compiles one file at a time, as an IDE or a
# single-file edit wants.
set(BRAID_UNITY_BATCH 8 CACHE STRING "Files per unity translation unit of the test and braid targets (0 all, -1 off)")

function(braid_unity target)
  if(BRAID_UNITY_BATCH GREATER_EQUAL 0)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${BRAID_UNITY_BATCH})
  endif()
endfunction()
