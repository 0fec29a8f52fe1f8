#!/bin/sh
# The revision a build records follows HEAD without a new cmake run, and a
# rebuild with no new commit relinks nothing. Builds braid_version as
# core/CMakeLists.txt does (cmake/BraidGitRevision.cmake, core/src/version.cc)
# in a scratch git repository, with a program that prints BraidGitRevision().
# usage: git_revision_test.sh <source dir> <cmake> <git> <c++ compiler> <scratch dir>
set -eu
src=$1 cmake=$2 git=$3 cxx=$4 work=$5
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work/repo/src" "$work/repo/include/braid"
cp "$src/cmake/BraidGitRevision.cmake" "$work/repo/"
cp "$src/core/src/version.cc" "$work/repo/src/"
cp "$src/core/include/braid/version.h" "$work/repo/include/braid/"
cat >"$work/repo/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(revision_check LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
include(${CMAKE_SOURCE_DIR}/BraidGitRevision.cmake)
braid_add_version_library(braid_version 0.0.0)
add_executable(print_revision print_revision.cc)
target_link_libraries(print_revision PRIVATE braid_version)
EOF
cat >"$work/repo/print_revision.cc" <<'EOF'
#include <cstdio>
#include <string>

#include "braid/version.h"

int main() { std::printf("%s\n", std::string(braid::BraidGitRevision()).c_str()); }
EOF
g() { "$git" -C "$work/repo" -c user.name=braid-test -c user.email=test@braid.local "$@"; }
g init -q
g add -A
g commit -q -m first
"$cmake" -S "$work/repo" -B "$work/build" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
"$cmake" --build "$work/build" >/dev/null
first=$("$work/build/print_revision")
[ "$first" = "$(g rev-parse --short HEAD)" ] || fail "built at $(g rev-parse --short HEAD), recorded $first"
before=$(stat -c %y "$work/build/print_revision")
"$cmake" --build "$work/build" >/dev/null
[ "$before" = "$(stat -c %y "$work/build/print_revision")" ] || fail "a rebuild without a new commit relinked"
g commit -q --allow-empty -m second
"$cmake" --build "$work/build" >/dev/null
second=$("$work/build/print_revision")
[ "$second" = "$(g rev-parse --short HEAD)" ] || fail "after a commit, recorded $second, HEAD is $(g rev-parse --short HEAD)"
[ "$second" != "$first" ] || fail "the revision did not change after a commit"
echo "revision $first -> $second after a commit, without reconfiguring"
