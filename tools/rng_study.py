#!/usr/bin/env python3
"""The RNG study of Weigel 2011 (sec. 3.3, Table 1): energy and specific heat of the
2D Ising model for every generator, sequential (clmc-sequential, host) and
checkerboard (`clmc run presets/rng-study/ising2d-checkerboard.json --set
algorithm.rng=NAME`, device), against the exact finite-lattice values, with the
deviations in standard errors (docs/rng-study.md).

Usage: tools/rng_study.py [--mode quick|full] [--columns sequential,checkerboard]
         [--generators NAME,...] [--clmc PATH] [--sequential PATH] [--device SEL]
         [--jobs N] [--device-jobs N] [--out DIR] [--json FILE] [--check NAME,...]
--check: exit 1 unless every named generator is within 4 standard errors of the
exact values in every column it ran (the test runs --mode quick --check philox4x32_10).
A checkerboard run that this clmc refuses (algorithm.rng unknown or a generator the
layout does not take) shows as "refused" with clmc's message; philox4x32_10 is the
default and runs without --set when the key is unknown.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDY_DIR = os.path.join(ROOT, "presets", "rng-study")
MAX_DEVIATION = 4.0
OBSERVABLES = ("energy", "specific_heat")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def exact_values(sequential, L, beta):
    rc, out, err = run([sequential, "--exact", "--L", str(L), "--beta", repr(beta)])
    if rc != 0:
        sys.exit(f"rng_study: {sequential} --exact failed: {err}")
    return json.loads(out)["exact"]


def sequential_cell(args, mode, study, generator):
    rc, out, err = run([args.sequential, "--L", str(mode["L"]), "--beta", repr(study["beta"]),
                        "--sweeps", str(mode["sweeps"]), "--thermalization", str(mode["thermalization"]),
                        "--seed", str(study["seed"]), "--rng", generator])
    if rc != 0:
        return {"refused": err}
    d = json.loads(out)
    return {k: d["observables"][k] for k in OBSERVABLES} | {"ns_per_update": d["performance"]["ns_per_update"]}


def checkerboard_cell(args, mode, study, generator):
    out_dir = os.path.join(args.out, "checkerboard", generator)
    base = [args.clmc, "run", os.path.join(STUDY_DIR, study["checkerboard_preset"]), "--out", out_dir,
            "--quiet", "--overwrite", "--set", f"model.L={mode['L']}", "--set", f"ensemble.beta={study['beta']}",
            "--set", f"run.sweeps={mode['sweeps']}", "--set", f"run.thermalization={mode['thermalization']}",
            "--set", f"run.seed={study['seed']}"]
    if args.device:
        base += ["--device", args.device]
    rc, _, err = run(base + ["--set", f"algorithm.rng={generator}"])
    if rc == 2 and "algorithm.rng: unknown key" in err and generator == "philox4x32_10":
        rc, _, err = run(base)  # a clmc without the key: Philox4x32-10 is what it runs
    if rc != 0:
        return {"refused": err.splitlines()[-1] if err else f"exit {rc}"}
    with open(os.path.join(out_dir, "result.json")) as f:
        d = json.load(f)
    cell = {k: d["observables"][k] for k in OBSERVABLES}
    cell["ns_per_update"] = d["performance"]["ns_per_update"]
    cell["device"] = d["device"]["name"]
    return cell


def deviation(estimate, exact):
    return (estimate["mean"] - exact) / estimate["error"] if estimate["error"] > 0 else float("inf")


def print_table(table, exact, columns, mode, study):
    with open(os.path.join(STUDY_DIR, study["checkerboard_preset"])) as f:
        every = json.load(f)["run"].get("measure_every", 1)
    print(f"2D Ising, L = {mode['L']}, beta = {study['beta']}, {mode['sweeps']} sweeps after "
          f"{mode['thermalization']}, measured every sweep (sequential) or every {every} (checkerboard); "
          "dev = (value - exact) / standard error")
    head = f"{'generator':<26}"
    for c in columns:
        head += f" | {c + ': e':<22} {'dev':>7}  {'C_V':<20} {'dev':>7}"
    print(head)
    print("-" * len(head))
    row = f"{'exact':<26}"
    for _ in columns:
        row += f" | {exact['energy']:<22.10f} {'':>7}  {exact['specific_heat']:<20.10f} {'':>7}"
    print(row)
    for generator, cells in table.items():
        row = f"{generator:<26}"
        for c in columns:
            cell = cells[c]
            if "refused" in cell:
                row += f" | {'refused':<60}"
                continue
            for k, width in (("energy", 22), ("specific_heat", 20)):
                est = cell[k]
                text = f"{est['mean']:.6f}({est['error']:.6f})"
                row += (" | " if k == "energy" else "  ") + f"{text:<{width}} {deviation(est, exact[k]):>7.2f}"
        print(row)
    for generator, cells in table.items():
        for c in columns:
            if "refused" in cells[c]:
                print(f"{generator}, {c}: refused: {cells[c]['refused']}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    with open(os.path.join(STUDY_DIR, "study.json")) as f:
        modes = sorted(json.load(f)["modes"])
    p.add_argument("--mode", choices=modes, default="full", help="a mode of presets/rng-study/study.json")
    p.add_argument("--columns", default="sequential,checkerboard")
    p.add_argument("--generators", default="")
    p.add_argument("--clmc", default=os.path.join(ROOT, "build", "clmc"))
    p.add_argument("--sequential", default=os.path.join(ROOT, "build", "clmc-sequential"))
    p.add_argument("--device", default="")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--device-jobs", type=int, default=1)
    p.add_argument("--out", default=os.path.join("out", "rng-study"))
    p.add_argument("--json", default="")
    p.add_argument("--check", default="")
    args = p.parse_args()

    with open(os.path.join(STUDY_DIR, "study.json")) as f:
        study = json.load(f)
    mode = study["modes"][args.mode]
    generators = args.generators.split(",") if args.generators else study["generators"]
    columns = [c for c in args.columns.split(",") if c]
    for c in columns:
        if c not in ("sequential", "checkerboard"):
            p.error(f"--columns: unknown column '{c}' (sequential, checkerboard)")
    for g in args.check.split(",") if args.check else []:
        if g not in generators:
            p.error(f"--check: '{g}' is not among the generators run")

    exact = exact_values(args.sequential, mode["L"], study["beta"])
    table = {g: {} for g in generators}
    # Sequential runs are host processes (--jobs at a time); checkerboard runs share the
    # device (--device-jobs at a time: concurrent processes hide launch latencies).
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as host, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.device_jobs)) as device:
        futures = []
        for g in generators:
            if "sequential" in columns:
                futures.append((g, "sequential", host.submit(sequential_cell, args, mode, study, g)))
            if "checkerboard" in columns:
                futures.append((g, "checkerboard", device.submit(checkerboard_cell, args, mode, study, g)))
        for g, column, future in futures:
            table[g][column] = future.result()
    print_table(table, exact, columns, mode, study)

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": "clmc-rng-study", "format_version": 1, "mode": args.mode, "L": mode["L"],
                       "beta": study["beta"], "sweeps": mode["sweeps"], "thermalization": mode["thermalization"],
                       "seed": study["seed"], "exact": exact, "table": table}, f, indent=1)
    failed = []
    for g in args.check.split(",") if args.check else []:
        for c in columns:
            cell = table[g][c]
            if "refused" in cell:
                failed.append(f"{g} {c}: refused ({cell['refused']})")
                continue
            for k in OBSERVABLES:
                z = deviation(cell[k], exact[k])
                if not abs(z) < MAX_DEVIATION:
                    failed.append(f"{g} {c} {k}: {z:.2f} standard errors from the exact value")
    for line in failed:
        print(f"rng_study: check failed: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
