"""Every finite float16/bfloat16 input, and results rounded once to those types and compared in ulps.

Shared by the 16-bit checks of issue #32 (gelu_tail_fit.py, gelu_tanh_check.py, sigmoid_check.py). Values travel
as float64 numpy arrays. Needs numpy.
"""
import numpy as np

TYPES = ("float16", "bfloat16")


def finite_inputs(name):
    """Every finite value of the 16-bit type, in bit-pattern order, as float64."""
    bits = np.arange(1 << 16, dtype=np.uint32)
    with np.errstate(invalid="ignore"):  # the NaN patterns
        if name == "float16":
            x = bits.astype(np.uint16).view(np.float16).astype(np.float64)
        else:
            x = (bits << 16).view(np.float32).astype(np.float64)
    return x[np.isfinite(x)]


def round_to(v, name):
    """v (any float array) rounded once, to nearest with ties to even, to the 16-bit type; as float64."""
    v = np.asarray(v, dtype=np.float64)
    if name == "float16":
        with np.errstate(over="ignore"):
            return v.astype(np.float16).astype(np.float64)
    out = v.copy()
    finite = np.isfinite(v) & (v != 0)
    _, exponent = np.frexp(v[finite])
    spacing = np.exp2(np.maximum(exponent - 8, -133).astype(np.float64))  # 8 significant bits; denormals 2^-133
    out[finite] = np.round(v[finite] / spacing) * spacing
    too_large = np.abs(out) > 3.3895313892515355e38  # past bfloat16's largest finite value
    out[too_large] = np.copysign(np.inf, v[too_large])
    return out


def ordered(v, name):
    """Values of the 16-bit type as monotone integers: the ulp distance of two is their difference."""
    v = np.asarray(v, dtype=np.float64)
    bits = (v.astype(np.float16).view(np.uint16).astype(np.int64) if name == "float16"
            else (v.astype(np.float32).view(np.uint32) >> 16).astype(np.int64))
    return np.where(bits & 0x8000, 0x8000 - (bits & 0x7FFF), 0x8000 + bits)


def ulp_distance(a, b, name):
    """|a - b| in ulps of the 16-bit type, for a and b already of that type."""
    return np.abs(ordered(a, name) - ordered(b, name))


def report(label, x, got, want, name):
    """Prints how many of the results `got` (of the 16-bit type, for inputs x) differ from `want`, where and by
    how many ulps at most; NaN equals NaN."""
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    differ = ~same
    line = f"{name:9} {label:40} {int(differ.sum()):6} of {x.size} differ"
    if differ.any():
        d = ulp_distance(got[differ], want[differ], name)
        where = x[differ]
        line += f"; x in [{where.min():.4g}, {where.max():.4g}], at most {d.max()} ulp"
        line += f", |exact| <= {np.abs(want[differ]).max():.3g}"
    print(line)


def on_device(x, dtype, rows=256):
    """(xt, rows, d): x (float64, numpy) as a flat CUDA tensor of `dtype`, zero-padded to rows x d, the
    layout the device checks give the probe's launchers (needs torch)."""
    import torch

    pad = (-x.size) % rows
    xt = torch.tensor(np.concatenate([x, np.zeros(pad)]), dtype=torch.float64).to(dtype).cuda()
    return xt, rows, xt.numel() // rows



def device_cases(lib_path):
    """For each 16-bit type, (name, x, xt, run, gated): x every finite input (float64); xt the same on the GPU
    as on_device lays it out (zero-padded to rows x d); run(op, inp) the probe library's launcher
    (roofline_probe.cu's probe_act, impl 0) of activation op `op` on inp (xt, or a gated input), the output's
    first x.size values as float64; gated(x_first) a gated op's rows x 2d input, xt's rows as one half (the
    first, a, or the second, b) and ones as the other (needs torch and a GPU)."""
    import torch

    from roofline_probe import DTYPES, checked, load

    lib = load(lib_path)
    stream = torch.cuda.current_stream().cuda_stream
    for name in TYPES:
        code, dtype = DTYPES[name]
        x = finite_inputs(name)
        xt, rows, d = on_device(x, dtype)

        def run(op, inp, code=code, dtype=dtype, rows=rows, d=d, n=x.size):
            out = torch.empty(rows, d, dtype=dtype, device="cuda")
            checked(lib.probe_act(0, op, code, out.data_ptr(), inp.data_ptr(), rows, d, stream))
            torch.cuda.synchronize()
            return out.double().cpu().numpy().reshape(-1)[:n]

        def gated(x_first, xt=xt, dtype=dtype, rows=rows, d=d):
            ones = torch.ones(rows, d, dtype=dtype, device="cuda")
            halves = (xt.view(rows, d), ones) if x_first else (ones, xt.view(rows, d))
            return torch.cat(halves, dim=1).contiguous()

        yield name, x, xt, run, gated
