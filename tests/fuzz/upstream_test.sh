#!/usr/bin/env bash
# upstream.awk (run.sh's split of the run-file target's faults): reports whose fault is in
# libhdf5 are upstream, those with a polka frame innermost are polka's own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check() { # check WANT ALL REPORT
    local got=polka
    printf '%s\n' "$3" | awk -v all="$2" -f "$here/upstream.awk" && got=upstream
    [ "$got" = "$1" ] || { echo "FAIL: want $1, got $got for:"; printf '%s\n' "$3"; exit 1; }
}
overflow='==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6
    #0 0x55 in __asan_memcpy (/b/fuzz_runfile+0x1)
    #1 0x7f in H5O__msg_iterate_real (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x1)
    #2 0x7f in H5Aexists (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x2)
    #3 0x55 in polka_runfile_reader_config_string /w/src/io/h5log_read.c:10
0x6 is located 0 bytes after a region allocated by thread T0 here:
    #0 0x55 in malloc (/b/fuzz_runfile+0x1)
    #1 0x55 in polka_runfile_reader_open /w/src/io/h5log_read.c:278'
check upstream 0 "$overflow"
segv_libc='==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000
    #0 0x7f in __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:372
    #1 0x56 in __interceptor_memcpy (/b/fuzz_runfile+0x84637)
    #2 0x7f in H5F__accum_read (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0xfb8fe)
    #3 0x7f in H5Dopen2 (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0xa3f90)
    #4 0x56 in open_dataset /w/src/io/h5log_read.c:223:12'
check upstream 0 "$segv_libc"
check polka 0 "${segv_libc/H5F__accum_read (\/lib\/x86_64-linux-gnu\/libhdf5_openmpi.so.103+0xfb8fe)/read_row \/w\/src\/io\/h5log_read.c:100}"
hang='==1== ERROR: libFuzzer: timeout after 20 seconds
    #0 0x55 in __sanitizer_print_stack_trace (/b/fuzz_runfile+0x1)
    #1 0x55 in fuzzer::PrintStackTrace() (/b/fuzz_runfile+0x2)
    #2 0x55 in fuzzer::Fuzzer::AlarmCallback() (/b/fuzz_runfile+0x3)
    #3 0x7f  (/lib/x86_64-linux-gnu/libc.so.6+0x3c04f)
    #4 0x7f in H5HG_read (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x1)
    #5 0x55 in polka_runfile_reader_config_string /w/src/io/h5log_read.c:10'
check upstream 0 "$hang"
check polka 0 "${hang/H5HG_read (\/lib\/x86_64-linux-gnu\/libhdf5_openmpi.so.103+0x1)/read_row \/w\/src\/io\/h5log_read.c:100}"
oom='==1== ERROR: libFuzzer: out-of-memory (malloc(4244635984))
   To change the out-of-memory limit use -rss_limit_mb=<N>

    #0 0x56 in __sanitizer_print_stack_trace (/b/fuzz_runfile+0xf71a1)
    #1 0x56 in fuzzer::PrintStackTrace() (/b/fuzz_runfile+0x69af8)
    #2 0x56 in fuzzer::Fuzzer::HandleMalloc(unsigned long) (/b/fuzz_runfile+0x4e605)
    #3 0x56 in fuzzer::MallocHook(void const volatile*, unsigned long) (/b/fuzz_runfile+0x4e51a)
    #4 0x56 in __sanitizer::RunMallocHooks(void const*, unsigned long) (/b/fuzz_runfile+0xfe627)
    #5 0x56 in __asan::Allocator::Allocate(unsigned long, unsigned long, __sanitizer::BufferedStackTrace*, __asan::AllocType, bool) (/b/fuzz_runfile+0x6cd24)
    #6 0x56 in __asan::asan_malloc(unsigned long, __sanitizer::BufferedStackTrace*) (/b/fuzz_runfile+0x6c663)
    #7 0x56 in malloc (/b/fuzz_runfile+0xed11d)
    #8 0x7f in H5C_protect (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x9127e)
    #9 0x7f in H5Gopen2 (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x134604)
    #10 0x56 in polka_runfile_reader_load_model /w/src/io/h5log_read.c:491:19'
check upstream 0 "$oom"
check polka 0 "${oom/H5C_protect (\/lib\/x86_64-linux-gnu\/libhdf5_openmpi.so.103+0x9127e)/read_matrix \/w\/src\/io\/h5log_read.c:440}"
leak_hdf5='Direct leak of 4176 byte(s) in 1 object(s) allocated from:
    #0 0x55 in malloc (/b/fuzz_runfile+0x1)
    #1 0x7f  (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x1294b3)
    #2 0x7f in H5FL_blk_malloc (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x129bb1)'
leak_polka='Direct leak of 8 byte(s) in 1 object(s) allocated from:
    #0 0x55 in malloc (/b/fuzz_runfile+0x1)
    #1 0x55 in polka_runfile_reader_open /w/src/io/h5log_read.c:278'
check upstream 1 "$leak_hdf5"
check polka 1 "$leak_hdf5
$leak_polka"
# a block libhdf5 strdup'ed (H5MM_xstrdup): ASan's strdup interceptor is innermost, as its
# malloc is (a CI fuzz smoke counted this leak as polka's); polka's own strdup stays polka's
leak_strdup='Indirect leak of 170 byte(s) in 2 object(s) allocated from:
    #0 0x56 in strdup (/b/fuzz_runfile+0xe9b33)
    #1 0x7f in H5MM_xstrdup (/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103+0x18955d)
    #2 0x57d43098115878ff  (<unknown module>)'
check upstream 1 "$leak_hdf5
$leak_strdup"
check polka 1 "${leak_strdup/H5MM_xstrdup (\/lib\/x86_64-linux-gnu\/libhdf5_openmpi.so.103+0x18955d)/polka_runfile_reader_open \/w\/src\/io\/h5log_read.c:278}"
check polka 0 'no stack at all'
echo "ok: libhdf5 faults, out-of-memory stops and leaks are upstream, polka frames are polka's own"
