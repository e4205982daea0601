// A bump allocator: the memory of a module's instructions, operand lists,
// attributes and the strings passes create. Allocation is a pointer bump;
// everything is freed at once when the arena dies (Binaryen's MixedArena,
// LLVM's BumpPtrAllocator). Objects with non-trivial destructors placed here
// must be destroyed by their owner.
#ifndef HLO_OFFLOAD_IR_ARENA_H_
#define HLO_OFFLOAD_IR_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace hloff {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  // Takes over `other`'s memory; `other` is left empty.
  Arena(Arena&& other) noexcept
      : cur_(other.cur_),
        end_(other.end_),
        next_block_(other.next_block_),
        reserved_(other.reserved_),
        blocks_(std::move(other.blocks_)) {
    other.cur_ = other.end_ = nullptr;
    other.reserved_ = 0;
    other.blocks_.clear();
  }
  ~Arena() {
    for (const Block& block : blocks_) FreeBlock(block);
  }

  // `size` bytes aligned to `align` (a power of two, at most 16).
  void* Allocate(size_t size, size_t align = alignof(std::max_align_t)) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(cur_) + align - 1) & ~(align - 1);
    if (cur_ == nullptr || p + size > reinterpret_cast<uintptr_t>(end_)) {
      return AllocateSlow(size, align);
    }
    cur_ = reinterpret_cast<char*>(p + size);
    return reinterpret_cast<void*>(p);
  }

  // Constructs a T in the arena. Its destructor is not run by the arena.
  template <typename T, typename... Args>
  T* New(Args&&... args) {
    return new (Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  // An array of `n` value-initialised Ts; T must be trivially destructible.
  template <typename T>
  T* NewArray(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) return nullptr;
    T* out = static_cast<T*>(Allocate(sizeof(T) * n, alignof(T)));
    for (size_t i = 0; i < n; ++i) new (out + i) T();
    return out;
  }

  // A copy of `items` in the arena; T must be trivially copyable.
  template <typename T>
  T* CopyArray(const T* items, size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (n == 0) return nullptr;
    T* out = static_cast<T*>(Allocate(sizeof(T) * n, alignof(T)));
    std::memcpy(out, items, sizeof(T) * n);
    return out;
  }

  // A copy of `text` that lives as long as the arena.
  absl::string_view CopyString(absl::string_view text) {
    if (text.empty()) return absl::string_view();
    char* out = static_cast<char*>(Allocate(text.size(), 1));
    std::memcpy(out, text.data(), text.size());
    return absl::string_view(out, text.size());
  }

  // Bytes taken from the system so far.
  size_t bytes_reserved() const { return reserved_; }

 private:
  struct Block {
    char* data;
    size_t size;
    bool mapped;
  };

  void* AllocateSlow(size_t size, size_t align) {
    // Large requests get a block of their own so the current one is kept.
    size_t block = next_block_;
    if (size + align > block / 4) {
      Block own = NewBlock(size + align);
      blocks_.push_back(own);
      uintptr_t p =
          (reinterpret_cast<uintptr_t>(own.data) + align - 1) & ~(align - 1);
      return reinterpret_cast<void*>(p);
    }
    Block b = NewBlock(block);
    blocks_.push_back(b);
    cur_ = b.data;
    end_ = b.data + b.size;
    if (next_block_ < kMaxBlock) next_block_ *= 2;
    return Allocate(size, align);
  }

  // Blocks of 2 MiB and more are mapped on huge-page boundaries and marked
  // for transparent huge pages: a large module then costs one page fault per
  // 2 MiB instead of one per 4 KiB.
  Block NewBlock(size_t size) {
    reserved_ += size;
    if (size >= kHugePage) {
      size = (size + kHugePage - 1) & ~(kHugePage - 1);
      void* p = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) {
        uintptr_t start = reinterpret_cast<uintptr_t>(p);
        uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
        if (aligned > start) munmap(p, aligned - start);
        size_t tail = kHugePage - (aligned - start);
        if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
        madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
        return Block{reinterpret_cast<char*>(aligned), size, true};
      }
    }
    return Block{static_cast<char*>(::operator new(size)), size, false};
  }
  static void FreeBlock(const Block& block) {
    if (block.mapped) {
      munmap(block.data, block.size);
    } else {
      ::operator delete(block.data);
    }
  }

  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kMaxBlock = size_t{8} << 20;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  size_t next_block_ = size_t{16} << 10;
  size_t reserved_ = 0;
  std::vector<Block> blocks_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_ARENA_H_
