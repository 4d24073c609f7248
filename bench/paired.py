"""What the bench/paired_*.py scripts share: the figure format and the machine line."""
import datetime
import os
import platform
import statistics


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
