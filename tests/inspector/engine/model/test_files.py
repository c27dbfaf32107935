"""The guarded open (issue 35): regular files only, decided on the open descriptor without blocking; a size bound
per kind; line-oriented input a bounded line at a time."""

from __future__ import annotations

import io
import os

import pytest

from inspector.engine.model.files import UnfitFile, bounded_lines, open_regular, read_json, read_regular


def test_a_regular_file_is_read_whole_within_its_bound(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    assert read_regular(path, 3) == b"abc"
    with open_regular(path) as f:
        assert f.read() == b"abc"


def test_a_file_past_its_bound_is_refused_unread(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abcd")
    with pytest.raises(UnfitFile, match=r"^4 bytes is too large for a broker.conf \(at most 3\)$"):
        read_regular(path, 3, "a broker.conf")


@pytest.mark.parametrize(("make", "kind"), [
    (lambda p: os.mkfifo(p), "a FIFO"),  # opened without O_NONBLOCK this would wait for a writer for ever
    (lambda p: p.mkdir(), "a directory"),
    (lambda p: p.symlink_to("/dev/zero"), "a character device"),
])
def test_anything_but_a_regular_file_is_refused_by_kind(tmp_path, make, kind):
    path = tmp_path / "f"
    make(path)
    with pytest.raises(UnfitFile) as info:
        open_regular(path)
    assert str(info.value) == f"not a regular file ({kind})" and info.value.strerror == str(info.value)
    assert isinstance(info.value, OSError)  # a caller's `except OSError` answers it too


def test_a_missing_file_is_the_open_s_own_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing", 10)


def test_lines_are_bounded_and_numbered():
    assert list(bounded_lines(io.BytesIO(b"ab\ncd\n\nlast"), 4)) == [b"ab\n", b"cd\n", b"\n", b"last"]
    assert list(bounded_lines(io.BytesIO(b"abcd\n"), 4)) == [b"abcd\n"]  # exactly the bound, then its newline
    lines = bounded_lines(io.BytesIO(b"ok\n" + b"x" * 10 + b"\n"), 4)
    assert next(lines) == b"ok\n"
    with pytest.raises(UnfitFile, match=r"^line 2: longer than 4 bytes$"):
        next(lines)


def test_a_stream_without_newlines_is_read_only_up_to_the_bound():
    class Endless(io.RawIOBase):  # /dev/zero as a pipe: every read is answered, none holds a newline
        asked = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            Endless.asked += len(buffer)
            buffer[:] = b"\0" * len(buffer)
            return len(buffer)

    with pytest.raises(UnfitFile, match="line 1: longer than 1,000 bytes"):
        list(bounded_lines(io.BufferedReader(Endless(), 256), 1000))
    assert Endless.asked < 4096


def test_json_files_get_the_config_files_limits(tmp_path):
    path = tmp_path / "f.json"
    path.write_text('{"a@b": {"0": 5}}')
    assert read_json(path, "an offsets file") == {"a@b": {"0": 5}}
    path.write_text("[" * 300 + "]" * 300)
    with pytest.raises(ValueError, match="nesting deeper than 200"):
        read_json(path, "an offsets file")
    path.write_text('{"a": ' + "9" * 5000 + "}")
    with pytest.raises(ValueError, match="number too long"):
        read_json(path, "an offsets file")
