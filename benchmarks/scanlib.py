"""Shared by the benchmark scan scripts: gathers the `clmc bench --json` files
of one scan into one document and walks its (point, device) results."""
import glob
import json
import os


def gather(work, output, benchmark, extra=None):
    """Reads WORK/*.json (one bench JSON per point, named by its file in
    "point"), writes the scan document to OUTPUT and returns its points."""
    points = []
    for path in sorted(glob.glob(os.path.join(work, "*.json"))):
        with open(path) as f:
            point = json.load(f)
        point["point"] = os.path.basename(path)[:-5]
        points.append(point)
    doc = {"schema": "clmc-bench-scan", "format_version": 1, "benchmark": benchmark, "points": points}
    doc.update(extra or {})
    with open(output, "w") as f:
        json.dump(doc, f, indent=1)
    return points


def results(points):
    """Yields (point, preset, device entry, ns per update or None, fraction of
    copy bandwidth or None) for every device of every point."""
    for point in points:
        for entry in point["devices"]:
            metrics = entry.get("metrics", {})
            ns = metrics.get("ns_per_update", {}).get("value")
            fraction = metrics.get("bandwidth_fraction", {}).get("value")
            yield point, point["preset"], entry, ns, fraction


def device_name(entry, width):
    return f'{entry["device"]["name"][:width]:{width}s}'


def failed(entry):
    return entry.get("reason", "failed")
