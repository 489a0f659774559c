// Warp-wide tensor-core products (mma.sync) as plain functions on the registers of one lane.
// Every lane of the warp calls them together (converged, same shapes); D = A * B + C with the
// accumulators updated in place. What each lane holds, from the PTX ISA ("Matrix fragments for
// mma.m8n8k4 / mma.m16n8k8"), with lane = 4 * g + t (g = lane / 4 "group", t = lane % 4):
//
//   m8n8k4 f64                      m16n8k8 f16 / bf16 (f32 accumulate)
//     A 8x4:  a       = A[g][t]       A 16x8: a01 = {A[g][2t],   A[g][2t+1]}     (low, high half)
//     B 4x8:  b       = B[t][g]               a23 = {A[g+8][2t], A[g+8][2t+1]}
//     C 8x8:  c[i]    = C[g][2t+i]    B 8x8:  b01 = {B[2t][g],   B[2t+1][g]}
//                                     C 16x8: c[i] = C[g][2t+i], c[2+i] = C[g+8][2t+i]  (i = 0, 1)
//
//   m16n8k16 f16 / bf16 (f32 accumulate): A 16x16 in a0 = A[g][2t..], a1 = A[g+8][2t..],
//     a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]; B 16x8 in b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g];
//     C as m16n8k8.
//
// m8n8k4.f64 is the only fp64 shape on sm_80 (and runs on sm_90); m16n8k8 f16/bf16 is native on
// both. Not volatile: an unused result may be dropped, and the compiler may schedule them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace tcsparse::arch {

/// Accumulators a lane holds of one product: 2 doubles (m8n8k4 f64), 4 floats (m16n8k8 f32).
inline constexpr int kM8n8k4AccumulatorsPerLane = 2;
inline constexpr int kM16n8k8AccumulatorsPerLane = 4;

/// C (8x8 f64) += A (8x4 f64, row-major) * B (4x8 f64, column-major).
///   lane 4g + t: a = A[g][t], b = B[t][g]; c[i] = C[g][2t + i].
__device__ __forceinline__ void mma_m8n8k4_f64(double (&c)[kM8n8k4AccumulatorsPerLane], double a,
                                               double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(c[0]), "+d"(c[1])
      : "d"(a), "d"(b));
}

/// C (16x8 f32) += A (16x8 f16, row-major) * B (8x8 f16, column-major).
///   lane 4g + t: a01 = A[g][2t .. 2t+1], a23 = A[g+8][2t .. 2t+1], b01 = B[2t .. 2t+1][g]
///   (each a pair of f16 in one 32-bit register, the lower-indexed element in the low 16 bits);
///   c[i] = C[g][2t + i], c[2 + i] = C[g + 8][2t + i].
__device__ __forceinline__ void mma_m16n8k8_f32_f16(float (&c)[kM16n8k8AccumulatorsPerLane],
                                                    unsigned a01, unsigned a23, unsigned b01) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a01), "r"(a23), "r"(b01));
}

/// As mma_m16n8k8_f32_f16 with bf16 A and B (same fragment layout).
__device__ __forceinline__ void mma_m16n8k8_f32_bf16(float (&c)[kM16n8k8AccumulatorsPerLane],
                                                     unsigned a01, unsigned a23, unsigned b01) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a01), "r"(a23), "r"(b01));
}

/// C (16x8 f32) += A (16x16, row-major) * B (16x8, column-major), V = __half or __nv_bfloat16;
/// fragments as in the header comment (each register a pair, the lower-indexed element low).
template <typename V>
__device__ __forceinline__ void mma_m16n8k16(float (&c)[kM16n8k8AccumulatorsPerLane],
                                             const unsigned (&a)[4], unsigned b0, unsigned b1) {
  static_assert(std::is_same_v<V, __half> || std::is_same_v<V, __nv_bfloat16>,
                "m16n8k16 takes __half or __nv_bfloat16 inputs");
  if constexpr (std::is_same_v<V, __half>)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// ldmatrix: 8x8 matrices of 16-bit elements from shared memory, one register a matrix a lane.
/// Lanes 8j .. 8j + 7 give the 16-byte-aligned addresses of matrix j's 8 rows (x2: lanes 0-15).
/// Plain: lane 4g + t receives row g, elements 2t and 2t + 1; kTranspose: column g, rows 2t and
/// 2t + 1 (so rows stored as k and columns as n give m16n8k16 B fragments).
template <bool kTranspose>
__device__ __forceinline__ void load_matrix_x4(unsigned (&r)[4], const void* row_address) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  if constexpr (kTranspose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}
template <bool kTranspose>
__device__ __forceinline__ void load_matrix_x2(unsigned (&r)[2], const void* row_address) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  if constexpr (kTranspose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(address));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(address));
}

/// movmatrix (sm_75+): the transpose of an 8x8 matrix of 16-bit elements held as ldmatrix leaves
/// it, lane 4g + t holding row g, elements 2t and 2t + 1 (the lower-indexed element low); lane
/// 4g + t receives row g of the transpose (column g, rows 2t and 2t + 1).
__device__ __forceinline__ unsigned transpose_matrix(unsigned fragment) {
  unsigned transposed;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(transposed) : "r"(fragment));
  return transposed;
}

/// mma_m16n8k8_f32_f16 or mma_m16n8k8_f32_bf16 by the element type V (__half or __nv_bfloat16).
template <typename V>
__device__ __forceinline__ void mma_m16n8k8(float (&c)[kM16n8k8AccumulatorsPerLane], unsigned a01,
                                            unsigned a23, unsigned b01) {
  static_assert(std::is_same_v<V, __half> || std::is_same_v<V, __nv_bfloat16>,
                "m16n8k8 takes __half or __nv_bfloat16 inputs");
  if constexpr (std::is_same_v<V, __half>)
    mma_m16n8k8_f32_f16(c, a01, a23, b01);
  else
    mma_m16n8k8_f32_bf16(c, a01, a23, b01);
}

}  // namespace tcsparse::arch
