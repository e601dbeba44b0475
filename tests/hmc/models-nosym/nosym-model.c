/* A shared object without the pti_model_describe entry point: refused. */
#include <pti/hmi.h>

PTI_API int not_a_model (void);

int
not_a_model (void)
{
  return 42;
}
