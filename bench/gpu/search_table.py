#!/usr/bin/env python3
"""Search strategies against exhaustive tuning on the wide spaces (1,000+
configurations): prints the markdown table of docs/search.md.

    python3 bench/gpu/search_table.py --device cuda --compiler-bin DIR --tools-bin DIR

For each wide kernel of the device (kernels-mlir/wide_spaces.py) it compiles
the whole space once (tuna-compile, timed), then for each shape:
  - exhaustive: `tuna-tune --strategy exhaustive` over every candidate that
    can run for the shape (with --check on a GPU: each variant's output is
    compared with the default variant's);
  - random and pattern with --seed 1..S and --budget-evals = budget x the
    candidates.
Every run, exhaustive or not, checks the outputs (--check) on a GPU, so
that their wall times compare like with like.
A strategy's pick is judged afterwards, in a run of its own: the exhaustive
best and every seed's pick of the shape are compiled into one small bundle
(tuna-compile --variants) and timed together by --judge-runs tuna-tune
processes; "pick / best" is the median over those runs of the pick's time
over the exhaustive best's, so that both sides come from the same processes
on the same inputs, not from two runs' noise. "exhaustive's time" divides
the exhaustive run's own time of the pick by its best instead. Wall time: the tuna-tune process (loading the bundle, making inputs,
searching, re-timing) plus compilation. The bundle is compiled ahead, so a
search is charged its share of it: configurations visited x (tuna-compile's
wall time for the whole space / variants compiled), at the compile job
count given (-j). Exhaustive is charged the whole compile. "In the
process" leaves out what a tuna-tune process pays once, whatever it tunes
(CUDA driver and contexts, the bundle, the inputs, exit), as an
application's first call does: the tuning's own wall time (classifying
the candidates, the search, the re-timing; tuna-tune's summary line) plus
the same compile charge.
The raw results go to WORK/search_table.json.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# kernel -> what compiling and tuning it needs.
KERNELS = {
    "matmul_f16_wgmma_wide": dict(
        device="cuda",
        compile=["--target=nvptx:sm_90a", "--max-shared-memory=232448"],
        # Two shapes that every tile divides, one that only the masked
        # variants (mask = 1, half of the space) take.
        shapes=["d0=4096 d1=4096 d2=4096", "d0=8192 d1=8192 d2=1024",
                "d0=3000 d1=3000 d2=3000"],
        dims=["a0=d0*d2", "a1=d2*d1", "a2=d0*d1"]),
    "softmax_wide": dict(
        device="cuda",
        compile=["--target=nvptx:sm_90"],
        # 32 MB each way: the --check of every candidate reads y back.
        shapes=["d0=4096 d1=2048", "d0=32768 d1=256", "d0=512 d1=16384"],
        dims=["a0=d0*d1", "a1=d0*d1"]),
    "matmul_host_wide": dict(
        device="host",
        compile=["--target=host"],
        shapes=["d0=64 d1=64 d2=64", "d0=128 d1=128 d2=128",
                "d0=32 d1=256 d2=128"],
        dims=[]),
}

CONFIG = r"\w+=-?\d+(?:, \w+=-?\d+)*"


def run(command, log):
    """Runs command; returns (stdout, wall seconds). Exits on failure."""
    log.write("$ " + " ".join(command) + "\n")
    start = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    wall = time.monotonic() - start
    log.write(done.stdout + "(%.2f s, rc %d)\n" % (wall, done.returncode))
    log.flush()
    if done.returncode != 0:
        sys.exit("search_table.py: failed (rc %d): %s\n%s" % (
            done.returncode, " ".join(command), done.stdout[-3000:]))
    return done.stdout, wall


def parse_search(output):
    """tuna-tune --strategy output -> pick, visited, candidates, times, failures."""
    pick = re.search(r"tuned bucket \[[^]]*\]: \S+ \((%s)\)" % CONFIG, output)
    summary = re.search(r"^\w+ search: (\d+) of (\d+) candidates \((\d+) measured now\)"
                        r".*; the tuning took ([0-9.]+) ms$", output, re.M)
    if not pick or not summary:
        sys.exit("search_table.py: cannot read tuna-tune's output:\n" + output[-3000:])
    times, failures = {}, {}
    for config, what in re.findall(r"^  (%s): (.*)$" % CONFIG, output, re.M):
        ms = re.fullmatch(r"([0-9.e+-]+) ms( \(resumed\))?", what)
        if ms:
            times[config] = float(ms.group(1))
        else:
            failures[config] = what
    for config, ms in re.findall(r"^  re-timed (%s): ([0-9.e+-]+) ms" % CONFIG, output, re.M):
        times[config] = float(ms)
    return dict(pick=pick.group(1), visited=int(summary.group(1)),
                candidates=int(summary.group(2)), fresh=int(summary.group(3)),
                tuning_s=float(summary.group(4)) / 1e3, times=times, failures=failures)


def normalized(config):
    """'a=1, b=2' or 'a=1 b=2' -> 'a=1, b=2'."""
    return ", ".join(re.findall(r"\w+=-?\d+", config))


def variant_ids_of(kernel, compile_output):
    """tuna-compile's listing -> {configuration: variant id}."""
    ids = {}
    for number, config in re.findall(r"^\s+%s__v(\d+)\s+((?:\w+=-?\d+\s?)+)" % re.escape(kernel),
                                     compile_output, re.M):
        ids[normalized(config)] = int(number)
    return ids


def judge(args, spec, kernel, source, base, variant_ids, configs, log):
    """Times `configs` together: one bundle of just them, timed by
    args.judge_runs tuna-tune processes; per run {config: median ms}."""
    configs = sorted(set(configs), key=lambda c: variant_ids[c])
    bundle = os.path.join(args.work, kernel + ".judge.tuna")
    run([os.path.join(args.compiler_bin, "tuna-compile"), source, "-o", bundle,
         "--variants=" + ",".join("%s:%d" % (kernel, variant_ids[c]) for c in configs)]
        + spec["compile"], log)
    tune = [bundle if part == base[1] else part for part in base]
    runs = []
    for _ in range(args.judge_runs):
        out, _ = run(tune + ["--verbose"], log)
        runs.append({config: float(ms) for config, ms in re.findall(
            r"^tuna:   \[\d+\] \S+ \((%s)\): ([0-9.e+-]+) ms \(median" % CONFIG, out, re.M)})
    return runs


def ratio(judged, pick, best):
    """The median over the judge's runs of pick / best (over the runs that
    timed both: one may eliminate a slow pick early); None when none did."""
    pairs = [run[pick] / run[best] for run in judged if pick in run and best in run]
    return statistics.median(pairs) if pairs else None


def device_name(device):
    if device == "host":
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return "host: " + line.split(":", 1)[1].strip() + ", %d cores" % os.cpu_count()
        return "host: " + platform.processor()
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                               "--format=csv,noheader"], stdout=subprocess.PIPE,
                              text=True).stdout.strip().splitlines()[0]
    except OSError:
        return device


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="host or cuda (as tuna-tune)")
    parser.add_argument("--kernels", help="comma-separated (default: every wide kernel "
                        "of the device: %s)" % ", ".join(KERNELS))
    parser.add_argument("--compiler-bin", required=True, help="folder of tuna-compile")
    parser.add_argument("--tools-bin", required=True, help="folder of tuna-tune")
    parser.add_argument("--work", default="/tmp/tuna-search-table")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=0.08,
                        help="evaluation budget of a search, a fraction of the candidates")
    parser.add_argument("--shapes", type=int, default=3, help="N shapes of a kernel")
    parser.add_argument("--from-shape", type=int, default=1,
                        help="the first of them (1: the kernel's first shape)")
    parser.add_argument("-j", dest="jobs", type=int, default=os.cpu_count(),
                        help="tuna-compile threads")
    parser.add_argument("--no-check", action="store_true",
                        help="runs without --check (on by default on a GPU)")
    parser.add_argument("--judge-runs", type=int, default=5,
                        help="tuna-tune processes that time the picks against the best")
    args = parser.parse_args()
    device_kind = "host" if args.device == "host" else "cuda"
    kernels = (args.kernels.split(",") if args.kernels else
               [k for k, spec in KERNELS.items() if spec["device"] == device_kind])
    for kernel in kernels:
        if kernel not in KERNELS:
            sys.exit("search_table.py: unknown kernel '%s' (known: %s)" % (kernel, ", ".join(KERNELS)))
    check = device_kind == "cuda" and not args.no_check
    os.makedirs(args.work, exist_ok=True)
    log = open(os.path.join(args.work, "search_table.log"), "w")
    tune = os.path.join(args.tools_bin, "tuna-tune")
    # Where tuna-tune prunes by default (static model), every run here times
    # every candidate: exhaustive is the baseline, and the searches see the
    # same space.
    usage = subprocess.run([tune, "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True).stdout
    no_prune = ["--no-prune"] if "--no-prune" in usage else []
    results = dict(device=device_name(args.device),
                   date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                   budget=args.budget, seeds=args.seeds, jobs=args.jobs, kernels=[])

    for kernel in kernels:
        spec = KERNELS[kernel]
        source = os.path.join(args.work, kernel + ".mlir")
        bundle = os.path.join(args.work, kernel + ".tuna")
        run([sys.executable, os.path.join(ROOT, "kernels-mlir", "wide_spaces.py"), kernel,
             "-o", source], log)
        out, compile_s = run([os.path.join(args.compiler_bin, "tuna-compile"), source, "-o", bundle,
                              "-j", str(args.jobs)] + spec["compile"], log)
        compiled = int(re.search(r"kernel %s: (\d+) variants" % kernel, out).group(1))
        variant_ids = variant_ids_of(kernel, out)
        per_variant = compile_s / compiled
        print("%s: %d variants compiled in %.1f s (-j %d): %.3f s a variant" % (
            kernel, compiled, compile_s, args.jobs, per_variant), file=sys.stderr)
        row = dict(kernel=kernel, variants=compiled, compile_s=compile_s, shapes=[])
        for shape in spec["shapes"][args.from_shape - 1:][:args.shapes]:
            base = [tune, bundle, "--kernel", kernel, "--shape", shape, "--device", args.device,
                    "--no-cache"] + no_prune
            for dims in spec["dims"]:
                base += ["--dims", dims]
            checking = ["--check"] if check else []
            out, wall = run(base + ["--strategy", "exhaustive"] + checking, log)
            exhaustive = parse_search(out)
            best = min(exhaustive["times"].values())
            exhaustive.update(wall_s=wall, cost_s=wall + compile_s,
                              in_process_s=exhaustive["tuning_s"] + compile_s, best_ms=best,
                              best=min(exhaustive["times"], key=exhaustive["times"].get))
            print("  %s: exhaustive %d candidates, best %.4g ms, %.1f s + compile %.1f s, %d failed" % (
                shape, exhaustive["candidates"], best, wall, compile_s,
                len(exhaustive["failures"])), file=sys.stderr)
            budget = max(1, math.ceil(args.budget * exhaustive["candidates"]))
            searches = []
            for strategy in ("random", "pattern"):
                for seed in range(1, args.seeds + 1):
                    out, wall = run(base + checking + ["--strategy", strategy, "--seed", str(seed),
                                            "--budget-evals", str(budget)], log)
                    found = parse_search(out)
                    pick_ms = exhaustive["times"].get(found["pick"])
                    found.update(strategy=strategy, seed=seed, wall_s=wall,
                                 cost_s=wall + found["visited"] * per_variant,
                                 exhaustive_ratio=pick_ms / best if pick_ms else None)
                    found["wall_ratio"] = found["cost_s"] / exhaustive["cost_s"]
                    found["in_process_ratio"] = (found["tuning_s"] + found["visited"] *
                                                 per_variant) / exhaustive["in_process_s"]
                    searches.append(found)
            judged = judge(args, spec, kernel, source, base, variant_ids,
                           [exhaustive["best"]] + [f["pick"] for f in searches], log)
            for found in searches:
                found["ratio"] = ratio(judged, found["pick"], exhaustive["best"])
            print("  %s: judged %d configurations in %d runs" % (
                shape, len(judged), args.judge_runs), file=sys.stderr)
            row["shapes"].append(dict(shape=shape, exhaustive=exhaustive, budget=budget,
                                      searches=searches, judged=judged))
            # After every shape: a run cut short keeps what it measured.
            with open(os.path.join(args.work, "search_table.json"), "w") as f:
                json.dump(dict(results, kernels=results["kernels"] + [row]), f, indent=1)
        results["kernels"].append(row)
    print_table(results)


def print_table(results):
    print("Search strategies against exhaustive tuning, %s, %s; budget %d%% of the candidates, "
          "seeds 1-%d; compile charged at -j %d." % (
              results["device"], results["date"], round(100 * results["budget"]),
              results["seeds"], results["jobs"]))
    print()
    print("| kernel | shape | candidates | exhaustive best | exhaustive wall (compile + tune) "
          "| strategy | evaluations | pick / best: worst, median | seeds within 1.02x "
          "| exhaustive's time of the pick / best: worst, median | wall / exhaustive: worst, median "
          "| in the process / exhaustive: worst, median |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in results["kernels"]:
        for shape in row["shapes"]:
            ex = shape["exhaustive"]
            for strategy in ("random", "pattern"):
                runs = [s for s in shape["searches"] if s["strategy"] == strategy]
                ratios = [s["ratio"] for s in runs if s["ratio"] is not None]
                walls = [s["wall_ratio"] for s in runs]
                in_process = [s["in_process_ratio"] for s in runs]
                own = [s["exhaustive_ratio"] for s in runs if s["exhaustive_ratio"] is not None]
                unknown = len(runs) - len(ratios)
                print("| %s | %s | %d | %.4g ms (%s) | %.1f s (%.1f + %.1f) | %s | %d | %s | %d of %d%s | %s | %.3f, %.3f | %.3f, %.3f |" % (
                    row["kernel"], shape["shape"], ex["candidates"], ex["best_ms"], ex["best"],
                    ex["cost_s"], row["compile_s"], ex["wall_s"], strategy, shape["budget"],
                    "%.3fx, %.3fx" % (max(ratios), statistics.median(ratios)) if ratios else "-",
                    sum(r <= 1.02 for r in ratios), len(runs),
                    " (%d picks not timed by the judge)" % unknown if unknown else "",
                    "%.3fx, %.3fx" % (max(own), statistics.median(own)) if own else "-",
                    max(walls), statistics.median(walls),
                    max(in_process), statistics.median(in_process)))
    failed = [(row["kernel"], shape["shape"], len(shape["exhaustive"]["failures"]))
              for row in results["kernels"] for shape in row["shapes"]
              if shape["exhaustive"]["failures"]]
    for kernel, shape, count in failed:
        print("\n%s %s: %d candidates failed in the exhaustive run (see search_table.log)" % (
            kernel, shape, count))


if __name__ == "__main__":
    main()
