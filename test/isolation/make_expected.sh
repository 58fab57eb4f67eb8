#!/usr/bin/env bash
# Makes the expected outputs of the isolation specs (test/isolation/specs/*.spec): each spec is
# run twice against the server PGHOST/PGPORT name, once as written (the custom scan) and once
# with simjoin.enable_customscan = off in every session's setup (PostgreSQL's own plan, the
# definition of correct). The expected output is the second run's, with the EXPLAIN steps'
# blocks taken from the first run (they must show Custom Scan (SimilarityJoin)). Prints, per
# permutation, whether the custom scan's run agrees with it.
#   test/isolation/make_expected.sh [spec ...]          writes build/isolation-expected/*.out
#   SIMJOIN_WRITE_EXPECTED=1 test/isolation/make_expected.sh  also copies them to expected/
# (epq_reproduction's own-plan run is a 20,000 x 20,000 nested loop: about a minute.)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null || { echo "make_expected: python3 not found (apt-get install python3)" >&2; exit 2; }
regress=$(dirname "$(pg_config --pgxs)")/../test/isolation/pg_isolation_regress
work=$(pwd)/build/isolation-expected
tests=${*:-$(cd test/isolation/specs && ls *.spec | sed 's/\.spec$//')}
rm -rf "$work" && mkdir -p "$work"
for mode in on off; do
  mkdir -p "$work/$mode/specs" "$work/$mode/expected"
  for t in $tests; do
    sed "s/simjoin.enable_customscan = on;/simjoin.enable_customscan = $mode;/" \
      "test/isolation/specs/$t.spec" >"$work/$mode/specs/$t.spec"
    : >"$work/$mode/expected/$t.out"
  done
  "$regress" --inputdir="$work/$mode" --outputdir="$work/$mode" --bindir="$(pg_config --bindir)" \
    --load-extension=simjoin --dbname=isolation_regression $tests >"$work/$mode.log" 2>&1 || true
done
python3 - "$work" $tests <<'PY'
import difflib, re, sys
work, tests = sys.argv[1], sys.argv[2:]
def explain_blocks(lines):
    out, i = [], 0
    while i < len(lines):
        if re.match(r'^step \S*explain\S*: ', lines[i]):
            j = i
            while not re.match(r'^\(\d+ rows?\)$', lines[j]): j += 1
            out.append((i, j + 1)); i = j + 1
        else:
            i += 1
    return out
def permutations(lines):
    d, cur = {}, None
    for l in lines:
        if l.startswith('starting permutation: '): cur = l[22:]; d[cur] = []
        elif cur: d[cur].append(l)
    return d
for t in tests:
    on = open(f'{work}/on/results/{t}.out').read().split('\n')
    off = open(f'{work}/off/results/{t}.out').read().split('\n')
    bon, boff = explain_blocks(on), explain_blocks(off)
    assert len(bon) == len(boff), t
    res, pos = [], 0
    for (a, b), (c, d) in zip(boff, bon):
        assert any('Custom Scan (SimilarityJoin)' in l for l in on[c:d]), f'{t}: {on[c]} no custom scan'
        res += off[pos:a] + on[c:d]; pos = b
    res += off[pos:]
    open(f'{work}/{t}.out', 'w').write('\n'.join(res))
    pe, po = permutations(res), permutations(on)
    for p in pe:
        if pe[p] == po.get(p): print(f'{t}: ok    {p}'); continue
        print(f'{t}: FAIL  {p}')
        for l in difflib.unified_diff(pe[p], po.get(p, []), lineterm='', n=0):
            if l[:1] in '+-' and not l.startswith(('+++', '---')): print('       ' + l)
PY
if [ -n "${SIMJOIN_WRITE_EXPECTED:-}" ]; then
  for t in $tests; do cp "$work/$t.out" "expected/$t.out"; done
fi
