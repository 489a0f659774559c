// Reading text through a fixed buffer with gzip inflation, and parallel (optionally gzip) writing.
#include "core/file_io.hpp"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <future>
#include <system_error>

#include "common/parallel.hpp"
#include "common/stopwatch.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/memory.hpp"

namespace tcsparse::detail {

namespace {

/// zlib counts in unsigned int: feed and drain it at most this much per call.
constexpr std::size_t kZlibChunk = std::size_t{1} << 30;
/// Regular files at least this large are read by several threads at once (pread of disjoint
/// blocks), which spreads the page-cache copy and the page faults of the buffer over the cores.
constexpr std::size_t kParallelReadMinBytes = std::size_t{4} << 20;
constexpr std::size_t kParallelReadBlock = std::size_t{1} << 20;
/// zlib's windowBits for deflate with the gzip wrapper (zlib manual: 15 + 16).
constexpr int kGzipWindowBits = 15 + 16;
/// zlib's default memLevel (deflateInit2 asks for it explicitly).
constexpr int kDeflateMemoryLevel = 8;
/// Level 1: on Matrix Market text about 7x faster than zlib's default (6) for a file about 10%
/// larger (measured: 99 against 14 MB/s a core, 43% against 39% of the text).
constexpr int kGzipWriteLevel = Z_BEST_SPEED;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FileHandle = std::unique_ptr<std::FILE, FileCloser>;

std::string system_message(int error_number) {
  return std::generic_category().message(error_number);
}


}  // namespace

ByteBuffer::ByteBuffer(std::size_t capacity)
    : data_(std::make_unique_for_overwrite<char[]>(std::max<std::size_t>(capacity, 1))),
      capacity_(std::max<std::size_t>(capacity, 1)) {}

void ByteBuffer::reserve(std::size_t capacity) {
  if (capacity <= capacity_) return;
  auto grown = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
  data_ = std::move(grown);
  capacity_ = capacity;
}

void ByteBuffer::resize(std::size_t size) {
  reserve(size);
  size_ = size;
}

// ---- TextReader -------------------------------------------------------------------------------

namespace {

/// Where the raw bytes come from: a file descriptor (regular file, pipe or device) or memory.
class RawSource {
 public:
  RawSource(const std::filesystem::path& path, int threads) : name_(path.string()), threads_(threads) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
      throw ParseError(name_, 0, "cannot read: it is a directory");
    descriptor_ = ::open(name_.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor_ < 0) throw ParseError(name_, 0, "cannot open: " + system_message(errno));
    struct stat status {};
    if (::fstat(descriptor_, &status) == 0 && S_ISREG(status.st_mode)) {
      regular_ = true;
      size_ = static_cast<std::uint64_t>(status.st_size);
    }
  }
  RawSource(std::string_view bytes, std::string name)
      : name_(std::move(name)), memory_(bytes), size_(bytes.size()), in_memory_(true) {}
  ~RawSource() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }
  RawSource(const RawSource&) = delete;
  RawSource& operator=(const RawSource&) = delete;

  /// Fills [out, out + bytes) as far as the source goes; returns the bytes read (fewer only at
  /// its end).
  std::size_t read(char* out, std::size_t bytes) {
    if (in_memory_) {
      const std::size_t count = std::min(bytes, memory_.size() - offset_);
      if (count > 0) std::memcpy(out, memory_.data() + offset_, count);
      offset_ += count;
      return count;
    }
    std::size_t done = 0;
    if (regular_ && bytes >= kParallelReadMinBytes && offset_ < size_ && resolve_threads(threads_) > 1) {
      // Disjoint blocks of the known size, read in parallel.
      const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, size_ - offset_));
      const auto blocks = static_cast<std::int64_t>((count + kParallelReadBlock - 1) / kParallelReadBlock);
      int failure = 0;  // errno of a failed read, or -1 for a file that shrank
#pragma omp parallel for num_threads(resolve_threads(threads_)) schedule(dynamic, 1)
      for (std::int64_t block = 0; block < blocks; ++block) {
        std::size_t at = static_cast<std::size_t>(block) * kParallelReadBlock;
        const std::size_t stop = std::min(count, at + kParallelReadBlock);
        while (at < stop) {
          const ssize_t got = ::pread(descriptor_, out + at, stop - at,
                                      static_cast<off_t>(offset_ + at));
          if (got < 0 && errno == EINTR) continue;
          if (got <= 0) {
#pragma omp atomic write
            failure = got < 0 ? errno : -1;
            break;
          }
          at += static_cast<std::size_t>(got);
        }
      }
      if (failure > 0) throw ParseError(name_, 0, "read error: " + system_message(failure));
      if (failure < 0) throw ParseError(name_, 0, "the file shrank while it was being read");
      offset_ += count;
      done = count;
      if (::lseek(descriptor_, static_cast<off_t>(offset_), SEEK_SET) < 0)
        throw ParseError(name_, 0, "read error: " + system_message(errno));
    }
    while (done < bytes) {
      const ssize_t got = ::read(descriptor_, out + done, std::min(bytes - done, kZlibChunk));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw ParseError(name_, 0, "read error: " + system_message(errno));
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
      offset_ += static_cast<std::size_t>(got);
    }
    return done;
  }

  /// Reads on the calling thread only (the gzip input, read by the inflater on its own thread).
  void read_sequentially() { threads_ = 1; }

  const std::string& name() const { return name_; }
  std::uint64_t size() const { return regular_ || in_memory_ ? size_ : 0; }
  std::uint64_t consumed() const { return offset_; }

 private:
  std::string name_;
  int threads_ = 0;
  int descriptor_ = -1;
  bool regular_ = false;
  std::string_view memory_;
  std::uint64_t size_ = 0;
  bool in_memory_ = false;
  std::uint64_t offset_ = 0;
};

/// Inflates a gzip stream of any number of members, pulling its input from a RawSource.
class GzipInflater {
 public:
  /// `first_bytes`: input already taken from the source (the magic), inflated first.
  GzipInflater(RawSource& source, std::string_view first_bytes)
      : source_(source), input_(kGzipInputBytes) {
    constexpr int kGzipOnlyWindowBits = 15 + 16;  // zlib manual: +16 selects the gzip wrapper
    if (inflateInit2(&stream_, kGzipOnlyWindowBits) != Z_OK)
      throw ParseError(source_.name(), 0, "cannot initialise zlib");
    std::memcpy(input_.data(), first_bytes.data(), first_bytes.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(first_bytes.size());
  }
  ~GzipInflater() { inflateEnd(&stream_); }
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;

  /// Fills [out, out + bytes) with text as far as the stream goes; returns the bytes produced.
  std::size_t read(char* out, std::size_t bytes) {
    std::size_t produced = 0;
    while (produced < bytes && !finished_) {
      if (stream_.avail_in == 0) refill();
      const std::size_t room = std::min(kZlibChunk, bytes - produced);
      stream_.next_out = reinterpret_cast<Bytef*>(out + produced);
      stream_.avail_out = static_cast<uInt>(room);
      const int status = inflate(&stream_, Z_NO_FLUSH);
      produced += room - stream_.avail_out;
      text_ += room - stream_.avail_out;
      if (status == Z_STREAM_END) {
        // Another member may follow (concatenated gzip files); anything else after a complete
        // member is ignored, as gzip(1) does with trailing garbage.
        if (stream_.avail_in < 2) refill();
        const std::string_view rest(reinterpret_cast<const char*>(stream_.next_in), stream_.avail_in);
        if (!has_gzip_magic(rest)) {
          finished_ = true;
          break;
        }
        if (inflateReset(&stream_) != Z_OK) throw ParseError(source_.name(), 0, "cannot reset zlib");
        continue;
      }
      if (status == Z_OK) continue;
      if (status == Z_BUF_ERROR && stream_.avail_out > 0 && stream_.avail_in == 0 && source_done_)
        throw ParseError(source_.name(), 0,
                         "gzip data ends early after " + std::to_string(text_) +
                             " bytes of text (truncated file?)");
      if (status == Z_BUF_ERROR) continue;
      const char* detail = stream_.msg != nullptr ? stream_.msg : "unknown zlib error";
      throw ParseError(source_.name(), 0,
                       std::string("corrupt gzip data: ") + detail + " (after " +
                           std::to_string(text_) + " bytes of text)");
    }
    return produced;
  }

 private:
  static constexpr std::size_t kGzipInputBytes = std::size_t{4} << 20;

  /// Moves the unread input to the front and reads more after it.
  void refill() {
    if (source_done_) return;
    const std::size_t kept = stream_.avail_in;
    if (kept > 0) std::memmove(input_.data(), stream_.next_in, kept);
    const std::size_t got = source_.read(input_.data() + kept, input_.capacity() - kept);
    if (got == 0) source_done_ = true;
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(kept + got);
  }

  RawSource& source_;
  ByteBuffer input_;
  z_stream stream_{};
  bool source_done_ = false;
  bool finished_ = false;
  std::uint64_t text_ = 0;
};

}  // namespace

struct TextReader::State {
  std::unique_ptr<RawSource> source;
  std::unique_ptr<GzipInflater> inflater;
  ByteBuffer buffer;
  std::size_t begin = 0;  ///< first byte not handed out yet
  std::size_t end = 0;    ///< end of the valid bytes in the buffer
  bool exhausted = false;  ///< the source has nothing more
  bool gzip = false;
  std::uint64_t text_bytes = 0;
  double seconds = 0.0;
  // Gzip text: while the caller parses a piece, the next is inflated into the spare buffer on
  // another thread (inflating is serial; this overlaps it with the parse).
  ByteBuffer spare;
  std::size_t spare_kept = 0;  ///< bytes carried to the spare's front (the piece's last, cut line)
  std::future<std::size_t> inflating;  ///< the spare's fill: text bytes after the kept ones
  std::uint64_t consumed_before_inflating = 0;  ///< source bytes read when it started

  ~State() {
    if (inflating.valid()) inflating.wait();  // it writes into spare through inflater
  }

  /// Makes the spare, once its fill is done, the buffer.
  void adopt_inflated() {
    if (!inflating.valid()) return;
    const Stopwatch stopwatch;
    const std::size_t got = inflating.get();  // rethrows the fill's ParseError
    seconds += stopwatch.elapsed_seconds();
    std::swap(buffer, spare);
    begin = 0;
    end = spare_kept + got;
    if (got < buffer.capacity() - spare_kept) exhausted = true;
  }

  /// Gzip: carries the bytes after `stop` to the spare's front and inflates after them on
  /// another thread.
  void start_inflating_after(std::size_t stop) {
    if (spare.capacity() < buffer.capacity()) spare = ByteBuffer(buffer.capacity());
    consumed_before_inflating = source->consumed();
    spare_kept = end - stop;
    if (spare_kept > 0) std::memcpy(spare.data(), buffer.data() + stop, spare_kept);
    begin = end = 0;
    inflating = std::async(std::launch::async, [this] {
      return inflater->read(spare.data() + spare_kept, spare.capacity() - spare_kept);
    });
  }

  /// Reads from the source into the buffer until it holds `wanted` bytes or the source ends.
  void fill(std::size_t wanted) {
    wanted = std::min(wanted, buffer.capacity());
    if (exhausted || end >= wanted) return;
    const Stopwatch stopwatch;
    const std::size_t got = gzip ? inflater->read(buffer.data() + end, wanted - end)
                                 : source->read(buffer.data() + end, wanted - end);
    if (got < wanted - end) exhausted = true;
    end += got;
    seconds += stopwatch.elapsed_seconds();
  }

  /// Moves the bytes not handed out yet to the front of the buffer.
  void compact() {
    if (begin == 0) return;
    if (end > begin) std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
    begin = 0;
  }

  void start(std::size_t buffer_bytes) {
    buffer = ByteBuffer(std::max<std::size_t>(buffer_bytes, 2));
    // The magic decides between plain and gzip; its two bytes are kept as compressed input.
    char magic[2];
    const std::size_t got = source->read(magic, 2);
    if (got == 2 && has_gzip_magic(std::string_view(magic, 2))) {
      gzip = true;
      source->read_sequentially();
      inflater = std::make_unique<GzipInflater>(*source, std::string_view(magic, 2));
      return;
    }
    const std::size_t kept = std::min(got, sizeof magic);  // read() returns at most 2
    std::memcpy(buffer.data(), magic, kept);
    end = kept;
    if (kept < 2) exhausted = true;
  }

};

TextReader::TextReader(const std::filesystem::path& path, std::size_t buffer_bytes, int threads)
    : state_(std::make_unique<State>()) {
  state_->source = std::make_unique<RawSource>(path, threads);
  state_->start(buffer_bytes);
}

TextReader::TextReader(std::string_view bytes, std::string name, std::size_t buffer_bytes)
    : state_(std::make_unique<State>()) {
  state_->source = std::make_unique<RawSource>(bytes, std::move(name));
  state_->start(buffer_bytes);
}

TextReader::~TextReader() = default;

std::string_view TextReader::peek(std::size_t bytes) {
  State& s = *state_;
  s.adopt_inflated();
  if (s.end - s.begin < bytes && s.begin + bytes > s.buffer.capacity()) s.compact();
  s.fill(s.begin + bytes);
  return {s.buffer.data() + s.begin, std::min(bytes, s.end - s.begin)};
}

std::string_view TextReader::next(std::int64_t first_line) {
  State& s = *state_;
  if (s.inflating.valid()) {
    s.adopt_inflated();
  } else {
    s.compact();
    s.fill(s.buffer.capacity());
  }
  if (s.end == s.begin) return {};
  std::size_t stop = s.end;
  if (!s.exhausted) {
    const void* newline = memrchr(s.buffer.data(), '\n', s.end);
    if (newline == nullptr)
      throw ParseError(s.source->name(), first_line,
                       "line longer than the " + std::to_string(s.buffer.capacity() >> 20) +
                           " MiB read buffer (" + std::to_string(s.buffer.capacity()) +
                           " bytes) : not a text matrix file?");
    stop = static_cast<std::size_t>(static_cast<const char*>(newline) - s.buffer.data()) + 1;
  }
  const std::string_view piece(s.buffer.data() + s.begin, stop - s.begin);
  s.begin = stop;
  s.text_bytes += piece.size();
  if (s.gzip && !s.exhausted) s.start_inflating_after(stop);
  return piece;
}

ByteBuffer TextReader::read_rest(
    const std::function<std::size_t(std::string_view)>& limit_for_prefix) {
  State& s = *state_;
  s.adopt_inflated();
  s.compact();
  s.fill(s.buffer.capacity());
  const std::size_t limit = limit_for_prefix(std::string_view(s.buffer.data(), s.end));
  const auto too_long = [&] {
    return ParseError(s.source->name(), 0,
                      "the text is longer than the " + std::to_string(limit) +
                          " bytes its header allows");
  };
  if (s.end > limit) throw too_long();
  ByteBuffer text(std::max<std::size_t>(s.end, 1));
  std::memcpy(text.data(), s.buffer.data(), s.end);
  text.resize(s.end);
  s.begin = s.end = 0;
  while (!s.exhausted) {
    s.fill(s.buffer.capacity());
    if (text.size() + s.end > limit) throw too_long();
    if (text.size() + s.end > text.capacity())
      text.reserve(std::min(limit, std::max(text.capacity() * 2, text.size() + s.end)));
    std::memcpy(text.data() + text.size(), s.buffer.data(), s.end);
    text.resize(text.size() + s.end);
    s.end = 0;
  }
  s.buffer.release();
  s.text_bytes += text.size();
  return text;
}

const std::string& TextReader::name() const { return state_->source->name(); }
bool TextReader::compressed() const { return state_->gzip; }
std::uint64_t TextReader::source_size() const { return state_->source->size(); }
std::uint64_t TextReader::source_bytes_read() const {
  // While the next piece is inflated, the source's count moves on another thread.
  return state_->inflating.valid() ? state_->consumed_before_inflating : state_->source->consumed();
}
std::uint64_t TextReader::text_bytes() const { return state_->text_bytes; }
double TextReader::read_seconds() const { return state_->seconds; }

// ---- OutputFile -------------------------------------------------------------------------------

void compress_gzip_member(std::string_view text, UninitializedVector<char>& member) {
  z_stream stream{};
  if (deflateInit2(&stream, kGzipWriteLevel, Z_DEFLATED, kGzipWindowBits,
                   kDeflateMemoryLevel, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("cannot initialise zlib for compression");
  struct End {
    z_stream& stream;
    ~End() { deflateEnd(&stream); }
  } end{stream};
  // deflateBound is for one call; feed and drain zlib in pieces it can count (unsigned int).
  member.resize(0);
  std::size_t produced = 0;
  int status = Z_OK;
  do {
    const std::size_t feed = std::min(text.size(), kZlibChunk);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream.avail_in = static_cast<uInt>(feed);
    text.remove_prefix(feed);
    const int flush = text.empty() ? Z_FINISH : Z_NO_FLUSH;
    do {
      const std::size_t room = std::min<std::size_t>(deflateBound(&stream, stream.avail_in) + 64,
                                                     kZlibChunk);
      member.resize(produced + room);
      stream.next_out = reinterpret_cast<Bytef*>(member.data() + produced);
      stream.avail_out = static_cast<uInt>(room);
      status = deflate(&stream, flush);
      if (status == Z_STREAM_ERROR) throw Error("zlib compression failed");
      produced += room - stream.avail_out;
    } while (stream.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
  } while (!text.empty());
  member.resize(produced);
}

struct OutputFile::State {
  std::string name;
  FileHandle file;
  bool gzip = false;
  UninitializedVector<char> member;  ///< write()'s gzip member
};

OutputFile::OutputFile(const std::filesystem::path& path) : state_(std::make_unique<State>()) {
  state_->name = path.string();
  state_->gzip = ends_with(lowercase_file_name(path), ".gz");
  state_->file.reset(std::fopen(state_->name.c_str(), "wb"));
  if (!state_->file) throw Error("cannot create '" + state_->name + "': " + system_message(errno));
}

OutputFile::~OutputFile() {
  try {
    close();
  } catch (const Error&) {
    // A destructor cannot report; callers that care call close() themselves.
  }
}

bool OutputFile::compressed() const { return state_->gzip; }

void OutputFile::write(std::string_view text) {
  if (text.empty()) return;
  if (!state_->gzip) return write_encoded(text);
  compress_gzip_member(text, state_->member);
  write_encoded({state_->member.data(), state_->member.size()});
}

void OutputFile::write_encoded(std::string_view bytes) {
  if (!state_->file) throw Error("write to closed file '" + state_->name + "'");
  if (std::fwrite(bytes.data(), 1, bytes.size(), state_->file.get()) != bytes.size())
    throw Error("cannot write '" + state_->name + "': " + system_message(errno));
}

void OutputFile::close() {
  if (!state_ || !state_->file) return;
  std::FILE* file = state_->file.release();
  if (std::fclose(file) != 0)
    throw Error("cannot finish '" + state_->name + "': " + system_message(errno));
}

void write_pieces_in_order(OutputFile& file, std::int64_t pieces, int threads,
                           const FormatPiece& format_piece) {
  const int team = static_cast<int>(std::min<std::int64_t>(resolve_threads(threads), pieces));
  if (team <= 1) {
    UninitializedVector<char> text, member;
    for (std::int64_t piece = 0; piece < pieces; ++piece) {
      format_piece(piece, text);
      if (text.empty()) continue;
      if (!file.compressed()) {
        file.write_encoded({text.data(), text.size()});
        continue;
      }
      compress_gzip_member({text.data(), text.size()}, member);
      file.write_encoded({member.data(), member.size()});
    }
    return;
  }
  // No exception may leave the parallel region: the first is kept, the pieces after it are
  // skipped, and it is rethrown after the region.
  std::exception_ptr failure;
  bool failed = false;
#pragma omp parallel num_threads(team)
  {
    UninitializedVector<char> text, member;
#pragma omp for ordered schedule(dynamic, 1)
    for (std::int64_t piece = 0; piece < pieces; ++piece) {
      bool skip = false;
#pragma omp atomic read
      skip = failed;
      std::string_view bytes;
      std::exception_ptr error;
      if (!skip) {
        try {
          format_piece(piece, text);
          bytes = {text.data(), text.size()};
          if (file.compressed() && !bytes.empty()) {
            compress_gzip_member(bytes, member);
            bytes = {member.data(), member.size()};
          }
        } catch (...) {
          error = std::current_exception();
        }
      }
#pragma omp ordered
      {
        if (!failed && !error && !bytes.empty()) {
          try {
            file.write_encoded(bytes);
          } catch (...) {
            error = std::current_exception();
          }
        }
        if (!failed && error) {
          failure = error;
#pragma omp atomic write
          failed = true;
        }
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

std::string lowercase_file_name(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

void throw_out_of_memory_reading(const std::string& name) {
  const std::uint64_t available = available_host_memory();
  throw HostMemoryError(name + ": out of host memory while reading it (" + format_bytes(available) +
                            " available now)",
                        0, available);
}

}  // namespace tcsparse::detail
