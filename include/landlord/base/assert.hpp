#pragma once
// Always-on assertions: a broken invariant in a lease server must stop it, in release builds too.
#include <cstdio>
#include <cstdlib>

#define LANDLORD_ASSERT(condition)                                                  \
  do {                                                                              \
    if (!(condition)) [[unlikely]] {                                                \
      std::fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__,     \
                   #condition);                                                     \
      std::abort();                                                                 \
    }                                                                               \
  } while (false)
