// The errors tcsparse throws. Every one says what was wrong and where; none is a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tcsparse {

/// Base of every tcsparse error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A malformed input file. what() reads "FILE:LINE: message".
class ParseError : public Error {
 public:
  ParseError(std::string file, std::int64_t line, const std::string& message)
      : Error(file + ":" + std::to_string(line) + ": " + message),
        file_(std::move(file)),
        line_(line) {}
  const std::string& file() const { return file_; }
  /// 1-based line number; 0 when the problem is the file as a whole (empty, unreadable).
  std::int64_t line() const { return line_; }

 private:
  std::string file_;
  std::int64_t line_;
};

/// A matrix that breaks the CSR invariants (see CsrMatrix::validate).
class ValidationError : public Error {
 public:
  using Error::Error;
};

/// A size or index that does not fit the index type it would have to be stored in.
class IndexOverflowError : public Error {
 public:
  using Error::Error;
};

/// Host memory that a request needs and the machine (or the configured limit) does not have.
/// what() names the file or option, the bytes asked for and the bytes available.
class HostMemoryError : public Error {
 public:
  HostMemoryError(const std::string& message, std::uint64_t requested_bytes,
                  std::uint64_t available_bytes)
      : Error(message), requested_bytes_(requested_bytes), available_bytes_(available_bytes) {}
  std::uint64_t requested_bytes() const { return requested_bytes_; }
  std::uint64_t available_bytes() const { return available_bytes_; }

 private:
  std::uint64_t requested_bytes_;
  std::uint64_t available_bytes_;
};

/// A method that does not support the precision, shape or operation asked for.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

/// A method parameter ("key=value") that the method does not have, or a value it does not accept.
/// The message names the method, the parameter and what it accepts.
class ParameterError : public Error {
 public:
  using Error::Error;
};

/// No CUDA device is present (or the driver is missing).
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime call failed. code() is the cudaError_t value.
class CudaError : public Error {
 public:
  CudaError(int code, const std::string& message) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// A device allocation failed for lack of memory.
class DeviceMemoryError : public CudaError {
 public:
  DeviceMemoryError(int code, std::size_t requested_bytes, std::size_t free_bytes,
                    const std::string& message)
      : CudaError(code, message), requested_bytes_(requested_bytes), free_bytes_(free_bytes) {}
  std::size_t requested_bytes() const { return requested_bytes_; }
  std::size_t free_bytes() const { return free_bytes_; }

 private:
  std::size_t requested_bytes_;
  std::size_t free_bytes_;
};

/// A cuSPARSE call failed. code() is the cusparseStatus_t value.
class CusparseError : public Error {
 public:
  CusparseError(int code, const std::string& message) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// A cuBLAS call failed. code() is the cublasStatus_t value.
class CublasError : public Error {
 public:
  CublasError(int code, const std::string& message) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace tcsparse
