#!/usr/bin/env python3
"""Fits the CPU prices of engine/choice/algorithm_choice.cpp (cpu_algorithm_speeds) from simjoin_bench output.

Input (stdin): simjoin_bench runs with --threads 1 and --algorithm grid|szl|brute, each printing
its "estimate:", "choice:" and result ("data=...") lines. Fits on the sampled estimates (what
Auto is given), minimizing relative error (each row divided by its measured time):
  grid:  total_s = s * (the grid model of engine/choice/device_choice.cpp's CPU speeds)  (one scale factor)
  szl:   index_s = curves*n_build*(dim*key + log2(n_build)*sort)
         join_s  = n_probe*curves*log2(n_build)*search + walked*(walk + terms*walk_term)
  brute: join_s  = pairs*(pair + dim*term)
Pure Python (no numpy): normal equations, coefficients clamped at zero by refitting without them.

With --gpu: runs of simjoin_bench --device gpu. The time of a run is the sum of its phases (the
process's first CUDA work, in total_s, is left out), and every algorithm is fitted on its own:
  grid:  phases = points*dim*point_dim + candidates*(candidate + terms*term)
  szl:   index_s as above; the other phases = n_probe*curves*log2(n_build)*search
         + walked*(walk + terms*walk_term)
  brute: phases = pairs*(pair + dim*term)

With --devices: the calibration runs of scripts/device/service_check.sh calibrate (each set on the
CPU with --threads T and on the GPU, --repeat 2; the last run of each is used). Fits the
engine's whole time per device, as engine/choice/device_choice.cpp prices it:
  cpu grid:  total_s = fixed + points*point + points*dim*point_dim
                       + (candidates*candidate + candidates*terms*term + pairs*pair) / T
  cpu brute, szl: total_s over their estimate with cpu_algorithm_speeds (the "choice:" line)
  gpu:       total_s = fixed + points*point + points*dim*point_dim + (grid: candidates*terms*term)
                       + (other algorithms: scale * their estimate) + pairs*pair
"""
import math
import re
import sys

# engine/choice/device_choice.cpp's CPU speeds (ns): point, point*dim, candidate, term.
GRID = (46.0, 5.3, 1.4, 1.6)


def solve(rows, targets, wanted=None):
    """Non-negative least squares on relative error, by dropping negative coefficients: rows times
    the coefficients against wanted (default: targets), each residual divided by its target."""
    wanted = wanted or targets
    active = list(range(len(rows[0])))
    while True:
        a = [[r[i] / t for i in active] for r, t in zip(rows, targets)]
        b = [w / t for w, t in zip(wanted, targets)]
        n = len(active)
        m = [[sum(x[i] * x[j] for x in a) for j in range(n)] + [sum(x[i] * y for x, y in zip(a, b))]
             for i in range(n)]
        for c in range(n):
            p = max(range(c, n), key=lambda r: abs(m[r][c]))
            m[c], m[p] = m[p], m[c]
            for r in range(n):
                if r != c and m[c][c] != 0:
                    f = m[r][c] / m[c][c]
                    m[r] = [u - f * v for u, v in zip(m[r], m[c])]
        coef = [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]
        if all(c >= 0 for c in coef):
            out = [0.0] * len(rows[0])
            for i, c in zip(active, coef):
                out[i] = c
            return out
        active = [i for i, c in zip(active, coef) if c > 0]


def set_name(run):
    return "%s n=%s n2=%s d=%s eps=%s" % (run["data"], run["n"], run["n2"], run["dim"], run["eps"])


def fields(line):
    return dict(re.findall(r"(\w+)=([^\s]+)", line))


def print_picks(table):
    """Per set: each algorithm's modelled/measured seconds, the model's pick and the fastest."""
    agree = 0
    for name, algs in table.items():
        cells = " ".join("%s %.3g/%.3gs" % (a, m * 1e-9, t * 1e-9) for a, (m, t) in algs.items())
        picked = min(algs, key=lambda a: algs[a][0])
        best = min(algs, key=lambda a: algs[a][1])
        agree += picked == best
        print("%-50s %s  model picks %s (%.2fx the fastest), fastest %s"
              % (name, cells, picked, algs[picked][1] / algs[best][1], best))
    print("model's pick is the fastest on %d of %d sets" % (agree, len(table)))


def phases_ns(run, skip=()):
    return 1e9 * sum(float(v) for k, v in run.items()
                     if k.endswith("_s") and k not in ("total_s", "pairs_per_s") + tuple(skip))


def fit_gpu(runs):
    grid, szl_index, szl_join, brute, sets = [], [], [], [], {}
    for run, e, c in runs:
        n, n2, dim = float(run["n"]), float(run["n2"]), float(run["dim"])
        points = n + (n2 if n2 > 0 else 0)
        terms = float(e["est_terms"])
        name = set_name(run)
        algorithm = run["algorithm"]
        if algorithm.startswith("gpu-grid"):
            cand = float(e["est_candidates"])
            grid.append(([points * dim, cand, cand * terms], phases_ns(run), name))
        elif algorithm.startswith("gpu-szl"):
            curves, nb, npr = float(c["szl_curves"]), float(c["szl_build"]), float(c["szl_probe"])
            lg = max(1.0, math.log2(nb))
            walked = float(c["szl_walked"])
            szl_index.append(([curves * nb * dim, curves * nb * lg], float(run["index_s"]) * 1e9, name))
            szl_join.append(([npr * curves * lg, walked, walked * terms],
                             phases_ns(run, ("index_s",)), name))
        elif algorithm.startswith("gpu-brute"):
            pairs = n * n2 if n2 > 0 else n * (n + 1) / 2
            brute.append(([pairs, pairs * dim], phases_ns(run), name))
    def fit(label, rows):
        c = solve([r for r, _, _ in rows], [t for _, t, _ in rows])
        print("%s (%d runs): %s ns" % (label, len(rows), ", ".join("%.4g" % x for x in c)))
        return c
    g = fit("grid point_dim, candidate, term", grid)
    si = fit("szl key, sort", szl_index)
    sj = fit("szl search, walk, walk_term", szl_join)
    b = fit("brute pair, term", brute)
    for r, t, name in grid:
        sets.setdefault(name, {})["grid"] = (sum(x * y for x, y in zip(r, g)), t)
    index_of = {name: (r, t) for r, t, name in szl_index}
    for r, t, name in szl_join:
        ri, ti = index_of[name]
        sets.setdefault(name, {})["szl"] = (sum(x * y for x, y in zip(ri, si)) +
                                            sum(x * y for x, y in zip(r, sj)), t + ti)
    for r, t, name in brute:
        sets.setdefault(name, {})["brute"] = (sum(x * y for x, y in zip(r, b)), t)
    print_picks(sets)


def fit_devices(runs, threads):
    """The --devices fits; runs: (run fields, estimate fields, choice fields), last of each kept."""
    last = {}
    for run, e, c in runs:
        device = "gpu" if run["device"].startswith("gpu") else "cpu"
        last[(set_name(run), device)] = (run, e, c)
    cpu_rows, cpu_t, cpu_names, others, gpu_rows, gpu_t, gpu_names = [], [], [], [], [], [], []
    for (name, device), (run, e, c) in sorted(last.items()):
        n, n2, dim = float(run["n"]), float(run["n2"]), float(run["dim"])
        points = n + (n2 if n2 > 0 else n)
        cand, terms, pairs = float(e["est_candidates"]), float(e["est_terms"]), float(e["est_pairs"])
        total = float(run["total_s"]) * 1e9
        algorithm = run["algorithm"].replace("gpu-", "")
        estimate = None
        for key, value in re.findall(r"(brute-force|szl|grid)=[^/\s]+/([^\s]+)s", c["line"]):
            if algorithm.startswith(key):
                estimate = float(value) * 1e9
        if device == "cpu" and algorithm == "grid":
            cpu_rows.append([1.0, points, points * dim, cand / threads, cand * terms / threads,
                             pairs / threads])
            cpu_t.append(total)
            cpu_names.append(name)
        elif device == "cpu":
            others.append((name, algorithm, total / estimate))
        else:
            grid = algorithm.startswith("grid")
            gpu_rows.append([1.0, points, points * dim, cand * terms if grid else 0.0,
                             0.0 if grid else estimate, pairs])
            gpu_t.append(total)
            gpu_names.append(name + " " + algorithm)
    for label, rows, targets, names, columns in (
            ("cpu grid", cpu_rows, cpu_t, cpu_names,
             "fixed point point_dim candidate term pair"),
            ("gpu", gpu_rows, gpu_t, gpu_names,
             "fixed point point_dim term algorithm_scale pair")):
        coef = solve(rows, targets)
        print("%s (%d runs): %s" % (label, len(rows), ", ".join(
            "%s %.3g" % (k, v) for k, v in zip(columns.split(), coef))))
        for r, t, name in zip(rows, targets, names):
            model = sum(x * y for x, y in zip(r, coef))
            print("  %-60s measured %.4f s, fitted %.4f s (%.2f)" % (name, t * 1e-9, model * 1e-9,
                                                                    model / t))
    for name, algorithm, ratio in others:
        print("cpu %s %s: measured over estimated %.2f" % (algorithm, name, ratio))


def main():
    runs, est, choice = [], None, None
    for line in sys.stdin:
        if line.startswith("estimate:"):
            est = fields(line)
        elif line.startswith("choice:"):
            choice = fields(line)
            choice["line"] = line
        elif line.startswith("data="):
            runs.append((fields(line), est, choice))
    if "--gpu" in sys.argv:
        fit_gpu(runs)
        return
    if "--devices" in sys.argv:
        fit_devices(runs, 16)
        return
    grid_ratio, szl_index, szl_join, brute = [], [], [], []
    grid_rows = []  # (set, model at scale 1, measured ns)
    for run, e, c in runs:
        n, n2, dim = float(run["n"]), float(run["n2"]), float(run["dim"])
        points = n + (n2 if n2 > 0 else n)
        terms = float(e["est_terms"])
        if run["algorithm"] == "grid":
            cand = float(e["est_candidates"])
            model = points * (GRID[0] + dim * GRID[1]) + cand * (GRID[2] + terms * GRID[3])
            grid_ratio.append(float(run["total_s"]) * 1e9 / model)
            grid_rows.append((set_name(run), model, float(run["total_s"]) * 1e9))
        elif run["algorithm"] == "szl":
            curves, nb, npr = float(c["szl_curves"]), float(c["szl_build"]), float(c["szl_probe"])
            lg = max(1.0, math.log2(nb))
            szl_index.append(([curves * nb * dim, curves * nb * lg], float(run["index_s"]) * 1e9,
                              set_name(run)))
            walked = float(c["szl_walked"])
            szl_join.append(([npr * curves * lg, walked, walked * terms],
                             float(run["join_s"]) * 1e9, set_name(run)))
        elif run["algorithm"] == "brute-force":
            pairs = n * n2 if n2 > 0 else n * (n + 1) / 2
            brute.append(([pairs, pairs * dim], float(run["join_s"]) * 1e9, set_name(run)))
    grid_ratio.sort()
    scale = grid_ratio[len(grid_ratio) // 2]
    print("grid scale (median of %d): %.3g -> point %.3g, point_dim %.3g, candidate %.3g, term %.3g"
          % ((len(grid_ratio), scale) + tuple(g * scale for g in GRID)))
    key, sort = solve([r for r, _, _ in szl_index], [t for _, t, _ in szl_index])
    print("szl index (%d runs): key %.3g ns, sort %.3g ns" % (len(szl_index), key, sort))
    search, walk, walk_term = solve([r for r, _, _ in szl_join], [t for _, t, _ in szl_join])
    print("szl join (%d runs): search %.3g ns, walk %.3g ns, walk_term %.3g ns"
          % (len(szl_join), search, walk, walk_term))
    pair, term = solve([r for r, _, _ in brute], [t for _, t, _ in brute])
    print("brute force (%d runs): pair %.3g ns, term %.3g ns" % (len(brute), pair, term))
    # Per set: each algorithm's modelled and measured seconds, and whether the cheapest agree.
    table = {}
    for name, model, ns in grid_rows:
        table.setdefault(name, {})["grid"] = (model * scale, ns)
    index_of = {name: (r, t) for r, t, name in szl_index}
    for r, t, name in szl_join:
        ri, ti = index_of[name]
        model = ri[0] * key + ri[1] * sort + r[0] * search + r[1] * walk + r[2] * walk_term
        table.setdefault(name, {})["szl"] = (model, t + ti)
    for r, t, name in brute:
        table.setdefault(name, {})["brute"] = (r[0] * pair + r[1] * term, t)
    print_picks(table)


if __name__ == "__main__":
    main()
