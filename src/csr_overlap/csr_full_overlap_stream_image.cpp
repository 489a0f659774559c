// csr_full_overlap's stream images (csr_full_overlap_stream_image.hpp): the layout, the host
// encoding and its host decode model.
#include "csr_overlap/csr_full_overlap_stream_image.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/parallel.hpp"

namespace tcsparse::csr_overlap {
namespace {

std::size_t row_length_bytes(RowEncoding encoding) {
  return encoding == RowEncoding::lengths8 ? 1 : 2;
}

/// The smallest row encoding for the rows of `batch`.
RowEncoding row_encoding(std::span<const std::int32_t> row_ptr, const BigBatch& batch) {
  std::int32_t longest = 0;
  const std::int64_t rows = batch.rows();
  const int team = detail::threads_for(rows, 0);
#pragma omp parallel for num_threads(team) schedule(static) reduction(max : longest) if (team > 1)
  for (std::int64_t r = batch.begin_row; r < batch.end_row; ++r)
    longest = std::max(longest, row_ptr[static_cast<std::size_t>(r) + 1] -
                                    row_ptr[static_cast<std::size_t>(r)]);
  if (longest <= std::numeric_limits<std::uint8_t>::max()) return RowEncoding::lengths8;
  if (longest <= std::numeric_limits<std::uint16_t>::max()) return RowEncoding::lengths16;
  return RowEncoding::offsets32;
}

/// The smallest and largest column of column chunk k of `batch`.
std::pair<std::int32_t, std::int32_t> chunk_span(std::span<const std::int32_t> col_idx,
                                                 const BigBatch& batch, std::int64_t k) {
  const std::int64_t first = batch.begin_nnz + k * kColumnChunk;
  const std::int64_t end = std::min(batch.end_nnz, first + kColumnChunk);
  const auto [low, high] = std::minmax_element(col_idx.begin() + first, col_idx.begin() + end);
  return {*low, *high};
}

ColumnEncoding column_encoding(std::span<const std::int32_t> col_idx, const BigBatch& batch) {
  const std::int64_t chunks = (batch.nnz() + kColumnChunk - 1) / kColumnChunk;
  const std::int64_t too_wide = detail::first_failing(
      chunks, 0,
      [&](std::int64_t k) {
        const auto [low, high] = chunk_span(col_idx, batch, k);
        return static_cast<std::int64_t>(high) - low > std::numeric_limits<std::uint16_t>::max();
      },
      batch.nnz());
  return chunks > 0 && too_wide < 0 ? ColumnEncoding::offsets16 : ColumnEncoding::columns32;
}

/// Lays the sections out one after another, each aligned to kSlotAlignBytes (compact images;
/// a csr image is the slot layout, BigBatch's offsets).
StreamImage lay_out(RowEncoding rows, ColumnEncoding columns, const BigBatch& b,
                    std::size_t value_bytes) {
  StreamImage image;
  image.rows = rows;
  image.columns = columns;
  std::size_t at = 0;
  const auto place = [&](std::size_t bytes) {
    const std::size_t offset = at;
    at = align_up(at + bytes, kSlotAlignBytes);
    return offset;
  };
  if (image.decodes_rows()) {
    image.row_anchor_offset = place(static_cast<std::size_t>(image.row_chunks(b)) * 4);
    image.row_offset = place(static_cast<std::size_t>(b.rows()) * row_length_bytes(rows));
  } else {
    image.row_offset = place(static_cast<std::size_t>(b.rows() + 1) * 4);
  }
  if (image.decodes_columns()) {
    image.column_base_offset = place(static_cast<std::size_t>(image.column_chunks(b)) * 4);
    image.column_offset = place(padded_elements(b.nnz()) * 2);
  } else {
    image.column_offset = place(padded_elements(b.nnz()) * 4);
  }
  image.value_offset = place(padded_elements(b.nnz()) * value_bytes);
  image.bytes = at;
  return image;
}

/// to[i] = from[i] for i < count, over OpenMP threads (images of hundreds of MB).
template <typename T>
void copy_elements(T* to, const T* from, std::int64_t count) {
  const int team = detail::threads_for(count, 0);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::int64_t i = 0; i < count; ++i) to[i] = from[i];
}

/// Zeroes what write_stream_image leaves unwritten: the bytes between the sections' data and to
/// the end (alignment and the 16-element padding of columns and values).
void zero_padding(const StreamImage& image, const BigBatch& b, std::size_t value_bytes,
                  std::byte* out) {
  const auto rows = static_cast<std::size_t>(b.rows()), nnz = static_cast<std::size_t>(b.nnz());
  std::vector<std::pair<std::size_t, std::size_t>> written;  // [begin, end) of each section's data
  if (image.decodes_rows()) {
    written.emplace_back(image.row_anchor_offset, static_cast<std::size_t>(image.row_chunks(b)) * 4);
    written.emplace_back(image.row_offset, rows * row_length_bytes(image.rows));
  } else {
    written.emplace_back(image.row_offset, (rows + 1) * 4);
  }
  if (image.decodes_columns()) {
    written.emplace_back(image.column_base_offset, static_cast<std::size_t>(image.column_chunks(b)) * 4);
    written.emplace_back(image.column_offset, nnz * 2);
  } else {
    written.emplace_back(image.column_offset, nnz * 4);
  }
  std::size_t at = 0;  // sections are laid out in this order
  for (const auto& [offset, bytes] : written) {
    std::memset(out + at, 0, offset - at);
    at = offset + bytes;
  }
  std::memset(out + at, 0, image.value_offset - at);
  const std::size_t values_end = image.value_offset + nnz * value_bytes;
  std::memset(out + values_end, 0, image.bytes - values_end);
}

}  // namespace

StreamImage stream_image(std::span<const std::int32_t> row_ptr,
                         std::span<const std::int32_t> col_idx, const BigBatch& batch,
                         std::size_t value_bytes, StreamFormat format) {
  StreamImage csr;  // the slot layout as it is
  csr.row_offset = batch.row_ptr_offset;
  csr.column_offset = batch.col_offset;
  csr.value_offset = batch.value_offset;
  csr.bytes = batch.bytes;
  if (format != StreamFormat::compact) return csr;
  const StreamImage compact = lay_out(row_encoding(row_ptr, batch),
                                      column_encoding(col_idx, batch), batch, value_bytes);
  return compact.bytes < csr.bytes ? compact : csr;
}

template <typename Value>
void write_stream_image(const CsrMatrix<Value, std::int32_t>& matrix, const BigBatch& b,
                        const StreamImage& image, std::byte* out) {
  zero_padding(image, b, sizeof(Value), out);
  const auto& row_ptr = matrix.row_ptr;
  const auto& col_idx = matrix.col_idx;
  const auto base = static_cast<std::int32_t>(b.begin_nnz);
  const auto row_at = [&](std::int64_t r) {  // rebased offset of batch row r
    return row_ptr[static_cast<std::size_t>(b.begin_row + r)] - base;
  };
  const int row_team = detail::threads_for(b.rows(), 0);
  if (!image.decodes_rows()) {
    auto* offsets = reinterpret_cast<std::int32_t*>(out + image.row_offset);
#pragma omp parallel for num_threads(row_team) schedule(static) if (row_team > 1)
    for (std::int64_t r = 0; r <= b.rows(); ++r) offsets[r] = row_at(r);
  } else {
    auto* anchors = reinterpret_cast<std::int32_t*>(out + image.row_anchor_offset);
    for (std::int64_t k = 0; k < image.row_chunks(b); ++k) anchors[k] = row_at(k * kRowChunk);
    auto* lengths8 = reinterpret_cast<std::uint8_t*>(out + image.row_offset);
    auto* lengths16 = reinterpret_cast<std::uint16_t*>(out + image.row_offset);
    const bool narrow = image.rows == RowEncoding::lengths8;
#pragma omp parallel for num_threads(row_team) schedule(static) if (row_team > 1)
    for (std::int64_t r = 0; r < b.rows(); ++r) {
      const std::int32_t length = row_at(r + 1) - row_at(r);
      if (narrow) lengths8[r] = static_cast<std::uint8_t>(length);
      else lengths16[r] = static_cast<std::uint16_t>(length);
    }
  }
  const int nonzero_team = detail::threads_for(b.nnz(), 0);
  if (!image.decodes_columns()) {
    copy_elements(reinterpret_cast<std::int32_t*>(out + image.column_offset),
                  col_idx.data() + b.begin_nnz, b.nnz());
  } else {
    auto* bases = reinterpret_cast<std::int32_t*>(out + image.column_base_offset);
    auto* offsets = reinterpret_cast<std::uint16_t*>(out + image.column_offset);
    const std::int64_t chunks = image.column_chunks(b);
#pragma omp parallel for num_threads(nonzero_team) schedule(static) if (nonzero_team > 1)
    for (std::int64_t k = 0; k < chunks; ++k) {
      const std::int32_t low = chunk_span(col_idx, b, k).first;
      bases[k] = low;
      const std::int64_t first = k * kColumnChunk;
      const std::int64_t end = std::min(b.nnz(), first + kColumnChunk);
      for (std::int64_t i = first; i < end; ++i)
        offsets[i] = static_cast<std::uint16_t>(col_idx[static_cast<std::size_t>(b.begin_nnz + i)] - low);
    }
  }
  copy_elements(reinterpret_cast<Value*>(out + image.value_offset),
                matrix.values.data() + b.begin_nnz, b.nnz());
}

void decode_stream_image(const std::byte* bytes, const StreamImage& image, const BigBatch& b,
                         std::vector<std::int32_t>& row_ptr, std::vector<std::int32_t>& col_idx) {
  row_ptr.assign(static_cast<std::size_t>(b.rows() + 1), 0);
  col_idx.assign(static_cast<std::size_t>(b.nnz()), 0);
  if (!image.decodes_rows()) {
    std::memcpy(row_ptr.data(), bytes + image.row_offset, row_ptr.size() * sizeof(std::int32_t));
  } else {
    // as a decode block: each chunk from its anchor, adding the lengths in order
    const auto* anchors = reinterpret_cast<const std::int32_t*>(bytes + image.row_anchor_offset);
    for (std::int64_t r = 0; r <= b.rows(); ++r) {
      if (r % kRowChunk == 0 && r < b.rows()) {
        row_ptr[static_cast<std::size_t>(r)] = anchors[r / kRowChunk];
      } else {
        const std::int64_t previous = r - 1;
        const std::int32_t length =
            image.rows == RowEncoding::lengths8
                ? reinterpret_cast<const std::uint8_t*>(bytes + image.row_offset)[previous]
                : reinterpret_cast<const std::uint16_t*>(bytes + image.row_offset)[previous];
        row_ptr[static_cast<std::size_t>(r)] = row_ptr[static_cast<std::size_t>(previous)] + length;
      }
    }
  }
  if (!image.decodes_columns()) {
    std::memcpy(col_idx.data(), bytes + image.column_offset, col_idx.size() * sizeof(std::int32_t));
  } else {
    const auto* bases = reinterpret_cast<const std::int32_t*>(bytes + image.column_base_offset);
    const auto* offsets = reinterpret_cast<const std::uint16_t*>(bytes + image.column_offset);
    for (std::int64_t i = 0; i < b.nnz(); ++i)
      col_idx[static_cast<std::size_t>(i)] = bases[i / kColumnChunk] + offsets[i];
  }
}

#define TCSPARSE_STREAM_IMAGE_INSTANTIATE(Value)                                        \
  template void write_stream_image<Value>(const CsrMatrix<Value, std::int32_t>&,       \
                                          const BigBatch&, const StreamImage&, std::byte*);
TCSPARSE_STREAM_IMAGE_INSTANTIATE(double)
TCSPARSE_STREAM_IMAGE_INSTANTIATE(float)
TCSPARSE_STREAM_IMAGE_INSTANTIATE(half)
TCSPARSE_STREAM_IMAGE_INSTANTIATE(bfloat16)
#undef TCSPARSE_STREAM_IMAGE_INSTANTIATE

}  // namespace tcsparse::csr_overlap
