/* The CPU engine in double precision (see cpu_engine_impl.h). */
#include "util/hy_util.h"
#define HY_REAL double
#define HY_LANES HY_CPU_LANES_F64
#define HY_SFX(name) name##_f64
#include "backend/cpu/cpu_engine_impl.h"

