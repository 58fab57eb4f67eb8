#!/usr/bin/env bash
# Sets everything up on a fresh machine (packages, build, install), starts a throwaway
# PostgreSQL 15 cluster, and runs the demo join on real data shipped in demo/data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/pg_cluster.sh
pg_cluster_start
psql -X -q -f demo/demo.sql
