// HBP host format (paper III.A-C): the partition, the nonlinear hash, the layout the GPU reads,
// and the host model of the SpMV and combine kernels (hbp_kernels.cuh walks the same arrays).
#include "hbp/hbp_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "common/for_each_value.hpp"
#include "common/parallel.hpp"
#include "hbp/hbp_column_order.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::hbp {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

/// One row's nonzeros inside one matrix block.
struct Segment {
  std::int32_t column_block = 0;
  std::int32_t row = 0;
  std::int64_t first = 0;  ///< index of its first nonzero in the CSR
  std::int32_t length = 0;
  std::int32_t destination = 0;  ///< output_hash: partial index, or ~row
};

/// A block as built inside its row block, before it is copied to its place.
template <typename Value>
struct LocalBlock {
  std::int32_t column_block = 0, row_block = 0;
  std::vector<std::int32_t> group_slots;   ///< slots of each group
  std::vector<std::int64_t> group_nnz;     ///< nonzeros of each group
  std::vector<std::uint32_t> col_add_sign;
  std::vector<Value> data;
  bool keeps_value_source = false;         ///< HbpParameters::update_values
  std::vector<std::int32_t> value_source;  ///< as data, where kept
  std::vector<std::int32_t> output_hash;
  std::vector<std::uint16_t> slot_last_round;
};

/// Spread of the lengths of one group: its standard deviation, its nonzeros, rows x longest.
struct GroupSpread {
  double stddev = 0.0;
  double nnz = 0.0, lane_steps = 0.0;
};
GroupSpread group_spread(std::span<const std::int32_t> lengths) {
  GroupSpread spread;
  if (lengths.empty()) return spread;
  double sum = 0.0, longest = 0.0;
  for (const std::int32_t l : lengths) {
    sum += l;
    longest = std::max(longest, static_cast<double>(l));
  }
  const double mean = sum / static_cast<double>(lengths.size());
  double square = 0.0;
  for (const std::int32_t l : lengths) square += (l - mean) * (l - mean);
  spread.stddev = std::sqrt(square / static_cast<double>(lengths.size()));
  spread.nnz = sum;
  spread.lane_steps = longest * static_cast<double>(lengths.size());
  return spread;
}

struct SpreadSums {
  std::int64_t groups = 0;
  double stddev = 0.0, nnz = 0.0, lane_steps = 0.0;
  void add(std::span<const std::int32_t> lengths) {
    if (lengths.size() < 2) return;
    const GroupSpread s = group_spread(lengths);
    groups += 1;
    stddev += s.stddev;
    nnz += s.nnz;
    lane_steps += s.lane_steps;
  }
  void add(const SpreadSums& other) {
    groups += other.groups;
    stddev += other.stddev;
    nnz += other.nnz;
    lane_steps += other.lane_steps;
  }
};

/// The rounds of one group (header comment of hbp_format.hpp): appends col_add_sign and data
/// (and value_source, where the block keeps it).
template <typename Value>
void lay_out_group(const CsrMatrix<Value, std::int32_t>& matrix, std::span<const Segment> slots,
                   std::int64_t column_origin, LocalBlock<Value>& block) {
  const auto begin = static_cast<std::int64_t>(block.col_add_sign.size());
  std::int64_t nnz = 0;
  std::int32_t longest = 0;
  for (const Segment& s : slots) {
    nnz += s.length;
    longest = std::max(longest, s.length);
  }
  block.col_add_sign.resize(static_cast<std::size_t>(begin + nnz));
  block.data.resize(static_cast<std::size_t>(begin + nnz));
  if (block.keeps_value_source) block.value_source.resize(static_cast<std::size_t>(begin + nnz));
  std::vector<std::int64_t> previous(slots.size(), -1);
  std::int64_t cursor = begin;
  for (std::int32_t round = 0; round < longest; ++round) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const Segment& s = slots[i];
      if (s.length <= round) continue;
      const std::int64_t source = s.first + round;
      const auto column = static_cast<std::uint32_t>(
          matrix.col_idx[static_cast<std::size_t>(source)] - column_origin);
      // add_sign -1 until the slot's next nonzero sets it
      block.col_add_sign[static_cast<std::size_t>(cursor)] = col_add_sign_word(column, -1);
      block.data[static_cast<std::size_t>(cursor)] = matrix.values[static_cast<std::size_t>(source)];
      if (block.keeps_value_source)
        block.value_source[static_cast<std::size_t>(cursor)] = static_cast<std::int32_t>(source);
      if (previous[i] >= 0) {
        auto& word = block.col_add_sign[static_cast<std::size_t>(previous[i])];
        word = col_add_sign_word(static_cast<std::uint32_t>(column_in_block(word)),
                                 static_cast<std::int32_t>(cursor - previous[i]));  // 1..32
      }
      previous[i] = cursor;
      ++cursor;
    }
  }
  block.group_slots.push_back(static_cast<std::int32_t>(slots.size()));
  block.group_nnz.push_back(nnz);
  for (const Segment& s : slots) {
    if (s.length < 1 || s.length > kLongestSlot)  // max_slot_length <= kLongestSlot
      throw Error("hbp: a slot of " + std::to_string(s.length) + " nonzeros (a layout bug)");
    block.output_hash.push_back(s.destination);
    block.slot_last_round.push_back(static_cast<std::uint16_t>(s.length - 1));
  }
}

/// The block of `segments` (one column block, row order): reordered, cut into groups, laid out.
template <typename Value>
LocalBlock<Value> build_block(const CsrMatrix<Value, std::int32_t>& matrix,
                              std::span<const Segment> segments, std::int32_t row_block,
                              const HbpParameters& p, std::int32_t block_cols,
                              const NonlinearHash& hash, SpreadSums& before, SpreadSums& after) {
  LocalBlock<Value> block;
  block.column_block = segments.front().column_block;
  block.row_block = row_block;
  block.keeps_value_source = p.update_values;
  std::vector<std::int32_t> lengths(segments.size());
  for (std::size_t i = 0; i < segments.size(); ++i) lengths[i] = segments[i].length;
  for (std::size_t g = 0; g < lengths.size(); g += kGroupRows)
    before.add(std::span<const std::int32_t>(lengths).subspan(
        g, std::min<std::size_t>(kGroupRows, lengths.size() - g)));

  const std::vector<std::int32_t> order = slot_order(p.reorder, hash, lengths);
  std::vector<Segment> ordered(segments.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    ordered[i] = segments[static_cast<std::size_t>(order[i])];

  const std::int64_t column_origin = static_cast<std::int64_t>(block.column_block) * block_cols;
  std::size_t group_begin = 0;
  auto close_group = [&](std::size_t end) {
    if (end == group_begin) return;
    const std::span<const Segment> group(ordered.data() + group_begin, end - group_begin);
    std::vector<std::int32_t> group_lengths;
    for (const Segment& s : group) group_lengths.push_back(s.length);
    after.add(group_lengths);
    lay_out_group(matrix, group, column_origin, block);
    group_begin = end;
  };
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (p.warp_row_length > 0 && ordered[i].length >= p.warp_row_length) {
      close_group(i);      // the group so far
      close_group(i + 1);  // this slot alone: the whole warp takes it
      continue;
    }
    if (i - group_begin == static_cast<std::size_t>(kGroupRows)) close_group(i);
  }
  close_group(ordered.size());
  return block;
}

template <typename Value>
std::int32_t column_block_of(const CsrMatrix<Value, std::int32_t>& matrix, std::int64_t k,
                             std::int32_t block_cols) {
  return matrix.col_idx[static_cast<std::size_t>(k)] / block_cols;
}

}  // namespace

// ---- the nonlinear hash (paper III.B) ------------------------------------------------------

namespace {

/// b, d fixed by the block rows; c from a (paper III.B).
NonlinearHash hash_with_shift(std::int32_t block_rows, int a) {
  NonlinearHash hash;
  hash.table_size = std::max<std::int32_t>(1, block_rows);
  hash.b = std::max<std::int32_t>(1, hash.table_size / kHashBuckets);
  hash.d = hash.b;
  hash.a = a;
  hash.c = std::max<std::int32_t>(1, hash.d >> hash.a);
  return hash;
}

/// The sample's element that decides a: index floor(quantile x (n - 1)) of the sorted sample.
std::size_t quantile_index(std::size_t n) {
  return static_cast<std::size_t>(kAggregationQuantile * static_cast<double>(n - 1));
}

}  // namespace

NonlinearHash make_hash(std::int32_t block_rows, std::span<const std::int32_t> lengths) {
  int a = 0;
  if (!lengths.empty()) {
    std::vector<std::int32_t> sorted(lengths.begin(), lengths.end());
    const std::size_t q = quantile_index(sorted.size());
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(q), sorted.end());
    a = aggregation_shift(sorted[q]);
  }
  return hash_with_shift(block_rows, a);
}

NonlinearHash hash_from_shift_histogram(std::int32_t block_rows,
                                        std::span<const std::int64_t> shift_counts) {
  if (shift_counts.size() != static_cast<std::size_t>(kLargestAggregationShift + 1))
    throw Error("hbp: the shift histogram needs " +
                std::to_string(kLargestAggregationShift + 1) + " counters");
  std::int64_t n = 0;
  for (const std::int64_t count : shift_counts) n += count;
  int a = 0;
  if (n > 0) {
    const auto q = static_cast<std::int64_t>(quantile_index(static_cast<std::size_t>(n)));
    std::int64_t below = 0;  // sampled lengths of a smaller shift
    while (below + shift_counts[static_cast<std::size_t>(a)] <= q) below += shift_counts[static_cast<std::size_t>(a++)];
  }
  return hash_with_shift(block_rows, a);
}

std::vector<std::int32_t> slot_order(Reorder reorder, const NonlinearHash& hash,
                                     std::span<const std::int32_t> lengths) {
  const auto n = static_cast<std::int32_t>(lengths.size());
  std::vector<std::int32_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (reorder == Reorder::sort) {
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t i, std::int32_t j) {
      return lengths[static_cast<std::size_t>(i)] < lengths[static_cast<std::size_t>(j)];
    });
  } else if (reorder == Reorder::hash) {
    // The table's chains read out in table order: by home, in row order among one home's slots.
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t i, std::int32_t j) {
      return hash.home(lengths[static_cast<std::size_t>(i)]) <
             hash.home(lengths[static_cast<std::size_t>(j)]);
    });
  }
  return order;
}

// ---- the layout ----------------------------------------------------------------------------

template <typename Value>
HbpLayout<Value> build_layout(const CsrMatrix<Value, std::int32_t>& matrix, const HbpParameters& p,
                              std::int32_t block_cols) {
  if (block_cols < 1 || block_cols > kLargestBlockCols)
    throw ParameterError("method 'hbp': block_cols=" + std::to_string(block_cols) +
                         " is not accepted: expected 1.." + std::to_string(kLargestBlockCols));
  HbpLayout<Value> layout;
  layout.rows = matrix.rows;
  layout.cols = matrix.cols;
  layout.nnz = matrix.nnz();
  const std::int64_t column_blocks = (matrix.cols + block_cols - 1) / block_cols;
  const std::int32_t block_rows = p.resolved_block_rows(matrix.rows, column_blocks);
  layout.block_rows = block_rows;
  layout.block_cols = block_cols;
  layout.reorder = p.reorder;
  layout.warp_row_length = p.warp_row_length;
  const std::int64_t rows = matrix.rows;
  const std::int64_t row_blocks = (rows + block_rows - 1) / block_rows;
  const auto row_ptr = [&](std::int64_t r) { return matrix.row_ptr[static_cast<std::size_t>(r)]; };
  const int threads = detail::threads_for(layout.nnz + rows, 0);

  // 1. Slots of each row (its runs of one column block, cut into pieces of max_slot_length),
  //    and where its partial sums go.
  const std::int32_t max_slot_length = p.max_slot_length;
  if (max_slot_length < 1 || max_slot_length > kLongestSlot)
    throw ParameterError("method 'hbp': max_slot_length=" + std::to_string(max_slot_length) +
                         " is not accepted: expected 1.." + std::to_string(kLongestSlot));
  const auto for_each_slot = [&](std::int64_t r, auto&& visit) {  // visit(cb, first, length)
    for (std::int64_t k = row_ptr(r); k < row_ptr(r + 1);) {
      const std::int32_t cb = column_block_of(matrix, k, block_cols);
      std::int64_t end = k;
      while (end < row_ptr(r + 1) && column_block_of(matrix, end, block_cols) == cb) ++end;
      for (std::int64_t first = k; first < end; first += max_slot_length)
        visit(cb, first, static_cast<std::int32_t>(std::min<std::int64_t>(max_slot_length, end - first)));
      k = end;
    }
  };
  std::vector<std::int32_t> slots_of_row(static_cast<std::size_t>(rows), 0);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int32_t count = 0;
    for_each_slot(r, [&](std::int32_t, std::int64_t, std::int32_t) { ++count; });
    slots_of_row[static_cast<std::size_t>(r)] = count;
  }
  std::vector<std::int32_t> partial_begin(static_cast<std::size_t>(rows), -1);
  std::int64_t partials = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t count = slots_of_row[static_cast<std::size_t>(r)];
    if (count == 1) continue;
    layout.combine_rows.push_back(static_cast<std::int32_t>(r));
    layout.combine_begin.push_back(static_cast<std::int32_t>(partials));
    partial_begin[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(partials);
    partials += count;
    if (partials > kInt32Max)
      throw IndexOverflowError("hbp: more than 2^31 - 1 partial sums; use larger block_cols");
  }
  layout.combine_begin.push_back(static_cast<std::int32_t>(partials));

  // 2. The hash's a, sampled from the slot lengths of evenly spaced rows.
  {
    std::vector<std::int32_t> sample;
    const std::int64_t step = hash_sample_step(rows);
    for (std::int64_t r = 0; r < rows; r += step)
      for_each_slot(r, [&](std::int32_t, std::int64_t, std::int32_t length) {
        sample.push_back(length);
      });
    layout.hash = make_hash(block_rows, sample);
  }

  // 3. The blocks of each row block, built apart (parallel over row blocks).
  std::vector<std::vector<LocalBlock<Value>>> local(static_cast<std::size_t>(row_blocks));
  std::vector<SpreadSums> before(static_cast<std::size_t>(row_blocks)),
      after(static_cast<std::size_t>(row_blocks));
  const int block_threads = detail::threads_for(layout.nnz + rows, 0);
#pragma omp parallel for num_threads(block_threads) schedule(dynamic, 1) if (block_threads > 1)
  for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
    std::vector<Segment> segments;
    const std::int64_t first_row = rb * block_rows;
    const std::int64_t end_row = std::min(rows, first_row + block_rows);
    for (std::int64_t r = first_row; r < end_row; ++r) {
      std::int32_t rank = 0;
      const std::int32_t pb = partial_begin[static_cast<std::size_t>(r)];
      for_each_slot(r, [&](std::int32_t cb, std::int64_t first, std::int32_t length) {
        Segment s;
        s.column_block = cb;
        s.row = static_cast<std::int32_t>(r);
        s.first = first;
        s.length = length;
        s.destination = pb >= 0 ? pb + rank : ~static_cast<std::int32_t>(r);
        segments.push_back(s);
        ++rank;
      });
    }
    std::stable_sort(segments.begin(), segments.end(), [](const Segment& x, const Segment& y) {
      return x.column_block < y.column_block;
    });
    for (std::size_t i = 0; i < segments.size();) {
      std::size_t end = i;
      while (end < segments.size() && segments[end].column_block == segments[i].column_block) ++end;
      local[static_cast<std::size_t>(rb)].push_back(build_block(
          matrix, std::span<const Segment>(segments.data() + i, end - i),
          static_cast<std::int32_t>(rb), p, block_cols, layout.hash,
          before[static_cast<std::size_t>(rb)], after[static_cast<std::size_t>(rb)]));
      i = end;
    }
  }

  // 4. Blocks ordered by column block, then row block; their places; the copy.
  struct Place {
    std::int32_t column_block, row_block, index;
    std::int64_t group, slot, nnz;
  };
  std::vector<Place> places;
  for (std::int64_t rb = 0; rb < row_blocks; ++rb)
    for (std::size_t i = 0; i < local[static_cast<std::size_t>(rb)].size(); ++i)
      places.push_back({local[static_cast<std::size_t>(rb)][i].column_block,
                        static_cast<std::int32_t>(rb), static_cast<std::int32_t>(i), 0, 0, 0});
  std::stable_sort(places.begin(), places.end(), [](const Place& x, const Place& y) {
    return x.column_block < y.column_block;
  });
  std::int64_t groups = 0, slots = 0, nnz = 0;
  for (Place& place : places) {
    const LocalBlock<Value>& block =
        local[static_cast<std::size_t>(place.row_block)][static_cast<std::size_t>(place.index)];
    place.group = groups;
    place.slot = slots;
    place.nnz = nnz;
    groups += static_cast<std::int64_t>(block.group_slots.size());
    slots += static_cast<std::int64_t>(block.output_hash.size());
    nnz += static_cast<std::int64_t>(block.data.size());
  }
  if (slots > kInt32Max || groups > kInt32Max || static_cast<std::int64_t>(places.size()) > kInt32Max)
    throw IndexOverflowError("hbp: more than 2^31 - 1 slots, groups or blocks");
  layout.block_col.resize(places.size());
  layout.block_row.resize(places.size());
  layout.block_group_begin.resize(places.size() + 1);
  layout.group_slot_begin.resize(static_cast<std::size_t>(groups) + 1);
  layout.group_col.resize(static_cast<std::size_t>(groups));
  layout.begin_nnz.resize(static_cast<std::size_t>(groups) + 1);
  layout.col_add_sign.resize(static_cast<std::size_t>(nnz));
  layout.data.resize(static_cast<std::size_t>(nnz));
  if (p.update_values) layout.value_source.resize(static_cast<std::size_t>(nnz));
  layout.output_hash.resize(static_cast<std::size_t>(slots));
  layout.slot_last_round.resize(static_cast<std::size_t>(slots));
  const int copy_threads = detail::threads_for(nnz, 0);
#pragma omp parallel for num_threads(copy_threads) schedule(dynamic, 64) if (copy_threads > 1)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(places.size()); ++b) {
    const Place& place = places[static_cast<std::size_t>(b)];
    const LocalBlock<Value>& block =
        local[static_cast<std::size_t>(place.row_block)][static_cast<std::size_t>(place.index)];
    const auto ub = static_cast<std::size_t>(b);
    layout.block_col[ub] = place.column_block;
    layout.block_row[ub] = place.row_block;
    layout.block_group_begin[ub] = static_cast<std::int32_t>(place.group);
    std::int64_t slot = place.slot, element = place.nnz;
    for (std::size_t g = 0; g < block.group_slots.size(); ++g) {
      const auto ug = static_cast<std::size_t>(place.group) + g;
      layout.group_slot_begin[ug] = static_cast<std::int32_t>(slot);
      layout.group_col[ug] = place.column_block;
      layout.begin_nnz[ug] = element;
      slot += block.group_slots[g];
      element += block.group_nnz[g];
    }
    std::copy(block.col_add_sign.begin(), block.col_add_sign.end(),
              layout.col_add_sign.begin() + place.nnz);
    std::copy(block.data.begin(), block.data.end(), layout.data.begin() + place.nnz);
    std::copy(block.value_source.begin(), block.value_source.end(),
              layout.value_source.begin() + place.nnz);
    std::copy(block.output_hash.begin(), block.output_hash.end(),
              layout.output_hash.begin() + place.slot);
    std::copy(block.slot_last_round.begin(), block.slot_last_round.end(),
              layout.slot_last_round.begin() + place.slot);
  }
  layout.block_group_begin.back() = static_cast<std::int32_t>(groups);
  layout.group_slot_begin.back() = static_cast<std::int32_t>(slots);
  layout.begin_nnz.back() = nnz;
  // the partial sums numbered in slot order (the kernel's writes); the combine's list maps each
  // row's (column-block order) partials to those numbers
  layout.combine_partials.assign(static_cast<std::size_t>(partials), 0);
  std::int32_t next_partial = 0;
  for (std::int32_t& destination : layout.output_hash) {
    if (destination < 0) continue;
    layout.combine_partials[static_cast<std::size_t>(destination)] = next_partial;
    destination = next_partial++;
  }

  // 5. Tasks: runs of at most blocks_per_task blocks of one column block.
  const std::int32_t per_task = p.resolved_blocks_per_task(layout.blocks());
  for (std::int64_t b = 0; b < layout.blocks(); ++b) {
    const auto ub = static_cast<std::size_t>(b);
    if (layout.task_col.empty() || layout.task_col.back() != layout.block_col[ub] ||
        b - layout.task_block_begin.back() == per_task) {
      layout.task_block_begin.push_back(static_cast<std::int32_t>(b));
      layout.task_col.push_back(layout.block_col[ub]);
    }
  }
  layout.task_block_begin.push_back(static_cast<std::int32_t>(layout.blocks()));
  for (std::int64_t t = 0; t < layout.tasks(); ++t) {
    const auto ut = static_cast<std::size_t>(t);
    const auto first = static_cast<std::size_t>(layout.task_block_begin[ut]);
    const auto last = static_cast<std::size_t>(layout.task_block_begin[ut + 1]);
    const std::int64_t task_nnz =
        layout.begin_nnz[static_cast<std::size_t>(layout.block_group_begin[last])] -
        layout.begin_nnz[static_cast<std::size_t>(layout.block_group_begin[first])];
    const std::int64_t origin = static_cast<std::int64_t>(layout.task_col[ut]) * block_cols;
    const std::int64_t width = std::min<std::int64_t>(block_cols, layout.cols - origin);
    layout.task_shared_x.push_back(
        task_shares_x(task_nnz, width, block_cols, sizeof(Value)) ? 1 : 0);
  }

  SpreadSums sum_before, sum_after;
  for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
    sum_before.add(before[static_cast<std::size_t>(rb)]);
    sum_after.add(after[static_cast<std::size_t>(rb)]);
  }
  ReorderStatistics& rs = layout.reorder_statistics;
  rs.groups_before = sum_before.groups;
  rs.groups_after = sum_after.groups;
  if (sum_before.groups > 0) {
    rs.mean_stddev_before = sum_before.stddev / static_cast<double>(sum_before.groups);
    rs.lane_efficiency_before = sum_before.nnz / sum_before.lane_steps;
  }
  if (sum_after.groups > 0) {
    rs.mean_stddev_after = sum_after.stddev / static_cast<double>(sum_after.groups);
    rs.lane_efficiency_after = sum_after.nnz / sum_after.lane_steps;
  }
  return layout;
}

// ---- the schedule and the host model of the kernels ----------------------------------------

Schedule make_schedule(std::int64_t tasks, std::int64_t max_grid, double fixed_share) {
  Schedule schedule;
  schedule.grid = std::min(tasks, std::max<std::int64_t>(1, max_grid));
  if (schedule.grid > 0) {
    const auto per_block = static_cast<std::int64_t>(
        std::floor(fixed_share * static_cast<double>(tasks) / static_cast<double>(schedule.grid)));
    schedule.fixed_tasks = std::min(tasks, per_block * schedule.grid);
  }
  return schedule;
}

namespace {

/// A warp's sum of term(j) for j in [begin, end) as the kernels add it (a warp group's nonzeros,
/// a long combine list): lane l adds the terms l, l + 32, ... in order, then the butterfly sum
/// (arch::warp_sum; every lane ends with lane 0's value).
template <typename Term>
double warp_strided_sum(std::int64_t begin, std::int64_t end, const Term& term) {
  std::array<double, kGroupRows> lane{};
  for (int l = 0; l < kGroupRows; ++l)
    for (std::int64_t j = begin + l; j < end; j += kGroupRows)
      lane[static_cast<std::size_t>(l)] += term(j);
  for (int offset = kGroupRows / 2; offset > 0; offset /= 2) {
    std::array<double, kGroupRows> next{};
    for (int l = 0; l < kGroupRows; ++l)
      next[static_cast<std::size_t>(l)] =
          lane[static_cast<std::size_t>(l)] + lane[static_cast<std::size_t>(l ^ offset)];
    lane = next;
  }
  return lane[0];
}

}  // namespace

template <typename Value>
void host_apply(const HbpLayout<Value>& layout, const Schedule& schedule, std::span<const Value> x,
                std::span<double> y, double alpha, double beta) {
  const std::int64_t tasks = layout.tasks();
  // slot_output=partial: no output_hash, and the combine over every row
  const bool slot_partials = layout.output_hash.empty() && layout.combine_rows.empty();
  if (!slot_partials && layout.slot_last_round.size() != layout.output_hash.size())
    throw Error("hbp host model: output_hash is not one a slot");
  // where slot s's sum goes: output_hash, or partials[s]
  auto destination_of = [&](std::int32_t slot) {
    return slot_partials ? slot : layout.output_hash[static_cast<std::size_t>(slot)];
  };
  std::vector<char> block_taken(static_cast<std::size_t>(layout.blocks()), 0);
  std::vector<char> row_written(static_cast<std::size_t>(layout.rows), 0);
  std::vector<char> partial_written(static_cast<std::size_t>(layout.partials()), 0);
  std::vector<double> partials(static_cast<std::size_t>(layout.partials()), 0.0);
  auto write = [&](std::int32_t destination, double sum) {
    if (destination >= 0) {
      char& written = partial_written.at(static_cast<std::size_t>(destination));
      if (written) throw Error("hbp host model: partial sum written twice");
      written = 1;
      partials[static_cast<std::size_t>(destination)] = sum;
    } else {
      const auto row = static_cast<std::size_t>(~destination);
      if (row_written.at(row)) throw Error("hbp host model: row written twice");
      row_written[row] = 1;
      y[row] = alpha * sum + (beta == 0.0 ? 0.0 : beta * y[row]);
    }
  };
  // One warp on one block's groups: the kernel's spmv_group.
  auto run_block = [&](std::int64_t b, const std::int64_t column_origin) {
    char& taken = block_taken.at(static_cast<std::size_t>(b));
    if (taken) throw Error("hbp host model: block taken twice");
    taken = 1;
    for (std::int32_t g = layout.block_group_begin[static_cast<std::size_t>(b)];
         g < layout.block_group_begin[static_cast<std::size_t>(b) + 1]; ++g) {
      const auto ug = static_cast<std::size_t>(g);
      const std::int32_t slot0 = layout.group_slot_begin[ug];
      const std::int32_t group_rows = layout.group_slot_begin[ug + 1] - slot0;
      const std::int64_t begin = layout.begin_nnz[ug], end = layout.begin_nnz[ug + 1];
      auto product = [&](std::int64_t j) {
        const std::uint32_t word = layout.col_add_sign[static_cast<std::size_t>(j)];
        return to_double(layout.data[static_cast<std::size_t>(j)]) *
               to_double(x[static_cast<std::size_t>(column_origin + column_in_block(word))]);
      };
      if (layout.is_warp_group(g)) {
        write(destination_of(slot0), warp_strided_sum(begin, end, product));
        continue;
      }
      // a lane a slot, in rounds: positions from the slot lengths (the kernel's walk), each
      // lane adding its products in round order
      std::array<double, kGroupRows> sum{};
      std::int64_t visited = 0;
      walk_rounds(std::span<const std::uint16_t>(layout.slot_last_round)
                      .subspan(static_cast<std::size_t>(slot0), static_cast<std::size_t>(group_rows)),
                  begin, [&](std::int32_t l, std::int32_t, std::int64_t j) {
                    if (j < begin || j >= end)
                      throw Error("hbp host model: a round position leaves its group");
                    sum[static_cast<std::size_t>(l)] += product(j);
                    ++visited;
                  });
      if (visited != end - begin)
        throw Error("hbp host model: the slot lengths do not cover their group's nonzeros");
      for (std::int32_t l = 0; l < group_rows; ++l)
        write(destination_of(slot0 + l), sum[static_cast<std::size_t>(l)]);
    }
  };
  auto run_task = [&](std::int64_t t) {
    const auto ut = static_cast<std::size_t>(t);
    const std::int64_t column_origin =
        static_cast<std::int64_t>(layout.task_col[ut]) * layout.block_cols;
    for (std::int64_t b = layout.task_block_begin[ut]; b < layout.task_block_begin[ut + 1]; ++b) {
      if (layout.task_shared_x.size() != layout.task_col.size())
        throw Error("hbp host model: task_shared_x is not one a task");
      if (layout.block_col[static_cast<std::size_t>(b)] != layout.task_col[ut])
        throw Error("hbp host model: a task spans two column blocks");
      run_block(b, column_origin);
    }
  };
  // the fixed part, thread block by thread block, then the tickets in turn
  for (std::int64_t k = 0; k < schedule.grid; ++k)
    for (std::int64_t t = k * schedule.fixed_tasks / schedule.grid;
         t < (k + 1) * schedule.fixed_tasks / schedule.grid; ++t)
      run_task(t);
  for (std::int64_t t = schedule.fixed_tasks; t < tasks; ++t) run_task(t);
  for (const char taken : block_taken)
    if (!taken) throw Error("hbp host model: a block was never taken");

  // the combine: rows with 0 or >= 2 slots (every row with slot partials), partial sums in
  // column-block order
  const auto combine_rows = static_cast<std::size_t>(layout.combine_row_count());
  const std::size_t expected_combine_rows =
      slot_partials ? static_cast<std::size_t>(layout.rows) : layout.combine_rows.size();
  if (combine_rows != expected_combine_rows)
    throw Error("hbp host model: combine_begin is not one a combine row and one more");
  for (std::size_t k = 0; k < combine_rows; ++k) {
    const std::int32_t begin = layout.combine_begin[k], end = layout.combine_begin[k + 1];
    auto partial_sum = [&](std::int64_t i) {
      const auto partial = static_cast<std::size_t>(layout.combine_partials.at(static_cast<std::size_t>(i)));
      if (!partial_written.at(partial))
        throw Error("hbp host model: a partial sum was never written");
      return partials[partial];
    };
    double sum = 0.0;
    const bool by_warp =
        schedule.combine_by_warps
            ? end - begin > 1
            : schedule.combine_warp_partials > 0 && end - begin > schedule.combine_warp_partials;
    if (by_warp) {
      sum = warp_strided_sum(begin, end, partial_sum);
    } else {
      for (std::int32_t i = begin; i < end; ++i) sum += partial_sum(i);
    }
    const auto row = slot_partials ? k : static_cast<std::size_t>(layout.combine_rows[k]);
    if (row_written.at(row)) throw Error("hbp host model: row written twice");
    row_written[row] = 1;
    y[row] = alpha * sum + (beta == 0.0 ? 0.0 : beta * y[row]);
  }
  for (const char written : row_written)
    if (!written) throw Error("hbp host model: a row was never written");
}

template <typename Value>
void give_every_slot_a_partial(HbpLayout<Value>& layout) {
  const auto rows = static_cast<std::size_t>(layout.rows);
  const auto slots = static_cast<std::size_t>(layout.slots());
  if (layout.output_hash.size() != slots)
    throw Error("hbp: slot_output=partial needs the layout's output_hash (once, one a slot)");
  // each row's slot count and each partial's slot
  std::vector<std::int32_t> row_begin(rows + 1, 0);
  std::vector<std::int32_t> partial_slot(static_cast<std::size_t>(layout.partials()));
  for (std::size_t k = 0; k < layout.combine_rows.size(); ++k)
    row_begin[static_cast<std::size_t>(layout.combine_rows[k])] =
        layout.combine_begin[k + 1] - layout.combine_begin[k];
  for (std::size_t s = 0; s < slots; ++s) {
    const std::int32_t destination = layout.output_hash[s];
    if (destination < 0)
      row_begin[static_cast<std::size_t>(~destination)] = 1;
    else
      partial_slot[static_cast<std::size_t>(destination)] = static_cast<std::int32_t>(s);
  }
  std::exclusive_scan(row_begin.begin(), row_begin.end(), row_begin.begin(), std::int32_t{0});
  // each row's slots, in its list's column-block order; a row's only slot at its place
  std::vector<std::int32_t> row_slots(slots);
  for (std::size_t k = 0; k < layout.combine_rows.size(); ++k) {
    auto place =
        static_cast<std::size_t>(row_begin[static_cast<std::size_t>(layout.combine_rows[k])]);
    for (std::int32_t i = layout.combine_begin[k]; i < layout.combine_begin[k + 1]; ++i) {
      const auto partial =
          static_cast<std::size_t>(layout.combine_partials[static_cast<std::size_t>(i)]);
      row_slots[place++] = partial_slot[partial];
    }
  }
  for (std::size_t s = 0; s < slots; ++s)
    if (const std::int32_t destination = layout.output_hash[s]; destination < 0)
      row_slots[static_cast<std::size_t>(row_begin[static_cast<std::size_t>(~destination)])] =
          static_cast<std::int32_t>(s);
  layout.output_hash = {};
  layout.combine_rows = {};
  layout.combine_begin = std::move(row_begin);
  layout.combine_partials = std::move(row_slots);
}

// ---- statistics ----------------------------------------------------------------------------

template <typename Value>
std::size_t device_bytes(const HbpLayout<Value>& layout, std::size_t partial_bytes) {
  auto bytes = [](const auto& v) { return v.size() * sizeof(v[0]); };
  return bytes(layout.block_group_begin) + bytes(layout.group_slot_begin) + bytes(layout.group_col) +
         bytes(layout.begin_nnz) + bytes(layout.col_add_sign) + bytes(layout.data) +
         bytes(layout.value_source) +
         bytes(layout.output_hash) + bytes(layout.slot_last_round) + bytes(layout.combine_rows) +
         bytes(layout.combine_begin) + bytes(layout.combine_partials) +
         bytes(layout.task_block_begin) + bytes(layout.task_col) + bytes(layout.task_shared_x) +
         static_cast<std::size_t>(layout.partials()) * partial_bytes + sizeof(std::uint32_t);
}

Json size_statistics(const LayoutSizes& sizes) {
  const std::size_t csr_bytes = static_cast<std::size_t>(sizes.nnz) * (sizes.value_bytes + 4) +
                                static_cast<std::size_t>(sizes.rows + 1) * 4;
  Json j = Json::object();
  j["block_rows"] = sizes.block_rows;
  j["block_cols"] = sizes.block_cols;
  j["reorder"] = std::string(to_string(sizes.reorder));
  j["hash"] = {{"a", sizes.hash.a}, {"b", sizes.hash.b}, {"c", sizes.hash.c}, {"d", sizes.hash.d}};
  j["row_blocks"] = (sizes.rows + sizes.block_rows - 1) / sizes.block_rows;
  j["column_blocks"] = (sizes.cols + sizes.block_cols - 1) / sizes.block_cols;
  j["blocks"] = sizes.blocks;
  j["groups"] = sizes.groups;
  j["slots"] = sizes.slots;
  j["tasks"] = sizes.tasks;
  j["partial_sums"] = sizes.partials;
  j["combine_rows"] = sizes.combine_rows;
  j["mean_nnz_per_block"] =
      sizes.blocks > 0 ? static_cast<double>(sizes.nnz) / static_cast<double>(sizes.blocks) : 0.0;
  j["device_bytes"] = sizes.device_bytes;
  j["csr_bytes"] = csr_bytes;
  j["bytes_over_csr"] = csr_bytes > 0 ? static_cast<double>(sizes.device_bytes) /
                                            static_cast<double>(csr_bytes)
                                      : 0.0;
  return j;
}

template <typename Value>
Json layout_statistics(const HbpLayout<Value>& layout, std::size_t partial_bytes) {
  LayoutSizes sizes;
  sizes.rows = layout.rows;
  sizes.cols = layout.cols;
  sizes.nnz = layout.nnz;
  sizes.block_rows = layout.block_rows;
  sizes.block_cols = layout.block_cols;
  sizes.reorder = layout.reorder;
  sizes.hash = layout.hash;
  sizes.blocks = layout.blocks();
  sizes.groups = layout.groups();
  sizes.slots = layout.slots();
  sizes.tasks = layout.tasks();
  sizes.partials = layout.partials();
  sizes.combine_rows = layout.combine_row_count();
  sizes.value_bytes = sizeof(Value);
  sizes.device_bytes = device_bytes(layout, partial_bytes);
  Json j = size_statistics(sizes);
  const ReorderStatistics& rs = layout.reorder_statistics;
  std::int64_t warp_groups = 0;
  for (std::int64_t g = 0; g < layout.groups(); ++g)
    if (layout.is_warp_group(g)) ++warp_groups;
  j["warp_groups"] = warp_groups;
  j["tasks_with_shared_x"] =
      std::count(layout.task_shared_x.begin(), layout.task_shared_x.end(), 1);
  j["warp_row_length_stddev_before"] = rs.mean_stddev_before;
  j["warp_row_length_stddev_after"] = rs.mean_stddev_after;
  j["lane_efficiency_before"] = rs.lane_efficiency_before;
  j["lane_efficiency_after"] = rs.lane_efficiency_after;
  j["warp_groups_compared"] = {{"before", rs.groups_before}, {"after", rs.groups_after}};
  return j;
}

Json host_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix, const HbpParameters& p) {
  const HbpLayout<double> layout = build_layout(
      matrix, p, p.resolved_block_cols(sizeof(double), matrix.cols, kHostModelL2Bytes));
  Json statistics = layout_statistics(layout, sizeof(double));
  // the partition and the groups do not depend on the column order; the concentration is
  // estimated from the same sample of the nonzeros as a plan's (hbp_column_order.hpp)
  const double concentration =
      estimated_column_count_concentration(matrix.cols, matrix.nnz(), sampled_column_counts(matrix));
  statistics["column_count_concentration"] = concentration;
  statistics["column_order"] =
      p.counts_columns(matrix.nnz()) && p.hubs_first(concentration) ? "hubs_first" : "caller";
  return statistics;
}

#define TCSPARSE_HBP_INSTANTIATE(Value)                                                          \
  template HbpLayout<Value> build_layout(const CsrMatrix<Value, std::int32_t>&,                \
                                         const HbpParameters&, std::int32_t);                  \
  template void give_every_slot_a_partial(HbpLayout<Value>&);                                  \
  template void host_apply(const HbpLayout<Value>&, const Schedule&, std::span<const Value>,   \
                           std::span<double>, double, double);                                 \
  template std::size_t device_bytes(const HbpLayout<Value>&, std::size_t);                     \
  template Json layout_statistics(const HbpLayout<Value>&, std::size_t);
TCSPARSE_FOR_EACH_VALUE(TCSPARSE_HBP_INSTANTIATE)
#undef TCSPARSE_HBP_INSTANTIATE

}  // namespace tcsparse::hbp
