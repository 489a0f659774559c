// slot_output=partial (not in the paper): every slot writes its sum to partials[slot], and the
// combine writes every row of y, so that the SpMV kernel reads no output_hash.
//
// The layout (hbp_format.hpp) gives each slot an output_hash: the number of its partial sum, or,
// for the only slot of a row, the row itself, whose y the SpMV kernel then writes. Where x is cut
// into stripes nearly every row has several slots, so output_hash is a 4-byte number a slot that
// the kernel reads only to learn that slot s writes partial s' (numbered in slot order, s' ~ s).
// With every slot a partial sum at its own index, output_hash is not needed:
//
//   SpMV:     slot s  ->  partials[s]                        (a group's lanes: one coalesced run)
//   combine:  row r   ->  y[r] = alpha * (partials[combine_partials[combine_begin[r]]] + ... ) +
//                                beta * y[r]                 (every row, in column-block order)
//
// The arrays are rewritten on the GPU from the layout's (output_hash and combine_rows released,
// combine_begin and combine_partials replaced): a row's slots in the same order as its partial
// sums before, and a row of one slot adding that one, so y is bitwise the output_hash layout's
// (GPU test). It costs a partial sum's write and read for each row of one slot. The host build
// does the same on the host (give_every_slot_a_partial, hbp_format.hpp: the model, the same
// arrays bit for bit, GPU test HbpGpuBuild).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "hbp/hbp_device_build.hpp"
#include "runtime/device_buffer.hpp"

namespace tcsparse::hbp {

/// Rewrites a layout of `rows` rows whose `output_hash` has `partials` partial sums (combine
/// lists `combine_rows`, `combine_begin`, `combine_partials` of `combine_row_count` rows) so that
/// slot s writes partials[s] and the combine takes every row: output_hash and combine_rows
/// released, combine_begin (rows + 1) and combine_partials (slot numbers) replaced,
/// combine_row_count = rows and partials = slots. On `stream`; waits for it before returning.
void give_every_slot_a_partial_on_device(std::int64_t rows, std::int64_t& partials,
                                         detail::DeviceBuffer<std::int32_t>& output_hash,
                                         detail::DeviceBuffer<std::int32_t>& combine_rows,
                                         detail::DeviceBuffer<std::int32_t>& combine_begin,
                                         detail::DeviceBuffer<std::int32_t>& combine_partials,
                                         std::int64_t& combine_row_count, cudaStream_t stream);

/// The same on a layout's arrays.
template <typename Value>
void give_every_slot_a_partial_on_device(DeviceLayout<Value>& layout, cudaStream_t stream) {
  give_every_slot_a_partial_on_device(layout.rows, layout.partials, layout.output_hash,
                                      layout.combine_rows, layout.combine_begin,
                                      layout.combine_partials, layout.combine_row_count, stream);
}

}  // namespace tcsparse::hbp
