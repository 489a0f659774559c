"""One picture: how much faster blocks of 64 threads run the long-row kernel than blocks of 128,
per matrix (sorted), one line a precision; from run 175's records (variant t64 against the plain
run, whose blocks are 128 threads). Usage: python3 plot_long_row_blocks.py run175-threads.jsonl.gz OUT.png"""
import gzip, json, math, sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

records = {}
with gzip.open(sys.argv[1], "rt") as f:
    for line in f:
        r = json.loads(line)
        if r["method"] == "csr_overlap" and "median_ms" in r:
            records[(r["matrix"], r["precision"], r.get("variant", ""))] = r["median_ms"]
fig, ax = plt.subplots(figsize=(7, 4.2))
for precision in ("fp16", "bf16", "fp32", "fp64"):
    ratios = sorted(records[(m, p, "")] / records[(m, p, "t64")]
                    for (m, p, v) in records if p == precision and v == "" and (m, p, "t64") in records)
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    ax.plot(range(1, len(ratios) + 1), ratios, marker="o", label=f"{precision} (geomean {geomean:.3f})")
ax.axhline(1.0, color="gray", linewidth=0.8)
ax.set_xlabel("matrix (sorted by the ratio), 9 matrices whose rows are all long")
ax.set_ylabel("time with 128 threads / time with 64")
ax.set_title("csr_overlap long-row kernel: blocks of 64 threads against 128\n(NVIDIA H200, run 175; above 1: 64 is faster)")
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
