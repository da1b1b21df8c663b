#!/usr/bin/env bash
# Tuning spread over two GPUs (docs/benchmarks.md, "Two GPUs"), in one call
# on a machine of two GPUs (nvidia-h100-x2 or nvidia-h200-x2). One wide
# space (matmul_f16_wgmma_wide, 1,040 configurations) on 3 shapes, every
# candidate timed and checked (--strategy exhaustive --no-prune --check):
#   warm-up               the two-gpus job once, not counted (below);
#   one-gpu-a, one-gpu-b  1 GPU (cuda:0), twice: the wall time, and how far
#                         two runs on one GPU differ (the noise of a pick);
#   two-gpus              1 process, both GPUs (--device cuda:0,cuda:1): each
#                         batch of the search split over the devices;
#   two-ranks             mpirun -np 2, one GPU each (--device cuda:local):
#                         each batch split over the ranks;
#   picks                 each job's pick per shape, timed side by side in one
#                         process (tuna-tune --time-picks, 3 rounds);
#   agree-ranks           mpirun -np 2 --agree: each rank tunes every shape
#                         on its own GPU, the ranks agree, one database.
# Every job runs with --timings: its log ends with the wall time of each
# phase, and its three top levels are printed with the job.
# On the CPU side first:
#   bash ../shared/tools/pack-compiler.sh build .device-carry tuna-compile
#   bash bench/gpu/fetch_openmpi.sh && tar cJf .device-carry/mpi.tar.xz .mpi
# then carry .device-carry and run `bash bench/gpu/two_gpus.sh`. Logs and
# databases go to $OUT/two_gpus (default bench/out/two_gpus).
#
# The same jobs on the CPU machine, host "devices" in place of GPUs (the code
# path, not a speed-up: the two share the CPU's cores):
#   TWO_GPUS_CPU=1 bash bench/gpu/two_gpus.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out}/two_gpus
work=${TWO_GPUS_WORK:-/tmp/tuna-two-gpus}
mkdir -p "$out" "$work"
export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off.

if [ "${TWO_GPUS_CPU:-0}" = 1 ]; then
  kernel=matmul_host_wide
  compile=(--target=host)
  shapes=("d0=64 d1=64 d2=64" "d0=128 d1=128 d2=128" "d0=32 d1=256 d2=128")
  dims=()
  check=()
  one=host two=host,host local=host
  compiler=$root/build/bin
  tools=$root/build/bin
else
  kernel=matmul_f16_wgmma_wide
  compile=(--target=nvptx:sm_90a --max-shared-memory=232448)
  # Two shapes every tile divides; one only the masked half of the space takes.
  shapes=("d0=4096 d1=4096 d2=4096" "d0=8192 d1=8192 d2=1024" "d0=3000 d1=3000 d2=3000")
  dims=(--dims a0=d0*d2 --dims a1=d2*d1 --dims a2=d0*d1)
  check=(--check)
  one=cuda:0 two=cuda:0,cuda:1 local=cuda:local
  [ -f "$root/.device-carry/compiler.tar.xz" ] ||
    { echo "no .device-carry/compiler.tar.xz: run pack-compiler.sh and carry it" >&2; exit 1; }
  mkdir -p /tmp/tuna-cc && tar xJf "$root/.device-carry/compiler.tar.xz" -C /tmp/tuna-cc
  [ -f "$root/.mpi/env.sh" ] || tar xJf "$root/.device-carry/mpi.tar.xz" -C "$root"
  export LD_LIBRARY_PATH=/tmp/tuna-cc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} PATH=/usr/local/cuda/bin:$PATH
  compiler=/tmp/tuna-cc/bin
  build=${TUNA_GPU_BUILD:-/tmp/tuna-two-gpus-build}
  tools=$build/bin
fi
[ -f "$root/.mpi/env.sh" ] && . "$root/.mpi/env.sh"
command -v mpirun >/dev/null || { echo "no mpirun: run fetch_openmpi.sh and carry it" >&2; exit 1; }
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); mpirun: $(mpirun --version 2>&1 | head -1)"
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader

if [ -n "${build:-}" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF \
    -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1
  grep -q "MPI not found" "$out/configure.log" && { echo "CMake found no MPI" >&2; exit 1; }
  cmake --build "$build" --target tuna-tune tuna-worker > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
fi

python3 "$root/kernels-mlir/wide_spaces.py" "$kernel" -o "$work/$kernel.mlir"
start=$(date +%s%N)
"$compiler/tuna-compile" "$work/$kernel.mlir" -o "$work/$kernel.tuna" -j "$(nproc)" \
  "${compile[@]}" > "$out/compile.log" 2>&1 || { tail -20 "$out/compile.log"; exit 1; }
echo "compiled: $(grep -o "[0-9]* variants" "$out/compile.log" | head -1) in" \
  "$(( ($(date +%s%N) - start) / 1000000 )) ms"

tune=("$tools/tuna-tune" "$work/$kernel.tuna" --kernel "$kernel" --no-cache "${dims[@]}")
for shape in "${shapes[@]}"; do tune+=(--shape "$shape"); done
search=(--strategy exhaustive --no-prune "${check[@]}")
status=0
declare -A wall
run_job() { # NAME RANKS DEVICE [tuna-tune arguments...]
  local name=$1 ranks=$2 device=$3
  shift 3
  local launcher=()
  # OpenMPI binds each of 2 ranks to one core by default: a rank, its
  # tuning worker and its input threads would share it.
  [ "$ranks" -gt 1 ] && launcher=(mpirun --bind-to none -np "$ranks")
  local start=$(date +%s%N)
  if ! "${launcher[@]}" "${tune[@]}" --device "$device" -o "$out/$name.json" \
      --shortlist 0 --timings "$@" > "$out/$name.log" 2>&1; then
    echo "$name: failed"; tail -20 "$out/$name.log"; status=1
  fi
  wall[$name]=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "$name: ${wall[$name]} ms"
  grep -E "^\[|^  timed:|^agreed|ranks differ|^exhaustive search|^  check:" "$out/$name.log" || true
  # --timings: the phases of the process, three levels deep.
  awk '/phase times/ { on = 1; print; next }
       on && /^  in the tuning workers/ { on = 0 }
       on && (/^  [^ ]/ || /^    [^ ]/ || /^      [^ ]/)' "$out/$name.log"
}
# Not counted: the machine's first tuning run pays one-time costs (the GPUs'
# first use after the compile, their clocks, the page cache) that would go
# to whichever job came first; this one takes them on both GPUs.
run_job warm-up 1 "$two" "${search[@]}"
run_job one-gpu-a 1 "$one" "${search[@]}"
run_job two-gpus 1 "$two" "${search[@]}"
run_job two-ranks 2 "$local" "${search[@]}"
run_job one-gpu-b 1 "$one" "${search[@]}"
run_job agree-ranks 2 "$local" --agree "${check[@]}"

echo "wall time against one GPU (the mean of one-gpu-a and one-gpu-b):"
python3 - "$out" "${wall[one-gpu-a]}" "${wall[one-gpu-b]}" "${wall[two-gpus]}" "${wall[two-ranks]}" <<'PY'
import re, sys
out = sys.argv[1]
a, b, two, ranks = (int(x) for x in sys.argv[2:])
def tuning(job):
    """The searches' own wall time: the sum of the job's "the tuning took"."""
    with open("%s/%s.log" % (out, job)) as log:
        return sum(float(ms) for ms in re.findall(r"the tuning took ([0-9.]+) ms", log.read()))
one = (a + b) / 2
print("  one GPU: %d and %d ms (they differ by %.1f%%)" % (a, b, 100 * abs(a - b) / one))
print("  two GPUs, one process: %d ms, %.3f of one GPU" % (two, two / one))
print("  two ranks, one GPU each: %d ms, %.3f of one GPU" % (ranks, ranks / one))
ta, tb = tuning("one-gpu-a"), tuning("one-gpu-b")
tone = (ta + tb) / 2
print("the searches alone (the sum of each job's \"the tuning took\"):")
print("  one GPU: %.0f and %.0f ms" % (ta, tb))
for job, name in (("two-gpus", "two GPUs, one process"), ("two-ranks", "two ranks (rank 0)")):
    t = tuning(job)
    print("  %s: %.0f ms, %.3f of one GPU" % (name, t, t / tone))
PY
dbs=$out/one-gpu-a.json,$out/one-gpu-b.json,$out/two-gpus.json,$out/two-ranks.json,$out/agree-ranks.json
echo "the picks timed side by side (one process on $one; ratios to one-gpu-a's pick):"
if ! "${tune[@]}" --device "$one" --time-picks "$dbs" > "$out/picks.log" 2>&1; then
  echo "--time-picks failed"; status=1
fi
sed "s#$out/##g" "$out/picks.log"
exit $status
