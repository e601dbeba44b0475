#!/bin/sh
# ptisweep end to end (TAP): closed forms row by row, -j 1 against -j 2,
# resuming a cut table, plots, and every user mistake with its exit status
# and message.  $1 is ptisweep; the environment is tests/meson.build's
# (PTI_SCHEMA_DIR).  Runs in a temporary directory with data/ copied in, so
# file names in messages are the ones given.
set -u
sweep=$1
data=$(cd "$(dirname "$0")/data" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$data"/*.xml "$work"/
cd "$work" || exit 1
# Sanitizer builds: fontconfig (cairo's text in the plots) keeps its
# configuration for the process's life; the suppressions ptitrace's tests use.
export LSAN_OPTIONS="suppressions=$data/../../ptitrace/lsan.supp:print_suppressions=0"

n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# run NAME STATUS MESSAGE ARGS...: ptisweep ARGS exits STATUS and its stderr
# holds MESSAGE (a fixed string).
run () {
  name=$1 want=$2 msg=$3
  shift 3
  "$sweep" "$@" >out.txt 2>err.txt
  got=$?
  if [ "$got" -ne "$want" ]; then
    not_ok "$name" "exit $got, expected $want" "$(cat err.txt)"
  elif [ -n "$msg" ] && ! grep -qF -- "$msg" err.txt; then
    not_ok "$name" "stderr lacks: $msg" "$(cat err.txt)"
  elif grep -q "AddressSanitizer\|LeakSanitizer\|runtime error" err.txt; then
    not_ok "$name" "sanitizer report" "$(cat err.txt)"
  else
    ok "$name"
  fi
}

AXES="-D p=2,4,8 -D n=1200,2400 -D bytes=100:10000:4950"

# --- closed forms -----------------------------------------------------------
run "sweep of 36 points" 0 "36 points (36 evaluated" $AXES -o full.csv sys-a.xml sys-b.xml scaling.xml
# scaling.xml: T = n / p * c + 2 * (o + B / bw) with, per system, the
# iteration cost c, the per-message constant o = o_s + L + o_r and the
# bandwidth bw (data/*.xml).  Rows: systems outermost, then p, n, bytes
# (the last fastest); every figure checked.
check=$(awk -F, '
  NR == 1 { if ($0 != "p,n,bytes,workload,system,predicted_time_s,events,processes,compute_mean_s,compute_max_s,comm_mean_s,comm_max_s,wait_mean_s,wait_max_s,efficiency,error") { print "header: " $0; bad = 1 } next }
  function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-12 * (b < 0 ? -b : b) + 1e-18 }
  {
    i = NR - 2
    s = int(i / 18); r = i % 18
    p = (r < 6) ? 2 : (r < 12) ? 4 : 8
    nn = (int(r / 3) % 2) ? 2400 : 1200
    b = 100 + (r % 3) * 4950
    sys = s ? "sys-b.xml" : "sys-a.xml"
    c = s ? 1.5e-6 : 3e-6; o = s ? 8e-6 : 15e-6; bw = s ? 200e6 : 100e6
    t = nn / p * c + 2 * (o + b / bw)
    comp = nn / p * c
    if ($1 != p || $2 != nn || $3 != b || $4 != "scaling.xml" || $5 != sys) { print "row " NR ": point " $1 "," $2 "," $3 "," $4 "," $5 ", expected " p "," nn "," b ",scaling.xml," sys; bad = 1 }
    if (!near($6, t)) { print "row " NR ": predicted " $6 ", closed form " t; bad = 1 }
    if ($7 != p + 4 || $8 != p) { print "row " NR ": events " $7 " processes " $8; bad = 1 }
    if (!near($9, comp) || !near($10, comp)) { print "row " NR ": compute " $9 " " $10 ", expected " comp; bad = 1 }
    if (!near($15, comp / t)) { print "row " NR ": efficiency " $15 ", expected " comp / t; bad = 1 }
    if ($16 != "") { print "row " NR ": error " $16; bad = 1 }
    rows++
  }
  END { if (rows != 36) { print rows " rows, expected 36"; bad = 1 } if (!bad) print "OK" }' full.csv)
if [ "$check" = OK ]; then ok "closed form, row by row"; else not_ok "closed form, row by row" "$check"; fi

# --- determinism ------------------------------------------------------------
run "-j 2" 0 "2 jobs" -j 2 $AXES -o j2.csv sys-a.xml sys-b.xml scaling.xml
if cmp -s full.csv j2.csv; then ok "-j 1 and -j 2 byte-identical (CSV)"; else not_ok "-j 1 and -j 2 byte-identical (CSV)" "$(diff full.csv j2.csv | head -5)"; fi
run "JSON -j 1" 0 "" $AXES -o j1.json sys-a.xml sys-b.xml scaling.xml
run "JSON -j 2" 0 "" -j 2 $AXES -o j2.json sys-a.xml sys-b.xml scaling.xml
if cmp -s j1.json j2.json; then ok "-j 1 and -j 2 byte-identical (JSON)"; else not_ok "-j 1 and -j 2 byte-identical (JSON)"; fi
if head -1 j1.json | grep -qF '{"workload": "scaling.xml", "columns": ["p", "n", "bytes", "workload", "system", "predicted_time_s"' \
   && [ "$(tail -1 j1.json)" = "]}" ] && [ "$(grep -c '^{"p": ' j1.json)" -eq 36 ] \
   && grep -qF '{"p": 2, "n": 1200, "bytes": 100, "workload": "scaling.xml", "system": "sys-a.xml", "predicted_time_s": 0.0018319999999999999, "events": 6, "processes": 2,' j1.json \
   && grep -qF '"error": null}' j1.json; then
  ok "JSON layout"
else
  not_ok "JSON layout" "$(head -3 j1.json)"
fi
if command -v python3 >/dev/null && ! python3 -c 'import json,sys; d=json.load(open("j1.json")); assert len(d["rows"]) == 36' 2>err.txt; then
  not_ok "JSON parses" "$(cat err.txt)"
else
  ok "JSON parses"
fi

# --- resume -----------------------------------------------------------------
for ext in csv json; do
  src=full.csv; [ $ext = json ] && src=j1.json
  for cut in 700 2345 5000; do
    head -c $cut $src > cut.$ext
    run "resume $ext cut at byte $cut" 0 "resumed from cut.$ext" -j 2 $AXES -o cut.$ext sys-a.xml sys-b.xml scaling.xml
    if cmp -s $src cut.$ext; then ok "resumed $ext table identical"; else not_ok "resumed $ext table identical" "$(diff $src cut.$ext | head -5)"; fi
  done
done
cp full.csv done.csv
run "a finished table is not evaluated again" 0 "(0 evaluated, 36 resumed" $AXES -o done.csv sys-a.xml sys-b.xml scaling.xml
run "resume refuses other parameters" 3 "full.csv:1: its columns are not this sweep's" -D p=2,4 -o full.csv sys-a.xml scaling.xml
run "resume refuses other values" 3 "full.csv:2: row p=2 n=1200 bytes=100 workload=scaling.xml system=sys-a.xml is not a point of this sweep" -D p=4,8 -D n=1200,2400 -D bytes=100:10000:4950 -o full.csv sys-a.xml sys-b.xml scaling.xml
cp scaling.xml other.xml
run "resume refuses another workload" 3 "full.csv:2: row p=2 n=1200 bytes=100 workload=scaling.xml system=sys-a.xml is not a point" $AXES -o full.csv sys-a.xml sys-b.xml other.xml
printf 'p,n,bytes,workload,system,predicted_time_s\n2,3\n' > bad.csv
run "resume refuses a malformed row" 3 "bad.csv:1: its columns are not" $AXES -o bad.csv sys-a.xml sys-b.xml scaling.xml

# --- points that cannot be evaluated -----------------------------------------
run "too many processes: a row with its error" 3 "1 point could not be evaluated" -D p=2,16 -o big.csv sys-a.xml scaling.xml
if grep -q '^16,scaling.xml,sys-a.xml,,,,,,,,,,,.*processors' big.csv && grep -q '^2,scaling.xml,sys-a.xml,0.00185,' big.csv; then
  ok "error column names the cause"
else
  not_ok "error column names the cause" "$(cat big.csv)"
fi

# --- assertions --------------------------------------------------------------
# data/asserted.xml: fast (time < 1 ms) fails at p = 2 only, efficient
# (efficiency > 0.95) passes at p = 2 only.
run "assertions: exit 4" 4 "3 points failed an assertion" -D p=2,4,8 -o as.csv sys-a.xml asserted.xml
if [ "$(head -1 as.csv)" = "p,workload,system,predicted_time_s,events,processes,compute_mean_s,compute_max_s,comm_mean_s,comm_max_s,wait_mean_s,wait_max_s,efficiency,assert:fast,assert:efficient,error" ] \
   && [ "$(cut -d, -f1,14,15 as.csv | tail -3 | tr '\n' ' ')" = "2,fail,pass 4,pass,fail 8,pass,fail " ]; then
  ok "assert:NAME columns, pass and fail per point"
else
  not_ok "assert:NAME columns, pass and fail per point" "$(cat as.csv)"
fi
run "assertions in JSON" 4 "" -j 2 -D p=2,4,8 -o as.json sys-a.xml asserted.xml
if grep -qF '"efficiency": 0.9729729729729729, "assert:fast": "fail", "assert:efficient": "pass", "error": null}' as.json; then
  ok "JSON assertion outcomes"
else
  not_ok "JSON assertion outcomes" "$(cat as.json)"
fi
run "all pass: exit 0" 0 "1 point (1 evaluated" -D p=4 -D n=2400 -o as2.csv sys-b.xml asserted.xml

# --- plots ---------------------------------------------------------------------
run "plots" 0 "" -D p=2,4,8 -D n=1200,2400 --plot p -o plot.csv sys-a.xml sys-b.xml scaling.xml
for w in time speedup efficiency; do
  if [ "$(head -c 4 plot-$w.png | tail -c 3)" = PNG ]; then ok "plot-$w.png"; else not_ok "plot-$w.png"; fi
done
run "SVG plots" 0 "" -D p=2,4,8 --plot p --plot-format svg --plot-output pic -o plot2.csv sys-a.xml scaling.xml
if grep -q '<svg' pic-speedup.svg 2>/dev/null; then ok "pic-speedup.svg"; else not_ok "pic-speedup.svg"; fi

# --- user mistakes ---------------------------------------------------------------
run "range with STOP < START" 2 "-D n=5:1:1: range '5:1:1' must have START <= STOP and a STEP above 0" -D n=5:1:1 -o e.csv sys-a.xml scaling.xml
run "range with step 0" 2 "range '1:5:0' must have START <= STOP" -D n=1:5:0 -o e.csv sys-a.xml scaling.xml
run "range without step" 2 "'1:5' is neither a number nor a range START:STOP:STEP" -D n=1:5 -o e.csv sys-a.xml scaling.xml
run "not a number" 2 "'abc' is neither a number" -D n=abc -o e.csv sys-a.xml scaling.xml
run "value twice" 2 "-D n=1,1: value 1 is given twice" -D n=1,1 -o e.csv sys-a.xml scaling.xml
run "no NAME=" 2 "-D 12: expected NAME=VALUES" -D 12 -o e.csv sys-a.xml scaling.xml
run "unknown parameter" 2 "-D q=1,2: scaling.xml declares no parameter 'q' (it declares: p, n, bytes)" -D q=1,2 -o e.csv sys-a.xml scaling.xml
run "parameter twice" 2 "parameter 'n' is given twice" -D n=1 -D n=2 -o e.csv sys-a.xml scaling.xml
run "huge range" 2 "more than 10000000" -D n=1:1e9:1 -o e.csv sys-a.xml scaling.xml
run "no -o" 2 "-o FILE.csv or -o FILE.json is required" -D n=1 sys-a.xml scaling.xml
run "bad -o extension" 2 "-o e.txt: the file name must end in .csv or .json" -o e.txt sys-a.xml scaling.xml
run "no system" 2 "expected one or more SYSTEM.xml then WORKLOAD.xml" -o e.csv scaling.xml
run "system twice" 2 "system sys-a.xml is given twice" -o e.csv sys-a.xml sys-a.xml scaling.xml
run "-j 0" 2 "-j 0: expected 1 to 1024" -j 0 -o e.csv sys-a.xml scaling.xml
run "unknown option" 2 "Unknown option" --bogus -o e.csv sys-a.xml scaling.xml
run "unreadable system" 3 "nosuch.xml: cannot read" -o e.csv nosuch.xml scaling.xml
printf '<system name="x"><computer name="a" count="abc"/></system>\n' > badsys.xml
run "invalid system" 3 "badsys.xml:1: does not follow hmc.xsd" -o e.csv badsys.xml scaling.xml
run "unreadable workload" 3 "nosuch.xml: cannot read" -o e.csv sys-a.xml nosuch.xml
printf '<workload name="w"><processes count="2"/><program><sendd/></program></workload>\n' > badw.xml
run "invalid workload" 3 "badw.xml:1: does not follow workload.xsd" -o e.csv sys-a.xml badw.xml
run "--plot of an unswept parameter" 2 "--plot n: not a swept parameter" -D p=2,4 --plot n -o e.csv sys-a.xml scaling.xml
run "--plot of one value" 2 "--plot p: the parameter has one value" -D p=2 --plot p -o e.csv sys-a.xml scaling.xml
run "--plot-format" 2 "--plot-format gif: expected png or svg" -D p=2,4 --plot p --plot-format gif -o e.csv sys-a.xml scaling.xml
run "--plot-output without --plot" 2 "need --plot PARAM" --plot-output x -o e.csv sys-a.xml scaling.xml
printf 'not a table\0' > bin.csv
run "binary table" 3 "bin.csv: not a ptisweep table" -o bin.csv sys-a.xml scaling.xml
printf 'a,b\nx,\377y\n' > latin.csv
run "table not UTF-8" 3 "latin.csv:2: not a ptisweep table (not UTF-8 text: byte 0xFF)" -o latin.csv sys-a.xml scaling.xml

echo "1..$n"
[ "$failed" -eq 0 ]
