#!/usr/bin/env python3
"""Where a tuna-tune process's wall time goes outside its own phases.

    python3 bench/gpu/process_cost.py [--runs N] tuna-tune BUNDLE ... --timings

Runs the command (which must pass --timings) N times and prints, per run,
the process's wall time, its `run` phase, and the time from printing its
phases (the last thing tuna-tune does) to the process's end: the exit.
"""

import argparse
import re
import subprocess
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if "--timings" not in args.command:
        parser.error("the command needs --timings")
    for _ in range(args.runs):
        start = time.monotonic()
        process = subprocess.Popen(args.command, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        printed, run_ms = None, None
        for line in process.stderr:
            if printed is None and "phase times" in line:
                printed = time.monotonic()
            found = re.match(r"\s+run\s+([\d.]+) ms", line)
            if found and run_ms is None:
                run_ms = float(found.group(1))
        status = process.wait()
        end = time.monotonic()
        if status != 0 or printed is None or run_ms is None:
            raise SystemExit("process_cost.py: the command failed or printed no "
                             "phases (exit %d)" % status)
        print("wall %.0f ms, run phase %.0f ms, exit %.0f ms after the phases" %
              ((end - start) * 1e3, run_ms, (end - printed) * 1e3))


if __name__ == "__main__":
    main()
