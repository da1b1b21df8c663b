#!/usr/bin/env bash
# tuna-tune spread over the ranks of an MPI job decides what one tuna-tune
# decides: the same buckets, the same picks, one database, and a report
# (--report) that says what the check did as one tuna-tune's does; and so
# do tuna-tune --agree, where every rank tunes every shape and they agree,
# and tuna-tune --strategy, where the ranks split each batch of a search;
# ranks given another bundle, other shapes or another device model fail,
# naming the rank.
#   tuna-tune-ranks.sh MPIEXEC NP TUNA_TUNE WRITE_BUNDLE FAKE_HIP
# FAKE_HIP, the fake HIP runtime (test/runtime/fakehip), gives one rank a
# device of another model.
set -euo pipefail
mpiexec=$1 np=$2 tune=$3 write_bundle=$4 fake_hip=$5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$write_bundle" "$dir/axpy.tuna"
# 4096 twice: the second is "already decided" by the rank that owns it.
args=("$dir/axpy.tuna" --shape 'd0=1024,4096,2048,4096,8192,512' --check
      --no-isolate --no-cache)
"$tune" "${args[@]}" -o "$dir/one.json" --report "$dir/one.html" >"$dir/one.txt"
timeout -k 5 120 "$mpiexec" --oversubscribe -np "$np" "$tune" "${args[@]}" \
  -o "$dir/many.json" --report "$dir/many.html" >"$dir/many.txt"
cat "$dir/many.txt"
# The lines without their times, the database without its times.
picks() { sed -E 's/ [0-9.e+-]+ ms.*//; /^(database|spread over|report)/d' "$1"; }
entries() {
  python3 -c 'import json,sys
for e in json.load(open(sys.argv[1]))["entries"]:
    print(e["kernel"], e["signature"], e["variant"], sorted(e["config"].items()))' "$1" | sort
}
diff <(picks "$dir/one.txt") <(picks "$dir/many.txt")
diff <(entries "$dir/one.json") <(entries "$dir/many.json")
[ "$(entries "$dir/many.json" | wc -l)" -eq 5 ]
# What the report says of each decision, without its times.
decided() { grep '^<p>Key values' "$1" | sed -E 's/[0-9.]+ ms/T ms/g'; }
diff <(decided "$dir/one.html") <(decided "$dir/many.html")
[ "$(decided "$dir/many.html" | grep -c \
     'outputs checked against .*, compared on the host in T ms')" -eq 5 ]
grep -q 'already decided' "$dir/many.txt"
# Buckets 1024, 2048, 512 on rank 0, 4096 and 8192 on rank 1 (round-robin).
[ "$np" -ne 2 ] || grep -q 'decisions per rank: 3 2$' "$dir/many.txt"
timeout -k 5 120 "$mpiexec" --oversubscribe -np "$np" "$tune" "${args[@]}" \
  --agree -o "$dir/agreed.json" >"$dir/agreed.txt"
cat "$dir/agreed.txt"
diff <(picks "$dir/one.txt") <(picks "$dir/agreed.txt" | sed '/^agreed on/d')
diff <(entries "$dir/one.json") <(entries "$dir/agreed.json")
grep -q "agreed on $np ranks: every rank launches the same variant for each of 5 decisions" "$dir/agreed.txt"
# --strategy: every rank searches every bucket, each batch of visits split
# over the ranks; the visits (axpy_work0 wins by far more than noise, so
# they do not depend on the timings), picks and database are one process's.
# What the check compared against depends on the split (each share votes
# with the default): only that a check ran is compared.
search=("${args[@]}" --strategy exhaustive)
"$tune" "${search[@]}" -o "$dir/search-one.json" >"$dir/search-one.txt"
timeout -k 5 120 "$mpiexec" --oversubscribe -np "$np" "$tune" "${search[@]}" \
  -o "$dir/search-many.json" >"$dir/search-many.txt"
cat "$dir/search-many.txt"
visits() { picks "$1" | sed -E '/^agreed on/d; /^  timed: /d; s/^  check: .*/  check/; /^    rejected /d; s/: wrong result: .*/: wrong result/'; }
diff <(visits "$dir/search-one.txt") <(visits "$dir/search-many.txt")
diff <(entries "$dir/search-one.json") <(entries "$dir/search-many.json")
grep -q "exhaustive search: 3 of 3 candidates" "$dir/search-many.txt"
grep -q "agreed on $np ranks: every rank launches the same variant for each of 5 decisions" "$dir/search-many.txt"
# The last rank loads a bundle of another source, tunes other shapes or
# runs on another device model: every rank fails before tuning, naming it,
# and nothing is written.
last=$((np - 1))
"$write_bundle" "$dir/other.tuna" --source-hash fedcba9876543210
cat >"$dir/mismatch.sh" <<EOF
bundle=$dir/axpy.tuna shapes=d0=1024,4096 device=host
if [ "\$OMPI_COMM_WORLD_RANK" = $last ]; then
  case "\$1" in
    source) bundle=$dir/other.tuna ;;
    shapes) shapes=d0=1024,8192 ;;
    device) device=hip; export TUNA_HIP_LIBRARY=$fake_hip ;;
  esac
fi
exec "$tune" "\$bundle" --shape "\$shapes" --device "\$device" \
  --no-isolate --no-cache -o "$dir/mismatch.json"
EOF
mismatch() {
  if timeout -k 5 120 "$mpiexec" --oversubscribe -np "$np" sh \
       "$dir/mismatch.sh" "$1" >"$dir/mismatch.txt" 2>&1; then
    cat "$dir/mismatch.txt"
    echo "tuna-tune-ranks: FAILED: a rank with other $1 did not fail"
    exit 1
  fi
  cat "$dir/mismatch.txt"
  grep -qF "$2" "$dir/mismatch.txt"
  [ ! -e "$dir/mismatch.json" ]
}
mismatch source "the ranks do not tune the same work"
grep -qF "rank $last has kernel \"axpy\" of source hash \"fedcba9876543210\", rank 0" "$dir/mismatch.txt"
mismatch shapes "rank $last has shapes [[1024],[8192]], rank 0 [[1024],[4096]]"
mismatch device "the ranks run on different device models (rank 0: "
grep -q "^  rank $last: .*(gfx" "$dir/mismatch.txt"
echo "tuna-tune-ranks: $np ranks decided as one"
