// Whole-file reading with gzip inflation, and buffered (optionally gzip) writing.
#include "core/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "common/parallel.hpp"
#include "common/stopwatch.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

namespace {

/// Deflate cannot compress better than about 1032:1 (RFC 1951: a 258-byte match costs at least
/// 2 bits), so the size a gzip trailer announces is trusted only up to that ratio.
constexpr std::size_t kMaxDeflateRatio = 1032;
/// zlib counts in unsigned int: feed and drain it at most this much per call.
constexpr std::size_t kZlibChunk = std::size_t{1} << 30;
/// Regular files at least this large are read by several threads at once (pread of disjoint
/// blocks), which spreads the page-cache copy and the page faults of the buffer over the cores.
constexpr std::size_t kParallelReadMinBytes = std::size_t{4} << 20;
constexpr std::size_t kParallelReadBlock = std::size_t{1} << 20;
/// Buffer of zlib's gzip writer (its default of 8 KiB makes many small system calls).
constexpr unsigned kGzipWriteBuffer = 1u << 20;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FileHandle = std::unique_ptr<std::FILE, FileCloser>;

std::string system_message(int error_number) {
  return std::generic_category().message(error_number);
}

/// Inflate state released on every path out of gunzip.
struct InflateStream {
  z_stream stream{};
  bool initialised = false;
  ~InflateStream() {
    if (initialised) inflateEnd(&stream);
  }
};

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

ByteBuffer gunzip(std::string_view compressed, const std::string& name) {
  // The trailer's ISIZE (last 4 bytes, little-endian) is the size mod 2^32 of the last member:
  // a good first guess for one member under 4 GiB; the buffer grows when it is wrong.
  std::size_t guess = compressed.size() * 4;
  if (compressed.size() >= 18) {
    const auto* tail = reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
    const std::size_t announced = std::size_t{tail[0]} | (std::size_t{tail[1]} << 8) |
                                  (std::size_t{tail[2]} << 16) | (std::size_t{tail[3]} << 24);
    if (announced >= compressed.size()) guess = announced;
  }
  guess = std::min(guess, compressed.size() * kMaxDeflateRatio) + 64;
  ByteBuffer out(guess);

  InflateStream inflater;
  constexpr int kGzipOnlyWindowBits = 15 + 16;  // zlib manual: +16 selects the gzip wrapper
  if (inflateInit2(&inflater.stream, kGzipOnlyWindowBits) != Z_OK)
    throw ParseError(name, 0, "cannot initialise zlib");
  inflater.initialised = true;
  z_stream& stream = inflater.stream;

  std::size_t consumed = 0;  // input bytes handed to zlib so far
  std::size_t produced = 0;
  stream.avail_in = 0;
  for (;;) {
    if (stream.avail_in == 0 && consumed < compressed.size()) {
      const std::size_t chunk = std::min(kZlibChunk, compressed.size() - consumed);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
      stream.avail_in = static_cast<uInt>(chunk);
      consumed += chunk;
    }
    if (produced == out.capacity()) out.reserve(out.capacity() * 2);
    const std::size_t room = std::min(kZlibChunk, out.capacity() - produced);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(room);
    const int status = inflate(&stream, Z_NO_FLUSH);
    produced += room - stream.avail_out;

    if (status == Z_STREAM_END) {
      // Another member may follow (concatenated gzip files); anything else after a complete
      // member is ignored, as gzip(1) does with trailing garbage.
      const std::size_t next_member = consumed - stream.avail_in;
      if (!has_gzip_magic(compressed.substr(next_member))) break;
      if (inflateReset(&stream) != Z_OK) throw ParseError(name, 0, "cannot reset zlib");
      continue;
    }
    if (status == Z_OK) continue;
    if (status == Z_BUF_ERROR && stream.avail_out > 0 && stream.avail_in == 0 &&
        consumed == compressed.size())
      throw ParseError(name, 0,
                       "gzip data ends early after " + std::to_string(produced) +
                           " bytes of text (truncated file?)");
    if (status == Z_BUF_ERROR) continue;  // no room left: the next round grows the buffer
    const char* detail = stream.msg != nullptr ? stream.msg : "unknown zlib error";
    throw ParseError(name, 0,
                     std::string("corrupt gzip data: ") + detail + " (after " +
                         std::to_string(produced) + " bytes of text)");
  }
  out.resize(produced);
  return out;
}

ByteBuffer read_file_bytes(const std::filesystem::path& path, int threads) {
  const std::string name = path.string();
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw ParseError(name, 0, "cannot read: it is a directory");
  FileHandle file(std::fopen(name.c_str(), "rb"));
  if (!file) throw ParseError(name, 0, "cannot open: " + system_message(errno));

  // Size of a regular file as a first guess; the loop below copes with anything else (and with
  // a file that grew since).
  std::size_t guess = 1 << 16;
  std::size_t known_size = 0;
  const auto size = std::filesystem::file_size(path, error);
  if (!error) {
    known_size = static_cast<std::size_t>(size);
    guess = known_size + 1;
  }
  ByteBuffer bytes(guess);
  if (known_size >= kParallelReadMinBytes) {
    const int descriptor = fileno(file.get());
    const auto blocks = static_cast<std::int64_t>((known_size + kParallelReadBlock - 1) / kParallelReadBlock);
    int failure = 0;  // errno of a failed read, or -1 for a file that shrank
#pragma omp parallel for num_threads(resolve_threads(threads)) schedule(dynamic, 1)
    for (std::int64_t block = 0; block < blocks; ++block) {
      std::size_t offset = static_cast<std::size_t>(block) * kParallelReadBlock;
      const std::size_t stop = std::min(known_size, offset + kParallelReadBlock);
      while (offset < stop) {
        const ssize_t got = ::pread(descriptor, bytes.data() + offset, stop - offset,
                                    static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
#pragma omp atomic write
          failure = got < 0 ? errno : -1;
          break;
        }
        offset += static_cast<std::size_t>(got);
      }
    }
    if (failure > 0) throw ParseError(name, 0, "read error: " + system_message(failure));
    if (failure < 0) throw ParseError(name, 0, "the file shrank while it was being read");
    bytes.resize(known_size);
    if (fseeko(file.get(), static_cast<off_t>(known_size), SEEK_SET) != 0)
      throw ParseError(name, 0, "read error: " + system_message(errno));
  }
  for (;;) {
    if (bytes.size() == bytes.capacity()) bytes.reserve(bytes.capacity() * 2);
    const std::size_t room = bytes.capacity() - bytes.size();
    const std::size_t got = std::fread(bytes.data() + bytes.size(), 1, room, file.get());
    bytes.resize(bytes.size() + got);
    if (got < room) {
      if (std::ferror(file.get())) throw ParseError(name, 0, "read error: " + system_message(errno));
      break;
    }
  }
  return bytes;
}

FileText read_text_file(const std::filesystem::path& path, int threads) {
  const Stopwatch stopwatch;
  FileText result;
  result.text = read_file_bytes(path, threads);
  result.file_bytes = result.text.size();
  if (has_gzip_magic(result.text.view())) result.text = gunzip(result.text.view(), path.string());
  result.read_seconds = stopwatch.elapsed_seconds();
  return result;
}

// ---- OutputFile -------------------------------------------------------------------------------

struct OutputFile::State {
  std::string name;
  FileHandle plain;
  gzFile gzip = nullptr;
  bool open = true;
};

OutputFile::OutputFile(const std::filesystem::path& path) : state_(std::make_unique<State>()) {
  state_->name = path.string();
  if (ends_with(lowercase_file_name(path), ".gz")) {
    state_->gzip = gzopen(state_->name.c_str(), "wb");
    if (state_->gzip == nullptr)
      throw Error("cannot create '" + state_->name + "': " + system_message(errno));
    gzbuffer(state_->gzip, kGzipWriteBuffer);
  } else {
    state_->plain.reset(std::fopen(state_->name.c_str(), "wb"));
    if (!state_->plain)
      throw Error("cannot create '" + state_->name + "': " + system_message(errno));
  }
}

OutputFile::~OutputFile() {
  try {
    close();
  } catch (const Error&) {
    // A destructor cannot report; callers that care call close() themselves.
  }
}

void OutputFile::write(std::string_view bytes) {
  if (!state_->open) throw Error("write to closed file '" + state_->name + "'");
  if (state_->gzip != nullptr) {
    while (!bytes.empty()) {
      const std::size_t chunk = std::min(bytes.size(), kZlibChunk);
      const int written = gzwrite(state_->gzip, bytes.data(), static_cast<unsigned>(chunk));
      if (written <= 0) {
        int code = 0;
        const char* message = gzerror(state_->gzip, &code);
        throw Error("cannot write '" + state_->name + "': " + message);
      }
      bytes.remove_prefix(static_cast<std::size_t>(written));
    }
    return;
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), state_->plain.get()) != bytes.size())
    throw Error("cannot write '" + state_->name + "': " + system_message(errno));
}

void OutputFile::close() {
  if (!state_ || !state_->open) return;
  state_->open = false;
  if (state_->gzip != nullptr) {
    const int status = gzclose(state_->gzip);
    state_->gzip = nullptr;
    if (status != Z_OK)
      throw Error("cannot finish '" + state_->name + "' (gzclose error " +
                  std::to_string(status) + ")");
    return;
  }
  std::FILE* file = state_->plain.release();
  if (std::fclose(file) != 0)
    throw Error("cannot finish '" + state_->name + "': " + system_message(errno));
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

}  // namespace tcsparse::detail
