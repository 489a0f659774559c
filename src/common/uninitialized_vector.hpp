// The library's one uninitialised host buffer: a std::vector that does not zero-fill. No OpenMP
// here, so that CUDA translation units may include it (through dasp_format.hpp).
#pragma once

#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace tcsparse::detail {

/// An allocator whose resize() leaves new elements default-initialised (so uninitialised for
/// integers and doubles): the COO and sort-key arrays of the readers and the DASP layout arrays
/// are written in parallel right after, and a serial zero-fill would cost as much as the
/// parallel writes.
template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A std::vector whose sized construction and resize() do not zero-fill (see
/// DefaultInitAllocator): the one uninitialised host buffer of the library. span() views it.
template <typename T>
class UninitializedVector : public std::vector<T, DefaultInitAllocator<T>> {
  using Base = std::vector<T, DefaultInitAllocator<T>>;

 public:
  using Base::Base;

  std::span<T> span() { return {this->data(), this->size()}; }
  std::span<const T> span() const { return {this->data(), this->size()}; }
};

}  // namespace tcsparse::detail
