// `braid list models|topologies|gpus`: the built-in names, one line each with
// what a user chooses by (a model's shape; a GPU's SMs; a topology's GPUs and
// links).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace braid::cli {

struct ListArgs {
  std::string what;  // models | topologies | gpus
};

void AddListOptions(CLI::App* sub, ListArgs* args);
int ExecuteList(const ListArgs& args);

}  // namespace braid::cli
