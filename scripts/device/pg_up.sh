# Source this on the GPU machine from the repository's root (the device scripts do): unpacks the
# PostgreSQL bundle (.device) and PostGIS's shared libraries (.device-postgis, made by
# scripts/device/pack_postgis.sh; when carried)
# before the server starts, links Debian's PostGIS control files (links through
# /etc/alternatives, which the bundle lacks), and starts the cluster with .device/pg-up.
[ -x /usr/lib/postgresql/15/bin/postgres ] || tar xJf .device/pg15-root.tar.xz -C /
[ -f .device-postgis/postgis-libs.tar.xz ] && tar xJf .device-postgis/postgis-libs.tar.xz -C /opt/pgsys &&
  chmod 755 /opt/pgsys  # an archive with a "." entry would leave it 700
for link in /usr/share/postgresql/15/extension/*.control; do
  [ -e "$link" ] || ln -sf "$(basename "${link%.control}")-3.control" "$link"
done
source .device/pg-up >/dev/null

# Restarts the cluster with the library preloaded (the GPU service) and waits until the service
# reports a usable GPU; $1: max_connections.
restart_preloaded() {
  su pgu -s /bin/bash -c "LD_LIBRARY_PATH=$LD_LIBRARY_PATH /usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pgdata -l /tmp/pg.log -w \
    -o \"-k /tmp -c listen_addresses= -c shared_preload_libraries=simjoin -c max_connections=$1\" restart" >/dev/null ||
    { tail -20 /tmp/pg.log; return 1; }
  for _ in $(seq 1 100); do
    [ "$(psql -AtqX -c "CREATE EXTENSION IF NOT EXISTS simjoin; SELECT gpu_available FROM simjoin_device_info()" 2>/dev/null | tail -1)" = t ] && break
    sleep 0.1
  done
}
