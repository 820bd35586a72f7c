// LD_PRELOAD shim for running Swift programs under valgrind 3.19: libdispatch's dispatch_main() (the async main
// of `siwa serve`) calls sigsuspend(2) with a mask in read-only memory, and valgrind's wrapper writes to the mask
// it is given, so valgrind itself crashes with SIGSEGV. This passes a writable copy instead.
// Build: cc -O2 -shared -fPIC -o valgrind-sigsuspend.so valgrind-sigsuspend.c
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
