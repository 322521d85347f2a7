#!/usr/bin/env python3
"""Where a WASM module's bytes are: code size per function, grouped, and the data segments.

    python3 scripts/wasm-size-table.py <module.wasm> [--top N] [--folders FILE] [--embedded DIR]

The module must keep its function names (link with --profiling-funcs, see docs/wasm.md). Each
function body (code section) is put in a group by its demangled name (llvm-cxxfilt): nlohmann::*
(by part), std::*, the binding's exports, libc and runtime, and gpucalc::* by the core folder
whose object defines it (--folders FILE: lines "folder<TAB>symbol", from llvm-nm --defined-only
over the build's objects; a header's inline function goes to the first folder listing it, and
what LTO renamed stays unplaced). Functions are counted after inlining: a loader that inlines
nlohmann's accessors counts them as its own. The data segments are one group. For each group: raw bytes, and gzip -9 of the group's bytes alone (a rough
share: gzip of the whole module is less than the sum, as groups share strings and code shapes).
"""
import gzip
import os
import subprocess
import sys


def leb(buf, i):
    result = shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, i


def sections(buf):
    assert buf[:4] == b"\0asm", "not a wasm module"
    i = 8
    while i < len(buf):
        sid = buf[i]
        size, j = leb(buf, i + 1)
        yield sid, buf[j:j + size]
        i = j + size


def imported_functions(body):
    n, i = leb(body, 0)
    count = 0
    for _ in range(n):
        for _ in range(2):  # module, field
            ln, i = leb(body, i)
            i += ln
        kind = body[i]
        i += 1
        if kind == 0:
            _, i = leb(body, i)
            count += 1
        elif kind == 1:
            i += 1
            flags, i = leb(body, i)
            _, i = leb(body, i)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 2:
            flags, i = leb(body, i)
            _, i = leb(body, i)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 3:
            i += 2
    return count


def function_names(body):
    ln, i = leb(body, 0)
    if body[i:i + ln] != b"name":
        return None
    i += ln
    names = {}
    while i < len(body):
        sub = body[i]
        size, j = leb(body, i + 1)
        if sub == 1:
            n, k = leb(body, j)
            for _ in range(n):
                idx, k = leb(body, k)
                sl, k = leb(body, k)
                names[idx] = body[k:k + sl].decode("utf-8", "replace")
                k += sl
        i = j + size
    return names


def group_of(name):
    if "nlohmann" in name:
        for part, label in (("lexer", "nlohmann lexer"), ("parser", "nlohmann parser"),
                            ("serializer", "nlohmann serializer (dump)"), ("dtoa", "nlohmann Grisu (dump)"),
                            ("json_sax", "nlohmann SAX")):
            if part in name.split("(")[0]:
                return label
        return "nlohmann basic_json (DOM, std::map, get/at)"
    base = name.replace("decltype(auto) ", "").split("(")[0]
    if base.startswith("gpucalc_"):
        return "wasm/ binding (exports)"
    if base.startswith("gpucalc::") or "gpucalc::" in base or base.startswith("(anonymous"):
        return "gpucalc"
    if "std::" in base:
        return "std::"
    return "libc and runtime"


def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 0
    folders = {}
    if "--folders" in sys.argv:
        # name -> core folder, from `emnm --defined-only` over the objects (see docs/wasm.md)
        with open(sys.argv[sys.argv.index("--folders") + 1]) as f:
            for line in f:
                folder, _, name = line.rstrip("\n").partition("\t")
                folders.setdefault(name, folder)
    buf = open(path, "rb").read()
    n_imports = 0
    bodies = []
    data = b""
    names = {}
    for sid, body in sections(buf):
        if sid == 2:
            n_imports = imported_functions(body)
        elif sid == 10:
            n, i = leb(body, 0)
            for _ in range(n):
                size, j = leb(body, i)
                bodies.append(body[j:j + size])
                i = j + size
        elif sid == 11:
            data = body
        elif sid == 0:
            got = function_names(body)
            if got is not None:
                names = got
    raw = [names.get(n_imports + k, f"func{n_imports + k}") for k in range(len(bodies))]
    demangled = subprocess.run(["llvm-cxxfilt"], input="\n".join(raw), capture_output=True,
                               text=True).stdout.split("\n")
    groups = {}
    rows = []
    for k, body in enumerate(bodies):
        name = demangled[k] if k < len(demangled) and demangled[k] else raw[k]
        g = group_of(name)
        if g == "gpucalc":
            g = "gpucalc " + folders.get(raw[k], folders.get(name, "(binding, inlined templates)"))
        groups.setdefault(g, []).append(body)
        rows.append((len(body), name, g))
    if "--embedded" in sys.argv:
        # the catalog files as embedded (build/wasm/core/embedded-data), each its own group
        d = sys.argv[sys.argv.index("--embedded") + 1]
        for f in sorted(os.listdir(d)):
            text = open(os.path.join(d, f), "rb").read()
            if text in data:
                groups[f"data: {f}"] = [text]
                data = data.replace(text, b"", 1)
    groups["data: the rest (strings, tables)"] = [data]
    total = len(buf)
    print(f"module {total} bytes, gzip -9 {len(gzip.compress(buf, 9))} bytes")
    print("| group | functions | bytes | gzip alone |")
    print("|---|---|---|---|")
    for g, parts in sorted(groups.items(), key=lambda kv: -sum(map(len, kv[1]))):
        b = b"".join(parts)
        print(f"| {g} | {len(parts)} | {len(b):,} | {len(gzip.compress(b, 9)):,} |")
    if top:
        for size, name, g in sorted(rows, reverse=True)[:top]:
            print(f"{size:8d}  {g:40.40s}  {name[:140]}")


if __name__ == "__main__":
    main()
