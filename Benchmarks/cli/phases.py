"""Where whole-process time goes, for compare.sh --phases.

    phases.py SHIM ROUNDS NAME -- COMMAND ... [--- NAME -- COMMAND ...]

Runs each command ROUNDS times, interleaved, with SHIM (phase-timestamps.so) preloaded, and
prints the median of each phase in ms: exec to the first constructor, to connect(), to the
command before the longest wait for the server (the search), that wait, from its answer to the
last byte read, to the exit, and the exit until the launcher saw the process end.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

shim, rounds = sys.argv[1], int(sys.argv[2])
tools, current = [], None
for argument in sys.argv[3:]:
    if argument == "---":
        current = None
    elif current is None:
        current = [argument, []]
        tools.append(current)
    elif argument != "--" or current[1]:
        current[1].append(argument)

phases = ["exec>start", "start>connect", "connect>search", "search", "search>last read", "last read>exit",
          "exit>reaped", "whole"]
results = {name: [] for name, _ in tools}
log = tempfile.NamedTemporaryFile(delete=False).name
for _ in range(rounds):
    for name, command in tools:
        began = time.monotonic() * 1000
        environment = dict(os.environ, LD_PRELOAD=shim, PHASES_LOG=log, PHASES_T0="%.3f" % began)
        subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        whole = time.monotonic() * 1000 - began
        events = [(float(t), kind) for t, kind, _ in (line.split() for line in open(log))]
        connect = next(t for t, kind in events if kind == "connect")
        gap, index = max((events[i + 1][0] - events[i][0], i) for i in range(len(events) - 1))
        last_read = max(t for t, kind in events if kind == "read")
        exit_time = events[-1][0]
        results[name].append([events[0][0], connect - events[0][0], events[index][0] - connect, gap,
                              last_read - events[index + 1][0], exit_time - last_read, whole - exit_time, whole])
os.unlink(log)

print("%-18s" % "median ms" + "".join("%16s" % name for name, _ in tools))
for column, phase in enumerate(phases):
    print("%-18s" % phase + "".join("%16.2f" % statistics.median(row[column] for row in results[name])
                                   for name, _ in tools))
