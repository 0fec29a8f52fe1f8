/* A shared object named libopenblas.so.0 that is not OpenBLAS: a valid ELF
   library without cblas_sgemm, for CliStartup's test of the cpu backend's
   answer when the library found under that name is the wrong one. */
int braid_not_openblas(void) { return 0; }
