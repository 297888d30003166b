/* Reading a checkpoint back (checkpoint_impl.h): every check before any state is used, with
 * one message naming the file. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sim/checkpoint/checkpoint_impl.h"
#include "io/runfile_impl.h"
#include "polka/paths.h"
#include "sim/agent/codec_impl.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"
#include "sim/metrics/metrics_impl.h"

struct polka_ckpt_s {
    char path[POLKA_PATH_LEN];
    hid_t file;
    hsize_t size; /* bytes of the file: no array read from it may be larger */
    polka_sim_point point;
    size_t agents;
    size_t columns; /* the agents with metric columns (run.log_agents) */
    polka_history history;
    int history_read;
    int verify;                         /* each agent's bytes checked against its digest */
    hid_t states;                       /* agents/states, once the index is read */
    hsize_t states_count;               /* its bytes */
    uint64_t *offset, *length, *digest; /* the index, by agent id */
};

/* run.passes sets the horizon T of the linear schedule and of the suffix average: another T
 * from the resumed round on would give a run that no uninterrupted one gives. */
static int horizon_matters(const polka_plan *plan) {
    const polka_learner_params *params = &plan->learner.params;
    return params->schedule == POLKA_SCHEDULE_LINEAR || params->suffix > 0;
}

/* The keys a resumed run may change (their rows in keys.h say MAY_CHANGE: how long it runs,
 * where it writes, how it saves), but not the horizon T where T matters. */
static int may_change(const char *name, const polka_plan *plan) {
    if (strcmp(name, "run.passes") == 0 && horizon_matters(plan)) return 0;
    const polka_config_key *key = polka_config_find(name);
    return key != NULL && key->resume == POLKA_RESUME_MAY_CHANGE;
}

/* The names of the keys that may change, for messages ("run.passes, run.output, ..."). */
static void changeable_keys(char *out, size_t size) {
    size_t count = 0, used = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    out[0] = '\0';
    for (size_t k = 0; k < count && used < size; k++)
        if (keys[k].resume == POLKA_RESUME_MAY_CHANGE)
            used +=
                (size_t)snprintf(out + used, size - used, "%s%s", used ? ", " : "", keys[k].name);
}

static polka_status damaged(const polka_ckpt *ckpt, const char *what) {
    H5Eclear2(H5E_DEFAULT);
    return polka_error_set(POLKA_ERR_FORMAT,
                           "cannot resume from '%s': %s (not a polka checkpoint, or damaged)",
                           ckpt->path, what);
}

static polka_status read_attr(const polka_ckpt *ckpt, const char *name, hid_t type, void *out) {
    hid_t attr = H5Aexists(ckpt->file, name) > 0 ? H5Aopen(ckpt->file, name, H5P_DEFAULT) : -1;
    int ok = attr >= 0 && H5Aread(attr, type, out) >= 0;
    if (attr >= 0) H5Aclose(attr);
    return ok ? POLKA_OK : damaged(ckpt, name);
}

static polka_status read_string_attr(const polka_ckpt *ckpt, const char *name, char *out,
                                     size_t size) {
    hid_t attr = H5Aexists(ckpt->file, name) > 0 ? H5Aopen(ckpt->file, name, H5P_DEFAULT) : -1;
    hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
    int ok = type >= 0 && H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type) &&
             H5Tget_size(type) < size;
    hid_t memory = ok ? H5Tcopy(type) : -1;
    ok = ok && memory >= 0 && H5Aread(attr, memory, out) >= 0;
    if (ok) out[H5Tget_size(type)] = '\0';
    if (memory >= 0) H5Tclose(memory);
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    return ok ? POLKA_OK : damaged(ckpt, name);
}

/* A 1-D dataset into a new buffer of *count values of its stored *type (one more byte for a
 * string's end). */
static polka_status read_stored(const polka_ckpt *ckpt, hid_t loc, const char *name,
                                polka_state_type *type, void **data, size_t *count) {
    hid_t set = H5Lexists(loc, name, H5P_DEFAULT) > 0 ? H5Dopen2(loc, name, H5P_DEFAULT) : -1;
    hssize_t n = set >= 0 ? polka_ckpt_stored_count(set, ckpt->size, type) : -1;
    size_t unit = *type == POLKA_STATE_U8 ? 1 : 8;
    *data = n >= 0 ? malloc((size_t)n * unit + 1) : NULL;
    int ok = *data && (n == 0 || H5Dread(set, polka_ckpt_memory_type(*type), H5S_ALL, H5S_ALL,
                                         H5P_DEFAULT, *data) >= 0);
    if (set >= 0) H5Dclose(set);
    if (!ok) {
        free(*data);
        *data = NULL;
        return damaged(ckpt, name);
    }
    *count = (size_t)n;
    return POLKA_OK;
}

/* The same, of a given type. */
static polka_status read_array(const polka_ckpt *ckpt, hid_t loc, const char *name,
                               polka_state_type type, void **data, size_t *count) {
    polka_state_type stored = type;
    POLKA_CALL(read_stored(ckpt, loc, name, &stored, data, count));
    if (stored == type) return POLKA_OK;
    free(*data);
    *data = NULL;
    return damaged(ckpt, name);
}

/* The first setting that differs between the checkpoint's lines and the run's. */
static polka_status compare_settings(const polka_ckpt *ckpt, const polka_plan *plan,
                                     const char *saved, const char *now) {
    const char *a = saved, *b = now;
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        size_t ka = strcspn(a, " "), kb = strcspn(b, " ");
        POLKA_CHECK(ka == kb && strncmp(a, b, ka) == 0, POLKA_ERR_ARG,
                    "cannot resume from '%s': it was written by a polka with other settings "
                    "(key '%.*s' there, '%.*s' here)",
                    ckpt->path, (int)ka, a, (int)kb, b);
        char key[128], changeable[512];
        snprintf(key, sizeof key, "%.*s", (int)ka, a);
        if (may_change(key, plan) || (la == lb && strncmp(a, b, la) == 0)) {
            a += la + (a[la] == '\n'), b += lb + (b[lb] == '\n');
            continue;
        }
        changeable_keys(changeable, sizeof changeable);
        return polka_error_set(POLKA_ERR_ARG,
                               "cannot resume from '%s': it was written with another "
                               "configuration: '%.*s' there, '%.*s' here (only %s may change, and "
                               "run.passes not under learner.schedule = linear or learner.suffix "
                               "> 0: it sets their horizon)",
                               ckpt->path, (int)la, a, (int)lb, b, changeable);
    }
    return POLKA_OK;
}

/* The digest before any value is used (the format's attributes are only compared). */
/* The open file's identity (device, inode, size, mtime), 0 when it cannot be had. */
static int file_identity(hid_t file, struct stat *info) {
    void *handle = NULL;
    return H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle != NULL &&
           fstat(*(int *)handle, info) == 0;
}

/* The checkpoint this process verified last, if it is that file unchanged: a resume opens its
 * checkpoint up to four times (settings, start-up check, the graph's round, the agents). */
static int verified_before(const polka_ckpt *ckpt, int remember) {
    static struct stat last;
    static int known;
    struct stat info;
    if (!file_identity(ckpt->file, &info)) return 0;
    int same = known && info.st_dev == last.st_dev && info.st_ino == last.st_ino &&
               info.st_size == last.st_size && info.st_mtim.tv_sec == last.st_mtim.tv_sec &&
               info.st_mtim.tv_nsec == last.st_mtim.tv_nsec;
    /* a file written within the last seconds is verified each time: a rewrite in the same
     * tick of the file system's clock would keep its mtime */
    if (remember) last = info, known = time(NULL) > info.st_mtim.tv_sec + 2;
    return same;
}

static polka_status check_digest(const polka_ckpt *ckpt) {
    uint64_t saved = 0, digest = 0;
    if (polka_ckpt_read_digest(ckpt->file, ckpt->path, &saved) != POLKA_OK)
        return damaged(ckpt, "no digest");
    if (verified_before(ckpt, 0)) return POLKA_OK;
    if (polka_ckpt_digest(ckpt->file, &digest) != POLKA_OK) {
        char message[1024];
        snprintf(message, sizeof message, "%s", polka_error_message());
        return polka_error_set(POLKA_ERR_FORMAT, "cannot resume from '%s': %s (damaged)",
                               ckpt->path, message);
    }
    POLKA_CHECK(digest == saved, POLKA_ERR_FORMAT,
                "cannot resume from '%s': its contents do not match the digest written with them "
                "(the file is damaged)",
                ckpt->path);
    verified_before(ckpt, 1);
    return POLKA_OK;
}

static polka_status check_format(polka_ckpt *ckpt, int verify) {
    char format[64], version[64];
    POLKA_CALL(read_string_attr(ckpt, "format", format, sizeof format));
    if (strcmp(format, POLKA_CKPT_FORMAT_NAME) != 0) return damaged(ckpt, "format");
    uint64_t format_version = 0;
    POLKA_CALL(read_attr(ckpt, "format_version", H5T_NATIVE_UINT64, &format_version));
    POLKA_CHECK(format_version == POLKA_CKPT_FORMAT_VERSION, POLKA_ERR_FORMAT,
                "cannot resume from '%s': it is from %s polka (checkpoint format %llu) and this "
                "polka, which reads format %d, cannot resume it (finish the run with the polka "
                "that wrote it)",
                ckpt->path, format_version < POLKA_CKPT_FORMAT_VERSION ? "an older" : "a newer",
                (unsigned long long)format_version, POLKA_CKPT_FORMAT_VERSION);
    if (verify) POLKA_CALL(check_digest(ckpt));
    POLKA_CALL(read_string_attr(ckpt, "polka_version", version, sizeof version));
    POLKA_CHECK(strcmp(version, POLKA_VERSION) == 0, POLKA_ERR_FORMAT,
                "cannot resume from '%s': written by polka %s, this is polka %s", ckpt->path,
                version, POLKA_VERSION);
    return POLKA_OK;
}

/* A text dataset (bytes without a NUL) as a string (the caller frees it). */
static polka_status read_text(const polka_ckpt *ckpt, const char *name, char **text) {
    void *saved = NULL;
    size_t length = 0;
    POLKA_CALL(read_array(ckpt, ckpt->file, name, POLKA_STATE_U8, &saved, &length));
    ((char *)saved)[length] = '\0';
    if (strlen(saved) != length) {
        free(saved);
        return damaged(ckpt, name);
    }
    *text = saved;
    return POLKA_OK;
}

polka_status polka_ckpt_settings(const polka_ckpt *ckpt, char **text) {
    return read_text(ckpt, "settings", text);
}

static int uses_int8(const polka_plan *plan) {
    for (int kind = 0; kind < POLKA_MSG_KINDS; kind++)
        if (polka_codec_for(plan, kind).kind == POLKA_CODEC_INT8) return 1;
    return 0;
}

/* An int8 run goes on only from a checkpoint whose int8 sent the same scale (checkpoint_impl.h). */
static polka_status check_int8_scale(const polka_ckpt *ckpt, const polka_plan *plan) {
    char scale[64] = "a float32";
    if (!uses_int8(plan)) return POLKA_OK;
    if (H5Aexists(ckpt->file, "int8_scale") > 0)
        POLKA_CALL(read_string_attr(ckpt, "int8_scale", scale, sizeof scale));
    POLKA_CHECK(strcmp(scale, POLKA_CKPT_INT8_SCALE) == 0, POLKA_ERR_FORMAT,
                "cannot resume from '%s': it was written by a polka whose int8 codec sent %s "
                "scale, and this one sends an %s (finish the run with the polka that wrote it)",
                ckpt->path, scale, POLKA_CKPT_INT8_SCALE);
    return POLKA_OK;
}

static polka_status check_settings(const polka_ckpt *ckpt, const polka_plan *plan) {
    char *saved = NULL, *now = NULL;
    POLKA_CALL(check_int8_scale(ckpt, plan));
    POLKA_CALL(polka_ckpt_settings(ckpt, &saved));
    polka_status status = polka_ckpt_settings_text(plan, &now);
    if (status == POLKA_OK) status = compare_settings(ckpt, plan, saved, now);
    free(saved);
    free(now);
    return status;
}

static polka_status read_point(polka_ckpt *ckpt) {
    uint64_t round = 0, rows = 0, agents = 0;
    POLKA_CALL(read_attr(ckpt, "round", H5T_NATIVE_UINT64, &round));
    POLKA_CALL(read_attr(ckpt, "rows", H5T_NATIVE_UINT64, &rows));
    POLKA_CALL(read_attr(ckpt, "agents", H5T_NATIVE_UINT64, &agents));
    POLKA_CALL(read_attr(ckpt, "next_log", H5T_NATIVE_DOUBLE, &ckpt->point.next_log));
    POLKA_CHECK(rows <= round && round < ((uint64_t)1 << 53) && agents < ((uint64_t)1 << 40),
                POLKA_ERR_FORMAT,
                "cannot resume from '%s': it says %llu log steps after round %llu of %llu agents "
                "(damaged)",
                ckpt->path, (unsigned long long)rows, (unsigned long long)round,
                (unsigned long long)agents);
    ckpt->point.round = round;
    ckpt->point.rows = rows;
    ckpt->agents = ckpt->columns = (size_t)agents;
    return POLKA_OK;
}

polka_status polka_ckpt_open_file(const char *path, int verify, polka_ckpt **out) {
    /* a FIFO or a device is refused before HDF5 would block on it or read it endlessly */
    polka_file_use use = {.what = "--resume", .path = path, .role = POLKA_FILE_RESUME};
    POLKA_CALL(polka_files_check(&use, 1));
    polka_ckpt *ckpt = calloc(1, sizeof *ckpt);
    POLKA_CHECK_ALLOC(ckpt);
    snprintf(ckpt->path, sizeof ckpt->path, "%s", path);
    ckpt->verify = verify;
    ckpt->states = -1;
    polka_h5_quiet();
    ckpt->file = H5Fopen(ckpt->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    polka_status status = POLKA_OK;
    if (ckpt->file < 0) {
        H5Eclear2(H5E_DEFAULT);
        FILE *probe = fopen(ckpt->path, "rb");
        if (probe) fclose(probe);
        status =
            probe ? damaged(ckpt, "not an HDF5 file")
                  : polka_error_set(POLKA_ERR_IO, "cannot resume: no checkpoint '%s'", ckpt->path);
    }
    if (status == POLKA_OK && H5Fget_filesize(ckpt->file, &ckpt->size) < 0)
        status = damaged(ckpt, "its size");
    if (status == POLKA_OK) status = check_format(ckpt, verify);
    if (status == POLKA_OK) status = read_point(ckpt);
    if (status != POLKA_OK) {
        polka_ckpt_close(&ckpt);
        return status;
    }
    *out = ckpt;
    return POLKA_OK;
}

/* The index of the agents' states (offset, length, digest by agent id, each the size the root
 * says) and agents/states open, every agent's bytes inside it. */
static polka_status read_index(polka_ckpt *ckpt) {
    static const char *const names[3] = {"agents/offset", "agents/length", "agents/digest"};
    uint64_t **arrays[3] = {&ckpt->offset, &ckpt->length, &ckpt->digest};
    for (int k = 0; k < 3; k++) {
        size_t count = 0;
        POLKA_CALL(
            read_array(ckpt, ckpt->file, names[k], POLKA_STATE_U64, (void **)arrays[k], &count));
        if (count != ckpt->agents) return damaged(ckpt, names[k]);
    }
    polka_state_type type = POLKA_STATE_U8;
    ckpt->states = H5Lexists(ckpt->file, "agents/states", H5P_DEFAULT) > 0
                       ? H5Dopen2(ckpt->file, "agents/states", H5P_DEFAULT)
                       : -1;
    hssize_t bytes =
        ckpt->states >= 0 ? polka_ckpt_stored_count(ckpt->states, ckpt->size, &type) : -1;
    if (bytes < 0 || type != POLKA_STATE_U8) return damaged(ckpt, "agents/states");
    ckpt->states_count = (hsize_t)bytes;
    for (size_t a = 0; a < ckpt->agents; a++)
        if (ckpt->offset[a] > ckpt->states_count ||
            ckpt->length[a] > ckpt->states_count - ckpt->offset[a])
            return damaged(ckpt, "agents/offset and agents/length");
    return POLKA_OK;
}

polka_status polka_ckpt_open(const polka_plan *plan, size_t agents, polka_ckpt **out) {
    return polka_ckpt_open_checked(plan, agents, 1, out);
}

polka_status polka_ckpt_open_checked(const polka_plan *plan, size_t agents, int verify,
                                     polka_ckpt **out) {
    polka_ckpt *ckpt = NULL;
    POLKA_CALL(polka_ckpt_open_file(plan->run.resume, verify, &ckpt));
    char *inputs = NULL;
    polka_status status = check_settings(ckpt, plan);
    if (status == POLKA_OK) status = read_text(ckpt, "inputs", &inputs);
    if (status == POLKA_OK) status = polka_ckpt_check_inputs(ckpt->path, inputs, plan);
    free(inputs);
    size_t stride = polka_plan_log_stride(plan, ckpt->agents); /* the settings agree */
    ckpt->columns = (ckpt->agents + stride - 1) / stride;
    if (status == POLKA_OK && ckpt->agents != agents)
        status = polka_error_set(POLKA_ERR_ARG,
                                 "cannot resume from '%s': it holds %zu agents, this run has %zu "
                                 "(set net.agents to run the same network on another number of "
                                 "ranks)",
                                 ckpt->path, ckpt->agents, agents);
    if (status == POLKA_OK) status = read_index(ckpt);
    if (status != POLKA_OK) {
        polka_ckpt_close(&ckpt);
        return status;
    }
    *out = ckpt;
    return POLKA_OK;
}

void polka_ckpt_close(polka_ckpt **ckpt) {
    if (ckpt == NULL || *ckpt == NULL) return;
    if ((*ckpt)->states >= 0) H5Dclose((*ckpt)->states);
    if ((*ckpt)->file >= 0) H5Fclose((*ckpt)->file);
    free((*ckpt)->offset), free((*ckpt)->length), free((*ckpt)->digest);
    polka_history_free(&(*ckpt)->history);
    free(*ckpt);
    *ckpt = NULL;
}

size_t polka_ckpt_agents(const polka_ckpt *ckpt) {
    return ckpt->agents;
}

const char *polka_ckpt_name(const polka_ckpt *ckpt) {
    return ckpt->path;
}

const polka_sim_point *polka_ckpt_point(const polka_ckpt *ckpt) {
    return &ckpt->point;
}

/* Agent's packed state: its bytes of agents/states, checked against its digest. */
polka_status polka_ckpt_agent(const polka_ckpt *ckpt, size_t agent, polka_state **out) {
    if (agent >= ckpt->agents || ckpt->states < 0) return damaged(ckpt, "agents/offset");
    uint64_t at = ckpt->offset[agent], bytes = ckpt->length[agent];
    unsigned char *block = malloc(bytes ? bytes : 1);
    hsize_t start[1] = {at}, count[1] = {bytes};
    hid_t file_space = H5Dget_space(ckpt->states), memory = H5Screate_simple(1, count, NULL);
    int ok = block && file_space >= 0 && memory >= 0 &&
             H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dread(ckpt->states, H5T_NATIVE_UCHAR, memory, file_space, H5P_DEFAULT, block) >= 0;
    if (memory >= 0) H5Sclose(memory);
    if (file_space >= 0) H5Sclose(file_space);
    if (!ok) {
        free(block);
        return damaged(ckpt, "agents/states");
    }
    uint64_t digest = 0xcbf29ce484222325ull;
    polka_fnv1a(&digest, block, bytes);
    polka_status status = POLKA_OK;
    if (ckpt->verify && digest != ckpt->digest[agent])
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "cannot resume from '%s': the state of agent %zu does not match "
                                 "the digest written with it (the file is damaged)",
                                 ckpt->path, agent);
    if (status == POLKA_OK && polka_state_unpack(block, bytes, out) != POLKA_OK)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "cannot resume from '%s': the state of agent %zu is not one polka "
                                 "writes (damaged)",
                                 ckpt->path, agent);
    free(block);
    return status;
}

/* The metric rows: as many as the point says, each of every agent's metrics, at increasing
 * whole rounds up to the checkpoint's. */
static polka_status check_history(const polka_ckpt *ckpt, const polka_history *h, size_t samples,
                                  size_t values) {
    size_t width = ckpt->columns * POLKA_METRICS_DOUBLES;
    POLKA_CHECK(samples == h->rows && h->rows == ckpt->point.rows && values == h->rows * width,
                POLKA_ERR_FORMAT,
                "cannot resume from '%s': its metric rows do not fit its point (%zu rows of %zu "
                "values, %zu samples, %llu log steps; damaged)",
                ckpt->path, h->rows, h->rows ? values / h->rows : 0, samples,
                (unsigned long long)ckpt->point.rows);
    for (size_t r = 0; r < h->rows; r++) {
        double round = h->round[r];
        POLKA_CHECK(round >= 1 && round <= (double)ckpt->point.round && round == floor(round) &&
                        (r == 0 || round > h->round[r - 1]),
                    POLKA_ERR_FORMAT,
                    "cannot resume from '%s': its metric row %zu is of round %g, not a round "
                    "after the previous row's and up to %llu (damaged)",
                    ckpt->path, r, round, (unsigned long long)ckpt->point.round);
    }
    return POLKA_OK;
}

/* Metric row r of the checkpoint (polka_history.read_row): read when it is replayed, so that
 * no rank holds every row. */
static polka_status read_history_row(const void *source, size_t r, double *row) {
    const polka_ckpt *ckpt = source;
    size_t width = ckpt->history.width;
    hid_t set = H5Dopen2(ckpt->file, "history/metrics", H5P_DEFAULT);
    int ok =
        set >= 0 && polka_ckpt_range_io(set, H5T_NATIVE_DOUBLE, (uint64_t)r * width, width, row, 0);
    if (set >= 0) H5Dclose(set);
    return ok ? POLKA_OK : damaged(ckpt, "history/metrics");
}

/* The values history/metrics declares (checked against what the file stores), not read. */
static polka_status count_history_values(const polka_ckpt *ckpt, size_t *values) {
    hid_t set = H5Lexists(ckpt->file, "history/metrics", H5P_DEFAULT) > 0
                    ? H5Dopen2(ckpt->file, "history/metrics", H5P_DEFAULT)
                    : -1;
    polka_state_type type = POLKA_STATE_F64;
    hssize_t n = set >= 0 ? polka_ckpt_stored_count(set, ckpt->size, &type) : -1;
    if (set >= 0) H5Dclose(set);
    if (n < 0 || type != POLKA_STATE_F64) return damaged(ckpt, "history/metrics");
    *values = (size_t)n;
    return POLKA_OK;
}

polka_status polka_ckpt_history(polka_ckpt *ckpt, const polka_history **out) {
    polka_history *h = &ckpt->history;
    if (!ckpt->history_read) {
        void *round = NULL, *samples = NULL;
        size_t rows = 0, check = 0, values = 0;
        polka_status status =
            read_array(ckpt, ckpt->file, "history/round", POLKA_STATE_F64, &round, &rows);
        if (status == POLKA_OK)
            status =
                read_array(ckpt, ckpt->file, "history/samples", POLKA_STATE_F64, &samples, &check);
        if (status == POLKA_OK) status = count_history_values(ckpt, &values);
        *h = (polka_history){.rows = rows,
                             .cap = rows,
                             .width = ckpt->columns * POLKA_METRICS_DOUBLES,
                             .round = round,
                             .samples = samples,
                             .read_row = read_history_row,
                             .source = ckpt};
        if (status == POLKA_OK) status = check_history(ckpt, h, check, values);
        POLKA_CALL(status);
        ckpt->history_read = 1;
    }
    *out = h;
    return POLKA_OK;
}
