#!/usr/bin/env python3
"""Dump what parse-fpchain.c is given for a live task stopped in frame-pointer code, as a
fixture of tests/unit/test-fpchain.c: run as root against a vfork parent of
tests/live/bin/ustackhold-* (vfork, decoy, direct or self mode), blocked in __vfork, whose
sp at the syscall is its caller's sp (middle's, middle_decoy's or main's): __vfork pops its
return address first. Start the target under env -i from /: the window may reach the
stack's top, the environment's strings.

usage: dump.py TID FUNCTION RA_OUTER > FIXTURE
  FUNCTION  the stopped frame's function (middle, middle_decoy, main), looked up with nm
  RA_OUTER  the return address into its caller (the first of the program's "chain" line):
            the real record is the highest slot holding it, less 8, within the function's
            frame
Lines: sp, pc, fn START END, stack LO HI, exec LO HI..., want RBP, mem ADDR HEX...
(the stack window; code before every word of it that points into an executable mapping,
the target of a call there and a PLT stub's GOT slot; the function's first 48 bytes)."""
import struct
import subprocess
import sys


def main():
    tid, fn, ra_outer = int(sys.argv[1]), sys.argv[2], int(sys.argv[3], 16)
    f = open("/proc/%d/syscall" % tid).read().split()
    sp, pc = int(f[-2], 16), int(f[1], 16)   # __vfork keeps its return address in rdi
    maps = []
    for l in open("/proc/%d/maps" % tid):
        p = l.split()
        lo, hi = (int(x, 16) for x in p[0].split("-"))
        maps.append((lo, hi, p[1], int(p[2], 16), p[5] if len(p) > 5 else ""))
    mem = open("/proc/%d/mem" % tid, "rb", buffering=0)

    def rd(a, n):
        try:
            mem.seek(a)
            return mem.read(n)
        except OSError:
            return None
    stack = next(m for m in maps if m[0] <= sp < m[1])
    exe = subprocess.run(["readlink", "-f", "/proc/%d/exe" % tid], capture_output=True,
                         text=True).stdout.strip()
    nm = subprocess.run(["nm", "-S", exe], capture_output=True, text=True).stdout
    off, size = next((int(l.split()[0], 16), int(l.split()[1], 16)) for l in nm.splitlines()
                     if l.split()[-1] == fn)
    base = min(m[0] - m[3] for m in maps if m[4] == exe)
    fs = base + off
    execs = [(m[0], m[1]) for m in maps if "x" in m[2]]

    def is_x(a):
        return any(lo <= a < hi for lo, hi in execs)
    win_hi = min(stack[1], sp + 8192)
    win = rd(sp, win_hi - sp)
    chunks = {sp: win}
    words = struct.unpack("<%dQ" % (len(win) // 8), win)
    for w in words:
        if not is_x(w) or w < 16:
            continue
        c = rd(w - 16, 16)
        if not c:
            continue
        chunks[w - 16] = c
        if c[11] == 0xE8:
            t = (w + struct.unpack("<i", c[12:16])[0]) & (2 ** 64 - 1)
            if is_x(t):
                s = rd(t, 16)
                if not s:
                    continue
                chunks[t] = s
                i = 4 if s[:4] == b"\xf3\x0f\x1e\xfa" else 0
                i += s[i] == 0xF2
                if s[i:i + 2] == b"\xff\x25":
                    got = t + i + 6 + struct.unpack("<i", s[i + 2:i + 6])[0]
                    g = rd(got, 8)
                    if g:
                        chunks[got] = g
    chunks[fs] = rd(fs, 48)
    slots = [sp + 8 * i for i, w in enumerate(words[:(size + 2048) // 8]) if w == ra_outer]
    print("# %s %s: %s's frame, dumped by tests/unit/fpchain/dump.py" % (exe.split("/")[-1],
                                                                        fn, fn))
    print("sp %x" % sp)
    print("pc %x" % pc)
    print("fn %x %x" % (fs, fs + size))
    print("stack %x %x" % stack[:2])
    for lo, hi in execs:
        print("exec %x %x" % (lo, hi))
    print("want %x" % (slots[-1] - 8))
    for a in sorted(chunks):
        b = chunks[a]
        for i in range(0, len(b), 64):
            print("mem %x %s" % (a + i, b[i:i + 64].hex()))


main()
