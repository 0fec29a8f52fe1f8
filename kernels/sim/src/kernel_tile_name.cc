// KernelTileOf (braid/kernel_tile_name.h).
#include "braid/kernel_tile_name.h"

#include <charconv>
#include <system_error>

namespace braid::sim {

namespace {

// A run of digits at `s`, as an int in [8, 1024]; advances `s` past it.
std::optional<int> Side(std::string_view& s) {
  int v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  s.remove_prefix(size_t(p - s.data()));
  if (v < 8 || v > 1024) return std::nullopt;
  return v;
}

// "128x256" (then the end, "x", or anything but a digit) at the start of `s`.
std::optional<TileShape> TileAt(std::string_view s) {
  auto m = Side(s);
  if (!m || s.empty() || s.front() != 'x') return std::nullopt;
  s.remove_prefix(1);
  auto n = Side(s);
  if (!n) return std::nullopt;
  return TileShape{*m, *n};
}

}  // namespace

std::optional<TileShape> KernelTileOf(std::string_view name) {
  // CUTLASS 3 / xmma say it outright.
  if (const size_t at = name.find("tilesize"); at != std::string_view::npos) {
    return TileAt(name.substr(at + 8));
  }
  // nvjet and the sm80 cuBLAS kernels: the first '_'-separated token that is
  // exactly M×N (nvjet's next ones are K×stages and the cluster, which come
  // after the tile; sm80's have no 'x' token before it).
  size_t start = 0;
  while (start < name.size()) {
    size_t end = name.find('_', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view token = name.substr(start, end - start);
    const size_t x = token.find('x');
    if (x != std::string_view::npos && token.find('x', x + 1) == std::string_view::npos) {
      std::string_view rest = token;
      auto m = Side(rest);
      if (m && !rest.empty() && rest.front() == 'x') {
        rest.remove_prefix(1);
        auto n = Side(rest);
        if (n && rest.empty()) return TileShape{*m, *n};
      }
    }
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace braid::sim
