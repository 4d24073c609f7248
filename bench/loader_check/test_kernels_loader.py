"""Run by bench/corpus.py through `kcheck run --tests` (inside kcheck's
sandbox, against each variant that ran): the `kernels` loader itself imports
the build. kcheck sets LOCAL_KERNELS to REPO_ID=VARIANT, the loader's own
override, so kernels.get_kernel(REPO_ID, version=...) resolves to the build
under test and never to the Hub (HF_HUB_OFFLINE=1); the version is the one
the variant's metadata.json declares."""
import json
import os
from pathlib import Path

import kernels


def test_the_kernels_loader_imports_the_build():
    repo_id, _, variant = os.environ["LOCAL_KERNELS"].partition("=")
    version = json.loads((Path(variant) / "metadata.json").read_text())["version"]
    module = kernels.get_kernel(repo_id, version=version)
    assert module is not None, f"kernels.get_kernel({repo_id!r}) returned nothing for {variant}"
