// `tcsparse convert IN OUT`: reads any supported file (or a generator spec), writes it by OUT's
// extension and prints what the read measured (parse speed). Needs no GPU.
#include <memory>
#include <string>

#include <fmt/core.h>

#include "commands.hpp"
#include "common/stopwatch.hpp"
#include "matrix_source.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
};

void print_read_report(const std::string& input, const ReadReport& report) {
  fmt::print("read {}: {} {}, {} entries in the file\n", input, report.field, report.symmetry,
             report.entries_in_file);
  fmt::print("  {:.1f} MB on disk, {:.1f} MB of text\n",
             static_cast<double>(report.file_bytes) / 1e6,
             static_cast<double>(report.text_bytes) / 1e6);
  fmt::print("  read {:.3f} s, parse {:.3f} s ({:.1f} MB/s parsed), assemble {:.3f} s\n",
             report.read_seconds, report.parse_seconds, report.parse_mb_per_second(),
             report.assemble_seconds);
}

/// True when the input had no values to lose: a .smtx file or a pattern Matrix Market file.
bool is_matrix_file_without_values(const std::string& input, const ReadReport& report) {
  return !is_generator_spec(input) && report.field == "pattern";
}

bool output_is_smtx(const std::string& output) {
  return output.ends_with(".smtx") || output.ends_with(".smtx.gz");
}

int run_convert(const ConvertOptions& options) {
  // The output's type first: a mistyped name must not cost a full parse of the input.
  if (!is_matrix_file(options.output))
    throw Error("cannot write '" + options.output +
                "': unknown file type; expected a name ending in .mtx, .mtx.gz, .smtx or .smtx.gz");
  ReadReport report;
  const bench::MatrixInput input = load_matrix(options.input, &report);
  if (!is_generator_spec(options.input)) print_read_report(options.input, report);
  if (output_is_smtx(options.output) && !is_matrix_file_without_values(options.input, report))
    fmt::print(stderr,
               "tcsparse: note: {} stores the sparsity pattern only: the values of {} are not "
               "written (readers of .smtx draw values from a seed)\n",
               options.output, options.input);
  const detail::Stopwatch stopwatch;
  write_matrix(options.output, input.matrix);
  const double seconds = stopwatch.elapsed_seconds();
  fmt::print("wrote {}: {} x {}, {} nonzeros in {:.3f} s\n", options.output, input.matrix.rows,
             input.matrix.cols, input.matrix.nnz(), seconds);
  return kExitOk;
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* sub = app.add_subcommand("convert", "Convert a matrix file (.mtx[.gz], .smtx[.gz])");
  sub->add_option("IN", options->input, "Input file or generator spec")->required();
  sub->add_option("OUT", options->output, "Output file (.mtx, .mtx.gz or .smtx)")->required();
  return {sub, [options] { return run_convert(*options); }};
}

}  // namespace tcsparse::cli
