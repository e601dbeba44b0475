/* Preprocessed by meson so that gen-generic.py sees exactly what this MPI
 * library's mpi.h declares. */
#include <mpi.h>
