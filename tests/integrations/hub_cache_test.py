#!/usr/bin/env python3
"""`kcheck check ORG/NAME[@REVISION]` audits the snapshot in the local Hugging Face cache.

    hub_cache_test.py KCHECK FIXTURE_TREE

Builds a cache in the layout the `kernels` loader and `hf download
--repo-type kernel` write (kernels--ORG--NAME with blobs/, snapshots/<commit>/
of links into blobs/, refs/main and refs/v1) from a fixture kernel, checks
that huggingface_hub's own cache functions (scan_cache_dir,
try_to_load_from_cache) read it as that kernel repository, then that kcheck
audits it by id (branch, tag-like branch and commit) with the findings of the
fixture itself, `kcheck scan` too, and that a repository or revision the
cache lacks is refused (exit 2) with the `hf download` command that fetches it.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from huggingface_hub import scan_cache_dir, try_to_load_from_cache


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def build_cache(cache: Path, repo_id: str, tree: Path, commit: str):
    repository = cache / ("kernels--" + repo_id.replace("/", "--"))
    (repository / "blobs").mkdir(parents=True)
    snapshot = repository / "snapshots" / commit
    for file in sorted(p for p in tree.rglob("*") if p.is_file()):
        data = file.read_bytes()
        blob = repository / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = snapshot / file.relative_to(tree)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    (repository / "refs").mkdir()
    for branch in ("main", "v1"):
        (repository / "refs" / branch).write_text(commit)
    return snapshot


def kcheck_json(kcheck, arguments, environment):
    done = subprocess.run([kcheck, "check", *arguments, "--format", "json"], capture_output=True, text=True,
                          env=environment)
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else None), done.stderr


def main(kcheck, fixture):
    fixture = Path(fixture)
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        cache = work / "hub"
        repo_id = "test-org/relu"
        commit = "0123456789abcdef0123456789abcdef01234567"
        build_cache(cache, repo_id, fixture, commit)
        # huggingface_hub reads the same cache as that repository and revision.
        info = scan_cache_dir(cache)
        repos = {repo.repo_id: repo for repo in info.repos}
        if repo_id not in repos or repos[repo_id].repo_type != "kernel":
            fail(f"huggingface_hub sees {list(repos)}")
        revisions = {revision.commit_hash: revision for revision in repos[repo_id].revisions}
        if commit not in revisions or revisions[commit].refs != frozenset({"main", "v1"}):
            fail(f"huggingface_hub revisions {revisions}")
        variant = next(p.name for p in (fixture / "build").iterdir())
        found = try_to_load_from_cache(repo_id, f"build/{variant}/metadata.json", cache_dir=cache, revision="v1",
                                       repo_type="kernel")
        if not isinstance(found, str) or not Path(found).is_file():
            fail(f"try_to_load_from_cache: {found}")

        environment = dict(os.environ, HF_HUB_CACHE=str(cache), XDG_CACHE_HOME=str(work / "xdg"))
        status, direct, _ = kcheck_json(kcheck, [str(fixture), "--repo-id", repo_id], environment)
        expected = sorted((f["code"], f.get("file", "")) for f in direct["findings"])
        for reference in (repo_id, f"{repo_id}@v1", f"{repo_id}@{commit}"):
            got_status, report, stderr = kcheck_json(kcheck, [reference], environment)
            if report is None:
                fail(f"{reference}: no report, exit {got_status}: {stderr}")
            got = sorted((f["code"], f.get("file", "")) for f in report["findings"])
            if got_status != status or got != expected:
                fail(f"{reference}: exit {got_status}, {got}; the fixture itself: exit {status}, {expected}")
            if not report["input"].startswith(repo_id + "@"):
                fail(f"{reference}: input {report['input']}")
            # The cache holds what was downloaded (the kernels loader fetches
            # one variant): a missing required variant is a note there, naming
            # the download of the whole repository; an error in the tree itself.
            severities = {(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "KL006"}
            if severities != {("KL006", "note")} or not any(
                    f"hf download {repo_id} --repo-type kernel" in f["message"] for f in report["findings"]):
                fail(f"{reference}: KL006 from the cache {severities}")
        if ("KL006", "error") not in {(f["code"], f["severity"]) for f in direct["findings"]}:
            fail("the fixture itself: no KL006 error")
        done = subprocess.run([kcheck, "scan", "--no-cache", "--format", "json", repo_id], capture_output=True,
                              text=True, env=environment)
        scan = json.loads(done.stdout) if done.stdout.strip() else {}
        scanned = [(r["id"], r["revision"]) for r in scan.get("repositories", [])]
        if done.returncode != status or scanned != [(repo_id, commit)]:
            fail(f"kcheck scan {repo_id}: exit {done.returncode}, {scanned}, {done.stderr}")
        if list((work / "xdg" / "kcheck" / "hub").glob("run-*")):
            fail("copies of the snapshots were left behind")
        # A snapshot without build/ (a source repository uploaded as it is) is
        # audited as an upload: KL001, never a pass on its sources alone; the
        # scan refuses it rather than scanning nothing.
        source_commit = "89abcdef0123456789abcdef0123456789abcdef"
        source = work / "source-tree"
        (source / "torch-ext" / "relu").mkdir(parents=True)
        (source / "build.toml").write_text('[general]\nname = "relu"\n')
        (source / "torch-ext" / "relu" / "__init__.py").write_text("__all__ = []\n")
        build_cache(cache, "test-org/source", source, source_commit)
        got_status, report, stderr = kcheck_json(kcheck, ["test-org/source"], environment)
        codes = {f["code"] for f in (report or {}).get("findings", [])}
        if got_status != 1 or "KL001" not in codes:
            fail(f"a snapshot without build/: exit {got_status}, {codes}, {stderr}")
        done = subprocess.run([kcheck, "scan", "--no-cache", "test-org/source"], capture_output=True, text=True,
                              env=environment)
        if done.returncode != 2 or "holds no build/" not in done.stderr:
            fail(f"scan of a snapshot without build/: exit {done.returncode}, {done.stderr!r}")
        for reference, command in ((f"{repo_id}@v2", f"hf download {repo_id} --repo-type kernel --revision v2"),
                                   ("test-org/other", "hf download test-org/other --repo-type kernel")):
            done = subprocess.run([kcheck, "check", reference], capture_output=True, text=True, env=environment)
            if done.returncode != 2 or f"`{command}`" not in done.stderr or str(cache) not in done.stderr:
                fail(f"{reference}: exit {done.returncode}, {done.stderr!r}")
    print(f"ok: {repo_id} audited from the cache by branch, tag-like branch and commit ({len(expected)} findings)")


if __name__ == "__main__":
    main(*sys.argv[1:])
