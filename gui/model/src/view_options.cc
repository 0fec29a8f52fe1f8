#include "braid/view/view_options.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "braid/store.h"

namespace braid::view {

namespace {

Result<int64_t> ParseId(const std::string& flag, const std::string& text) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v <= 0) {
    return Status::Invalid(flag + " wants a positive run or session id, got '" + text + "'");
  }
  return v;
}

Status ParseSize(const std::string& text, ViewOptions& o) {
  const size_t x = text.find('x');
  int w = 0, h = 0;
  const char* end = text.data() + text.size();
  if (x != std::string::npos) {
    auto [p1, e1] = std::from_chars(text.data(), text.data() + x, w);
    auto [p2, e2] = std::from_chars(text.data() + x + 1, end, h);
    if (e1 == std::errc() && e2 == std::errc() && p1 == text.data() + x && p2 == end && w >= 320 && h >= 240 &&
        w <= 8192 && h <= 8192) {
      o.width = w;
      o.height = h;
      return Status::Ok();
    }
  }
  return Status::Invalid("--size wants WIDTHxHEIGHT between 320x240 and 8192x8192, got '" + text + "'");
}

constexpr const char* kSynopsis =
    "braid-view [FILE.db] [--run ID] [--compare ID] [--session ID] [--screenshot OUT.png] [--size WxH]";

}  // namespace

std::string ViewUsage() {
  return std::string("usage: ") + kSynopsis +
         "\n"
         "  FILE.db, --db FILE    the store to open (read-only)\n"
         "  --run ID              show this run's timeline\n"
         "  --compare ID          beside --run: show the two runs' figures side by side\n"
         "  --session ID          show a tuning session's trials\n"
         "  --screenshot OUT.png  draw offscreen into OUT.png and exit (needs --run or --session)\n"
         "  --size WxH            window or picture size, 320x240 to 8192x8192 (default 1600x1000)\n"
         "  -h, --help            this text\n";
}

Result<ViewOptions> ParseViewOptions(const std::vector<std::string>& args) {
  ViewOptions o;
  std::vector<std::string> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      return o;
    }
    if (a.size() < 2 || a[0] != '-' || a == "-") {
      if (!o.db.empty()) return Status::Invalid("one store at a time: got '" + o.db + "' and '" + a + "'");
      o.db = a;
      continue;
    }
    const bool takes_value =
        a == "--db" || a == "--run" || a == "--compare" || a == "--session" || a == "--screenshot" || a == "--size";
    if (!takes_value) return Status::Invalid("unknown flag '" + a + "' (" + kSynopsis + "; --help for more)");
    if (i + 1 >= args.size()) return Status::Invalid(a + " needs a value");
    const std::string& v = args[++i];
    if (v.empty()) return Status::Invalid(a + " needs a value, got an empty one");
    if (a != "--db" && std::find(seen.begin(), seen.end(), a) != seen.end()) {
      return Status::Invalid(a + " given twice: give it once");
    }
    seen.push_back(a);
    if (a == "--db") {
      if (!o.db.empty()) return Status::Invalid("one store at a time: got '" + o.db + "' and '" + v + "'");
      o.db = v;
    } else if (a == "--size") {
      BRAID_RETURN_IF_ERROR(ParseSize(v, o));
    } else if (a == "--screenshot") {
      o.screenshot = v;
    } else {
      BRAID_ASSIGN_OR_RETURN(auto id, ParseId(a, v));
      (a == "--run" ? o.run : a == "--compare" ? o.compare : o.session) = id;
    }
  }
  if ((o.run || o.compare || o.session || !o.screenshot.empty()) && o.db.empty()) {
    return Status::Invalid("--run, --compare, --session and --screenshot need a store (FILE.db or --db FILE)");
  }
  if (o.compare && !o.run) return Status::Invalid("--compare ID needs --run ID (the run to compare it with)");
  if (o.session && o.run) return Status::Invalid("--session and --run are shown one at a time");
  if (!o.screenshot.empty() && !o.run && !o.session) {
    return Status::Invalid("--screenshot needs --run ID (or --session ID): what to draw");
  }
  return o;
}

Status CheckViewTargets(const ViewOptions& o) {
  if (!o.screenshot.empty()) {
    // The picture's folder must exist and be writable (checked before any work).
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::absolute(o.screenshot, ec).parent_path();
    if (ec || !std::filesystem::is_directory(parent, ec) || access(parent.c_str(), W_OK) != 0) {
      return Status::Invalid("--screenshot " + o.screenshot + ": its folder does not exist or is not writable");
    }
  }
  BRAID_ASSIGN_OR_RETURN(auto store, Store::Open(o.db, /*read_only=*/true));
  for (const auto& run : {o.run, o.compare}) {
    if (run) BRAID_RETURN_IF_ERROR((store)->GetRun(*run).status());
  }
  if (o.session) BRAID_RETURN_IF_ERROR((store)->GetSession(*o.session).status());
  return Status::Ok();
}

}  // namespace braid::view
