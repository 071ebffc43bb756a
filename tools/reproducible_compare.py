#!/usr/bin/env python3
"""Compares two clmc output directories of the same preset bit for bit:
series.csv, configuration.csv where written, the checkpoint's run,
tempering, series, model-state and ensemble (population annealing) sections,
and result.json's observables and checks (not the device name or the
resolved preset, where automatic launch keys may differ).  Prints what
differs; exit status 1 if anything does.  Usage: reproducible_compare.py A B"""
import json
import os
import struct
import sys

COMPARED = (b"RUN ", b"TEMP", b"SERI", b"MODL", b"ENSM")


def sections(path):
    data = open(path, "rb").read()
    if data[:8] != b"CLMCCKPT":
        sys.exit(f"{path}: not a clmc checkpoint")
    found, at = {}, 12
    while at + 12 <= len(data) - 8:
        tag, length = data[at:at + 4], struct.unpack("<Q", data[at + 4:at + 12])[0]
        found[tag] = data[at + 12:at + 12 + length]
        at += 12 + length
    return found


def main(a, b):
    differ = []
    for name in ("series.csv", "configuration.csv"):
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.exists(pa) or os.path.exists(pb):
            if not (os.path.exists(pa) and os.path.exists(pb)) or open(pa, "rb").read() != open(pb, "rb").read():
                differ.append(name)
    ra, rb = os.path.join(a, "result.json"), os.path.join(b, "result.json")
    if os.path.exists(ra) and os.path.exists(rb):
        ja, jb = json.load(open(ra)), json.load(open(rb))
        differ += [f"result.json {key}" for key in ("observables", "checks") if ja.get(key) != jb.get(key)]
    ca, cb = os.path.join(a, "checkpoint.clmc"), os.path.join(b, "checkpoint.clmc")
    if os.path.exists(ca) or os.path.exists(cb):
        sa, sb = sections(ca), sections(cb)
        if b"MODL" not in sa:
            differ.append("checkpoint (no model state)")
        differ += [f"checkpoint section {t.decode().strip()}" for t in COMPARED if sa.get(t) != sb.get(t)]
    for d in differ:
        print(f"  differs: {d}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
