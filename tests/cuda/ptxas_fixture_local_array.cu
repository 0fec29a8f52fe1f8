// A kernel that keeps an array in local memory (written and read at
// indices known only at run time, so it cannot live in registers):
// gemm_ptxas_check.sh must report its stack frame, which
// tests/cuda/CMakeLists.txt expects to fail.
__global__ void LocalArrayKernel(float* out, const int* index) {
  float a[64];
  for (int j = 0; j < 64; ++j) a[index[j] & 63] = out[j];
  out[0] = a[index[64] & 63];
}
