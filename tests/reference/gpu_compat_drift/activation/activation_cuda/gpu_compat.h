// gpu_compat_in_sync.py fixture (tests/CMakeLists.txt): relu and activation agree, rms_norm differs on line 3.
// 2^x to about 2 ulp: activation's own helpers, left out of the comparison
// The current device's peak memory bandwidth
shared line
