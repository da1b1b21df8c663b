#!/bin/sh
# A stand-in for ptxas: writes a stand-in "cubin" where -o says and prints the
# report of a kernel whose wgmma instructions ptxas serialized, as ptxas 13
# does with -v.
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; shift; fi
  shift
done
printf "not a cubin" > "$out"
echo "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline stage in the function 'stage__v0'"
echo "ptxas info    : 0 bytes gmem"
echo "ptxas info    : Compiling entry function 'stage__v0' for 'sm_90a'"
echo "ptxas info    : Function properties for stage__v0"
echo "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
echo "ptxas info    : Used 30 registers, used 1 barriers"
