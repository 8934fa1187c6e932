#pragma once
// The allocator of the lease table's large arrays (issue #6: ≤ 150 bytes of RSS per lease).
// Blocks of 64 KiB and more come straight from mmap and go straight back with munmap. malloc
// serves such blocks from its heap once its dynamic mmap threshold has risen (glibc raises it to
// the largest mmapped block freed, up to 32 MiB), and an array that doubles then leaves each
// outgrown buffer behind on that heap: ~30 bytes per lease at 1 M leases, measured. Pages of
// capacity not yet used are not resident either.
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace landlord::lease {

template <typename T>
struct PageAllocator {
  using value_type = T;
  static constexpr std::size_t kMappedBytes = 64 * 1024;

  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) {}  // rebinding, as std::vector may

  T* allocate(std::size_t count) {
    const std::size_t bytes = count * sizeof(T);
    if (bytes < kMappedBytes) return static_cast<T*>(::operator new(bytes));
    void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(pages);
  }
  void deallocate(T* block, std::size_t count) {
    const std::size_t bytes = count * sizeof(T);
    if (bytes < kMappedBytes) {
      ::operator delete(block, bytes);
    } else {
      munmap(block, bytes);
    }
  }
  template <typename U>
  bool operator==(const PageAllocator<U>&) const {
    return true;
  }
};

template <typename T>
using PagedVector = std::vector<T, PageAllocator<T>>;

}  // namespace landlord::lease
