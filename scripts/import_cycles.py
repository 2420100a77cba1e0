#!/usr/bin/env python3
"""Import cycles between the module files of each crate in the Cargo workspace.

    scripts/import_cycles.py [root]     # root: the workspace (default: .)
    scripts/import_cycles.py --self-test

Modules are found as rustc finds them: from each target's root (src/lib.rs, src/main.rs,
src/bin/*, tests/*, benches/*, examples/*) through `mod x;` declarations (x.rs or
x/mod.rs, `#[path]` honoured); an inline `mod x { ... }` belongs to its file. File A has
an edge to file B when A names B by a `crate::`, `super::` or `self::` path, or a bare
path starting at one of A's child modules, in a `use` (brace groups expanded) or in code;
a path counts as its longest prefix that names a module file. A declaration is not an
edge, nor is a path to one of the file's ancestors (its folder's shared header). Every
group of files tied in a loop is printed with one cycle through it; exit status 1 if any.
"""

import re
import sys
import tempfile
import tomllib
from pathlib import Path

RAW_STRING = re.compile(r'b?r(#*)"')
CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'")
TOKEN = re.compile(r"\$?[A-Za-z_]\w*|::|\S")
IDENT = re.compile(r"\$?[A-Za-z_]\w*$")
PATH_ATTR = re.compile(r'#\s*\[\s*path\s*=\s*"([^"]+)"\s*\]\s*(?:#\s*\[[^\]]*\]\s*)*'
                       r'(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;')


def strip(src):
    """`src` with comments, strings and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        raw = RAW_STRING.match(src, i)
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j, level = i + 2, 1
            while j < n and level:
                step = src[j:j + 2]
                level += (step == "/*") - (step == "*/")
                j += 2 if step in ("/*", "*/") else 1
        elif raw and not (i and (src[i - 1].isalnum() or src[i - 1] == "_")):
            close = '"' + raw.group(1)
            end = src.find(close, raw.end())
            j = n if end < 0 else end + len(close)
        elif src[i] == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
        elif src[i] == "'" and CHAR.match(src, i):
            j = CHAR.match(src, i).end()
        else:
            out.append(src[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", src[i:j]))
        i = j
    return "".join(out)


def tokens(src):
    """The tokens of `src` (comments and literals gone), each with its line."""
    text, result, line, at = strip(src), [], 1, 0
    for m in TOKEN.finditer(text):
        line, at = line + text.count("\n", at, m.start()), m.start()
        result.append((m.group(), line))
    return result


def expand_use(toks, prefix=()):
    """The paths a use tree names: `a::{b, c::{d}}` -> a::b, a::c::d."""
    paths, path, i = [], list(prefix), 0
    while i < len(toks):
        tok = toks[i]
        if tok == "{":
            depth, start = 1, i + 1
            for j in range(start, len(toks)):
                depth += (toks[j] == "{") - (toks[j] == "}")
                if depth == 0 or (depth == 1 and toks[j] == ","):
                    paths += expand_use(toks[start:j], path)
                    start = j + 1
                if depth == 0:
                    return paths
        if tok == "as":
            break
        if IDENT.match(tok):
            path.append(tok)
        i += 1
    return paths + [path] if path else paths


def scan(src):
    """A file's `mod x;` declarations and the paths it names, each with the inline
    module path (`mod tests { ... }`) it sits in."""
    toks = tokens(src)
    words = [t for t, _ in toks]
    decls, refs, inline, depth, i = [], [], [], 0, 0
    while i < len(toks):
        tok, line = toks[i]
        nxt, prev = words[i + 1:i + 3] + ["", ""], words[max(i - 2, 0):i]
        here = tuple(name for name, _ in inline)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if inline and inline[-1][1] == depth:
                inline.pop()
        elif tok == "mod" and IDENT.match(nxt[0]) and nxt[1] in (";", "{"):
            if nxt[1] == ";":
                decls.append((here, nxt[0]))
            else:
                inline.append((nxt[0], depth))
                depth += 1
            i += 3
            continue
        elif tok == "use" and (IDENT.match(nxt[0]) or nxt[0] in ("::", "{")):
            end, level = i + 1, 0
            while end < len(words) and not (level == 0 and words[end] in (";", "}")):
                level += (words[end] == "{") - (words[end] == "}")
                end += 1
            refs += [(here, path, line) for path in expand_use(words[i + 1:end])]
            i = end
            continue
        elif IDENT.match(tok) and nxt[0] == "::" and IDENT.match(nxt[1]) and prev[-1:] != ["::"] \
                and prev != ["(", "in"]:
            path, i = [tok], i + 1
            while words[i:i + 1] == ["::"] and i + 1 < len(words) and IDENT.match(words[i + 1]):
                path.append(words[i + 1])
                i += 2
            refs.append((here, path, line))
            continue
        i += 1
    return decls, refs


def load_target(root_file):
    """{file: module path} of one target, and each file's references."""
    modules, refs, todo = {(): root_file}, {}, [((), root_file, root_file.parent)]
    while todo:
        module, file, own_dir = todo.pop()
        src = file.read_text(encoding="utf-8", errors="replace")
        decls, refs[file] = scan(src)
        paths = {name: file.parent / p for p, name in PATH_ATTR.findall(src)}
        for inline, name in decls:
            child = paths.get(name) if not inline else None
            if child is None:
                base = own_dir.joinpath(*inline)
                child = next((c for c in (base / f"{name}.rs", base / name / "mod.rs") if c.is_file()), None)
            path = module + inline + (name,)
            if child is not None and child.is_file() and path not in modules:
                modules[path] = child
                mod_rs = child.name == "mod.rs" or name in paths
                todo.append((path, child, child.parent if mod_rs else child.parent / child.stem))
    return modules, refs


def resolve(path, context, file_module, modules):
    """The module a path names: its longest prefix that is a module file."""
    if path[0] in ("crate", "$crate"):
        base, rest = (), path[1:]
    elif path[0] in ("self", "super"):
        k = next((k for k, seg in enumerate(path) if seg not in ("self", "super")), len(path))
        ups = path[:k].count("super")
        if ups > len(context):
            return None
        base, rest = context[:len(context) - ups], path[k:]
    elif file_module + (path[0],) in modules:
        base, rest = file_module + (path[0],), path[1:]
    else:
        return None
    for seg in rest:
        if base + (seg,) not in modules:
            break
        base += (seg,)
    while base not in modules:
        base = base[:-1]
    return base


def target_edges(root_file):
    """{file: {file it imports: (line, path) of the first reference}} of one target."""
    modules, refs = load_target(root_file)
    module_of = {file: module for module, file in modules.items()}
    edges = {}
    for file, file_refs in refs.items():
        edges[file] = {}
        mine = module_of[file]
        for inline, path, line in file_refs:
            to = resolve(path, mine + inline, mine, modules)
            if to is None or mine[:len(to)] == to:  # itself or an ancestor
                continue
            shown = "::".join(path[:-1] if path[-1] == "self" else path)
            edges[file].setdefault(modules[to], (line, shown))
    return edges


def reachable(graph, start):
    seen, todo = set(), [start]
    while todo:
        for w in graph[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def components(graph):
    """The groups of more than one file that all reach each other."""
    reach = {v: reachable(graph, v) for v in graph}
    groups = {frozenset(w for w in reach[v] if v in reach[w]) for v in graph if v in reach[v]}
    return sorted((set(g) for g in groups if len(g) > 1), key=min)


def cycle_through(start, group, graph):
    """A shortest cycle from `start` back to it within `group`."""
    came_from, todo = {start: None}, [start]
    for v in todo:  # breadth first: todo grows as it is walked
        for w in sorted(w for w in graph[v] if w in group):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return path[::-1] + [start]
            if w not in came_from:
                came_from[w] = v
                todo.append(w)


def crate_targets(crate):
    """The root files of a crate's targets."""
    patterns = ["src/lib.rs", "src/main.rs", "src/bin/*.rs", "src/bin/*/main.rs", "tests/*.rs",
                "tests/*/main.rs", "benches/*.rs", "examples/*.rs"]
    return sorted(f for pattern in patterns for f in crate.glob(pattern) if f.is_file())


def workspace_crates(root):
    manifest = tomllib.loads((root / "Cargo.toml").read_text())
    members = manifest.get("workspace", {}).get("members", [])
    crates = [d for m in members for d in sorted(root.glob(m)) if (d / "Cargo.toml").is_file()]
    return ([root] if "package" in manifest else []) + crates


def check(root):
    """Every cycle as (files in its group, one cycle, its edges' evidence), crates, files."""
    cycles, files = [], set()
    crates = workspace_crates(root)
    for crate in crates:
        for target in crate_targets(crate):
            graph = target_edges(target)
            files |= set(graph)
            for group in components(graph):
                cycle = cycle_through(min(group), group, graph)
                if not any(seen == group for seen, _, _ in cycles):
                    evidence = [(a, graph[a][b]) for a, b in zip(cycle, cycle[1:])]
                    cycles.append((group, cycle, evidence))
    return cycles, len(crates), len(files)


def main(root):
    root = Path(root).resolve()
    cycles, crates, files = check(root)

    def rel(file):
        return str(file.relative_to(root))

    for group, cycle, evidence in cycles:
        print(" -> ".join(rel(f) for f in cycle))
        for file, (line, path) in evidence:
            print(f"    {rel(file)}:{line}: {path}")
        others = sorted(rel(f) for f in group - set(cycle))
        if others:
            print(f"    (the same loop also holds {', '.join(others)})")
    if cycles:
        print(f"{len(cycles)} import cycle(s) in {crates} crates ({files} files checked)")
        return 1
    print(f"OK: no import cycles in {crates} crates ({files} files checked)")
    return 0


def self_test():
    """A fake crate with one cycle (a <-> b), a parent calling its child (p -> p/q, q
    using its parent), a test module using its file, and paths in a comment and a string."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["demo"]\n',
        "demo/Cargo.toml": '[package]\nname = "demo"\n',
        "demo/src/lib.rs": "mod a;\nmod b;\nmod p;\n",
        "demo/src/a.rs": "use crate::{b::{f, g}, p::{self}};\npub fn h() {}\n"
                         "#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        "demo/src/b.rs": "pub fn f() {\n    crate::a::h()\n}\npub fn g() {}\n",
        "demo/src/p/mod.rs": "mod q;\npub fn top() -> char {\n    q::leaf();\n    '{'\n}\n",
        "demo/src/p/q.rs": '// crate::a::h()\npub fn leaf() -> &\'static str {\n'
                           '    super::top();\n    "crate::a::h"\n}\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        cycles, crates, count = check(root)
        src = root / "demo/src"
        got = [group for group, _, _ in cycles]
        assert got == [{src / "a.rs", src / "b.rs"}], got
        assert (crates, count) == (1, 5), (crates, count)
        assert target_edges(src / "lib.rs")[src / "p/mod.rs"] == {src / "p/q.rs": (3, "q::leaf")}
    print("self-test OK")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(self_test() if args == ["--self-test"] else main(args[0] if args else "."))
