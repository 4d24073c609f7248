"""What the bench/paired_*.py scripts share: the figure format, the machine line, a wall-time run."""
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time


def spread(values, digits, unit=""):
    """"1.40x [1.39-1.40]": the median, then the minimum and maximum, of the runs."""
    return f"{statistics.median(values):.{digits}f}{unit} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def machine_line():
    """The machine, its kernel, the date and the load, as every published figure names them."""
    cpu_model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                     platform.processor())
    return (f"machine: {os.cpu_count()} vCPU {cpu_model}, {platform.system()} {platform.release()}; "
            f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
            f"load average {os.getloadavg()[0]:.1f}")


def wall(command):
    """Wall seconds of one run (perf_counter: finer than /usr/bin/time's 10 ms); exit 0 or 1 (findings) only."""
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {result.returncode}")
    return elapsed
