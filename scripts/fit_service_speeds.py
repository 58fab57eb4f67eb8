#!/usr/bin/env python3
"""Fits the GPU's prices (engine/choice/device_choice.cpp, measured_speeds) to the GPU service's
jobs as a session waits for them, and checks the device choice on a held-out panel.

  fit_service_speeds.py FIT_NOTICES[:FIXED_MS,POINT_DIM_NS] [CHECK_NOTICES[:FIXED_MS,POINT_DIM_NS]]

FIT_NOTICES, CHECK_NOTICES: the NOTICE logs of bench/device_panel.sh and bench/choice_panel.sh
(scripts/device/service_check.sh panel / choice writes them as panel_notices.txt and
choice_notices.txt): each line "set rows dim form device time=Tms NOTICE:  simjoin: ...".

The GPU's engine time is the sum of a service job's phases in the custom scan (count(*) folded
into the job, so no consumer overlaps it): `service` included (the copy into shared memory, the
wait for a device, the handover), `choose` (the sampling, not part of the join's price) and `sink`
left out. Its model, as price_engine_estimates prices it:
  phases = fixed + points*dim*point_dim + pairs*pair
           + (grid: candidates*terms*term | other algorithms: scale * their kernel estimate)
with the sampled work of the auto run's "auto priced" NOTICE. The kernel estimate is read back
from the estimate the run showed, priced with the constants below (PRICED_WITH), or with the
GPU's fixed cost and per-coordinate cost that follow a log's name. The fit keeps
term, scale and pair (the kernels, fitted on the calibration sets) and fits fixed and point_dim:
what the service adds around the kernels. It uses auto's runs on the GPU (their samples carried
from the route) and the forced GPU runs whose sampling shows as phase `choose`. It then prints,
for both logs, each GPU run's estimate under the new constants against its phases, and the
device the margin rule picks with them against the faster forced run (both forms).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_algorithm_speeds import solve  # noqa: E402

# measured_speeds()'s GPU constants (ns), and the margin rule.
PRICED_WITH = dict(fixed=4.15e6, point_dim=2.0, term=0.008, pair=0.335, scale=0.78)
GPU_GAIN = 1.1

LINE = re.compile(r"^(\S+) (\S+) (\d+) (\S+) (\S+) time=([0-9.]+)ms NOTICE: +simjoin: (.*)$")
PRICED = re.compile(r"at ([^s]+)s on the CPU.* and ([^s]+)s on the GPU, PostgreSQL.s part "
                    r"([^s]+)s: [a-z]+ \(sampled: ([^ ]+) candidates of ([^ ]+) terms, "
                    r"([^ ]+) pairs, ([0-9]+) ")


def phases_of(text):
    tail = text.split(" time:", 1)
    return dict(re.findall(r"(\S+?)=([0-9.]+)s", tail[1])) if len(tail) == 2 else {}


def read(argument):
    """Per (set, form): rows, dim, each device's time and engine NOTICE, auto's prices; "priced"
    the constants its estimates were shown with."""
    path, _, constants = argument.partition(":")
    priced_with = dict(PRICED_WITH)
    if constants:
        fixed_ms, point_dim = (float(x) for x in constants.split(","))
        priced_with.update(fixed=fixed_ms * 1e6, point_dim=point_dim)
    runs = {}
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        name, rows, dim, form, device, ms, text = m.groups()
        run = runs.setdefault((name, form), {"rows": rows, "dim": int(dim)})
        if text.startswith("auto priced"):
            p = PRICED.search(text)
            if p:
                run["priced"] = [float(x) for x in p.groups()]
        elif text.startswith("device="):
            phases = phases_of(text)
            run[device] = dict(ms=float(ms), text=text, timed_choice="choose" in phases,
                               phases=sum(float(v) for k, v in phases.items()
                                          if k not in ("choose", "sink")) if phases else None,
                               ran_on=text.split()[0][7:].rstrip(":"),
                               algorithm=re.search(r"algorithm=(\S+)", text).group(1))
            est = re.search(r"auto chose from: (\S+)=[^/]+/([0-9.e+-]+)s", text)
            run[device]["estimate"] = float(est.group(2)) if est else None
    return runs, priced_with


def points_of(rows):
    sizes = [float(x) for x in rows.split("x")]
    return sizes[0] + (sizes[1] if len(sizes) > 1 else sizes[0])


def gpu_terms(run, priced_with, device="gpu"):
    """The model's terms of a GPU run: [1, points*dim, candidates*terms, kernel, pairs] in ns."""
    gpu, priced = run.get(device), run.get("priced")
    if not gpu or not priced or gpu["phases"] is None or not gpu["ran_on"].startswith("gpu"):
        return None
    _, _, _, candidates, terms, pairs, _ = priced
    point_dims = points_of(run["rows"]) * run["dim"]
    if gpu["algorithm"].startswith("gpu-grid") or gpu["algorithm"] == "grid":
        return [1.0, point_dims, candidates * terms, 0.0, pairs]
    if gpu["estimate"] is None:
        return None
    p = priced_with
    kernel = (gpu["estimate"] * 1e9 - p["fixed"] - point_dims * p["point_dim"]
              - pairs * p["pair"]) / p["scale"]
    return [1.0, point_dims, 0.0, max(kernel, 0.0), pairs]


def price(terms, c):
    return (c["fixed"] + terms[1] * c["point_dim"] + terms[2] * c["term"] + terms[3] * c["scale"]
            + terms[4] * c["pair"]) * 1e-9


def report(label, runs, priced_with, c):
    print("\n%s: GPU estimate against phases, and the device auto picks" % label)
    right, lines = 0, 0
    for (name, form), run in sorted(runs.items()):
        terms = gpu_terms(run, priced_with)
        if terms is None:
            continue
        gpu = run["gpu"]
        estimate = price(terms, c)
        line = "  %-15s %-10s %-22s estimate %.4f s" % (name, form, gpu["algorithm"], estimate)
        if form == "customscan":
            line += ", phases %.4f s (%.2f)" % (gpu["phases"], estimate / gpu["phases"])
        if "priced" in run and "cpu" in run:
            cpu_priced = run["priced"][0]
            pick = "gpu" if estimate * GPU_GAIN < cpu_priced else "cpu"
            best = min(("cpu", "gpu"), key=lambda d: run[d]["ms"])
            lines += 1
            right += pick == best
            line += "; cpu %.4f s priced: picks %s, %s %.1f ms, faster %s %.1f ms (%.2f)" % (
                cpu_priced, pick, pick, run[pick]["ms"], best, run[best]["ms"],
                run[pick]["ms"] / run[best]["ms"])
        print(line)
    print("  the faster device picked on %d of %d" % (right, lines))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    fit_runs, fit_priced_with = read(sys.argv[1])
    samples = []
    held = PRICED_WITH
    for (name, form), run in sorted(fit_runs.items()):
        for device in ("gpu", "auto"):
            terms = gpu_terms(run, fit_priced_with, device)
            if form != "customscan" or terms is None or (
                    device == "gpu" and not run[device]["timed_choice"]):
                continue
            kernels = terms[2] * held["term"] + terms[3] * held["scale"] + terms[4] * held["pair"]
            phases = run[device]["phases"] * 1e9
            samples.append((terms[1], phases - kernels, phases))
    # fixed + point_dims * point_dim = the phases less the kernels, each relative to the phases.
    fixed, point_dim = solve([[1.0, x] for x, _, _ in samples], [t for _, _, t in samples],
                             [y for _, y, _ in samples])
    fitted = dict(held, fixed=fixed, point_dim=point_dim)
    print("fitted on %d GPU service runs: fixed %.3g ms, point_dim %.3g ns (held: term %.3g, "
          "scale %.3g, pair %.3g)" % (len(samples), fixed * 1e-6, point_dim, held["term"],
                                      held["scale"], held["pair"]))
    logs = [("fitting panel", fit_runs, fit_priced_with)]
    logs += [("held-out panel",) + read(argument) for argument in sys.argv[2:]]
    for label, runs, priced_with in logs:
        report(label + ", constants as shown", runs, priced_with, priced_with)
        report(label + ", fitted constants", runs, priced_with, fitted)


if __name__ == "__main__":
    main()
