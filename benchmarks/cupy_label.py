"""Reference for the labeling benchmark: cupyx.scipy.ndimage.label on a
random site image (occupied with probability p, 4-neighbour connectivity in
2D) of L x L sites on the GPU; prints and saves sites labelled per second.
Usage: python3 benchmarks/cupy_label.py OUT.json [L] [p ...]"""
import json
import sys

import cupy
from cupyx.scipy import ndimage


def time_label(image, repetitions=10):
    ndimage.label(image)  # warm-up: kernels compiled and cached
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(repetitions):
        start.record()
        ndimage.label(image)
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) * 1e-3)
    times.sort()
    return times[len(times) // 2]


def main():
    out = sys.argv[1]
    edge = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
    probabilities = [float(p) for p in sys.argv[3:]] or [0.5, 0.5927]
    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    for p in probabilities:
        image = cupy.random.default_rng(42).random((edge, edge), dtype=cupy.float32) < p
        seconds = time_label(image)
        rows.append({"p": p, "seconds": seconds, "sites_per_second": edge * edge / seconds,
                     "ns_per_site": seconds * 1e9 / (edge * edge)})
        print(f"{device}: cupyx.scipy.ndimage.label L={edge} p={p}: {seconds * 1e3:.3f} ms, "
              f"{edge * edge / seconds:.3e} sites/s ({seconds * 1e9 / edge / edge:.4f} ns per site)")
    doc = {"schema": "clmc-cupy-label", "format_version": 1, "device": device, "cupy": cupy.__version__,
           "edge": edge, "connectivity": "4-neighbour (default structure)", "statistic": "median of 10",
           "results": rows}
    json.dump(doc, open(out, "w"), indent=1)


main()
