"""Whole-process times of several commands, run in turn, for comparisons on a shared machine.

    interleave.py ROUNDS NAME=COMMAND [NAME=COMMAND ...]

Each round runs every command once, in the order given on even rounds and reversed on odd ones
(so that none always runs first after a pause), with standard output and error thrown away, and
prints each command's median and best wall-clock time and its median's ratio to the last
command's. This machine's speed moves by half between quarter hours (and it pages out file pages
untouched for a few seconds): only commands timed in the same interleaved run compare.

    python3 Benchmarks/cli/interleave.py 100 \\
        "old=/tmp/mailsearch-old search --offline --json --limit 50 from:tanaka" \\
        "new=.build/release/mailsearch search --offline --json --limit 50 from:tanaka" \\
        "notmuch=notmuch search --format=json --limit=50 from:tanaka"
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

if len(sys.argv) < 3 or not sys.argv[1].isdigit():
    sys.exit(__doc__)
rounds = int(sys.argv[1])
commands = []
for argument in sys.argv[2:]:
    name, separator, command = argument.partition("=")
    if not separator or not command:
        sys.exit(f"error: expected NAME=COMMAND, got {argument!r}")
    commands.append((name, shlex.split(command)))
times = {name: [] for name, _ in commands}
devnull = os.open(os.devnull, os.O_WRONLY)
for round_number in range(rounds):
    for name, command in commands if round_number % 2 == 0 else commands[::-1]:
        started = time.perf_counter()
        subprocess.run(command, stdout=devnull, stderr=devnull, check=False)
        times[name].append(time.perf_counter() - started)
reference = statistics.median(times[commands[-1][0]])
width = max(len(name) for name, _ in commands)
for name, _ in commands:
    median = statistics.median(times[name])
    print(f"{name:{width}}  median {median * 1000:8.2f} ms  best {min(times[name]) * 1000:8.2f} ms  "
          f"{median / reference:6.3f}x {commands[-1][0]}")
