#!/usr/bin/env bash
# Run here (no GPU), in the repository's root, after ../shared/device/pack and with PostGIS
# installed (scripts/setup.sh installs it): writes .device-postgis/postgis-libs.tar.xz, the shared
# libraries PostGIS's modules need beyond the PostgreSQL bundle, which scripts/device/pg_up.sh
# unpacks into /opt/pgsys on the GPU machine. Carry it with .device: [".device", ".device-postgis"].
# The archive holds files only: an entry for "." would give /opt/pgsys the staging folder's mode
# (700), and the server's user could no longer load libraries from it.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qx '/.device-postgis/' .git/info/exclude 2>/dev/null || echo '/.device-postgis/' >> .git/info/exclude
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for module in /usr/lib/postgresql/15/lib/postgis-3.so /usr/lib/postgresql/15/lib/postgis_topology-3.so; do
  ldd "$module" | awk '{print $3}' | grep '^/'
done | sort -u | grep -v -E '/(libc|libm|libgcc_s|libstdc\+\+|libresolv|ld-linux[^/]*)\.so' |
  xargs -r -I{} cp -L {} "$stage/"
mkdir -p .device-postgis
(cd "$stage" && tar cJf - -- *) > .device-postgis/postgis-libs.tar.xz
echo "packed: $(du -h .device-postgis/postgis-libs.tar.xz | cut -f1) in .device-postgis/"
