# braid_target_warnings(target): our warning set, errors when BRAID_WERROR.
function(braid_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
      -Wcast-align -Woverloaded-virtual -Wnull-dereference>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${BRAID_WERROR}>>:-Werror>)
endfunction()
