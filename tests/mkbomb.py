#!/usr/bin/env python3
"""Bundles that cost the reader, for tests/bundlecaps.sh: zstd-compressed tar archives written
by hand (the tar headers by python3's tarfile, the data through zstd(1) but where a member's
data is gigabytes of zero bytes: a zstd frame of RLE blocks, 4 bytes of file for each 128 KiB). Each holds a fixture tree (its members listed in manifest.json, with their hashes)
and what the kind adds.

usage: mkbomb.py dumpdir TREE OUT GIB   a GNU dumpdir member (tar type 'D', which libarchive
                                        reports as a directory) whose header says GIB GiB of
                                        data, and the data
       mkbomb.py hidden TREE OUT GIB    a regular member with an absolute name whose header
                                        says 0 bytes (pax GNU.sparse.realsize) while its pax
                                        size, and the data that follow, are GIB GiB
       mkbomb.py many TREE OUT N        N one-byte members tree/many/NNNNNN, in the manifest
       mkbomb.py file TREE OUT SIZE     a member tree/big of SIZE bytes, in the manifest
Prints the name of the member a refusal must name, a tab, and the number of members."""
import json
import subprocess
import sys
import tarfile

sys.path.insert(0, __import__("os").path.dirname(__file__))
from mkbundle import manifest, members_of  # noqa: E402

BLOCK = 128 * 1024                    # zstd's largest block
GIB = 1 << 30


def header(name, kind, size=0, target="", typ=None, pax=None, fmt=tarfile.PAX_FORMAT):
    ti = tarfile.TarInfo(name)
    ti.mtime = 1764500000
    ti.size = size
    if kind == "file":
        ti.mode = 0o644
    elif kind == "link":
        ti.type, ti.linkname, ti.mode = tarfile.SYMTYPE, target, 0o777
    else:
        ti.type, ti.mode = tarfile.DIRTYPE, 0o755
    if typ:
        ti.type = typ
    if pax:
        ti.pax_headers = pax
    return ti.tobuf(fmt, "utf-8", "surrogateescape")


def pad(n):
    return b"\0" * (-n % 512)


def tar_of(members):
    """The tar stream of (name, kind, data) members: for each, a list of bytes."""
    out = []
    for name, kind, data in members:
        if kind == "file":
            out.append([header(name, kind, len(data)), data + pad(len(data))])
        elif kind == "link":
            out.append([header(name, kind, target=data)])
        else:
            out.append([header(name, kind)])
    return out


def many_headers(n):
    """The members tree/many/000000.. of one byte "x" each, n of them: one header made by
    tarfile, then its name's digits and checksum changed (tarfile takes 80 us a header)."""
    t = bytearray(header("tree/many/000000", "file", 1) + b"x" + pad(1))
    base = int(t[148:154], 8) - sum(b"000000")
    out = bytearray()
    for i in range(n):
        d = b"%06d" % i
        t[10:16] = d
        t[148:156] = b"%06o\0 " % (base + sum(d))
        out += t
    return bytes(out)


def rle_frame(n):
    """A zstd frame of n zero bytes, as RLE blocks (4 bytes each for 128 KiB)."""
    out = bytearray(b"\x28\xb5\x2f\xfd")  # magic
    out += b"\x00"                        # no content size, no checksum, no dictionary
    out += bytes([(17 - 10) << 3])        # window 128 KiB
    full, rest = divmod(n, BLOCK)
    for size, times in ((BLOCK, full), (rest, 1 if rest else 0)):
        out += (((size << 3) | (1 << 1)).to_bytes(3, "little") + b"\0") * times
    out += (1).to_bytes(3, "little")     # the last block: raw, empty
    return bytes(out)


def write_zstd(out, segments):
    """The segments as one zstd file: runs of bytes compressed by zstd(1), each int n as n
    zero bytes in a frame of RLE blocks (a zstd file is its frames one after the other)."""
    with open(out, "wb") as f:
        z = None
        for s in segments:
            if isinstance(s, int):
                if z:
                    z.stdin.close()
                    z.wait()
                    z = None
                f.write(rle_frame(s))
                f.flush()
                continue
            if not z:
                z = subprocess.Popen(["zstd", "-q", "-c"], stdin=subprocess.PIPE, stdout=f)
            z.stdin.write(s)
        if z:
            z.stdin.close()
            z.wait()


def main():
    kind, tree, out, arg = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ms = members_of(tree)
    named = ""
    segs = []
    many = []
    if kind == "many":
        ms.append(("tree/many", None, None))
        many = [("tree/many/%06d" % i, "file", b"x") for i in range(arg)]
        named = "tree/many/"
    elif kind == "file":
        ms.append(("tree/big", "file", b"b" * arg))
        named = "tree/big"
    man = json.dumps(manifest(ms + many)).encode()
    per = tar_of(ms)
    if many:
        per.append([many_headers(len(many))])
    if kind == "dumpdir":                 # after a few good members
        named = "tree/proc/dumpdir"
        per.insert(3, [header(named, "dir", arg * GIB, typ=b"D", fmt=tarfile.GNU_FORMAT),
                       arg * GIB])
    elif kind == "hidden":
        named = "/hidden"
        per.insert(3, [header(named, "file", arg * GIB,
                              pax={"size": str(arg * GIB), "GNU.sparse.realsize": "0"}),
                       arg * GIB])
    per.append([header("manifest.json", "file", len(man)), man + pad(len(man)), b"\0" * 1024])
    segs = [s for m in per for s in m]
    write_zstd(out, segs)
    extra = 1 if kind in ("dumpdir", "hidden") else 0
    print("%s\t%d" % (named, len(ms) + len(many) + 1 + extra))


if __name__ == "__main__":
    main()
