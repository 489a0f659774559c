// DASP host apply: y = alpha * A * x + beta * y by walking a built layout exactly as the kernels
// do (same blocks, padding, row order and piecing), so layout bugs show without a GPU.
#include "dasp/dasp_format_internal.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "tcsparse/error.hpp"

namespace tcsparse::dasp {

using namespace internal;

namespace {

template <typename Value>
class HostWalker {
 public:
  HostWalker(const DaspLayout<Value>& layout, std::span<const Value> x, std::span<double> y,
             double alpha, double beta)
      : layout_(layout), x_(x), y_(y), alpha_(alpha), beta_(beta) {}

  void write(int32_t row, double sum) const {
    if (row < 0) return;
    const double old = beta_ != 0.0 ? beta_ * y_[sz(row)] : 0.0;
    y_[sz(row)] = alpha_ * sum + old;
  }
  double product(const Value* values, const int32_t* cols, int64_t at) const {
    const int32_t col = cols[at];
    if (col < 0 || col >= layout_.cols)
      throw Error("DASP layout: stored column " + std::to_string(col) + " at " +
                  std::to_string(at) + " is outside [0, " + std::to_string(layout_.cols) + ")");
    return to_double(values[at]) * to_double(x_[sz(col)]);
  }
  /// The dot product of block row `slot`, values [from, to), of the block at `start` (one mma
  /// with x masked to those values).
  double block_row(const Value* values, const int32_t* cols, int64_t start, int slot, int from,
                   int to) const {
    double sum = 0.0;
    for (int v = from; v < to; ++v)
      sum += product(values, cols, start + layout_.shape.offset(slot, v));
    return sum;
  }

  void long_rows() const {
    const auto& L = layout_;
    const int block_values = L.shape.values();
    std::vector<double> partial(L.long_tasks.size());
    for (std::size_t t = 0; t < L.long_tasks.size(); ++t) {  // one warp each
      const DaspLongTask& task = L.long_tasks[t];
      double sum = 0.0;
      for (int64_t b = task.block_begin; b < task.block_end; ++b)
        for (int slot = 0; slot < L.shape.rows; ++slot)  // the diagonal of one mma
          sum += block_row(L.long_values.data(), L.long_cols.data(), b * block_values, slot, 0,
                           L.shape.width);
      partial[t] = sum;
    }
    for (std::size_t l = 0; l < L.long_row_ids.size(); ++l) {  // the last warp of the row
      double sum = 0.0;
      for (int32_t t = L.long_task_ptr[l]; t < L.long_task_ptr[l + 1]; ++t) sum += partial[sz(t)];
      write(L.long_row_ids[l], sum);
    }
  }

  /// Adds the regular blocks [block_begin, block_end) of a row-block to sums[offset + slot].
  void regular_blocks(int64_t block_begin, int64_t block_end, std::vector<double>& sums,
                      int offset) const {
    const auto& L = layout_;
    for (int64_t b = block_begin; b < block_end; ++b)
      for (int slot = 0; slot < L.shape.rows; ++slot)
        sums[sz(offset + slot)] += block_row(L.regular_values.data(), L.regular_cols.data(),
                                             b * L.shape.values(), slot, 0, L.shape.width);
  }
  double irregular_row(int64_t m) const {
    const auto& L = layout_;
    double sum = 0.0;
    for (int32_t p = L.irregular_ptr[sz(m)]; p < L.irregular_ptr[sz(m) + 1]; ++p)
      sum += product(L.irregular_values.data(), L.irregular_cols.data(), p);
    return sum;
  }

  void medium_rows() const {
    const auto& L = layout_;
    const int block_rows = L.shape.rows, block_values = L.shape.values();
    if (L.rowblocks_per_unit() == 1) {
      // a row-block in pieces: piece 0 adds the irregular part; the last warp to finish sums
      // the pieces' partial sums in piece order
      const int64_t per_piece = L.medium_blocks_per_piece;
      std::vector<double> piece_sums(sz(block_rows)), totals(sz(block_rows));
      for (int64_t rb = 0; rb + 1 < static_cast<int64_t>(L.rowblock_ptr.size()); ++rb) {
        const int64_t begin = L.rowblock_ptr[sz(rb)] / block_values;
        const int64_t end = L.rowblock_ptr[sz(rb) + 1] / block_values;
        const int64_t pieces = std::max<int64_t>(1, ceil_div(end - begin, per_piece));
        std::fill(totals.begin(), totals.end(), 0.0);
        for (int64_t k = 0; k < pieces; ++k) {
          std::fill(piece_sums.begin(), piece_sums.end(), 0.0);
          regular_blocks(begin + k * per_piece, std::min(end, begin + (k + 1) * per_piece),
                         piece_sums, 0);
          if (k == 0)
            for (int slot = 0; slot < block_rows; ++slot)
              piece_sums[sz(slot)] += irregular_row(rb * block_rows + slot);
          for (int slot = 0; slot < block_rows; ++slot) totals[sz(slot)] += piece_sums[sz(slot)];
        }
        for (int slot = 0; slot < block_rows; ++slot)
          write(L.medium_row_ids[sz(rb * block_rows + slot)], totals[sz(slot)]);
      }
      return;
    }
    const int unit_rows = L.medium_rows_per_warp;
    std::vector<double> sums(sz(unit_rows));
    const int64_t units = static_cast<int64_t>(L.rowblock_ptr.size() - 1) / L.rowblocks_per_unit();
    for (int64_t unit = 0; unit < units; ++unit) {
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int i = 0; i < L.rowblocks_per_unit(); ++i) {  // row-blocks of the unit
        const int64_t rb = unit * L.rowblocks_per_unit() + i;
        regular_blocks(L.rowblock_ptr[sz(rb)] / block_values,
                       L.rowblock_ptr[sz(rb) + 1] / block_values, sums, i * block_rows);
      }
      for (int lane = 0; lane < unit_rows; ++lane) {  // irregular part, one lane a row
        const int64_t m = unit * unit_rows + lane;
        write(L.medium_row_ids[sz(m)], sums[sz(lane)] + irregular_row(m));
      }
    }
  }

  void short_rows() const {
    const auto& L = layout_;
    const int block_rows = L.shape.rows, block_values = L.shape.values();
    const Value* values = L.short_values.data();
    const int32_t* cols = L.short_cols.data();
    std::vector<double> out(kWarpSize);
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[sz(kind)];
      for (int64_t tile = 0; tile < part.tiles; ++tile) {
        const int64_t start = part.value_offset + tile * kDaspShortTileValues[sz(kind)];
        const auto k = static_cast<DaspShortKind>(kind);
        if (k == DaspShortKind::single_1) {
          for (int lane = 0; lane < kWarpSize; ++lane) out[sz(lane)] = product(values, cols, start + lane);
        } else if (k == DaspShortKind::rows_4) {
          for (int b = 0; b < kWarpSize / block_rows; ++b)  // one mma a block
            for (int slot = 0; slot < block_rows; ++slot)
              out[sz(b * block_rows + slot)] =
                  block_row(values, cols, start + b * block_values, slot, 0, L.shape.width);
        } else {  // two mma a block, x masked to the first / second row of each slot
          const int split = k == DaspShortKind::pairs_1_3 ? 1 : 2;
          for (int b = 0; b < kWarpSize / (2 * block_rows); ++b)
            for (int p = 0; p < 2; ++p)
              for (int slot = 0; slot < block_rows; ++slot)
                out[sz((2 * b + p) * block_rows + slot)] =
                    block_row(values, cols, start + b * block_values, slot, p ? split : 0,
                              p ? L.shape.width : split);
        }
        for (int lane = 0; lane < kWarpSize; ++lane)
          write(L.short_row_ids[sz(part.row_offset + tile * kWarpSize + lane)], out[sz(lane)]);
      }
    }
  }

  void empty_rows() const {
    for (int32_t row : layout_.empty_row_ids) write(row, 0.0);
  }

 private:
  const DaspLayout<Value>& layout_;
  std::span<const Value> x_;
  std::span<double> y_;
  double alpha_, beta_;
};

}  // namespace

template <typename Value>
void dasp_host_apply(const DaspLayout<Value>& layout, std::span<const Value> x,
                     std::span<double> y, double alpha, double beta) {
  if (x.size() != sz(layout.cols) || y.size() != sz(layout.rows))
    throw Error("dasp_host_apply: x has " + std::to_string(x.size()) + " values and y " +
                std::to_string(y.size()) + "; the matrix is " + std::to_string(layout.rows) +
                " x " + std::to_string(layout.cols));
  const HostWalker<Value> walker(layout, x, y, alpha, beta);
  walker.long_rows();
  walker.medium_rows();
  walker.short_rows();
  walker.empty_rows();
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template void dasp_host_apply(const DaspLayout<Value>&, std::span<const Value>,                  \
                                std::span<double>, double, double);
TCSPARSE_DASP_FOR_EACH_VALUE(TCSPARSE_DASP_INSTANTIATE)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
