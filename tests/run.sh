#!/bin/sh
# run.sh BUILD_DIR - run every test suite against the binaries in BUILD_DIR:
# the C unit tests, then each Tcl suite tests/*.test. Prints each suite's
# result and a total line "N passed, N failed". Exit status 1 if any failed.
# SANITIZED=1 (set by `make check` for build-san) sets sanitizer options.
B=${1:-build}
cd "$(dirname "$0")/.." || exit 2
export MYRIAD_BIN="$PWD/$B/myriad"
export LANG=C.UTF-8
if [ -n "$SANITIZED" ]; then
	export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
	export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
fi
passed=0 failed=0 skipped=0 bad=""
tally() { # $1 = suite name, $2 = output file, $3 = exit status
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
	if [ "$3" != 0 ] || [ -z "$line" ]; then
		bad="$bad $1"
		[ -z "$line" ] && failed=$((failed + 1))
	fi
	echo "== $1: ${line:-no result line (exit $3)}"
}
out=$(mktemp)
echo "== unit tests ($B)"
"$B/unit-tests" > "$out" 2>&1; rc=$?
grep -v '^ok ' "$out"
tally unit "$out" $rc
for t in tests/*.test; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .test)
	echo "== $name ($B)"
	tclsh "$t" > "$out" 2>&1; rc=$?
	cat "$out"
	tally "$name" "$out" $rc
done
rm -f "$out"
if [ -n "$bad" ]; then echo "failing suites:$bad"; fi
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ -z "$bad" ]
