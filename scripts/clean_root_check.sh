#!/usr/bin/env bash
# Runs the README's two commands (bash scripts/demo.sh, then bash scripts/test_all.sh) in a clean
# Debian 12 root made with debootstrap, to find what scripts/setup.sh forgets to install and what
# the scripts assume of the host. Run it as root on the development machine (Debian 12):
#
#   bash scripts/clean_root_check.sh [--dir DIR] [--reuse] [--no-cuda] [--as-user]
#                                    [--repo PATH] [--ref REF] [--log FILE] [--timeout MIN]
#
#   --dir DIR     where it works (default /var/tmp/simjoin-clean-root):
#                   DIR/minbase.tar    the debootstrap result, kept pristine for --reuse
#                   DIR/root           the root of the last run (left in place to inspect)
#                   DIR/apt-archives   downloaded .debs, bound at the root's /var/cache/apt/archives
#                   DIR/logs/          one log per run, and the run's build/test-logs
#   --reuse       unpack the root from DIR/minbase.tar instead of running debootstrap again
#                 (the root is a fresh copy either way: nothing of an earlier run is left in it)
#   --no-cuda     do not bind /usr/local/cuda into the root: the CPU-only build
#   --as-user     run the two commands as a user "dev" with password-less sudo (sudo installed
#                 into the root first) instead of as root, as CI does
#   --repo PATH   the repository to clone (default: this checkout); --ref REF: the commit to test
#                 (default: its HEAD). Only committed work is tested.
#   --log FILE    the run's log (default DIR/logs/<date>-<commit>.log)
#   --timeout MIN each of the two commands' limit in minutes (default 90)
# Prints the demo's pair count and the final "simjoin: N passed, M failed" line; exits 0 only
# if the demo printed its result, the tests ended "0 failed" and every command of the list
# below exists in the root afterwards.
#
# The root: debootstrap --variant=minbase (Priority: required packages and apt) plus git and
# ca-certificates, from the host's apt mirror (/etc/apt/sources.list and sources.list.d, the
# bookworm suites), and /usr/local/cuda bound read-only (outside any package: machines of this
# kind have it). Nothing else: g++, make, PostgreSQL and every other tool must come from
# setup.sh. (A fresh machine of this kind also has perl, which git pulls in here too, python3,
# and maybe sudo; python3 is left out on purpose, so that a script needing it shows up.)
# In the root, /usr/sbin/policy-rc.d forbids starting services, so that installing postgresql-15
# does not start a server on port 5432 of the host's network; the tests start their own.
#
# The commands the scripts call (scripts/*.sh, test/**/*.sh, .ci/run, Makefile and PGXS), with
# their Debian packages (dpkg -S on the host). "minbase" packages are Priority: required.
#   minbase  bash dirname basename pwd mkdir cat rm mv cp ln ls tee head tail sort tr cut od date
#            seq sleep nproc id mktemp realpath chmod chown timeout (coreutils); xargs (findutils);
#            grep; sed; awk (mawk); gzip; tar; cmp diff (diffutils); su (util-linux); dpkg-query
#            (dpkg); apt-get (apt)
#   setup.sh g++ (g++), make (make), ar as ld (binutils, from g++), pg_config (libpq-dev and
#            postgresql-server-dev-15), psql pg_isready (postgresql-client-common, from
#            postgresql-15), initdb pg_ctl postgres (postgresql-15), pg_regress
#            pg_isolation_regress (postgresql-client-15), pg_prove
#            (libtap-parser-sourcehandler-pgtap-perl), xz (xz-utils)
#   else     sudo (setup.sh and pg_cluster.sh when not root: setup.sh says so in one line),
#            nvcc (/usr/local/cuda, optional), python3 (test/isolation/make_expected.sh, a
#            maintainer's tool: one-line error), valgrind (scripts/valgrind_check.sh: one-line
#            error); on the GPU machine only (its image): nvidia-smi cuobjdump compute-sanitizer
#            python3 with torch (scripts/device_*.sh)
# docs/TESTING.md ("Clean-root check") records the runs and what they found.
set -uo pipefail

dir=/var/tmp/simjoin-clean-root
reuse=0 cuda=1 as_user=0 repo="" ref="" log="" limit_min=90
usage() { sed -n '6,7p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=${2:?}; shift 2 ;;
    --reuse) reuse=1; shift ;;
    --no-cuda) cuda=0; shift ;;
    --as-user) as_user=1; shift ;;
    --repo) repo=${2:?}; shift 2 ;;
    --ref) ref=${2:?}; shift 2 ;;
    --log) log=${2:?}; shift 2 ;;
    --timeout) limit_min=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done

die() { echo "clean_root_check: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "run it as root (debootstrap, mount and chroot need it)"
command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
[ "$cuda" -eq 0 ] || [ -x /usr/local/cuda/bin/nvcc ] || die "no /usr/local/cuda/bin/nvcc here: use --no-cuda"
case "$dir" in /?*) ;; *) die "--dir must be an absolute path" ;; esac
[[ "$dir" =~ ^[A-Za-z0-9_./-]+$ ]] || die "--dir: letters, digits and _ . / - only"
mkdir -p "$dir" && dir=$(realpath "$dir") && [ "$dir" != / ] || die "bad --dir"
root=$dir/root

repo=${repo:-$(cd "$(dirname "$0")/.." && pwd)}
commit=$(git -C "$repo" rev-parse --verify "${ref:-HEAD}^{commit}") || die "no commit ${ref:-HEAD} in $repo"
short=${commit:0:7}
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ] || [ -n "$ref" ] ||
  echo "clean_root_check: note: $repo has uncommitted changes; the root gets commit $short only"
mkdir -p "$dir/logs" "$dir/apt-archives/partial"
log=${log:-$dir/logs/$(date +%Y%m%d-%H%M%S)-$short$([ "$cuda" -eq 1 ] || echo -nocuda)$([ "$as_user" -eq 0 ] || echo -user).log}
: >"$log" || die "cannot write $log"
say() { echo "$*" | tee -a "$log"; }

# Mounts under the root (mount points, deepest last), from /proc/self/mountinfo.
mounts_under() { awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo; }

cleanup() {
  local p link
  # Processes left in the root (a server the tests started, a command past its limit): all
  # were started by this script.
  for p in /proc/[0-9]*; do
    link=$(readlink "$p/root" 2>/dev/null) || continue
    [ "$link" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  sleep 1
  for m in $(mounts_under | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "clean_root_check: could not unmount $m" >&2
  done
}

# ---- the root ------------------------------------------------------------------------------
[ -z "$(mounts_under)" ] || die "something is still mounted under $root (a run in progress?): $(mounts_under | tr '\n' ' ')"
rm -rf --one-file-system "$root"

# The host's Debian apt sources (bookworm suites): deb822 stanzas and one-line entries.
host_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && grep -E '^[[:space:]]*deb[[:space:]]' "$f" | grep -E '[[:space:]]bookworm(-[a-z]+)?([[:space:]]|$)' |
      sed 's/^/list /'
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && awk 'BEGIN { RS = ""; ORS = "\n\n" }
      /(^|\n)Suites:[^\n]*[ \t]bookworm([ \t\n-]|$)/ && !/(^|\n)Enabled:[ \t]*no/ {
        gsub(/(^|\n)#[^\n]*/, ""); sub(/^\n/, ""); print "deb822\n" $0 }' "$f"
  done
}
mirror=$(host_sources | awk '
  /^list / && $4 == "bookworm" && !m { for (i = 3; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { m = $i; break } }
  /^Suites:/ { s = $0 } /^URIs:/ { u = $2 }
  /^$/ { if (s ~ /[ \t]bookworm([ \t]|$)/ && !m) m = u; s = u = "" }
  END { print m }')
[ -n "$mirror" ] || die "no bookworm entry in the host's /etc/apt/sources.list(.d)"

start_all=$SECONDS
trap cleanup EXIT  # debootstrap mounts /proc and /sys in the root while it works
trap 'exit 130' INT TERM
if [ "$reuse" -eq 1 ] && [ -f "$dir/minbase.tar" ]; then
  say "== root: unpacking $dir/minbase.tar into $root"
  mkdir -p "$root" && tar -xpf "$dir/minbase.tar" -C "$root" || die "could not unpack $dir/minbase.tar"
else
  say "== root: debootstrap --variant=minbase --include=git,ca-certificates bookworm $root $mirror"
  debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" >>"$log" 2>&1 ||
    { tail -20 "$log"; die "debootstrap failed (log: $log)"; }
  # The host's Debian entries (updates, security) instead of debootstrap's one line.
  rm -f "$root/etc/apt/sources.list"
  host_sources | awk '/^list / { sub(/^list /, ""); print > (dir "/host.list"); next }
                     /^deb822$/ { next } { print > (dir "/host.sources") }' dir="$root/etc/apt/sources.list.d"
  printf '#!/bin/sh\n# clean_root_check.sh: no services in this root\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*_* 2>/dev/null
  tar -cpf "$dir/minbase.tar.new" -C "$root" . && mv "$dir/minbase.tar.new" "$dir/minbase.tar" ||
    die "could not write $dir/minbase.tar"
fi
say "   $(chroot "$root" dpkg-query -W -f='.\n' | wc -l) packages, sources: $(cat "$root"/etc/apt/sources.list.d/* | grep -cE '^(deb |URIs:)') entries"

cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/hosts "$root/etc/hosts"
mount -t proc proc "$root/proc" &&
  mount -t sysfs sysfs "$root/sys" &&
  mount --bind /dev "$root/dev" &&
  mount --bind /dev/pts "$root/dev/pts" &&
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm" &&
  mount --bind "$dir/apt-archives" "$root/var/cache/apt/archives" || die "mounting failed"
if [ "$cuda" -eq 1 ]; then
  mkdir -p "$root/usr/local/cuda"
  mount --bind "$(readlink -f /usr/local/cuda)" "$root/usr/local/cuda" &&
    mount -o remount,bind,ro "$root/usr/local/cuda" || die "could not bind /usr/local/cuda"
fi
chroot "$root" chown _apt:root /var/cache/apt/archives/partial 2>/dev/null

# ---- the checkout and the user ---------------------------------------------------------------
if [ "$as_user" -eq 1 ]; then
  say "== root: installing sudo, adding user dev (password-less sudo)"
  { chroot "$root" apt-get update -qq &&
      chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends sudo &&
      chroot "$root" useradd -m -s /bin/bash dev &&
      echo 'dev ALL=(ALL) NOPASSWD:ALL' >"$root/etc/sudoers.d/dev"; } >>"$log" 2>&1 || die "could not add the user (log: $log)"
  home=/home/dev
else
  home=/root
fi
git clone -q --no-hardlinks "$repo" "$root$home/simjoin" >>"$log" 2>&1 &&
  git -C "$root$home/simjoin" checkout -q --detach "$commit" || die "could not clone $repo at $short"
[ "$as_user" -eq 0 ] || chroot "$root" chown -R dev:dev "$home/simjoin"
say "== $short ($(git -C "$repo" log -1 --format=%s "$commit")) in $root$home/simjoin, cuda: $([ "$cuda" -eq 1 ] && echo yes || echo no), as $([ "$as_user" -eq 1 ] && echo dev || echo root)"

# One of the README's commands in the root, as a fresh login would run it (a clean environment).
in_root() {
  local path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  if [ "$as_user" -eq 1 ]; then
    timeout -k 10 "${limit_min}m" chroot "$root" su - dev -c "cd ~/simjoin && $1"
  else
    timeout -k 10 "${limit_min}m" chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
      SHELL=/bin/bash PATH=$path /bin/bash -c "cd /root/simjoin && $1"
  fi
}

say "== bash scripts/demo.sh"
t=$SECONDS
in_root "bash scripts/demo.sh" </dev/null >"$log.demo" 2>&1
demo_rc=$?
cat "$log.demo" >>"$log"
demo_pairs=$(grep -A2 'pairs_within_2_km' "$log.demo" | grep -oE '^ *[0-9]+ *$' | tr -d ' ' | head -1)
say "   demo: exit $demo_rc in $((SECONDS - t)) s, pairs within 2 km: ${demo_pairs:-none}"
rm -f "$log.demo"

say "== bash scripts/test_all.sh"
t=$SECONDS
in_root "bash scripts/test_all.sh" </dev/null 2>&1 | tee -a "$log" | grep -E '^(== |simjoin: )'
tests_rc=${PIPESTATUS[0]}
result=$(grep -E '^simjoin: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
say "   tests: exit $tests_rc in $((SECONDS - t)) s"
rm -rf "$log.test-logs" && cp -r "$root$home/simjoin/build/test-logs" "$log.test-logs" 2>/dev/null

# Every command of the list above that setup.sh's packages or minbase must provide.
say "== commands in the root"
missing=$(chroot "$root" /bin/bash -c 'for c in "$@"; do command -v "$c" >/dev/null || echo "$c"; done' - \
  bash dirname basename pwd mkdir cat rm mv cp ln ls tee head tail sort tr cut od date seq sleep \
  nproc id mktemp realpath chmod chown timeout xargs grep sed awk gzip tar cmp diff su dpkg-query apt-get \
  g++ make ar as ld pg_config psql pg_isready pg_prove xz \
  /usr/lib/postgresql/15/bin/initdb /usr/lib/postgresql/15/bin/pg_ctl /usr/lib/postgresql/15/bin/postgres \
  /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
  /usr/lib/postgresql/15/lib/pgxs/src/test/isolation/pg_isolation_regress | tr '\n' ' ')
say "   missing: ${missing:-none}"
# A tool missing where a failure is not fatal, a file the server's user may not read.
shell_errors=$(grep -E 'command not found|No such file or directory$|Permission denied$' "$log" | sort | uniq -c)
say "   shell errors in the log: ${shell_errors:-none}"
# What the tests passed without running (test_all.sh's notes, GoogleTest's skips: GPU tests).
say "   skipped: $(grep -E '^note: |^\[  SKIPPED \] [0-9]+ tests' "$log" | sed 's/ *$//' | paste -sd';' -)"

ok=1
[ "$demo_rc" -eq 0 ] && [ -n "$demo_pairs" ] || ok=0
[[ "$result" == *" 0 failed" ]] && [ "$tests_rc" -eq 0 ] || ok=0
[ -z "$missing" ] || ok=0
[ -z "$shell_errors" ] || ok=0
say "== clean root ($short, cuda $([ "$cuda" -eq 1 ] && echo yes || echo no), as $([ "$as_user" -eq 1 ] && echo dev || echo root)), $((SECONDS - start_all)) s: ${result:-no result line} $([ "$ok" -eq 1 ] && echo PASS || echo FAIL)"
say "   log: $log"
[ "$ok" -eq 1 ]
