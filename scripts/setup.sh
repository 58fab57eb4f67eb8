#!/usr/bin/env bash
# Installs what simjoin needs on a fresh Debian 12 machine (PostgreSQL 15 server and headers,
# pgTAP, GoogleTest, PostGIS for the custom-scan tests), then builds and installs the extension.
# Idempotent: packages already present are not fetched again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
          libgtest-dev g++ make
          libpq-dev  # the fuzzer (build/simjoin_fuzz); also a dependency of postgresql-server-dev-15
          xz-utils  # tar xJ of the GPU machine's bundles (scripts/device/pg_check.sh)
          dpkg-dev  # dpkg-buildpackage, dpkg-deb (scripts/package_test.sh builds the .deb)
          build-essential  # dpkg-buildpackage's implicit build dependency (found by the clean-root check)
          debhelper  # dh, which debian/rules runs
          postgresql-server-dev-all  # dh's pgxs_loop sequence; pg_buildext comes with postgresql-common
          git  # scripts/package_test.sh copies the files git lists
          debootstrap  # scripts/clean_root_check.sh builds its clean Debian root
          postgresql-15-postgis-3)
# Runs "$@" as root: directly when root, else through sudo (which a fresh machine may lack).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "setup: not root and no sudo: run as root, or apt-get install sudo" >&2; exit 1
  fi
}
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  # through env: sudo drops DEBIAN_FRONTEND from the environment
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
make -j"$jobs" >/dev/null
if [ -w "$(pg_config --pkglibdir)" ]; then make install >/dev/null; else as_root make install >/dev/null; fi
echo "setup: simjoin built and installed into $(pg_config --pkglibdir)"
