/*
 * A checkpoint is made in memory and written to the disk by polka itself
 * (checkpoint_h5_impl.h): HDF5's core driver holds the file, and its image goes to the disk
 * with plain write() calls, so that a full disk is an error of ours with nothing of HDF5 left
 * open (issue 33: a failed H5Fclose on a full disk left the file's id open, and MPI_Finalize
 * then crashed in H5F__close_cb).
 *
 * The file uses the HDF5 1.10 object formats, whose metadata (superblock, object headers,
 * B-trees, heaps) carry checksums that HDF5 verifies whenever it reads them: a damaged object
 * header is refused by HDF5 instead of being parsed. libhdf5 1.10's H5Fget_file_image clears
 * the superblock's "open for writing" flag in the image without recomputing the superblock's
 * checksum (the image then opens nowhere); seal() recomputes it, and the image is opened again
 * from memory and its digest checked before a byte of it reaches the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/h5log_impl.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"

/* Links and attributes stay in their object's header ("compact"), whose chunks carry
 * checksums, up to this many: the "dense" storage keeps them in a fractal heap whose blocks
 * are not checksummed, and libhdf5 crashes on a damaged link there (fuzz campaign). */
#define MAX_COMPACT 65535

static int compact(hid_t create) {
    return H5Pset_link_phase_change(create, MAX_COMPACT, MAX_COMPACT) >= 0 &&
           H5Pset_attr_phase_change(create, MAX_COMPACT, MAX_COMPACT) >= 0;
}

hid_t polka_ckpt_create_in_memory(const char *name) {
    hid_t access = H5Pcreate(H5P_FILE_ACCESS), create = H5Pcreate(H5P_FILE_CREATE);
    int ok = access >= 0 && create >= 0 && H5Pset_fapl_core(access, 1 << 20, 0) >= 0 &&
             H5Pset_libver_bounds(access, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0 && compact(create);
    hid_t file = ok ? H5Fcreate(name, H5F_ACC_TRUNC, create, access) : -1;
    if (create >= 0) H5Pclose(create);
    if (access >= 0) H5Pclose(access);
    return file;
}

polka_status polka_ckpt_group(hid_t loc, const char *name, const char *path, hid_t *out) {
    hid_t create = H5Pcreate(H5P_GROUP_CREATE);
    *out = create >= 0 && compact(create) ? H5Gcreate2(loc, name, H5P_DEFAULT, create, H5P_DEFAULT)
                                          : -1;
    if (create >= 0) H5Pclose(create);
    return *out >= 0 ? POLKA_OK : polka_h5_fail("create group", name, path);
}

#define ROTATE(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

/* Bob Jenkins' lookup3 hashlittle (public domain), HDF5's metadata checksum (initval 0). */
static uint32_t lookup3(const unsigned char *key, size_t length) {
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)length;
    for (; length > 12; length -= 12, key += 12) {
        uint32_t w[3];
        for (int k = 0; k < 3; k++)
            w[k] = (uint32_t)key[4 * k] | (uint32_t)key[4 * k + 1] << 8 |
                   (uint32_t)key[4 * k + 2] << 16 | (uint32_t)key[4 * k + 3] << 24;
        a += w[0], b += w[1], c += w[2];
        a -= c, a ^= ROTATE(c, 4), c += b;
        b -= a, b ^= ROTATE(a, 6), a += c;
        c -= b, c ^= ROTATE(b, 8), b += a;
        a -= c, a ^= ROTATE(c, 16), c += b;
        b -= a, b ^= ROTATE(a, 19), a += c;
        c -= b, c ^= ROTATE(b, 4), b += a;
    }
    if (length == 0) return c;
    uint32_t *words[3] = {&a, &b, &c};
    for (size_t k = 0; k < length; k++) *words[k / 4] += (uint32_t)key[k] << (8 * (k % 4));
    c ^= b, c -= ROTATE(b, 14);
    a ^= c, a -= ROTATE(c, 11);
    b ^= a, b -= ROTATE(a, 25);
    c ^= b, c -= ROTATE(b, 16);
    a ^= c, a -= ROTATE(c, 4);
    b ^= a, b -= ROTATE(a, 14);
    c ^= b, c -= ROTATE(b, 24);
    return c;
}

/* The superblock (version 2 or 3, 8-byte addresses: signature, version, two sizes, flags, four
 * addresses, then the checksum of those 44 bytes) with its checksum recomputed. */
static int seal(unsigned char *image, size_t size) {
    static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    enum { CHECKED = 44 };
    if (size < CHECKED + 4 || memcmp(image, signature, 8) != 0 || image[8] < 2 || image[8] > 3 ||
        image[9] != 8 || image[10] != 8)
        return 0;
    uint32_t sum = lookup3(image, CHECKED);
    for (int k = 0; k < 4; k++) image[CHECKED + k] = (unsigned char)(sum >> (8 * k));
    return 1;
}

/* The image opened from memory has the digest its attribute says. */
static polka_status check_image(const void *image, size_t size, const char *tmp) {
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    int ok = access >= 0 && H5Pset_fapl_core(access, 1 << 20, 0) >= 0 &&
             H5Pset_file_image(access, (void *)image, size) >= 0;
    /* the core driver opens a file of that name too when one exists (the empty temporary file
     * does): a name that cannot exist keeps it to the image */
    hid_t file = ok ? H5Fopen("/proc/self/polka-checkpoint-image", H5F_ACC_RDONLY, access) : -1;
    if (access >= 0) H5Pclose(access);
    if (file < 0) return polka_h5_fail("open the image of", NULL, tmp);
    uint64_t saved = 0, digest = 1;
    polka_status status = polka_ckpt_read_digest(file, tmp, &saved);
    if (status == POLKA_OK) status = polka_ckpt_digest(file, &digest);
    status = polka_h5_first(status, polka_h5_close(&file, tmp));
    POLKA_CALL(status);
    POLKA_CHECK(digest == saved, POLKA_ERR_HDF5,
                "the image of checkpoint '%s' does not read back as written", tmp);
    return POLKA_OK;
}

polka_status polka_ckpt_image(hid_t file, const char *tmp, void **image, size_t *size) {
    *image = NULL;
    ssize_t bytes = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0 ? H5Fget_file_image(file, NULL, 0) : -1;
    if (bytes > 0) *image = malloc((size_t)bytes);
    polka_status status = POLKA_OK;
    if (*image == NULL)
        status = bytes > 0
                     ? polka_error_set(POLKA_ERR_MEM, "out of memory for checkpoint '%s'", tmp)
                     : polka_h5_fail("take the image of", NULL, tmp);
    else if (H5Fget_file_image(file, *image, (size_t)bytes) != bytes ||
             !seal(*image, (size_t)bytes))
        status = polka_h5_fail("take the image of", NULL, tmp);
    else
        status = check_image(*image, (size_t)bytes, tmp);
    if (status != POLKA_OK) {
        free(*image);
        *image = NULL;
        return status;
    }
    *size = (size_t)bytes;
    return POLKA_OK;
}

polka_status polka_ckpt_write_image(const char *tmp, const void *image, size_t size) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    POLKA_CHECK(fd >= 0, POLKA_ERR_IO, "cannot create checkpoint '%s': %s", tmp, strerror(errno));
    const unsigned char *bytes = image;
    size_t done = 0;
    int error = 0;
    while (done < size && error == 0) {
        ssize_t wrote = write(fd, bytes + done, size - done);
        if (wrote > 0)
            done += (size_t)wrote;
        else if (wrote == 0)
            error = EIO;
        else if (errno != EINTR)
            error = errno;
    }
    if (error == 0 && fsync(fd) != 0) error = errno;
    if (close(fd) != 0 && error == 0) error = errno;
    POLKA_CHECK(error == 0, POLKA_ERR_IO, "cannot write checkpoint '%s': %s", tmp, strerror(error));
    return POLKA_OK;
}
