"""The uncertainty of a median ratio, for compare.sh.

    interval.py TIMES_A TIMES_B

TIMES_A and TIMES_B hold one time a line, round by round: line i of each was measured in the
same round (compare.sh interleaves the tools), so rounds are resampled as pairs and a change in
the machine's load moves both sides of a resampled round alike. Prints the ratio of the medians
(A over B) and its 95% bootstrap interval (10,000 resamples, a fixed seed, so the same times
always give the same interval): "RATIO LOW HIGH".
"""
import random
import statistics
import sys


def times(path):
    with open(path) as lines:
        return [float(line) for line in lines if line.strip()]


first, second = times(sys.argv[1]), times(sys.argv[2])
if len(first) != len(second) or not first:
    sys.exit("interval.py: the two files need the same number of rounds, at least one")
rounds = len(first)
generator = random.Random(20261203)
ratios = []
for _ in range(10_000):
    picks = [generator.randrange(rounds) for _ in range(rounds)]
    ratios.append(statistics.median(first[i] for i in picks) / statistics.median(second[i] for i in picks))
ratios.sort()
low, high = ratios[int(0.025 * len(ratios))], ratios[int(0.975 * len(ratios)) - 1]
print("%.2f %.2f %.2f" % (statistics.median(first) / statistics.median(second), low, high))
