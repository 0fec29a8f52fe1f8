// A gzip trace inflated as it is read, a window at a time (ISA-L's igzip),
// so that a Kineto import read in parts (kineto_json.cc) never holds the
// whole JSON: on the 2-core build machine, ISA-L inflated the 35 MB shared
// trace into a reused 1 MiB window in 7 ms where libdeflate took 23 ms into
// a fresh 35 MB buffer (13 ms on huge pages), most of it faulting in and
// zeroing pages. Built only where ISA-L is (BRAID_HAVE_ISAL); its absence,
// or any problem in the data, sends the caller to Gunzip, which inflates
// the whole file and names the problem.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "file_bytes.h"

namespace braid::importers {

class GzipWindow {
 public:
  // `gz`: one or more gzip members (anything after the last is ignored, as
  // gzip(1) and Gunzip do); at most `max_bytes` inflated. `buffer` holds the
  // window and is reused from file to file. @pre IsGzip(gz).
  GzipWindow(std::string_view gz, size_t max_bytes, PaddedBytes& buffer);
  ~GzipWindow();
  GzipWindow(const GzipWindow&) = delete;
  GzipWindow& operator=(const GzipWindow&) = delete;

  // Whether this build can inflate a window at a time.
  static bool Available();

  // Inflates until `n` bytes are held or the data ends. False on corrupt
  // or truncated data, or past max_bytes: then nothing more is read.
  bool Hold(size_t n);
  // The bytes held, from the first not yet dropped.
  std::string_view bytes() const { return {buffer_.data(), held_}; }
  // True once every member has been inflated.
  bool ended() const { return ended_; }
  // True when Hold failed because the data inflates past max_bytes.
  bool exceeded() const { return exceeded_; }
  // Forgets the first n bytes held. @pre n <= bytes().size().
  void Drop(size_t n);
  // Gives the window up: inflates the rest only to count it, into one
  // reused 1 MiB scratch, so that exceeded() tells whether the data is
  // over max_bytes without holding it (a run of spaces with no event
  // boundary in it). Afterwards Hold fails and bytes() is the held part.
  void CountRest();

 private:
  size_t Step(char* out, size_t room);

  struct State;
  std::unique_ptr<State> state_;
  std::string_view rest_;  // input not yet given to the inflater
  size_t max_bytes_;
  size_t inflated_ = 0;  // in all, dropped or held
  PaddedBytes& buffer_;
  size_t held_ = 0;
  bool ended_ = false, failed_ = false, exceeded_ = false;
};

}  // namespace braid::importers
