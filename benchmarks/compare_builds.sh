#!/usr/bin/env bash
# Kernel time per update of two clmc builds on one device, the builds taking
# turns point by point (A B A B ...), so that a refactoring can be shown to
# leave the speed unchanged within the run-to-run noise.  Prints one table
# row per point: the median ns/update of each build over ROUNDS rounds, their
# ratio and the spread of each build's rounds.
# Usage: benchmarks/compare_builds.sh CLMC_A CLMC_B DEVICE [POINTS_FILE]
# POINTS_FILE (default benchmarks/compare_points.txt): one point a line,
# "name preset [PATH=VALUE ...]"; '#' starts a comment.  ROUNDS (default 3)
# and REPETITIONS (clmc bench --repetitions, default 5) set the effort.
# The per-round bench JSON documents are kept in $KEEP when it is set.
set -euo pipefail
cd "$(dirname "$0")/.."
clmc_a=$1 clmc_b=$2 device=$3
points=${4:-benchmarks/compare_points.txt}
rounds=${ROUNDS:-3}
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"

bench() { # build-label clmc name preset round sets...
  local label=$1 clmc=$2 name=$3 preset=$4 round=$5
  shift 5
  local args=()
  for set in "$@"; do args+=(--set "$set"); done
  "$clmc" bench "$preset" --devices "$device" --quiet --repetitions "${REPETITIONS:-5}" \
    --json "$work/$name-$label-$round.json" "${args[@]}" >/dev/null 2>"$work/$name-$label-$round.log" ||
    echo "   ($label failed on $name: $(tail -1 "$work/$name-$label-$round.log"))" >&2
}

while read -r name preset sets; do
  [[ -z $name || $name == \#* ]] && continue
  read -r -a set_list <<<"$sets"
  for ((round = 0; round < rounds; round++)); do
    bench a "$clmc_a" "$name" "$preset" "$round" "${set_list[@]}"
    bench b "$clmc_b" "$name" "$preset" "$round" "${set_list[@]}"
  done
done <"$points"

python3 - "$work" "$points" "$rounds" <<'PY'
import json, os, statistics, sys
work, points, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def figures(name, label):
    out = []
    for r in range(rounds):
        path = os.path.join(work, f"{name}-{label}-{r}.json")
        try:
            device = json.load(open(path))["devices"][0]
            out.append(device["metrics"]["ns_per_update"]["value"])
        except (OSError, KeyError, IndexError, ValueError):
            pass
    return out
device_name = None
print(f"{'point':34} {'A ns/update':>12} {'B ns/update':>12} {'B/A':>7} {'A spread':>9} {'B spread':>9}")
for line in open(points):
    if not line.strip() or line.startswith("#"):
        continue
    name = line.split()[0]
    a, b = figures(name, "a"), figures(name, "b")
    if not a or not b:
        print(f"{name:34} {'failed':>12}")
        continue
    spread = lambda v: (max(v) - min(v)) / statistics.median(v)
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{name:34} {ma:12.6g} {mb:12.6g} {mb / ma:7.3f} {spread(a):8.1%} {spread(b):8.1%}")
    if device_name is None:
        d = json.load(open(os.path.join(work, f"{name}-a-0.json")))["devices"][0]["device"]
        device_name = f"{d['name']} (driver {d['driver']})"
print(f"device: {device_name}; median of {rounds} rounds each, builds alternating")
PY
