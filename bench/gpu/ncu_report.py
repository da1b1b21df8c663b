#!/usr/bin/env python3
"""A few lines on one kernel from three CSV pages of one Nsight Compute
report (bench/gpu/profile_variant.sh and profile_pick.sh write them):
duration, clock and cycles, throughputs, the bytes the SMs received from
the L2, the DRAM bytes read and written (when the report has them), the
launch, the warps' stall reasons and the hottest SASS instructions.

    python3 bench/gpu/ncu_report.py DETAILS.csv RAW.csv SOURCE.csv

DETAILS: `ncu --import R --csv --print-units base --page details`; RAW:
`--page raw`; SOURCE: `--page source --print-source sass` (base units: ns,
hz, byte). Lines that are not CSV rows (ncu's
==PROF== notes, the profiled program's output) are skipped.
"""

import csv
import sys

STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_SUFFIX = "_per_issue_active.ratio"


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(line for line in f if line.startswith('"')))


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def details(path):
    """{metric name: (value, unit)} and the kernel's name."""
    rows = csv_rows(path)
    if not rows:
        sys.exit("ncu_report.py: no rows in %s" % path)
    head = rows[0]
    at = {name: head.index(name) for name in
          ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value")}
    metrics = {}
    for row in rows[1:]:
        metrics.setdefault(row[at["Metric Name"]],
                           (row[at["Metric Value"]], row[at["Metric Unit"]]))
    return rows[1][at["Kernel Name"]], metrics


def raw(path):
    """{metric: value} of the first kernel of a raw page (header, units,
    then one row a kernel)."""
    rows = csv_rows(path)
    if len(rows) < 3:
        sys.exit("ncu_report.py: no kernel row in %s" % path)
    return dict(zip(rows[0], rows[2]))


def hottest(path, count):
    """The `count` SASS lines with the most stall samples: (share,
    instruction, [(reason, samples)])."""
    rows = csv_rows(path)
    starts = [i for i, row in enumerate(rows) if row and row[0] == "Address"]
    if not starts:
        sys.exit("ncu_report.py: no SASS table in %s" % path)
    head = rows[starts[0]]
    body = [row for row in rows[starts[0] + 1:] if len(row) == len(head)]
    samples = head.index("Warp Stall Sampling (All Samples)")
    reasons = [i for i, name in enumerate(head)
               if name.startswith("stall_") and "Not Issued" not in name]
    total = sum(number(row[samples]) or 0 for row in body)
    if not total:
        return []
    top = sorted(body, key=lambda row: -(number(row[samples]) or 0))[:count]
    lines = []
    for row in top:
        why = sorted(((number(row[i]) or 0, head[i][len("stall_"):])
                      for i in reasons), reverse=True)
        lines.append((number(row[samples]) / total, " ".join(row[1].split()),
                      [(name, int(v)) for v, name in why[:3] if v > 0]))
    return lines


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip())
    name, m = details(sys.argv[1])
    counters = raw(sys.argv[2])

    def get(metric):
        return m.get(metric, ("-", ""))[0]

    unit = m.get("SM Frequency", ("", "hz"))[1]
    if unit != "hz":
        sys.exit("ncu_report.py: %s gives the SM frequency in %s; export it"
                 " with --print-units base" % (sys.argv[1], unit))
    hz = number(get("SM Frequency")) or 0
    print("KERNEL %s" % name)
    print("  duration %s ns at %.3f GHz: %s cycles elapsed, %s SM active"
          % (get("Duration"), hz / 1e9, get("Elapsed Cycles"),
             get("SM Active Cycles")))
    print("  throughput: compute (SM) %s%%, L1/TEX %s%%, L2 %s%%, DRAM %s%%"
          % (get("Compute (SM) Throughput"), get("L1/TEX Cache Throughput"),
             get("L2 Cache Throughput"), get("DRAM Throughput")))
    received = number(counters.get("l1tex__m_xbar2l1tex_read_bytes.sum", ""))
    sectors = counters.get("lts__t_sectors_srcunit_tex_op_read.sum", "-")
    print("  L2 to SMs: %s MB received, %s sectors read from the L2"
          % ("%.1f" % (received / 1e6) if received is not None else "-",
             sectors))
    dram = [number(counters.get("dram__bytes_%s.sum" % way, ""))
            for way in ("read", "write")]
    if None not in dram:
        print("  DRAM: %.1f MB read, %.1f MB written"
              % (dram[0] / 1e6, dram[1] / 1e6))
    print("  launch: grid %s, block %s, cluster %s, %s registers, %s B dynamic"
          " shared memory" % (get("Grid Size"), get("Block Size"),
                              get("Cluster Size"), get("Registers Per Thread"),
                              get("Dynamic Shared Memory Per Block")))
    stalls = sorted(((number(v) or 0, k[len(STALL_PREFIX):-len(STALL_SUFFIX)])
                     for k, v in counters.items()
                     if k.startswith(STALL_PREFIX) and k.endswith(STALL_SUFFIX)),
                    reverse=True)
    print("  warp cycles per issued instruction %s; stalls per issue: %s"
          % (get("Warp Cycles Per Issued Instruction"),
             ", ".join("%s %.2f" % (k, v) for v, k in stalls[:6] if v > 0)))
    print("  hottest instructions (share of the stall samples):")
    for share, text, why in hottest(sys.argv[3], 6):
        print("    %5.1f%%  %-58s %s" % (100 * share, text[:58],
                                        ", ".join("%s %d" % w for w in why)))


if __name__ == "__main__":
    main()
