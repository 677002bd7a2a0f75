#!/usr/bin/env bash
# `drape string`: the seed's endpoint through the CLI, CSV layout, dump
# times, --out, hold/release, and bad input (exit 2, message naming the flag,
# no output file left behind).
set -u
D=${DRAPE_EXE:?}
SRC=${DRAPE_SOURCE_DIR:-.}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/lib_cli.sh" # fail=0, check, expect_msg, expect_fixed
near() { # name value expected tol
  if awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; then
    echo "ok   $1 ($2)"
  else
    echo "FAIL $1: $2, expected $3 within $4"; fail=1
  fi
}

# The seed's example: defaults, free from the start, 0.1 s.
out=$("$D" string); check "defaults" 0 $?
[[ "$(head -1 <<<"$out")" == "t,i,x,y,vx,vy" ]] || { echo "FAIL header: $(head -1 <<<"$out")"; fail=1; }
[[ $(wc -l <<<"$out") == 82 ]] || { echo "FAIL rows: $(wc -l <<<"$out"), expected 1 + 81"; fail=1; }
end=$(awk -F, '$2 == 80' <<<"$out")
near "endpoint x" "$(cut -d, -f3 <<<"$end")" 2.39531441 1e-7
near "endpoint y" "$(cut -d, -f4 <<<"$end")" 2.55090095 1e-7
# Full precision: 17 significant digits.
grep -Eq '^0\.1[0-9]*,80,2\.39531440[0-9]{8},' <<<"$out" || { echo "FAIL not %.17g: $end"; fail=1; }

# Every node at every dump time equals the seed's Python (tests/data).
"$D" string --dump-at 0.01,0.05,0.1 --out "$TMP/free.csv"; check "--dump-at --out" 0 $?
worst=$(awk -F, 'NR == FNR { if (FNR > 1) { k = FNR; x[k] = $3; y[k] = $4 } next }
  FNR > 1 { d = $3 - x[FNR]; if (d < 0) d = -d; if (d > m) m = d
            d = $4 - y[FNR]; if (d < 0) d = -d; if (d > m) m = d }
  END { printf "%.3g", m + 0 }' "$SRC/tests/data/string_ref_free.csv" "$TMP/free.csv")
near "all nodes vs Python" "$worst" 0 1e-12
[[ $(wc -l <"$TMP/free.csv") == 244 ]] || { echo "FAIL dump rows: $(wc -l <"$TMP/free.csv")"; fail=1; }

# Held at a target beyond reach, released at 0.08 s: matches the Python
# until the release (see tests/test_string.c for after it).
"$D" string --hold 5,-3 --release-at 0.08 --dump-at 0.04,0.08 --out "$TMP/held.csv"; check "--hold X,Y --release-at" 0 $?
worst=$(awk -F, 'NR == FNR { if (FNR > 1 && FNR <= 163) { x[FNR] = $3; y[FNR] = $4 } next }
  FNR > 1 { d = $3 - x[FNR]; if (d < 0) d = -d; if (d > m) m = d
            d = $4 - y[FNR]; if (d < 0) d = -d; if (d > m) m = d }
  END { printf "%.3g", m + 0 }' "$SRC/tests/data/string_ref_held.csv" "$TMP/held.csv")
near "held vs Python" "$worst" 0 1e-12

# --hold alone: fixed target at the initial end; it stays there (to the
# controller's precision) while the string sags.
out=$("$D" string --hold --seconds 0.5); check "--hold" 0 $?
end=$(awk -F, '$2 == 80' <<<"$out")
near "held end x" "$(cut -d, -f3 <<<"$end")" 2.4 1e-9
near "held end y" "$(cut -d, -f4 <<<"$end")" 2.6 1e-9
mid=$(awk -F, '$2 == 40 { print $4 }' <<<"$out")
awk -v y="$mid" 'BEGIN { exit !(y < 2.5) }' || { echo "FAIL no sag: middle at y=$mid"; fail=1; }
# --release-at 0 is the same as no --hold.
a=$("$D" string --hold --release-at 0 --seconds 0.02); b=$("$D" string --seconds 0.02)
[[ "$a" == "$b" ]] && echo "ok   --release-at 0 == free" || { echo "FAIL --release-at 0 differs from free"; fail=1; }
# Ticks that start before --release-at are held: up to that time the run is
# identical to --hold.
a=$("$D" string --hold --seconds 0.03 | awk -F, '$2 == 80'); b=$("$D" string --hold --release-at 0.03 --seconds 0.03 | awk -F, '$2 == 80')
[[ "$a" == "$b" ]] && echo "ok   ticks before --release-at are held" || { echo "FAIL release early: $a / $b"; fail=1; }
# Other material flags and --anchor are taken.
out=$("$D" string --nodes 12 --length 1.5 --mu 0.05 --EA 40 --etaA 2 --B 1e-3 --D 1e-4 --h 2e-4 --anchor 0,0 --dump-at 0.4)
check "material flags" 0 $?
ref=$(awk -F, '$1 ~ /^0.4/ && $2 == 12 { print $3 }' "$SRC/tests/data/string_ref_small.csv")
near "small config vs Python" "$(awk -F, '$2 == 12 { print $3 }' <<<"$out")" "$ref" 1e-12
out=$("$D" string --help); check "--help" 0 $?
grep -q -- "--release-at" <<<"$out" || { echo "FAIL help lacks flags"; fail=1; }
"$D" --help | grep -q "string" || { echo "FAIL drape --help does not list string"; fail=1; }

# Bad input: exit 2, the flag named, nothing written.
bad() { # expected_text args...
  local want=$1; shift
  local msg
  msg=$(timeout 60 "$D" string "$@" --out "$TMP/bad.csv" 2>&1 >/dev/null); local rc=$?
  check "bad: $*" 2 $rc
  grep -qF -- "$want" <<<"$msg" || { echo "FAIL message for '$*' lacks '$want': $msg"; fail=1; }
  [[ ! -e "$TMP/bad.csv" ]] || { echo "FAIL output written for '$*'"; fail=1; rm -f "$TMP/bad.csv"; }
}
bad "--nodes" --nodes 1
bad "--nodes" --nodes 2.5
bad "--nodes" --nodes abc
bad "--length" --length 0
bad "--length" --length -4
bad "--mu" --mu -0.02
bad "--EA" --EA -1
bad "--etaA" --etaA -30
bad "--B" --B -1e-4
bad "--D" --D -1e-5
bad "--h" --h 0
bad "--h" --h -1e-4
bad "--h" --h nan
bad "--mu" --mu nan
bad "--EA" --EA inf
bad "--anchor" --anchor 1,nan
bad "--anchor" --anchor 1
bad "--hold" --hold 1
bad "--hold" --hold 1,2,3
bad "--hold" --hold abc,2
bad "--hold" --hold=
bad "--seconds" --seconds -1
bad "--seconds" --seconds 0.00015
bad "--dump-at" --dump-at 0.1,x
bad "--dump-at" --dump-at 0.00015
bad "--dump-at" --dump-at 0.2 --seconds 0.1
bad "--release-at" --release-at -1
bad "--h" --h
bad "unknown argument" --frob 1

# Issue 13 item 5. The tick count: t/h must be <= 1e9 ticks (with --h
# 1e-300 the count overflowed, the string never moved, exit 0); --seconds,
# the default 0.1 s included, must be a whole number of ticks (--h 1 printed
# rows labelled 0.1 s of the state at 0 s); links shorter than 1e-6 m are
# refused up front (--length 1e-300 substepped forever). Exit 2, the flags
# and values named, no output.
bad '--seconds "0.1" (the default) with --h 1e-300 is 1e+299 ticks: at most 1e+09' --h 1e-300
bad '--seconds "0.1" with --h 1e-300' --seconds 0.1 --h 1e-300
bad '--dump-at "0.05" with --h 1e-300' --dump-at 0.05 --h 1e-300
bad '--seconds "0.1" (the default) is not a whole number of ticks of --h 1 (0.1 ticks)' --h 1
bad '--seconds "0.5" is not a whole number of ticks of --h 0.3' --h 0.3 --seconds 0.5
bad '--length 1e-300 with --nodes 80: the link length L0/N = 1.25e-302 m must be >= 1e-06 m' --length 1e-300
bad 'length (L0, m) = 2e+06: must be <= 1e+06' --length 2e6
bad 'anchor[1] = 1e+300' --anchor 0,1e300
out=$("$D" string --h 1 --seconds 0 2>&1); check "--h 1 --seconds 0 (the initial state)" 0 $?
[[ $(grep -c '^0,' <<<"$out") == 81 ]] || { echo "FAIL --seconds 0: $(head -3 <<<"$out")"; fail=1; }

# Stiff strings (EA or B = 1e12 inside the documented ranges used to
# substep forever while the energy grew to 7e7 J): exit 1 within seconds,
# the message names the parameter; with --out the rows of dumps before the
# divergence are written (t = 0 here), none after, no nan anywhere.
stiff() { # name want args...
  local name=$1 want=$2; shift 2
  rm -f "$TMP/stiff.csv"
  local t0 t1 msg rc
  t0=$(date +%s.%N)
  msg=$(timeout 120 "$D" string "$@" --dump-at 0,0.1 --out "$TMP/stiff.csv" 2>&1 >/dev/null); rc=$?
  t1=$(date +%s.%N)
  local took; took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  check "$name diverges (${took} s)" 1 $rc
  awk -v t="$took" 'BEGIN { exit !(t < 10) }' || { echo "FAIL $name took $took s"; fail=1; }
  grep -qF -- "$want" <<<"$msg" || { echo "FAIL $name message lacks '$want': $msg"; fail=1; }
  grep -qF -- "string diverged before t = 0.1 s" <<<"$msg" || { echo "FAIL $name: $msg"; fail=1; }
  [[ -f "$TMP/stiff.csv" && $(wc -l <"$TMP/stiff.csv") == 82 ]] ||
    { echo "FAIL $name: expected the header and the 81 rows at t = 0 in --out"; fail=1; }
  ! grep -qi nan "$TMP/stiff.csv" || { echo "FAIL $name: nan in the output"; fail=1; }
  [[ $(cut -d, -f1 "$TMP/stiff.csv" | sort -u | tr '\n' ' ') == "0 t " ]] ||
    { echo "FAIL $name: rows after the divergence were written"; fail=1; }
}
stiff "--EA 1e12" "energy blow-up" --EA 1e12
stiff "--EA 1e12 names EA" "stiffest parameter: EA = 1e+12 N" --EA 1e12
stiff "--B 1e12" "stiffest parameter: B = 1e+12 N m^2" --B 1e12
stiff "--EA 1e300" "stiffest parameter: EA = 1e+300 N" --EA 1e300
stiff "--gravity 0,-1e300" "could not resolve the motion" --gravity 0,-1e300
# The same on stdout: the t = 0 rows, then exit 1.
out=$("$D" string --EA 1e12 --dump-at 0,0.05 2>/dev/null); check "--EA 1e12 to stdout" 1 $?
[[ $(wc -l <<<"$out") == 82 ]] || { echo "FAIL stdout rows: $(wc -l <<<"$out")"; fail=1; }
exit $fail
