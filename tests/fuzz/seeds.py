#!/usr/bin/env python3
"""Assemble the seed corpus of each fuzz harness from what the repository already holds:
fixture trees (tests/fixtures/*/proc, sys, dev/kmsg), the configuration golden files, the
signature library, the kernel text quoted in the unit tests, binaries built now and the
stacks of one of them running (fuzz-unwind), and the few hand-made seeds of
tests/fuzz/seeds/NAME/. Usage: seeds.py OUTDIR NAME... (writes OUTDIR/NAME/<sha1>)."""
import glob
import hashlib
import os
import re
import struct
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIX = "tests/fixtures/*/"


def files(*patterns):
    for p in patterns:
        for f in sorted(glob.glob(os.path.join(REPO, p), recursive=True)):
            if os.path.isfile(f):
                with open(f, "rb") as fh:
                    yield fh.read()


LITERAL = re.compile(rb'"((?:[^"\\\n]|\\.)*)"')
ADJACENT = re.compile(rb'(?:"(?:[^"\\\n]|\\.)*"\s*)+')


def unescape(b):
    out, i = bytearray(), 0
    simple = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("\\"): 92, ord('"'): 34, ord("'"): 39,
              ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("v"): 11, ord("?"): 63}
    while i < len(b):
        c = b[i]
        if c != 92 or i + 1 == len(b):
            out.append(c)
            i += 1
            continue
        n = b[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == ord("x"):
            m = re.match(rb"[0-9a-fA-F]{1,2}", b[i + 2:])
            out.append(int(m.group(0), 16) if m else 120)
            i += 2 + (len(m.group(0)) if m else 0)
        elif 48 <= n <= 55:
            m = re.match(rb"[0-7]{1,3}", b[i + 1:])
            out.append(int(m.group(0), 8) & 255)
            i += 1 + len(m.group(0))
        else:
            out.append(n)
            i += 2
    return bytes(out)


def c_strings(path):
    """Every string constant of a C file (adjacent literals joined)."""
    with open(os.path.join(REPO, path), "rb") as fh:
        src = fh.read()
    for m in ADJACENT.finditer(src):
        yield unescape(b"".join(LITERAL.findall(m.group(0))))


def c_arrays(path):
    """Brace-enclosed lists of two or more string constants: the unit tests' kernel reports."""
    with open(os.path.join(REPO, path), "rb") as fh:
        src = fh.read()
    for m in re.finditer(rb"\{([^{}]*)\}", src):
        lits = [unescape(b"".join(LITERAL.findall(a.group(0)))) for a in ADJACENT.finditer(m.group(1))]
        if len(lits) >= 2:
            yield lits


def record(msg, seq, pri=4):
    esc = b"".join(bytes([c]) if 32 <= c < 127 and c != 92 else b"\\x%02x" % c for c in msg)
    return b"%d,%d,%d,-;%s\n" % (pri, seq, 1000000 + seq * 13, esc)


def kmsg_lines():
    for cap in files(FIX + "dev/kmsg"):
        for line in cap.split(b"\n"):
            if line and not line.startswith(b" "):
                yield line
    for i, s in enumerate(c_strings("tests/unit/test-kmsg.c")):
        if re.match(rb"^\d+,\d+,\d+,", s):
            yield s.split(b"\n")[0]
        elif 8 <= len(s) < 1024:
            yield record(s, i).rstrip(b"\n")


def kmsg_captures():
    for cap in files(FIX + "dev/kmsg"):
        yield cap
        lines = cap.split(b"\n")
        for i in range(0, len(lines), 20):
            yield b"\n".join(lines[i:i + 30]) + b"\n"
    for arr in c_arrays("tests/unit/test-kmsg.c"):
        yield b"".join(record(s, i) for i, s in enumerate(arr))
    for s in c_strings("tests/unit/test-kmsg.c"):
        if s.count(b"\n") >= 2 and re.match(rb"^\d+,\d+,\d+,", s):
            yield s


def kworkers():
    for comm in files(FIX + "proc/**/comm"):
        if comm.startswith(b"kworker/"):
            yield comm.rstrip(b"\n")
    for s in c_strings("tests/unit/test-kworker.c"):
        if s.startswith(b"kworker/"):
            yield s


def cpulists():
    yield from files(FIX + "sys/devices/system/cpu/*", FIX + "sys/fs/cgroup/**/cpuset.cpus*")
    for st in files(FIX + "proc/**/status"):
        for line in st.split(b"\n"):
            if line.startswith(b"Cpus_allowed"):
                yield line.split(b":", 1)[1].strip()
    for s in c_strings("tests/unit/test-cpulist.c"):
        if s and len(s) < 200:
            yield s


def rates():
    yield from files(FIX + "proc/cgroups", FIX + "proc/stat", FIX + "proc/uptime",
                     FIX + "sys/fs/cgroup/**/cgroup.stat")
    for s in c_strings("tests/unit/test-rates.c"):
        if b"\n" in s or s[:1].isdigit():
            yield s


def rates_files():
    yield from files(FIX + "cgwatch/rates")
    for s in c_strings("tests/unit/test-rates.c"):
        if s.startswith(b"cgwatch-rates 1"):
            yield s


def elf_images():
    """Real binaries, made now from tests/unit/elf/ (cc, strip, objcopy; none when missing):
    the library and the program -O2 -g, each stripped, the program's debug file, one
    without a build-id and one with its debuglink."""
    import shutil
    import subprocess
    import tempfile
    if not all(shutil.which(t) for t in ("cc", "strip", "objcopy")):
        return
    src = os.path.join(REPO, "tests/unit/elf")
    with tempfile.TemporaryDirectory() as d:
        steps = [
            ["cc", "-O2", "-g", "-fPIC", "-shared", "-o", "libx.so", src + "/libx.c"],
            ["cc", "-O2", "-g", "-o", "prog", src + "/prog.c", "-L.", "-lx"],
            ["cc", "-Os", "-no-pie", "-Wl,--build-id=none", "-o", "nb", src + "/prog.c",
             "-L.", "-lx"],
            ["strip", "-o", "libx.stripped", "libx.so"],
            ["strip", "-o", "prog.stripped", "prog"],
            ["objcopy", "--only-keep-debug", "prog", "prog.debug"],
            ["objcopy", "--add-gnu-debuglink=prog.debug", "prog.stripped", "prog.link"],
        ]
        for step in steps:
            if subprocess.run(step, cwd=d, capture_output=True).returncode != 0:
                return
        for name in ("libx.so", "prog", "nb", "libx.stripped", "prog.stripped", "prog.debug",
                     "prog.link"):
            with open(os.path.join(d, name), "rb") as fh:
                yield fh.read()


def fpchain_seeds():
    """fuzz-fpchain inputs (its header, then the stack window; the whole input is the code
    too): a frame record where the prologue puts it, after a call of the function, its
    caller's record ending the chain; the same with a copy below it; the function unknown."""
    import struct
    CODE, STACK = 0x400000, 0x7FF000000000
    for flags, decoy in ((1, False), (1, True), (0, True), (3, False)):
        b = bytearray(16 + 0x200)
        fn = 0x110                                   # input offset of the function
        b[0:9] = struct.pack("<HHHBBB", 0, fn, 0x40, flags, 0, 0xFF)
        b[fn:fn + 8] = bytes.fromhex("554889e54883ec20")
        b[fn + 8:fn + 32] = b"\x90" * 24
        ra1, ra2 = 0x185, 0x1A5                       # after a call of fn; of another
        b[ra1 - 16:ra1 - 5] = b"\x90" * 11
        b[ra1 - 5:ra1] = b"\xe8" + struct.pack("<i", fn - ra1)
        b[ra2 - 16:ra2 - 5] = b"\x90" * 11
        b[ra2 - 5:ra2] = b"\xe8" + struct.pack("<i", 0x1C0 - ra2)
        w = 16                                       # the window's offset in the input
        struct.pack_into("<QQ", b, w + 0x20, STACK + 0x40, CODE + ra1)
        struct.pack_into("<QQ", b, w + 0x40, 0, CODE + ra2)
        if decoy:
            struct.pack_into("<QQ", b, w + 0x00, STACK + 0x40, CODE + ra1)
        yield bytes(b)


def unwind_seeds():
    """fuzz-unwind inputs: the stacks of tests/fuzz/unwind-prog.c, built now (cc; none when it
    or /proc/PID/mem cannot be had), blocked at the end of each of its ways (a..e): its header
    (bias, pc, sp, the argument registers from /proc/PID/syscall; where the stack image is and
    its length), the stack from sp (up to 2 KiB: the stack scan needs room above the record),
    then the program's file. Each also with the file's mapping (and pc) moved by 1..7 bytes, as
    a bundle's maps may say: the copies of its tables then end at every alignment against the
    words libunwind reads, where a bound that is off by one shows."""
    import shutil
    import subprocess
    import tempfile
    import time
    if not shutil.which("cc"):
        return
    with tempfile.TemporaryDirectory() as d:
        prog = os.path.join(d, "prog")
        build = ["cc", "-O2", "-fPIE", "-static-pie", "-nostdlib", "-ffreestanding",
                 "-fno-stack-protector", "-fno-optimize-sibling-calls",
                 "-fasynchronous-unwind-tables", "-Wl,--eh-frame-hdr", "-Wl,--build-id=sha1",
                 "-Wl,-z,noseparate-code", "-s", "-o", prog,
                 os.path.join(REPO, "tests/fuzz/unwind-prog.c")]
        if subprocess.run(build, capture_output=True).returncode != 0:
            return
        with open(prog, "rb") as fh:
            elf = fh.read()
        for how in b"abcde":
            p = subprocess.Popen([prog], stdin=subprocess.PIPE, env={})
            try:
                p.stdin.write(bytes([how]))
                p.stdin.flush()
                sc = []
                for _ in range(500):              # until blocked in its last read(0, buf, 7)
                    with open("/proc/%d/syscall" % p.pid) as fh:
                        sc = fh.read().split()
                    if len(sc) == 9 and sc[0] == "0" and sc[3] == "0x7":
                        break
                    time.sleep(0.01)
                else:
                    return
                with open("/proc/%d/maps" % p.pid) as fh:
                    maps = [l.split() for l in fh]
                bias = [int(m[0].split("-")[0], 16) for m in maps
                        if len(m) == 6 and m[5] == prog and int(m[2], 16) == 0][0]
                args = [int(x, 16) for x in sc[1:7]]
                sp, pc = int(sc[7], 16), int(sc[8], 16)
                top = [int(m[0].split("-")[1], 16) for m in maps
                       if len(m) == 6 and m[5] == "[stack]"][0]
                with open("/proc/%d/mem" % p.pid, "rb") as fh:
                    fh.seek(sp)
                    stack = fh.read(min(top - sp, 2048))
            except (OSError, IndexError, ValueError):
                return
            finally:
                p.kill()
                p.wait()
                p.stdin.close()
            for shift in range(8):
                yield struct.pack("<QQQ6QQII", bias + shift, pc + shift, sp, *args, sp,
                                  len(stack), 1) + stack + elf


TASKREC_SIZE = 200                                    # src/bpf/taskrec.h


def bpfrecs():
    """fuzz-bpfrec inputs: records as src/bpf/taskrec.h lays them out (first byte even), and
    /proc/kallsyms lines (first byte odd)"""
    def rec(kind, state, tid, frames=(), rflags=0):
        head = struct.pack("<HHBcHIiiiiIIIiiII", 0x6377, 2, kind, state, len(frames),
                           rflags | (1 if frames else 0), tid, tid, 1, 1, 0x20, 0, 0, 120,
                           0, 0, 0)
        head += struct.pack("<QQQQQQQ", 4489812345678, 99786458684, 12345678, 99786000000,
                            0, 3, 4) + b"kworker/0:1\0\0\0\0\0" + \
            struct.pack("<Q", 12000000)
        head += bytes(TASKREC_SIZE - len(head))      # no lock; run_delay, pcount 0
        return head + b"".join(struct.pack("<Q", f) for f in frames)
    end = struct.pack("<HHBcHIiiiiIIIiiII", 0x6377, 2, 3, b"\0", 0, 0, 0, 0, 0, 0, 0, 0, 0,
                      0, 0, 7, 0)
    end += bytes(TASKREC_SIZE - len(end))
    yield b"\0" + rec(1, b"D", 5501, (0xffffffff81380e3d, 0xffffffffc0a01234)) + \
        rec(2, b"S", 5500) + end
    yield b"\0" + rec(1, b"R", 77, rflags=2) + end
    yield (b"\1ffffffff81380db0 t __pfx___flush_work\nffffffff81380dc0 t __flush_work\n"
           b"ffffffffc0a01230 t fuse_dev_do_read\t[fuse]\n")


SEEDS = {
    "bpfrec": bpfrecs,
    "stat": lambda: files(FIX + "proc/**/stat"),
    "sched": lambda: files(FIX + "proc/**/sched"),
    "status": lambda: files(FIX + "proc/**/status"),
    "stack": lambda: files(FIX + "proc/**/stack", FIX + "proc/**/wchan"),
    "cgroup": lambda: files(FIX + "proc/**/cgroup"),
    "mountinfo": lambda: files(FIX + "proc/**/mountinfo"),
    "syscall": lambda: files(FIX + "proc/**/syscall", FIX + "proc/**/mountinfo"),
    "maps": lambda: files(FIX + "proc/**/maps"),
    "cmdline": lambda: files(FIX + "proc/cmdline"),
    "kworker": kworkers,
    "cpulist": cpulists,
    "kmsg-record": kmsg_lines,
    "kmsg": kmsg_captures,
    "rates": rates,
    "ratesfile": rates_files,
    "conf": lambda: files("tests/conf/*.in", "cgwatch.conf"),
    "sig": lambda: files("conf/signatures.d/*.conf", "tests/sigs/**/*.conf"),
    "hazard": lambda: files("conf/hazards.d/*.conf"),
    "trace": lambda: c_strings("tests/unit/test-trace.c"),
    "timerlat": lambda: c_strings("tests/unit/test-timerlat.c"),
    "psi": lambda: iter(list(c_strings("tests/unit/test-psi.c")) +
                        list(files(FIX + "proc/pressure/*", FIX + "sys/fs/cgroup/**/*.pressure"))),
    "state": lambda: iter(()),
    "manifest": lambda: iter(()),
    "passwd": lambda: files(FIX + "proc/*/status"),
    "elf": elf_images,
    "fpchain": fpchain_seeds,
    "ehframe": elf_images,
    "unwind": unwind_seeds,
    "group": lambda: iter([b"root:x:0:\nalice:x:1000:\ndevs:x:5001:alice,bob\n",
                           b"127.0.0.1 localhost\n127.0.1.1 web-01.corp.example web-01\n"
                           b"10.0.0.7 web-01.lan mail # here\n2001:db8::7 web-01\n"]),
    "schedstat": lambda: iter([b"1848513 54321 12\n", b"0 0 0\n", b"184851399 49000123 7\n"]),
    "numbers": lambda: (l.split(b":", 1)[1].strip() for f in files(FIX + "proc/**/sched")
                        for l in f.split(b"\n")[:12] if b":" in l),
}


def main():
    out, names = sys.argv[1], sys.argv[2:]
    for name in names:
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        gen = SEEDS.get(name, lambda: iter(()))()
        hand = files("tests/fuzz/seeds/%s/*" % name)
        n = 0
        for data in list(gen) + list(hand):
            path = os.path.join(d, hashlib.sha1(data).hexdigest())
            if not os.path.exists(path):
                with open(path, "wb") as fh:
                    fh.write(data)
                n += 1
        print("%s: %d seeds" % (name, n))


if __name__ == "__main__":
    main()
