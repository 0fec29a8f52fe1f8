/* The C API from an install tree, built with `pkg-config --cflags --libs
 * braid-presets`: loads argv[1] and prints the preset for the example
 * file's gemm_rs shape. */
#include <stdio.h>

#include "braid_presets.h"

int main(int argc, char** argv) {
  char err[256];
  braid_presets* presets = NULL;
  braid_preset_config c;
  int rc;
  if (argc != 2) {
    fprintf(stderr, "usage: preset_lookup_c PRESETS.toml\n");
    return 2;
  }
  if (braid_presets_load(argv[1], &presets, err, sizeof err) != 0) {
    fprintf(stderr, "load failed: %s\n", err);
    return 1;
  }
  rc = braid_preset_lookup(presets, "h100-sxm", "h100-sxm", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &c);
  if (rc == 0) printf("gemm_rs: %s chunks=%d streams=%d match=%d\n", c.algorithm, c.chunks, c.streams, c.match);
  braid_presets_free(presets);
  return rc == 0 ? 0 : 1;
}
