// Prints the built-in model names and llama3-70b's hidden size
// (braid::models, the catalog component): a catalog library and braid::core
// from the presets component link from an install tree.
#include <cstdio>
#include <string>

#include "braid/model_files.h"

int main() {
  std::printf("models:");
  for (const std::string& name : braid::BuiltinModelNames()) std::printf(" %s", name.c_str());
  std::printf("\n");
  braid::Result<braid::ModelSpec> model = braid::LoadModel("llama3-70b");
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().message().c_str());
    return 1;
  }
  std::printf("%s hidden=%lld\n", model->name.c_str(), static_cast<long long>(model->hidden));
  return 0;
}
