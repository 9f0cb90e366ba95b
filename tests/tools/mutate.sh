#!/bin/sh
# mutate.sh - a mutation check: does the test suite notice a broken product?
#
# In a temporary copy of a source tree, applies one mutation at a time to the
# product (the XID decoder returns the wrong code, the drain guard accepts
# any reason, the blast-radius guard never trips, the recorder skips its
# COMMIT, the shell quoting of remote commands breaks, the model forgets a
# drain, ...), builds, runs the unit tests and the Tcl suites, and prints for
# each mutation how many tests fail and which. The unmutated copy runs first:
# a test that fails there is reported and not counted as catching anything.
#
#   sh tests/tools/mutate.sh [-t TREE] [-s SUITES] [-T TESTS] [MUTATION...]
#     -t TREE    the source tree to copy (default: this checkout; a plain
#                folder works too, e.g. one made with `git archive`)
#     -s SUITES  which suites, e.g. "unit store cli" (default: unit and every
#                tests/*.test of the tree)
#     -T TESTS   a second copy of tests/ to use instead of TREE's own (e.g.
#                the product of main with the tests of a branch)
#     -l         list the mutations and exit
#   `make mutate` runs it on this checkout. Needs what `make check` needs
#   (root for the sshd and Slurm suites); takes about as long as `make
#   check` once per mutation. A tool for developers: not part of make check.
#
# Kills nothing itself: each suite runs under timeout(1), which ends only
# the suite it started.
cd "$(dirname "$0")/../.." || exit 2
here=$PWD
tree=$here tests_from="" suites="" only=""
while getopts t:s:T:l o; do
	case $o in
	t) tree=$(cd "$OPTARG" && pwd) || exit 2 ;;
	s) suites=$OPTARG ;;
	T) tests_from=$(cd "$OPTARG" && pwd) || exit 2 ;;
	l) only=list ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

ALL="xid-code xid-meaning drain-reason blast-radius rec-commit rec-step-errors rec-no-retry slurm-quote model-drain"

# mutation NAME SCRIPT: sets $file and $what, writes the sed script for NAME
# to SCRIPT. Each script changes one line (or inserts one) of one file.
mutation() {
	case $1 in
	xid-code)
		file=src/probe/xid.c what="the XID decoder returns the code plus one"
		cat > "$2" <<'EOF'
s/^\tr->code = (int32_t)code;$/\tr->code = (int32_t)code + 1;/
EOF
		;;
	xid-meaning)
		file=panels/faults.c what="the faults panel looks up the meaning of the next XID code"
		cat > "$2" <<'EOF'
s/xid_lookup(f->code)->meaning/xid_lookup(f->code + 1)->meaning/
EOF
		;;
	drain-reason)
		file=src/action/action.c what="action_check_reason accepts any reason, none too"
		cat > "$2" <<'EOF'
/^const char \*action_check_reason(const char \*r)$/,/^}$/s/^\tint chars = 0;$/\tint chars = 0;\n\n\t(void)chars;\n\treturn NULL;/
EOF
		;;
	blast-radius)
		file=src/action/action.c what="the blast-radius check never trips"
		cat > "$2" <<'EOF'
/^static int over_limit(/,/^}$/s/^\taction_window(app, &wn, &wg);$/&\n\treturn 0;/
EOF
		;;
	rec-commit)
		file=src/store/recorder.c what="the recorder skips the COMMIT of a tick"
		cat > "$2" <<'EOF'
s/if (db_exec(r->db, "COMMIT", NULL) < 0) {/if (0) {/
EOF
		;;
	rec-step-errors)
		file=src/store/recfile.c what="a failed row insert is taken for a success"
		cat > "$2" <<'EOF'
s/^\tif (rc == SQLITE_DONE || rc == SQLITE_ROW)$/\tif (rc == SQLITE_DONE || rc == SQLITE_ROW || rc != SQLITE_OK)/
EOF
		;;
	rec-no-retry)
		file=src/store/recorder.c what="after a failed write the recorder never tries again"
		cat > "$2" <<'EOF'
s/if (r->down && r->group >= r->retry_group)/if (r->down \&\& r->group < 0)/
EOF
		;;
	slurm-quote)
		file=src/ssh/quote.c what="a single quote inside a quoted word is not escaped"
		cat > "$2" <<'EOF'
s/sbuf_adds(b, "'\\\\''");/sbuf_addc(b, '\\'');/
EOF
		;;
	model-drain)
		file=src/model.c what="the model drops the drain flag of a node state"
		cat > "$2" <<'EOF'
/^static void apply_node_state(/,/^}$/s/^\tn->flags = e->flags;$/\tn->flags = e->flags \& ~NODE_F_DRAIN;/
EOF
		;;
	*) return 1 ;;
	esac
}

if [ "$only" = list ]; then
	for m in $ALL; do mutation "$m" /dev/null && printf '%-16s %-24s %s\n' "$m" "$file" "$what"; done
	exit 0
fi
[ $# -gt 0 ] && ALL="$*"
for m in $ALL; do mutation "$m" /dev/null || { echo "mutate.sh: no mutation $m (-l lists them)" >&2; exit 2; }; done

work=$(mktemp -d "${TMPDIR:-/tmp}/myriad-mutate.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
copy=$work/tree
mkdir -p "$copy"
(cd "$tree" && tar --exclude=./.git --exclude=./build --exclude=./build-san --exclude=./build-fuzz \
	--exclude='./tests/fuzz/corpus' -cf - .) | (cd "$copy" && tar -xf -) || exit 2
if [ -n "$tests_from" ]; then
	rm -rf "$copy/tests"
	(cd "$tests_from/tests" && tar --exclude=./fuzz/corpus -cf - .) | (mkdir -p "$copy/tests" && cd "$copy/tests" && tar -xf -) || exit 2
	[ -f "$tests_from/Makefile" ] && cp "$tests_from/Makefile" "$copy/Makefile"
fi
[ -z "$suites" ] && suites="unit $(cd "$copy" && for t in tests/*.test; do basename "$t" .test; done)"

# run_all OUT: the failing tests of every suite, one "suite:test" a line.
run_all() {
	: > "$1"
	(cd "$copy" && make -s -j2 all > "$work/build.log" 2>&1) || { echo "BUILD-FAILED" > "$1"; return; }
	for s in $suites; do
		if [ "$s" = unit ]; then
			(cd "$copy" && timeout 900 ./build/unit-tests) > "$work/suite.out" 2>&1
		else
			(cd "$copy" && MYRIAD_BIN="$copy/build/myriad" LANG=C.UTF-8 timeout 1800 tclsh "tests/$s.test") \
				> "$work/suite.out" 2>&1
		fi
		rc=$?
		sed -n "s/^FAIL \([^ ]*\).*/$s:\1/p" "$work/suite.out" >> "$1"
		if ! grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$work/suite.out"; then
			echo "$s:(suite-ended-without-result,exit-$rc)" >> "$1"
		fi
	done
}

echo "mutate.sh: tree $tree${tests_from:+, tests from $tests_from}; suites:" $suites
run_all "$work/base"
if grep -q BUILD-FAILED "$work/base"; then cat "$work/build.log"; echo "mutate.sh: the unmutated tree does not build" >&2; exit 1; fi
if [ -s "$work/base" ]; then
	echo "failing without any mutation (not counted below): $(tr '\n' ' ' < "$work/base")"
fi
summary=$work/summary
: > "$summary"
for m in $ALL; do
	mutation "$m" "$work/script"
	cp "$copy/$file" "$work/orig"
	sed -i -f "$work/script" "$copy/$file"
	if cmp -s "$work/orig" "$copy/$file"; then
		printf '%-16s %-24s NOT APPLIED (the line it changes is gone)\n' "$m" "$file" >> "$summary"
		continue
	fi
	run_all "$work/got"
	cp "$work/orig" "$copy/$file"
	touch "$copy/$file"
	if grep -q BUILD-FAILED "$work/got"; then
		printf '%-16s %-24s BUILD FAILED\n' "$m" "$file" >> "$summary"
		continue
	fi
	caught=$(grep -vxF -f "$work/base" "$work/got" 2>/dev/null || cat "$work/got")
	[ -s "$work/base" ] || caught=$(cat "$work/got")
	n=$(printf '%s' "$caught" | grep -c .)
	printf '%-16s %-24s %3d  %s\n' "$m" "$file" "$n" "$(printf '%s' "$caught" | tr '\n' ' ')" >> "$summary"
	echo "  $m: $n failing ($what)"
done
echo
printf '%-16s %-24s %3s  %s\n' mutation file n "failing tests (suite:test)"
cat "$summary"
