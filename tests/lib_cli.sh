# Shared by the shell tests (tests/cli_*.sh source it; not a test itself).
# Each check prints "ok   NAME" or "FAIL NAME: why" and sets fail=1.
fail=0
check() { # name expected_rc actual_rc
  if [[ "$2" != "$3" ]]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
expect_msg() { # name pattern text: the text matches the regular expression
  grep -q -- "$2" <<<"$3" || { echo "FAIL $1: message lacks '$2': $3"; fail=1; }
}
expect_fixed() { # name text string: the text contains the string as it is
  grep -qF -- "$3" <<<"$2" || { echo "FAIL $1: message lacks '$3': $2"; fail=1; }
}
