/* The CPU engine, written once for both precisions: cpu_engine_f32.c and
 * cpu_engine_f64.c include this file with HY_REAL (float, double), HY_LANES
 * (8, 4) and HY_SFX(name) defined. Not a standalone header. The engine is
 * split by what each part does; the parts are included in this order
 * because each uses the ones before it:
 *   cpu_engine_codelets.h   vector types, shuffles, butterflies
 *   cpu_engine_stages.h     Stockham stages, kernel plans (init, exec)
 *   cpu_engine_lanes.h      lane groups, gather/scatter, prefetch
 *   cpu_engine_direct.h     driver of DIRECT nodes
 *   cpu_engine_bluestein.h  drivers of BLUESTEIN and RADER nodes
 *   cpu_engine_run.h        hy_cpu_node_run and four-step (LARGE) nodes */
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "backend/cpu/cpu_engine.h"
#include "backend/cpu/cpu_scratch.h"
#include "backend/cpu/ops_real.h"
#include "tables/twiddle.h"

#include "backend/cpu/cpu_engine_codelets.h"
#include "backend/cpu/cpu_engine_stages.h"
#include "backend/cpu/cpu_engine_lanes.h"
#include "backend/cpu/cpu_engine_direct.h"
#include "backend/cpu/cpu_engine_bluestein.h"
#include "backend/cpu/cpu_engine_run.h"
