"""`tilecheck lower --write` and `-o/--output-file`: atomic writes through `tilecheck.app.files.write_atomic`."""

from __future__ import annotations

import os

from tests.pypto.helpers import program, run_lower_command

_GOOD = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
_LOWERED = program("for i in pl.pipeline(0, 2, 2, stage=1):\n    x = i\n    x_1 = i + 1\n")


def test_write_through_a_symlink_keeps_the_link(tmp_path):
    real, link = tmp_path / "real.py", tmp_path / "link.py"
    real.write_text(_GOOD)
    os.chmod(real, 0o640)
    link.symlink_to(real.name)
    assert run_lower_command(["lower", "--write", str(link)]) == (0, "", "")
    assert link.is_symlink() and os.readlink(link) == "real.py"
    assert real.read_text() == _LOWERED
    assert os.stat(real).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.py", "real.py"]


def test_write_keeps_crlf_line_endings_and_the_byte_order_mark(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"\xef\xbb\xbf" + _GOOD.replace("\n", "\r\n").encode())
    assert run_lower_command(["lower", "--write", str(path)])[0] == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + _LOWERED.replace("\n", "\r\n").encode()


def test_write_refuses_when_the_file_changed_meanwhile(tmp_path, monkeypatch):
    from tilecheck.app.workspace import Workspace

    path = tmp_path / "k.py"
    path.write_text(_GOOD)
    real_lower = Workspace.lower_text

    def lower_then_edit(self, text, where):
        result = real_lower(self, text, where)
        path.write_text(_GOOD + "# edited\n")
        return result

    monkeypatch.setattr(Workspace, "lower_text", lower_then_edit)
    code, out, err = run_lower_command(["lower", "--write", str(path)])
    assert (code, out) == (2, "")
    assert err == (
        f"tilecheck lower: cannot write {path}: the file changed while it was being checked; it was not modified\n"
    )
    assert path.read_text() == _GOOD + "# edited\n"
    assert sorted(os.listdir(tmp_path)) == ["k.py"]


def test_output_to_a_new_file_and_over_an_existing_one(tmp_path):
    path, target = tmp_path / "k.py", tmp_path / "out.py"
    path.write_text(_GOOD)
    assert run_lower_command(["lower", str(path), "-o", str(target)]) == (0, "", "")
    assert target.read_text() == _LOWERED
    target.write_text("old\n")
    os.chmod(target, 0o600)
    assert run_lower_command(["lower", str(path), "-o", str(target)]) == (0, "", "")
    assert target.read_text() == _LOWERED and os.stat(target).st_mode & 0o777 == 0o600
    assert path.read_text() == _GOOD


def test_output_into_a_missing_folder_is_exit_2(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(_GOOD)
    code, out, err = run_lower_command(["lower", str(path), "-o", str(tmp_path / "no" / "out.py")])
    assert (code, out) == (2, "")
    assert err.startswith(f"tilecheck lower: cannot write {tmp_path / 'no' / 'out.py'}: ")
