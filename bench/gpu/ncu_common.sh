# shellcheck shell=bash
# Shared by bench/gpu/profile_variant.sh and bench/gpu/profile_pick.sh
# (sourced, with $root the repository root): the runtime and tuna-tune built
# in $build, the Nsight Compute sections both collect, and `profile NAME
# NCU_FILTER... -- COMMAND...`, which profiles the kernel launch of
# COMMAND that the filter selects and summarizes it with
# bench/gpu/ncu_report.py.
# shellcheck disable=SC2154  # root: the sourcing script's
build=${TUNA_GPU_BUILD:-/tmp/tuna-gpu-build}
if ! cmake -G Ninja -S "$root" -B "$build" -DTUNA_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
       > /tmp/profile-configure.log 2>&1 ||
   ! cmake --build "$build" --target tuna_runtime_shared tuna-tune tuna-worker > /tmp/profile-build.log 2>&1; then
  tail -30 /tmp/profile-configure.log /tmp/profile-build.log
  exit 1
fi
out=$(mktemp -d)
export TUNA_CACHE_DIR=$out/cache
# shellcheck disable=SC2054  # --metrics takes a comma list
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
          --section SourceCounters
          --metrics l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum
          --clock-control none)
profile() {  # NAME NCU_FILTER... -- COMMAND...
  local name=$1 filter=() page
  shift
  while [ "$1" != -- ]; do filter+=("$1"); shift; done
  shift
  ncu "${filter[@]}" "${sections[@]}" -o "$out/$name" "$@" > "$out/$name.log" 2>&1 ||
    { tail -5 "$out/$name.log"; exit 1; }
  for page in details raw "source --print-source sass"; do
    # shellcheck disable=SC2086
    ncu --import "$out/$name.ncu-rep" --csv --print-units base --page $page > "$out/$name.${page%% *}.csv"
  done
  python3 "$root/bench/gpu/ncu_report.py" "$out/$name".{details,raw,source}.csv
}
