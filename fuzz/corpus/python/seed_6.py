from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas
