"""DASP over cuSPARSE against nonzeros, run 424: this change's binary and run 419's (MAX_LEN 64
among the small-matrix candidates only), the small and mid-size matrices, fp64 and fp16.
Usage: python3 plot_before_after.py  (writes run424-before-after.png here)"""
import collections, glob, gzip, json, os, statistics
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = os.path.dirname(os.path.abspath(__file__))
def speedups(binary):
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in glob.glob(f"{here}/run424-*-{binary}-*.jsonl.gz"):
        for line in gzip.open(f, "rt"):
            r = json.loads(line)
            t[(r["precision"], r["matrix"], r["nnz"])][r["method"]].append(r["median_ms"])
    return {k: statistics.median(v["cusparse"]) / statistics.median(v["dasp"]) for k, v in t.items()}
new, old = speedups("tcsparse"), speedups("tcsparse_419")
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
for ax, precision in zip(axes, ("fp64", "fp16")):
    keys = [k for k in new if k[0] == precision and k in old]
    ax.scatter([k[2] for k in keys], [old[k] for k in keys], marker="x", color="tab:gray", label="before (run 419 binary)")
    ax.scatter([k[2] for k in keys], [new[k] for k in keys], marker="o", facecolors="none", edgecolors="tab:blue", label="this change")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.95, color="tab:red", linewidth=0.8, linestyle="--")
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros")
    ax.set_title(f"{precision}: {len(keys)} matrices of 0.1-3 M nonzeros")
axes[0].set_ylabel("DASP speedup over cuSPARSE (H200)")
axes[0].legend(loc="upper right")
fig.tight_layout()
fig.savefig(f"{here}/run424-before-after.png", dpi=110)
