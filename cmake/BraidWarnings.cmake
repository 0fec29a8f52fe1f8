# braid_target_warnings(target): our warning set, errors when BRAID_WERROR.
function(braid_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
      -Wcast-align -Woverloaded-virtual -Wnull-dereference>
    # GCC 12 reports -Wrestrict on ordinary std::string concatenation at -O2
    # (GCC bug 105329, a false positive in libstdc++'s inlined memcpy).
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${BRAID_WERROR}>>:-Werror>)
  # Under -fsanitize=thread at -O1, GCC 12 reports a null dereference inside
  # libstdc++'s string as inlined into CLI11's option parsing (the braid
  # command's import flags): the instrumented code hides the check it sees
  # in every other build, which keep the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_FLAGS MATCHES "-fsanitize=thread")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-null-dereference>)
  endif()
endfunction()
