/* Paths (polka/paths.h): the normal form of a path, which paths name one file, the rule over a
 * command's files, temporary names and locks. Runs in a fresh folder under /tmp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "polka/paths.h"

static char folder[256]; /* the real path of the test's folder */

static void touch(const char *path) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("x\n", f);
    fclose(f);
}

static void expect_normal(const char *path, const char *tail) {
    char out[1024], want[1024];
    assert_int_equal(polka_path_normal(path, out, sizeof out), POLKA_OK);
    snprintf(want, sizeof want, "%s%s", folder, tail);
    assert_string_equal(out, want);
}

static void test_normal(void **state) {
    (void)state;
    mkdir("sub", 0777);
    expect_normal("new.h5", "/new.h5");                     /* not existing: folder + name */
    expect_normal("./sub//../sub/./new.h5", "/sub/new.h5"); /* ".", "..", "//" */
    expect_normal("no/such/../dir/x", "/no/dir/x");         /* no such folder: by the text */
    assert_int_equal(symlink("sub", "link"), 0);
    expect_normal("link/new.h5", "/sub/new.h5"); /* the folder's link resolved */
    assert_int_equal(symlink("sub/target.h5", "dangling"), 0);
    expect_normal("dangling", "/sub/target.h5"); /* a dangling link: where it points */
    touch("sub/here.txt");
    expect_normal("link/../sub/here.txt", "/sub/here.txt");
    char out[8];
    assert_int_equal(polka_path_normal("a-rather-long-name", out, sizeof out), POLKA_ERR_ARG);
    assert_int_equal(polka_path_normal("", out, sizeof out), POLKA_ERR_ARG);
}

static void test_same(void **state) {
    (void)state;
    touch("a.txt");
    assert_int_equal(link("a.txt", "hard.txt"), 0);
    assert_true(polka_path_same("a.txt", "./a.txt"));
    assert_true(polka_path_same("a.txt", "hard.txt")); /* one inode, two names */
    assert_true(polka_path_same("o.h5", "./o.h5"));    /* neither exists: by normal form */
    assert_true(polka_path_same("link/n.h5", "sub/n.h5"));
    assert_true(polka_path_same("dangling", "sub/target.h5")); /* writing one creates the other */
    assert_false(polka_path_same("a.txt", "b.txt"));
    assert_false(polka_path_same("a.txt", ""));
    assert_false(polka_path_same(NULL, "a.txt"));
    touch("b.txt");
    assert_false(polka_path_same("a.txt", "b.txt"));
}

static void expect_refused(const polka_file_use *uses, size_t count, const char *message) {
    assert_int_equal(polka_files_check(uses, count), POLKA_ERR_ARG);
    if (strstr(polka_error_message(), message) == NULL) fail_msg("%s", polka_error_message());
}

static void test_rule(void **state) {
    (void)state;
    touch("in.svm");
    polka_file_use uses[] = {
        {.what = "data.train", .path = "in.svm", .role = POLKA_FILE_INPUT},
        {.what = "--resume", .path = "ck.h5", .role = POLKA_FILE_RESUME},
        {.what = "run.output", .path = "out.h5", .role = POLKA_FILE_OUTPUT},
        {.what = "run.checkpoint", .path = "./ck.h5", .role = POLKA_FILE_CHECKPOINT},
    };
    assert_int_equal(polka_files_check(uses, 4), POLKA_OK); /* a checkpoint may replace --resume */
    uses[2].path = "./in.svm";
    expect_refused(uses, 4,
                   "run.output './in.svm' and data.train 'in.svm' are the same file: the "
                   "output would overwrite the input");
    uses[2].path = "ck.h5";
    expect_refused(uses, 4, "run.output 'ck.h5' and --resume 'ck.h5' are the same file");
    uses[2].path = "sub/../ck.h5";
    expect_refused(uses, 3 + 1, "run.output 'sub/../ck.h5' and --resume 'ck.h5'");
    uses[1].path = "";
    expect_refused(uses, 4,
                   "run.output 'sub/../ck.h5' and run.checkpoint './ck.h5' are the same "
                   "file: one output would overwrite the other");
    polka_file_use device = {.what = "--config", .path = "/dev/zero", .role = POLKA_FILE_INPUT};
    expect_refused(&device, 1, "--config '/dev/zero' is a character device");
    polka_file_use folder_out = {.what = "-o", .path = "sub", .role = POLKA_FILE_OUTPUT};
    expect_refused(&folder_out, 1, "-o 'sub' is a directory");
    char longer[300];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    polka_file_use mpiio = {.what = "run.output",
                            .path = longer,
                            .role = POLKA_FILE_OUTPUT,
                            .longest = POLKA_PATH_MPIIO_MAX};
    expect_refused(&mpiio, 1, "299 characters, at most 233");
}

static void test_temp(void **state) {
    (void)state;
    char one[600], two[600];
    assert_int_equal(polka_temp_create("t.h5", one, sizeof one), POLKA_OK);
    assert_int_equal(polka_temp_create("t.h5", two, sizeof two), POLKA_OK);
    assert_string_not_equal(one, two); /* unique: never another writer's */
    assert_int_equal(strlen(one), strlen("t.h5") + POLKA_TEMP_SUFFIX_LEN);
    assert_int_equal(access(one, F_OK), 0);
    assert_int_equal(polka_temp_commit(one, "t.h5"), POLKA_OK);
    assert_int_equal(access(one, F_OK), -1);
    assert_int_equal(access("t.h5", F_OK), 0);
    unlink(two);
    assert_int_equal(polka_temp_create("no/such/t.h5", one, sizeof one), POLKA_ERR_IO);
    assert_string_equal(one, ""); /* nothing to remove */
}

/* A child process tries the lock (fcntl locks are per process): its exit code, 0 when taken. */
static int lock_in_child(const char *output) {
    pid_t pid = fork();
    if (pid == 0) {
        polka_lock lock;
        _exit(polka_lock_take(&lock, output, "run.output") == POLKA_OK ? 0 : 1);
    }
    int code = 0;
    waitpid(pid, &code, 0);
    return WEXITSTATUS(code);
}

static void test_lock(void **state) {
    (void)state;
    polka_lock lock;
    assert_int_equal(polka_lock_take(&lock, "busy.h5", "run.output"), POLKA_OK);
    assert_true(lock.fd >= 0);
    assert_int_equal(lock_in_child("busy.h5"), 1); /* held */
    polka_lock_drop(&lock);
    assert_int_equal(access("busy.h5.lock", F_OK), -1);
    assert_int_equal(lock_in_child("busy.h5"), 0); /* free again (the child's lock died with it) */
    FILE *f = fopen("mine.h5.lock", "w");
    fputs("a user's file\n", f);
    fclose(f);
    assert_int_equal(polka_lock_take(&lock, "mine.h5", "run.output"), POLKA_ERR_IO);
    assert_non_null(strstr(polka_error_message(), "'mine.h5.lock' exists and is not polka's"));
}

int main(void) {
    char template[] = "/tmp/polka_test_paths.XXXXXX";
    if (mkdtemp(template) == NULL || chdir(template) != 0 || getcwd(folder, sizeof folder) == NULL)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal), cmocka_unit_test(test_same), cmocka_unit_test(test_rule),
        cmocka_unit_test(test_temp),   cmocka_unit_test(test_lock),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", template);
    if (system(command) != 0) return 1;
    return failed;
}
