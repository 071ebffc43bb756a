#!/usr/bin/env python3
"""Derives the damaged checkpoints of tests/fuzz/corpus/checkpoint/ from the
valid-*.clmc ones there (written by clmc run with run.checkpoint_every on tiny
lattices): truncated, bit-flipped, and re-checksummed ones whose content is
wrong (format, engine version, map out of range, counts that overflow)."""
import os, struct

HERE = os.path.join(os.path.dirname(__file__), "corpus", "checkpoint")

def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h

def resum(body):
    return body + struct.pack("<Q", fnv1a64(body))

def sections(data):
    """(tag, offset of payload, length) of each section."""
    at, out = 12, []
    while at + 12 <= len(data) - 8:
        tag, length = data[at:at + 4], struct.unpack_from("<Q", data, at + 4)[0]
        out.append((tag, at + 12, length))
        at += 12 + length
    return out

def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)

valid = open(os.path.join(HERE, "valid-tempering.clmc"), "rb").read()
body = bytearray(valid[:-8])
where = {tag: (start, length) for tag, start, length in sections(valid)}
write("truncated-half.clmc", valid[:len(valid) // 2])
write("truncated-last-byte.clmc", valid[:-1])
write("header-only.clmc", valid[:12])
flipped = bytearray(valid); flipped[len(valid) // 2] ^= 0x10
write("bit-flipped.clmc", bytes(flipped))
b = bytearray(body); b[8] = 99
write("format-99.clmc", resum(bytes(b)))
start, length = where[b"VERS"]
b = bytearray(body); b[start] = ord("9")
write("engine-version-other.clmc", resum(bytes(b)))
start, length = where[b"TEMP"]
b = bytearray(body); struct.pack_into("<I", b, start + 8, 0xFFFFFFFF)
write("tempering-map-out-of-range.clmc", resum(bytes(b)))
b = bytearray(body); struct.pack_into("<I", b, start, 0x7FFFFFFF)
write("tempering-count-huge.clmc", resum(bytes(b)))
start, length = where[b"SERI"]
b = bytearray(body); struct.pack_into("<QQ", b, start, 1 << 40, 1 << 40)
write("series-counts-overflow.clmc", resum(bytes(b)))
b = bytearray(body); struct.pack_into("<Q", b, start - 8, 1 << 62)
write("section-length-huge.clmc", resum(bytes(b)))
start, length = where[b"PRST"]
b = bytearray(body); b[start + 1] = 0
write("preset-with-nul.clmc", resum(bytes(b)))
b = bytearray(body); b[start:start + length] = b"{" * length
write("preset-unbalanced.clmc", resum(bytes(b)))
