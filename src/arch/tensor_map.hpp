// Tensor maps (sm_90): the descriptor from which the TMA unit copies boxes of a two- or
// three-dimensional array in global memory into shared memory (tensor_copy_to_shared in
// arch/async_copy.cuh).
// Encoded on the host, by the driver's cuTensorMapEncodeTiled, which the runtime finds for us
// (cudaGetDriverEntryPointByVersion: no link to libcuda), and passed to the kernel as a
// __grid_constant__ parameter: encoding needs no device work and no synchronisation, so it may
// happen at every launch, inside a stream capture too.
//
//   CUtensorMap map;
//   if (encode_row_major_16bit(map, B, columns, rows, row_stride, 16, 256, TensorSwizzle::bytes32)
//       != CUDA_SUCCESS) ... fall back or report
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace tcsparse::arch {

/// How a box's 16-byte units are placed in shared memory: unit u of row r of a box whose rows
/// are 16 (none), 32, 64 or 128 bytes goes to u ^ ((r % 8) >> (3 - log2(row bytes / 16))): the
/// 8 rows of a period spread over the 8 bank groups (the PTX ISA's 32-, 64- and 128-byte swizzle
/// modes).
enum class TensorSwizzle { none, bytes32, bytes64, bytes128 };

/// The driver's cuTensorMapEncodeTiled, or nullptr where the driver has none (looked up once).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encoder;
}

namespace detail {
inline CUresult encode_16bit(CUtensorMap& map, const void* base, cuuint32_t rank,
                             const cuuint64_t* dims, const cuuint64_t* strides,
                             const cuuint32_t* box, TensorSwizzle swizzle) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUtensorMapSwizzle mode = swizzle == TensorSwizzle::bytes32   ? CU_TENSOR_MAP_SWIZZLE_32B
                                  : swizzle == TensorSwizzle::bytes64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : swizzle == TensorSwizzle::bytes128
                                      ? CU_TENSOR_MAP_SWIZZLE_128B
                                      : CU_TENSOR_MAP_SWIZZLE_NONE;
  return encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, rank, const_cast<void*>(base), dims,
                strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, mode,
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
}  // namespace detail

/// The map of a rows x columns array of 16-bit elements at `base` (16-byte aligned), row r at
/// base + r * row_stride elements (row_stride * 2 a multiple of 16), in boxes of box_columns x
/// box_rows (box_columns * 2 a multiple of 16 and at most the swizzle's row bytes; box_rows at
/// most 256); elements outside the array arrive as zeros. CUDA_ERROR_NOT_SUPPORTED where the
/// driver cannot encode tensor maps, else the driver's result.
inline CUresult encode_row_major_16bit(CUtensorMap& map, const void* base, std::uint64_t columns,
                                       std::uint64_t rows, std::uint64_t row_stride,
                                       std::uint32_t box_columns, std::uint32_t box_rows,
                                       TensorSwizzle swizzle) {
  const cuuint64_t dims[2] = {columns, rows};
  const cuuint64_t strides[1] = {row_stride * 2};
  const cuuint32_t box[2] = {box_columns, box_rows};
  return detail::encode_16bit(map, base, 2, dims, strides, box, swizzle);
}

/// The map of the same array seen as columns / group_columns groups of group_columns columns
/// (columns a multiple of group_columns): a box of box_groups groups x box_rows rows from
/// (column 0 of a group, row, group) lands group after group, each as box_rows rows of
/// group_columns elements, so one copy brings what box_groups boxes of the two-dimensional map
/// would (group_columns * 2 at most the swizzle's row bytes; box_rows and box_groups at most 256).
inline CUresult encode_column_groups_16bit(CUtensorMap& map, const void* base,
                                           std::uint64_t columns, std::uint64_t rows,
                                           std::uint64_t row_stride, std::uint32_t group_columns,
                                           std::uint32_t box_rows, std::uint32_t box_groups,
                                           TensorSwizzle swizzle) {
  const cuuint64_t dims[3] = {group_columns, rows, columns / group_columns};
  const cuuint64_t strides[2] = {row_stride * 2, std::uint64_t{group_columns} * 2};
  const cuuint32_t box[3] = {group_columns, box_rows, box_groups};
  return detail::encode_16bit(map, base, 3, dims, strides, box, swizzle);
}

}  // namespace tcsparse::arch
