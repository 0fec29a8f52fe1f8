# braid_target_warnings(target): our warning set, errors when BRAID_WERROR.
function(braid_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
      -Wcast-align -Woverloaded-virtual -Wnull-dereference>
    # GCC 12 reports -Wrestrict on ordinary std::string concatenation at -O2
    # (GCC bug 105329, a false positive in libstdc++'s inlined memcpy).
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${BRAID_WERROR}>>:-Werror>)
endfunction()
