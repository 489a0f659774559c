"""Run 444, fp64: how much faster 4 blocks in flight run than 2, against the share of empty
rows, for the heavy-tailed matrices whose size bound gave 2 (python3 plot_blocks_in_flight.py)."""
import collections, gzip, json, statistics, pathlib
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = pathlib.Path(__file__).parent
times = collections.defaultdict(lambda: collections.defaultdict(list))
info = {}
for p in (1, 2):
    for line in gzip.open(here / f"run444-bif-{p}.jsonl.gz", "rt"):
        r = json.loads(line)
        if "median_ms" not in r or r["precision"] != "fp64":
            continue
        times[r["matrix"]][r.get("variant") or r["method"]].append(r["median_ms"])
        if r["method"] == "dasp" and not r.get("variant"):
            d = r["details"]
            info[r["matrix"]] = (d["rows"]["empty"] / r["rows"], d["row_order"], d["blocks_in_flight"])
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for matrix, by in times.items():
    empty, order, blocks = info[matrix]
    if blocks != 2:
        continue
    gain = statistics.median(by["dasp"]) / statistics.median(by["bif4"])
    caller = order == "caller"
    ax.scatter(empty, gain, marker="o" if caller else "x", color="tab:blue" if caller else "tab:gray")
    if gain < 0.9 or gain > 1.1:
        ax.annotate(matrix.split(":")[1].split(",seed")[0].split("/")[-1], (empty, gain), fontsize=7,
                    xytext=(4, 2), textcoords="offset points")
ax.axhline(1.0, color="black", linewidth=0.8)
ax.axvline(0.25, color="tab:red", linewidth=0.8, linestyle="--")
ax.set_xlabel("share of empty rows")
ax.set_ylabel("time with 2 blocks / time with 4")
ax.set_title("H200, fp64, heavy tails of 50-250 MiB (run 444)\no: y in the caller's order, x: in the plan's order inside the apply", fontsize=9)
fig.tight_layout()
fig.savefig(here / "blocks_in_flight_by_empty_rows.png", dpi=110)
