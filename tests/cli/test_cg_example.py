#!/usr/bin/env python3
"""Tests of the conjugate-gradient example program (examples/cg.cu), run by CTest, one case each.

Usage: test_cg_example.py CG_BINARY CASE
Exit code 0: passed, 77: skipped (with the reason on stdout), anything else: failed.
"""

import re
import shutil
import subprocess
import sys

SKIP = 77


def gpu_present():
    nvidia_smi = shutil.which("nvidia-smi")
    if not nvidia_smi:
        return False
    result = subprocess.run([nvidia_smi, "-L"], capture_output=True, text=True)
    return result.returncode == 0 and "GPU" in result.stdout


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=600)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def case_without_gpu_exits_2_with_a_clear_message(binary):
    if gpu_present():
        return "skipped: a GPU is present"
    result = run(binary, "poisson3d:8")
    check(result.returncode == 2, f"exit code {result.returncode}, expected 2\n{result.stderr}")
    check("no CUDA device" in result.stderr and "needs an NVIDIA GPU" in result.stderr,
          f"stderr does not say that a GPU is needed:\n{result.stderr}")


def case_bad_arguments_exit_1_naming_the_problem(binary):
    # Checked before the GPU is looked for: the same on any machine.
    for args, problem in [((), "no matrix given"),
                          (("poisson3d:8", "--precision", "fp16"), "fp64 or fp32"),
                          (("poisson3d:8", "--max-iter", "2.5"), "expected an integer"),
                          (("poisson3d:8", "--tol", "-1"), "--tol"),
                          (("poisson3d:8", "--bogus", "1"), "unknown option --bogus"),
                          (("poisson3d:8", "--method", "nosuch"), "unknown method 'nosuch'")]:
        result = run(binary, *args)
        check(result.returncode == 1, f"cg {' '.join(args)}: exit code {result.returncode}, "
              f"expected 1\n{result.stderr}")
        check(problem in result.stderr, f"cg {' '.join(args)}: stderr does not name "
              f"'{problem}':\n{result.stderr}")
    result = run(binary, "--help")
    check(result.returncode == 0 and "usage: cg MATRIX" in result.stderr, "--help: no usage")


def case_solves_poisson_on_gpu(binary):
    if not gpu_present():
        return "skipped: needs a GPU"
    result = run(binary, "poisson3d:24", "--tol", "1e-10", "--repeats", "1")
    check(result.returncode == 0, f"exit code {result.returncode}\n{result.stdout}{result.stderr}")
    residuals = [float(v) for v in re.findall(r"relative residual ([0-9.e+-]+)", result.stdout)]
    check(len(residuals) == 2, f"expected the method's and cusparse's runs:\n{result.stdout}")
    check(all(r <= 1e-9 for r in residuals), f"residuals {residuals} above 1e-9")
    check("break-even against cusparse" in result.stdout, f"no break-even line:\n{result.stdout}")
    result = run(binary, "poisson3d:24", "--precision", "fp32", "--tol", "1e-5", "--repeats", "1",
                 "--method", "csr_overlap")
    check(result.returncode == 0, f"fp32: exit code {result.returncode}\n{result.stderr}")


def main():
    binary, case = sys.argv[1], sys.argv[2]
    function = globals().get(f"case_{case}")
    if function is None:
        print(f"unknown case {case}")
        return 1
    skipped = function(binary)
    if skipped:
        print(skipped)
        return SKIP
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
