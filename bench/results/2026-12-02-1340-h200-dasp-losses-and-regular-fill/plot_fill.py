"""Run 439: DASP fp64, auto over the paper's fill (regular_block_min_fill=0.75) and fill 0 asked
for over the paper's fill, against how many more values fill 0 stores (x nnz).
Usage: python3 plot_fill.py [DIR]  (writes DIR/fill_by_growth.png)"""
import collections, glob, gzip, json, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

folder = sys.argv[1] if len(sys.argv) > 1 else "."
times = collections.defaultdict(lambda: collections.defaultdict(list))
stored = {}
for path in sorted(glob.glob(f"{folder}/run439-fill-*.jsonl.gz")):
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        if "median_ms" not in r:
            continue
        key = (r["matrix"], r["nnz"])
        label = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
        times[key][label].append(r["median_ms"])
        if r["method"] == "dasp":
            stored[(key, label)] = r["details"]["stored_values"]
growth, auto, zero = [], [], []
for key, by in times.items():
    med = {label: statistics.median(v) for label, v in by.items()}
    growth.append((stored[(key, "dasp/fill0")] - stored[(key, "dasp/paper")]) / key[1])
    auto.append(med["dasp/paper"] / med["dasp"])
    zero.append(med["dasp/paper"] / med["dasp/fill0"])
fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.scatter(growth, zero, marker="x", color="tab:gray", label="fill 0 asked for")
ax.scatter(growth, auto, marker="o", facecolors="none", edgecolors="tab:blue", label="auto")
ax.axhline(1.0, color="black", linewidth=0.8)
ax.axvline(0.4, color="tab:red", linestyle="--", linewidth=0.8, label="kDaspAllRegularMaxGrowth")
ax.set_xlabel("values fill 0 stores more than the paper's fill, x nnz")
ax.set_ylabel("speedup over the paper's fill 0.75")
ax.set_title("DASP fp64, H200, run 439: 18 matrices of 4-20 M nonzeros")
ax.legend()
fig.tight_layout()
fig.savefig(f"{folder}/fill_by_growth.png", dpi=110)
