#include "real/cublaslt_library.h"

#include <dlfcn.h>

#include <string>

namespace braid::cuda {

namespace {

#define BRAID_STRINGIFY_INNER(x) #x
#define BRAID_STRINGIFY(x) BRAID_STRINGIFY_INNER(x)

// Casts the untyped address to the entry point's declared type: the
// declaration comes from the same headers the library was built with.
template <typename Fn>
bool Resolve(void* lib, const char* name, Fn* out, std::string* missing) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) {
    if (!missing->empty()) *missing += ", ";
    *missing += name;
    return false;
  }
  *out = reinterpret_cast<Fn>(sym);
  return true;
}

Result<CublasLtLibrary> Open() {
  void* lib = dlopen(CublasLtSoname(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(std::string("cuda backend: cannot load ") + CublasLtSoname() + " (" +
                               (why != nullptr ? why : "no reason given") +
                               "); install the CUDA toolkit's cuBLASLt or point LD_LIBRARY_PATH at it");
  }
  CublasLtLibrary t;
  std::string missing;
  bool ok = Resolve(lib, "cublasLtGetVersion", &t.get_version, &missing);
  ok &= Resolve(lib, "cublasLtGetStatusString", &t.status_string, &missing);
  ok &= Resolve(lib, "cublasLtCreate", &t.create, &missing);
  ok &= Resolve(lib, "cublasLtDestroy", &t.destroy, &missing);
  ok &= Resolve(lib, "cublasLtMatmul", &t.matmul, &missing);
  ok &= Resolve(lib, "cublasLtMatmulAlgoGetHeuristic", &t.algo_get_heuristic, &missing);
  ok &= Resolve(lib, "cublasLtMatmulDescCreate", &t.desc_create, &missing);
  ok &= Resolve(lib, "cublasLtMatmulDescDestroy", &t.desc_destroy, &missing);
  ok &= Resolve(lib, "cublasLtMatmulDescSetAttribute", &t.desc_set_attribute, &missing);
  ok &= Resolve(lib, "cublasLtMatmulPreferenceCreate", &t.preference_create, &missing);
  ok &= Resolve(lib, "cublasLtMatmulPreferenceDestroy", &t.preference_destroy, &missing);
  ok &= Resolve(lib, "cublasLtMatmulPreferenceSetAttribute", &t.preference_set_attribute, &missing);
  ok &= Resolve(lib, "cublasLtMatrixLayoutCreate", &t.layout_create, &missing);
  ok &= Resolve(lib, "cublasLtMatrixLayoutDestroy", &t.layout_destroy, &missing);
  if (!ok) {
    // Unloading is safe here: nothing of it has run.
    dlclose(lib);
    return Status::Unavailable(std::string("cuda backend: ") + CublasLtSoname() + " lacks " + missing +
                               " (an older cuBLASLt than the headers braid was built with?)");
  }
  return t;  // the handle is kept open for the process's life: the table points into it
}

}  // namespace

const char* CublasLtSoname() { return "libcublasLt.so." BRAID_STRINGIFY(CUBLAS_VER_MAJOR); }

Result<const CublasLtLibrary*> LoadCublasLt() {
  // A function-local static: initialised once, thread-safe, by the first caller.
  static const Result<CublasLtLibrary> loaded = Open();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace braid::cuda
