// braid-view [FILE.db] [--run ID] [--compare ID] [--session ID]
//            [--screenshot OUT.png] [--size WxH]
// Flags and start-up only; the window lives in braid_gui_widgets.
#include <QApplication>
#include <QBuffer>
#include <QByteArray>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "braid/safe_write.h"
#include "braid/view/main_window.h"
#include "braid/view/view_options.h"

namespace {

int Fail(const braid::Status& s) {
  std::fprintf(stderr, "braid-view: %s\n", s.message().c_str());
  return s.is_user_error() ? 2 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Everything the command line names is checked before Qt starts.
  auto opts = braid::view::ParseViewOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!opts.ok()) return Fail(opts.status());
  if (opts->help) {
    std::fputs(braid::view::ViewUsage().c_str(), stdout);
    if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return 0;
    std::fprintf(stderr, "braid-view: cannot write to standard output\n");
    return 1;
  }
  if (!opts->db.empty()) {
    if (braid::Status s = braid::view::CheckViewTargets(*opts); !s.ok()) return Fail(s);
  }
  if (!opts->screenshot.empty()) {
    // A FIFO, device or directory is refused before any drawing (safe_write.h).
    if (auto target = braid::ResolveWriteTarget(opts->screenshot); !target.ok()) return Fail(target.status());
  }
  const bool has_platform = std::getenv("QT_QPA_PLATFORM") != nullptr;
  if (!opts->screenshot.empty() && !has_platform) {
    setenv("QT_QPA_PLATFORM", "offscreen", 1);  // a screenshot needs no display
  } else if (!has_platform && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
    return Fail(braid::Status::Unavailable("no display: set DISPLAY, or use --screenshot OUT.png"));
  }
  QApplication app(argc, argv);

  braid::view::MainWindow window;
  window.resize(opts->width, opts->height);
  if (!opts->db.empty()) {
    if (braid::Status s = window.OpenStore(opts->db); !s.ok()) return Fail(s);
  }
  braid::Status shown;
  if (opts->run && opts->compare) {
    shown = window.ShowCompare(*opts->run, *opts->compare);
  } else if (opts->run) {
    shown = window.ShowRun(*opts->run);
  } else if (opts->session) {
    shown = window.ShowSession(*opts->session);
  }
  if (!shown.ok()) return Fail(shown);

  window.show();
  if (opts->screenshot.empty()) return app.exec();
  QApplication::processEvents();
  // Encoded in memory, then written through the one safe write path: a full
  // disk leaves the old file as it was and no partial file behind.
  QByteArray png;
  QBuffer buffer(&png);
  if (!buffer.open(QIODevice::WriteOnly) || !window.grab().save(&buffer, "PNG")) {
    std::fprintf(stderr, "braid-view: cannot encode the screenshot %s\n", opts->screenshot.c_str());
    return 1;
  }
  const braid::Status written =
      braid::WriteFileAtomically(opts->screenshot, std::string_view(png.constData(), size_t(png.size())));
  if (!written.ok()) return Fail(written);
  return 0;
}
