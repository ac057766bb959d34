"""Writes inputs.json: slices full of ties for gosort_expected.json (see README.md)."""

import json
import random

rng = random.Random(20261124)
cases = []
sizes = [0, 1, 2, 3, 7, 8, 11, 12, 13, 14, 15, 16, 20, 24, 31, 40, 49, 50, 51, 64, 77, 100,
         128, 150, 200, 333]
for n in sizes:
    for kind in ("random", "sorted", "reversed", "equal", "sawtooth", "fewvalues"):
        if kind == "random":
            keys = [rng.randrange(max(1, n // 3)) for _ in range(n)]
        elif kind == "sorted":
            keys = sorted(rng.randrange(5) for _ in range(n))
        elif kind == "reversed":
            keys = sorted((rng.randrange(5) for _ in range(n)), reverse=True)
        elif kind == "equal":
            keys = [7] * n
        elif kind == "sawtooth":
            keys = [i % 4 for i in range(n)]
        else:
            keys = [rng.choice((0, 0, 0, 1, 2)) for _ in range(n)]
        cases.append({"mode": "keys", "keys": keys})
        # MoreImportantPod: (priority, startTime or -1 = not started: time.Now() per call)
        prios = [rng.choice((0, 0, 10)) for _ in range(n)]
        starts = [rng.choice((-1, -1, 5, 9)) if kind != "equal" else -1 for _ in range(n)]
        cases.append({"mode": "clock", "keys": prios, "starts": starts})
json.dump({"cases": cases}, open("inputs.json", "w"), separators=(",", ":"))
