#!/usr/bin/env python3
"""The layout holds: data flows one way through the stages, no two files call each other,
and the pure parsers do no I/O. Reads the symbols of the built objects (nm), so it checks
the code as compiled, not as named in comments.

Stages, in the order data flows (a file's prefix names its stage):
  parse-*   pure parsers: text in, structs out
  source-*  read the host: the host snapshot, the task walk, kernel messages, event counts
  detect*   which tasks are suspects and for how long
  diagnose* signatures, correlators, evidence: findings
  incident* findings over time, and their persistence
  sink-*    every output: text, JSON, journal, report files, metrics
  main.c, daemon.c: the two orchestrators
Any other file is shared (util.c, log.c, conf.c, ...): it may call only shared files.
A file may call its own stage, earlier stages and shared files, never a later stage.
Prints PASS/FAIL lines; usage: layout.py BUILD_OBJ_DIR SRC_DIR (objects of files no longer in
SRC_DIR, left by an older build, are not read)."""
import collections, glob, os, subprocess, sys

STAGES = [('parse-', 1), ('source-', 2), ('detect', 3), ('diagnose', 4), ('incident', 5),
          ('sink-', 6)]
ORCHESTRATORS = {'main', 'daemon'}
# libc calls a pure parser must not make
IO = {'open', 'open64', 'openat', 'openat64', 'read', 'pread', 'pread64', 'fopen', 'fopen64',
      'opendir', 'fdopendir', 'readdir', 'readdir64', 'readlink', 'readlinkat', 'stat', 'fstat',
      'fstatat', 'statx', 'write', 'pwrite', 'fwrite', 'fprintf', 'printf', 'puts', 'fputs',
      'syscall', 'ioctl', 'mmap', 'time', 'clock_gettime', 'gettimeofday', 'getenv'}


def stage(f):
    if f in ORCHESTRATORS:
        return 7
    for p, n in STAGES:
        if f.startswith(p):
            return n
    return 0


def main():
    objdir, srcdir = sys.argv[1], sys.argv[2]
    objs = sorted(o for o in glob.glob(os.path.join(objdir, '*.o'))
                  if os.path.exists(os.path.join(srcdir, os.path.basename(o)[:-2] + '.c')))
    if not objs:
        print(f'FAIL layout: no objects in {objdir} (make first)')
        return
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        f = os.path.basename(o)[:-2]
        if f == 'sigs-builtin':
            continue                      # generated data
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'TDRB':
                defs[p[2]] = f
            elif len(p) == 2 and p[0] == 'U':
                uses[f].add(p[1])
    dep = collections.defaultdict(lambda: collections.defaultdict(list))
    for f, us in uses.items():
        for u in sorted(us):
            g = defs.get(u)
            if g and g != f:
                dep[f][g].append(u)

    bad = []
    for f in sorted(dep):
        for g, syms in sorted(dep[f].items()):
            sf, sg = stage(f), stage(g)
            if sg == 0 or (sf != 0 and sg <= sf):
                continue
            bad.append(f'{f}.c ({sf}) calls {g}.c ({sg}): {", ".join(syms[:3])}')
    if bad:
        print('FAIL layout-one-way: a file calls a later stage (or a shared file a stage):')
        for b in bad:
            print('    ' + b)
    else:
        print(f'PASS layout-one-way ({len(defs)} functions in {len(objs)} files)')

    # files that call each other, directly or around a loop (Tarjan's SCC)
    index, low, on, st, sccs, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        st.append(v)
        on.add(v)
        for w in dep.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = st.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
    for v in sorted(dep):
        if v not in index:
            visit(v)
    if sccs:
        print('FAIL layout-no-cycles: files that call each other: ' +
              '; '.join(' <-> '.join(c) for c in sccs))
    else:
        print('PASS layout-no-cycles')

    impure = [f'{f}.c: {", ".join(sorted(uses[f] & IO))}' for f in sorted(uses)
              if stage(f) == 1 and uses[f] & IO]
    if impure:
        print('FAIL layout-pure-parsers: parsers doing I/O: ' + '; '.join(impure))
    else:
        print('PASS layout-pure-parsers (' +
              ', '.join(sorted(f + '.c' for f in uses if stage(f) == 1)) + ')')


main()
