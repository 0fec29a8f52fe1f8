/* C API of the runtime preset loader (braid_presets library). Valid C11 and
 * C++. A braid_presets is immutable once loaded: lookups may run from many
 * threads at once. */
#ifndef BRAID_PRESETS_H_
#define BRAID_PRESETS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct braid_presets braid_presets;

typedef enum braid_preset_match {
  BRAID_PRESET_NONE = 0,
  BRAID_PRESET_EXACT = 1,
  BRAID_PRESET_NEAREST = 2
} braid_preset_match;

typedef struct braid_preset_config {
  char algorithm[32];  /* "serial", "chunked", "ring", "bidir_ring", "iso", "fused" */
  int chunks;
  int streams;         /* comm lanes */
  int comm_sms;        /* 0 = backend default */
  int comm_engine;     /* 0 = SM kernels, 1 = copy engine */
  int comm_high_priority;
  double time_ns;
  int match;           /* braid_preset_match */
} braid_preset_config;

/* 0 on success (*out owns the table; free it with braid_presets_free).
 * Nonzero on error: *out is NULL and a one-line message is copied into err
 * (truncated, always NUL-terminated when err_len > 0). */
int braid_presets_load(const char* path, braid_presets** out, char* err, size_t err_len);
void braid_presets_free(braid_presets* presets);

/* 0 when a preset was found (exact or nearest; out->match says which);
 * 1 when none applies (out->match = BRAID_PRESET_NONE); -1 on a bad
 * argument (null pointer, unknown op or dtype). */
int braid_preset_lookup(const braid_presets* presets, const char* gpu, const char* topology, const char* op,
                        const char* dtype, int64_t m, int64_t n, int64_t k, int tp, braid_preset_config* out);

#ifdef __cplusplus
}
#endif

#endif /* BRAID_PRESETS_H_ */
