#!/usr/bin/env bash
# Installs what simjoin needs on a fresh Debian 12 machine (PostgreSQL 15 server and headers,
# pgTAP, GoogleTest, PostGIS for the custom-scan tests), then builds and installs the extension.
# Idempotent: packages already present are not fetched again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
          libgtest-dev g++ make
          libpq-dev  # the fuzzer (build/simjoin_fuzz); also a dependency of postgresql-server-dev-15
          xz-utils  # tar xJ of the GPU machine's bundles (scripts/device_pg_check.sh)
          dpkg-dev  # dpkg-buildpackage, dpkg-deb (scripts/package_test.sh builds the .deb)
          debhelper  # dh, which debian/rules runs
          postgresql-server-dev-all  # dh's pgxs_loop sequence; pg_buildext comes with postgresql-common
          git  # scripts/package_test.sh copies the files git lists
          postgresql-15-postgis-3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
make -j"$jobs" >/dev/null
SUDO=""; [ "$(id -u)" -eq 0 ] || [ -w "$(pg_config --pkglibdir)" ] || SUDO=sudo
$SUDO make install >/dev/null
echo "setup: simjoin built and installed into $(pg_config --pkglibdir)"
