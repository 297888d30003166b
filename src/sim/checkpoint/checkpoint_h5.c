/* HDF5 objects of a checkpoint (checkpoint_h5_impl.h).
 *
 * The file uses the HDF5 1.10 object formats, whose metadata (superblock, object headers,
 * B-trees, heaps) carry checksums that HDF5 verifies whenever it reads them: a damaged object
 * header is refused by HDF5 instead of being parsed. */
#include "io/runfile_impl.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"

/* Links and attributes stay in their object's header ("compact"), whose chunks carry
 * checksums, up to this many: the "dense" storage keeps them in a fractal heap whose blocks
 * are not checksummed, and libhdf5 crashes on a damaged link there (fuzz campaign). */
#define MAX_COMPACT 65535

int polka_ckpt_compact(hid_t create) {
    return H5Pset_link_phase_change(create, MAX_COMPACT, MAX_COMPACT) >= 0 &&
           H5Pset_attr_phase_change(create, MAX_COMPACT, MAX_COMPACT) >= 0;
}

polka_status polka_ckpt_group(hid_t loc, const char *name, const char *path, hid_t *out) {
    hid_t create = H5Pcreate(H5P_GROUP_CREATE);
    *out = create >= 0 && polka_ckpt_compact(create)
               ? H5Gcreate2(loc, name, H5P_DEFAULT, create, H5P_DEFAULT)
               : -1;
    if (create >= 0) H5Pclose(create);
    return *out >= 0 ? POLKA_OK : polka_h5_fail("create group", name, path);
}
