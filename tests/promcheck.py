#!/usr/bin/env python3
"""Check a Prometheus text-format file (exposition format 0.0.4) as node_exporter's textfile
collector and Prometheus read it: each family has one HELP and one TYPE line, before its
samples, its samples together; sample lines are NAME{LABELS} VALUE with a valid name, labels
and a float value; no series twice; a histogram's _bucket series per label set have le
bounds increasing, counts non-decreasing, +Inf last and equal to _count, with a _sum.
Usage: promcheck.py FILE [NAME]: prints "PASS NAME" or "FAIL NAME: why" (one line per
problem, the first 10), exit 0 or 1. --self-test: the checker refuses broken files."""
import math, re, sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*$')
SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)')
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}


def labels(s):
    out, pos = {}, 0
    while pos < len(s):
        m = LABEL.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError('bad labels {%s}' % s)
        if m.group(1) in out:
            raise ValueError('label %s twice' % m.group(1))
        out[m.group(1)] = m.group(2)
        pos = m.end()
    return out


def value(s):
    if s in ('+Inf', 'Inf'):
        return math.inf
    if s == '-Inf':
        return -math.inf
    if s == 'NaN':
        return math.nan
    return float(s)


def check(text):
    errs, help_, type_, family_of, done = [], {}, {}, {}, set()
    series, hist = set(), {}
    cur = None
    if text and not text.endswith('\n'):
        errs.append('the file does not end with a newline')
    for n, line in enumerate(text.split('\n')[:-1] if text.endswith('\n') else text.split('\n'), 1):
        if not line.strip():
            continue
        if line.startswith('#'):
            p = line.split(None, 3)
            if len(p) >= 3 and p[1] in ('HELP', 'TYPE'):
                fam = p[2]
                if not NAME.match(fam):
                    errs.append('%d: bad metric name %r' % (n, fam))
                d = help_ if p[1] == 'HELP' else type_
                if fam in d:
                    errs.append('%d: second %s line for %s' % (n, p[1], fam))
                if fam in done or (fam in family_of.values() and cur != fam):
                    errs.append('%d: %s %s after its samples' % (n, p[1], fam))
                d[fam] = p[3] if len(p) > 3 else ''
                if p[1] == 'TYPE' and d[fam] not in TYPES:
                    errs.append('%d: unknown type %r' % (n, d[fam]))
                if cur and cur != fam:
                    done.add(cur)
                cur = fam
            continue
        m = SAMPLE.match(line)
        if not m:
            errs.append('%d: not a sample line: %r' % (n, line))
            continue
        name, lab, val = m.group(1), m.group(3) or '', m.group(4)
        try:
            ls = labels(lab)
            v = value(val)
        except ValueError as e:
            errs.append('%d: %s' % (n, e))
            continue
        fam = name
        for suf in ('_bucket', '_sum', '_count'):
            if name.endswith(suf) and type_.get(name[:-len(suf)]) in ('histogram', 'summary'):
                fam = name[:-len(suf)]
        if fam not in type_ or fam not in help_:
            errs.append('%d: %s has no %s line before it' % (n, name,
                        'TYPE' if fam not in type_ else 'HELP'))
        if fam in done or (cur is not None and fam != cur):
            errs.append('%d: %s is apart from its family\'s other lines' % (n, name))
        cur = fam
        family_of[n] = fam
        key = (name, tuple(sorted(ls.items())))
        if key in series:
            errs.append('%d: series %s{%s} twice' % (n, name, lab))
        series.add(key)
        if type_.get(fam) == 'histogram':
            base = tuple(sorted((k, x) for k, x in ls.items() if k != 'le'))
            h = hist.setdefault((fam, base), {'b': [], 'sum': None, 'count': None})
            if name.endswith('_bucket'):
                if 'le' not in ls:
                    errs.append('%d: a bucket without le' % n)
                    continue
                h['b'].append((n, value(ls['le']), v))
            elif name.endswith('_sum'):
                h['sum'] = v
            elif name.endswith('_count'):
                h['count'] = v
    for (fam, base), h in hist.items():
        what = '%s{%s}' % (fam, ','.join('%s="%s"' % kv for kv in base))
        b = h['b']
        if not b:
            errs.append('%s: no buckets' % what)
            continue
        for (n1, le1, c1), (n2, le2, c2) in zip(b, b[1:]):
            if not le2 > le1:
                errs.append('%d: %s: le %s after le %s' % (n2, what, le2, le1))
            if c2 < c1:
                errs.append('%d: %s: bucket le=%s holds %s, fewer than le=%s (%s)' % (n2, what, le2, c2, le1, c1))
        if b[-1][1] != math.inf:
            errs.append('%s: the last bucket is not le="+Inf"' % what)
        if h['count'] is None:
            errs.append('%s: no _count' % what)
        elif b[-1][1] == math.inf and b[-1][2] != h['count']:
            errs.append('%s: +Inf bucket %s != _count %s' % (what, b[-1][2], h['count']))
        if h['sum'] is None:
            errs.append('%s: no _sum' % what)
    return errs


GOOD = '''# HELP x_seconds Waits.
# TYPE x_seconds histogram
x_seconds_bucket{cpus="a",le="1"} 1
x_seconds_bucket{cpus="a",le="2"} 3
x_seconds_bucket{cpus="a",le="+Inf"} 3
x_seconds_sum{cpus="a"} 2.5
x_seconds_count{cpus="a"} 3
# HELP y A gauge.
# TYPE y gauge
y{cpu="0"} 1
y{cpu="1"} 2
'''


def self_test():
    bad = {
        'decreasing': GOOD.replace('le="2"} 3', 'le="2"} 0'),
        'inf not last': GOOD.replace('le="+Inf"} 3\n', '').replace('le="1"} 1', 'le="+Inf"} 3\nx_seconds_bucket{cpus="a",le="1"} 1'),
        'no inf': GOOD.replace('x_seconds_bucket{cpus="a",le="+Inf"} 3\n', ''),
        'inf != count': GOOD.replace('x_seconds_count{cpus="a"} 3', 'x_seconds_count{cpus="a"} 4'),
        'twice': GOOD + 'y{cpu="1"} 2\n',
        'no type': GOOD.replace('# TYPE y gauge\n', ''),
        'no help': GOOD.replace('# HELP y A gauge.\n', ''),
        'bad line': GOOD + 'y{cpu=1} 2\n',
        'bad value': GOOD.replace('y{cpu="0"} 1', 'y{cpu="0"} one'),
        'no sum': GOOD.replace('x_seconds_sum{cpus="a"} 2.5\n', ''),
    }
    fails = []
    if check(GOOD):
        fails.append('a good file refused: %s' % check(GOOD))
    for what, text in bad.items():
        if not check(text):
            fails.append('%s: accepted' % what)
    return fails


def main():
    if sys.argv[1:] == ['--self-test']:
        f = self_test()
        print('FAIL promcheck-self: ' + '; '.join(f) if f else 'PASS promcheck-self')
        return 1 if f else 0
    path = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else 'promcheck'
    with open(path) as fh:
        errs = check(fh.read())
    if errs:
        print('FAIL %s: %s' % (name, errs[0]))
        for e in errs[1:10]:
            print('    ' + e)
        return 1
    print('PASS %s' % name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
