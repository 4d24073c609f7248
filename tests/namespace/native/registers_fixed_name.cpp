// A native module that registers its ops under a fixed name instead of its id (KO001).
#include <torch/library.h>

extern "C" __attribute__((visibility("default"))) void* PyInit__relu_cpu_0a1b2c3() { return nullptr; }

TORCH_LIBRARY(relu_ops, m) { m.def("relu(Tensor! out, Tensor input) -> ()"); }
TORCH_LIBRARY_FRAGMENT(_relu_cpu_0a1b2c3, m) { m.def("gelu(Tensor! out, Tensor input) -> ()"); }
