"""Per case (precision, matrix, n): what auto chose, auto / best, cusparse / auto, the rule-only
choice and its ratio, plan builds. Usage: summarize.py ALL.jsonl [RULE.jsonl]"""
import json, sys, collections, math
rows = collections.defaultdict(dict)
def key(r):
    return (r["operation"], r["precision"], r["matrix"], r.get("n", 1) if r["operation"] == "spmm" else 1)
for r in map(json.loads, open(sys.argv[1])):
    if not r.get("check_passed"):
        print("CHECK FAILED", r["matrix"], r["method"], r["precision"], r.get("error", ""))
        continue
    rows[key(r)][r["method"]] = r
if len(sys.argv) > 2:
    for r in map(json.loads, open(sys.argv[2])):
        if r.get("check_passed"): rows[key(r)]["auto_rule"] = r
stats = collections.defaultdict(lambda: collections.defaultdict(list))
for (op, p, m, n), t in sorted(rows.items()):
    timed = {k: v["median_ms"] for k, v in t.items() if k not in ("auto", "auto_rule")}
    if "auto" not in t or not timed or "cusparse" not in timed: continue
    best = min(timed.values()); a = t["auto"]; ru = t.get("auto_rule")
    s = stats[(op, p)]
    s["auto"].append(a["median_ms"] / best)
    s["vs_cusparse"].append(timed["cusparse"] / a["median_ms"])
    s["build_ratio"].append(a["plan_build_ms"] / (ru["plan_build_ms"] if ru else float("nan")))
    if ru: s["rule"].append(ru["median_ms"] / best); s["rule_vs_cusparse"].append(timed["cusparse"] / ru["median_ms"])
    flag = " <--" if a["median_ms"] / best > 1.05 or timed["cusparse"] / a["median_ms"] < 0.95 else ""
    print(op, p, m[-40:], n, "| auto", a["details"]["auto"]["chosen"], "%.3f" % (a["median_ms"] / best),
          "vs cus %.3f" % (timed["cusparse"] / a["median_ms"]), "| best", min(timed, key=timed.get),
          "| rule", ru["details"]["auto"]["chosen"] + " %.3f" % (ru["median_ms"] / best) if ru else "-",
          "| build %.2f ms" % a["plan_build_ms"], flag)
def g(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print("\noperation precision cases | auto geomean/best within5% below0.95xcus | rule geomean within5% below | min vs cusparse")
for (op, p), s in sorted(stats.items()):
    a, c = s["auto"], s["vs_cusparse"]
    print(op, p, len(a), "| %.3f %.1f%% %d" % (g(a), 100 * sum(x <= 1.05 for x in a) / len(a), sum(x < 0.95 for x in c)),
          "| %.3f %.1f%% %d" % (g(s["rule"]), 100 * sum(x <= 1.05 for x in s["rule"]) / max(1, len(s["rule"])), sum(x < 0.95 for x in s["rule_vs_cusparse"])) if s["rule"] else "| -",
          "| %.3f" % min(c))
