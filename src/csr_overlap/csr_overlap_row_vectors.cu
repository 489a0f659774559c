// The builds of the row-vector kernel (csr_overlap_row_vector_kernels.cuh), one for each shape
// the schema accepts (6 vector sizes x 8 row / step pairs), in a translation unit of their own so
// that they compile beside csr_overlap.cu.
#include <string>

#include "arch/types.cuh"
#include "csr_overlap/csr_overlap_row_vector_kernels.cuh"
#include "tcsparse/error.hpp"

namespace tcsparse::csr_overlap::device {
namespace {

template <typename V, int kVector>
RowVectorKernel<V> for_vector(std::int32_t rows, std::int32_t steps) {
  constexpr auto pair = [](int r, int s) { return r * 8 + s; };
  switch (pair(rows, steps)) {
    case pair(1, 1): return &row_vector_kernel<V, kVector, 1, 1>;
    case pair(1, 2): return &row_vector_kernel<V, kVector, 1, 2>;
    case pair(1, 4): return &row_vector_kernel<V, kVector, 1, 4>;
    case pair(2, 1): return &row_vector_kernel<V, kVector, 2, 1>;
    case pair(2, 2): return &row_vector_kernel<V, kVector, 2, 2>;
    case pair(2, 4): return &row_vector_kernel<V, kVector, 2, 4>;
    case pair(4, 1): return &row_vector_kernel<V, kVector, 4, 1>;
    case pair(4, 2): return &row_vector_kernel<V, kVector, 4, 2>;
    default: return nullptr;
  }
}

}  // namespace

template <typename V>
RowVectorKernel<V> row_vector_kernel_for(const RowVectorShape& shape) {
  RowVectorKernel<V> kernel = nullptr;
  switch (shape.vector_size) {
    case 1: kernel = for_vector<V, 1>(shape.rows, shape.steps); break;
    case 2: kernel = for_vector<V, 2>(shape.rows, shape.steps); break;
    case 4: kernel = for_vector<V, 4>(shape.rows, shape.steps); break;
    case 8: kernel = for_vector<V, 8>(shape.rows, shape.steps); break;
    case 16: kernel = for_vector<V, 16>(shape.rows, shape.steps); break;
    case 32: kernel = for_vector<V, 32>(shape.rows, shape.steps); break;
    default: break;
  }
  if (!kernel)
    throw Error("csr_overlap: no row-vector kernel for vector size " +
                std::to_string(shape.vector_size) + ", " + std::to_string(shape.rows) +
                " rows and " + std::to_string(shape.steps) + " steps");
  return kernel;
}

template RowVectorKernel<double> row_vector_kernel_for<double>(const RowVectorShape&);
template RowVectorKernel<float> row_vector_kernel_for<float>(const RowVectorShape&);
template RowVectorKernel<__half> row_vector_kernel_for<__half>(const RowVectorShape&);
template RowVectorKernel<__nv_bfloat16> row_vector_kernel_for<__nv_bfloat16>(
    const RowVectorShape&);

}  // namespace tcsparse::csr_overlap::device
