#!/usr/bin/env python3
"""Bundles made without cgwatch, for tests/bundle.sh: a good one built from a fixture tree
(tree/ members and a manifest.json of its own hashes), one tampered, and hostile ones.

usage: mkbundle.py good TREE OUT              a bundle (tar.gz) of TREE
       mkbundle.py incidents TREE OUT         the same with an incident's reports (incidents/)
       mkbundle.py tampered TREE OUT          the same, one file changed after hashing
       mkbundle.py hostile KIND TREE OUT OUTSIDE
           KIND: absolute dotdot symlink-abs symlink-rel symlink-through hardlink device
                 fifo sparse huge wrong-hash extra incidents-symlink incidents-dotdot
                 incidents-device
           OUTSIDE: a directory outside the private tree that the archive aims at
Prints the name of the member the reader must name in its refusal."""
import hashlib
import io
import json
import os
import sys
import tarfile


def members_of(tree):
    """(name, TarInfo, data) of every file, directory and link of tree, in name order."""
    out = [("tree", None, None)]
    for dirpath, dirs, files in os.walk(tree):
        dirs.sort()
        rel = os.path.relpath(dirpath, tree)
        for n in sorted(dirs) + sorted(files):
            p = os.path.join(dirpath, n)
            name = "tree/" + os.path.normpath(os.path.join(rel, n))
            if os.path.islink(p):
                out.append((name, "link", os.readlink(p)))
            elif os.path.isdir(p):
                out.append((name, None, None))
            else:
                with open(p, "rb") as f:
                    out.append((name, "file", f.read()))
    return out


def add(tf, name, kind, data):
    ti = tarfile.TarInfo(name)
    ti.mtime = 1764500000
    if kind == "file":
        ti.size = len(data)
        ti.mode = 0o644
        tf.addfile(ti, io.BytesIO(data))
    elif kind == "link":
        ti.type = tarfile.SYMTYPE
        ti.linkname = data
        ti.mode = 0o777
        tf.addfile(ti)
    else:
        ti.type = tarfile.DIRTYPE
        ti.mode = 0o755
        tf.addfile(ti)


def manifest(members):
    m = []
    for name, kind, data in members:
        if kind == "file":
            m.append({"path": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        elif kind == "link":
            b = data.encode()
            m.append({"path": name, "type": "symlink", "target": data, "size": len(b),
                      "sha256": hashlib.sha256(b).hexdigest()})
        else:
            m.append({"path": name, "type": "directory", "size": 0,
                      "sha256": hashlib.sha256(b"").hexdigest()})
    return {"schema": "cgwatch.bundle/1", "cgwatch": "test", "host": "h", "kernel": "k",
            "root": "tree", "capture": {"start": "", "end": ""}, "members": m,
            "unreadable": [], "left_out": []}


def write(out, members, man, hostile=None):
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for i, (name, kind, data) in enumerate(members):
            if hostile and i == 3:          # after a few good members
                hostile(tf)
            add(tf, name, kind, data)
        data = json.dumps(man, indent=1).encode()
        add(tf, "manifest.json", "file", data)


def main():
    what = sys.argv[1]
    if what in ("good", "tampered", "incidents"):
        tree, out = sys.argv[2], sys.argv[3]
        ms = members_of(tree)
        if what == "incidents":
            for ext in ("json", "txt"):
                ms.append(("incidents/20261130T071622Z-fuse-wait-02-escalated." + ext, "file",
                           b'{"incident": {"id": "20261130T071622Z-fuse-wait"}}\n'))
        man = manifest(ms)
        if what == "tampered":
            for k, (name, kind, data) in enumerate(ms):
                if kind == "file" and name.endswith("/stat") and b"1" in data:
                    ms[k] = (name, kind, data.replace(b"1", b"2", 1))   # the same size
                    print(name)
                    break
        write(out, ms, man)
        return
    kind, tree, out, outside = sys.argv[2:6]
    ms = members_of(tree)
    man = manifest(ms)
    named = {}

    def h(tf):
        if kind == "absolute":
            named["n"] = outside + "/absolute"
            add(tf, named["n"], "file", b"x")
        elif kind == "dotdot":
            named["n"] = "tree/../../../../../../.." + outside + "/dotdot"
            add(tf, named["n"], "file", b"x")
        elif kind == "symlink-abs":
            named["n"] = "tree/escape"
            add(tf, named["n"], "link", outside)
            add(tf, "tree/escape/through", "file", b"x")
        elif kind == "symlink-rel":
            named["n"] = "tree/proc/escape"
            add(tf, named["n"], "link", "../../../../../../../.." + outside)
            add(tf, "tree/proc/escape/through", "file", b"x")
        elif kind == "symlink-through":
            # an fd link may name any file, but nothing may be written through it
            named["n"] = "tree/proc/1/fd/9/through"
            add(tf, "tree/proc/1/fd/9", "link", outside)
            add(tf, named["n"], "file", b"x")
        elif kind == "hardlink":
            named["n"] = "tree/proc/hard"
            ti = tarfile.TarInfo(named["n"])
            ti.type = tarfile.LNKTYPE
            ti.linkname = outside + "/target"
            tf.addfile(ti)
        elif kind in ("device", "fifo"):
            named["n"] = "tree/dev/evil"
            ti = tarfile.TarInfo(named["n"])
            ti.type = tarfile.CHRTYPE if kind == "device" else tarfile.FIFOTYPE
            ti.devmajor, ti.devminor = 1, 3
            tf.addfile(ti)
        elif kind == "sparse":
            # GNU sparse 1.0 in pax headers: 10 GiB of holes, a 512-byte map as data
            named["n"] = "tree/proc/sparse"
            ti = tarfile.TarInfo("tree/proc/GNUSparseFile.0/sparse")
            ti.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0",
                              "GNU.sparse.name": named["n"],
                              "GNU.sparse.realsize": str(10 << 30)}
            mp = b"1\n" + str(10 << 30).encode() + b"\n0\n"
            mp = mp.ljust(512, b"\0")
            ti.size = len(mp)
            tf.addfile(ti, io.BytesIO(mp))
        elif kind == "huge":
            # a header claiming 10 GiB, then the archive simply goes on
            named["n"] = "tree/proc/huge"
            ti = tarfile.TarInfo(named["n"])
            ti.size = 10 << 30
            tf.fileobj.write(ti.tobuf(tarfile.PAX_FORMAT, tf.encoding, tf.errors))
            tf.offset += len(ti.tobuf(tarfile.PAX_FORMAT, tf.encoding, tf.errors))
        elif kind == "incidents-symlink":
            # an incident's report may only be a file: a link there is refused
            named["n"] = "incidents/20261130T071622Z-fuse-wait-01-opened.json"
            add(tf, named["n"], "link", outside + "/target")
        elif kind == "incidents-dotdot":
            named["n"] = "incidents/../../../../../../.." + outside + "/dotdot"
            add(tf, named["n"], "file", b"x")
        elif kind == "incidents-device":
            named["n"] = "incidents/20261130T071622Z-fuse-wait-01-opened.txt"
            ti = tarfile.TarInfo(named["n"])
            ti.type = tarfile.CHRTYPE
            ti.devmajor, ti.devminor = 1, 3
            tf.addfile(ti)
        elif kind == "extra":
            named["n"] = "extra: tree/proc/extra"
            add(tf, "tree/proc/extra", "file", b"not in the manifest")

    if kind == "wrong-hash":
        for e in man["members"]:
            if e["path"].endswith("/stat") and e.get("size"):
                e["sha256"] = "0" * 64
                named["n"] = "sha256: " + e["path"]
                break
        write(out, ms, man)
    else:
        write(out, ms, man, h)
    print(named["n"])


if __name__ == "__main__":
    main()
