// The sim engine's finish queue: the running activities' finishes in an
// indexed min-heap, so that a rate change moves an entry instead of leaving
// a stale one (FinSet, inlined in the event loop, is in sim_engine.cc). Each
// entry holds its key: comparisons read the heap alone.
// Included by sim_engine.cc only: inline there, as when they shared a file.
#pragma once

#include "sim_engine.h"

namespace braid::sim {

inline void Engine::FinSiftUp(int pos) {
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

inline void Engine::FinSiftDown(int pos) {
  FinEntry* heap = fin_heap_.data();
  const int n = int(fin_heap_.size());
  const FinEntry e = heap[pos];
  for (;;) {
    int child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && heap[child + 1].finish < heap[child].finish) ++child;
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
  const FinEntry last = fin_heap_.back();
  fin_heap_.pop_back();
  if (last.a == a) return;
  fin_heap_[size_t(pos)] = last;
  acts_[size_t(last.a)].heap_pos = pos;
  FinSiftUp(pos);
  FinSiftDown(acts_[size_t(last.a)].heap_pos);
}

// std::pop_heap's moves exactly (libstdc++: the hole sinks to a leaf by the
// earlier child, then the last item rises into it), so that equal times pop
// in the order they always did; written out, it is inlined with a plain
// compare (braid_sim_bench: 2 % of an evaluation). A branch-free child
// choice measured slower.
[[gnu::always_inline]] inline Engine::HeapItem Engine::Pop() {
  HeapItem* h = heap_.data();
  const HeapItem top = h[0];
  const ptrdiff_t len = ptrdiff_t(heap_.size()) - 1;  // items left
  if (len > 0) {
    const HeapItem last = h[len];
    ptrdiff_t hole = 0, child = 0;
    while (child < (len - 1) / 2) {
      child = 2 * (child + 1);
      if (h[child].t > h[child - 1].t) --child;
      h[hole] = h[child];
      hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
      child = 2 * (child + 1);
      h[hole] = h[child - 1];
      hole = child - 1;
    }
    for (ptrdiff_t parent = (hole - 1) / 2; hole > 0 && h[parent].t > last.t; parent = (hole - 1) / 2) {
      h[hole] = h[parent];
      hole = parent;
    }
    h[hole] = last;
  }
  heap_.pop_back();
  return top;
}

}  // namespace braid::sim
