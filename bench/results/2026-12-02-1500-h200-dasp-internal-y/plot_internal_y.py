#!/usr/bin/env python3
"""internal_y over the caller's order (DASP, fp64, H200, run 442) against the matrix's rows:
where kDaspInternalYMinRows and the heavy-tail condition put the rule. Writes internal_y_by_rows.png."""
import collections, gzip, json, statistics, sys
from pathlib import Path
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = Path(sys.argv[0]).resolve().parent
times = collections.defaultdict(lambda: collections.defaultdict(list))
shape = {}
for path in sorted(here.glob("run442-*.jsonl.gz")):
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        if "median_ms" not in r or r["precision"] != "fp64" or r["method"] != "dasp":
            continue
        times[r["matrix"]][r.get("variant") or "caller"].append(r["median_ms"])
        if not r.get("variant"):
            d = r["details"]
            heavy = (d.get("medium_row_window") == 0 and d.get("rows", {}).get("medium", 0) > 0
                     and d.get("medium_rows_per_warp") == d["block_shape"][0]
                     and d.get("row_order") == "caller")
            shape[r["matrix"]] = (r["rows"], heavy, d.get("row_order"))
fig, ax = plt.subplots(figsize=(7, 4.2))
for heavy, marker, label in ((True, "o", "medium rows over the whole matrix, a row-block a warp"),
                             (False, "x", "medium rows in windows, short rows only, or internal")):
    xs, ys = [], []
    for m, by in times.items():
        if "iy" not in by or shape[m][1] != heavy:
            continue
        xs.append(shape[m][0])
        ys.append(statistics.median(by["caller"]) / statistics.median(by["iy"]))
    ax.scatter(xs, ys, marker=marker, label=label)
ax.axhline(1.0, color="grey", lw=0.8)
ax.axvline(2.5e6, color="tab:red", ls="--", lw=0.8, label="kDaspInternalYMinRows")
ax.set_xscale("log")
ax.set_xlabel("rows")
ax.set_ylabel("caller-order time / internal_y time")
ax.set_title("DASP fp64, row_order=internal_y against the caller's order (H200, run 442)")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
fig.savefig(here / "internal_y_by_rows.png", dpi=110)
