#!/usr/bin/env python3
"""Median with min-max, over several `kcheck bench` reports, of each result.

    speedup_summary.py [--decimals [--every-size] [--every-mode] [--processes]] REPORT.json [REPORT.json ...]

Groups the benchmark results of the reports by op, dtype and shape (one
report per run), and prints per group the number of runs and, as median
[min-max] over the runs, the kernel's median, its share of the device's
measured copy bandwidth (`percent_of_peak`), the eager Torch baseline's
median and the speed-up over it, the fastest timed torch.compile mode's
median and the speed-up over it (over the runs that timed one, counted),
and the speed-up over the faster of the two in each run (x best Torch; the
eager one where no mode was timed). Prints nothing it did not read.
--decimals then prints, for the largest input of each op and dtype, x best
Torch to three decimals and which Torch was the faster in each run, over
the runs that timed a torch.compile mode (a run whose compiling ran out of
time has no best Torch to compare with; the runs left out are counted);
with --every-size, for every input of each op and dtype, largest first;
and, where the reports have it (schema 1.7), x the fastest compiled mode on
the same buffers: that mode's median over the op's timed beside it by the
same helper (`paired_median_us`), over the runs that timed the pairing,
and the op's own median as the worker timed it and as timed beside that
compiled mode (the same kernel in two processes, on two placements of its
buffers: what the two measures differ by besides the Torch side), both over
the runs that timed the pairing (counted if not all);
x best Torch, each beside the op: per run, the faster Torch with each
timed in the same process as the op, the eager form in the worker (on the
op's inputs; its result where Torch's allocator puts it) and the fastest
compiled mode in the helper (the op writing into that mode's output block);
then, for each of the three measures, how many rows have a median >= 1
before rounding, and the rows under it to five decimals. --every-mode then
prints, for the largest input of each op and dtype, every timed compiled
mode: its median, the op's median timed beside it into its output block,
and the ratio, over the runs that timed that pairing: the same kernel on the
same input in one process, into the output blocks of the modes.
--processes then prints, for the largest input of each op and dtype, how
much each side's timing moves between kcheck's worker and the torch.compile
helper's process: the op's median in the worker over its median beside the
fastest compiled mode, and the eager form's median in the worker (from C++)
over its median from Python in the helper (`eager_python_median_us`), each
over the runs that have both: x best Torch compares the op in the worker
with the compiled form in the helper, so the first ratio is in it.
"""
import json
import statistics
import sys
from collections import defaultdict


def spread(values, digits):
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main(paths):
    groups = defaultdict(list)
    devices = set()
    for path in paths:
        with open(path) as file:
            dynamic = json.load(file)["dynamic"]
        devices.update(d["name"] for d in dynamic["devices"])
        for result in dynamic["benchmarks"]:
            groups[(result["op"].split("::")[-1], result["dtype"], result["shape"])].append(result)
    print(f"Device: {', '.join(sorted(devices))}; {len(paths)} reports.\n")
    print("| op | dtype | input | runs | kernel µs | % of copy BW | Torch eager | eager µs | × eager "
          "| compiled µs (fastest mode) | × compiled | × best Torch |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for (op, dtype, shape), results in sorted(groups.items()):
        eager = results[0].get("eager") or "-"
        # The fastest timed torch.compile mode of each run; a run without one does not count.
        compiled = [(fastest["median_us"], r["compile_speedup"]) for r in results if (fastest := fastest_mode(r))]
        modes = sorted({fastest["mode"] for r in results if (fastest := fastest_mode(r))})
        compiled_cells = (f"{spread([c[0] for c in compiled], 1)} ({', '.join(modes)}; {len(compiled)} runs) "
                          f"| {spread([c[1] for c in compiled], 2)}x") if compiled else "- | -"
        # Per run: against the faster of eager and the fastest timed compiled mode.
        best = [min([r["speedup"]] + ([r["compile_speedup"]] if fastest_mode(r) else [])) for r in results]
        print(f"| {op} | {dtype} | {shape} | {len(results)} | {spread([r['median_us'] for r in results], 1)} "
              f"| {spread([r.get('percent_of_peak', 0) for r in results], 1)} "
              f"| `{eager}` | {spread([r.get('eager_median_us', 0) for r in results], 1)} "
              f"| {spread([r['speedup'] for r in results], 2)}x | {compiled_cells} | {spread(best, 2)}x |")


def fastest_mode(result):
    """The run's fastest timed torch.compile mode, or None."""
    timed = [m for m in result.get("compiled", []) if m["median_us"] > 0]
    return min(timed, key=lambda m: m["median_us"]) if timed else None


def best_torch(result):
    """x the faster Torch of one run, and which one it was."""
    fastest = fastest_mode(result)
    if fastest and result["compile_speedup"] < result["speedup"]:
        return result["compile_speedup"], fastest["mode"]
    return result["speedup"], "eager"


def by_op_and_dtype(paths):
    """The benchmark results of the reports, grouped by (op without its namespace, dtype)."""
    groups = defaultdict(list)
    for path in paths:
        with open(path) as file:
            for result in json.load(file)["dynamic"]["benchmarks"]:
                groups[(result["op"].split("::")[-1], result["dtype"])].append(result)
    return groups


def largest_input(results):
    """The largest input shape among results, and the results of that shape."""
    shape = max({r["shape"] for r in results}, key=elements)
    return shape, [r for r in results if r["shape"] == shape]


def decimals(paths, every_size=False):
    groups = by_op_and_dtype(paths)
    print("\n| op | dtype | input | runs | × best Torch | faster Torch (runs) | % of copy "
          "| × compiled, same buffers (runs) | × best Torch, each beside the op (runs) "
          "| ours µs: worker / beside compiled |")
    print("|---|---|---|---:|---:|---|---:|---:|---:|---:|")
    tallies = []
    for (op, dtype), results in sorted(groups.items()):
        shapes = sorted({r["shape"] for r in results}, key=elements, reverse=True)
        for shape in shapes if every_size else shapes[:1]:
            tally = decimals_row(op, dtype, shape, [r for r in results if r["shape"] == shape])
            if tally:
                tallies.append(tally)
    print_tally(tallies)


def print_tally(tallies):
    """How many rows' medians are at >= 1 unrounded, by each measure, and the rows under with five decimals."""
    print()
    for index, measure in ((1, "x best Torch"), (2, "x compiled, same buffers"), (3, "x best Torch, each beside the op")):
        rows = [t for t in tallies if t[index] is not None]
        if not rows:
            continue  # no report had this measure: nothing to count
        under = [t for t in rows if t[index] < 1.0]
        missing = len(tallies) - len(rows)
        print(f"{measure}: {len(rows) - len(under)} of {len(rows)} rows have a median >= 1 (unrounded)"
              + (f" ({missing} rows without it left out)" if missing else "")
              + (": under, " + "; ".join(f"{t[0]} {t[index]:.5f}" for t in under) if under else ""))


def same_buffers(result):
    """The fastest timed compiled mode's median over the op's timed beside it, or None."""
    fastest = fastest_mode(result)
    return fastest["median_us"] / fastest["paired_median_us"] if fastest and fastest.get("paired_median_us", 0) > 0 \
        else None


def decimals_row(op, dtype, shape, shape_runs):
    """x best Torch to three decimals over the runs of one op, dtype and input that timed a compiled mode."""
    runs = [r for r in shape_runs if fastest_mode(r)]
    if not runs:
        print(f"| {op} | {dtype} | {shape} | 0 of {len(shape_runs)} | - | no torch.compile mode timed | - | - | - | - |")
        return None
    picks = [best_torch(r) for r in runs]
    faster = defaultdict(int)
    for _, which in picks:
        faster[which] += 1
    counted = f"{len(runs)}" if len(runs) == len(shape_runs) else f"{len(runs)} of {len(shape_runs)}"
    paired = [ratio for r in runs if (ratio := same_buffers(r)) is not None]
    paired_cell = f"{spread(paired, 3)} ({len(paired)})" if paired else "-"
    # The faster Torch with each timed in the op's process: eager in the worker, the fastest mode in the helper.
    beside_best = [min(r["speedup"], ratio) for r in runs if (ratio := same_buffers(r)) is not None]
    beside_best_cell = f"{spread(beside_best, 3)} ({len(beside_best)})" if beside_best else "-"
    # Both halves over the runs that timed the pairing, so that they compare the same runs.
    pairs = [(r["median_us"], fastest_mode(r)["paired_median_us"]) for r in runs if same_buffers(r) is not None]
    ours_cell = (f"{spread([p[0] for p in pairs], 1)} / {spread([p[1] for p in pairs], 1)}"
                 + ("" if len(pairs) == len(runs) else f" ({len(pairs)})") if pairs else "-")
    print(f"| {op} | {dtype} | {shape} | {counted} | {spread([p[0] for p in picks], 3)} "
          f"| {', '.join(f'{k} ({v})' for k, v in sorted(faster.items()))} "
          f"| {spread([r.get('percent_of_peak', 0) for r in runs], 1)} | {paired_cell} | {beside_best_cell} "
          f"| {ours_cell} |")
    return (f"{op} {dtype} {shape}", statistics.median(p[0] for p in picks),
            statistics.median(paired) if paired else None,
            statistics.median(beside_best) if beside_best else None)


def every_mode(paths):
    """Per compiled mode, for the largest input of each op and dtype: the mode's
    median, the op's beside it and their ratio, over the runs that paired them
    ("k of N" where not every run that timed the mode did; "-" where none did)."""
    groups = by_op_and_dtype(paths)
    print("\n| op | dtype | input | mode | runs | compiled µs | ours beside it µs | × compiled, same buffers |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for (op, dtype), results in sorted(groups.items()):
        shape, runs = largest_input(results)
        timed, paired = defaultdict(int), defaultdict(list)
        for r in runs:
            for mode in r.get("compiled", []):
                if mode["median_us"] > 0:
                    timed[mode["mode"]] += 1
                    if mode.get("paired_median_us", 0) > 0:
                        paired[mode["mode"]].append((mode["median_us"], mode["paired_median_us"]))
        if not timed:
            print(f"| {op} | {dtype} | {shape} | - | 0 | no torch.compile mode timed | - | - |")
        for mode in sorted(timed):
            pairs = paired[mode]
            runs = f"{len(pairs)}" if len(pairs) == timed[mode] else f"{len(pairs)} of {timed[mode]}"
            if not pairs:
                print(f"| {op} | {dtype} | {shape} | {mode} | {runs} | - | - | - |")
                continue
            print(f"| {op} | {dtype} | {shape} | {mode} | {runs} | {spread([t[0] for t in pairs], 1)} "
                  f"| {spread([t[1] for t in pairs], 1)} | {spread([t[0] / t[1] for t in pairs], 3)} |")


def processes(paths):
    """Per op and dtype (largest input): worker over helper, for the op and for the eager form."""
    groups = by_op_and_dtype(paths)
    print("\n| op | dtype | input | ours: worker / beside the fastest mode (runs) | eager: worker / Python (runs) |")
    print("|---|---|---|---:|---:|")
    for (op, dtype), results in sorted(groups.items()):
        shape, runs = largest_input(results)
        ours = [r["median_us"] / fastest_mode(r)["paired_median_us"] for r in runs if same_buffers(r) is not None]
        eager = [r["eager_median_us"] / r["eager_python_median_us"] for r in runs
                 if r.get("eager_median_us", 0) > 0 and r.get("eager_python_median_us", 0) > 0]
        cell = lambda ratios: f"{spread(ratios, 4)} ({len(ratios)})" if ratios else "-"
        print(f"| {op} | {dtype} | {shape} | {cell(ours)} | {cell(eager)} |")


def elements(shape):
    """The number of elements of a shape written as "16384x8192"."""
    size = 1
    for part in shape.split("x"):
        size *= int(part)
    return size


if __name__ == "__main__":
    args = sys.argv[1:]
    with_decimals = "--decimals" in args
    every_size = "--every-size" in args
    with_modes = "--every-mode" in args
    with_processes = "--processes" in args
    args = [a for a in args if a not in ("--decimals", "--every-size", "--every-mode", "--processes")]
    if not args or ((every_size or with_modes or with_processes) and not with_decimals):
        print(__doc__)
        sys.exit(2)
    main(args)
    if with_decimals:
        decimals(args, every_size)
    if with_modes:
        every_mode(args)
    if with_processes:
        processes(args)
