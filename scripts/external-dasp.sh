#!/usr/bin/env bash
# DASP side by side: tcsparse's `dasp` against the authors' own programs, on the same matrices, in
# fp64 and fp16 (issue 8). Their code (github.com/SuperScientificSoftwareLaboratory/DASP, AGPL-3.0)
# is built and run from an ignored folder, never copied into this repository. bench/external/README.md
# says more.
#
#   scripts/external-dasp.sh export MIRROR_GIT_DIR [--cli FILE] [--matrix-dir DIR]
#       Here (with the mirror): a snapshot of their repository into .external/dasp, cage11.mtx.gz
#       into .external/matrices, and with --cli our tcsparse program xz-compressed into
#       .external/bin, so that `.external` is the one path to carry to the GPU machine.
#   scripts/external-dasp.sh build [--src DIR] [--build DIR] [--arch SM]
#       Builds their spmv_double and spmv_half for sm_SM (default 90) in the build folder
#       (default build/external-dasp): make variables replace their compiler path and flags.
#   scripts/external-dasp.sh run [options] [MATRIX.mtx[.gz]...]
#       On the GPU machine: build, write the generated matrices, run their programs and
#       `tcsparse bench --methods dasp,cusparse`, matrix by matrix, and write into the output folder
#       (default $OUT, else out/external-dasp):
#         authors.jsonl   their times as records (method dasp_authors, cusparse_authors_harness)
#         authors.log     their programs' output
#         tcsparse.jsonl  tcsparse bench records;  tcsparse.txt  its tables
#         comparison.md   both side by side (bench/external/dasp_side_by_side.py table)
#         external-dasp.log  what ran, for how long
#       Options:
#         --generate SET     matrices written with `tcsparse generate`: issue8 (cage11_x35,
#                            short_4m), default (issue8 + uniform_4_12_4m, rmat_20, stencil2d_2000,
#                            long_rows_20k), or names joined by commas; none without MATRIX args
#                            means issue8
#         --precisions LIST  fp64,fp16 (default)
#         --cli FILE         the tcsparse program (default: $TCSPARSE_CLI, .external/bin/tcsparse.xz,
#                            $TCSPARSE_PREBUILT/tcsparse[.xz], build/device, build/release)
#         --matrix-dir DIR   where cage11.mtx.gz is looked for (default $TCSPARSE_MATRIX_DIR,
#                            .external/matrices, .matrices, ../shared/matrices)
#         --src DIR, --build DIR, --arch SM   as for build
#         --out DIR          the output folder
#         --timeout-s N      limit per run of their programs (default 300)
#         --budget-s N       start no further matrix after N seconds (default 480, to stay
#                            under a 10-minute job limit; the results so far are kept)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
side_by_side=$top/bench/external/dasp_side_by_side.py

die() { echo "external-dasp: $*" >&2; exit 1; }
absolute() { (cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"); }

# cage11 (SuiteSparse, 39 k rows, 560 k nonzeros) repeated block-diagonally 35 times.
cage11_nnz=559722
cage11_copies=35

# name -> `tcsparse generate` arguments (the cage11 file is put in for CAGE11).
generator_args() {
  case $1 in
    cage11_x35) echo "replicate file=CAGE11 target_nnz=$((cage11_nnz * cage11_copies)) seed=1" ;;
    short_4m) echo "short rows=4000000 cols=4000000 seed=7" ;;                     # 1..4 a row, 10 M
    uniform_4_12_4m) echo "random rows=4000000 cols=4000000 dist=uniform min=4 max=12 seed=11" ;; # 32 M
    rmat_20) echo "rmat scale=20 edge_factor=16 seed=3" ;;                         # 16 M
    stencil2d_2000) echo "stencil2d nx=2000 ny=2000 seed=1" ;;                     # 20 M
    long_rows_20k) echo "long rows=20000 cols=1000000 length=1000 seed=8" ;;       # 20 M, long rows
    *) return 1 ;;
  esac
}
generated_set() {
  case $1 in
    issue8) echo "cage11_x35 short_4m" ;;
    default) echo "cage11_x35 short_4m uniform_4_12_4m rmat_20 stencil2d_2000 long_rows_20k" ;;
    *) echo "${1//,/ }" ;;
  esac
}

find_cage11() {
  local dir
  for dir in "$@" "${TCSPARSE_MATRIX_DIR:-}" "$top/.external/matrices" "$top/.matrices" \
             "$top/../shared/matrices"; do
    [[ -n $dir ]] || continue
    for file in "$dir/cage11.mtx.gz" "$dir/suitesparse/cage11.mtx.gz" "$dir/cage11.mtx"; do
      [[ -f $file ]] && { absolute "$file"; return 0; }
    done
  done
  return 1
}

# ---- export (here) ---------------------------------------------------------------------------
cmd_export() {
  local mirror=${1:-} cli="" matrix_dir=""
  [[ -n $mirror ]] || die "usage: $0 export MIRROR_GIT_DIR [--cli FILE] [--matrix-dir DIR]"
  shift
  while (($#)); do
    case $1 in
      --cli) cli=$2; shift 2 ;;
      --matrix-dir) matrix_dir=$2; shift 2 ;;
      *) die "export: unknown option $1" ;;
    esac
  done
  git --git-dir="$mirror" rev-parse --verify -q HEAD >/dev/null || die "$mirror is not a git directory with a HEAD"
  cd "$top" || die "cd $top"
  git check-ignore -q .external/dasp ||
    echo "/.external/" >>"$(git rev-parse --git-path info/exclude)"
  git check-ignore -q .external/dasp || die ".external is not ignored by git"

  local dest=$top/.external/dasp
  rm -rf "$dest" && mkdir -p "$dest"
  # A mirror may lack its largest blobs (their test matrix): archive the files it holds.
  local present=() absent=() type blob path meta
  while IFS=$'\t' read -r meta path; do
    read -r _ type blob <<<"$meta"
    [[ $type == blob ]] || continue
    if git --git-dir="$mirror" cat-file -e "$blob" 2>/dev/null; then present+=("$path"); else absent+=("$path"); fi
  done < <(git --git-dir="$mirror" ls-tree -r HEAD)
  # (git archive still names the absent blobs on stderr; what it writes is complete.)
  git --git-dir="$mirror" archive HEAD -- "${present[@]}" 2> >(grep -v '^error: \(invalid object\|cannot read\)' >&2) |
    tar -x -C "$dest" || die "git archive of $mirror failed"
  for path in "${present[@]}"; do [[ -e $dest/$path ]] || die "$path missing from the snapshot"; done
  {
    echo "commit $(git --git-dir="$mirror" rev-parse HEAD)"
    echo "source https://github.com/SuperScientificSoftwareLaboratory/DASP"
    for path in "${absent[@]}"; do echo "absent-from-mirror $path"; done
  } >"$top/.external/dasp.snapshot"
  echo "their repository at $(git --git-dir="$mirror" rev-parse --short HEAD): ${#present[@]} files in $dest" \
       "${absent[*]:+(absent from the mirror, not needed: ${absent[*]})}"

  local cage11
  if cage11=$(find_cage11 ${matrix_dir:+"$matrix_dir"}); then
    mkdir -p "$top/.external/matrices"
    [[ $cage11 -ef $top/.external/matrices/cage11.mtx.gz ]] || cp "$cage11" "$top/.external/matrices/"
    echo "cage11: $cage11 -> .external/matrices/"
  else
    echo "cage11.mtx.gz not found: give --matrix-dir, or carry a folder with it to the GPU machine"
  fi
  if [[ -n $cli ]]; then
    [[ -x $cli ]] || die "--cli $cli is not an executable"
    mkdir -p "$top/.external/bin"
    xz -T0 -6 -c "$cli" >"$top/.external/bin/tcsparse.xz" || die "xz of $cli failed"
    echo "tcsparse: $cli -> .external/bin/tcsparse.xz"
  fi
  du -sh "$top/.external"/* | sed 's/^/  /'
  echo "carry: .external ($(du -sh "$top/.external" | cut -f1)); on the GPU machine:"
  echo "  scripts/external-dasp.sh run --generate default"
}

# ---- build (their programs) ------------------------------------------------------------------
nvcc_path() {
  command -v nvcc 2>/dev/null || { [[ -x /usr/local/cuda/bin/nvcc ]] && echo /usr/local/cuda/bin/nvcc; } ||
    die "nvcc not found (PATH, /usr/local/cuda/bin)"
}

# build_authors SRC BUILD ARCH LOG: spmv_double and spmv_half in BUILD. Their Makefile is used
# as it is, from the snapshot; the make command line replaces CC (their nvcc path) and
# NVCC_FLAGS (their -ccbin path and sm_80 target). BUILD gets a link to their src/ and the
# data/ folder their programs append their records to.
build_authors() {
  local src=$1 build=$2 arch=$3 log=$4 nvcc
  [[ -f $src/Makefile && -f $src/src/main_f64.cu ]] ||
    die "$src does not hold their repository (Makefile, src/main_f64.cu): run '$0 export MIRROR' first"
  nvcc=$(nvcc_path)
  mkdir -p "$build/data"
  ln -sfn "$(cd "$src" && pwd)/src" "$build/src"
  local flags="-O3 -m64 -gencode=arch=compute_$arch,code=sm_$arch"
  # Their common.h includes omp.h (only pragmas follow); give an empty one where gcc has none.
  if ! printf '#include <omp.h>\n' | g++ -fsyntax-only -x c++ - 2>/dev/null; then
    mkdir -p "$build/no-openmp" && : >"$build/no-openmp/omp.h"
    flags+=" -I$build/no-openmp"
  fi
  echo "$flags" >"$build/build-flags"
  {
    echo "== $(date -u +%FT%TZ) build of their programs: $("$nvcc" --version | tail -1)"
    if command -v make >/dev/null; then
      make --no-print-directory -j2 -f "$(cd "$src" && pwd)/Makefile" -C "$build" double half \
        CC="$nvcc" NVCC_FLAGS="$flags"
    else  # no make: the recipes of their Makefile's `double` and `half` targets, with our flags
      echo "(no make: running the recipes of their Makefile's double and half targets)"
      # shellcheck disable=SC2086 # flags are words
      (cd "$build" &&
        "$nvcc" $flags src/main_f64.cu -o spmv_double -D f64 -Xcompiler -fopenmp-simd -lineinfo -lcusparse -lcublas &&
        "$nvcc" $flags src/main_f16.cu -o spmv_half -Xcompiler -fopenmp-simd -lineinfo -lcusparse -lcublas)
    fi 2>&1 | grep -v -e 'warning #550-D' -e 'returnvalue' -e 'nnz_tmp' -e '^ *\^ *$' -e '^$' \
      -e 'Remark: The warnings'
  } >>"$log"
  [[ -x $build/spmv_double && -x $build/spmv_half ]] ||
    { tail -30 "$log" >&2; die "building their programs failed (see $log)"; }
}

cmd_build() {
  local src=$top/.external/dasp build=$top/build/external-dasp arch=90
  while (($#)); do
    case $1 in
      --src) src=$2; shift 2 ;;
      --build) build=$2; shift 2 ;;
      --arch) arch=$2; shift 2 ;;
      *) die "build: unknown option $1" ;;
    esac
  done
  mkdir -p "$build"
  rm -f "$build/spmv_double" "$build/spmv_half"
  build_authors "$src" "$build" "$arch" "$build/make.log"
  cat "$build/make.log"
  ls -l "$build/spmv_double" "$build/spmv_half"
}

# ---- run (GPU machine) -----------------------------------------------------------------------
unxz_to() {  # unxz_to FILE.xz OUT (python's lzma: the GPU machine may have no xz)
  python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
    "$1" "$2" && chmod +x "$2"
}

find_cli() {  # find_cli TMP: prints the tcsparse program to use
  local tmp=$1 candidate
  for candidate in "${TCSPARSE_CLI:-}" "$top/.external/bin/tcsparse.xz" \
                   ${TCSPARSE_PREBUILT:+"$top/$TCSPARSE_PREBUILT/tcsparse" "$top/$TCSPARSE_PREBUILT/tcsparse.xz"} \
                   "$top/build/device/tools/tcsparse/tcsparse" "$top/build/release/tools/tcsparse/tcsparse"; do
    [[ -n $candidate && -f $candidate ]] || continue
    if [[ $candidate == *.xz ]]; then
      unxz_to "$candidate" "$tmp/tcsparse" && { echo "$tmp/tcsparse"; return 0; }
    elif [[ -x $candidate ]]; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

cmd_run() {
  local src=$top/.external/dasp build=$top/build/external-dasp arch=90 out=${OUT:-$top/out/external-dasp}
  local generate="" precisions="fp64,fp16" cli="" matrix_dir="" timeout_s=300 budget_s=480 inputs=()
  while (($#)); do
    case $1 in
      --generate) generate=$2; shift 2 ;;
      --precisions) precisions=$2; shift 2 ;;
      --cli) cli=$2; shift 2 ;;
      --matrix-dir) matrix_dir=$2; shift 2 ;;
      --src) src=$2; shift 2 ;;
      --build) build=$2; shift 2 ;;
      --arch) arch=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      --timeout-s) timeout_s=$2; shift 2 ;;
      --budget-s) budget_s=$2; shift 2 ;;
      -*) die "run: unknown option $1" ;;
      *) inputs+=("$1"); shift ;;
    esac
  done
  [[ -z $generate && ${#inputs[@]} -eq 0 ]] && generate=issue8
  local precision
  for precision in ${precisions//,/ }; do
    [[ $precision == fp64 || $precision == fp16 ]] || die "--precisions: $precision (their programs: fp64, fp16)"
  done
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  local log=$out/external-dasp.log
  # (global: the EXIT trap runs after this function has returned)
  run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/external-dasp.XXXXXX") || die "mktemp failed"
  trap 'rm -rf "$run_tmp"' EXIT
  local tmp=$run_tmp
  local started=$SECONDS
  step() { echo "== [$((SECONDS - started)) s] $*" | tee -a "$log"; }

  local gpu driver
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
  step "device: ${gpu:-none found} (driver ${driver:-?})"
  if [[ -z $cli ]]; then cli=$(find_cli "$tmp") || die "no tcsparse program: give --cli, or export with --cli"; fi
  step "tcsparse: $cli ($("$cli" --version 2>/dev/null | head -1))"

  step "build their programs (sm_$arch)"
  mkdir -p "$build"
  rm -f "$build/spmv_double" "$build/spmv_half"
  build_authors "$src" "$build" "$arch" "$log"
  local build_flags authors_commit cuda
  build_flags=$(cat "$build/build-flags")
  authors_commit=$(sed -n 's/^commit //p' "$top/.external/dasp.snapshot" 2>/dev/null)
  cuda=$("$(nvcc_path)" --version | tail -1)

  # Matrices: NAME<TAB>file for their reader (plain .mtx)<TAB>file for tcsparse bench.
  local matrices=() name args cage11="" pids=() file
  if [[ -n $generate ]]; then
    step "generate: $(generated_set "$generate")"
    for name in $(generated_set "$generate"); do
      args=$(generator_args "$name") || die "--generate: unknown matrix $name (known: $(generated_set default))"
      if [[ $args == *CAGE11* ]]; then
        [[ -n $cage11 ]] || cage11=$(find_cage11 ${matrix_dir:+"$matrix_dir"}) ||
          die "cage11.mtx.gz not found (--matrix-dir, \$TCSPARSE_MATRIX_DIR, .external/matrices)"
        args=${args//CAGE11/$cage11}
      fi
      # shellcheck disable=SC2086 # the generator arguments are words
      "$cli" generate $args -o "$tmp/$name.mtx" >>"$log" 2>&1 &
      pids+=($!)
      matrices+=("$name"$'\t'"$tmp/$name.mtx"$'\t'"$tmp/$name.mtx")
    done
    for pid in "${pids[@]}"; do wait "$pid" || die "tcsparse generate failed (see $log)"; done
  fi
  for file in "${inputs[@]}"; do
    [[ -f $file ]] || die "$file: no such file"
    file=$(absolute "$file")
    name=$(basename "$file"); name=${name%.gz}; name=${name%.mtx}
    case $file in
      *.mtx) matrices+=("$name"$'\t'"$file"$'\t'"$file") ;;
      *.mtx.gz) gzip -dc "$file" >"$tmp/$name.mtx" || die "$file: gzip -d failed"
                matrices+=("$name"$'\t'"$tmp/$name.mtx"$'\t'"$file") ;;
      *) die "$file: their reader takes Matrix Market files (.mtx, .mtx.gz)" ;;
    esac
  done

  # Matrix by matrix: their programs (one precision at a time, in the build folder: they append
  # to data/spmv_f64_record.csv / data/spmv_f16_record.csv there), then tcsparse bench; the
  # table is rewritten after each matrix, so a run cut short keeps what it finished.
  : >"$out/authors.jsonl"
  : >"$out/authors.log"
  : >"$out/tcsparse.jsonl"
  : >"$out/tcsparse.txt"
  local entry plain binary csv rc skipped=()
  for entry in "${matrices[@]}"; do
    IFS=$'\t' read -r name plain file <<<"$entry"
    if ((SECONDS - started > budget_s)); then
      skipped+=("$name")
      continue
    fi
    for precision in ${precisions//,/ }; do
      binary=spmv_double csv=$build/data/spmv_f64_record.csv
      [[ $precision == fp16 ]] && binary=spmv_half csv=$build/data/spmv_f16_record.csv
      rm -f "$csv"
      step "authors $binary $name"
      (cd "$build" && timeout "$timeout_s" "./$binary" "$plain") >"$tmp/run.txt" 2>&1
      rc=$?
      { echo "=== $binary $name (exit code $rc)"; grep -v '^$' "$tmp/run.txt" | uniq -c; } >>"$out/authors.log"
      python3 "$side_by_side" records --precision "$precision" --matrix "$name" --source "$file" \
        --stdout "$tmp/run.txt" --csv "$csv" --exit-code "$rc" --gpu "$gpu" --cuda "$cuda" \
        --authors-commit "$authors_commit" --build-flags "$build_flags" >>"$out/authors.jsonl"
      grep -E '^(cusparse|SpMV_X)' "$tmp/run.txt" | sed 's/^/   /' | tee -a "$log"
    done

    step "tcsparse bench $name --methods dasp,cusparse --precisions $precisions"
    rm -f "$tmp/bench.jsonl"
    "$cli" bench "$file" --methods dasp,cusparse --precisions "$precisions" \
      --output "$tmp/bench.jsonl" >>"$out/tcsparse.txt" 2>>"$log"
    echo "tcsparse bench exit code $?" | tee -a "$log"
    [[ -f $tmp/bench.jsonl ]] && cat "$tmp/bench.jsonl" >>"$out/tcsparse.jsonl"
    python3 "$side_by_side" table --authors "$out/authors.jsonl" --ours "$out/tcsparse.jsonl" \
      >"$out/comparison.md" 2>>"$log"
  done
  if ((${#skipped[@]})); then
    step "over the budget of $budget_s s, not run: ${skipped[*]}"
    printf '\nNot run (over the budget of %s s): %s\n' "$budget_s" "${skipped[*]}" >>"$out/comparison.md"
  fi
  cat "$out/comparison.md"
  step "done: the results are in $out"
}

case ${1:-} in
  export) shift; cmd_export "$@" ;;
  build) shift; cmd_build "$@" ;;
  run) shift; cmd_run "$@" ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
