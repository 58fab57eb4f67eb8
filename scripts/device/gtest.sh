# Source this on the GPU machine (it has no GoogleTest package): builds GoogleTest from the source
# tree in $GTEST_SRC (default .device-gtest: `cp -r /usr/src/googletest .device-gtest` here, then
# carry it) and exports CPATH and LIBRARY_PATH so that `make build/engine_tests` finds it.
setup_gtest() {
  local src=${GTEST_SRC:-.device-gtest}
  [ -d "$src/googletest/src" ] || return 0
  local lib=/tmp/simjoin-gtest
  mkdir -p "$lib"
  g++ -std=c++17 -O2 -pthread -I"$src/googletest/include" -I"$src/googletest" \
      -c "$src/googletest/src/gtest-all.cc" -o "$lib/gtest-all.o" &&
    g++ -std=c++17 -O2 -pthread -I"$src/googletest/include" \
      -c "$src/googletest/src/gtest_main.cc" -o "$lib/gtest_main.o" &&
    ar rcs "$lib/libgtest.a" "$lib/gtest-all.o" && ar rcs "$lib/libgtest_main.a" "$lib/gtest_main.o"
  export CPATH="$PWD/$src/googletest/include" LIBRARY_PATH="$lib"
}
