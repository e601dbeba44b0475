#!/bin/sh
# pti installed and used from outside, as its users will.
#
#   install-test.sh SOURCE_ROOT SANITIZE EXAMPLE_MODEL.c ptitrace|no-ptitrace PINGPONG [STATIC_DEPS]
#
# How (and why this way): a `meson install --destdir` of the build under
# test would keep the prefix compiled into its binaries (where to find the
# schemas and the installed models) pointing somewhere else, so it could
# not show that an install works.  Instead the test copies the source tree
# (without .git and without build directories) into a temporary directory,
# configures it with --prefix set to a temporary prefix, builds and installs
# it, and DELETES the copy and its build directory.  From then on only the
# prefix exists: no source schemas to fall back on, no build-tree libraries,
# and no PTI_SCHEMA_DIR, PTI_MODEL_PATH, LD_LIBRARY_PATH or PKG_CONFIG_PATH
# from the test environment.  Everything below uses the installed files,
# found through pkg-config, from a directory outside any tree:
#
#  1. the files are where they belong; the public headers compile alone, as
#     C (and as C++ when a C++ compiler is there);
#  2. the installed ptieval runs an installed workload on an installed
#     system (its run path finds libpti-hmi, xml.c finds the installed
#     schemas), predicts what the build under test predicts, and writes a
#     trace that validates against the installed trace.xsd; the installed
#     ptitrace (when cairo let it be built) converts and draws that trace;
#  3. a workload program (the installed pingpong.c and halo2d.c) builds with
#     `cc prog.c $(pkg-config --cflags --libs pti)` and runs, and the
#     installed ptieval predicts the same from the tutorial's workload files
#     (the installed pingpong.xml and halo2d.xml);
#  4. a model builds with `cc -shared -fPIC model.c $(pkg-config --cflags
#     --libs pti-hmi)` (the example model of tests/hmc, then the installed
#     template), ptieval loads it with --model-path, lists it and runs with
#     it; copied into the installed model directory it is found by default;
#  5. every installed system (configs and the template's) validates against
#     the installed hmc.xsd and each model element against its model's XSD
#     (every installed model schema, so a new model is covered without
#     editing this test), with xmllint; every installed workload file against
#     workload.xsd;
#  6. a man page per tool is there, with no placeholder left.
#
# STATIC_DEPS (true or false, default false) is its static_deps option: the
# installed ptieval is linked the same way, so that section 4 loads models
# from outside into the ptieval the build under test makes.
# SANITIZE is the b_sanitize option of the build under test: under
# AddressSanitizer the temporary install and every program built outside
# are built with the same -fsanitize flags, since a program built without
# them cannot load an instrumented libpti (the ASan runtime must come
# first).  About 10 s plain, 20 s with sanitizers, on two cores.
set -eu

src=$1
sanitize=$2
example_model=$3
with_ptitrace=${4:-no-ptitrace}
tree_pingpong=$5   # the build under test's pingpong, to compare with
static_deps=${6:-false}   # its -Dstatic_deps: the installed ptieval is linked as it is

say () { printf '# %s\n' "$*"; }
fail () { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

tree_ptieval=${PTIEVAL:?PTIEVAL: the ptieval of the build under test}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pti-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
unset PTI_SCHEMA_DIR PTI_MODEL_PATH PTI_MODEL_SYSTEM_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH \
      PTIEVAL SWEEP3D PTI_SOURCE_ROOT G_TEST_SRCDIR G_TEST_BUILDDIR

san_flags=
setup_san=
if [ "$sanitize" != none ] && [ -n "$sanitize" ]; then
  san_flags="-fsanitize=$sanitize -fno-omit-frame-pointer"
  setup_san="-Db_sanitize=$sanitize -Db_lundef=false"
fi
# Leaks are failures; a program built outside must be as clean as the tree.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

run_logged () {  # run_logged LOG COMMAND...: quiet unless it fails
  log=$1
  shift
  if ! "$@" > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "$*"
  fi
}

# ---- install into a fresh prefix ------------------------------------------
prefix=$tmp/prefix
mkdir "$tmp/src"
tar -C "$src" --exclude=.git --exclude-tag-all=build.ninja -cf - . | tar -C "$tmp/src" -xf -
# shellcheck disable=SC2086  # setup_san is a list of options
run_logged "$tmp/setup.log" meson setup "$tmp/build" "$tmp/src" --prefix "$prefix" \
  --buildtype=plain -Dstatic_deps="$static_deps" $setup_san
run_logged "$tmp/compile.log" meson compile -C "$tmp/build"
run_logged "$tmp/install.log" meson install -C "$tmp/build" --no-rebuild
rm -rf "$tmp/src" "$tmp/build"
say "installed into a fresh prefix; source copy and build directory deleted"

pc=$(find "$prefix" -name pti.pc)
[ -n "$pc" ] || fail "no pti.pc installed"
export PKG_CONFIG_PATH="${pc%/*}"
export PATH="$prefix/bin:$PATH"
pkg-config --exists --print-errors pti pti-hmi || fail "pkg-config cannot use pti.pc / pti-hmi.pc"
libdir=$(pkg-config --variable=libdir pti)
schemadir=$(pkg-config --variable=schemadir pti)
configdir=$(pkg-config --variable=configdir pti)
exampledir=$(pkg-config --variable=exampledir pti)
modeldir=$(pkg-config --variable=modeldir pti-hmi)
templatedir=$(pkg-config --variable=templatedir pti-hmi)
for v in "$libdir" "$schemadir" "$configdir" "$exampledir" "$modeldir" "$templatedir"; do
  case $v in "$prefix"/*) ;; *) fail "pkg-config variable $v is not inside the prefix" ;; esac
  [ -d "$v" ] || fail "$v: not installed"
done

# ---- 1. files, headers ------------------------------------------------------
tools="ptieval pticalibrate"
[ "$with_ptitrace" = ptitrace ] && tools="$tools ptitrace ptisweep"   # ptisweep needs cairo too
for f in include/pti/wsl.h include/pti/hmi.h include/pti/expr.h include/pti/rud.h \
         include/pti/hmi-api.h; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done
for t in $tools; do
  [ -x "$prefix/bin/$t" ] || fail "bin/$t not installed"
  [ -f "$prefix/share/man/man1/$t.1" ] || fail "share/man/man1/$t.1 (the man page of $t) not installed"
done
for f in "$libdir/libpti.so" "$libdir/libpti-hmi.so" \
         "$schemadir/hmc.xsd" "$schemadir/workload.xsd" "$schemadir/trace.xsd" \
         "$schemadir/cpu-clc.xsd" "$schemadir/net-simple.xsd" \
         "$configdir/pc_cluster.xml" "$configdir/fast_cluster.xml" \
         "$exampledir/pingpong.c" "$exampledir/halo2d.c" "$exampledir/sweep3d.c" \
         "$exampledir/sweep3d.xml" "$exampledir/pingpong.xml" "$exampledir/halo2d.xml" \
         "$templatedir/model-template.c" "$templatedir/model-template.xsd" \
         "$templatedir/xsd-to-c.sed" "$templatedir/README.md" "$templatedir/Makefile" \
         "$templatedir/example-system.xml"; do
  [ -e "$f" ] || fail "$f not installed"
done

mkdir "$tmp/user"
cd "$tmp/user"
for h in wsl hmi expr rud hmi-api; do
  printf '#include <pti/%s.h>\nint main (void) { return 0; }\n' "$h" > "header-$h.c"
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Wextra -Werror -c "header-$h.c" -o "header-$h.o" \
     $(pkg-config --cflags pti) || fail "<pti/$h.h> does not compile alone as C99"
  if command -v c++ > /dev/null 2>&1; then
    cp "header-$h.c" "header-$h.cc"
    # shellcheck disable=SC2046
    c++ -Wall -Wextra -Werror -c "header-$h.cc" -o "header-$h.o" \
        $(pkg-config --cflags pti) || fail "<pti/$h.h> does not compile alone as C++"
  fi
done
say "public headers compile alone"

# ---- 2. the installed ptieval ---------------------------------------------------
# It must predict what the build under test predicts, from the source files.
result () {  # the predicted time and the event count of a --json line
  sed -n 's/.*"predicted_time_s": \([^,]*\), "events": \([0-9]*\), .*/\1 \2/p' "$1"
}
ptieval "$configdir/pc_cluster.xml" "$exampledir/sweep3d.xml" -D iterations=1 -o trace.xml \
  --json > sweep.json || fail "installed ptieval on installed files"
PTI_SCHEMA_DIR=$src/schemas PTI_MODEL_SYSTEM_PATH= "$tree_ptieval" \
  "$src/configs/pc_cluster.xml" "$src/wsl/examples/sweep3d.xml" -D iterations=1 --json > tree.json \
  || fail "the build's ptieval"
[ -n "$(result sweep.json)" ] && [ "$(result sweep.json)" = "$(result tree.json)" ] \
  || fail "installed: $(cat sweep.json); build tree: $(cat tree.json)"
xmllint --noout --schema "$schemadir/trace.xsd" trace.xml 2> xmllint.log \
  || { cat xmllint.log >&2; fail "the trace does not validate against the installed trace.xsd"; }
ptieval --version | grep -q '^ptieval (pti ' || fail "ptieval --version"
say "installed ptieval runs on installed files, trace validates"
if [ "$with_ptitrace" = ptitrace ]; then
  ptitrace summary trace.xml > summary.txt || fail "installed ptitrace summary"
  grep -q '^predicted: ' summary.txt || fail "ptitrace summary: $(cat summary.txt)"
  ptitrace paraver trace.xml -o trace || fail "installed ptitrace paraver"
  ptitrace chrome trace.xml -o trace.json || fail "installed ptitrace chrome"
  # fontconfig keeps its configuration for the process's life; a sanitizer
  # build reports it as a leak (the suppressions ptitrace's own tests use).
  LSAN_OPTIONS="suppressions=$src/tests/ptitrace/lsan.supp:print_suppressions=0" \
    ptitrace plot trace.xml -o trace.png || fail "installed ptitrace plot"
  for f in trace.prv trace.pcf trace.row trace.json trace.png; do
    [ -s "$f" ] || fail "installed ptitrace wrote no $f"
  done
  say "installed ptitrace converts and draws the trace"
fi

# ---- 3. a workload program from outside ---------------------------------------------
cp "$exampledir/pingpong.c" "$exampledir/halo2d.c" .
for prog in pingpong halo2d; do
  # shellcheck disable=SC2046,SC2086
  cc $san_flags "$prog.c" -o "$prog" $(pkg-config --cflags --libs pti) -Wl,-rpath,"$libdir" \
    || fail "cc $prog.c \$(pkg-config --cflags --libs pti)"
done
ldd ./pingpong | grep -q "$libdir/libpti.so" || fail "pingpong does not use the installed libpti"
./pingpong "$configdir/pc_cluster.xml" --json > pingpong.json || fail "pingpong"
PTI_SCHEMA_DIR=$src/schemas PTI_MODEL_SYSTEM_PATH= "$tree_pingpong" "$src/configs/pc_cluster.xml" \
  --json > tree-pingpong.json || fail "the build's pingpong"
[ -n "$(result pingpong.json)" ] && [ "$(result pingpong.json)" = "$(result tree-pingpong.json)" ] \
  || fail "pingpong installed: $(cat pingpong.json); build tree: $(cat tree-pingpong.json)"
# 10^6 iterations of 19.999 ns (wsl/README.md), then a 1 KiB message there
# and back, each at least the two 4.5 us overheads and under 50 us.
awk -v t="$(result pingpong.json | cut -d' ' -f1)" 'BEGIN { exit !(t > 0.020017 && t < 0.0201) }' \
  || fail "pingpong predicts $(result pingpong.json | cut -d' ' -f1) s, not 19.999 ms + 2 messages"
./halo2d "$configdir/fast_cluster.xml" -D steps=3 > halo2d.txt || fail "halo2d"
grep -q '^predicted time: ' halo2d.txt || fail "halo2d: $(cat halo2d.txt)"
# The tutorial's workload files predict what its programs predict.
ptieval "$configdir/pc_cluster.xml" "$exampledir/pingpong.xml" --json > pingpong-file.json \
  || fail "ptieval on the installed pingpong.xml"
[ "$(result pingpong-file.json)" = "$(result pingpong.json)" ] \
  || fail "pingpong.xml: $(cat pingpong-file.json); pingpong.c: $(cat pingpong.json)"
./halo2d "$configdir/fast_cluster.xml" -D steps=3 --json > halo2d.json || fail "halo2d --json"
ptieval "$configdir/fast_cluster.xml" "$exampledir/halo2d.xml" -D steps=3 --json \
  > halo2d-file.json || fail "ptieval on the installed halo2d.xml"
[ -n "$(result halo2d.json)" ] && [ "$(result halo2d-file.json)" = "$(result halo2d.json)" ] \
  || fail "halo2d.xml: $(cat halo2d-file.json); halo2d.c: $(cat halo2d.json)"
say "workload programs build against pkg-config pti and run; the workload files agree"

# ---- 4. models from outside -------------------------------------------------------------
mkdir example
cp "$example_model" example/model.c
# shellcheck disable=SC2046,SC2086
cc $san_flags -shared -fPIC example/model.c -o example/libpti-model-example.so \
   $(pkg-config --cflags --libs pti-hmi) || fail "cc -shared model.c \$(pkg-config ... pti-hmi)"
ptieval --model-path example --list-models > list.txt || fail "--list-models with the example"
grep -q '^example-cpu .*libpti-model-example.so' list.txt || fail "example model not listed: $(cat list.txt)"

cp -R "$templatedir" mymodel
(
  cd mymodel
  sed -f xsd-to-c.sed model-template.xsd > model-template-xsd.h
  # shellcheck disable=SC2046,SC2086
  cc $san_flags -Wall -Wextra -Werror -shared -fPIC -o libpti-model-template.so \
     model-template.c $(pkg-config --cflags --libs pti-hmi)
) || fail "the installed template does not build"
ptieval --model-path mymodel --list-models | grep -q '^cpu-template ' || fail "template not listed"
ptieval --model-path mymodel --model-info cpu-template | grep -q 'op' || fail "template --model-info"
ptieval --model-path mymodel mymodel/example-system.xml "$exampledir/sweep3d.xml" \
  -D iterations=1 > template-run.txt || fail "a run with the template model"
grep -q '^predicted time: ' template-run.txt || fail "template run: $(cat template-run.txt)"

# Installed into the model directory, it needs no --model-path.
cp mymodel/libpti-model-template.so "$modeldir/"
ptieval --list-models | grep -q "^cpu-template .*libpti-model-template.so" \
  || fail "a model in $modeldir is not found by default"
ptieval mymodel/example-system.xml "$exampledir/sweep3d.xml" -D iterations=1 > default-run.txt \
  || fail "a run with the installed template model"
cmp -s template-run.txt default-run.txt || \
  [ "$(grep -v '^evaluation:' template-run.txt)" = "$(grep -v '^evaluation:' default-run.txt)" ] \
  || fail "the installed model predicts differently"
# A working copy on the model path shadows the installed one.
ptieval --model-path mymodel --model-info cpu-template | grep -q "origin: *mymodel/" \
  || fail "the model path does not shadow the installed model"
rm "$modeldir/libpti-model-template.so"
if command -v make > /dev/null 2>&1; then
  cp -R "$templatedir" made
  make -C made CFLAGS="-O2 -Wall -Wextra -Werror $san_flags" > make.log 2>&1 \
    || { cat make.log >&2; fail "make in the installed template"; }
  [ -f made/libpti-model-template.so ] || fail "make built no model"
else
  say "make not installed: the template's Makefile was not tried"
fi
say "models build against pkg-config pti-hmi and load from the model path and the model directory"

# ---- 5. systems and workloads against the installed schemas ---------------------------
validate_system () {  # validate_system FILE [MODEL_XSD_DIR]
  file=$1
  xmllint --noout --schema "$schemadir/hmc.xsd" "$file" 2> xmllint.log \
    || { cat xmllint.log >&2; fail "$file does not follow hmc.xsd"; }
  # A model's configuration element is its name with '_' for '-' (cpu_clc),
  # its schema NAME.xsd beside pti's own.
  pairs=cpu_template:model-template
  for x in "$schemadir"/*.xsd; do
    m=${x##*/}
    m=${m%.xsd}
    case $m in hmc|workload|trace|reuse) continue ;; esac
    pairs="$pairs $(printf '%s' "$m" | tr - _):$m"
  done
  for pair in $pairs; do
    element=${pair%%:*}
    xsd=$schemadir/${pair#*:}.xsd
    [ "$element" = cpu_template ] && xsd=$templatedir/model-template.xsd
    n=$(xmllint --xpath "count(//$element)" "$file")
    i=1
    while [ "$i" -le "$n" ]; do
      xmllint --xpath "(//$element)[$i]" "$file" > element.xml
      xmllint --noout --schema "$xsd" element.xml 2> xmllint.log \
        || { cat xmllint.log >&2; fail "$file: <$element> #$i does not follow $xsd"; }
      i=$((i + 1))
    done
  done
}
for f in "$configdir"/*.xml "$templatedir/example-system.xml"; do
  validate_system "$f"
done
for f in "$exampledir"/*.xml; do
  xmllint --noout --schema "$schemadir/workload.xsd" "$f" 2> xmllint.log \
    || { cat xmllint.log >&2; fail "$f does not follow workload.xsd"; }
done
say "installed systems and workloads validate against the installed schemas"

# ---- 6. the man pages -----------------------------------------------------------------------
for t in $tools; do
  if grep -q '@PTI_' "$prefix/share/man/man1/$t.1"; then
    fail "$t.1 has placeholders left"
  fi
done
grep -q "$schemadir" "$prefix/share/man/man1/ptieval.1" \
  || fail "ptieval.1 does not name the installed schemas"
say "man pages installed: $tools"
echo "install test passed"
