#!/bin/sh
# A stand-in for ptxas that rejects PTX as ptxas rejects an instruction the
# chip lacks: the error names the input file and the entry function. Every
# PTX is rejected, or, when REJECT_PTX_WITH is set, those that contain it.
for arg; do ptx="$arg"; done
if [ -n "$REJECT_PTX_WITH" ] && ! grep -q "$REJECT_PTX_WITH" "$ptx"; then
  while [ $# -gt 0 ]; do
    if [ "$1" = "-o" ]; then printf "not a cubin" > "$2"; fi
    shift
  done
  echo "ptxas info    : Used 8 registers"
  exit 0
fi
entry=$(sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\)(.*/\1/p' "$ptx" | head -n 1)
echo "ptxas $ptx, line 12; error   : Instruction 'wgmma.fence' not supported on .target 'sm_80' (function '$entry')"
echo "ptxas fatal   : Ptx assembly aborted due to errors"
exit 255
