#include "blas_library.h"

#include <cblas.h>
#include <dlfcn.h>

#include <string>

namespace braid::cpu {

namespace {

using SgemmFn = decltype(&cblas_sgemm);
using SetThreadsFn = decltype(&openblas_set_num_threads);

struct BlasTable {
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;
};

#ifdef BRAID_BLAS_LINKED
Result<BlasTable> Open() { return BlasTable{&cblas_sgemm, &openblas_set_num_threads}; }
#else
Result<BlasTable> Open() {
  void* lib = dlopen(OpenBlasSoname(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(std::string("cpu backend: cannot load ") + OpenBlasSoname() + " (" +
                               (why != nullptr ? why : "no reason given") + "); install libopenblas0");
  }
  BlasTable t;
  // The declared types come from the cblas.h braid was built with.
  t.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cblas_sgemm"));
  t.set_threads = reinterpret_cast<SetThreadsFn>(dlsym(lib, "openblas_set_num_threads"));
  if (t.sgemm == nullptr || t.set_threads == nullptr) {
    dlclose(lib);  // nothing of it has run
    return Status::Unavailable(std::string("cpu backend: ") + OpenBlasSoname() +
                               " lacks cblas_sgemm or openblas_set_num_threads (not OpenBLAS?)");
  }
  return t;  // kept open for the process's life: the table points into it
}
#endif

const Result<BlasTable>& Loaded() {
  // A function-local static: initialised once, thread-safe, by the first caller.
  static const Result<BlasTable> loaded = Open();
  return loaded;
}

}  // namespace

const char* OpenBlasSoname() { return "libopenblas.so.0"; }

Status LoadBlas() { return Loaded().status(); }

void Sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
           float* c, int64_t ldc) {
  if (const Result<BlasTable>& t = Loaded(); t.ok()) {
    t->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k), 1.0f, a, blasint(lda), b,
             blasint(ldb), beta, c, blasint(ldc));
    return;
  }
  PlainSgemm(m, n, k, a, lda, b, ldb, beta, c, ldc);
}

void PlainSgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += double(a[i * lda + p]) * double(b[p * ldb + j]);
      float& out = c[i * ldc + j];
      out = float(sum) + (beta == 0.0f ? 0.0f : beta * out);
    }
  }
}

void SetBlasThreads(int threads) {
  if (const Result<BlasTable>& t = Loaded(); t.ok()) t->set_threads(threads);
}

}  // namespace braid::cpu
