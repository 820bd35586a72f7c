#!/usr/bin/env python3
"""Self and inclusive instruction counts per function of a callgrind output file, per request.

Usage: callgrind-top.py FILE REQUESTS [LIMIT] [--inclusive] [--by-object] [--callers=SYMBOL] [--callees=SYMBOL]
(SYMBOL: a substring of the mangled name)
callgrind_annotate 3.19 charges everything to clone() for the Swift server's threads; this reads the format
directly. Names are demangled with swift-demangle when it is on PATH (or /opt/swift/usr/bin).
"""
import collections
import os
import re
import shutil
import subprocess
import sys


def parse(path):
    names = {"fn": {}, "ob": {}}
    self_cost = collections.Counter()
    inclusive = collections.Counter()
    objects = {}
    current_fn = None
    current_ob = None
    pending_call = None
    edges = collections.Counter()
    compressed = re.compile(r"\((\d+)\)(?: (.*))?")

    def resolve(kind, value):
        match = compressed.fullmatch(value)
        if not match:
            return value
        key, name = match.groups()
        table = names["fn" if kind.endswith("fn") else "ob"]
        if name is not None:
            table[key] = name
        return table.get(key, key)

    with open(path, errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line:
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call is not None:
                    inclusive[current_fn] += cost
                    edges[(current_fn, pending_call)] += cost
                    pending_call = None
                else:
                    self_cost[current_fn] += cost
                    inclusive[current_fn] += cost
                continue
            if "=" not in line:
                continue
            key, value = line.split("=", 1)
            if key == "fn":
                current_fn = resolve(key, value)
                objects[current_fn] = current_ob
            elif key == "ob":
                current_ob = resolve(key, value)
            elif key == "cfn":
                callee = resolve(key, value)
            elif key == "cob":
                resolve(key, value)
            elif key == "calls":
                pending_call = callee
    return self_cost, inclusive, objects, edges


def demangle(symbols):
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    if not os.path.exists(tool):
        return {s: s for s in symbols}
    result = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(symbols), capture_output=True,
                            text=True)
    lines = result.stdout.split("\n")
    return {s: (lines[i] if i < len(lines) and lines[i] else s) for i, s in enumerate(symbols)}


def main():
    path, requests = sys.argv[1], int(sys.argv[2])
    limit = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 40
    use_inclusive = "--inclusive" in sys.argv
    self_cost, inclusive, objects, edges = parse(path)
    total = sum(self_cost.values())
    table = inclusive if use_inclusive else self_cost
    top = table.most_common(limit)
    pretty = demangle([name for name, _ in top])
    print(f"total {total / requests:,.0f} instructions per request; {'inclusive' if use_inclusive else 'self'}:")
    for name, cost in top:
        library = os.path.basename(objects.get(name) or "?")
        print(f"{cost / requests:10,.0f} {100 * cost / total:5.1f}%  {library:24.24} {pretty[name][:150]}")

    for argument in sys.argv:
        if argument.startswith("--callers=") or argument.startswith("--callees="):
            pattern = argument.split("=", 1)[1]
            callers = argument.startswith("--callers=")
            matches = collections.Counter()
            for (caller, callee), cost in edges.items():
                target, other = (callee, caller) if callers else (caller, callee)
                if pattern in target:
                    matches[other] += cost
            pretty = demangle([name for name, _ in matches.most_common(limit)])
            print(f"{'callers of' if callers else 'callees of'} {pattern}:")
            for name, cost in matches.most_common(limit):
                print(f"{cost / requests:10,.0f} {100 * cost / total:5.1f}%  {pretty[name][:170]}")

    if "--by-object" in sys.argv:
        by_object = collections.Counter()
        for name, cost in self_cost.items():
            by_object[os.path.basename(objects.get(name) or "?")] += cost
        print("by object:")
        for library, cost in by_object.most_common():
            print(f"{cost / requests:10,.0f} {100 * cost / total:5.1f}%  {library}")


main()
