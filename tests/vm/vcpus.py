#!/usr/bin/env python3
"""Where a hung VM's vCPUs are: tests/vm/lib.sh runs this on qemu's human monitor socket when
the VM outlives VM_TIMEOUT, before it kills qemu.

    vcpus.py MONITOR_SOCKET [KALLSYMS]

Prints one line, "CPU#0 native_safe_halt+0x6 (kernel), CPU#1 0x7f3a... (user)": each vCPU's
RIP from `info registers -a`, named from KALLSYMS (the text symbols of /proc/kallsyms, as an
earlier boot of the same kernel wrote them: it boots with nokaslr, so they do not move). Exit 1 with the reason on stdout when the monitor does not answer
within 5 s."""
import bisect
import re
import socket
import sys
import time


def monitor(path, cmd, timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    end = time.monotonic() + timeout
    buf = b""

    def until_prompt():
        nonlocal buf
        while b"(qemu) " not in buf:
            if time.monotonic() > end:
                raise TimeoutError("no prompt")
            chunk = s.recv(65536)
            if not chunk:
                raise EOFError("monitor closed")
            buf += chunk
        out, buf = buf.split(b"(qemu) ", 1)
        return out

    until_prompt()                      # the banner
    s.sendall(cmd.encode() + b"\n")
    out = until_prompt()
    s.close()
    return out.decode("utf-8", "replace")


def load_map(path):
    addrs, names = [], []
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 3 and p[1] in "tTwW":
                    addrs.append(int(p[0], 16))
                    names.append(p[2])
    except OSError:
        return [], []
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def name(rip, addrs, names):
    if rip < 0xFFFF800000000000:
        return "0x%x (user)" % rip
    i = bisect.bisect_right(addrs, rip) - 1
    if i < 0 or rip - addrs[i] > 0x100000:
        return "0x%x (kernel)" % rip
    return "%s+0x%x (kernel)" % (names[i], rip - addrs[i])


def main():
    try:
        out = monitor(sys.argv[1], "info registers -a")
    except (OSError, TimeoutError, EOFError) as e:
        print("qemu's monitor did not answer: %s" % e)
        return 1
    addrs, names = load_map(sys.argv[2]) if len(sys.argv) > 2 else ([], [])
    cpus = re.findall(r"CPU#(\d+).*?RIP=([0-9a-f]+)", out, re.S)
    if not cpus:
        print("no RIP in the monitor's answer: %r" % out[:200])
        return 1
    print(", ".join("CPU#%s %s" % (c, name(int(r, 16), addrs, names)) for c, r in cpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
