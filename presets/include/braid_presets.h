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
  char algorithm[32]; /* "serial", "chunked", "ring", "bidir_ring", "direct", "iso", "fused", "a2a", "a2a_direct" */
  int chunks;
  int streams;     /* comm lanes */
  int comm_sms;    /* 0 = backend default */
  int comm_engine; /* 0 = SM kernels, 1 = copy engine */
  int comm_high_priority;
  double time_ns;
  int match; /* braid_preset_match */
} braid_preset_config;

/* 0 on success (*out owns the table; free it with braid_presets_free).
 * Nonzero on error: *out is NULL and a one-line message is copied into err
 * (truncated, always NUL-terminated when err_len > 0). */
int braid_presets_load(const char* path, braid_presets** out, char* err, size_t err_len);
void braid_presets_free(braid_presets* presets);

/* 0 when a preset was found (exact or nearest; out->match says which);
 * 1 when none applies (out->match = BRAID_PRESET_NONE); -1 on a bad
 * argument (null pointer, unknown op or dtype). Answers from the GPU
 * backends' entries (cuda, then sim); braid_preset_find below also gives
 * the splits and can ask for a backend. Kept as it was for older callers. */
int braid_preset_lookup(const braid_presets* presets, const char* gpu, const char* topology, const char* op,
                        const char* dtype, int64_t m, int64_t n, int64_t k, int tp, braid_preset_config* out);

#define BRAID_PRESET_MAX_SPLITS 64

/* Every knob of the chosen preset. Versioned by size: the caller sets
 * struct_size = sizeof(braid_preset_entry) and the library fills only the
 * fields that fit, so a program compiled against an older (shorter) header
 * keeps working when fields are appended to a newer library. Never reorder
 * or remove fields; append new ones at the end. */
typedef struct braid_preset_entry {
  uint32_t struct_size; /* in: sizeof(braid_preset_entry) as the caller knows it */
  int match;            /* braid_preset_match */
  char algorithm[32];   /* "serial", "chunked", "ring", "bidir_ring", "direct", "iso", "fused", "bulk", "external",
                           "a2a", "a2a_direct" */
  int chunks;
  int num_splits; /* 0: even chunks; else chunks weights (only the first
                     BRAID_PRESET_MAX_SPLITS are copied into splits) */
  int splits[BRAID_PRESET_MAX_SPLITS];
  int streams;     /* comm lanes */
  int comm_sms;    /* 0 = backend default */
  int comm_engine; /* 0 = SM kernels, 1 = copy engine */
  int comm_high_priority;
  double time_ns;
  double distance; /* 0 for exact; log-space shape distance for nearest */
  char backend[8]; /* "sim", "cpu", "cuda": who measured it */
  /* Appended with FP8 (after backend): what the GEMM's communication moves,
   * resolved ("fp8_e4m3" for an FP8 all-gather by default, "bf16" for its
   * reduce-scatter unless the preset says FP8; the dtype itself otherwise). */
  char comm_dtype[16];
  /* Appended with format version 4 (after comm_dtype): run the GEMM on the
   * SMs its comm leaves (TE's set_sm_margin: 1), and a bulk pair's
   * reduce-scatter budget beside the wgrad GEMM (0 = comm_sms). */
  int sm_margin;
  int wgrad_comm_sms;
} braid_preset_entry;

/* As braid_preset_lookup, for one backend: "sim", "cpu", "cuda", or NULL /
 * "" for the GPU backends (cuda preferred, then sim; cpu entries answer only
 * when asked for). -1 also when out->struct_size is smaller than the first
 * version of this struct or the backend is unknown. */
int braid_preset_find(const braid_presets* presets, const char* gpu, const char* topology, const char* backend,
                      const char* op, const char* dtype, int64_t m, int64_t n, int64_t k, int tp,
                      braid_preset_entry* out);

/* As braid_preset_find, for one pass of the linear layer: "fprop", "dgrad"
 * or "wgrad" (NULL / "" = "fprop"; braid_preset_find asks for fprop). Only
 * presets of that pass answer (version 2 files key presets by pass). -1
 * also for an unknown pass. */
int braid_preset_find_pass(const braid_presets* presets, const char* gpu, const char* topology, const char* backend,
                           const char* pass, const char* op, const char* dtype, int64_t m, int64_t n, int64_t k, int tp,
                           braid_preset_entry* out);

/* A data-parallel preset (format version 5, `braid tune --dp`): the tuned
 * DP side of a training step. Set struct_size = sizeof(braid_dp_preset_entry)
 * before the call. */
typedef struct braid_dp_preset_entry {
  uint32_t struct_size;
  char schedule[16];      /* "serial", "bucketed", "decomposed" */
  int64_t bucket_params;  /* parameters a gradient bucket holds (Megatron-LM's --ddp-bucket-size) */
  int decomposed_layers;  /* decomposed: the last layers decomposed, -1 all */
  char decomposition[32]; /* decomposed: their plan ("ring", "direct", ...) */
  int decomposition_chunks;
  int prefetch; /* ZeRO: gathers queued ahead */
  int comm_sms; /* the DP collectives' NCCL CTAs, 0 = NCCL's default */
  double step_ns;
  double speedup_vs_megatron;
  char backend[8];
} braid_dp_preset_entry;

/* The DP preset of exactly this key: the model's name, seq·batch tokens a DP
 * rank, TP and DP sizes, zero "none" | "1" | "2" | "3", dtype; backend as
 * braid_preset_find. 0 found, 1 none, -1 for a NULL or unknown argument or
 * out->struct_size below this struct's size. */
int braid_dp_preset_find(const braid_presets* presets, const char* gpu, const char* topology, const char* backend,
                         const char* model, int64_t tokens, int tp, int dp, const char* zero, const char* dtype,
                         braid_dp_preset_entry* out);

#ifdef __cplusplus
}
#endif

#endif /* BRAID_PRESETS_H_ */
