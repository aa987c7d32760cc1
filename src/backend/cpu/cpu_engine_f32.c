/* The CPU engine in single precision (see cpu_engine_impl.h). */
#include "util/hy_util.h"
#define HY_REAL float
#define HY_LANES HY_CPU_LANES_F32
#define HY_SFX(name) name##_f32
#include "backend/cpu/cpu_engine_impl.h"
