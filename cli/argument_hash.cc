#include "argument_hash.h"

#include <algorithm>
#include <vector>

namespace braid::cli {

std::string CanonicalArguments(const CLI::App& command, std::initializer_list<std::string_view> printing_only) {
  std::vector<std::string> lines;
  for (const CLI::Option* o : command.get_options()) {
    const std::string name = o->get_name();
    if (std::find(printing_only.begin(), printing_only.end(), name) != printing_only.end()) continue;
    // Unit separators between fields: no value can end one and begin the next.
    std::string line = name + '\x1f' + std::to_string(o->count());
    for (const std::string& v : o->results()) line += '\x1f' + v;
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  std::string key;
  for (const std::string& l : lines) key += l + '\x1e';
  return key;
}

uint64_t ArgumentsHash(const CLI::App& command, std::initializer_list<std::string_view> printing_only) {
  return HashOfArguments(CanonicalArguments(command, printing_only));
}

uint64_t HashOfArguments(std::string_view key) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace braid::cli
