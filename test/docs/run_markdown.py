#!/usr/bin/env python3
"""Runs the commands of a tutorial written in Markdown, so that it cannot drift.

    run_markdown.py TUTORIAL.md --root CHECKOUT --work DIR [--env NAME=VALUE]...

Fenced blocks are read in order:
  - a block whose info string has `file=PATH` shows a file of the checkout:
    its text must equal CHECKOUT/PATH, byte for byte;
  - a block whose info string is exactly `sh` is run: all of them, in order,
    as one bash script (`set -euxo pipefail`) in DIR, with TUNA=CHECKOUT;
  - any other block (`sh gpu`, `text`, ...) is only shown.
Exits 1, saying which block, when a file differs or a command fails, and when
the page has no file or no command at all (a broken page must not pass).
"""
import argparse
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^(`{3,})(.*)$")


def blocks(text):
    """(line number, info string, body) of every fenced block."""
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i].rstrip("\n"))
        if not match:
            i += 1
            continue
        fence, info, start = match.group(1), match.group(2).strip(), i + 1
        i += 1
        while i < len(lines) and lines[i].rstrip("\n") != fence:
            i += 1
        if i == len(lines):
            sys.exit(f"line {start}: unterminated ``` block")
        yield start, info, "".join(lines[start:i])
        i += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("markdown", type=pathlib.Path)
    parser.add_argument("--root", type=pathlib.Path, required=True)
    parser.add_argument("--work", type=pathlib.Path, required=True)
    parser.add_argument("--env", action="append", default=[])
    args = parser.parse_args()

    name = args.markdown.name
    files, script = 0, []
    for line, info, body in blocks(args.markdown.read_text()):
        path = next((w[5:] for w in info.split() if w.startswith("file=")), None)
        if path:
            files += 1
            shown = (args.root / path).read_text()
            if body != shown:
                diff = "".join(difflib.unified_diff(
                    shown.splitlines(True), body.splitlines(True), path,
                    f"{name}:{line}"))
                sys.exit(f"{name}:{line}: the block differs from {path}:\n{diff}")
        elif info == "sh":
            script.append(f"# {name}:{line}\n{body}")
    if files == 0 or not script:
        sys.exit(f"{name}: expected ```<lang> file=PATH blocks and ```sh "
                 f"blocks, found {files} and {len(script)}")

    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    env = dict(os.environ, TUNA=str(args.root.resolve()))
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    result = subprocess.run(
        ["bash", "-c", "set -euxo pipefail\n" + "\n".join(script)],
        cwd=args.work, env=env)
    if result.returncode != 0:
        sys.exit(f"{name}: a command failed (exit status {result.returncode}); "
                 f"the trace above names its block")
    print(f"{name}: {files} files match, {len(script)} command blocks ran")


if __name__ == "__main__":
    main()
