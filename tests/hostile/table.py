"""Print what kubesim answers for every hostile input of issue 11 (class, case, exit, seconds, message).

Run from the repository root with kubesim installed: `python tests/hostile/table.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cases import CASES, write  # noqa: E402


def answer(args: list[str], cwd: str) -> tuple[str, float, str]:
    """Run `kubesim ARGS`: (exit code, seconds, the first error line or the result's phase)."""
    start = time.monotonic()
    try:
        proc = subprocess.run(["kubesim", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
        code, err = str(proc.returncode), proc.stderr
    except subprocess.TimeoutExpired:
        code, err = "timeout", ""
    took = time.monotonic() - start
    message = next((line for line in err.splitlines() if line.startswith(("error", "Error"))), "")
    result = Path(cwd) / "r.json"
    if not message and args[0] == "run" and result.exists():
        status = json.loads(result.read_text())["status"]
        message = f"phase {status['phase']}: {status.get('message') or ''}"
    if "Traceback" in err:
        message = "TRACEBACK " + err.strip().splitlines()[-1]
    return code, took, message


def main() -> None:
    """Run each case in a fresh directory and print one Markdown table row per command.

    A case that `validate` accepts is also run (`run ... -o r.json`)."""
    print("| class | case | command | exit | seconds | message |\n|---|---|---|---|---|---|")
    for name, case in CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            write(case, Path(tmp))
            commands = [list(case.args)]
            for args in commands:
                code, took, message = answer(args, tmp)
                print(f"| {case.klass} | {name} | {args[0]} | {code} | {took:.1f} | "
                      f"{message[:300].replace('|', '/')} |", flush=True)
                if args[0] == "validate" and code == "0":
                    commands.append(["run", *args[1:], "-q", "-o", "r.json"])


if __name__ == "__main__":
    main()
