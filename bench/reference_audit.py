"""Full audit (hook suites + compliance) of the six reference servers, side by side with mcp-lighthouse.

Installs the servers and mcp-lighthouse once into .hookconf-cache/bench (npm prefix and a uv venv),
then alternates hookconf and lighthouse per server and prints grades, wall times and the ratio.

    python bench/reference_audit.py [--runs N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".hookconf-cache" / "bench"
NPM_PACKAGES = ["server-everything", "server-filesystem", "server-memory", "server-sequential-thinking"]
PYPI_PACKAGES = ["mcp-server-time", "mcp-server-git", "mcp-lighthouse"]


def install() -> tuple[Path, Path]:
    npm, venv = CACHE / "npm", CACHE / "venv"
    if not (npm / "node_modules" / "@modelcontextprotocol" / "server-memory").exists():
        subprocess.run(["npm", "install", "--silent", "--prefix", str(npm),
                        *[f"@modelcontextprotocol/{p}" for p in NPM_PACKAGES]], check=True)
    if not (venv / "bin" / "mcp-lighthouse").exists():
        uv = shutil.which("uv") or "uv"
        subprocess.run([uv, "venv", "-q", str(venv)], check=True)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), *PYPI_PACKAGES],
                       check=True)
    return npm, venv


def servers(npm: Path, venv: Path, workdir: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    modules = npm / "node_modules" / "@modelcontextprotocol"
    repo = workdir / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (workdir / "files").mkdir()
    (workdir / "files" / "note.txt").write_text("hello\n", encoding="utf-8")
    return {
        "server-everything": (["node", str(modules / "server-everything/dist/index.js"), "stdio"], {}),
        "server-filesystem": (["node", str(modules / "server-filesystem/dist/index.js"), str(workdir / "files")], {}),
        "server-memory": (["node", str(modules / "server-memory/dist/index.js")],
                          {"MEMORY_FILE_PATH": str(workdir / "memory.jsonl")}),
        "server-sequential-thinking": (["node", str(modules / "server-sequential-thinking/dist/index.js")], {}),
        "mcp-server-time": ([str(venv / "bin/mcp-server-time"), "--local-timezone", "UTC"], {}),
        "mcp-server-git": ([str(venv / "bin/mcp-server-git"), "--repository", str(repo)], {}),
    }


# As in targets/reference.toml: server-everything's defaults download from the internet (offline
# here) and run for 10 s per call; any user auditing it would give these two tools arguments.
PROBES: dict[str, list[dict[str, Any]]] = {
    "server-everything": [
        {"name": "gzip-file-as-resource", "args": {"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8K"}},
        {"name": "trigger-long-running-operation", "args": {"duration": 0.05, "steps": 1}},
    ],
}


def hookconf_audit(name: str, argv: list[str], env: dict[str, str], workdir: Path) -> tuple[float, dict[str, Any]]:
    config = workdir / f"{name}.json"
    config.write_text(json.dumps({"server": {"name": name, "command": argv[0], "args": argv[1:], "env": env},
                                  "timeoutMs": 10000, "probes": PROBES.get(name, [])}), encoding="utf-8")
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "hookconf", "check", str(config), "--output", "json"],
                               capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if not completed.stdout.strip():
        return elapsed, {"error": completed.stderr.strip()[-300:]}
    return elapsed, json.loads(completed.stdout)


def lighthouse_audit(venv: Path, argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    command = " ".join(argv)  # lighthouse splits it into an argument vector: the env goes through env=
    started = time.perf_counter()
    completed = subprocess.run([str(venv / "bin/mcp-lighthouse"), "scan", "--stdio", command],
                               capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin", **env})
    elapsed = time.perf_counter() - started
    score = next((line.strip() for line in completed.stdout.splitlines() if "Overall Score" in line), None)
    if score is None:  # its time says nothing then: the bench must not compare against a failed scan
        sys.exit(f"mcp-lighthouse failed on {command!r}:\n{completed.stderr.strip()[-500:]}")
    # It reads the next line as the answer, so a server's notification derails the rest of its scan:
    # those checks end early and its wall time is not comparable.
    derailed = completed.stdout.count("Response id mismatch")
    if derailed:
        score += f", {derailed} checks derailed by 'Response id mismatch': not comparable"
    return elapsed, score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the last hookconf reports here")
    args = parser.parse_args()
    npm, venv = install()
    reports = {}
    with tempfile.TemporaryDirectory(prefix="hookconf-bench-") as tmp:
        for name, (argv, env) in servers(npm, venv, Path(tmp)).items():
            ours, theirs, score = [], [], ""
            for _ in range(args.runs):
                elapsed, report = hookconf_audit(name, argv, env, Path(tmp))
                ours.append(elapsed)
                reports[name] = report
                elapsed, score = lighthouse_audit(venv, argv, env)
                theirs.append(elapsed)
            report = reports[name]
            fails = [r["id"] for r in report.get("results", [])
                     if r.get("suite") == "compliance" and r["status"] == "fail"]
            print(f"{name:<28} grade {report.get('grade', '?')} {report.get('complianceScore', '?')!s:>5}  "
                  f"hook {report.get('score', '?')!s:>5}  hookconf {statistics.median(ours):5.2f} s  "
                  f"lighthouse {statistics.median(theirs):5.2f} s ({score})  "
                  f"ratio {statistics.median(ours) / statistics.median(theirs):.2f}  fails: {', '.join(fails) or '-'}")
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
