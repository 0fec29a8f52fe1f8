// The sim engine's finish queue: the running activities' finishes in an
// indexed min-heap, so that a rate change moves an entry instead of leaving
// a stale one (FinSet, inlined in the event loop, is in sim_engine.cc).
// Included by sim_engine.cc only: inline there, as when they shared a file.
#pragma once

#include "sim_engine.h"

namespace braid::sim {

inline void Engine::FinSiftUp(int pos) {
  const int a = fin_heap_[size_t(pos)];
  const double key = acts_[size_t(a)].finish;
  while (pos > 0) {
    const int parent = (pos - 1) / 2;
    const int b = fin_heap_[size_t(parent)];
    if (!(key < acts_[size_t(b)].finish)) break;
    fin_heap_[size_t(pos)] = b;
    acts_[size_t(b)].heap_pos = pos;
    pos = parent;
  }
  fin_heap_[size_t(pos)] = a;
  acts_[size_t(a)].heap_pos = pos;
}

inline void Engine::FinSiftDown(int pos) {
  const int n = int(fin_heap_.size());
  const int a = fin_heap_[size_t(pos)];
  const double key = acts_[size_t(a)].finish;
  for (;;) {
    int child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n &&
        acts_[size_t(fin_heap_[size_t(child) + 1])].finish < acts_[size_t(fin_heap_[size_t(child)])].finish) {
      ++child;
    }
    const int b = fin_heap_[size_t(child)];
    if (!(acts_[size_t(b)].finish < key)) break;
    fin_heap_[size_t(pos)] = b;
    acts_[size_t(b)].heap_pos = pos;
    pos = child;
  }
  fin_heap_[size_t(pos)] = a;
  acts_[size_t(a)].heap_pos = pos;
}

inline void Engine::FinRemove(int a) {
  const int pos = acts_[size_t(a)].heap_pos;
  if (pos < 0) return;
  acts_[size_t(a)].heap_pos = -1;
  const int last = fin_heap_.back();
  fin_heap_.pop_back();
  if (last == a) return;
  fin_heap_[size_t(pos)] = last;
  acts_[size_t(last)].heap_pos = pos;
  FinSiftUp(pos);
  FinSiftDown(acts_[size_t(last)].heap_pos);
}

}  // namespace braid::sim
