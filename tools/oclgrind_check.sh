#!/usr/bin/env bash
# Runs one tiny preset per kernel family (every model, layout, ensemble and
# labeling variant) on the Oclgrind simulator with its data-race,
# out-of-bounds, uninitialised-value and API checks.  Every diagnostic must
# match a reviewed entry of tests/oclgrind.supp (kernel, kind, statements,
# reason); anything else fails the test and is printed, as does a kernel in
# cl/ that no case runs.  Where the build has MPI, one Swendsen-Wang lattice
# in 2 slabs runs under mpirun, each rank simulated.  Cases run side by side,
# one per core: about 1.5 minutes on 2 cores.  CLMC_LONG_TESTS=1 adds the 3D
# msc case (L = 64, 2^18 sites).
# Usage: tools/oclgrind_check.sh [BUILD_DIR, default build] [CASE...]
#
# Oclgrind is not an ICD: `oclgrind CMD` preloads its own OpenCL library, so
# the wrapped clmc sees only the "Oclgrind Simulator" device (`oclgrind
# build/clmc devices`), selected below with --device oclgrind.
#
# Workarounds for Oclgrind 21.10's own problems (issue 26), none of which
# changes what clmc computes:
#  - LLVM 14 builds of Oclgrind fail on `llvm.experimental.noalias.scope.decl`
#    when the kernel is optimised: every program is built with
#    -cl-opt-disable, passed through the deployment variable
#    CLMC_BUILD_OPTIONS (a different program cache key, so nothing leaks
#    into other runs; the cache is off anyway, CLMC_NO_CACHE).
#  - Oclgrind does not mark memory written by clEnqueueFillBuffer as
#    initialised (and tracks fills at an offset wrongly), so reads of filled
#    buffers are reported as uninitialised: such reports are suppressed by
#    statement in tests/oclgrind.supp (kind `uninitialized`, one entry per
#    reading statement), never by filling differently.
#  - Its uninitialised-value checker cannot follow `sincos` in disks_subsweep
#    ("OCLGRIND FATAL ERROR ... Work item needed to access private memory"
#    at every call): the hard-disk case runs without --uninitialized (races,
#    bounds and API checks stay on).
#  - It stops reporting after 1000 diagnostics by default, which the benign
#    labeling races exceed: --max-errors is raised so that none is hidden.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
build="${1:-build}"
shift $(($# > 0 ? 1 : 0))
command -v oclgrind >/dev/null || { echo "oclgrind check: oclgrind not installed; skipped"; exit 77; }
bin="$PWD/$build/clmc"
[ -x "$bin" ] || bin="$build/clmc"
supp="$PWD/tests/oclgrind.supp"
export CLMC_KERNEL_DIR="${CLMC_KERNEL_DIR:-$PWD/cl}"
export CLMC_NO_CACHE=1
export CLMC_BUILD_OPTIONS="-cl-opt-disable"
unset CLMC_DEVICE
work=$(mktemp -d "${TMPDIR:-/tmp}/clmc-oclgrind.XXXXXX")
failures=0

# One case per kernel family: name, Oclgrind checks, preset body (the run
# section is added: 1 thermalization and 2 measured sweeps).  The tiniest
# lattices each layout accepts, with more than one tile or work-group.
all="--data-races --uninitialized --check-api"
cases=()
add() { # name checks body [thermalization, default 1] [sweeps, default 2]
  cases+=("$1|$2|{$3, \"run\": {\"thermalization\": ${4:-1}, \"sweeps\": ${5:-2}, \"measure_every\": 1, \"seed\": 7}}")
}
ising() { echo "\"model\": {\"type\": \"ising\", \"dim\": $1, \"L\": $2}, \"algorithm\": {\"layout\": \"$3\"${4:-}}"; }
beta='"ensemble": {"beta": 0.3}'
pt='"ensemble": {"type": "parallel_tempering", "betas": [0.3, 0.4, 0.5], "exchange_every": 1'
pt2='"ensemble": {"type": "parallel_tempering", "betas": [0.3, 0.5], "exchange_every": 1'
add ising2d-naive "$all" "$(ising 2 8 naive ', "resident": "off"'), $beta"
add ising2d-tiled "$all" "$(ising 2 16 tiled ', "tile": 8, "resident": "off"'), $beta"
add ising2d-msc "$all" "$(ising 2 64 msc), $beta"
add ising3d-naive "$all" "$(ising 3 4 naive ', "resident": "off"'), $beta"
add ising3d-tiled "$all" "$(ising 3 8 tiled ', "tile": 4, "resident": "off"'), $beta"
# msc needs L = 64: 2^18 sites, by far the slowest case (one sweep: 143 s on busy
# cores, more than half of the rest together): opt-in (CLMC_LONG_TESTS=1).  The
# 3D msc kernels are ising2d-msc's with DIM 3; their results are checked on PoCL
# (test_ising3d against the host simulation, tools/mpi_check.sh's slabs).
[ "${CLMC_LONG_TESTS:-}" = 1 ] && add ising3d-msc "$all" "$(ising 3 64 msc), $beta" 0 1
# algorithm.rng's stateful streams (cl/common/rng_streams.h): rings in local memory, states in private.
add ising2d-naive-lagfib "$all" "$(ising 2 8 naive ', "rng": "lagged_fibonacci_521"'), $beta"
add ising2d-tiled-lagfib "$all" "$(ising 2 16 tiled ', "tile": 8, "hits": 2, "rng": "lagged_fibonacci_1279"'), $beta"
add ising3d-tiled-lcg64 "$all" "$(ising 3 8 tiled ', "tile": 4, "rng": "lcg64"'), $beta"
# Work-groups of 48 (algorithm.update_group): 64 words a colour, so the second group has 32 items past them.
add ising2d-msc-xorwow "$all" "$(ising 2 64 msc ', "rng": "xorwow", "update_group": 48, "resident": "off"'), $beta" 0 1
add ising2d-tiled-tempering "$all" "$(ising 2 16 tiled ', "tile": 8, "resident": "off"'), $pt}"
# 64 walkers: work-groups of 2 with local histograms (muca_ising.cl).
add ising2d-multicanonical "$all" "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4}, \"ensemble\": {\"type\": \"multicanonical\", \"betas\": [0.4], \"walkers\": 64, \"iteration_sweeps\": 10}"
# Bit rows whose edge is no power of two (muca_ising.cl: the column counted in
# steps of 2 at L = 6, multicanonical (22 s), and opt-in of 4 at L = 12, 8
# Wang-Landau walkers, one halving (60 s; the same code, X_STEP 4); L = 4 above
# takes the mask).
add ising2d-multicanonical-steps2 "$all" "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 6}, \"ensemble\": {\"type\": \"multicanonical\", \"betas\": [0.4], \"walkers\": 64, \"iteration_sweeps\": 10}"
[ "${CLMC_LONG_TESTS:-}" = 1 ] && add ising2d-wang-landau-steps4 "$all" "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 12}, \"ensemble\": {\"type\": \"wang_landau\", \"betas\": [0.4], \"walkers\": 8, \"iteration_sweeps\": 2, \"flatness\": 0.5, \"final_ln_f\": 0.6}"
# Wang-Landau in 2 windows of 4 walkers (one halving of ln f each): per-window weights and
# histograms, walkers kept in their window, exchanges (muca_walkers.h).
add ising2d-wang-landau-windows "$all" "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4}, \"ensemble\": {\"type\": \"wang_landau\", \"betas\": [0.4], \"windows\": 2, \"walkers_per_window\": 4, \"flatness\": 0.5, \"final_ln_f\": 0.6}"
# Potts walkers (muca_potts.cl, two random words per update): 8 Wang-Landau walkers, one halving.
add potts2d-wang-landau "$all" "\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 4, \"q\": 3}, \"algorithm\": {\"type\": \"metropolis\"}, \"ensemble\": {\"type\": \"wang_landau\", \"betas\": [0.4], \"walkers\": 8, \"iteration_sweeps\": 2, \"flatness\": 0.5, \"final_ln_f\": 0.6}"
# Population annealing: systematic copy numbers (pa_copy_prefix, in one process) and
# multinomial ones (pa_multinomial), the prefix sums, copies and family statistics
# (population.cl).
# One temperature step (one resampling) launches every kernel of a case; the
# systematic case takes two, the second resampling reading the families and
# members the first wrote.  12 members: the measurement kernel's work-groups of
# 256 per member are most of Oclgrind's time (24 before 2026-11-27).
pa() { echo "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8, \"start\": \"random\"}, \"algorithm\": {\"layout\": \"$1\", \"resident\": \"${3:-off}\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 12, \"steps\": ${4:-1}, \"beta_end\": 0.4, \"sweeps_per_step\": 1, \"resampling\": \"$2\"${5:-}}"; }
add ising2d-population-systematic "$all" "$(pa naive systematic off 2 ', "fused_steps": "off"')"
# The fused steps (pa_energy_range, pa_member_weights, pa_copy_sources; ensemble.fused_steps "auto"):
# 300 members in two chunks (the second of 44), three steps (the second and third
# resamplings make the previous step's overlap and scatter the sources; the last
# step weighs nothing).
add ising2d-population-fused "$all" "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 300, \"steps\": 3, \"beta_end\": 0.6, \"sweeps_per_step\": 1}"
add ising2d-population-multinomial "$all" "$(pa tiled multinomial)"
# The resident update (ising_resident_update: one work-group per configuration in
# local memory, many sweeps per launch, the measurement fused): 2D tiled with
# three tile colours and 2 hits, 3D naive, and population annealing's steps
# (naive L = 8: the update in colour planes, RESIDENT_PLANES); the planes with
# tiles of 8 in two tile colours and 2 hits.
add ising2d-tiled-resident "$all" "$(ising 2 12 tiled ', "tile": 4, "hits": 2, "resident": "on"'), $beta" 1 3
add ising2d-tiled-resident-planes "$all" "$(ising 2 16 tiled ', "tile": 8, "hits": 2, "resident": "on"'), $beta" 1 3
add ising3d-naive-resident "$all" "$(ising 3 4 naive ', "resident": "on"'), $beta"
add ising2d-population-resident "$all" "$(pa naive systematic on)"
# The msc resident update with algorithm.rng lcg64_reseeded (each word's LCG64
# in registers, a pending word's state handed back through local memory): 6
# members of L = 64, groups of 4 (the second group holds 2), two steps.
add ising2d-population-msc-lcg "$all" "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": {\"layout\": \"msc\", \"resident\": \"on\", \"rng\": \"lcg64_reseeded\", \"resident_configs\": 4}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 6, \"steps\": 2, \"beta_end\": 0.6, \"sweeps_per_step\": 2}"
# Temporal blocking (ising_blocked_update: blocks with a halo in local memory, 2
# sweeps per launch, blocks of 8 on L = 12: the last block 4 wide).
add ising2d-naive-blocked "$all" "$(ising 2 12 naive ', "sweeps_per_launch": 2, "block": 8, "resident": "off"'), $beta" 1 4
# ... with the box in colour planes (TB_PLANES): tiles of 8 on L = 32 in blocks of 16, 2 sweeps per launch
# (a halo of 8; each phase's words listed per tile colour, the draws kept for the second parity).
add ising2d-tiled-blocked-planes "$all" "$(ising 2 32 tiled ', "tile": 8, "sweeps_per_launch": 2, "block": 16, "resident": "off"'), $beta" 1 4
# The msc bands (cl/ising/ising_msc.cl ising_blocked_update): L = 64 (a word a
# colour row) in bands of 24 rows (the last 16), 3 sweeps per launch, groups of
# 8 items: the first pass (34 rows) takes 5 rounds, its tied words finished
# after 4 and at its end.
add ising2d-msc-blocked "$all" "$(ising 2 64 msc ', "sweeps_per_launch": 3, "block": 24, "update_group": 8'), $beta" 1 4
# The EA's and Potts' member totals (ea_member_totals, potts_member_totals): members are
# EA replica pairs on one disorder sample, Potts systems with Metropolis sweeps (one
# temperature step, as above).
pam() { echo "\"model\": {$1}, \"algorithm\": {$2}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 12, \"steps\": 1, \"beta_end\": 0.5, \"sweeps_per_step\": 1}"; }
add ea3d-population "$all" "$(pam '"type": "ea_ising", "dim": 3, "L": 4' '"layout": "naive", "resident": "off"')"
# Its resident update (ea_naive_resident_update: a step's sweeps and the members' measurement in one launch):
# 13 members in 7 quads (the last of one member) of configurations, 2 quads a work-group of 64 work-items, the
# second step's launch loading the members resampled (the gather fused).
add ea3d-population-resident "$all" "\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"layout\": \"naive\", \"resident\": \"on\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 13, \"steps\": 2, \"beta_end\": 1.0, \"sweeps_per_step\": 2}"
# EA msc members, 32 per word (two words): the lanes' bit gather (pa_gather_lanes), the swap and the member
# pass (resident off: Oclgrind's device would take the resident update below).
add ea3d-population-msc "$all" "\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"layout\": \"msc\", \"word_bits\": 32, \"resident\": \"off\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 64, \"steps\": 1, \"beta_end\": 0.5, \"sweeps_per_step\": 1}"
# Its resident update (a step's sweeps in one launch, the word's stacks in local memory): 2D L = 12, 72 sites
# a colour on 64 work-items of 2 sites (the last 56 one site), two sweeps a step.
add ea2d-population-msc-resident "$all" "\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 12}, \"algorithm\": {\"layout\": \"msc\", \"word_bits\": 32, \"resident\": \"on\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 64, \"steps\": 2, \"beta_end\": 0.5, \"sweeps_per_step\": 2}"
# ... and in 3D at L = 8, the smallest lattice whose fold shares the stacks' local words (FOLD_IN_LATTICE),
# with the lanes drawing from the lcg64_reseeded generators (RNG_LCG_RESEEDED), four generators a work-item (resident_group 64).
add ea3d-population-msc-resident-lcg "$all" "\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8}, \"algorithm\": {\"layout\": \"msc\", \"word_bits\": 32, \"resident\": \"on\", \"rng\": \"lcg64_reseeded\", \"resident_group\": 64}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 32, \"steps\": 2, \"beta_end\": 0.5, \"sweeps_per_step\": 1}"
add potts2d-population "$all" "$(pam '"type": "potts", "dim": 2, "L": 6, "q": 3' '"type": "metropolis"')"
# XY members (heisenberg_member_totals: real energies and |M| from the exact sums).
# Races, bounds and API only: a step whose members share one beta writes the betas
# with clEnqueueFillBuffer and the member sums are zeroed by fills, which
# Oclgrind does not mark initialised, so every update and total after them is
# flagged; the run is reproduced bit for bit by Oclgrind in reproducible mode
# (tools/oclgrind_reproducible.sh, its XY population-annealing case).
add xy2d-population "--data-races --check-api" "$(pam '"type": "heisenberg", "dim": 2, "L": 4, "n": 2' '"type": "heatbath", "layout": "naive"')"
rsite() { ising "$1" 8 random_site ", \"random_site\": \"$2\"${3:-}"; }
add ising2d-rsite-sequential "$all" "$(rsite 2 sequential_reference ', "substeps": 4'), $beta"
add ising2d-rsite-copies "$all" "$(rsite 2 copies ', "copies_memory": "global"'), \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3], \"copies\": 5}"
# Packed copies in local memory: two blocks of 32, the second partial, on L = 6
# (36 sites: two packed words per copy, the second partial; one step of 36
# attempts: L = 8 took Oclgrind 35 s for the same paths).
add ising2d-rsite-copies-local "$all" "$(ising 2 6 random_site ', "random_site": "copies", "copies_memory": "local"'), \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3], \"copies\": 36}" 0 1
# The tiled variants' local-memory kernels (tile_memory auto: local where a tile fits) and global ones.
add ising2d-rsite-double-tiling "$all" "$(rsite 2 double_tiling ', "type": "heatbath"'), $beta"
add ising2d-rsite-double-tiling-global "$all" "$(rsite 2 double_tiling ', "tile_memory": "global"'), $beta"
add ising3d-rsite-double-tiling "$all" "$(rsite 3 double_tiling ', "substeps": 2'), $beta"
add ising3d-rsite-dead-border "$all" "$(rsite 3 dead_border ', "shift_every": 2'), $beta"
add ising2d-rsite-dead-border-global "$all" "$(rsite 2 dead_border ', "tile_memory": "global", "substeps": 4'), $beta"
# Tiles as bits in private memory (one work-item per tile, tile_memory private).
add ising2d-rsite-dead-border-private "$all" "$(rsite 2 dead_border ', "tile_memory": "private", "substeps": 2'), $beta"
add ising3d-rsite-double-tiling-private "$all" "$(rsite 3 double_tiling ', "type": "heatbath", "tile_memory": "private"'), $beta"
# Parallel attempts in waves (tile_workers > 1: local atomics on the occupancy
# and done masks, a round loop ended by a uniform flag).
add ising2d-rsite-dead-border-waves "$all" "$(rsite 2 dead_border ', "tile_workers": 4'), $beta"
add ising3d-rsite-double-tiling-waves "$all" "$(rsite 3 double_tiling ', "type": "heatbath", "tile_workers": 2'), $beta"
ea() { echo "\"model\": {\"type\": \"ea_ising\", \"dim\": $1, \"L\": $2$3}, \"algorithm\": {\"layout\": \"$4\"${5:-}}"; }
add ea3d-naive "$all" "$(ea 3 4 '' naive), $beta"
add ea3d-naive-tempering "$all" "$(ea 3 4 ', "realizations": 2' naive), $pt}"
add ea2d-msc "$all" "$(ea 2 8 ', "realizations": 32' msc ', "word_bits": 32'), $beta"
add ea3d-msc-tempering "$all" "$(ea 3 4 ', "realizations": 64' msc), $pt}"
# The general exchange kernels (cl/ensembles/tempering.cl) on msc's device energies.
add ea2d-msc-tempering-general "$all" "$(ea 2 4 ', "realizations": 32' msc ', "word_bits": 32'), $pt, \"exchanges\": \"general\"}"
add ea2d-msc-tempering-check "$all" "$(ea 2 4 ', "realizations": 32' msc ', "word_bits": 32, "tempering_energies": "check"'), $pt}"
potts() { echo "\"model\": {\"type\": \"potts\", \"dim\": $1, \"L\": $2, \"q\": 3}, \"algorithm\": {\"type\": \"$3\"${4:-}}, \"ensemble\": {\"beta\": 1.0}"; }
# Two systems labelled in the same launches (the labeling kernels' second NDRange
# dimension), 3 tiles per edge.
add potts2d-sw-copies "$all" "$(potts 2 12 swendsen_wang ', "tile": 4' | sed 's/"ensemble": {"beta": 1.0}/"ensemble": {"type": "independent", "betas": [1.0], "copies": 2}/')"
# One tile per lattice (tile = L): the tiles' launch joins the wrap bonds, nothing to consolidate.
add potts2d-sw-one-tile "$all" "$(potts 2 8 swendsen_wang ', "tile": 8, "labeling": "self_labeling"' | sed 's/"ensemble": {"beta": 1.0}/"ensemble": {"type": "independent", "betas": [1.0], "copies": 2}/')"
add potts3d-sw-one-tile "$all" "$(potts 3 4 swendsen_wang ', "tile": 4')"
add potts2d-few-cluster "$all" "$(potts 2 16 few_cluster ', "tile": 4')"
add potts2d-metropolis "$all" "$(potts 2 16 metropolis)"
add potts3d-sw "$all" "$(potts 3 8 swendsen_wang ', "tile": 4')"
# Potts random-site updates (cl/potts/random_site.cl on common/random_site_kernels.h):
# Metropolis with proposal words in the copies layout, the heat bath's integer walk in 3D.
add potts2d-rsite-copies "$all" "\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 6, \"q\": 3}, \"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\", \"random_site\": \"copies\"}, \"ensemble\": {\"type\": \"independent\", \"betas\": [1.0], \"copies\": 5}"
add potts3d-rsite-heatbath "$all" "\"model\": {\"type\": \"potts\", \"dim\": 3, \"L\": 4, \"q\": 5}, \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"random_site\", \"random_site\": \"sequential_reference\", \"substeps\": 4}, \"ensemble\": {\"beta\": 0.8}"
perc() { echo "\"model\": {\"type\": \"percolation\", \"dim\": $1, \"L\": $2, \"kind\": \"$3\", \"p\": 0.55}, \"algorithm\": {\"tile\": 4, \"labeling\": \"$4\", \"consolidation\": \"$5\"}"; }
add perc2d-bond-uf-sewing "$all" "$(perc 2 16 bond union_find sewing)"
add perc2d-bond-uf-relaxation "$all" "$(perc 2 16 bond union_find relaxation)"
add perc2d-site-self-sewing "$all" "$(perc 2 16 site self_labeling sewing)"
add perc2d-bond-self-relaxation "$all" "$(perc 2 16 bond self_labeling relaxation)"
add perc3d-bond-uf-sewing "$all" "$(perc 3 8 bond union_find sewing)"
add perc3d-site-self-relaxation "$all" "$(perc 3 8 site self_labeling relaxation)"
heis() { echo "\"model\": {\"type\": \"heisenberg\", \"dim\": $1, \"L\": $2, \"n\": $3}, \"algorithm\": {\"type\": \"$4\", \"layout\": \"$5\"${6:-}}, \"ensemble\": {\"beta\": 0.7}"; }
add heisenberg2d-naive "$all" "$(heis 2 8 3 heatbath naive ', "renormalize_every": 1')"
add heisenberg2d-tiled "$all" "$(heis 2 16 3 metropolis tiled ', "tile": 4, "overrelaxation_steps": 1')"
add heisenberg2d-naive-xorwow "$all" "$(heis 2 8 3 heatbath naive ', "rng": "xorwow"')"
add xy3d-tiled "$all" "$(heis 3 8 2 heatbath tiled ', "tile": 4')"
add heisenberg3d-planes "$all" "$(heis 3 8 3 heatbath planes ', "tile": 4, "hits": 2')"
glass() { echo "\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": $1}, \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"$2\"${3:-}}"; }
add glass3d-naive-tempering "$all" "$(glass 4 naive), $pt2}"
add glass3d-tiled-tempering "$all" "$(glass 4 tiled ', "tile": 2'), $pt2}"
add glass3d-planes-tempering "$all" "$(glass 4 planes ', "tile": 2, "overrelaxation_steps": 1'), $pt2}"
add glass3d-naive-overrelaxation "$all" "\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 4}, \"algorithm\": {\"type\": \"overrelaxation\", \"layout\": \"naive\"}, $beta"
# No --uninitialized: its checker aborts on sincos in disks_subsweep (above).
add hard-disks "--data-races --check-api" "\"model\": {\"type\": \"hard_disks\", \"N\": 64, \"packing_fraction\": 0.5}"
# Three systems in the second NDRange dimension (ensemble.type independent), streams from system 2.
add hard-disks-copies "--data-races --check-api" "\"model\": {\"type\": \"hard_disks\", \"N\": 64, \"packing_fraction\": 0.5}, \"ensemble\": {\"type\": \"independent\", \"copies\": 3, \"first_system\": 2}"
# Reproducible mode (cl/common/repro_math.h, no sincos: every check on) and its
# integer division and sqrt (Oclgrind lacks correctly rounded ones).
add hard-disks-reproducible "$all" "\"model\": {\"type\": \"hard_disks\", \"N\": 64, \"packing_fraction\": 0.5}, \"algorithm\": {\"reproducible\": true}"
# disks_shift_subsweep's tiles whole (32 x 32 cells: 2 x 2 tiles of 8 x 8 blocks), every check on.
add hard-disks-tiles "$all" "\"model\": {\"type\": \"hard_disks\", \"N\": 1700, \"packing_fraction\": 0.7}, \"algorithm\": {\"reproducible\": true}"
add heisenberg2d-tiled-reproducible "$all" "$(heis 2 16 3 heatbath tiled ', "tile": 4, "overrelaxation_steps": 1, "reproducible": true')"
# Prints the Oclgrind diagnostics of LOG that no entry of tests/oclgrind.supp
# matches.  A diagnostic is a line at column 0 and its indented lines; its kind
# is `race` (data race), `uninitialized` or `other` (out-of-bounds access, API
# error, anything else: never suppressed).  An entry is
# `kernel | kind | statement ~ statement ... | reason`; it matches a diagnostic
# of that kernel and kind whose every quoted source line (each racing access,
# or the use of the value) contains one of the entry's statements.
unsuppressed() { # log
  awk -v supp="$supp" '
    function trim(t) { gsub(/^[ \t]+|[ \t]+$/, "", t); return t }
    BEGIN {
      while ((getline line < supp) > 0) {
        if (line ~ /^[ \t]*(#|$)/) continue
        split(line, f, / [|] /); n++
        skernel[n] = trim(f[1]); skind[n] = trim(f[2]); sstmts[n] = f[3]
      }
    }
    function kind(rec) {
      if (rec ~ /^[^\n]*data race/) return "race"
      if (rec ~ /^[^\n]*[Uu]ninitiali[sz]ed/) return "uninitialized"
      return "other"
    }
    function matches(i,   m, st, j, k, found) {
      if (nsrc == 0) return 0
      m = split(sstmts[i], st, / ~ /)
      for (j = 1; j <= nsrc; j++) {
        found = 0
        for (k = 1; k <= m; k++) if (index(src[j], trim(st[k])) > 0) found = 1
        if (!found) return 0
      }
      return 1
    }
    function flush(   k, i) {
      if (rec == "") return
      k = kind(rec)
      if (k != "other")
        for (i = 1; i <= n; i++)
          if (skernel[i] == kern && skind[i] == k && matches(i)) { suppressed++; rec = ""; return }
      print rec; rec = ""
    }
    /^[^ \t]/ { flush(); rec = $0 "\n"; kern = ""; nsrc = 0; next }
    rec == "" { next }
    { rec = rec $0 "\n" }
    /^[ \t]+Kernel: / { kern = $2 }
    at { src[++nsrc] = $0 }
    { at = /^[ \t]+At line [0-9]+/ }
    END { flush(); print suppressed + 0 > "/dev/stderr" }' "$1"
}

# One case: its verdict in $work/NAME.verdict (first line "ok" or "fail").
check_case() { # name checks preset
  local name=$1 checks=$2 preset=$3 start=$SECONDS rc total
  printf '%s\n' "$preset" >"$work/$name.json"
  # shellcheck disable=SC2086 # checks is a list of flags
  oclgrind $checks --max-errors 100000000 --log "$work/$name.log" \
    "$bin" run "$work/$name.json" --device oclgrind --out "$work/$name" --quiet --profile >"$work/$name.out" 2>&1
  rc=$?
  touch "$work/$name.log"
  total=$(unsuppressed "$work/$name.log" 2>&1 >"$work/$name.left")
  {
    if [ $rc -ne 0 ]; then
      echo fail; echo "oclgrind check: $name: exit $rc"; tail -20 "$work/$name.out"; head -60 "$work/$name.left"
    elif [ -s "$work/$name.left" ]; then
      echo fail; echo "oclgrind check: $name: diagnostics not in tests/oclgrind.supp:"; head -80 "$work/$name.left"
    else
      echo ok; echo "oclgrind check: $name: clean ($total suppressed diagnostics, $((SECONDS - start)) s)"
    fi
  } >"$work/$name.verdict"
}

# The simulator runs one work-item at a time: cases go side by side, one per
# core (each is a separate process with its own log and output folder), and
# their verdicts are printed in the order of the list.
parallel=$(nproc 2>/dev/null || echo 1)
names=()
for entry in "${cases[@]}"; do
  IFS='|' read -r name checks preset <<<"$entry"
  [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
  names+=("$name")
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  check_case "$name" "$checks" "$preset" &
done
wait
for name in "${names[@]}"; do
  [ -s "$work/$name.verdict" ] || echo "fail
oclgrind check: $name: no verdict" >"$work/$name.verdict"
  tail -n +2 "$work/$name.verdict"
  [ "$(head -1 "$work/$name.verdict")" = ok ] || failures=$((failures + 1))
done

# Lattices cut over 2 MPI ranks, each rank under Oclgrind with its own log,
# where the build has MPI (else the slab-only kernels are excused below):
# Swendsen-Wang of one Potts lattice (potts.cl with -DSLAB, labeling.cl with
# -DLAYERS, the merge's boundary record and roots) and the Ising msc update
# with -DSLAB (2D L = 128: a slab's two boundary layers in one launch of 4
# words, its interior of 124 in a group of 128, the items past the words
# skipped).  Races, bounds and API only: with --uninitialized, Oclgrind flags
# all the slab's spins once the host has written the halo layer into the
# spin buffer at an offset (found by leaving out the flips, the read-back of
# the first layer and that write in turn: only the write matters), as it
# flags the Potts counts after a fill at an offset (tests/oclgrind.supp); the
# runs equal one process bit for bit (tools/mpi_check.sh).
mpi_built=0
grep -q CLMC_HAVE_MPI "$build/build.ninja" 2>/dev/null && command -v mpirun >/dev/null && mpi_built=1
requested=" $* "
slab_case() { # NAME PRESET_BODY (run where the build has MPI and no cases or this one were asked for)
  local name=$1
  [ $mpi_built -eq 1 ] && { [ "$requested" = "  " ] || [[ $requested == *" $name "* ]]; } || return 0
  printf '%s\n' "{$2, \"run\": {\"thermalization\": 1, \"sweeps\": 2, \"measure_every\": 1, \"seed\": 7}}" >"$work/$name.json"
  local start=$SECONDS launcher=(mpirun)
  mpirun --version 2>/dev/null | grep -q "Open MPI" && launcher=(mpirun --oversubscribe)
  # shellcheck disable=SC2016 # expanded by each rank's shell
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${launcher[@]}" -np 2 bash -c \
    'exec oclgrind $0 --max-errors 100000000 --log "$1.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}.log" "${@:2}"' \
    "--data-races --check-api" "$work/$name" "$bin" run "$work/$name.json" --device oclgrind --out "$work/$name" --quiet --profile \
    >"$work/$name.out" 2>&1
  local rc=$? total
  touch "$work/$name.0.log" "$work/$name.1.log"
  cat "$work/$name.0.log" "$work/$name.1.log" >"$work/$name.log"
  total=$(unsuppressed "$work/$name.log" 2>&1 >"$work/$name.left")
  if [ $rc -ne 0 ]; then
    echo "oclgrind check: $name: exit $rc"; tail -20 "$work/$name.out"; head -60 "$work/$name.left"; failures=$((failures + 1))
  elif [ -s "$work/$name.left" ]; then
    echo "oclgrind check: $name: diagnostics not in tests/oclgrind.supp:"; head -80 "$work/$name.left"; failures=$((failures + 1))
  else
    echo "oclgrind check: $name: clean ($total suppressed diagnostics, 2 ranks, $((SECONDS - start)) s)"
  fi
}
slab_case potts2d-sw-slabs "$(potts 2 16 swendsen_wang ', "tile": 4')"
slab_case ising2d-msc-slabs "$(ising 2 128 msc ', "resident": "off"'), $beta"

# Every kernel in cl/ must have run in some case (clmc --profile lists the
# launched kernels), except those no preset launches: the RNG known-answer and
# throughput kernels (test_rng_device, benchmarks/rng_throughput), the fault injection of heisenberg,
# tempering_reaches (test_tempering_device) and repro_math_values (test_repro_math).
if [ $# -eq 0 ]; then
  not_launched=(philox_known_answers philox_throughput heisenberg_fault tempering_reaches repro_math_values
                philox4x32_10_numbers philox4x32_7_numbers lcg32_numbers lcg64_numbers xorwow_numbers lagfib_numbers)
  [ $mpi_built -eq 1 ] || not_launched+=(potts_mark_top_parts potts_boundary_record potts_merge_roots) # slabs: MPI ranks only
  # Population annealing's MPI kernels (members shared by ranks): no Oclgrind
  # case yet; tools/mpi_population_check.sh runs them on PoCL, equal to one process.
  # pa_sources and pa_add_uint: the window's search under ranks (one process takes pa_sources_own;
  # tests/test_population.c runs both and compares them).
  not_launched+=(pa_family_edges pa_share_ranges pa_window_prefix pa_sources pa_add_uint)
  # pa_copy_numbers: systematic and nearest_integer copy numbers under MPI ranks (one process
  # takes pa_copy_prefix; tests/test_population.c runs both and compares them).
  not_launched+=(pa_copy_numbers)
  defined=$(grep -rh -A2 '^__kernel' cl | grep -oE 'void +[a-z_0-9]+ *\(' | sed -E 's/void +//; s/ *\(//' | sort -u)
  launched=$(sed -nE 's/^clmc profile: +([a-z_0-9]+) +[0-9]+ launches.*/\1/p' "$work"/*.out | sort -u)
  for k in $defined; do
    [[ " ${not_launched[*]} " == *" $k "* ]] && continue
    grep -qx "$k" <<<"$launched" || { echo "oclgrind check: kernel $k is run by no case"; failures=$((failures + 1)); }
  done
fi
[ $failures -eq 0 ] && rm -rf "$work"
[ $failures -eq 0 ] || echo "oclgrind check: $failures case(s) failed; logs in $work"
exit $((failures > 0))
