// Warp-level building blocks shared by every kernel: the warp size and full-warp mask, the lane
// of a thread, butterfly sum (and max) reductions over a whole warp or over aligned groups of lanes,
// the warp's inclusive prefix sum
// (CSR-Overlap's vectors of 2..32 lanes a row, TCA-SpMM's per-row warp groups).
#pragma once

namespace tcsparse::arch {

inline constexpr int kWarpSize = 32;
/// The member mask of a __shfl_*_sync / __syncwarp that every lane of the warp takes part in.
inline constexpr unsigned kFullMask = 0xffffffffu;

/// This thread's lane in its warp (0..31), for one-dimensional thread blocks.
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) % kWarpSize; }

/// This thread's warp in its thread block, for one-dimensional thread blocks.
__device__ __forceinline__ int warp_id_in_block() {
  return static_cast<int>(threadIdx.x) / kWarpSize;
}

/// Sum of `v` over each aligned group of kGroupLanes lanes (lanes [k * kGroupLanes,
/// (k + 1) * kGroupLanes)); every lane of a group receives its group's sum. kGroupLanes is a
/// power of two in 1..32, and all 32 lanes must call it (the shuffles use the full mask).
/// Any arithmetic type that __shfl_xor_sync takes (int, unsigned, long long, float, double, ...).
/// The order of additions is the same on every lane, so every lane of a group gets the same bits.
template <int kGroupLanes, typename T>
__device__ __forceinline__ T group_sum(T v) {
  static_assert(kGroupLanes >= 1 && kGroupLanes <= kWarpSize &&
                    (kGroupLanes & (kGroupLanes - 1)) == 0,
                "kGroupLanes must be a power of two in 1..32");
#pragma unroll
  for (int offset = kGroupLanes / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

/// Sum of `v` over the 32 lanes, on every lane.
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
  return group_sum<kWarpSize>(v);
}

/// `v` of the 32 lanes combined by `op` (associative and commutative), on every lane.
template <typename T, typename Op>
__device__ __forceinline__ T warp_all_reduce(T v, Op op) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1)
    v = op(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

/// Largest `v` over the 32 lanes, on every lane.
template <typename T>
__device__ __forceinline__ T warp_max(T v) {
  return warp_all_reduce(v, [](T a, T b) { return max(a, b); });
}

/// Smallest `v` over the 32 lanes, on every lane.
template <typename T>
__device__ __forceinline__ T warp_min(T v) {
  return warp_all_reduce(v, [](T a, T b) { return min(a, b); });
}

/// Inclusive prefix sum of `v` over the lanes: lane l receives v(0) + ... + v(l). All 32 lanes
/// must call it.
template <typename T>
__device__ __forceinline__ T warp_inclusive_sum(T v) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const T below = __shfl_up_sync(kFullMask, v, offset);
    if (lane >= offset) v += below;
  }
  return v;
}

}  // namespace tcsparse::arch
