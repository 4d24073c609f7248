import subprocess

DRIVER = subprocess.run(["nvidia-smi"], capture_output=True).stdout
