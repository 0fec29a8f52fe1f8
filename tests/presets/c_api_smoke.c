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
  /* The versioned entry: every knob, splits included. The example file's
   * ag_gemm entry is a chunked config with splits 2,1,1,1. */
  braid_preset_entry e;
  memset(&e, 0, sizeof e);
  e.struct_size = (uint32_t)sizeof e;
  int found = braid_preset_find(presets, "h100-sxm", "h100-sxm", NULL, "ag_gemm", "bf16", 4096, 57344, 8192, 8, &e);
  int ok = rc >= 0 && found >= 0;
  if (found == 0) {
    int i;
    printf("%s chunks=%d splits=", e.algorithm, e.chunks);
    for (i = 0; i < e.num_splits && i < BRAID_PRESET_MAX_SPLITS; ++i) printf("%s%d", i ? "," : "", e.splits[i]);
    printf(" backend=%s match=%d\n", e.backend, e.match);
    if (e.num_splits != e.chunks || e.splits[0] != 2) ok = 0;
  }
  /* An unset struct_size is refused, never written past. */
  {
    braid_preset_entry unset;
    memset(&unset, 0, sizeof unset);
    if (braid_preset_find(presets, "h100-sxm", "h100-sxm", NULL, "gemm_rs", "bf16", 1, 1, 1, 8, &unset) != -1) ok = 0;
  }
  braid_presets_free(presets);
  return ok ? 0 : 1;
}
