#!/usr/bin/env python3
"""Checks that the host code's dependencies go one way (issue 18, item 4).

A module is a .c file and its header (src/X.c with src/X.h or include/clmc/X.h;
a header X_internal.h belongs to X when X.c exists; any other header is no
module of its own: including it means depending on what it includes).  Module
A depends on module B when one of A's files includes one of B's, or when A's
.c file uses a function or variable that B's .c file defines (a call through a
shared header is a dependency all the same).  Modules whose .c files
implement one header (a model's driver and its parts) form a family, within
which includes do not count, only uses.  A cycle among modules is an error
(exit status 1), printed as a chain of modules with the file behind each step.

Layers are read from paths (LAYERS below: a folder or a file-name prefix under
src/ or include/clmc/), not from a list of files.  A file may use its own
layer and the ones below it; a use of a higher layer is printed as a warning
(an error with --strict-layers).

Usage: tools/check_includes.py [SOURCE_ROOT] [--strict-layers] [--quiet]
"""
import os
import re
import sys

# Include directories in meson's order (meson.build: include_directories).
INCLUDE_DIRS = ["include", "src", "cl", "tests/support"]
# Directories whose files are checked.
CHECKED_DIRS = ["src", "include"]

# Highest layer first: cli -> engine -> ensembles -> models -> runtime/rng/measure.
# Each entry names folders or file-name prefixes relative to src/ (and to
# include/clmc/ for the public headers); "tempering" matches tempering.c,
# tempering_device.h and a folder tempering/.  The longest match wins.
LAYERS = [
    ("cli", ["cli", "bench_report"]),
    ("engine", ["engine", "checkpoint", "series", "tune", "tuning", "limits", "schema", "distribute"]),
    ("ensembles", ["ensembles", "tempering"]),
    ("models", ["models", "model", "reference"]),
    ("runtime/rng/measure", ["runtime", "program", "rng", "measure", "stats", "status", "preset", "labeling",
                             "state_blob", "results", "interrupt", "defines", "fault", "output", "ranks"]),
]


def relative_to_layer_root(path):
    for root in ("include/clmc/", "src/"):
        if path.startswith(root):
            return path[len(root):]
    return path


def layer_of(path):
    """(index, name) of the layer of `path`, or None when no entry matches."""
    name = relative_to_layer_root(path)
    best = None
    for index, (layer, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or (name.startswith(prefix) and name[len(prefix)] in "_./"):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), index, layer)
    return best and best[1:]


# ---- Reading C ---------------------------------------------------------------

TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip_comments_and_strings(text):
    """Comments become a space, literals an empty literal; newlines are kept."""
    def replace(match):
        token = match.group(0)
        if token.startswith("/"):
            return " " + "\n" * token.count("\n")
        return token[0] * 2
    return TOKEN.sub(replace, text)


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
PREPROCESSOR_LINE = re.compile(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', re.M)
IDENTIFIER = re.compile(r'\b[A-Za-z_]\w*\b')
FUNCTION_HEAD = re.compile(r'\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*$', re.S)
VARIABLE_HEAD = re.compile(r'\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*=\s*$', re.S)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else"}


def top_level_definitions(code):
    """Names of the non-static functions and variables `code` defines at file scope."""
    code = PREPROCESSOR_LINE.sub(lambda m: "\n" * m.group(0).count("\n"), code)
    names, depth, start = set(), 0, 0
    for index, char in enumerate(code):
        if char == "{":
            if depth == 0:
                head = code[start:index]
                words = set(IDENTIFIER.findall(head))
                function = FUNCTION_HEAD.search(head)
                variable = VARIABLE_HEAD.search(head)
                if words & {"static", "typedef"}:
                    pass
                elif function and function.group(1) not in KEYWORDS:
                    names.add(function.group(1))
                elif variable and "extern" not in words:
                    names.add(variable.group(1))
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                start = index + 1
        elif char == ";" and depth == 0:
            statement = code[start:index]
            words = set(IDENTIFIER.findall(statement))
            match = re.search(r'\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=[^;]*)?$', statement, re.S)
            if match and "(" not in statement and len(words) > 1 and \
                    not words & {"static", "typedef", "extern", "struct", "enum", "union"}:
                names.add(match.group(1))
            start = index + 1
    return names


# ---- The graph -----------------------------------------------------------------

DECLARATION = re.compile(r'\b([A-Za-z_]\w*)\s*(?:\([^;{}]*\)|(?:\[[^\]]*\]\s*)*)\s*;')


def top_level_declarations(code):
    """Names a header declares at file scope (prototypes, extern variables)."""
    code = PREPROCESSOR_LINE.sub(lambda m: "\n" * m.group(0).count("\n"), code)
    flat, depth = [], 0
    for char in code:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            flat.append(";")  # a definition's body ends a statement
        elif depth == 0:
            flat.append(char)
    names = set()
    for statement in "".join(flat).split(";"):
        words = set(IDENTIFIER.findall(statement))
        if words & {"typedef", "static"}:
            continue
        match = DECLARATION.search(statement + ";")
        if match and ("(" in statement or "extern" in words):
            names.add(match.group(1))
    return names


def source_files(root):
    files = []
    for top in CHECKED_DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return sorted(files)


def resolve_include(root, including, target):
    """The file `#include "target"` in `including` reads: its own folder first,
    then the include directories in order, as the compiler does."""
    candidates = [os.path.join(os.path.dirname(including), target)]
    candidates += [os.path.join(folder, target) for folder in INCLUDE_DIRS]
    for candidate in candidates:
        if os.path.isfile(os.path.join(root, candidate)):
            return os.path.normpath(candidate).replace(os.sep, "/")
    return None


def module_of(path, files):
    """The module a file belongs to (a path without extension), or None for a
    header that is no module's (its includes count for its includer)."""
    stem = path[:-2]
    if path.endswith(".c"):
        return stem
    c_files = [f for f in files if f.endswith(".c")]
    base = os.path.basename(stem)
    for suffix in ("", "_internal"):
        if suffix and not base.endswith(suffix):
            continue
        wanted = base[:len(base) - len(suffix)] if suffix else base
        same_folder = os.path.join(os.path.dirname(stem), wanted) + ".c"
        if same_folder in c_files:
            return same_folder[:-2]
        if path.startswith("include/"):
            matches = [f for f in c_files if os.path.basename(f) == wanted + ".c"]
            if len(matches) == 1:
                return matches[0][:-2]
    return None


def build_graph(root):
    """Files, their resolved includes, and what the .c files define and use
    (name -> defining .c), the headers declare, and each file's module."""
    files = source_files(root)
    text = {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text[path] = f.read()
    includes = {}
    for path in files:
        resolved = (resolve_include(root, path, target) for target in INCLUDE.findall(text[path]))
        includes[path] = [r for r in resolved if r in text]
    code = {path: strip_comments_and_strings(text[path]) for path in files}
    defines = {path: top_level_definitions(code[path]) for path in files if path.endswith(".c")}
    declares = {path: top_level_declarations(code[path]) for path in files if path.endswith(".h")}
    defined_by = {}
    for path, names in defines.items():
        for name in names:
            defined_by.setdefault(name, []).append(path)
    uses = {}
    for path in defines:
        names = set(IDENTIFIER.findall(code[path]))
        uses[path] = sorted((defined_by[name][0], name) for name in names
                            if len(defined_by.get(name, [])) == 1 and defined_by[name][0] != path)
    modules = {path: module_of(path, files) for path in files}
    return files, includes, defines, declares, uses, modules


def families(files, defines, declares, modules):
    """Family of each module: modules whose .c files implement one header
    (define what it declares, or are its module) belong together, e.g. a
    model's driver and the parts that share its internal header."""
    parent = {m: m for m in set(modules.values()) if m}

    def find(m):
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    for header, names in declares.items():
        members = [modules[c] for c, defined in defines.items() if defined & names and modules[c]]
        if modules[header]:
            members.append(modules[header])
        for member in members[1:]:
            parent[find(member)] = find(members[0])
    return {m: find(m) for m in parent}


def dependencies(files, includes, defines, declares, uses, modules):
    """File-level edges (from, to, why) for the layer check, and module-level
    edges {module: {module: (from, to, why)}} for the cycle check.

    Using a name another .c file defines means depending on its module, also
    within a family.  Including a header means depending on its module, except
    within a family (a part file needs its family's types); a header of no
    module is looked through (its includes count for the includer)."""
    family = families(files, defines, declares, modules)
    file_edges, graph = [], {}

    def add(source, target, why):
        if modules[target] != modules[source]:
            graph.setdefault(modules[source], {}).setdefault(modules[target], (source, target, why))

    for source in files:
        for target in includes[source]:
            file_edges.append((source, target, "includes"))
        for owner, name in uses.get(source, []):
            file_edges.append((source, owner, "uses " + name))
            add(source, owner, "uses " + name)
        if modules[source] is None:
            continue
        seen, stack = set(), [(t, "includes") for t in includes[source]]
        while stack:
            header, why = stack.pop()
            if header in seen:
                continue
            seen.add(header)
            looked_through = modules[header] is None or family[modules[header]] == family[modules[source]]
            if not looked_through:
                add(source, header, why)
            else:
                stack += [(t, f"includes (through {header})") for t in includes[header]]
    return file_edges, graph


def strongly_connected(graph):
    """Components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, components, counter = {}, {}, [], set(), [], [0]

    def connect(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            connect(node)
    return components


def shortest_cycle(graph, start, members):
    """Modules of the shortest cycle through `start` inside `members` (BFS)."""
    previous, frontier = {start: None}, [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph.get(node, {})):
                if nxt == start:
                    chain = [node]
                    while previous[chain[-1]] is not None:
                        chain.append(previous[chain[-1]])
                    return list(reversed(chain)) + [start]
                if nxt in members and nxt not in previous:
                    previous[nxt] = node
                    following.append(nxt)
        frontier = following
    return [start, start]


def find_cycles(graph):
    """Cycles as chains of edges (from_file, to_file, why): in each component,
    the shortest cycle through every module that no printed cycle passes."""
    cycles = []
    for component in strongly_connected(graph):
        covered = set()
        for module in component:
            if module in covered:
                continue
            chain = shortest_cycle(graph, module, set(component))
            covered.update(chain)
            cycles.append([graph[a][b] for a, b in zip(chain, chain[1:])])
    return cycles


def layer_violations(edges):
    out, unknown = [], set()
    for source, target, why in edges:
        a, b = layer_of(source), layer_of(target)
        for path, layer in ((source, a), (target, b)):
            if layer is None:
                unknown.add(path)
        if a and b and b[0] < a[0]:
            out.append((source, a[1], target, b[1], why))
    return out, sorted(unknown)


def main(argv):
    root = next((a for a in argv if not a.startswith("--")), os.path.join(os.path.dirname(__file__), ".."))
    strict_layers, quiet = "--strict-layers" in argv, "--quiet" in argv
    files, includes, defines, declares, uses, modules = build_graph(root)
    file_edges, graph = dependencies(files, includes, defines, declares, uses, modules)
    cycles = find_cycles(graph)
    violations, unknown = layer_violations(file_edges)
    for chain in cycles:
        names = [modules[chain[0][0]]] + [modules[target] for _, target, _ in chain]
        print("error: dependency cycle: " + " -> ".join(os.path.basename(name) for name in names))
        for source, target, why in chain:
            print(f"  {source} {why} -> {target}")
    for source, source_layer, target, target_layer, why in violations:
        kind = "error" if strict_layers else "warning"
        print(f"{kind}: layer {source_layer} uses layer {target_layer}: {source} {why} -> {target}")
    for path in unknown:
        print(f"warning: {path}: no layer (add its folder or prefix to LAYERS in tools/check_includes.py)")
    if not quiet:
        print(f"check_includes: {len(files)} files, {len(set(m for m in modules.values() if m))} modules, "
              f"{len(cycles)} cycles, {len(violations)} layer warnings")
    return 1 if cycles or (strict_layers and violations) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
