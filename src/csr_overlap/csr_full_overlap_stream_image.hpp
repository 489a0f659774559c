// What one apply of csr_full_overlap copies to the GPU for a big batch: its stream image.
//
// stream_format=csr streams the slot image of csr_full_overlap_format.hpp as it is. compact
// shrinks the two index arrays where the big batch allows it, and the GPU expands them into a
// decode area of the slot before the batch kernel runs (csr_full_overlap_decode.cuh):
//
//   rows     int32 offsets (csr)   or   anchors int32[ceil(rows / kRowChunk)]
//                                       + lengths uint8 / uint16 [rows]   (longest row < 2^8 / 2^16)
//   columns  int32 (csr)           or   bases int32[ceil(nnz / kColumnChunk)]
//                                       + offsets uint16 [nnz]            (each chunk's columns
//                                                                          within 2^16 of its base)
//   values   as they are
//
// Each section starts at a multiple of kSlotAlignBytes; the columns and values are padded with
// zeros to whole 16-element pieces, as the batch kernel's copies read them. anchors[k] is the
// rebased offset of row k * kRowChunk (so a decode block scans one chunk alone), bases[k] the
// smallest column of nonzeros [k * kColumnChunk, (k + 1) * kColumnChunk). Row offsets and
// columns are exact after decoding: compact changes the bytes on the link, not the product.
//
// Where the stream is bound by the host-to-device link (the method's purpose), fewer bytes is a
// faster apply: a 2D 5-point stencil in fp32 streams 8 bytes a nonzero and 4 a row as CSR, about
// 6.2 a nonzero as compact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "csr_overlap/csr_full_overlap_format.hpp"
#include "tcsparse/csr.hpp"

namespace tcsparse::csr_overlap {

enum class RowEncoding : std::uint8_t { offsets32, lengths8, lengths16 };
enum class ColumnEncoding : std::uint8_t { columns32, offsets16 };

/// Rows one anchor covers, and one decode block scans (256 threads x 4 rows).
inline constexpr std::int64_t kRowChunk = 1024;
/// Nonzeros that share one column base, and one decode block expands (256 threads x 16).
inline constexpr std::int64_t kColumnChunk = 4096;

/// Where a big batch's arrays lie in its stream image (byte offsets from the image's start).
struct StreamImage {
  RowEncoding rows = RowEncoding::offsets32;
  ColumnEncoding columns = ColumnEncoding::columns32;
  std::size_t row_anchor_offset = 0;   ///< lengths only
  std::size_t row_offset = 0;          ///< the offsets, or the lengths
  std::size_t column_base_offset = 0;  ///< offsets16 only
  std::size_t column_offset = 0;       ///< the columns, or their offsets from the bases
  std::size_t value_offset = 0;
  std::size_t bytes = 0;

  bool decodes_rows() const { return rows != RowEncoding::offsets32; }
  bool decodes_columns() const { return columns != ColumnEncoding::columns32; }
  std::int64_t row_chunks(const BigBatch& b) const { return (b.rows() + kRowChunk - 1) / kRowChunk; }
  std::int64_t column_chunks(const BigBatch& b) const {
    return (b.nnz() + kColumnChunk - 1) / kColumnChunk;
  }
};

/// The image of `batch` (rows and nonzeros of the CSR `row_ptr`, `col_idx`) in `format`:
/// csr gives the batch's slot layout; compact each index array in its smallest encoding,
/// unless the whole image would not be smaller (then csr). Never more bytes than batch.bytes.
StreamImage stream_image(std::span<const std::int32_t> row_ptr,
                         std::span<const std::int32_t> col_idx, const BigBatch& batch,
                         std::size_t value_bytes, StreamFormat format);

/// Writes the image of `batch` into `out` (image.bytes bytes; the padding zeroed).
template <typename Value>
void write_stream_image(const CsrMatrix<Value, std::int32_t>& matrix, const BigBatch& batch,
                        const StreamImage& image, std::byte* out);

/// What the GPU's decode gives for an image: the big batch's rebased row offsets (rows + 1)
/// and its column indices (nnz). The host model of csr_full_overlap_decode.cuh, for tests.
void decode_stream_image(const std::byte* image_bytes, const StreamImage& image,
                         const BigBatch& batch, std::vector<std::int32_t>& row_ptr,
                         std::vector<std::int32_t>& col_idx);

}  // namespace tcsparse::csr_overlap
