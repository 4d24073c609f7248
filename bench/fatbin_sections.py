#!/usr/bin/env python3
"""What the bytes of a library's CUDA fat binary are, by cubin section (issue #32).

    bench/fatbin_sections.py [LIBRARY ...]   (default: CUDA 13's libcublasLt.so.13)

KE012 scans every byte of `.nv_fatbin` for the build machine's source paths
(nvcc's -lineinfo tables, device-side assert's __FILE__). This sizes how much
of that is executable SASS, which can hold no string, against everything
else, so that scanning only the sections a path can live in can be weighed
before it is built. It walks the fat binary's containers and entries as
kcheck does (checker/elf/elf_device_code.cpp), reads each cubin's section
headers, and prints per library: the section's size; the cubins' bytes in
executable sections (SHF_EXECINSTR), in other sections, and outside any
section (ELF and section headers, alignment); the PTX text; the entries
whose payload is compressed (the entry flag 0x2000, an LZ4 block, or
0x8000, with the payload starting with zstd's magic number), which neither
can be split nor hold a readable path (unless the compressor kept it as
literal bytes), and what they declare they decompress to (the size at
offset 56 of each entry's header: what KE012 now decompresses); and the
largest zstd window (the history a decoder keeps for a frame, no more
than the frame's content size: what a decoder must hold); and the largest
non-executable section names by their total size. Reads only; independent
of kcheck's code.
"""
import collections
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
ENTRY_PTX, ENTRY_CUBIN = 1, 2
SHF_EXECINSTR = 0x4
SHT_NOBITS = 8
FLAG_COMPRESSED_LZ4, FLAG_COMPRESSED_ZSTD = 0x2000, 0x8000
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def sections(elf):
    """(name, type, flags, offset, size) of each section of a little-endian ELF64 image."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shoff == 0 or shentsize < 64 or shoff + shnum * shentsize > len(elf):
        return None
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4] if shstrndx < shnum else 0

    def name(offset):
        start = names_offset + offset
        end = elf.find(b"\0", start)
        return elf[start:end].decode("latin-1") if 0 <= start < len(elf) and end >= 0 else "?"

    return [(name(h[0]), h[1], h[2], h[4], h[5]) for h in headers]


def section_group(name):
    """".nv.info._Z3fooPf" -> ".nv.info", ".text._Z3fooPf" -> ".text", ".debug_frame" as it is."""
    parts = name.split(".")
    if name.startswith(".nv.") and len(parts) > 2:
        return ".nv." + parts[2]
    return "." + parts[1] if name.startswith(".") and len(parts) > 1 else name


def fatbin_section(library):
    with open(library, "rb") as file:
        data = file.read()
    result = sections(data)
    if result is None:
        sys.exit(f"{library}: not a little-endian ELF64 file")
    for name, _type, _flags, offset, size in result:
        if name == ".nv_fatbin":
            return data[offset:offset + size]
    return b""


def walk(fatbin):
    """Every entry of every container: (kind, flags, payload bytes, compressed size (offset 16 of its header,
    0 when unset), the size it declares decompressed (offset 56))."""
    offset = 0
    while offset + 16 <= len(fatbin):
        magic, = struct.unpack_from("<I", fatbin, offset)
        if magic == 0:
            offset += 8
            continue
        if magic != FATBIN_MAGIC:
            raise ValueError(f"no fat binary header at {offset}")
        header_size, = struct.unpack_from("<H", fatbin, offset + 6)
        body_size, = struct.unpack_from("<Q", fatbin, offset + 8)
        end = offset + header_size + body_size
        entry = offset + header_size
        while entry + 64 <= end:
            kind, _version, entry_header, payload = struct.unpack_from("<HHIQ", fatbin, entry)
            compressed_size, = struct.unpack_from("<I", fatbin, entry + 16)
            flags, = struct.unpack_from("<Q", fatbin, entry + 40)
            declared, = struct.unpack_from("<Q", fatbin, entry + 56)
            yield kind, flags, fatbin[entry + entry_header:entry + entry_header + payload], compressed_size, declared
            entry += entry_header + payload
        offset = end


def compressed_entries(fatbin):
    """Every compressed entry, in section order: ("zstd" | "lz4" | "both", its compressed bytes (the size at
    offset 16 of its header, the payload size when 0), the size its header declares at offset 56)."""
    for _kind, flags, payload, compressed_size, declared in walk(fatbin):
        compression = flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD)
        if compression:
            method = {FLAG_COMPRESSED_ZSTD: "zstd", FLAG_COMPRESSED_LZ4: "lz4"}.get(compression, "both")
            size = min(compressed_size, len(payload)) if compressed_size else len(payload)
            yield method, payload[:size], declared


def zstd_window(frame):
    """The history a zstd frame's decoder keeps (RFC 8878, 3.1.1.1): the window its Window_Descriptor
    gives, or no more than the Frame_Content_Size when the frame declares one (a single-segment frame's
    window is its content size); None when the bytes are no zstd frame header."""
    if len(frame) < 6 or frame[:4] != ZSTD_MAGIC:
        return None
    descriptor = frame[4]
    content_size_flag, single_segment, dictionary_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    position = 5
    window = None
    if not single_segment:
        window_descriptor = frame[position]
        position += 1
        base = 1 << (10 + (window_descriptor >> 3))
        window = base + (base // 8) * (window_descriptor & 7)
    position += (0, 1, 2, 4)[dictionary_flag]
    width = (1 if single_segment else 0, 2, 4, 8)[content_size_flag]
    if len(frame) < position + width:
        return None
    content_size = int.from_bytes(frame[position:position + width], "little") + (256 if width == 2 else 0) \
        if width else None
    if window is None:
        return content_size
    return window if content_size is None else min(window, content_size)


def report(library):
    fatbin = fatbin_section(library)
    totals = collections.Counter()
    by_name = collections.Counter()
    entries = collections.Counter()
    for kind, flags, payload, _compressed_size, _declared in walk(fatbin):
        compressed = flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD)
        entries[(("PTX" if kind == ENTRY_PTX else "cubin" if kind == ENTRY_CUBIN else f"kind {kind}"),
                 f"flags & 0xa000 = {compressed:#x}",
                 "zstd magic" if payload[:4] == ZSTD_MAGIC else "ELF magic" if payload[:4] == b"\x7fELF" else "other")] += 1
        if compressed:
            totals["compressed entries"] += len(payload)
            continue
        if kind == ENTRY_PTX:
            totals["PTX text"] += len(payload)
            continue
        parts = sections(payload) if kind == ENTRY_CUBIN else None
        if parts is None:
            totals["entries not split (not ELF)"] += len(payload)
            continue
        in_sections = 0
        for name, section_type, flags, _offset, size in parts:
            if section_type == SHT_NOBITS:
                continue
            in_sections += size
            if flags & SHF_EXECINSTR:
                totals["cubin executable sections (SASS)"] += size
            else:
                totals["cubin other sections"] += size
                by_name[section_group(name)] += size
        totals["cubin bytes outside sections"] += max(len(payload) - in_sections, 0)
    mb = 1e6
    print(f"{library}: .nv_fatbin {len(fatbin) / mb:.3f} MB")
    print("  entries: " + "; ".join(f"{count} {kind} ({flag}, {magic})"
                                     for (kind, flag, magic), count in sorted(entries.items())))
    for what in ("compressed entries", "cubin executable sections (SASS)", "cubin other sections",
                 "cubin bytes outside sections", "PTX text", "entries not split (not ELF)"):
        share = 100 * totals[what] / len(fatbin) if fatbin else 0
        print(f"  {what}: {totals[what] / mb:.3f} MB ({share:.1f} %)")
    compressed = list(compressed_entries(fatbin))
    declared = sum(size for _method, _payload, size in compressed)
    print(f"  compressed entries declare {declared / mb:.3f} MB decompressed "
          f"({declared / len(fatbin) if fatbin else 0:.1f} times the section)")
    windows = sorted((w for method, payload, _size in compressed
                      if method == "zstd" and (w := zstd_window(payload)) is not None), reverse=True)
    if windows:
        print(f"  zstd windows (what a decoder holds per frame): largest {windows[0] / 2**20:.3f} MiB, "
              f"{sum(w == windows[0] for w in windows)} of {len(windows)} frames that large")
    print("  largest other sections, by the name's first part: " +
          (", ".join(f"{name} {size / mb:.3f} MB" for name, size in by_name.most_common(6)) or "none"))


def main(libraries):
    import datetime, platform
    print(f"{platform.node() or 'this machine'}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    for library in libraries or ["/usr/local/cuda/lib64/libcublasLt.so.13"]:
        report(library)


if __name__ == "__main__":
    main(sys.argv[1:])
