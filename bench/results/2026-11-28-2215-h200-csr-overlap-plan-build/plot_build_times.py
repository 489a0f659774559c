"""One picture: csr_overlap plans built from device CSR, build time over the fastest apply
(SpMV-times), every matrix of 1 M nonzeros or more of the default suite in every precision,
sorted; one line a run. Usage:
  python3 plot_build_times.py OUT.png LABEL=RECORDS.jsonl.gz [LABEL=RECORDS.jsonl.gz ...]"""
import gzip, json, sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7.5, 4.2))
for argument in sys.argv[2:]:
    label, path = argument.split("=", 1)
    ratios = []
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r["method"] == "csr_overlap" and r["nnz"] >= 1_000_000:
                ratios.append(r["plan_build_ms"] / r["median_ms"])
    ratios.sort()
    ax.plot(range(1, len(ratios) + 1), ratios, marker=".",
            label=f"{label}: {len(ratios)} cases, max {ratios[-1]:.2f}")
ax.axhline(3.0, color="gray", linewidth=0.8, linestyle="--")
ax.text(1, 3.05, "issue 9's goal: at most 3", color="gray", fontsize=8)
ax.set_xlabel("matrix x precision (sorted by the ratio)")
ax.set_ylabel("plan build / fastest apply")
ax.set_title("csr_overlap plans from device CSR, NVIDIA H200\n(default suite, matrices of >= 1 M nonzeros)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=110)
