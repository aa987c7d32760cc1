/* The float-precision half of the FFTW3-compatible interface (fftw3_impl.h). */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fftw3_common.h"

#define X(name) FFTW_MANGLE_FLOAT(name)
#define R float
#define C fftwf_complex
#define HY_PREC HYFFT_F32
#include "fftw3_impl.h"

/* FFTW's version strings, the interface's own. */
const char fftwf_version[] = "fftw-3.3.10-hyfft (the FFTW3 interface of hyfft)";
const char fftwf_cc[] = "hyfft";
const char fftwf_codelet_optim[] = "";
