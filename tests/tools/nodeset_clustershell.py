#!/usr/bin/python3
# nodeset_clustershell.py - ClusterShell (python3-clustershell) as the oracle
# for myriad's nodesets: what tests/nodeset.test compares against.
#
#   nodeset_clustershell.py corpus UPSTREAM_TESTS_DIR > tests/data/nodeset/clustershell-1.9.1.tsv
#       Runs ClusterShell's own unit tests (NodeSetTest.py, RangeSetTest.py,
#       RangeSetNDTest.py and, for the command line's --split, --contiguous
#       and -I, CLINodesetTest.py with its TLib.py, from a cea-hpc/clustershell
#       checkout) with the
#       installed ClusterShell, records every nodeset, range set and
#       operation they exercise, and writes each case with what ClusterShell
#       answers for it (see tests/data/nodeset/README).
#   nodeset_clustershell.py eval < CASES
#       A whole line for each case given by its kind and inputs (a bare
#       pattern is a parse), as in the corpus; slice positions are given in
#       RangeSet syntax.
#
# Line format, tab-separated, fields escaped (\\ \t \n \r): the kind, its
# inputs, then "ok" or "error" and what ClusterShell gives:
#   parse  PATTERN                 ok COUNT FOLD ONE_INDEX NAMES | error MESSAGE
#   op     A OP B                  ok FOLD ONE_INDEX        (OP: or and diff xor)
#   contains A B                   ok 0|1                   (every name of B in A)
#   index  A I                     ok NAME
#   slice  A POSITIONS             ok FOLD                  (positions as nodeset -I)
#   split  A N                     ok FOLD FOLD ...
#   contiguous A                   ok FOLD FOLD ...
# ONE_INDEX is 1 when every name has at most one number (folds and order are
# then exactly ClusterShell's); NAMES are all names in ClusterShell's order
# when there are at most 64, else "-". Sets whose order matters (index,
# slice, split, contiguous) are recorded only when they have one index.
import random
import re
import sys
import unittest

from ClusterShell import NodeSet as NS
from ClusterShell import RangeSet as RS

MAX_NAMES = 64
MAX_COUNT = 2000000      # sets ClusterShell would take long to build are left out
PER_SHAPE = 6            # cases kept of one shape (the same but for its numbers)
MAX_LINE = 2000          # longer cases are left out


def esc(s):
    return str(s).replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '\\r')


def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s):
            out.append({'t': '\t', 'n': '\n', 'r': '\r'}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


def one_index(ns):
    return all(r is None or r.dim() <= 1 for r in ns._patterns.values())


def too_big(pattern):
    """Skips patterns whose ranges alone hold millions of indexes."""
    try:
        total = 0
        for part in pattern.replace(']', '[').split('[')[1::2]:
            for item in part.split(','):
                bounds = item.split('/')[0].split('-')
                if len(bounds) == 2 and bounds[0].strip().isdigit() and bounds[1].strip().isdigit():
                    total += int(bounds[1]) - int(bounds[0])
        return total > MAX_COUNT
    except ValueError:
        return False


def parse_case(pattern):
    try:
        ns = NS.NodeSet(pattern)
    except Exception as exc:  # every parse error ClusterShell may raise
        return ['parse', pattern, 'error', '%s: %s' % (type(exc).__name__, exc)]
    names = list(ns) if len(ns) <= MAX_NAMES else None
    return ['parse', pattern, 'ok', len(ns), str(ns), int(one_index(ns)),
            ' '.join(names) if names is not None else '-']


def positions(ns, part):
    """A slice's names as positions in ns, in RangeSet syntax."""
    want = set(part)
    return str(RS.RangeSet([i for i, name in enumerate(ns) if name in want], autostep=3))


class Recorder:
    def __init__(self):
        self.patterns = []
        self.ops = []
        self.depth = 0

    def note_pattern(self, p):
        if isinstance(p, str) and p.strip() and not too_big(p):
            self.patterns.append(p)

    def note_op(self, *case):
        self.ops.append(case)


REC = Recorder()


def wrap(cls, name, before=None, after=None):
    orig = getattr(cls, name)

    def inner(self, *args, **kwargs):
        top = REC.depth == 0
        REC.depth += 1
        try:
            if top and before:
                try:
                    before(self, *args, **kwargs)
                except Exception:
                    pass
            res = orig(self, *args, **kwargs)
            if top and after:
                try:
                    after(self, res, *args, **kwargs)
                except Exception:
                    pass
            return res
        finally:
            REC.depth -= 1
    setattr(cls, name, inner)


def instrument():
    def ns_init(self, nodes=None, *a, **k):
        REC.note_pattern(nodes)

    def rs_init(self, pattern=None, *a, **k):
        if isinstance(pattern, str):
            REC.note_pattern('n[%s]' % pattern)

    def nd_init(self, args=None, *a, **k):
        if args and all(isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v) for v in args):
            REC.note_pattern(','.join(''.join('%s[%s]' % (chr(ord('a') + i), x) for i, x in enumerate(v))
                                      for v in args))

    def fromlist(cls_or_self, nodelist, *a, **k):
        if all(isinstance(x, str) for x in nodelist):
            REC.note_pattern(','.join(nodelist))

    wrap(NS.NodeSet, '__init__', before=ns_init)
    wrap(RS.RangeSet, '__init__', before=rs_init)
    wrap(RS.RangeSetND, '__init__', before=nd_init)
    orig_fromlist = NS.NodeSet.fromlist.__func__

    def fromlist_rec(cls, nodelist, *a, **k):
        if REC.depth == 0:
            try:
                fromlist(cls, list(nodelist))
            except Exception:
                pass
        return orig_fromlist(cls, nodelist, *a, **k)
    NS.NodeSet.fromlist = classmethod(fromlist_rec)

    binops = {'update': 'or', 'union': 'or', 'intersection_update': 'and', 'intersection': 'and',
              'difference_update': 'diff', 'difference': 'diff',
              'symmetric_difference_update': 'xor', 'symmetric_difference': 'xor'}
    def nodes(x):   # other operands (objects, lists) are not nodesets
        return isinstance(x, (str, NS.NodeSetBase))

    for meth, op in binops.items():
        def before(self, other, *a, _op=op, **k):
            if nodes(other):
                REC.note_op('op', str(self), _op, str(other))
        wrap(NS.NodeSet, meth, before=before)

    def contains(self, other, *a, **k):
        if nodes(other):
            REC.note_op('contains', str(self), str(other))

    def within(self, other, *a, **k):
        if nodes(other):
            REC.note_op('contains', str(other), str(self))
    wrap(NS.NodeSet, '__contains__', before=contains)
    wrap(NS.NodeSet, 'issuperset', before=contains)
    wrap(NS.NodeSet, 'issubset', before=within)

    def getitem(self, res, index, *a, **k):
        if isinstance(index, int):
            REC.note_op('index', str(self), index)
        elif isinstance(index, slice):
            REC.note_op('slice', str(self), index)
    wrap(NS.NodeSet, '__getitem__', after=getitem)
    wrap(NS.NodeSet, 'split', before=lambda self, n, *a, **k: REC.note_op('split', str(self), n))
    wrap(NS.NodeSet, 'contiguous', before=lambda self, *a, **k: REC.note_op('contiguous', str(self)))


def op_case(case):
    """The line of an operation; slices are Python slices (recorded) or
    positions in RangeSet syntax (eval)."""
    kind = case[0]
    if kind == 'op':
        a, op, b = NS.NodeSet(case[1]), case[2], NS.NodeSet(case[3])
        res = {'or': a | b, 'and': a & b, 'diff': a - b, 'xor': a ^ b}[op]
        return ['op', case[1], op, case[3], 'ok', str(res), int(one_index(res))]
    if kind == 'contains':
        return ['contains', case[1], case[2], 'ok', int(NS.NodeSet(case[2]) in NS.NodeSet(case[1]))]
    a = NS.NodeSet(case[1])
    if not one_index(a) or len(a) > 100000:
        return None
    if kind == 'index':
        return ['index', case[1], int(case[2]), 'ok', a[int(case[2])]]
    if kind == 'slice' and isinstance(case[2], slice):
        part = a[case[2]]
        return ['slice', case[1], positions(a, part) or '-', 'ok', str(part)]
    if kind == 'slice':
        part = NS.NodeSet()
        for sli in RS.RangeSet(case[2]).slices():
            part.update(a[sli])
        return ['slice', case[1], case[2], 'ok', str(part)]
    if kind == 'split':
        return ['split', case[1], int(case[2]), 'ok'] + [str(p) for p in a.split(int(case[2]))]
    if kind == 'contiguous':
        return ['contiguous', case[1], 'ok'] + [str(p) for p in a.contiguous()]
    return None


def corpus(testdir):
    random.seed(1)     # the command line's tests draw random names
    sys.path.insert(0, testdir)
    instrument()
    import NodeSetTest
    import RangeSetTest
    import RangeSetNDTest
    import CLINodesetTest
    suite = unittest.TestSuite()
    for mod in (NodeSetTest, RangeSetTest, RangeSetNDTest):
        suite.addTests(unittest.defaultTestLoader.loadTestsFromModule(mod))
    # the command line's tests, for --split, --contiguous and -I
    suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(CLINodesetTest.CLINodesetTest))
    unittest.TextTestRunner(stream=open('/dev/null', 'w'), verbosity=0).run(suite)
    REC.depth = 1      # from here on, ClusterShell computes, nothing is recorded
    seen, shapes, out = set(), {}, []

    def fresh(case):   # not seen, and not the 7th case of its shape (loops)
        key = repr(case)
        shape = re.sub(r'[0-9]+', 'N', key)
        if case[0] != 'parse':   # operations: bracket contents do not count
            shape = re.sub(r'\[[^]]*\]', '[R]', shape)
        if key in seen or shapes.get(shape, 0) >= PER_SHAPE:
            return False
        seen.add(key)
        shapes[shape] = shapes.get(shape, 0) + 1
        return True
    for p in REC.patterns:
        if fresh(('parse', p)):
            out.append(parse_case(p))
    for case in REC.ops:
        if not fresh(case):
            continue
        try:
            line = op_case(case)
        except Exception:
            line = None
        if line:
            out.append(line)
    for line in out:
        text = '\t'.join(esc(x) for x in line)
        if len(text) <= MAX_LINE:
            print(text)


def evaluate():
    """Case lines (a kind and its inputs, or a bare pattern) in, whole case
    lines out; an operation ClusterShell cannot do gives "- error"."""
    for line in sys.stdin:
        case = [unesc(f) for f in line.rstrip('\n').split('\t')]
        if len(case) == 1:
            case = ['parse', case[0]]
        if case[0] == 'parse':
            out = parse_case(case[1])
        else:
            try:
                out = op_case(case)
            except Exception as exc:
                out = None
            out = out or case + ['error', 'ClusterShell cannot']
        print('\t'.join(esc(x) for x in out))
        sys.stdout.flush()


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'corpus':
        corpus(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == 'eval':
        evaluate()
    else:
        sys.exit('usage: nodeset_clustershell.py corpus UPSTREAM_TESTS_DIR | eval < CASES')
