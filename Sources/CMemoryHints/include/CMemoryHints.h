#ifndef WAYPOST_CMEMORYHINTS_H
#define WAYPOST_CMEMORYHINTS_H

/// Asks the processor to fetch the cache line at `address` for reading, without waiting for it
/// (a hint: it never faults, and does nothing where the compiler has no prefetch instruction).
/// Swift has no prefetch of its own.
static inline void waypost_prefetch(const void *address) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, 0, 3);
#endif
}

#endif
