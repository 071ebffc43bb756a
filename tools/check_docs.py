#!/usr/bin/env python3
"""Checks the documentation against the code and against itself.

1. Every preset key of the schema tables in src/ (the `clmc_field` arrays and
   the `#define ..._FIELDS` macros that arrays include) has a row in exactly one
   key table in docs/, and no key table lists a key the code does not have.
   A key table is a markdown table right below a marker naming the schema
   tables it documents:  <!-- keys: clmc_ising_model_fields clmc_ising_algorithm_fields -->
   Its rows' first cells hold the full key paths in backticks (`model.L`).
2. Every relative link in README.md, docs/, benchmarks/ and the folder READMEs
   resolves to a file in the repository (and, for #anchors into markdown, to a
   heading there).
3. No documentation or source comment points at a file outside the repository.

Usage: tools/check_docs.py [-v]   exit status 0 when all checks pass, 1 otherwise.
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ARRAY = re.compile(r"clmc_field\s+(\w+)\s*\[\s*\]\s*=\s*\{(.*?)\n\s*\}\s*;", re.S)
MACRO = re.compile(r"#define\s+(\w+_FIELDS)\b((?:[^\n]*\\\n)*[^\n]*)")
ENTRY = re.compile(r"\{\s*\"(\w+)\"\s*,\s*CLMC_FIELD_")
MARKER = re.compile(r"^\s*<!--\s*keys:\s*(.*?)\s*-->")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"DESIGN\.md|\.\./shared|/work/")

# Section of the preset that a schema table's keys belong to, by table name.
PREFIXES = [
    (r"model_type_fields$", "model."),
    (r"_model_fields$", "model."),
    (r"_algorithm_fields$|_ALGORITHM_FIELDS$|^CLMC_LABELING_FIELDS$", "algorithm."),
    (r"^root_fields$", ""),
    (r"^run_fields$", "run."),
    (r"^output_fields$", "output."),
    (r"^(single_beta|tempering|independent|ensemble\w*)_fields$", "ensemble."),
    (r"_ENSEMBLE_FIELDS$", "ensemble."),
]


def rel(path):
    return os.path.relpath(path, ROOT)


def prefix_of(table):
    for pattern, prefix in PREFIXES:
        if re.search(pattern, table):
            return prefix
    return None


def schema_tables(problems):
    """{table name: [full key paths]} from src/, macros' keys counted once, under the macro."""
    tables, sources = {}, {}
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]"), recursive=True)):
        text = open(path, encoding="utf-8").read()
        for name, body in MACRO.findall(text):
            tables[name], sources[name] = ENTRY.findall(body), rel(path)
        for name, body in ARRAY.findall(text):
            tables[name], sources[name] = ENTRY.findall(body), rel(path)
        # model.type: its field table is built at run time from the model registry.
        if re.search(r"clmc_field\s+model_type_fields\s*\[", text):
            tables["model_type_fields"], sources["model_type_fields"] = ["type"], rel(path)
    resolved = {}
    for name, keys in tables.items():
        if not keys:
            continue  # an empty table (e.g. the athermal models' ensemble) has nothing to document
        prefix = prefix_of(name)
        if prefix is None:
            problems.append(f"{sources[name]}: schema table {name}: no preset section known for it "
                            f"(add a rule to PREFIXES in tools/check_docs.py)")
            continue
        resolved[name] = [prefix + k for k in keys]
    return resolved, sources


def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    files += glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "benchmarks", "**", "*.md"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "*", "README.md"))
    return sorted(set(f for f in files if os.path.isfile(f)))


def table_rows(lines, start):
    """Rows (lists of cells) of the markdown table starting at or after line `start`."""
    i = start
    while i < len(lines) and not lines[i].lstrip().startswith("|"):
        if lines[i].strip():
            return [], i
        i += 1
    rows = []
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
        if not all(re.fullmatch(r":?-+:?", c) for c in cells):
            rows.append(cells)
        i += 1
    return rows[1:], i  # without the header


def row_keys(cell):
    return [k for k in re.findall(r"`([^`]+)`", cell) if re.fullmatch(r"[A-Za-z_][\w.]*", k)]


def check_keys(tables, sources, problems, verbose):
    claimed = {}  # table -> [doc files]
    documented = 0
    for path in markdown_files():
        if not rel(path).startswith("docs" + os.sep):
            continue
        lines = open(path, encoding="utf-8").read().split("\n")
        marked_tables = set()
        for n, line in enumerate(lines):
            m = MARKER.search(line)
            if not m:
                continue
            names = m.group(1).split()
            rows, end = table_rows(lines, n + 1)
            marked_tables.add(end)
            where = f"{rel(path)}:{n + 1}"
            if not rows:
                problems.append(f"{where}: key marker without a table below it")
            expected = []
            for name in names:
                if name not in tables:
                    problems.append(f"{where}: no schema table {name} in src/")
                    continue
                claimed.setdefault(name, []).append(where)
                expected += tables[name]
            listed = [k for row in rows for k in row_keys(row[0])]
            for key in sorted(set(expected) - set(listed)):
                problems.append(f"{where}: key {key} ({' '.join(names)}) has no row in this table")
            for key in sorted(set(listed) - set(expected)):
                problems.append(f"{where}: key {key} is not in the schema tables {' '.join(names)}")
            for key in sorted(set(k for k in listed if listed.count(k) > 1)):
                problems.append(f"{where}: key {key} has more than one row")
            documented += len(set(expected) & set(listed))
        # Key tables without a marker would document keys outside the check.
        for n, line in enumerate(lines):
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
            previous = lines[n - 1].lstrip() if n else ""
            if cells and cells[0] == "key" and not previous.startswith("|"):
                if not any(MARKER.search(lines[j]) for j in range(max(0, n - 2), n)):
                    problems.append(f"{rel(path)}:{n + 1}: key table without a <!-- keys: ... --> marker")
    for name in sorted(tables):
        places = claimed.get(name, [])
        if len(places) != 1:
            problems.append(f"{sources[name]}: schema table {name} is documented in {len(places)} places "
                            f"({', '.join(places) or 'none'}); expected exactly one")
    if verbose:
        print(f"keys: {sum(len(k) for k in tables.values())} in {len(tables)} schema tables, "
              f"{documented} documented in marked tables")


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    found = set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(r"#+ ", line):
            found.add(slug(line.lstrip("#")))
    return found


def check_links(problems, verbose):
    count = 0
    for path in markdown_files():
        in_code = False
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for groups in LINK.findall(line):
                target = groups[0] or groups[1]
                if re.match(r"[a-z]+:", target):
                    continue
                count += 1
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = f"{rel(path)}:{n}"
                if not resolved.startswith(ROOT + os.sep) and resolved != ROOT:
                    problems.append(f"{where}: link {target} leaves the repository")
                elif not os.path.exists(resolved):
                    problems.append(f"{where}: link {target} does not resolve")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    problems.append(f"{where}: link {target}: no heading #{anchor} in {rel(resolved)}")
    if verbose:
        print(f"links: {count} relative links checked")


def check_outside_pointers(problems, verbose):
    folders = ["src", "cl", "include", "tests", "tools", "benchmarks", "presets", "docs"]
    paths = [os.path.join(ROOT, "README.md")]
    for folder in folders:
        paths += glob.glob(os.path.join(ROOT, folder, "**", "*"), recursive=True)
    this = os.path.abspath(__file__)
    for path in sorted(paths):
        if not os.path.isfile(path) or os.path.abspath(path) == this or path.endswith(".json"):
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.split("\n"), 1):
            if OUTSIDE.search(line):
                problems.append(f"{rel(path)}:{n}: points outside the repository: {line.strip()[:100]}")


def main():
    verbose = "-v" in sys.argv[1:]
    problems = []
    tables, sources = schema_tables(problems)
    check_keys(tables, sources, problems, verbose)
    check_links(problems, verbose)
    check_outside_pointers(problems, verbose)
    for p in problems:
        print(p)
    print(f"check_docs: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
