#include "ptitrace.h"
int pt_plot (const char *t, const PtOptions *o, GError **e) { return 1; }
