// `tcsparse generate KIND [key=value...] -o OUT`, or `tcsparse generate SPEC -o OUT` with SPEC
// "KIND:key=value,..." (the "gen:" prefix is optional here). Needs no GPU.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "common/stopwatch.hpp"
#include "matrix_source.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::cli {
namespace {

struct GenerateOptions {
  std::vector<std::string> arguments;  ///< KIND key=value ...  or  SPEC
  std::string output;
  bool list = false;
};

/// "KIND key=value key=value" or "[gen:]KIND:key=value,..." as a GeneratorSpec.
GeneratorSpec spec_from_arguments(const std::vector<std::string>& arguments) {
  if (arguments.empty()) throw Error("generate: give a KIND (see `tcsparse generate --list`)");
  std::string first = arguments.front();
  if (first.starts_with(kGeneratorPrefix)) first.erase(0, kGeneratorPrefix.size());
  if (first.find(':') != std::string::npos) {
    if (arguments.size() > 1)
      throw Error("generate: give either a spec KIND:key=value,... or KIND key=value ..., not "
                  "both ('" + arguments[1] + "' follows a spec)");
    return parse_generator_spec(first);
  }
  GeneratorSpec spec{first, {}};
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const auto equals = arguments[i].find('=');
    if (equals == std::string::npos || equals == 0)
      throw Error("generate: expected key=value, got '" + arguments[i] + "'");
    spec.parameters[arguments[i].substr(0, equals)] = arguments[i].substr(equals + 1);
  }
  return spec;
}

int list_kinds() {
  fmt::print("generator kinds (tcsparse generate KIND key=value ... -o OUT):\n");
  for (const auto& [kind, help] : generator_kinds()) fmt::print("  {:<10} {}\n", kind, help);
  return kExitOk;
}

int run_generate(const GenerateOptions& options) {
  if (options.list) return list_kinds();
  if (options.output.empty()) throw Error("generate: give the output file with -o OUT");
  const GeneratorSpec spec = spec_from_arguments(options.arguments);
  detail::Stopwatch stopwatch;
  const GeneratedMatrix matrix = generate(spec);
  const double generate_seconds = stopwatch.elapsed_seconds();
  stopwatch.restart();
  write_matrix(options.output, matrix);
  const double write_seconds = stopwatch.elapsed_seconds();
  fmt::print("wrote {}: {} x {}, {} nonzeros ({}; generated in {:.2f} s, written in {:.2f} s)\n",
             options.output, matrix.rows, matrix.cols, matrix.nnz(), spec.kind,
             generate_seconds, write_seconds);
  return kExitOk;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* sub = app.add_subcommand("generate", "Write a synthetic matrix to a file");
  sub->add_option("KIND", options->arguments,
                  "KIND key=value ..., or one spec KIND:key=value,... (see --list)");
  sub->add_option("-o,--output", options->output, "Output file (.mtx, .mtx.gz or .smtx)");
  sub->add_flag("--list", options->list, "List the generator kinds and their parameters");
  return {sub, [options] { return run_generate(*options); }};
}

}  // namespace tcsparse::cli
