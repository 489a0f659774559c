// The subcommands of the `tcsparse` program, one file each (cmd_*.cpp). Each add_*_command
// registers its options on the application and returns what to run once parsing is done.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace tcsparse::cli {

/// Exit codes of the program (CLI11 uses its own, >= 100, for bad command lines).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;         ///< any tcsparse::Error (parse error, ...)
inline constexpr int kExitNoDevice = 2;      ///< a GPU command without a CUDA device
inline constexpr int kExitCheckFailed = 3;   ///< a result failed its check against the reference

/// Option checks shared by the subcommands (CLI11 names the option in its message).
/// A finite number: "nan", "inf" and text that is not a number are refused.
CLI::Validator finite_number();
/// "KEY=VALUE" with a non-empty key (what --param takes; the method checks the key itself).
CLI::Validator key_value();

struct Command {
  CLI::App* subcommand = nullptr;
  std::function<int()> run;  ///< returns the exit code
};

Command add_info_command(CLI::App& app);
Command add_spmv_command(CLI::App& app);
Command add_spmm_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_generate_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_methods_command(CLI::App& app);

}  // namespace tcsparse::cli
