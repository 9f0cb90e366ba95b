#!/bin/sh
# run.sh BUILD_DIR - run every test suite against the binaries in BUILD_DIR:
# the C unit tests, then each Tcl suite tests/*.test. Prints each suite's
# result, every skipped test with its reason, and a total line "N passed,
# N failed[, N skipped]". Exit status 1 if any test failed, a suite ended
# without its result line, or a suite that CI needs was skipped entirely.
#
# Skips: a suite skips a test only for what it needs from outside myriad
# and lacks here (an external tool, root); our own programs failing is a
# failure. CI runs on Debian as root with every tool of `make deps`, where
# every suite runs: so each tests/*.test is needed, and one whose tests were
# all skipped fails the run. REQUIRED_SUITES (names, blank-separated) narrows
# that on a machine that cannot run them all, e.g. REQUIRED_SUITES="cli tcl".
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
if [ "${REQUIRED_SUITES+set}" != set ]; then
	REQUIRED_SUITES=$(for t in tests/*.test; do basename "$t" .test; done)
fi
passed=0 failed=0 skipped=0 bad=""
out=$(mktemp) skips=$(mktemp)
trap 'rm -f "$out" "$skips"' EXIT
tally() { # $1 = suite name, $2 = output file, $3 = exit status
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
	sed -n "s/^skip /  $1: /p" "$2" >> "$skips"
	if [ "$3" != 0 ] || [ -z "$line" ]; then
		bad="$bad $1"
		[ -z "$line" ] && failed=$((failed + 1))
	fi
	echo "== $1: ${line:-no result line (exit $3)}"
	if [ -n "$line" ] && [ "${p:-0}" = 0 ] && [ "${f:-0}" = 0 ] && [ "${s:-0}" -gt 0 ]; then
		for r in $REQUIRED_SUITES; do
			if [ "$r" = "$1" ]; then
				echo "== $1: every test was skipped, and CI needs this suite (see REQUIRED_SUITES in tests/run.sh)"
				bad="$bad $1(skipped)"
			fi
		done
	fi
}
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
if [ -s "$skips" ]; then
	echo "skipped tests ($(wc -l < "$skips")), with why:"
	cat "$skips"
fi
if [ -n "$bad" ]; then echo "failing suites:$bad"; fi
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ -z "$bad" ]
