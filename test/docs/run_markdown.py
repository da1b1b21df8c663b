#!/usr/bin/env python3
"""Runs the commands of a tutorial written in Markdown, so that it cannot drift.

    run_markdown.py TUTORIAL.md --root CHECKOUT --work DIR [--env NAME=VALUE]...

Fenced blocks are read in order:
  - a block whose info string has `file=PATH` shows a file of the checkout:
    its text must equal CHECKOUT/PATH, byte for byte;
  - a block whose info string is exactly `sh` is run: all of them, in order,
    as one bash script (`set -euxo pipefail`) in DIR, with TUNA=CHECKOUT;
  - a block whose info string is `text output` shows what the `sh` block
    before it printed (stdout and stderr): each of its lines must match a
    line of that output, in order (other lines may come between), once
    numbers and absolute paths are read as any number and any path and runs
    of spaces as one, and `...` as any text (what a page leaves out, or
    what varies from run to run, e.g. whether the default variant won);
  - any other block (`sh gpu`, `text`, ...) is only shown.
Exits 1, saying which block, when a file differs, a command fails or an
output does not match, and when the page has no file or no command at all
(a broken page must not pass).
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
MARK = "@@run_markdown block@@"
NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
PATH = re.compile(r"(?<![\w.])/[\w.+-]+(/[\w.+-]*)*")


def normalized(line):
    """`line` with absolute paths, numbers and runs of spaces made uniform."""
    line = PATH.sub("<path>", line.rstrip())
    line = NUMBER.sub("<n>", line)
    return re.sub(r"\s+", " ", line).strip()


def check_output(name, line, shown, printed):
    """Exits unless every line of `shown` matches a line of `printed`, in
    order (see the module's doc)."""
    lines = [normalized(l) for l in printed.splitlines()]
    at = 0
    for want in shown.splitlines():
        if not want.strip():
            continue
        pattern = re.compile(".*".join(
            re.escape(part) for part in normalized(want).split("...")))
        while at < len(lines) and not pattern.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            sys.exit(f"{name}:{line}: the output shown has the line\n  {want}\n"
                     f"which is not (in this order) in what the command "
                     f"printed:\n{printed}")
        at += 1


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
    files, script, outputs = 0, [], []
    for line, info, body in blocks(args.markdown.read_text()):
        if info == "text output":
            if not script:
                sys.exit(f"{name}:{line}: an output block before any ```sh "
                         f"block")
            outputs.append((line, len(script) - 1, body))
            continue
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
            script.append(f"# {name}:{line}\necho '{MARK} {len(script)}'\n"
                          f"{body}")
    if files == 0 or not script:
        sys.exit(f"{name}: expected ```<lang> file=PATH blocks and ```sh "
                 f"blocks, found {files} and {len(script)}")

    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    env = dict(os.environ, TUNA=str(args.root.resolve()))
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    # The commands' output is kept (per block) and echoed; the trace goes to
    # this process's stderr (BASH_XTRACEFD), apart from it.
    trace = os.dup(2)
    result = subprocess.run(
        ["bash", "-c", f"BASH_XTRACEFD={trace}; set -euxo pipefail\n" +
         "\n".join(script)],
        cwd=args.work, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, pass_fds=(trace,))
    os.close(trace)
    sys.stdout.write("".join(l for l in result.stdout.splitlines(True)
                             if not l.startswith(MARK)))
    sys.stdout.flush()
    if result.returncode != 0:
        sys.exit(f"{name}: a command failed (exit status {result.returncode}); "
                 f"the trace above names its block")
    printed = {}
    for part in result.stdout.split(MARK + " ")[1:]:
        number, _, text = part.partition("\n")
        printed[int(number)] = text
    for line, block, shown in outputs:
        check_output(name, line, shown, printed.get(block, ""))
    print(f"{name}: {files} files match, {len(script)} command blocks ran, "
          f"{len(outputs)} outputs match")


if __name__ == "__main__":
    main()
