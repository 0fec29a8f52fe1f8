// The sim engine's queues: the running activities' finishes in an indexed
// min-heap, so that a rate change moves an entry instead of leaving a stale
// one (FinSet, inlined in the event loop, is in sim_engine.cc), each entry
// holding its key so that comparisons read the heap alone; and the timed
// step events in a sorted vector.
// Included by sim_engine.cc only: inline there, as when they shared a file.
#pragma once

#include <limits>

#include "sim_engine.h"

namespace braid::sim {

[[gnu::always_inline]] inline void Engine::FinSiftUp(int pos) {
  FinEntry* heap = fin_heap_.data();
  const FinEntry e = heap[pos];
  while (pos > 0) {
    const int parent = (pos - 1) / 2;
    if (!(e.finish < heap[parent].finish)) break;
    heap[pos] = heap[parent];
    acts_[size_t(heap[pos].a)].heap_pos = pos;
    pos = parent;
  }
  heap[pos] = e;
  acts_[size_t(e.a)].heap_pos = pos;
}

// The slots past the heap's end hold +inf (kFinSentinel): a child there is
// never the smaller one nor smaller than e, so no bounds are tested.
[[gnu::always_inline]] inline void Engine::FinSiftDown(int pos) {
  FinEntry* heap = fin_heap_.data();
  const FinEntry e = heap[pos];
  for (;;) {
    int child = 2 * pos + 1;
    if (heap[child + 1].finish < heap[child].finish) ++child;
    if (!(heap[child].finish < e.finish)) break;
    heap[pos] = heap[child];
    acts_[size_t(heap[pos].a)].heap_pos = pos;
    pos = child;
  }
  heap[pos] = e;
  acts_[size_t(e.a)].heap_pos = pos;
}

inline void Engine::FinRemove(int a) {
  const int pos = acts_[size_t(a)].heap_pos;
  if (pos < 0) return;
  acts_[size_t(a)].heap_pos = -1;
  const FinEntry last = fin_heap_[size_t(--fin_n_)];
  fin_heap_[size_t(fin_n_)] = kFinSentinel;
  if (last.a == a) return;
  fin_heap_[size_t(pos)] = last;
  if (pos == 0) {  // the event loop's case: nothing above the root
    FinSiftDown(0);
    return;
  }
  FinSiftUp(pos);
  FinSiftDown(acts_[size_t(last.a)].heap_pos);
}

// Insertion from the back; equal times keep their push order. The slot
// before events_head_ holds -inf (Pop leaves it so): the search stops there
// without testing the index.
[[gnu::always_inline]] inline void Engine::Push(double t, int type, int id) {
  TimedEvent* e = events_.data();
  size_t i = events_end_++;
  for (; e[i - 1].t > t; --i) e[i] = e[i - 1];
  e[i] = {t, id, type};
}

[[gnu::always_inline]] inline Engine::TimedEvent Engine::Pop() {
  const TimedEvent e = events_[events_head_];
  events_[events_head_++].t = -std::numeric_limits<double>::infinity();
  return e;
}

}  // namespace braid::sim
