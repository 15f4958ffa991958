"""Bytes → text, shared by every reader: file loading, transparent gzip, encoding and binary detection.

Encoding rule: a BOM decides (UTF-8, UTF-16, UTF-32); UTF-16 without a BOM is recognised by its NUL
pattern; otherwise strict UTF-8; if that fails the text is decoded as cp1252 (Latin-1 for the five bytes
cp1252 leaves undefined) and a warning `ReadProblem` says so — records are still read. NUL characters
are removed (one warning per file) and do not by themselves make input binary. Line ends become
``\\n``. Binary input (PDF, ZIP, or more than 5 % control characters in the first 8 KiB) is refused
with one `ReadProblem`. Whole inputs are held in memory; files over `MAX_INPUT_BYTES` (also after
gunzip) are refused.
"""

from __future__ import annotations

import codecs
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

from kg.types import ReadProblem

MAX_INPUT_BYTES = 512 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_BINARY_MAGIC = ((b"%PDF-", "a PDF file"), (b"PK\x03\x04", "a ZIP archive"), (b"\x89PNG", "a PNG image"))
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b\x00")  # NULs are removed later, not a sign of binary


@dataclass(frozen=True, slots=True)
class Decoded:
    """The text of one input (None if it cannot be read as text) and the warnings/errors met on the way."""

    text: str | None
    problems: tuple[ReadProblem, ...] = ()


def load_bytes(path: str | Path) -> bytes | ReadProblem:
    """The raw bytes of a file (``"-"`` = standard input), or a one-line problem saying why not."""
    if str(path) == "-":
        return sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    p = Path(path)
    try:
        if p.is_dir():
            return ReadProblem(p.name, "file", "is a directory, not a file")
        if p.stat().st_size > MAX_INPUT_BYTES:
            return ReadProblem(p.name, "file", f"larger than {MAX_INPUT_BYTES} bytes; refused")
        return p.read_bytes()
    except FileNotFoundError:
        return ReadProblem(p.name, "file", "file not found")
    except PermissionError:
        return ReadProblem(p.name, "file", "permission denied")
    except OSError as exc:
        return ReadProblem(p.name, "file", f"cannot read: {exc.strerror or type(exc).__name__}")


def peek_text(path: str | Path, size: int = 1 << 20) -> str:
    """About the first `size` bytes of a file as text (gunzipped, undecodable bytes replaced), for a look at
    its first records without reading all of it; "" when it cannot be read."""
    try:
        with Path(path).open("rb") as f:
            head = f.read(size)
        if head[:2] == GZIP_MAGIC:
            head = zlib.decompressobj(wbits=31).decompress(head, size)
    except (OSError, zlib.error):
        return ""
    return head.decode("utf-8", errors="replace").lstrip("\ufeff")


def gunzip(data: bytes, name: str) -> tuple[bytes | None, list[ReadProblem]]:
    """Decompress (possibly multi-member) gzip data, capped at `MAX_INPUT_BYTES`; keep what a truncated
    stream yielded."""
    out: list[bytes] = []
    size = 0
    rest = data
    try:
        while rest[:2] == GZIP_MAGIC:
            d = zlib.decompressobj(wbits=31)
            chunk = d.decompress(rest, MAX_INPUT_BYTES + 1 - size)
            out.append(chunk)
            size += len(chunk)
            if size > MAX_INPUT_BYTES or d.unconsumed_tail:
                return None, [ReadProblem(name, "file", f"decompresses to over {MAX_INPUT_BYTES} bytes")]
            if not d.eof:
                return b"".join(out), [ReadProblem(name, "file", "gzip data truncated; read what was there")]
            rest = d.unused_data
    except zlib.error as exc:
        if not out:
            return None, [ReadProblem(name, "file", f"corrupt gzip data ({exc})")]
        return b"".join(out), [ReadProblem(name, "file", f"corrupt gzip data after {size} bytes ({exc})")]
    return b"".join(out), []


def _utf16_without_bom(head: bytes) -> str | None:
    pairs = len(head) // 2
    if pairs < 2:
        return None
    even = sum(1 for i in range(0, 2 * pairs, 2) if head[i] == 0)
    odd = sum(1 for i in range(1, 2 * pairs, 2) if head[i] == 0)
    if odd > 0.4 * pairs and even < 0.05 * pairs:
        return "utf-16-le"
    if even > 0.4 * pairs and odd < 0.05 * pairs:
        return "utf-16-be"
    return None


def _to_text(data: bytes, name: str) -> tuple[str, list[ReadProblem]]:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            text = data.decode(codec, errors="replace")
            bad = ["undecodable bytes replaced"] if "\ufffd" in text else []
            return text, [ReadProblem(name, "file", f"{codec} with {m}") for m in bad]
    codec_guess = _utf16_without_bom(data[:4096])
    if codec_guess:
        return data.decode(codec_guess, errors="replace"), []
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02X} at offset {exc.start}"
        try:
            text, codec = data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            text, codec = data.decode("latin-1"), "latin-1"
        return text, [ReadProblem(name, "file", f"not valid UTF-8 ({where}); decoded as {codec}")]


def _binary_kind(data: bytes, text: str) -> str | None:
    for magic, kind in _BINARY_MAGIC:
        if data.startswith(magic):
            return kind
    head = text[:8192]
    controls = sum(1 for ch in head if (ch < " " or ch == "\x7f") and ch not in _TEXT_CONTROLS)
    return "binary data" if head and controls > 0.05 * len(head) else None


def decode(data: bytes, name: str) -> Decoded:
    """Text of `data` (gunzipped if needed) plus problems; text None when empty, binary or corrupt."""
    problems: list[ReadProblem] = []
    if len(data) > MAX_INPUT_BYTES:
        return Decoded(None, (ReadProblem(name, "file", f"larger than {MAX_INPUT_BYTES} bytes; refused"),))
    if data[:2] == GZIP_MAGIC:
        raw, problems = gunzip(data, name)
        if raw is None:
            return Decoded(None, tuple(problems))
        data = raw
    text, notes = _to_text(data, name)
    kind = _binary_kind(data, text)
    if kind:  # the encoding notes would only be noise here
        return Decoded(None, (*problems, ReadProblem(name, "file", f"{kind}, not text; skipped")))
    problems.extend(notes)
    if "\x00" in text:
        problems.append(ReadProblem(name, "file", f"removed {text.count(chr(0))} NUL characters"))
        text = text.replace("\x00", "")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return Decoded(None, (*problems, ReadProblem(name, "file", "empty file")))
    return Decoded(text, tuple(problems))
