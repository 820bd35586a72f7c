// Preloaded by `Scripts/sanitize thread` (LD_PRELOAD), never linked into the product.
//
// Swift's `Synchronization.Mutex` on Linux takes a contended lock with FUTEX_LOCK_PI and releases it with
// FUTEX_UNLOCK_PI inside libswiftSynchronization.so, which is not built with ThreadSanitizer: TSan sees the
// uncontended lock and unlock (atomics inlined into our code) but not a lock handed over by the kernel, so
// every access made under a contended `Mutex.withLock` is reported as a "Swift access race" with the previous
// holder. The Swift runtime had the same gap for `swift_once` and annotates it (swiftlang/swift#66877);
// this does the same for the two slow paths: it forwards to the real functions and tells TSan that the
// unlock releases and the lock acquires the mutex's word. In a process without TSan it only forwards.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdbool.h>

#define SWIFTCALL __attribute__((swiftcall))
#define SELF __attribute__((swift_context))

typedef SWIFTCALL void (*LockSlow)(uint32_t selfID, void *SELF handle);
typedef SWIFTCALL void (*UnlockSlow)(void *SELF handle);
typedef SWIFTCALL bool (*TryLockSlow)(void *SELF handle);
typedef void (*Annotation)(void *address);

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"

static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

static void acquire(void *address) {
    static Annotation annotation;
    static bool resolved;
    if (!resolved) { annotation = (Annotation)dlsym(RTLD_DEFAULT, "__tsan_acquire"); resolved = true; }
    if (annotation) annotation(address);
}

static void release(void *address) {
    static Annotation annotation;
    static bool resolved;
    if (!resolved) { annotation = (Annotation)dlsym(RTLD_DEFAULT, "__tsan_release"); resolved = true; }
    if (annotation) annotation(address);
}

SWIFTCALL void lockSlow(uint32_t selfID, void *SELF handle) __asm__(LOCK_SLOW);
SWIFTCALL void lockSlow(uint32_t selfID, void *SELF handle) {
    static LockSlow real;
    if (!real) real = (LockSlow)next(LOCK_SLOW);
    real(selfID, handle);
    acquire(handle);
}

SWIFTCALL void unlockSlow(void *SELF handle) __asm__(UNLOCK_SLOW);
SWIFTCALL void unlockSlow(void *SELF handle) {
    static UnlockSlow real;
    if (!real) real = (UnlockSlow)next(UNLOCK_SLOW);
    release(handle);
    real(handle);
}

SWIFTCALL bool tryLockSlow(void *SELF handle) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool tryLockSlow(void *SELF handle) {
    static TryLockSlow real;
    if (!real) real = (TryLockSlow)next(TRY_LOCK_SLOW);
    bool locked = real(handle);
    if (locked) acquire(handle);
    return locked;
}
