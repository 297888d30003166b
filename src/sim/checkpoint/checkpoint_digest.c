/*
 * A checkpoint's digest (checkpoint_h5_impl.h): a 64-bit FNV-1a hash over every root attribute
 * but "digest" and every dataset of the file, in one canonical order that does not depend on
 * how HDF5 lays the file out: the attributes by name, then the datasets by path (as H5Ovisit
 * names them, "agents/digest"), each strcmp-sorted. An item adds its name and a NUL, a type code
 * (0 float64, 1 uint64, 2 uint8 datasets; 3 fixed string, 4 uint64, 5 float64, 6 int64
 * attributes), its element count as 8 little-endian bytes, then its bytes as stored (little
 * endian). FNV-1a changes its state by a bijection per byte, so any one changed byte changes the
 * digest; the reader computes it before any value is used. tests/python/ckpt_digest.py computes the
 * same in Python.
 *
 * The agents' packed states (agents/states, gigabytes at 10^5 agents, written by every rank)
 * add their item without their bytes: each agent's bytes have their own FNV-1a in agents/digest,
 * which the digest covers, taken by the rank that writes them and checked by the rank that reads
 * them before they are unpacked. A changed byte there is refused by the agent's check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/runfile_impl.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"

#define FNV_OFFSET       0xcbf29ce484222325ull
#define FNV_PRIME        0x100000001b3ull
#define MAX_ATTRS        64  /* a checkpoint has a dozen */
#define MAX_STRING       256 /* bytes of a string attribute */
#define DIGEST_NAME      "digest"
#define STATES_NAME      "agents/states"   /* hashed by its count; its bytes agent by agent */
#define HASH_BLOCK_BYTES ((size_t)8 << 20) /* a dataset is read in blocks of this size */

void polka_fnv1a(uint64_t *hash, const void *data, size_t size) {
    const unsigned char *bytes = data;
    uint64_t h = *hash;
    for (size_t k = 0; k < size; k++) h = (h ^ bytes[k]) * FNV_PRIME;
    *hash = h;
}

static void hash_item(uint64_t *hash, const char *name, unsigned char code, uint64_t count,
                      const void *bytes, size_t size) {
    unsigned char word[8];
    for (int k = 0; k < 8; k++) word[k] = (unsigned char)(count >> (8 * k));
    polka_fnv1a(hash, name, strlen(name) + 1);
    polka_fnv1a(hash, &code, 1);
    polka_fnv1a(hash, word, 8);
    polka_fnv1a(hash, bytes, size);
}

int polka_ckpt_range_io(hid_t set, hid_t memory_type, uint64_t first, uint64_t count, void *buf,
                        int write) {
    if (count == 0) return 1;
    hsize_t start = first, length = count;
    hid_t file_space = H5Dget_space(set), memory = H5Screate_simple(1, &length, NULL);
    int ok = file_space >= 0 && memory >= 0 &&
             H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &length, NULL) >= 0 &&
             (write ? H5Dwrite(set, memory_type, memory, file_space, H5P_DEFAULT, buf)
                    : H5Dread(set, memory_type, memory, file_space, H5P_DEFAULT, buf)) >= 0;
    if (memory >= 0) H5Sclose(memory);
    if (file_space >= 0) H5Sclose(file_space);
    return ok;
}

hssize_t polka_ckpt_stored_count(hid_t set, hsize_t file_size, polka_state_type *type) {
    hid_t space = H5Dget_space(set), stored = H5Dget_type(set), create = H5Dget_create_plist(set);
    hssize_t n = space >= 0 && H5Sget_simple_extent_ndims(space) == 1
                     ? H5Sget_simple_extent_npoints(space)
                     : -1;
    int known = 0;
    for (int t = POLKA_STATE_F64; t <= POLKA_STATE_U8 && !known && stored >= 0; t++)
        if (H5Tequal(stored, polka_ckpt_file_type((polka_state_type)t)) > 0) *type = t, known = 1;
    hsize_t unit = known && *type == POLKA_STATE_U8 ? 1 : 8;
    int fits = n >= 0 && known && create >= 0 && H5Pget_nfilters(create) == 0 &&
               (hsize_t)n <= file_size / unit && H5Dget_storage_size(set) == (hsize_t)n * unit;
    if (create >= 0) H5Pclose(create);
    if (stored >= 0) H5Tclose(stored);
    if (space >= 0) H5Sclose(space);
    return fits ? n : -1;
}

typedef struct {
    char **names;
    size_t count, cap;
    int failed; /* out of memory, or an object a checkpoint does not hold */
} name_list;

static int add_name(name_list *list, const char *name) {
    if (list->count == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        char **grown = realloc(list->names, cap * sizeof *grown);
        if (grown == NULL) return -1;
        list->names = grown, list->cap = cap;
    }
    list->names[list->count] = malloc(strlen(name) + 1);
    if (list->names[list->count] == NULL) return -1;
    strcpy(list->names[list->count++], name);
    return 0;
}

static void free_names(name_list *list) {
    for (size_t k = 0; k < list->count; k++) free(list->names[k]);
    free(list->names);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static herr_t attribute_name(hid_t loc, const char *name, const H5A_info_t *info, void *context) {
    (void)loc, (void)info;
    name_list *list = context;
    if (strcmp(name, DIGEST_NAME) == 0) return 0;
    list->failed = list->count == MAX_ATTRS || add_name(list, name) != 0;
    return list->failed ? -1 : 0;
}

static herr_t dataset_name(hid_t obj, const char *name, const H5O_info_t *info, void *context) {
    (void)obj;
    name_list *list = context;
    if (info->type == H5O_TYPE_GROUP) return 0;
    list->failed = info->type != H5O_TYPE_DATASET || add_name(list, name) != 0;
    return list->failed ? -1 : 0;
}

/* The code of an attribute's stored type (3 .. 6), 0 when a checkpoint has no such type. */
static unsigned char attribute_code(hid_t type) {
    if (H5Tget_class(type) == H5T_STRING)
        return H5Tis_variable_str(type) == 0 && H5Tget_size(type) <= MAX_STRING ? 3 : 0;
    return H5Tequal(type, H5T_STD_U64LE) > 0    ? 4
           : H5Tequal(type, H5T_IEEE_F64LE) > 0 ? 5
           : H5Tequal(type, H5T_STD_I64LE) > 0  ? 6
                                                : 0;
}

/* The digest's errors name the object; the caller names the file. */
static polka_status unreadable(const char *what, const char *name) {
    H5Eclear2(H5E_DEFAULT);
    return polka_error_set(POLKA_ERR_FORMAT, "its %s '%s' is not one a checkpoint holds", what,
                           name);
}

static polka_status hash_attribute(hid_t file, const char *name, uint64_t *hash) {
    hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
    hid_t type = attr >= 0 ? H5Aget_type(attr) : -1, space = attr >= 0 ? H5Aget_space(attr) : -1;
    unsigned char code = type >= 0 ? attribute_code(type) : 0, bytes[MAX_STRING];
    int ok = code && space >= 0 && H5Sget_simple_extent_npoints(space) == 1 &&
             H5Aread(attr, type, bytes) >= 0;
    if (ok) hash_item(hash, name, code, 1, bytes, H5Tget_size(type));
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    return ok ? POLKA_OK : unreadable("attribute", name);
}

static polka_status hash_dataset(hid_t file, const char *name, hsize_t file_size, uint64_t *hash) {
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    polka_state_type type = POLKA_STATE_F64;
    hssize_t n = set >= 0 ? polka_ckpt_stored_count(set, file_size, &type) : -1;
    if (n < 0) {
        if (set >= 0) H5Dclose(set);
        H5Eclear2(H5E_DEFAULT);
        return polka_error_set(POLKA_ERR_FORMAT,
                               "its dataset '%s' is not an array a checkpoint holds (its type, a "
                               "filter, or more values declared than stored)",
                               name);
    }
    size_t size = (size_t)n * (type == POLKA_STATE_U8 ? 1 : 8);
    if (strcmp(name, STATES_NAME) == 0) {
        hash_item(hash, name, (unsigned char)type, (uint64_t)n, NULL, 0);
        H5Dclose(set);
        return POLKA_OK;
    }
    /* read as stored (the file type as the memory type): the bytes themselves, in blocks (the
     * metric rows of 10^5 agents are 12 MB each) */
    size_t unit = type == POLKA_STATE_U8 ? 1 : 8, block = HASH_BLOCK_BYTES / unit;
    void *bytes = malloc(size < HASH_BLOCK_BYTES ? (size ? size : 1) : HASH_BLOCK_BYTES);
    int ok = bytes != NULL;
    if (ok) hash_item(hash, name, (unsigned char)type, (uint64_t)n, NULL, 0);
    for (uint64_t at = 0; ok && at < (uint64_t)n; at += block) {
        uint64_t count = (uint64_t)n - at < block ? (uint64_t)n - at : block;
        ok = polka_ckpt_range_io(set, polka_ckpt_file_type(type), at, count, bytes, 0);
        if (ok) polka_fnv1a(hash, bytes, (size_t)count * unit);
    }
    free(bytes);
    H5Dclose(set);
    return ok ? POLKA_OK : unreadable("dataset", name);
}

polka_status polka_ckpt_digest(hid_t file, uint64_t *digest) {
    hsize_t file_size = 0;
    name_list attrs = {0}, sets = {0};
    polka_status status = POLKA_OK;
    if (H5Fget_filesize(file, &file_size) < 0 ||
        H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, NULL, attribute_name, &attrs) < 0 ||
        H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, dataset_name, &sets, H5O_INFO_BASIC) < 0) {
        H5Eclear2(H5E_DEFAULT);
        status = polka_error_set(POLKA_ERR_FORMAT, "HDF5 cannot list its contents");
    }
    uint64_t hash = FNV_OFFSET;
    if (status == POLKA_OK) {
        qsort(attrs.names, attrs.count, sizeof *attrs.names, by_name);
        qsort(sets.names, sets.count, sizeof *sets.names, by_name);
    }
    for (size_t k = 0; k < attrs.count && status == POLKA_OK; k++)
        status = hash_attribute(file, attrs.names[k], &hash);
    for (size_t k = 0; k < sets.count && status == POLKA_OK; k++)
        status = hash_dataset(file, sets.names[k], file_size, &hash);
    free_names(&attrs);
    free_names(&sets);
    *digest = hash;
    return status;
}

polka_status polka_ckpt_write_digest(hid_t file, const char *path) {
    uint64_t digest = 0;
    if (polka_ckpt_digest(file, &digest) != POLKA_OK) {
        char message[1024];
        snprintf(message, sizeof message, "%s", polka_error_message());
        return polka_error_set(POLKA_ERR_HDF5, "checkpoint '%s': %s", path, message);
    }
    return polka_h5_attr_u64(file, DIGEST_NAME, digest, path);
}

polka_status polka_ckpt_read_digest(hid_t file, const char *path, uint64_t *saved) {
    hid_t attr = H5Aexists(file, DIGEST_NAME) > 0 ? H5Aopen(file, DIGEST_NAME, H5P_DEFAULT) : -1;
    hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
    int ok = type >= 0 && H5Tequal(type, H5T_STD_U64LE) > 0 &&
             H5Aread(attr, H5T_NATIVE_UINT64, saved) >= 0;
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    return ok ? POLKA_OK : polka_h5_fail("read attribute", DIGEST_NAME, path);
}
