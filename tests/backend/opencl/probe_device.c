/* Configure-time probe: exit 0 when the OpenCL ICD loader is present and
 * lists at least one device (so the OpenCL suites are registered). */
#include <dlfcn.h>
#include <stdint.h>

typedef int32_t (*get_platforms_fn)(uint32_t, void **, uint32_t *);
typedef int32_t (*get_devices_fn)(void *, uint64_t, uint32_t, void **, uint32_t *);

int main(void) {
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW);
  if (!lib) return 1;
  get_platforms_fn gp;
  get_devices_fn gd;
  *(void **)&gp = dlsym(lib, "clGetPlatformIDs");
  *(void **)&gd = dlsym(lib, "clGetDeviceIDs");
  if (!gp || !gd) return 1;
  void *plats[16];
  uint32_t np = 0;
  if (gp(16, plats, &np) != 0 || np == 0) return 1;
  for (uint32_t p = 0; p < np && p < 16; p++) {
    uint32_t nd = 0;
    if (gd(plats[p], 0xFFFFFFFFu, 0, 0, &nd) == 0 && nd > 0) return 0;
  }
  return 1;
}
