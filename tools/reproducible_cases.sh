# The tiny presets of the reproducible-mode checks, one per float family and
# variant (sourced by tools/oclgrind_reproducible.sh, which compares PoCL with
# Oclgrind, and benchmarks/reproducible_check.sh, which prints a GPU's
# hashes).  Each entry: name|preset.  algorithm.reproducible is not set here:
# the scripts pass it with --set.  The run writes a checkpoint at sweep 2 and
# at the end (4 sweeps in all) so that the final state is compared too
# (population annealing: between its steps, with its ensemble section, and
# result.json's observables and checks).
repro_run='"run": {"thermalization": 1, "sweeps": 3, "measure_every": 1, "seed": 7, "checkpoint_every": 2}'
repro_heis() { # dim L n type layout [more algorithm keys]
  echo "{\"model\": {\"type\": \"heisenberg\", \"dim\": $1, \"L\": $2, \"n\": $3}, \"algorithm\": {\"type\": \"$4\", \"layout\": \"$5\", \"renormalize_every\": 2${6:-}}, \"ensemble\": {\"beta\": 0.7}, $repro_run}"
}
repro_glass() { # layout type ensemble [more algorithm keys]
  echo "{\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"type\": \"$2\", \"layout\": \"$1\"${4:-}}, \"ensemble\": $3, $repro_run}"
}
repro_pt='{"type": "parallel_tempering", "betas": [0.3, 0.5, 2.0], "exchange_every": 1}'
repro_cases=(
  "hard-disks|{\"model\": {\"type\": \"hard_disks\", \"N\": 64, \"packing_fraction\": 0.6}, $repro_run}"
  "hard-disks-copies|{\"model\": {\"type\": \"hard_disks\", \"N\": 64, \"packing_fraction\": 0.6}, \"ensemble\": {\"type\": \"independent\", \"copies\": 3, \"first_system\": 2}, $repro_run}"
  "xy2d-tiled-heatbath|$(repro_heis 2 8 2 heatbath tiled ', "tile": 4, "overrelaxation_steps": 1')"
  "xy2d-naive-metropolis|$(repro_heis 2 8 2 metropolis naive ', "hits": 2')"
  "heisenberg2d-tiled-heatbath|$(repro_heis 2 8 3 heatbath tiled ', "tile": 4, "overrelaxation_steps": 1')"
  "heisenberg3d-naive-metropolis|$(repro_heis 3 4 3 metropolis naive ', "overrelaxation_steps": 1')"
  "heisenberg3d-planes-heatbath|$(repro_heis 3 8 3 heatbath planes ', "tile": 4, "hits": 2')"
  "glass3d-naive-tempering|$(repro_glass naive heatbath "$repro_pt" ', "overrelaxation_steps": 1')"
  "glass3d-tiled-metropolis|$(repro_glass tiled metropolis "$repro_pt" ', "tile": 2')"
  "glass3d-naive-overrelaxation|$(repro_glass naive overrelaxation '{"beta": 1.0}' ', "hits": 2')"
  "xy2d-population-annealing|{\"model\": {\"type\": \"heisenberg\", \"dim\": 2, \"L\": 8, \"n\": 2}, \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"tiled\", \"tile\": 4, \"overrelaxation_steps\": 1}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 24, \"betas\": [0.5, 1.0, 1.5], \"sweeps_per_step\": 1, \"resampling\": \"multinomial\"}, $repro_run}"
)
# " spins HASH": checks.configuration_fnv1a of the run in directory $1 (the
# final spins), or nothing where the model does not report it.
repro_spins_hash() {
  local hash
  hash=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("checks", {}).get("configuration_fnv1a", ""))' \
    "$1/result.json" 2>/dev/null)
  [ -n "$hash" ] && printf ' spins %s' "$hash"
}
