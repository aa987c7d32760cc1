/* Public report of how the last plan's tree was chosen (exec/choose.c). */
#include "api/api.h"
#include "exec/choose.h"

hyfft_status hyfft_last_tune_info(hyfft_tune_info *info) {
  if (!info) return hy_error(HYFFT_NULL_POINTER, "info is NULL");
  hy_exec_last_tune_info(info);
  return HYFFT_SUCCESS;
}
