#!/usr/bin/env python3
"""The core's stage boundaries, checked from the #include lines (run by ctest as `layers`).

- Every source of core/src/ lies in a stage folder (catalog, scenario, model, evaluate, output,
  validation).
- A stage includes, directly or through any header it includes, only its own headers and those of
  the stages before it: model/ is the pure formula library, so it never sees evaluate/ (the result
  record, OfferingResult), output/ or validation/.
usage: check-layers.py CORE_DIR  (exit 1 with one line per violation)
"""
import os
import re
import sys

STAGES = ["catalog", "scenario", "model", "evaluate", "output", "validation"]
# What each stage may see. catalog and scenario are both inputs; scenario reads catalog ids.
ALLOWED = {
    "catalog": {"catalog", "scenario", "model"},
    "scenario": {"catalog", "scenario"},
    "model": {"catalog", "scenario", "model"},
    "evaluate": {"catalog", "scenario", "model", "evaluate"},
    "output": {"catalog", "scenario", "model", "evaluate", "output"},
    "validation": set(STAGES),
}
# The public headers (core/include/gpucalc/) and the stage each belongs to.
PUBLIC = {
    "bench_results.hpp": "catalog", "calibration.hpp": "catalog", "catalog.hpp": "catalog",
    "error_band.hpp": "catalog", "error_bands.hpp": "catalog", "evaluate.hpp": "evaluate",
    "folds.hpp": "validation", "memory.hpp": "model", "model_constants.hpp": "catalog",
    "precision.hpp": "catalog", "result.hpp": "catalog", "result_fields.hpp": "output",
    "scenario.hpp": "scenario", "serving_calibration.hpp": "catalog", "text.hpp": "output",
    "units.hpp": "catalog",
    "validation.hpp": "validation", "validation_disagg.hpp": "validation",
    "version.hpp": "output",
}
# The one JSON writer (a leaf header): every stage that writes a document or a trace uses it;
# model/ writes nothing and never sees it.
SHARED = {"src/output/json_writer.hpp": {"catalog", "scenario", "evaluate", "output", "validation"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main(core):
    src, inc = os.path.join(core, "src"), os.path.join(core, "include")
    problems = []
    for name in sorted(os.listdir(src)):
        if name not in STAGES:
            problems.append(f"core/src/{name}: not in a stage folder ({', '.join(STAGES)})")
    for name in sorted(os.listdir(os.path.join(inc, "gpucalc"))):
        if name not in PUBLIC:
            problems.append(f"core/include/gpucalc/{name}: no stage in scripts/check-layers.py")

    def resolve(path, target):
        for base in (os.path.dirname(path), src, inc):
            candidate = os.path.normpath(os.path.join(base, target))
            if os.path.isfile(candidate):
                return candidate
        return None

    def stage_of(path):
        rel = os.path.relpath(path, core).split(os.sep)
        if rel[0] == "src":
            return rel[1]
        return PUBLIC.get(rel[-1], "?")

    for stage in STAGES:
        folder = os.path.join(src, stage)
        if not os.path.isdir(folder):
            continue
        for root, _, files in os.walk(folder):
            for f in sorted(files):
                start = os.path.join(root, f)
                seen, todo = {start: None}, [start]
                while todo:
                    path = todo.pop()
                    with open(path, encoding="utf-8") as fh:
                        for target in INCLUDE.findall(fh.read()):
                            found = resolve(path, target)
                            if found is None or found in seen:
                                continue
                            seen[found] = path
                            todo.append(found)
                            shared = SHARED.get(os.path.relpath(found, core).replace(os.sep, "/"))
                            if shared is not None and stage in shared:
                                continue
                            if stage_of(found) not in ALLOWED[stage]:
                                chain, p = [], found
                                while p is not None:
                                    chain.append(os.path.relpath(p, core))
                                    p = seen[p]
                                problems.append(f"{os.path.relpath(start, core)} ({stage}) sees "
                                                f"{stage_of(found)}: {' <- '.join(chain)}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "core"))
