/* Internal declarations shared by the files of api/ (the public entry
 * points); the layers below never include this header. */
#ifndef HY_API_H
#define HY_API_H

#include "exec/exec.h"

/* Import $HYFFT_WISDOM once per process (the first context creation that
 * gets through it); a missing file is not an error. */
hy_status hy_wisdom_env_import(void);

#endif /* HY_API_H */
