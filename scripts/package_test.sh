#!/usr/bin/env bash
# Builds the Debian package (debian/: pg_buildext through the PGXS Makefile) from a copy of the
# tree (the files git tracks and the untracked ones it does not ignore) in a temp dir, and checks
# META.json and the package: the .deb holds simjoin.so, simjoin.control, every sql/simjoin--*.sql
# and the current version's script made from them where PostgreSQL 15 looks for them, the control
# file's module_pathname names the .so, ldd finds all its libraries, the build wrote only
# gitignored files and debian/rules clean removes them. Installs nothing. Ends with "package_test: ok (<deb>, <size>)".
#   SIMJOIN_PKG_CUDA_ARCH  GPU architectures when nvcc is present (default here: sm_90 alone, to
#                          keep the test fast; a plain dpkg-buildpackage builds the Makefile's set)
#   CUDA=no                build the CPU engine alone
#   SIMJOIN_PKG_KEEP=1     keep the temp dir (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

fail() { echo "package_test: FAILED: $*" >&2; exit 1; }
need_tool() { command -v "$1" >/dev/null 2>&1 || fail "$1 not found: install the package $2 (scripts/setup.sh)"; }
need_tool git git
need_tool dpkg-buildpackage dpkg-dev
need_tool dh debhelper
need_tool pg_buildext postgresql-common
need_tool readelf binutils
perl -e 'for (@INC) { exit 0 if -f "$_/Debian/Debhelper/Sequence/pgxs_loop.pm" } exit 1' ||
  fail "debhelper's pgxs_loop sequence not found: install the package postgresql-server-dev-all"
perl -MJSON::PP -e 1 2>/dev/null || fail "perl's JSON::PP not found: install the package perl"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -x "$PG_CONFIG" ] || fail "$PG_CONFIG not found: install the package postgresql-server-dev-15"
pkglibdir=$("$PG_CONFIG" --pkglibdir)
extdir=$("$PG_CONFIG" --sharedir)/extension

problems=0
problem() { echo "package_test: FAILED: $*" >&2; problems=$((problems + 1)); }

# META.json: valid JSON, and its version and simjoin's provides version agree with
# simjoin.control's default_version (1.1 -> 1.1.0); its file is simjoin.control (the current
# version's script is made at build time from sql/'s scripts).
if meta_check=$(perl -MJSON::PP -e '
  local $/; open my $m, "<", "META.json" or die "cannot read META.json: $!\n";
  my $meta = eval { JSON::PP->new->decode(<$m>) } or die "META.json is not valid JSON: $@";
  open my $c, "<", "simjoin.control" or die "cannot read simjoin.control: $!\n";
  my ($default) = <$c> =~ /^\s*default_version\s*=\s*\x27([^\x27]+)\x27/m
    or die "simjoin.control has no default_version\n";
  my $want = join ".", (split(/\./, $default), 0, 0)[0 .. 2];
  my $p = $meta->{provides}{simjoin} or die "META.json: no provides.simjoin\n";
  my @bad;
  push @bad, "provides.simjoin.version is $p->{version}" if ($p->{version} // "") ne $want;
  push @bad, "version is $meta->{version}" if ($meta->{version} // "") ne $want;
  push @bad, "provides.simjoin.file is $p->{file}" if ($p->{file} // "") ne "simjoin.control";
  die "META.json: " . join(", ", @bad) . " but simjoin.control says default_version = \x27$default\x27"
    . " (expected $want, simjoin.control)\n" if @bad;
  print "META.json: simjoin $want, simjoin.control\n";
' 2>&1); then echo "$meta_check"; else problem "$meta_check"; fi

tmp=$(mktemp -d /tmp/simjoin-pkg.XXXXXX)
if [ -n "${SIMJOIN_PKG_KEEP:-}" ]; then echo "package_test: temp dir $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
src=$tmp/simjoin
log=$root/build/package_test.log
mkdir -p "$src" "$root/build"

# The copy is a git repository of its own, every file committed, so that git status tells afterwards
# what the build deleted, changed or left behind outside .gitignore.
git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$src" || fail "copying the tree to $src failed"
{ git -C "$src" init -q && git -C "$src" add -A &&
  git -C "$src" -c user.name=package_test -c user.email=package_test@localhost -c commit.gpgsign=false \
    commit -qm copy; } || fail "git could not commit the copy in $src"

start=$SECONDS
arch_note="CPU engine only"; want_gpu=no
if [ "${CUDA:-}" != no ] && { [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; }; then
  export CUDA_ARCH=${SIMJOIN_PKG_CUDA_ARCH:-"-gencode arch=compute_90,code=sm_90"}
  arch_note="CUDA backend: $CUDA_ARCH"; want_gpu=yes
fi
echo "package_test: dpkg-buildpackage -us -uc -b in $src ($arch_note)"
(cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$log" 2>&1 ||
  { tail -30 "$log" >&2; fail "dpkg-buildpackage failed (log: $log)"; }
echo "package_test: built in $((SECONDS - start)) s"

shopt -s nullglob
debs=("$tmp"/postgresql-15-simjoin_*.deb)
[ ${#debs[@]} -eq 1 ] || fail "expected one postgresql-15-simjoin_*.deb in $tmp, found ${#debs[@]}"
deb=${debs[0]}

# What the build did to the tree: nothing deleted or changed, new files all gitignored; and
# debian/rules clean takes the ignored ones away again.
changed=$(git -C "$src" status --porcelain)
[ -z "$changed" ] || problem "the build deleted, changed or left files git does not ignore:"$'\n'"$changed"
(cd "$src" && debian/rules clean) >>"$log" 2>&1 || problem "debian/rules clean failed (log: $log)"
left=$(git -C "$src" status --porcelain --ignored)
[ -z "$left" ] || problem "the tree after debian/rules clean differs from the copy:"$'\n'"$left"

# The package's files.
listing=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
has() { grep -qxF "$1" <<<"$listing" || problem "$(basename "$deb") lacks $1"; }
has "$pkglibdir/simjoin.so"
has "$extdir/simjoin.control"
sqls=("$src"/sql/simjoin--*.sql)
[ ${#sqls[@]} -gt 0 ] || problem "no sql/simjoin--*.sql in the tree"
for f in "${sqls[@]}"; do has "$extdir/$(basename "$f")"; done
default=$(sed -nE "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'([^']*)'.*/\1/p" simjoin.control)
has "$extdir/simjoin--$default.sql"  # made by the Makefile from sql/'s scripts
stray=$(grep -vE "^($pkglibdir|$extdir|/usr/share/doc/postgresql-15-simjoin)(/|$)|^/(usr(/lib(/postgresql(/15)?)?|/share(/postgresql(/15)?|/doc)?)?)?/?$" <<<"$listing" || true)
[ -z "$stray" ] || problem "files outside PostgreSQL's and the doc directories: $stray"
depends=$(dpkg-deb -f "$deb" Depends)
if grep -qi cuda <<<"$depends"; then problem "the package depends on CUDA: $depends"; fi

# Unpacked: module_pathname names the .so, and ldd resolves every library it needs.
dest=$tmp/root
dpkg-deb -x "$deb" "$dest"
module=$(sed -nE "s/^[[:space:]]*module_pathname[[:space:]]*=[[:space:]]*'([^']*)'.*/\1/p" "$dest$extdir/simjoin.control")
[ -n "$module" ] || fail "simjoin.control in the package has no module_pathname"
so=${module/\$libdir/$pkglibdir}
[[ $so == *.so ]] || so=$so.so
[ -f "$dest$so" ] || problem "module_pathname '$module' names $so, which the package does not hold"
if [ -f "$dest$so" ]; then
  libs=$(ldd "$dest$so" 2>&1) || problem "ldd $so failed: $libs"
  if grep -q "not found" <<<"$libs"; then problem "ldd $so: $(grep "not found" <<<"$libs" | tr -s ' \t' ' ')"; fi
  if grep -qi cuda <<<"$libs"; then problem "$so loads a CUDA library dynamically: $(grep -i cuda <<<"$libs")"; fi
  sections=$(readelf -S "$dest$so")  # not piped into grep -q: pipefail would count readelf's SIGPIPE
  if grep -q '\.nv_fatbin' <<<"$sections"; then gpu="with the CUDA backend"; else gpu="CPU engine only"; fi
  [ "$want_gpu" = no ] || [ "$gpu" != "CPU engine only" ] || problem "nvcc is here, but $so has no CUDA code"
  echo "package_test: $so ($gpu), needs $(grep -oE '^[[:space:]]*[^ ]+' <<<"$libs" | tr -d '\t ' | paste -sd ' ')"
fi

[ "$problems" -eq 0 ] || fail "$problems problem(s) above (log: $log)"
echo "package_test: ok ($(basename "$deb"), $(numfmt --to=iec-i --suffix=B "$(stat -c %s "$deb")"))"
