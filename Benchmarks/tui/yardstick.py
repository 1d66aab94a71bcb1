#!/usr/bin/env python3
"""Times terminal mail clients under tmux, the way a person sees them: each runs in a tmux pane
of its own (a private tmux server, the same size, the same TERM), and the screen is read with
`tmux capture-pane` until it shows what is waited for.

    yardstick.py first-screen --rounds R --text NEWEST --tool NAME=COMMAND [--tool ...]
    yardstick.py scroll --text NEWEST --end OLDEST --key NPage --tool NAME=COMMAND

first-screen: from `tmux new-session` (the program's start) to the first captured screen that
contains NEWEST (the newest message's subject); each tool once as a warm-up, then R rounds of
all tools one after another; prints one line per tool: median, best, worst (seconds).

scroll: starts the tool, waits for NEWEST, then presses KEY (tmux key name) until the screen
shows END (the oldest message's subject); for each key press, the time from send-keys to the
first captured screen that differs from the one before (key to redraw); the tool's VmRSS and
VmHWM (from /proc/PID/status) before the first key and every --sample-every keys.

COMMAND is run by `sh -c` inside `env -i` with the variables given by --env NAME=VALUE (the
same for every tool); its own `exec` makes the pane's process the tool, whose pid is recorded.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 100, 30


class Pane:
    def __init__(self, name, command, environment, workdir):
        self.directory = tempfile.mkdtemp(prefix="tmux-" + name + ".", dir=workdir)
        self.socket = os.path.join(self.directory, "socket")
        config = os.path.join(self.directory, "tmux.conf")
        with open(config, "w") as f:
            f.write("set -g status off\nset -g history-limit 0\nset -g escape-time 0\n")
        pidfile = os.path.join(self.directory, "pid")
        self.pidfile = pidfile
        script = "echo $$ > %s; exec %s" % (shlex.quote(pidfile), command)
        assignments = ["%s=%s" % item for item in sorted(environment.items())]
        self.started = time.monotonic()
        subprocess.run(
            ["tmux", "-S", self.socket, "-f", config, "new-session", "-d", "-s", "y", "-x", str(WIDTH),
             "-y", str(HEIGHT), "--", "env", "-i"] + assignments + ["sh", "-c", script],
            check=True)

    def screen(self):
        result = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", "y"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return result.stdout.decode("utf-8", "replace")

    def wait_for(self, text, timeout=120.0):
        """Seconds since the start (or since `since`) until the screen contains text."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            now = time.monotonic()
            if text in screen:
                return now, screen
            if now > deadline:
                raise SystemExit("timed out waiting for %r; the screen:\n%s" % (text, screen))
            time.sleep(0.002)

    def send(self, key):
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", "y", key], check=True)

    def pid(self):
        with open(self.pidfile) as f:
            return int(f.read().strip())

    def stop(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], stderr=subprocess.DEVNULL)
        # The tool got SIGHUP from its pane; wait until it is gone so the next one runs alone.
        try:
            pid = self.pid()
        except (OSError, ValueError):
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/status" % pid) as f:
                    if "State:\tZ" in f.read():
                        return
            except OSError:
                return
            time.sleep(0.01)
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def memory(pid):
    values = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                values[name] = int(value.split()[0]) / 1024.0
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def parse_tools(values):
    tools = []
    for value in values:
        name, _, command = value.partition("=")
        tools.append((name, command))
    return tools


def first_screen(arguments, environment):
    tools = parse_tools(arguments.tool)
    times = {name: [] for name, _ in tools}
    for round_number in range(arguments.rounds + 1):
        for name, command in tools:
            pane = Pane(name, command, environment, arguments.workdir)
            try:
                seen, _ = pane.wait_for(arguments.text)
            finally:
                pane.stop()
            if round_number > 0:
                times[name].append(seen - pane.started)
            print("round %d %-10s %.3f s%s" % (round_number, name, seen - pane.started,
                                              " (warm-up)" if round_number == 0 else ""), file=sys.stderr)
    for name, _ in tools:
        values = times[name]
        print("%s median %.3f best %.3f worst %.3f" % (name, statistics.median(values), min(values), max(values)))


def scroll(arguments, environment):
    (name, command), = parse_tools(arguments.tool)
    pane = Pane(name, command, environment, arguments.workdir)
    try:
        _, before = pane.wait_for(arguments.text)
        pid = pane.pid()
        rss, hwm = memory(pid)
        print("%s memory at the first screen: VmRSS %.1f MB VmHWM %.1f MB" % (name, rss, hwm))
        latencies = []
        samples = [(0, rss, hwm)]
        started = time.monotonic()
        while arguments.end not in before:
            sent = time.monotonic()
            pane.send(arguments.key)
            deadline = sent + 30
            while True:
                screen = pane.screen()
                now = time.monotonic()
                if screen != before:
                    break
                if now > deadline:
                    raise SystemExit("%s: no redraw 30 s after key %d; the screen:\n%s" % (name, len(latencies) + 1,
                                                                                         screen))
                time.sleep(0.001)
            latencies.append(now - sent)
            # Let the redraw finish (a tool may draw in several writes) before the next key.
            settled = screen
            while True:
                time.sleep(0.005)
                screen = pane.screen()
                if screen == settled:
                    break
                settled = screen
            before = settled
            if len(latencies) % max(1, arguments.sample_every) == 0 or len(latencies) == arguments.settle_keys:
                rss, hwm = memory(pid)
                samples.append((len(latencies), rss, hwm))
            if len(latencies) > arguments.max_keys:
                raise SystemExit("%s: the end (%r) did not show after %d keys" % (name, arguments.end,
                                                                                len(latencies)))
        elapsed = time.monotonic() - started
        rss, hwm = memory(pid)
        samples.append((len(latencies), rss, hwm))
        ordered = sorted(latencies)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print("%s scrolled to the oldest message in %d keys (%.1f s): key to redraw median %.1f ms, p95 %.1f ms, "
              "worst %.1f ms" % (name, len(latencies), elapsed, statistics.median(latencies) * 1000, p95 * 1000,
                                 ordered[-1] * 1000))
        print("%s memory while scrolling (keys: VmRSS/VmHWM MB): %s" % (
            name, "  ".join("%d: %.1f/%.1f" % sample for sample in samples)))
        # Flat or growing: the peak once the first screens are drawn (after --settle-keys keys,
        # when the first pages and the ones loaded ahead are in) beside the peak at the end.
        settled = next((sample for sample in samples if sample[0] >= arguments.settle_keys), samples[-1])
        print("%s memory: VmHWM after %d keys %.1f MB, at the end %.1f MB (%+.1f MB); VmRSS %.1f -> %.1f MB" % (
            name, settled[0], settled[2], samples[-1][2], samples[-1][2] - settled[2], settled[1], samples[-1][1]))
        # Growing with how far it scrolled, or not: the first and the last tenth of the keys.
        tenth = max(1, len(latencies) // 10)
        first, last = sorted(latencies[:tenth]), sorted(latencies[-tenth:])
        print("%s key to redraw, first %d keys: median %.1f ms, p95 %.1f ms; last %d keys: median %.1f ms, "
              "p95 %.1f ms" % (name, tenth, statistics.median(first) * 1000,
                               first[min(len(first) - 1, int(len(first) * 0.95))] * 1000, tenth,
                               statistics.median(last) * 1000, last[min(len(last) - 1, int(len(last) * 0.95))] * 1000))
    finally:
        pane.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["first-screen", "scroll"])
    parser.add_argument("--tool", action="append", required=True)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--text", required=True)
    parser.add_argument("--end")
    parser.add_argument("--key", default="NPage")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sample-every", type=int, default=100)
    parser.add_argument("--max-keys", type=int, default=100000)
    parser.add_argument("--settle-keys", type=int, default=10)
    parser.add_argument("--workdir", default=tempfile.gettempdir())
    arguments = parser.parse_args()
    environment = dict(value.split("=", 1) for value in arguments.env)
    if arguments.mode == "first-screen":
        first_screen(arguments, environment)
    else:
        scroll(arguments, environment)


if __name__ == "__main__":
    main()
