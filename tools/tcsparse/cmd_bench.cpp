// `tcsparse bench [FILES|DIRS|SPECS...] [--suite default|small|large|hbp|spmm] ...`: every method and precision
// that applies, on every matrix, through the benchmark harness. One JSON line per case in the
// results file, a progress line on stderr, speedup tables over cuSPARSE on stdout.
#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "bench_report.hpp"
#include "commands.hpp"
#include "common/stopwatch.hpp"
#include "harness.hpp"
#include "matrix_source.hpp"
#include "suites.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::cli {
namespace {

/// SpMM columns for DLMC weight matrices when --spmm-n is not given: N = 256, as TCA-SpMM
/// (tca-spmm-electronics24, evaluation) measures them.
constexpr std::int64_t kDlmcSpmmColumns = 256;

/// --precisions when neither the user nor the suite names any.
const std::vector<std::string> kEveryPrecision = {"fp64", "fp32", "fp16", "bf16"};

struct BenchOptions {
  std::vector<std::string> inputs;
  std::string suite;
  std::vector<std::string> methods;
  std::vector<std::string> precisions;  ///< empty: the suite's default, else every precision
  std::string output;
  std::vector<std::int64_t> spmm_n;  ///< SpMM widths for every matrix (replace a suite's)
  std::string layout = "row_major";  ///< SpmmLayout::dense of SpMM cases
  std::string spmm_output = "input";  ///< SpmmLayout::output of SpMM cases
  std::int64_t max_nnz = 0;
  int runs = 100;
  double warmup_ms = 10.0;
  std::string matrix_dir;
  std::vector<std::string> parameters;  ///< PlanOptions::parameters, for experiments
  std::vector<std::string> variants;    ///< "LABEL:KEY=VALUE,...", for experiments
  std::string host_upload = "automatic";  ///< PlanOptions::host_upload
  bool auto_measure = true;               ///< PlanOptions::auto_measure
  bool list = false;
  bool from_device = false;  ///< build plans from CSR already on the GPU (DeviceCsrView)
  int plan_builds = 3;       ///< plans built per case; plan_build_ms is their median
};

/// A method variant of an experiment: every selected method runs once more per variant, right
/// after the methods themselves on the same matrix and precision, with these parameters added.
struct Variant {
  std::string label;
  std::vector<std::string> parameters;
};

/// "LABEL:KEY=VALUE,KEY=VALUE" -> Variant; anything else is an Error naming the text.
Variant parse_variant(const std::string& text) {
  const auto colon = text.find(':');
  const auto bad = [&](const std::string& why) {
    return Error("--variant '" + text + "': " + why + " (expected LABEL:KEY=VALUE[,KEY=VALUE...])");
  };
  if (colon == std::string::npos || colon == 0) throw bad("no label");
  Variant variant{text.substr(0, colon), {}};
  for (const char c : variant.label)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      throw bad("the label may hold letters, digits, '_' and '-' only");
  const std::string rest = text.substr(colon + 1);
  for (std::size_t begin = 0; begin <= rest.size();) {
    const auto comma = std::min(rest.find(',', begin), rest.size());
    const std::string item = rest.substr(begin, comma - begin);
    if (item.find('=') == std::string::npos || item.front() == '=')
      throw bad("'" + item + "' is not KEY=VALUE");
    variant.parameters.push_back(item);
    begin = comma + 1;
  }
  return variant;
}

/// The key of "key=value".
std::string_view parameter_key(std::string_view key_value) {
  return key_value.substr(0, key_value.find('='));
}

bool declares(Method method, std::string_view key) {
  const auto specs = method.parameters();
  return std::any_of(specs.begin(), specs.end(),
                     [&](const ParameterSpec& spec) { return spec.name == key; });
}

/// The parameters of `given` that `method` has (the others are for other selected methods).
std::vector<std::string> parameters_of(Method method, const std::vector<std::string>& given) {
  std::vector<std::string> own;
  for (const std::string& item : given)
    if (declares(method, parameter_key(item))) own.push_back(item);
  return own;
}

/// Every parameter must belong to at least one selected method, and each method that has it must
/// accept its value: a ParameterError (or Error) naming `option` otherwise, before anything runs.
void check_parameters_apply(const std::vector<std::string>& parameters, const std::string& option,
                            const std::vector<Method>& selected) {
  for (const std::string& item : parameters) {
    if (item.find('=') == std::string::npos || item.front() == '=')
      throw ParameterError(fmt::format("{} '{}': expected KEY=VALUE", option, item));
    const bool anyone = std::any_of(selected.begin(), selected.end(), [&](Method method) {
      return declares(method, parameter_key(item));
    });
    if (!anyone) {
      std::string keys;
      for (const Method method : selected) {
        std::string own;
        for (const ParameterSpec& spec : method.parameters())
          own += fmt::format("{}{}", own.empty() ? "" : ", ", spec.name);
        if (!own.empty()) keys += fmt::format("; {}: {}", method.name(), own);
      }
      throw ParameterError(fmt::format("{} '{}': no selected method has the parameter '{}'{}",
                                       option, item, parameter_key(item),
                                       keys.empty() ? " (none of them takes parameters)" : keys));
    }
  }
  for (const Method method : selected) check_parameters(method, parameters_of(method, parameters));
}

/// What will run: the matrices, and the methods and precisions to try on each.
struct BenchSelection {
  std::string label;  ///< the suite's name, or "files"
  std::vector<MatrixSourceRef> matrices;
  std::vector<Method> methods;
  std::vector<Precision> precisions;
  std::vector<Variant> variants;
};

std::vector<MatrixSourceRef> suite_matrices(const std::string& name, const std::string& dir) {
  const auto matrix_dir = dir.empty() ? bench::default_matrix_dir() : std::filesystem::path(dir);
  std::vector<MatrixSourceRef> refs;
  for (const auto& entry : bench::suite(name, matrix_dir.value_or(std::filesystem::path{})))
    refs.push_back({entry.name, entry.spec, false, entry.spmm_n, entry.spmv});
  return refs;
}

BenchSelection select(const BenchOptions& options) {
  BenchSelection selection;
  const bool use_suite = !options.suite.empty() || options.inputs.empty();
  const std::string suite = options.suite.empty() ? "default" : options.suite;
  if (use_suite) selection.matrices = suite_matrices(suite, options.matrix_dir);
  const auto files = expand_matrix_arguments(options.inputs);
  selection.matrices.insert(selection.matrices.end(), files.begin(), files.end());
  selection.label = use_suite ? (files.empty() ? suite : suite + "+files") : "files";
  // every concrete method; "auto" only when named (--methods auto)
  if (options.methods.empty())
    for (const Method method : methods())
      if (!method.is_automatic()) selection.methods.push_back(method);
  for (const std::string& name : options.methods) selection.methods.emplace_back(name);
  std::vector<std::string> precisions = options.precisions;
  if (precisions.empty() && use_suite) precisions = bench::suite_default_precisions(suite);
  if (precisions.empty()) precisions = kEveryPrecision;
  for (const std::string& name : precisions) selection.precisions.push_back(parse_precision(name));
  for (const std::string& text : options.variants)
    selection.variants.push_back(parse_variant(text));
  check_parameters_apply(options.parameters, "--param", selection.methods);
  for (const Variant& variant : selection.variants)
    check_parameters_apply(variant.parameters, "--variant " + variant.label, selection.methods);
  return selection;
}

/// The SpMM widths of a matrix: --spmm-n's, else the suite's for it, else N = 256 for a DLMC
/// .smtx file, else none.
std::vector<std::int64_t> spmm_widths(const MatrixSourceRef& matrix, const BenchOptions& options) {
  if (!options.spmm_n.empty()) return options.spmm_n;
  if (!matrix.spmm_n.empty()) return matrix.spmm_n;
  if (matrix.is_smtx) return {kDlmcSpmmColumns};
  return {};
}

/// The cases of one matrix, precision by precision (the harness keeps one precision's data):
/// SpMV (unless the suite runs the matrix in SpMM only), then SpMM at each width. Each method gets
/// the --param values it has; a variant runs on the methods that have all of its keys. Without
/// --methods every method but auto runs, so every SpMM is compared with cusparse and with
/// cublas_dense, the dense GEMM the users of sparse weights would otherwise call (issue 11).
std::vector<bench::CaseRequest> cases_for(const MatrixSourceRef& matrix,
                                          const BenchSelection& selection,
                                          const BenchOptions& options) {
  const std::vector<std::int64_t> widths = spmm_widths(matrix, options);
  std::vector<Variant> variants{Variant{}};  // the methods as they are, then each variant
  variants.insert(variants.end(), selection.variants.begin(), selection.variants.end());
  std::vector<bench::CaseRequest> cases;
  const auto add = [&](Precision precision, Operation operation, std::int64_t columns) {
    for (const Variant& variant : variants)
      for (const Method method : selection.methods) {
        if (!method.supports(operation, precision)) continue;
        std::vector<std::string> parameters = parameters_of(method, options.parameters);
        const std::vector<std::string> own = parameters_of(method, variant.parameters);
        if (own.size() != variant.parameters.size()) continue;  // not this method's variant
        parameters.insert(parameters.end(), own.begin(), own.end());
        cases.push_back({method, precision, operation, columns, variant.label, parameters});
      }
  };
  for (Precision precision : selection.precisions) {
    if (matrix.spmv) add(precision, Operation::spmv, 1);
    for (const std::int64_t n : widths) add(precision, Operation::spmm, n);
  }
  return cases;
}

std::string slug(std::string text) {
  for (char& c : text) {
    const auto byte = static_cast<unsigned char>(c);
    c = std::isalnum(byte) ? static_cast<char>(std::tolower(byte)) : '-';
  }
  return text;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &local);
  return text;
}

/// bench/results/<date>-<gpu>-<label>.jsonl, with -2, -3, ... rather than overwrite a file.
std::filesystem::path default_output(const std::string& gpu, const std::string& label) {
  const std::filesystem::path dir = "bench/results";
  const std::string stem = today() + "-" + slug(gpu) + "-" + label;
  std::filesystem::path path = dir / (stem + ".jsonl");
  for (int i = 2; std::filesystem::exists(path); ++i)
    path = dir / (stem + "-" + std::to_string(i) + ".jsonl");
  return path;
}

std::ofstream open_results(const std::filesystem::path& path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  if (!out) throw Error("cannot open the results file " + path.string() + " for writing");
  return out;
}

/// The matrices on stdout (name TAB source, then TAB "spmm_n=8,16,..." when the matrix has SpMM
/// widths and TAB "spmm_only" when it runs no SpMV); on stderr the counts (matrices, SpMM
/// matrix x N pairs, cases), methods and precisions.
int list_selection(const BenchSelection& selection, const BenchOptions& options) {
  std::int64_t spmm_pairs = 0, cases = 0;
  for (const MatrixSourceRef& matrix : selection.matrices) {
    const std::vector<std::int64_t> widths = spmm_widths(matrix, options);
    std::string line = fmt::format("{}\t{}", matrix.name, matrix.source);
    if (!widths.empty()) {
      std::string text;
      for (const std::int64_t n : widths) text += fmt::format("{}{}", text.empty() ? "" : ",", n);
      line += "\tspmm_n=" + text;
    }
    if (!matrix.spmv) line += "\tspmm_only";
    fmt::print("{}\n", line);
    spmm_pairs += static_cast<std::int64_t>(widths.size());
    cases += static_cast<std::int64_t>(cases_for(matrix, selection, options).size());
  }
  std::string methods_text, precisions_text;
  for (Method method : selection.methods) methods_text += fmt::format(" {}", to_string(method));
  for (Precision precision : selection.precisions)
    precisions_text += fmt::format(" {}", to_string(precision));
  std::string variants_text;
  for (const Variant& variant : selection.variants) {
    std::string parameters;
    for (const std::string& parameter : variant.parameters)
      parameters += (parameters.empty() ? "" : ",") + parameter;
    variants_text += fmt::format(" {}({})", variant.label, parameters);
  }
  const bool any_spmm = spmm_pairs > 0;
  fmt::print(stderr, "{} matrices; {} SpMM (matrix x n); {} cases; methods:{}; precisions:{}{}{}{}\n",
             selection.matrices.size(), spmm_pairs, cases, methods_text, precisions_text,
             any_spmm ? fmt::format("; spmm layout: {}, output: {}",
                                    to_string(parse_dense_layout(options.layout)),
                                    options.spmm_output)
                      : std::string(),
             variants_text.empty() ? "" : "; variants:", variants_text);
  return kExitOk;
}

/// One bench run: the results file, the records so far, and what could not run.
class BenchRun {
 public:
  BenchRun(const BenchOptions& options, const BenchSelection& selection,
           const bench::RunEnvironment& environment, const std::filesystem::path& output)
      : options_(options), environment_(environment), output_(output),
        results_(open_results(output)) {
    harness_.runs = options.runs;
    harness_.warmup_ms = options.warmup_ms;
    harness_.plan.host_upload = parse_host_upload(options.host_upload);
    harness_.plan.auto_measure = options.auto_measure;
    harness_.plan_from_device = options.from_device;
    harness_.plan_builds = options.plan_builds;
    harness_.spmm_layout = {parse_dense_layout(options.layout),
                            parse_spmm_output(options.spmm_output)};
    for (const MatrixSourceRef& matrix : selection.matrices) {
      cases_.push_back(cases_for(matrix, selection, options));
      total_cases_ += static_cast<std::int64_t>(cases_.back().size());
    }
  }

  std::int64_t total_cases() const { return total_cases_; }

  void run(const std::vector<MatrixSourceRef>& matrices) {
    stopwatch_.restart();
    Progress progress(total_cases_);
    for (std::size_t i = 0; i < matrices.size(); ++i) run_matrix(matrices[i], cases_[i], progress);
    progress.finish();
  }

  /// Tables, problems and totals on stdout; returns the exit code.
  int report() const {
    print_speedup_tables(stdout, records_);
    fmt::print("\n");
    const std::int64_t problems = print_problems(stdout, records_);
    for (const std::string& reason : unreadable_) fmt::print("SKIPPED       {}\n", reason);
    fmt::print("\n{} records in {} ({:.0f} s); {} failed checks or errors; {} matrices "
               "unreadable, {} above --max-nnz\n",
               records_.size(), output_.string(), stopwatch_.elapsed_seconds(), problems,
               unreadable_.size(), above_max_nnz_);
    return problems > 0 ? kExitCheckFailed : kExitOk;
  }

 private:
  void run_matrix(const MatrixSourceRef& ref, const std::vector<bench::CaseRequest>& cases,
                  Progress& progress) {
    const auto case_count = static_cast<std::int64_t>(cases.size());
    progress.start_matrix(ref.name, case_count);
    std::optional<bench::MatrixInput> input;
    try {
      input = load_matrix(ref);
    } catch (const std::exception& error) {  // a file that fails to parse: report, go on
      unreadable_.push_back(fmt::format("{}: {}", ref.source, error.what()));
      progress.message("skipping " + unreadable_.back());
      progress.skip_cases(case_count);
      return;
    }
    if (options_.max_nnz > 0 && input->matrix.nnz() > options_.max_nnz) {
      ++above_max_nnz_;
      progress.skip_cases(case_count);
      return;
    }
    bench::MatrixBenchmark benchmark(*input, environment_, harness_);
    for (const bench::CaseRequest& request : cases) {
      progress.start_case(input->name, request);
      if (auto record = benchmark.run(request)) record_result(std::move(*record), progress);
      // else: the method does not support the case (UnsupportedError), skipped silently
    }
  }

  void record_result(bench::BenchRecord record, Progress& progress) {
    results_ << record.to_json().dump() << '\n' << std::flush;
    const std::string what = fmt::format("{} {} {} {}", record.matrix, record.operation,
                                         record.method_label(), record.precision);
    if (record.error)
      progress.message(fmt::format("ERROR {}: {}", what, *record.error));
    else if (!record.check_passed)
      progress.message(fmt::format("CHECK FAILED {}: relative error {:.3g} >= {:.0e}", what,
                                   record.rel_error, record.error_threshold));
    records_.push_back(std::move(record));
  }

  const BenchOptions& options_;
  const bench::RunEnvironment& environment_;
  std::filesystem::path output_;
  std::ofstream results_;
  bench::HarnessOptions harness_;
  std::vector<std::vector<bench::CaseRequest>> cases_;  ///< per matrix
  std::int64_t total_cases_ = 0;
  detail::Stopwatch stopwatch_;
  std::vector<bench::BenchRecord> records_;
  std::vector<std::string> unreadable_;
  std::int64_t above_max_nnz_ = 0;
};

int run_bench(const BenchOptions& options) {
  const BenchSelection selection = select(options);
  if (options.list) return list_selection(selection, options);

  const bench::RunEnvironment environment = bench::RunEnvironment::detect();
  const std::filesystem::path output = options.output.empty()
                                           ? default_output(environment.gpu, selection.label)
                                           : std::filesystem::path(options.output);
  BenchRun run(options, selection, environment, output);
  fmt::print(stderr, "tcsparse bench: {} matrices, {} cases on {} (driver {}, CUDA {}, copy "
             "bandwidth {:.0f} GB/s, commit {})\nresults: {}\n",
             selection.matrices.size(), run.total_cases(), environment.gpu, environment.driver,
             environment.cuda, environment.copy_gbps, environment.commit, output.string());
  run.run(selection.matrices);
  return run.report();
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Benchmark every method and precision on a suite, files or directories");
  sub->add_option("INPUTS", options->inputs,
                  "Matrix files, directories (searched recursively) or gen: specs; none: the "
                  "default suite");
  sub->add_option("--suite", options->suite, "Built-in suite")
      ->check(CLI::IsMember(bench::suite_names()));
  // One comma-separated value per occurrence, so that inputs may follow.
  sub->add_option("--methods", options->methods, "Methods to run, e.g. cusparse,dasp (default: every method but auto; auto: the automatic choice, recorded with what it chose)")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub->add_option("--precisions", options->precisions,
                  "Precisions to run (default: fp64,fp32,fp16,bf16; suite spmm: fp16)")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub->add_option("-o,--output", options->output,
                  "Results file (default bench/results/<date>-<gpu>-<suite>.jsonl)");
  sub->add_option("--spmm-n", options->spmm_n,
                  "Also run SpMM with these numbers of columns on every matrix, e.g. 16,1024 "
                  "(replaces a suite's widths; .smtx files: 256 unless given)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 31));
  sub->add_option("--layout", options->layout,
                  "How SpMM stores B and C: row_major (row) or column_major (column, col), as "
                  "BLAS and PyTorch's weight.T products hold them")
      ->check(CLI::IsMember({"row_major", "row", "column_major", "column", "col"}))
      ->capture_default_str();
  sub->add_option("--spmm-output", options->spmm_output,
                  "The type of SpMM's C: input (the input precision) or fp32 (fp16/bf16 inputs: "
                  "the fp32 accumulators as they are)")
      ->check(CLI::IsMember({"input", "fp32"}))
      ->capture_default_str();
  sub->add_option("--max-nnz", options->max_nnz, "Skip matrices with more nonzeros")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  sub->add_option("--runs", options->runs, "Timed runs per case (fewer if they exceed 2 s)")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  sub->add_option("--warmup-ms", options->warmup_ms, "Warm-up per case (at least 10 applies)")
      ->check(finite_number() & CLI::Range(0.0, 1e6))
      ->capture_default_str();
  sub->add_option("--matrix-dir", options->matrix_dir,
                  "Real matrices for the suites' replicated matrix (default $TCSPARSE_MATRIX_DIR "
                  "or the shared directory)");
  sub->add_option("--param", options->parameters,
                  "Method parameter KEY=VALUE for experiments, e.g. long_groups_per_warp=8: "
                  "given to the selected methods that have the key (`tcsparse methods` lists "
                  "them); a key no selected method has is an error")
      ->check(key_value());
  sub->add_option("--variant", options->variants,
                  "LABEL:KEY=VALUE[,KEY=VALUE...]: run each method once more with these "
                  "parameters, interleaved with the plain run on each matrix (recorded as "
                  "\"variant\"; it runs on the methods that have all its keys); repeatable")
      ->allow_extra_args(false);
  sub->add_option("--host-upload", options->host_upload,
                  "How plans copy the matrix to the GPU (PlanOptions::host_upload): automatic, "
                  "staged (pinned staging ring), register (cudaHostRegister), direct")
      ->check(CLI::IsMember({"automatic", "staged", "register", "direct"}))
      ->capture_default_str();
  sub->add_option("--auto-measure", options->auto_measure,
                  "Plans of method auto time the rule's best-ranked methods and cuSPARSE and keep "
                  "the fastest (true, PlanOptions::auto_measure) or build the rule's first (false)")
      ->capture_default_str();
  sub->add_flag("--from-device", options->from_device,
                "Build every plan from a CSR already on the GPU (uploaded before the build's "
                "clock starts): plan_build_ms is then the build from device CSR");
  sub->add_option("--plan-builds", options->plan_builds,
                  "Plans built per case: plan_build_ms is the median of their build times, the "
                  "last plan is checked and timed")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_flag("--list", options->list, "Print the matrices that would run and exit (no GPU)");
  return {sub, [options] { return run_bench(*options); }};
}

}  // namespace tcsparse::cli
