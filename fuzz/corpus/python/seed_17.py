import typing
import os.path
import torch.nn.functional as F
import einops
