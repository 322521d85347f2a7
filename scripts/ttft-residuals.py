#!/usr/bin/env python3
"""Where the serving model's TTFT misses, read off the measured serving table.

Usage: scripts/ttft-residuals.py [VALIDATE_JSON]
  VALIDATE_JSON is the output of `gpucalc --validate --format json` (default: run
  build/native/cli/gpucalc). Only the newest run of each configuration is read; TTFT is the
  statistic the row is scored on (median where the row has one, else mean).

It prints four checks of the hypotheses behind the TTFT error, each from measured figures only
(the model's own figures are printed beside them where the check compares):
  1. TTFT in decode steps (TTFT x measured interactivity) per engine, GPU and users: a cost
     paid per decode step before the first token (a polling or streaming interval) gives a flat
     ratio as users grow; a fixed per-request cost gives a falling one.
  2. Prompt cost: TTFT at 8k/1k less TTFT at 1k/1k, same configuration and users (at most 8),
     measured against the model: the prefill of 6.45k more prompt tokens, free of the fixed
     per-request cost and of queueing.
  3. The rise of TTFT with users against the output tokens per second of the 8-GPU server
     (a single-threaded detokenizer or HTTP server would tie the two across GPUs).
  4. The same prompt with a longer output (1k/1k against 1k/8k at the same users): the
     requests arrive 8 times less often at 1k/8k, so a cost that follows the arrival rate
     (queueing) differs between the two, and a cost per request or per step does not.
"""
import collections
import json
import re
import subprocess
import sys


def load(argv):
    if len(argv) > 1:
        with open(argv[1]) as f:
            return json.load(f)
    out = subprocess.run(["build/native/cli/gpucalc", "--validate", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def shape(row):
    s = row["scenario"]
    return int(re.search(r"input=(\d+)", s).group(1)), int(re.search(r"output=(\d+)", s).group(1))


def config(row):
    return (row["gpu"], row["model"], row["weights"], row["engine"], row["engine_version"],
            row["tp"], row["ep"], row["dp_attention"], row["mtp"])


def label(row):
    return "%-8s %-13s %s %-6s %-16s tp%d ep%d dpa%d mtp%d" % (
        row["gpu"], row["model"], row["weights"], row["engine"], row["engine_version"][:16],
        row["tp"], row["ep"], row["dp_attention"], row["mtp"])


def steps_per_ttft(rows):
    print("1. TTFT in decode steps (TTFT x measured interactivity), 1k prompts")
    table = collections.defaultdict(list)
    for r in rows:
        if shape(r)[0] < 1000 and r["measured_interactivity"]:
            table[(r["engine"], r["gpu"])].append(
                (r["concurrency"], r["measured_ttft_s"] * r["measured_interactivity"]))
    for key in sorted(table):
        cells = " ".join("%d:%.0f" % (c, k) for c, k in sorted(table[key]))
        print("  %-7s %-9s users:steps %s" % (key[0], key[1], cells))


def prompt_cost(rows):
    print("2. TTFT 8k/1k less 1k/1k, same configuration and users (<= 8): measured / model")
    short = {config(r) + (r["concurrency"],): r for r in rows if shape(r)[0] < 1000 and shape(r)[1] < 1000}
    for r in rows:
        if shape(r)[0] < 5000 or r["concurrency"] > 8:
            continue
        s = short.get(config(r) + (r["concurrency"],))
        if s is None or not (r["predicted_ttft_s"] > 0 and s["predicted_ttft_s"] > 0):
            continue
        measured = r["measured_ttft_s"] - s["measured_ttft_s"]
        model = r["predicted_ttft_s"] - s["predicted_ttft_s"]
        print("  %s users %3d: %.3f s / %.3f s = %.2f" % (label(r), r["concurrency"], measured,
                                                         model, measured / model))


def rise_against_tokens(rows):
    print("3. TTFT rise over the configuration's fewest users, against output tokens/s per 8-GPU server")
    by = collections.defaultdict(list)
    for r in rows:
        if shape(r)[0] < 1000 and r["measured_interactivity"]:
            by[config(r) + shape(r)].append(r)
    for key in sorted(by, key=str):
        group = sorted(by[key], key=lambda r: r["concurrency"])
        if len(group) < 2:
            continue
        base = group[0]
        for r in group[1:]:
            per_server = r["concurrency"] * (8 // r["tp"]) * r["measured_interactivity"]
            print("  %s users %3d: +%.3f s at %5.0f tokens/s" % (
                label(r), r["concurrency"], r["measured_ttft_s"] - base["measured_ttft_s"], per_server))


def output_length(rows):
    print("4. Same prompt and users, output 1k against 8k: TTFT (measured, model)")
    by = {config(r) + (r["concurrency"], shape(r)): r for r in rows}
    for key, r in sorted(by.items(), key=lambda kv: str(kv[0])):
        i, o = key[-1]
        if i > 1000 or o > 1000:
            continue
        long = next((v for k, v in by.items() if k[:-1] == key[:-1] and k[-1][0] == i and k[-1][1] > 5 * o), None)
        if long is None:
            continue
        print("  %s users %3d: 1k/1k %.3f s (model %.3f), 1k/8k %.3f s (model %.3f), %s" % (
            label(r), r["concurrency"], r["measured_ttft_s"], r["predicted_ttft_s"],
            long["measured_ttft_s"], long["predicted_ttft_s"], r["ttft_statistic"]))


def main(argv):
    report = load(argv)
    rows = [r for r in report["serving"]["rows"] if r["newest"] and r["measured_ttft_s"]]
    steps_per_ttft(rows)
    prompt_cost(rows)
    rise_against_tokens(rows)
    output_length(rows)


if __name__ == "__main__":
    main(sys.argv)
