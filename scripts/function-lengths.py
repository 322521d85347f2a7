#!/usr/bin/env python3
"""Lists the functions longer than a limit in C++ sources (run by ctest as `function-lengths`).

A function is a definition that opens at the start of a line (namespace scope, the project's
style: namespaces are not indented) or two spaces in (a member function defined in its class),
and closes at the `}` that balances it; its length counts the lines from the signature's first
line to the closing brace. Lambdas are part of the enclosing definition.
usage: function-lengths.py [--max N] PATH...  (exit 1 if any function is longer than N, default 120)
"""
import os
import re
import sys

HEAD = re.compile(r"^[A-Za-z_][\w:<>,\s\*&~\[\]]*\s[\*&]?[\w:~<>=!+\-\*/\[\]]+\s*\(")


def strip(line):
    """The line without string and character literals and // comments (braces in them do not count)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//", 1)[0]


def functions(path):
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    i, n = 0, len(lines)
    in_comment = False
    while i < n:
        line = lines[i]
        if in_comment:
            in_comment = "*/" not in line
            i += 1
            continue
        if line.lstrip().startswith("/*") and "*/" not in line:
            in_comment = True
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent in (0, 2) and HEAD.match(line.lstrip(" ")) and not line.lstrip(" ").startswith(("namespace", "struct", "class", "enum", "using",
                                                     "typedef", "template", "return", "static_assert")):
            # The signature may span lines: find the body's opening brace before a ';'.
            j, depth, opened = i, 0, False
            while j < n:
                s = strip(lines[j])
                if not opened and ";" in s and "{" not in s:
                    break
                for ch in s:
                    if ch == "{":
                        depth += 1
                        opened = True
                    elif ch == "}":
                        depth -= 1
                if opened and depth == 0:
                    name = re.search(r"([\w:~]+)\s*\(", line)
                    yield (name.group(1) if name else "?", i + 1, j - i + 1)
                    break
                j += 1
            i = max(i + 1, j + 1 if opened else i + 1)
            continue
        i += 1


def main(argv):
    limit = 120
    if len(argv) >= 2 and argv[0] == "--max":
        limit, argv = int(argv[1]), argv[2:]
    long_ones = []
    for root in argv:
        paths = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith((".cpp", ".hpp"))]
        for path in sorted(paths):
            for name, line, length in functions(path):
                if length > limit:
                    long_ones.append((length, f"{path}:{line}: {name} is {length} lines (at most {limit})"))
    for _, text in sorted(long_ones, reverse=True):
        print(text)
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
