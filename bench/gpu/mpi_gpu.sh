#!/usr/bin/env bash
# Ranks of an MPI job on the one-GPU machine (docs/runtime-api.md, "Several
# ranks"; results in docs/benchmarks.md, "Ranks on the H100"): both ranks
# share the GPU. On the CPU side first
#   bash bench/gpu/fetch_openmpi.sh     # .mpi/: Debian's OpenMPI, unpacked
#   bash bench/make_bundles.sh          # bench/out/bundles
# then carry .mpi and bench/out and run
#   bash bench/gpu/mpi_gpu.sh
# It builds the runtime with tuna_mpi against the carried OpenMPI, runs the
# MPI CTest tests (host kernels), then on the GPU:
#   1. `mpirun -np 2 tuna-tune --agree`: every rank tunes every shape of
#      softmax and layernorm; rank 0 compares the ranks' picks and alone
#      writes the database;
#   2. the same shapes spread over 2 ranks (each shape tuned by one rank)
#      against one process: the same buckets, and which picks differ;
#   3. a pattern search of each shape (--strategy) in one process and with
#      each batch of visits split over 2 ranks: the same buckets, and which
#      picks differ;
#   4. whether the differing picks are within the noise: one process
#      (tuna-tune --time-picks) times, per bucket, the pick of each job's
#      database side by side on the same inputs and prints its time and
#      ratio to the single process's pick (three interleaved rounds).
# Logs and databases go to $OUT/mpi (default bench/out/mpi).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out}/mpi
build=${TUNA_GPU_BUILD:-/tmp/tuna-mpi-build}
bundles=${TUNA_MPI_BUNDLES:-$root/bench/out/bundles}
mkdir -p "$out"
[ -f "$root/.mpi/env.sh" ] || { echo "no .mpi: run bench/gpu/fetch_openmpi.sh and carry .mpi" >&2; exit 1; }
. "$root/.mpi/env.sh"
echo "mpirun: $(command -v mpirun) ($(mpirun --version 2>&1 | head -1))"

cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1
grep -q "MPI not found" "$out/configure.log" && { echo "CMake found no MPI" >&2; exit 1; }
# tuna_fake_hip: mpi-tuna-tune-np* gives one rank a device of another model.
cmake --build "$build" --target tuna-tune tuna-worker tuna-mpi-agreement-test \
  tuna-mpi-write-bundle tuna_fake_hip > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
status=0
ctest --test-dir "$build" -R '^mpi-' --output-on-failure > "$out/ctest.log" 2>&1 || status=1
tail -3 "$out/ctest.log"

tune=$build/bin/tuna-tune
device=${TUNA_MPI_DEVICE:-cuda:0}
softmax=("$bundles/softmax.tuna" --kernel softmax --shape "d0=4096 d1=1024,2048,4096,8192"
         --dims a0=d0*d1 --dims a1=d0*d1)
layernorm=("$bundles/layernorm.tuna" --kernel layernorm --shape "d0=4096 d1=1024,2048,4096"
           --dims a0=d0*d1 --dims a1=d1 --dims a2=d1 --dims a3=d0*d1 --arg a4=0.00001)
# One database for every job of a kernel; each job writes its own.
run_job() { # NAME RANKS [tuna-tune arguments...]
  local name=$1 ranks=$2
  shift 2
  local launcher=()
  # --bind-to none: OpenMPI would bind each of 2 ranks (and its worker) to
  # one core (docs/toolchain-notes.md).
  [ "$ranks" -gt 1 ] && launcher=(mpirun --bind-to none -np "$ranks")
  local start=$(date +%s%N)
  if ! "${launcher[@]}" "$tune" "$@" --device "$device" --no-cache -o "$out/$name.json" \
      > "$out/$name.log" 2>&1; then
    echo "$name: failed"; tail -20 "$out/$name.log"; status=1
  fi
  echo "$name: $(( ($(date +%s%N) - start) / 1000000 )) ms"
  grep -E "^(agreed|spread over|tuned|.*ranks differ)" "$out/$name.log" || true
}
for kernel in softmax layernorm; do
  declare -n args=$kernel
  run_job "$kernel-agree-np2" 2 "${args[@]}" --agree
  run_job "$kernel-np1" 1 "${args[@]}"
  run_job "$kernel-spread-np2" 2 "${args[@]}"
  run_job "$kernel-search-np1" 1 "${args[@]}" --strategy pattern --budget-evals 24
  run_job "$kernel-search-np2" 2 "${args[@]}" --strategy pattern --budget-evals 24
  # The buckets and picks of each database.
  python3 - "$out/$kernel-np1.json" "$out/$kernel-spread-np2.json" "$out/$kernel-agree-np2.json" \
    "$out/$kernel-search-np1.json" "$out/$kernel-search-np2.json" <<'PY' || status=1
import json, sys
def picks(path):
    entries = json.load(open(path))["entries"]
    return {(e["kernel"], tuple(e["signature"])): e["variant"] for e in entries}
one, spread, agree, search1, search2 = (picks(p) for p in sys.argv[1:])
for name, other, one in (("spread over 2 ranks", spread, one), ("2 ranks agreeing", agree, one),
                         ("a search split over 2 ranks (against one process's search)", search2, search1)):
    if set(other) != set(one):
        print("%s: buckets differ from one process: %s vs %s" % (name, sorted(other), sorted(one)))
        sys.exit(1)
    same = sum(other[k] == one[k] for k in one)
    print("%s: %d buckets, the same as one process; %d of %d picks the same%s" % (
        name, len(one), same, len(one),
        "" if same == len(one) else " (differing: %s)" % "; ".join(
            "%s: %s vs %s" % (k[1], other[k], one[k]) for k in one if other[k] != one[k])))
PY
  # Each job's pick per bucket, timed side by side in one process.
  dbs=$out/$kernel-np1.json,$out/$kernel-spread-np2.json,$out/$kernel-agree-np2.json
  dbs+=,$out/$kernel-search-np1.json,$out/$kernel-search-np2.json
  echo "$kernel: the picks timed side by side (one process; ratios to $kernel-np1's pick):"
  if ! "$tune" "${args[@]}" --device "$device" --no-cache --time-picks "$dbs" \
      > "$out/$kernel-picks.log" 2>&1; then
    echo "$kernel: --time-picks failed"; status=1
  fi
  sed "s#$out/##g" "$out/$kernel-picks.log"
done
exit $status
