// Loads runs for the window on worker threads. Each load opens its own
// read-only Store on the file (a Store is used from one thread at a time),
// streams the run in batches and hands the result back on the UI thread, so
// the window's event loop keeps turning while millions of events are read.
//
// One load is current at a time: Start cancels the one in progress, whose
// result is then dropped. Callbacks run on the loader's (UI) thread.
#pragma once

#include <QObject>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "braid/view/run_load.h"

namespace braid::view {

class RunLoader : public QObject {
  Q_OBJECT

 public:
  // How a load ended: as it went (`r` says how), or stopped by Cancel, or by
  // a newer Start (which is still running).
  enum class End { kFinished, kCancelled, kSuperseded };
  using DoneFn = std::function<void(uint64_t id, int64_t run, Result<LoadedRun> r, End end)>;
  using ProgressFn = std::function<void(int64_t run, int64_t read, int64_t total)>;

  RunLoader(DoneFn done, ProgressFn progress, QObject* parent = nullptr);
  ~RunLoader() override;  // cancels every load and waits for its thread

  // Starts loading `run` of the store at `path`; returns the load's id, which
  // `done` is called with once (also for a load a newer Start superseded).
  uint64_t Start(const std::string& path, int64_t run);
  // The current load stops at its next batch; `done` reports it cancelled.
  void Cancel();
  bool busy() const { return current_ != nullptr; }
  int64_t run() const;  // the current load's run (0 when idle)
  // Events per batch of the loads started from now on (LoadControl::batch).
  void set_batch(size_t batch) { batch_ = batch; }

 private:
  struct Job;
  void Finish(const std::shared_ptr<Job>& job);

  DoneFn done_;
  ProgressFn progress_;
  size_t batch_ = LoadControl{}.batch;
  uint64_t next_id_ = 1;
  std::shared_ptr<Job> current_;
  std::vector<std::shared_ptr<Job>> jobs_;  // current and superseded, until their threads end
};

}  // namespace braid::view
