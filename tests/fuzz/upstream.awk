# Reads a sanitizer or libFuzzer report (of the run-file target, tests/fuzz/run.sh) and
# exits 0 when the fault is libhdf5's: the innermost stack frame outside the sanitizer runtime,
# the allocator (strdup's interceptor too), libFuzzer and libc (its string functions too, named by their glibc source) is a libhdf5 function (H5*) or in libhdf5's library, in
# the first stack (where it crashed or hung), or with -v all=1 (leaks) in every stack (where
# each leaked block was allocated). Exits 1 otherwise (polka's own, or no stack at all).
/^ *#0 0x/ { fresh = 1 }
fresh && /^ *#[0-9]+ 0x/ && !/ in (__sanitizer|__asan|__ubsan|__lsan|__interceptor|___interceptor|malloc|calloc|realloc|free|strdup|strndup|fuzzer::|__libc|__GI_|abort|raise|gsignal|pthread_kill|__pthread|killpg|_start|main |LLVMFuzzerRunDriver|__mem[a-z]*_|__str[a-z]*_)|libclang_rt|compiler-rt|\/libc\.so|sysdeps\/|\(linux-vdso/ {
    fresh = 0
    if ($0 ~ / in H5[A-Za-z_0-9]+|libhdf5/) hdf5++
    else other++
    if (!all) exit
}
END { exit !(hdf5 > 0 && other == 0) }
