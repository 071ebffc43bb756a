#!/usr/bin/env bash
# Parallel-tempering overhead of the EA spin glass (msc, 3D, 16 temperatures,
# one exchange every 10 sweeps): wall time of the same run with exchanges
# against none, at L = 32 (256 and 1024 realizations), 64 (256) and 128 (64).
# Exchanges on the device (default: cl/tempering.cl, nothing read back), on
# the host with energies from the last colour pass (ensemble.exchanges "host")
# and with energies from the measurement kernel (algorithm.tempering_energies
# "measure", also on the host).  One JSON per case in OUTDIR.
# Usage: benchmarks/ea_tempering_overhead.sh DEVICE OUTDIR [CASES...]
#   a case is L:REALIZATIONS (default: 32:256 32:1024 64:256 128:64; 128 with 256 exceeds the 2^32 spins the kernels index);
#   SWEEPS (default 2000) sweeps per run, WORD_BITS (default 64).
set -euo pipefail
cd "$(dirname "$0")/.."
device=$1 outdir=$2
shift 2
cases=("$@")
(( ${#cases[@]} )) || cases=(32:256 32:1024 64:256 128:64)
clmc=${CLMC:-build/clmc} sweeps=${SWEEPS:-2000} every=10 bits=${WORD_BITS:-64}
mkdir -p "$outdir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
betas=$(python3 -c "print(','.join(f'{0.6 * 2.5 ** (i / 15):.6f}' for i in range(16)))")

run() { # name L realizations exchange_every [exchanges [tempering_energies]]
  local name=$1 L=$2 realizations=$3 exchange_every=$4 exchanges=${5:-auto} energies=${6:-pass}
  "$clmc" run presets/ea3d-L32-tempering.json --quiet --device "$device" --out "$work/$name" \
    --set model.L="$L" --set model.realizations="$realizations" --set algorithm.word_bits="$bits" \
    --set algorithm.tempering_energies="$energies" \
    --set ensemble='{"type": "parallel_tempering", "betas": ['"$betas"'], "exchange_every": '"$exchange_every"',
                     "exchanges": "'"$exchanges"'"}' \
    --set run.thermalization=0 --set run.sweeps="$sweeps" --set run.measure_every=$(( sweeps / 10 ))
}

for case in "${cases[@]}"; do
  L=${case%%:*} realizations=${case##*:} name="ea3d-L$L-x$realizations"
  echo "== $name: $sweeps sweeps, 16 temperatures, exchanges every $every" >&2
  if run "$name-warm-up" "$L" "$realizations" "$every" &&
     run "$name-none" "$L" "$realizations" 1000000000 &&
     run "$name-device" "$L" "$realizations" "$every" &&
     run "$name-pass" "$L" "$realizations" "$every" host &&
     run "$name-measure" "$L" "$realizations" "$every" auto measure; then
    python3 - "$work" "$name" "$outdir/$name.json" "$every" <<'PY'
import json, sys
work, name, output, every = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
runs = {k: json.load(open(f"{work}/{name}-{k}/result.json")) for k in ("none", "device", "pass", "measure")}
wall = {k: r["performance"]["wall_seconds"] for k, r in runs.items()}
kernel = {k: r["performance"]["seconds"] for k, r in runs.items()}
doc = {"schema": "clmc-ea-tempering-overhead", "format_version": 1, "device": runs["pass"]["device"],
       "preset": runs["pass"]["preset"], "exchange_every": every,
       "exchanges": runs["pass"]["observables"]["tempering"]["exchanges"],
       "wall_seconds": {"without_exchanges": wall["none"], "device_exchanges": wall["device"],
                        "energy_pass": wall["pass"], "measured_energies": wall["measure"]},
       "update_kernel_seconds": {"without_exchanges": kernel["none"], "device_exchanges": kernel["device"],
                                 "energy_pass": kernel["pass"], "measured_energies": kernel["measure"]},
       "overhead_fraction": {"device_exchanges": (wall["device"] - wall["none"]) / wall["none"],
                             "energy_pass": (wall["pass"] - wall["none"]) / wall["none"],
                             "measured_energies": (wall["measure"] - wall["none"]) / wall["none"]},
       "same_run": all(runs[k]["checks"] == runs["pass"]["checks"]
                       and runs[k]["observables"] == runs["pass"]["observables"] for k in ("device", "measure")),
       "acceptance": runs["pass"]["observables"]["tempering"]["acceptance"]}
json.dump(doc, open(output, "w"), indent=1)
o = doc["overhead_fraction"]
print(f'{doc["device"]["name"]}: {name}: wall {wall["none"]:.3f} s without exchanges, {wall["device"]:.3f} s with '
      f'exchanges on the device (update kernels {kernel["device"] - kernel["none"]:+.3f} s), {wall["pass"]:.3f} s on the '
      f'host (energy pass), {wall["measure"]:.3f} s on the host with measured energies: overhead device '
      f'{100 * o["device_exchanges"]:.2f}%, host {100 * o["energy_pass"]:.2f}%, measured {100 * o["measured_energies"]:.2f}%; '
      f'identical runs: {doc["same_run"]}')
PY
  else
    echo "   (failed: $name)" >&2
  fi
done
