// gpu_compat_in_sync.py fixture (tests/CMakeLists.txt): relu and activation agree, rms_norm differs on line 3.
// The current device's peak memory bandwidth
drifted line
