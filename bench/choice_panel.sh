#!/usr/bin/env bash
# The held-out panel of the device and algorithm choice: sets that no constant of the choice was
# fitted on (bench/calibration_sets.txt and bench/device_panel.sh are the fitting sets), real and
# generated, 2-D to 784-D, 10k to 10M rows, uniform, clustered, skewed, duplicate-heavy,
# self-joins and two tables, Euclidean and cosine. Each join is timed through similarity_join()
# and through the custom scan with simjoin.device = cpu, gpu and auto (best of ROUNDS new
# sessions: each its session's first join), and auto again as the second join of a session.
# Against the server that PGHOST / PGPORT name (on the GPU machine: scripts/device/service_check.sh
# choice starts it with the library preloaded). One line per set and form: the pairs, the four
# times, the device and algorithm auto ran, auto's time over the faster device, and auto's
# estimate of the algorithm it ran against the sum of the engine's phases (simjoin.explain).
#
#   bench/choice_panel.sh [SET ...]
#   sets: cities_200k letter_20k fmnist_70k fmnist_60k_10k tiny2_10k dup2_1m skew2_1m
#         two3_1m_100k c32_200k e128_100k units100_100k blobs2_10m
# Real data: cities from demo/data; letter and Fashion-MNIST from DATA (default .device-data:
# letter_20k.csv.gz, cut from Debian's opencv-doc letter-recognition.data, and Debian
# dataset-fashion-mnist's train- and t10k-images-idx3-ubyte.gz); a set whose file is missing is
# skipped. SCALE (default 1) multiplies the generated sets' sizes.
set -uo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-1}
ROUNDS=${ROUNDS:-2}
DATA=${DATA:-.device-data}
sets=${*:-cities_200k letter_20k fmnist_70k fmnist_60k_10k tiny2_10k dup2_1m skew2_1m two3_1m_100k c32_200k e128_100k units100_100k blobs2_10m}
source bench/panel_lib.sh

# A table `name` (id int PRIMARY KEY, v float8[]) of `rows` rows from the SQL expression `gen`
# (of i, the row number).
generated() {
  local name=$1 rows=$2 gen=$3
  q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS $name; CREATE TABLE $name (id int PRIMARY KEY, v float8[]);
        INSERT INTO $name SELECT i, $gen FROM generate_series(1, $rows) i; ANALYZE $name"
}

# A table `name` from a command that prints one array literal a line.
loaded() {
  local name=$1 program=$2
  q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS $name; CREATE TABLE $name (id serial PRIMARY KEY, v float8[])" \
    -c "\\copy $name (v) FROM PROGRAM '$program'" -c "ANALYZE $name"
}

# Fashion-MNIST images of one file as array literals (784 bytes a row after a 16-byte header).
fmnist() { echo "gzip -dc $DATA/$1-images-idx3-ubyte.gz | tail -c +17 | od -An -v -tu1 -w784 | sed -e \"s/^ *//\" -e \"s/  */,/g\" -e \"s/.*/{&}/\""; }

# Sets: the tables, left and right (right = left for a self-join), eps and metric.
make_set() {
  local name=$1
  metric=euclidean left=$name right=$name
  case $name in
    cities_200k)  # GeoNames places with 500+ inhabitants, Earth-centred km: real, dense cities
      eps=2
      q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS $name; CREATE TEMP TABLE raw (id bigint, name text, country text, lat float8, lon float8, elevation int, population bigint)" \
        -c "\\copy raw FROM PROGRAM 'gzip -dc demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)" \
        -c "CREATE TABLE $name AS SELECT id, ARRAY[6371 * cosd(lat) * cosd(lon), 6371 * cosd(lat) * sind(lon), 6371 * sind(lat)] AS v FROM raw;
            ALTER TABLE $name ADD PRIMARY KEY (id); ANALYZE $name" ;;
    letter_20k)  # UCI letter recognition: 16 small-integer features, many duplicates
      [ -f "$DATA/letter_20k.csv.gz" ] || return 1
      eps=3; loaded $name "gzip -dc $DATA/letter_20k.csv.gz | sed \"s/.*/{&}/\"" ;;
    fmnist_70k)  # Fashion-MNIST, all 70,000 images, 784 pixels
      [ -f "$DATA/train-images-idx3-ubyte.gz" ] || return 1
      eps=800
      loaded $name "$(fmnist train)"
      q -c "\\copy $name (v) FROM PROGRAM '$(fmnist t10k)'" -c "ANALYZE $name" ;;
    fmnist_60k_10k)  # the 10,000 test images against the 60,000 training images
      [ -f "$DATA/train-images-idx3-ubyte.gz" ] || return 1
      eps=1200 left=fmnist_test right=fmnist_train
      loaded fmnist_train "$(fmnist train)"; loaded fmnist_test "$(fmnist t10k)" ;;
    tiny2_10k)  # a small table: the fixed costs
      eps=1; generated $name "$(n 10000)" "ARRAY[random() * 100, random() * 100]" ;;
    dup2_1m)  # 100,000 distinct points, each ten times
      eps=0.5
      generated $name "$(n 1000000)" "ARRAY[(hashint4(i % $(n 100000)) & 1048575) / 1048.576, (hashint4(i % $(n 100000) + 7777777) & 1048575) / 1048.576]" ;;
    skew2_1m)  # 2,000 blobs whose sizes follow a power law: 15% of the rows in one blob
      eps=0.05
      generated $name "$(n 1000000)" "(SELECT ARRAY[(c * 7919) % 1000 + s * cos(t), (c * 104729) % 1000 + s * sin(t)]
          FROM (SELECT floor(2000 * power(random(), 4))::int + 0 * i AS c, sqrt(-2 * ln(1 - random())) AS s, 2 * pi() * random() AS t) g)" ;;
    two3_1m_100k)  # two tables, uniform 3-D
      eps=1 left=two3_big right=two3_small
      generated two3_big "$(n 1000000)" "ARRAY[random() * 100, random() * 100, random() * 100 + 0 * i]"
      generated two3_small "$(n 100000)" "ARRAY[random() * 100, random() * 100, random() * 100 + 0 * i]" ;;
    c32_200k)  # 200 Gaussian blobs (sd 1) in [0, 100]^32
      eps=6
      generated $name "$(n 200000)" "(SELECT array_agg(((i % 200) * (g * 7919 + 13)) % 100 + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())) FROM generate_series(1, 32) g)" ;;
    e128_100k)  # exponential (lambda 40) at 128-D, eps of about 80 neighbours a point
      eps=0.289
      generated $name "$(n 100000)" "(SELECT array_agg(least(1, -ln(1 - random()) / 40) + 0 * g + 0 * i) FROM generate_series(1, 128) g)" ;;
    units100_100k)  # 1,000 directions in 100-D, 100 noisy copies of each, joined by cosine
      eps=0.02 metric=cosine
      q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS units_dir; CREATE TABLE units_dir AS
            SELECT d, array_agg(sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) ORDER BY g) AS u
            FROM generate_series(0, 999) d, generate_series(1, 100) g GROUP BY d"
      generated $name "$(n 100000)" "(SELECT array_agg(x + 0.01 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))
          FROM units_dir, unnest(u) x WHERE d = i % 1000)" ;;
    blobs2_10m)  # 10 million rows in 10,000 Gaussian blobs (sd 2) over [0, 10000]^2
      eps=0.1
      generated $name "$(n 10000000)" "(SELECT ARRAY[(c * 7919) % 10000 + s * cos(t), (c * 104729) % 10000 + s * sin(t)]
          FROM (SELECT i % 10000 AS c, 2 * sqrt(-2 * ln(1 - random())) AS s, 2 * pi() * random() AS t) g)" ;;
    *) echo "choice_panel.sh: unknown set $name" >&2; return 1 ;;
  esac
  set_rows=$(q -c "SELECT (SELECT count(*) FROM $left) || CASE WHEN '$left' = '$right' THEN '' ELSE 'x' || (SELECT count(*) FROM $right) END")
  set_dim=$(q -c "SELECT array_length(v, 1) FROM $left LIMIT 1")
}

echo "set rows eps form pairs cpu_ms gpu_ms auto_ms auto_2nd_ms auto_device auto_algorithm auto_over_best estimate_s phases_s priced_cpu,gpu,around_s"
for name in $sets; do
  make_set "$name" || { echo "$name skipped"; continue; }
  op="<->"; fn_metric=""
  [ $metric = cosine ] && op="<=>" fn_metric=", metric => 'cosine'"
  for form in function customscan; do
    if [ $form = function ]; then sql="SELECT count(*) FROM similarity_join('$left', '$right', $eps$fn_metric)"
    else sql="SELECT count(*) FROM $left a JOIN $right b ON a.v $op b.v <= $eps"; fi
    export PANEL_TAG="$name $set_rows $set_dim $form"
    read -r cpu c_cpu _ cpu_algorithm _ cpu_phases _ <<<"$(best_ms cpu "$sql")"
    read -r gpu c_gpu _ gpu_algorithm gpu_estimate gpu_phases _ <<<"$(best_ms gpu "$sql")"
    read -r auto c_auto device algorithm estimate phases priced <<<"$(best_ms auto "$sql")"
    read -r auto2 _ <<<"$(SECOND=1 best_ms auto "$sql")"
    same=$([ "$c_cpu" = "$c_gpu" ] && [ "$c_cpu" = "$c_auto" ] && echo "$c_cpu" || echo "DIFFER:$c_cpu/$c_gpu/$c_auto")
    echo "$name $set_rows $eps $form $same $cpu $gpu $auto $auto2 $device $algorithm $(over_best "$auto" "$cpu" "$gpu") $estimate $phases $priced"
    echo "  # cpu: $cpu_algorithm phases ${cpu_phases}s; gpu: $gpu_algorithm estimate ${gpu_estimate}s phases ${gpu_phases}s"
  done
  q -c "SET client_min_messages = warning; DROP TABLE IF EXISTS $left, $right, units_dir"
done
