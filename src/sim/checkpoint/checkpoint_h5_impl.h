/* The HDF5 side of a checkpoint file, shared by its writer and its reader. */
#ifndef POLKA_SIM_CHECKPOINT_H5_H
#define POLKA_SIM_CHECKPOINT_H5_H

#include <hdf5.h>

#include "polka/state.h"

/* The element type of an entry in memory (native) and in the file (little endian). */
hid_t polka_ckpt_memory_type(polka_state_type type);
hid_t polka_ckpt_file_type(polka_state_type type);

#endif
