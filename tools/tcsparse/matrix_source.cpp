#include "matrix_source.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/core.h>

#include "tcsparse/error.hpp"
#include "suites.hpp"
#include "tcsparse/generate.hpp"

namespace tcsparse::cli {
namespace {

constexpr std::array<std::string_view, 4> kMatrixExtensions = {".mtx", ".mtx.gz", ".smtx",
                                                               ".smtx.gz"};

std::string without_matrix_extension(std::string name) {
  for (std::string_view suffix : {".gz", ".mtx", ".smtx"})
    if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  return name;
}

bool is_smtx(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(".smtx") || name.ends_with(".smtx.gz");
}

MatrixSourceRef reference_to(const std::string& argument) {
  if (is_generator_spec(argument)) return {argument.substr(kGeneratorPrefix.size()), argument};
  if (bench::is_llm_weights_name(argument)) return {argument, bench::llm_weights_spec(argument)};
  const std::filesystem::path path(argument);
  return {without_matrix_extension(path.filename().string()), argument, is_smtx(path)};
}

std::vector<MatrixSourceRef> matrix_files_below(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory))
    if (entry.is_regular_file() && is_matrix_file(entry.path())) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<MatrixSourceRef> refs;
  for (const auto& file : files) {
    const auto relative = std::filesystem::relative(file, directory).generic_string();
    refs.push_back({without_matrix_extension(relative), file.string(), is_smtx(file)});
  }
  return refs;
}

}  // namespace

bool is_generator_spec(const std::string& source) { return source.starts_with(kGeneratorPrefix); }

bool is_matrix_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return std::any_of(kMatrixExtensions.begin(), kMatrixExtensions.end(),
                     [&](std::string_view extension) { return name.ends_with(extension); });
}

bench::MatrixInput load_matrix(const MatrixSourceRef& ref, ReadReport* report) {
  bench::MatrixInput input{ref.name, ref.source, {}};
  if (is_generator_spec(ref.source))
    input.matrix = generate(parse_generator_spec(ref.source.substr(kGeneratorPrefix.size())));
  else
  {
    ReadOptions options;
    options.on_notice = [](const std::string& message) {
      fmt::print(stderr, "tcsparse: note: {}\n", message);
    };
    input.matrix = read_matrix<double, std::int32_t>(ref.source, options, report);
  }
  return input;
}

bench::MatrixInput load_matrix(const std::string& file_or_spec, ReadReport* report) {
  return load_matrix(reference_to(file_or_spec), report);
}

std::vector<MatrixSourceRef> expand_matrix_arguments(const std::vector<std::string>& arguments) {
  std::vector<MatrixSourceRef> refs;
  for (const std::string& argument : arguments) {
    std::error_code ignored;
    if (is_generator_spec(argument) || bench::is_llm_weights_name(argument) ||
        std::filesystem::is_regular_file(argument, ignored)) {
      refs.push_back(reference_to(argument));
    } else if (std::filesystem::is_directory(argument, ignored)) {
      auto found = matrix_files_below(argument);
      if (found.empty())
        throw Error(argument + ": no matrix files (.mtx, .mtx.gz, .smtx, .smtx.gz) below it");
      refs.insert(refs.end(), found.begin(), found.end());
    } else {
      throw Error(argument +
                  ": no such file or directory (nor a 'gen:KIND:...' spec or an "
                  "'llm:<rows>x<cols>:s<sparsity>:<uniform|skewed>' name)");
    }
  }
  return refs;
}

}  // namespace tcsparse::cli
