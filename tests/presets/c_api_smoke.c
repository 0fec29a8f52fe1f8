/* Compiled as C11: proves braid_presets.h is valid C. Loads the file named
 * by argv[1] (or a missing one) and looks up one shape. */
#include <stdio.h>
#include <string.h>

#include "braid_presets.h"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "/nonexistent/braid-presets.toml";
  char err[256];
  braid_presets* presets = NULL;
  if (braid_presets_load(path, &presets, err, sizeof err) != 0) {
    if (argc > 1) {
      fprintf(stderr, "load failed: %s\n", err);
      return 1;
    }
    /* The missing file must be reported, with its name. */
    return strstr(err, "braid-presets.toml") != NULL && presets == NULL ? 0 : 1;
  }
  braid_preset_config c;
  int rc = braid_preset_lookup(presets, "h100-sxm", "h100-sxm", "gemm_rs", "bf16", 4096, 8192, 28672, 8, &c);
  if (rc == 0) printf("%s chunks=%d streams=%d match=%d\n", c.algorithm, c.chunks, c.streams, c.match);
  braid_presets_free(presets);
  return rc < 0 ? 1 : 0;
}
