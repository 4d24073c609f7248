#!/usr/bin/env python3
"""The KE rules on libcublasLt through the CLI against readelf, and the floor under them (issue #32).

    bench/paired_ke_floor.py [--build _build] [--before OLD_KCHECK] [--rounds 5] [--runs 20] [--library FILE]

Each round runs, one after the other and in an order that alternates between
rounds, `--runs` times each (the round's figure is their median):

  kcheck --select KE --format json FILE             this build, the pool's default threads (one per core)
  kcheck --select KE --threads 1 --format json FILE this build, one thread
  kcheck --select KE --format json FILE             OLD_KCHECK (one pass over each section), if given
  readelf -d -V --dyn-syms FILE                     what the KE rules read, printed by binutils
  kcheck --version                                  the process floor: start-up, no audit
  kcheck --select KE --ignore KE012,KE014 ...       the KE rules without the two long scans
  kcheck --select KE012 ..., --select KE014 ...     each long scan alone (where the time above the floor goes)
  bench/scan_floor FILE THREADS                     the scan floor: memchr over the sections KE012 scans,
                                                    and over what their compressed device code decompresses
                                                    to (libzstd, liblz4 called directly)

and prints per command the median [min-max] over the rounds, peak RSS and
minor page faults (/usr/bin/time, median [min-max] of five runs: a page of
the file mapped twice faults twice), and the paired ratios within each
round: kcheck / readelf, and kcheck / (its process floor + the scan floor on
as many threads).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fatbin_sections import compressed_entries, fatbin_section, zstd_window  # noqa: E402
from paired import machine_line, spread, wall  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wall_ms(command, runs):
    return statistics.median(1000 * wall(command) for _ in range(runs))


def peak_rss_mb_and_minor_faults(command):
    result = subprocess.run(["/usr/bin/time", "-v"] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) / 1024
    return rss, int(re.search(r"Minor \(reclaiming a frame\) page faults: (\d+)", result.stderr).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--before", help="an earlier kcheck executable")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--library", default="/usr/local/cuda/lib64/libcublasLt.so.13")
    arguments = parser.parse_args()
    kcheck = os.path.join(arguments.build, "kcheck")
    scan_floor = os.path.join(arguments.build, "bench", "scan_floor")
    library = arguments.library
    threads = os.cpu_count()
    ke = ["--select", "KE", "--format", "json", library]
    commands = {
        "kcheck KE": [kcheck] + ke,
        "kcheck KE, 1 thread": [kcheck, "--threads", "1"] + ke,
        "readelf -d -V --dyn-syms": ["readelf", "-d", "-V", "--dyn-syms", library],
        "kcheck --version": [kcheck, "--version"],
        "kcheck KE without KE012, KE014": [kcheck, "--select", "KE", "--ignore", "KE012,KE014", "--format", "json",
                                           library],
        "kcheck KE012 alone": [kcheck, "--select", "KE012", "--format", "json", library],
        "kcheck KE014 alone": [kcheck, "--select", "KE014", "--format", "json", library],
        f"scan floor, {threads} threads": [scan_floor, library, str(threads)],
        "scan floor, 1 thread": [scan_floor, library, "1"],
    }
    if arguments.before:
        commands["kcheck KE (before)"] = [arguments.before] + ke
        commands["kcheck KE, 1 thread (before)"] = [arguments.before, "--threads", "1"] + ke
    names = list(commands)
    samples = {name: [] for name in names}
    for round_index in range(arguments.rounds):
        for name in (names if round_index % 2 == 0 else list(reversed(names))):
            samples[name].append(wall_ms(commands[name], arguments.runs))
    memory = {name: [peak_rss_mb_and_minor_faults(command) for _ in range(5)] for name, command in commands.items()}
    print(f"{machine_line()}; {os.path.basename(library)} ({os.path.getsize(library) >> 20} MB); "
          f"{arguments.rounds} rounds of {arguments.runs} runs each\n")
    print("| command | wall ms | peak RSS MB | minor page faults |")
    print("| --- | ---: | ---: | ---: |")
    for name in names:
        rss, faults = [run[0] for run in memory[name]], [run[1] for run in memory[name]]
        print(f"| {name} | {spread(samples[name], 2)} | {spread(rss, 1)} | {spread(faults, 0)} |")

    def ratio(a, b):
        return spread([x / y for x, y in zip(samples[a], b)], 2, "x")

    floor = [v + s for v, s in zip(samples["kcheck --version"], samples[f"scan floor, {threads} threads"])]
    floor_one = [v + s for v, s in zip(samples["kcheck --version"], samples["scan floor, 1 thread"])]
    print("\npaired ratios (same round):")
    print(f"- kcheck KE / readelf: {ratio('kcheck KE', samples['readelf -d -V --dyn-syms'])}")
    print(f"- kcheck KE, 1 thread / readelf: {ratio('kcheck KE, 1 thread', samples['readelf -d -V --dyn-syms'])}")
    print(f"- floor ({threads} threads: kcheck --version + scan floor) / readelf: "
          f"{spread([f / r for f, r in zip(floor, samples['readelf -d -V --dyn-syms'])], 2, 'x')}")
    print(f"- kcheck KE / its floor ({threads} threads): {ratio('kcheck KE', floor)}")
    print(f"- kcheck KE, 1 thread / its floor (1 thread): {ratio('kcheck KE, 1 thread', floor_one)}")
    if arguments.before:
        print(f"- kcheck KE / before: {ratio('kcheck KE', samples['kcheck KE (before)'])}")
        print(f"- kcheck KE, 1 thread / before: "
              f"{ratio('kcheck KE, 1 thread', samples['kcheck KE, 1 thread (before)'])}")
    print_rss_floor(library, memory, threads)
    return 0


def print_rss_floor(library, memory, threads):
    """The peak RSS under which no complete search can go: the process running
    the KE rules without the two scans, plus the zstd windows held at once (a
    decoder keeps a frame's window, the history its matches refer to; the
    largest frames' windows of .nv_fatbin from bench/fatbin_sections.py;
    __nv_relfatbin, which KE012 decompresses too, is not read here). With
    several threads it is an estimate, not a bound: it supposes the largest
    frames are decompressed at once, which batches need not do."""
    try:
        fatbin = fatbin_section(library)
        windows = sorted((w for method, payload, _size in (compressed_entries(fatbin) if fatbin else [])
                          if method == "zstd" and (w := zstd_window(payload)) is not None), reverse=True)
    except (SystemExit, ValueError) as error:  # not an ELF64 file, or a fat binary fatbin_sections cannot walk
        print(f"\npeak RSS floor: not computed ({error})")
        return
    largest = windows[0] if windows else 0
    base = statistics.median(run[0] for run in memory["kcheck KE without KE012, KE014"])
    one = base + largest / 2**20
    several = base + sum(windows[:threads]) / 2**20
    print(f"\npeak RSS floor (MB, medians): the KE rules without the scans {base:.1f}; "
          f"largest zstd window {largest / 2**20:.1f} ({windows.count(largest)} frames that large)")
    for key, floor, held in (("kcheck KE, 1 thread", one, "one window"),
                             ("kcheck KE", several, f"an estimate: the {threads} largest windows at once")):
        rss = [run[0] for run in memory[key]]
        print(f"- {key}: {spread(rss, 1)} against a floor of {floor:.1f} ({held}): "
              f"{spread([r - floor for r in rss], 1)} above it")


if __name__ == "__main__":
    sys.exit(main())
