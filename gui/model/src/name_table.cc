#include "braid/view/name_table.h"

namespace braid::view {

int32_t NameTable::Intern(std::string_view name) {
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  const auto index = int32_t(names_.size());
  names_.emplace_back(name);
  index_.emplace(names_.back(), index);
  return index;
}

}  // namespace braid::view
