#!/usr/bin/env bash
# `drape string`: the seed's endpoint through the CLI, CSV layout, dump
# times, --out, hold/release, and bad input (exit 2, message naming the flag,
# no output file left behind).
set -u
D=${DRAPE_EXE:?}
SRC=${DRAPE_SOURCE_DIR:-.}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { # name expected_rc actual_rc
  if [[ "$2" != "$3" ]]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
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
  msg=$("$D" string "$@" --out "$TMP/bad.csv" 2>&1 >/dev/null); local rc=$?
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
exit $fail
