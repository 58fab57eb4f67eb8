#!/usr/bin/env bash
# The device choice panel: per data set, the same join timed with simjoin.device = cpu, gpu and
# auto, through similarity_join() and through the custom scan, in one run, against the server
# that PGHOST / PGPORT name (on the GPU machine: scripts/device/service_check.sh panel starts it with the
# library preloaded). Prints one line per set and form: the three times (best of $ROUNDS), the
# device auto took, and auto's time over the faster of cpu and gpu. SCALE (default 1) multiplies
# every size (a smoke run: SCALE=0.01).
#
#   bench/device_panel.sh [SET ...]     sets: u2_100k u2_1m u2_10m c3_1m skew2_500k e16_100k d100_100k d784_20k
set -uo pipefail
SCALE=${SCALE:-1}
ROUNDS=${ROUNDS:-2}
sets=${*:-u2_100k u2_1m u2_10m c3_1m skew2_500k e16_100k d100_100k d784_20k}
source "$(dirname "$0")/panel_lib.sh"

# The table for a set and its eps (a few to tens of pairs per row, as users join).
make_set() {
  local name=$1 rows
  case $name in
    u2_100k) rows=$(n 100000); eps=5.6
      gen="ARRAY[random() * 1000, random() * 1000]" ;;
    u2_1m) rows=$(n 1000000); eps=1.8
      gen="ARRAY[random() * 1000, random() * 1000]" ;;
    u2_10m) rows=$(n 10000000); eps=0.2
      gen="ARRAY[random() * 1000, random() * 1000]" ;;
    c3_1m) rows=$(n 1000000); eps=0.3  # 1,000 blobs (sd 1) spread over a 1000^3 cube
      gen="ARRAY[(i % 1000) * 7 % 1000 + (random() + random() + random() - 1.5) * 2,
                 (i % 1000) * 13 % 1000 + (random() + random() + random() - 1.5) * 2,
                 (i % 1000) * 31 % 1000 + (random() + random() + random() - 1.5) * 2]" ;;
    skew2_500k) rows=$(n 500000); eps=0.05  # 50 dense columns, cubed offsets
      gen="ARRAY[(i % 50) * 10 + random() * power(random(), 3) * 10, random() * 500]" ;;
    e16_100k) rows=$(n 100000); eps=0.04  # exponential, lambda 40
      gen="(SELECT array_agg(-ln(1 - random()) / 40 + 0 * g + 0 * i) FROM generate_series(1, 16) g)" ;;
    d100_100k) rows=$(n 100000); eps=1.8
      gen="(SELECT array_agg((i % 100) + random() * 0.5 + 0 * g) FROM generate_series(1, 100) g)" ;;
    d784_20k) rows=$(n 20000); eps=5.5
      gen="(SELECT array_agg((i % 100) + random() * 0.5 + 0 * g) FROM generate_series(1, 784) g)" ;;
    *) echo "device_panel.sh: unknown set $name" >&2; return 1 ;;
  esac
  q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS $name; CREATE TABLE $name (id int PRIMARY KEY, v float8[]);
        INSERT INTO $name SELECT i, $gen FROM generate_series(1, $rows) i; ANALYZE $name"
  set_rows=$rows
  set_dim=$(q -c "SELECT array_length(v, 1) FROM $name LIMIT 1")
}

echo "set rows eps form pairs cpu_ms gpu_ms auto_ms auto_device auto_over_best"
for name in $sets; do
  make_set "$name" || continue
  for form in function customscan; do
    if [ $form = function ]; then sql="SELECT count(*) FROM similarity_join('$name', '$name', $eps)"
    else sql="SELECT count(*) FROM $name a JOIN $name b ON a.v <-> b.v <= $eps"; fi
    export PANEL_TAG="$name $set_rows $set_dim $form"
    read -r cpu c_cpu _ <<<"$(best_ms cpu "$sql")"
    read -r gpu c_gpu _ <<<"$(best_ms gpu "$sql")"
    read -r auto c_auto chosen _ <<<"$(best_ms auto "$sql")"
    same=$([ "$c_cpu" = "$c_gpu" ] && [ "$c_cpu" = "$c_auto" ] && echo "$c_cpu" || echo "DIFFER:$c_cpu/$c_gpu/$c_auto")
    echo "$name $set_rows $eps $form $same $cpu $gpu $auto ${chosen:-?} $(over_best "$auto" "$cpu" "$gpu")"
  done
  q -c "DROP TABLE $name"
done
