// The distinct event names of a timeline. A drawn event holds a 4-byte
// index into its timeline's table instead of its own string: at 10M events
// a string per event was a heap block each (the names pass std::string's
// 15 inline bytes) and a third of the viewer's resident memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace braid::view {

class NameTable {
 public:
  // The index of `name`, added when new: equal names share one index.
  int32_t Intern(std::string_view name);

  const std::string& operator[](int32_t index) const { return names_[size_t(index)]; }
  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  // Transparent, so that a name is looked up as a string_view without
  // building a string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> index_;
};

}  // namespace braid::view
