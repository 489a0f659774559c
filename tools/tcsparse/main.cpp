// tcsparse: the command-line program. Every subcommand lives in its own cmd_*.cpp; this file
// only wires them up and turns errors into messages and exit codes (never a crash).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <exception>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/version.hpp"

namespace tcsparse::cli {

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end == nullptr || *end != '\0') return "'" + text + "' is not a number";
        if (!std::isfinite(value)) return "must be a finite number, got '" + text + "'";
        return {};
      },
      "FINITE");
}

CLI::Validator key_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto equals = text.find('=');
        if (equals == std::string::npos || equals == 0)
          return "'" + text + "' is not KEY=VALUE (e.g. max_medium_row_length=256)";
        return {};
      },
      "KEY=VALUE");
}

}  // namespace tcsparse::cli

namespace {

using tcsparse::cli::Command;

void print_error(const char* message) { fmt::print(stderr, "tcsparse: error: {}\n", message); }

int run_selected(const std::vector<Command>& commands) {
  try {
    for (const Command& command : commands)
      if (command.subcommand->parsed()) return command.run();
    return tcsparse::cli::kExitError;  // unreachable: one subcommand is required
  } catch (const tcsparse::NoDeviceError& error) {
    print_error(error.what());
    return tcsparse::cli::kExitNoDevice;
  } catch (const std::exception& error) {  // tcsparse::Error and anything else (bad_alloc, ...)
    print_error(error.what());
    return tcsparse::cli::kExitError;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tcsparse: fast sparse matrix products (SpMV, SpMM) on NVIDIA GPUs"};
  app.set_version_flag("--version", tcsparse::kVersion);
  app.require_subcommand(1);
  const std::vector<Command> commands = {
      tcsparse::cli::add_info_command(app),     tcsparse::cli::add_spmv_command(app),
      tcsparse::cli::add_spmm_command(app),     tcsparse::cli::add_bench_command(app),
      tcsparse::cli::add_generate_command(app), tcsparse::cli::add_convert_command(app),
      tcsparse::cli::add_methods_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  return run_selected(commands);
}
