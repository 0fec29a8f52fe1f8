#include "run_loader.h"

#include <exception>
#include <optional>
#include <thread>
#include <utility>

namespace braid::view {

struct RunLoader::Job {
  uint64_t id = 0;
  int64_t run = 0;
  std::atomic<bool> cancel{false};
  // Progress as the worker last saw it, and whether a report of it is
  // already queued: a slow UI gets one report per turn, not one per batch.
  std::atomic<int64_t> read{0}, total{0};
  std::atomic<bool> progress_queued{false};
  std::optional<Result<LoadedRun>> result;  // written by the worker before it posts Finish
  std::thread thread;
};

namespace {

Result<LoadedRun> LoadOnWorker(const std::string& path, int64_t run, const LoadControl& control) {
  // Nothing may escape a thread (it would end the process): an allocation
  // that fails on a huge run becomes the load's error.
  try {
    BRAID_ASSIGN_OR_RETURN(auto store, Store::Open(path, /*read_only=*/true));
    return LoadRunForView(*store, run, control);
  } catch (const std::exception& e) {
    return Status::Internal("loading run " + std::to_string(run) + " of " + path + ": " + e.what());
  }
}

}  // namespace

RunLoader::RunLoader(DoneFn done, ProgressFn progress, QObject* parent)
    : QObject(parent), done_(std::move(done)), progress_(std::move(progress)) {}

RunLoader::~RunLoader() {
  for (const auto& job : jobs_) job->cancel = true;
  for (const auto& job : jobs_) job->thread.join();
}

int64_t RunLoader::run() const { return current_ ? current_->run : 0; }

uint64_t RunLoader::Start(const std::string& path, int64_t run) {
  Cancel();
  auto job = std::make_shared<Job>();
  job->id = next_id_++;
  job->run = run;
  current_ = job;
  jobs_.push_back(job);
  // The thread holds the job, never the loader: the loader outlives every
  // thread (its destructor joins them), and posts to it are dropped once it
  // is gone.
  job->thread = std::thread([this, job, path, batch = batch_] {
    LoadControl control;
    control.batch = batch;
    control.cancel = &job->cancel;
    control.progress = [this, &job](int64_t read, int64_t total) {
      job->read = read;
      job->total = total;
      if (job->progress_queued.exchange(true)) return;
      QMetaObject::invokeMethod(
          this,
          [this, job] {
            job->progress_queued = false;
            if (job == current_ && progress_) progress_(job->run, job->read, job->total);
          },
          Qt::QueuedConnection);
    };
    job->result.emplace(LoadOnWorker(path, job->run, control));
    QMetaObject::invokeMethod(
        this, [this, job] { Finish(job); }, Qt::QueuedConnection);
  });
  return job->id;
}

void RunLoader::Cancel() {
  if (current_) current_->cancel = true;
}

void RunLoader::Finish(const std::shared_ptr<Job>& job) {
  // The worker posted this as its last act: the join is immediate.
  job->thread.join();
  std::erase(jobs_, job);
  End end = job->cancel.load() ? End::kCancelled : End::kFinished;
  if (job == current_) {
    current_.reset();
  } else {
    end = End::kSuperseded;
  }
  if (done_) done_(job->id, job->run, std::move(*job->result), end);
}

}  // namespace braid::view
