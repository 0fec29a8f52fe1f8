# What `cmake --install` puts under the prefix, by component:
#
#   presets  braid::core, braid::presets, braid::te, braid::version (static
#            libraries), their headers (include/braid/*.h, braid_presets.h),
#            the CMake package (lib/cmake/braid) and braid-presets.pc for the
#            C API. Standard library only.
#   catalog  braid::topology, braid::gpu, braid::models (GPU, topology and
#            model files) and their headers; needs presets. Standard library
#            only.
#   tools    the `braid` command and `braid-view`, when built.
#
# find_package(braid COMPONENTS presets) loads the presets targets alone;
# no component named loads every one installed. The store, tuner, backends
# and viewer libraries are not exported: they link SQLite, OpenBLAS, Qt and
# more, and no application links them today.
#
# Targets are named here, not where they are defined, so that modules can
# move; a module only has to give its public include folder as
# $<BUILD_INTERFACE:...> $<INSTALL_INTERFACE:include>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BRAID_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/braid)

# braid_install_libraries(COMPONENT c EXPORT_FILE f TARGETS t... [INTERNAL t...]):
# installs the targets' libraries and public headers (the folders their
# $<BUILD_INTERFACE:...> include directories name) and exports them as
# braid::<name without braid_> into f. INTERNAL targets (static helpers a
# static library links) are exported too, without headers.
function(braid_install_libraries)
  cmake_parse_arguments(I "" "COMPONENT;EXPORT_FILE" "TARGETS;INTERNAL" ${ARGN})
  set(export_set braid_${I_COMPONENT}_targets)
  foreach(t IN LISTS I_TARGETS I_INTERNAL)
    string(REGEX REPLACE "^braid_" "" name ${t})
    set_target_properties(${t} PROPERTIES EXPORT_NAME ${name})
    if(NOT TARGET braid::${name})
      add_library(braid::${name} ALIAS ${t})  # same names in a build tree
    endif()
  endforeach()
  install(TARGETS ${I_TARGETS} ${I_INTERNAL} EXPORT ${export_set}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${I_COMPONENT}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${I_COMPONENT}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${I_COMPONENT})
  set(header_dirs)
  foreach(t IN LISTS I_TARGETS)
    get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
    foreach(d IN LISTS dirs)
      if(d MATCHES "^\\$<BUILD_INTERFACE:(.+)>$")
        list(APPEND header_dirs ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES header_dirs)
  foreach(d IN LISTS header_dirs)
    install(DIRECTORY ${d}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT ${I_COMPONENT}
      FILES_MATCHING PATTERN "*.h")
  endforeach()
  install(EXPORT ${export_set} FILE ${I_EXPORT_FILE} NAMESPACE braid:: DESTINATION ${BRAID_INSTALL_CMAKEDIR}
    COMPONENT ${I_COMPONENT})
endfunction()

braid_install_libraries(COMPONENT presets EXPORT_FILE braid-presets-targets.cmake
  TARGETS braid_core braid_presets braid_te braid_version)
braid_install_libraries(COMPONENT catalog EXPORT_FILE braid-catalog-targets.cmake
  TARGETS braid_topology braid_gpu braid_models INTERNAL braid_datafiles)

foreach(exe braid braid-view)
  if(TARGET ${exe})
    # Shared builds (BUILD_SHARED_LIBS) find our libraries beside bin/; the
    # folders of the outside ones (/usr/local/cuda/lib, OpenMPI's) stay as
    # in the build tree.
    set_target_properties(${exe} PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
      INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${exe} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()

# The package config: every file belongs to presets, the component all the
# others need.
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/braidConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/braidConfig.cmake INSTALL_DESTINATION ${BRAID_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/braidConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/braidConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/braidConfigVersion.cmake
  DESTINATION ${BRAID_INSTALL_CMAKEDIR} COMPONENT presets)

# braid-presets.pc, relocatable (prefix from the file's own place). The C API
# is C++ inside: static libraries also need the C++ runtime on the link line.
file(RELATIVE_PATH braid_pc_to_prefix /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" braid_pc_to_prefix "${braid_pc_to_prefix}")
get_target_property(braid_presets_type braid_presets TYPE)
if(braid_presets_type STREQUAL "STATIC_LIBRARY")
  set(BRAID_PC_LIBS_RUNTIME "-lstdc++ -lm")
  set(BRAID_PC_LIBS_PRIVATE "")
else()
  set(BRAID_PC_LIBS_RUNTIME "")
  set(BRAID_PC_LIBS_PRIVATE "-lstdc++ -lm")
endif()
set(BRAID_PC_PREFIX "\${pcfiledir}/${braid_pc_to_prefix}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/braid-presets.pc.in ${CMAKE_CURRENT_BINARY_DIR}/braid-presets.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/braid-presets.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT presets)
