/* Small HDF5 helpers shared by the run-file writer and reader. */
#include <stdio.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/net.h"

void polka_h5_library_version(char *text, size_t size) {
    unsigned major = 0, minor = 0, release = 0;
    (void)H5get_libversion(&major, &minor, &release);
#ifdef H5_HAVE_PARALLEL
    const char *flavour = "parallel";
#else
    const char *flavour = "serial";
#endif
    snprintf(text, size, "%u.%u.%u (%s)", major, minor, release, flavour);
}

void polka_h5_quiet(void) {
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Keeps the innermost (first-walked upward) description of the error stack. */
static herr_t innermost_error(unsigned n, const H5E_error2_t *error, void *context) {
    char *text = context;
    if (n == 0 && error->desc != NULL)
        snprintf(text, 256, "%s: %s", error->func_name ? error->func_name : "?", error->desc);
    return 0;
}

polka_status polka_h5_fail(const char *what, const char *object, const char *path) {
    char detail[256] = "";
    (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, detail);
    (void)H5Eclear2(H5E_DEFAULT);
    const char *sep = detail[0] ? " (HDF5: " : "";
    const char *end = detail[0] ? ")" : "";
    if (object != NULL)
        return polka_error_set(POLKA_ERR_HDF5, "cannot %s '%s' in '%s'%s%s%s", what, object, path,
                               sep, detail, end);
    return polka_error_set(POLKA_ERR_HDF5, "cannot %s '%s'%s%s%s", what, path, sep, detail, end);
}

polka_status polka_h5_first(polka_status keep, polka_status next) {
    return keep != POLKA_OK ? keep : next;
}

static herr_t close_any(hid_t id) {
    switch (H5Iget_type(id)) {
    case H5I_FILE:
        return H5Fclose(id);
    case H5I_GROUP:
        return H5Gclose(id);
    case H5I_DATASET:
        return H5Dclose(id);
    case H5I_DATASPACE:
        return H5Sclose(id);
    case H5I_ATTR:
        return H5Aclose(id);
    case H5I_DATATYPE:
        return H5Tclose(id);
    case H5I_GENPROP_LST:
        return H5Pclose(id);
    default:
        return -1;
    }
}

polka_status polka_h5_close(hid_t *id, const char *path) {
    if (*id < 0) return POLKA_OK;
    herr_t rc = close_any(*id);
    *id = H5I_INVALID_HID;
    return rc < 0 ? polka_h5_fail("close an object of", NULL, path) : POLKA_OK;
}

/* Creates the scalar attribute name of type file_type and writes value (of mem_type). */
static polka_status write_attr(hid_t obj, const char *name, hid_t file_type, hid_t mem_type,
                               const void *value, const char *path) {
    hid_t space = H5Screate(H5S_SCALAR);
    if (space < 0) return polka_h5_fail("create a dataspace for attribute", name, path);
    polka_status status = POLKA_OK;
    hid_t attr = H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        status = polka_h5_fail("create attribute", name, path);
    else if (H5Awrite(attr, mem_type, value) < 0)
        status = polka_h5_fail("write attribute", name, path);
    status = polka_h5_first(status, polka_h5_close(&attr, path));
    return polka_h5_first(status, polka_h5_close(&space, path));
}

polka_status polka_h5_attr_string(hid_t obj, const char *name, const char *value,
                                  const char *path) {
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0) return polka_h5_fail("create a string type for attribute", name, path);
    polka_status status = POLKA_OK;
    if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0)
        status = polka_h5_fail("set up the string type of attribute", name, path);
    else
        status = write_attr(obj, name, type, type, &value, path);
    return polka_h5_first(status, polka_h5_close(&type, path));
}

polka_status polka_h5_attr_u64(hid_t obj, const char *name, uint64_t value, const char *path) {
    return write_attr(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, path);
}

polka_status polka_h5_attr_i64(hid_t obj, const char *name, int64_t value, const char *path) {
    return write_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, path);
}

polka_status polka_h5_attr_double(hid_t obj, const char *name, double value, const char *path) {
    return write_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, path);
}

polka_status polka_h5_group(hid_t loc, const char *name, const char *path, hid_t *out) {
    htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
    if (exists < 0) return polka_h5_fail("look up group", name, path);
    hid_t group = exists ? H5Gopen2(loc, name, H5P_DEFAULT)
                         : H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) return polka_h5_fail(exists ? "open group" : "create group", name, path);
    *out = group;
    return POLKA_OK;
}

polka_status polka_h5_unlink(hid_t loc, const char *name, const char *path) {
    htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
    if (exists < 0) return polka_h5_fail("look up", name, path);
    if (exists && H5Ldelete(loc, name, H5P_DEFAULT) < 0)
        return polka_h5_fail("remove the old", name, path);
    return POLKA_OK;
}

polka_status polka_h5_dataset(hid_t loc, const char *name, hid_t type, int rank,
                              const hsize_t *dims, const void *data, const char *path) {
    hid_t file_type = type == H5T_NATIVE_UINT64 ? H5T_STD_U64LE : H5T_IEEE_F64LE;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    if (space < 0) return polka_h5_fail("create the dataspace of", name, path);
    polka_status status = POLKA_OK;
    hid_t dataset = H5Dcreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (dataset < 0)
        status = polka_h5_fail("create dataset", name, path);
    else if (data != NULL && H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        status = polka_h5_fail("write dataset", name, path);
    status = polka_h5_first(status, polka_h5_close(&dataset, path));
    return polka_h5_first(status, polka_h5_close(&space, path));
}

polka_status polka_runfile_agree(const polka_runfile *log, polka_status local) {
    return polka_net_agree(log->comm, local);
}
