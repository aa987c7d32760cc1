/* The status table (generated from HYFFT_STATUS_MAP) and the thread-local
 * detail message. */
#include <stdio.h>
#include <string.h>

#include "hy_util.h"

const char *hyfft_status_name(hyfft_status status) {
  switch (status) {
#define HY_STATUS_NAME_(name, value, message) \
  case HYFFT_##name:                          \
    return "HYFFT_" #name;
    HYFFT_STATUS_MAP(HY_STATUS_NAME_)
#undef HY_STATUS_NAME_
    default:
      return "HYFFT_UNKNOWN_STATUS";
  }
}

const char *hyfft_strerror(hyfft_status status) {
  switch (status) {
#define HY_STATUS_MESSAGE_(name, value, message) \
  case HYFFT_##name:                             \
    return message;
    HYFFT_STATUS_MAP(HY_STATUS_MESSAGE_)
#undef HY_STATUS_MESSAGE_
    default:
      return "unknown status code";
  }
}

/* Long enough for an NVRTC or OpenCL build log excerpt. */
#define HY_ERROR_DETAIL_SIZE 8192
static _Thread_local char hy_error_detail[HY_ERROR_DETAIL_SIZE];

const char *hyfft_last_error(void) { return hy_error_detail; }

void hy_error_clear(void) { hy_error_detail[0] = '\0'; }

hy_status hy_error(hy_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(hy_error_detail, sizeof hy_error_detail, fmt, ap);
  va_end(ap);
  return status;
}

const char *hyfft_version_string(void) {
#define HY_STR2_(x) #x
#define HY_STR_(x) HY_STR2_(x)
  return HY_STR_(HYFFT_VERSION_MAJOR) "." HY_STR_(HYFFT_VERSION_MINOR) "." HY_STR_(
      HYFFT_VERSION_PATCH);
}
