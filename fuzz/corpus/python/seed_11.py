from __future__ import annotations

import re


def scale(x: int | None = None) -> float | None:
    match = re.match("a", "a")
    return None if match is None else 1.0
