"""Full audit (hook suites + compliance) of the six reference servers, side by side with mcp-lighthouse.

Runs the servers as targets/reference.toml configures them (args, env, setup, probes), from their
latest releases, which it installs with mcp-lighthouse once into .hookconf-cache/bench (an npm
prefix and a uv venv), then alternates hookconf and lighthouse per server and prints grades, wall times
and the ratio.

    python bench/reference_audit.py [--runs N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".hookconf-cache" / "bench"
NPM_PACKAGES = ["server-everything", "server-filesystem", "server-memory", "server-sequential-thinking"]
PYPI_PACKAGES = ["mcp-server-time", "mcp-server-git", "mcp-lighthouse"]


def install() -> tuple[Path, Path]:
    npm, venv = CACHE / "npm", CACHE / "venv"
    if not (npm / "node_modules" / "@modelcontextprotocol" / "server-memory").exists():
        subprocess.run(
            ["npm", "install", "--silent", "--prefix", str(npm), *[f"@modelcontextprotocol/{p}" for p in NPM_PACKAGES]],
            check=True,
        )
    install_venv(venv, PYPI_PACKAGES, "mcp-lighthouse")
    return npm, venv


def install_venv(venv: Path, packages: list[str], program: str) -> None:
    """A uv venv holding `packages`, unless `program` is installed there already; then everything
    byte-compiled, as pip leaves an install, so that no side (hookconf, lighthouse, the Python servers)
    compiles its sources at every start where __pycache__ is not written (PYTHONDONTWRITEBYTECODE);
    a no-op when already compiled."""
    if not (venv / "bin" / program).exists():
        uv = shutil.which("uv") or "uv"
        subprocess.run([uv, "venv", "-q", str(venv)], check=True)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), *packages], check=True)
    theirs = next((venv / "lib").glob("python3*/site-packages"))
    for tree in (ROOT / "hookconf", Path(sysconfig.get_paths()["purelib"]), theirs):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "-j", "0", str(tree)], check=False, capture_output=True
        )  # a package shipping a file that does not compile is not ours to fix


MANIFEST = ROOT / "targets" / "reference.toml"


@dataclass
class BenchServer:
    argv: list[str]
    env: dict[str, str]
    config: dict[str, Any]  # the manifest's check config for it: probes, tries, timeoutMs


def servers(npm: Path, venv: Path, workdir: Path) -> dict[str, BenchServer]:
    """The reference servers as targets/reference.toml runs them (args, env, setup, probes), each with its
    own working directory, launched from the bench's installs of their latest releases."""
    manifest = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    shared = manifest.get("fleet", {}).get("config", {})
    found = {}
    for entry in manifest["servers"]:
        own = workdir / entry["name"]
        own.mkdir()
        for command in entry.get("setup", []):
            subprocess.run(shlex.split(_with_workdir(command, own)), check=True, cwd=own)
        found[entry["name"]] = BenchServer(
            argv=[*_launcher(entry, npm, venv), *_with_workdir(entry.get("args", []), own)],
            env=_with_workdir(entry.get("env", {}), own),
            config={**shared, **_with_workdir(entry.get("config", {}), own)},
        )
    return found


def _launcher(entry: dict[str, Any], npm: Path, venv: Path) -> list[str]:
    if entry["source"] == "npm":  # lighthouse needs a command line it can split: no npx, no shell
        return ["node", str(npm / "node_modules" / entry["package"] / "dist" / "index.js")]
    return [str(venv / "bin" / entry["package"])]


def _with_workdir(value: Any, workdir: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{workdir}", str(workdir))
    if isinstance(value, list):
        return [_with_workdir(item, workdir) for item in value]
    if isinstance(value, dict):
        return {key: _with_workdir(item, workdir) for key, item in value.items()}
    return value


def hookconf_audit(name: str, server: BenchServer, workdir: Path) -> tuple[float, dict[str, Any]]:
    config = workdir / f"{name}.json"
    launch = {"name": name, "command": server.argv[0], "args": server.argv[1:], "env": server.env}
    config.write_text(json.dumps({"server": launch, **server.config}), encoding="utf-8")
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "hookconf", "check", str(config), "--output", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if not completed.stdout.strip():
        return elapsed, {"error": completed.stderr.strip()[-300:]}
    return elapsed, json.loads(completed.stdout)


def lighthouse_audit(venv: Path, argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    command = " ".join(argv)  # lighthouse splits it into an argument vector: the env goes through env=
    started = time.perf_counter()
    completed = subprocess.run(
        [str(venv / "bin/mcp-lighthouse"), "scan", "--stdio", command],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    elapsed = time.perf_counter() - started
    score = lighthouse_score(completed.stdout)
    if score is None:  # its time says nothing then: the bench must not compare against a failed scan
        sys.exit(f"mcp-lighthouse failed on {command!r}:\n{completed.stderr.strip()[-500:]}")
    return elapsed, score


def lighthouse_score(stdout: str) -> str | None:
    """The "Overall Score" line of a scan, with a note when the scan derailed; None when it failed."""
    score = next((line.strip() for line in stdout.splitlines() if "Overall Score" in line), None)
    if score is None:
        return None
    # It reads the next line as the answer, so a server's notification derails the rest of its scan:
    # those checks end early and its wall time is not comparable.
    derailed = stdout.count("Response id mismatch")
    if derailed:
        score += f", {derailed} checks derailed by 'Response id mismatch': not comparable"
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the last hookconf reports here")
    args = parser.parse_args()
    npm, venv = install()
    reports = {}
    with tempfile.TemporaryDirectory(prefix="hookconf-bench-") as tmp:
        for name, server in servers(npm, venv, Path(tmp)).items():
            ours, theirs, score = [], [], ""
            for _ in range(args.runs):
                elapsed, report = hookconf_audit(name, server, Path(tmp))
                ours.append(elapsed)
                reports[name] = report
                elapsed, score = lighthouse_audit(venv, server.argv, server.env)
                theirs.append(elapsed)
            report = reports[name]
            fails = [
                r["id"] for r in report.get("results", []) if r.get("suite") == "compliance" and r["status"] == "fail"
            ]
            print(
                f"{name:<28} grade {report.get('grade', '?')} {report.get('complianceScore', '?')!s:>5}  "
                f"hook {report.get('score', '?')!s:>5}  hookconf {statistics.median(ours):5.2f} s  "
                f"lighthouse {statistics.median(theirs):5.2f} s ({score})  "
                f"ratio {statistics.median(ours) / statistics.median(theirs):.2f}  fails: {', '.join(fails) or '-'}"
            )
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
