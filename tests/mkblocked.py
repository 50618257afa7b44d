#!/usr/bin/env python3
"""A fixture host with thousands of blocked tasks, made at test time from a real one.

    mkblocked.py SRC DST TGID TID COUNT [FIRST]

Copies the tree SRC (tests/fixtures/NAME) to DST, then adds COUNT single-threaded processes
PID = FIRST, FIRST+1, ... (default 100000), each a copy of SRC's thread TGID/TID (its
proc/TGID/task/TID files and the process files proc/TGID/*) with its ids rewritten: stat's
first field, status's Tgid and Pid (and Threads: 1), sched's header; its process files are
the thread's (the cmdline the process's). Everything else (state, stack, wchan, cgroup, se.exec_start) is the real
task's, so each is blocked as long as it is.
"""
import os
import re
import shutil
import sys


def retid(name, data, pid):
    """The file `name` of a task, with its ids those of pid."""
    if name == "stat":
        return re.sub(rb"^\d+ ", b"%d " % pid, data, count=1)
    if name == "status":
        data = re.sub(rb"(?m)^(Tgid|Pid):\t\d+$", lambda m: m.group(1) + b":\t%d" % pid, data)
        return re.sub(rb"(?m)^Threads:\t\d+$", b"Threads:\t1", data)
    if name == "sched":
        return re.sub(rb"^(.*) \(\d+, #threads: \d+\)", lambda m: m.group(1) + b" (%d, #threads: 1)" % pid,
                      data, count=1)
    return data


def files_of(d):
    return {n: open(os.path.join(d, n), "rb").read()
            for n in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, n))}


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    src, dst, tgid, tid, count = sys.argv[1:6]
    tgid, tid, count = int(tgid), int(tid), int(count)
    first = int(sys.argv[6]) if len(sys.argv) == 7 else 100000
    shutil.copytree(src, dst, symlinks=True)
    proc = files_of(os.path.join(src, "proc", str(tgid)))
    thread = files_of(os.path.join(src, "proc", str(tgid), "task", str(tid)))
    if "stat" not in thread or "sched" not in thread:
        sys.exit(f"{src}: proc/{tgid}/task/{tid} has no stat or sched")
    for pid in range(first, first + count):
        tdir = os.path.join(dst, "proc", str(pid), "task", str(pid))
        if os.path.exists(os.path.join(dst, "proc", str(pid))):
            sys.exit(f"{dst}: proc/{pid} exists already")
        os.makedirs(tdir)
        for name, data in proc.items():   # single-threaded: the thread is the process
            with open(os.path.join(dst, "proc", str(pid), name), "wb") as f:
                f.write(retid(name, thread.get(name, data), pid))
        for name, data in thread.items():
            with open(os.path.join(tdir, name), "wb") as f:
                f.write(retid(name, data, pid))


if __name__ == "__main__":
    main()
