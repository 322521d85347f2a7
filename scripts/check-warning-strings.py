#!/usr/bin/env python3
"""Every warning code the core can put in a result has its sentence on the page, in each language.

The page words a result's warnings from `w_<code>` strings (web/sections/notes.js); a code without
one is shown as "a figure could not be computed", which is wrong for most codes. This reads the
codes from the core's sources (the string literals of every `warnings.emplace_back(...)` /
`push_back(...)`, and the constants such a call names), and checks:
  - each code has `w_<code>` in web/i18n/<lang>.json or one of its lazily loaded parts
    (web/i18n/*/<lang>.json), for en and zh;
  - each `w_` string but w_other names a code the core emits (no string left behind by a rename).
usage: check-warning-strings.py REPO_ROOT
"""
import json
import pathlib
import re
import sys

CALL = re.compile(r"\bwarnings\.(?:emplace_back|push_back)\(")
LITERAL = re.compile(r'"([a-z0-9_]+)"')
CONSTANT = re.compile(r'constexpr\s+const\s+char\s*\*\s*(k\w+)\s*=\s*"([a-z0-9_]+)"')
IDENT = re.compile(r"\b(k[A-Z]\w*)\b")


def call_argument(text, start):
    """The text between the call's parentheses (balanced), from just after its '('."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def core_codes(core):
    codes = {}
    for path in sorted(core.rglob("*.[ch]pp")):
        text = path.read_text(encoding="utf-8")
        constants = dict(CONSTANT.findall(text))
        for m in CALL.finditer(text):
            arg = call_argument(text, m.end())
            found = LITERAL.findall(arg) + [constants[k] for k in IDENT.findall(arg) if k in constants]
            for code in found:
                codes.setdefault(code, f"{path.relative_to(core.parents[1])}:{text.count(chr(10), 0, m.start()) + 1}")
    return codes


def strings(i18n, lang):
    keys = set(json.loads((i18n / f"{lang}.json").read_text(encoding="utf-8")))
    for part in sorted(i18n.glob(f"*/{lang}.json")):
        keys |= set(json.loads(part.read_text(encoding="utf-8")))
    return {k[2:] for k in keys if k.startswith("w_")}


def main():
    root = pathlib.Path(sys.argv[1])
    codes = core_codes(root / "core" / "src")
    problems = []
    if len(codes) < 10:
        problems.append(f"only {len(codes)} warning codes found in core/src: the scan is broken")
    for lang in ("en", "zh"):
        words = strings(root / "web" / "i18n", lang)
        for code, where in sorted(codes.items()):
            if code not in words:
                problems.append(f"{lang}: no w_{code} for the warning emitted at {where}")
        for code in sorted(words - set(codes) - {"other"}):
            problems.append(f"{lang}: w_{code} names no warning the core emits")
    for p in problems:
        print(p)
    print(f"warning strings: {len(codes)} codes, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
