"""The README's Python example, run as printed against the emulator (its port put in place of 8080).

Keeps the example honest: if the README's calls stop working with twython and facebook-sdk, this fails.
"""
import contextlib
import io
import re

from conftest import REPO


def readme_python_block():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, "the README has one Python example"
    return blocks[0]


def test_readme_python_example_runs_as_printed(base_url):
    code = readme_python_block().replace("http://127.0.0.1:8080", base_url)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md (python example)", "exec"), {})
    lines = printed.getvalue().splitlines()
    # What the README's comments say it prints.
    assert lines[0] == "Stevens Creek Coffee House, Cupertino None"
    assert re.fullmatch(r"\{'id': '2001_\d+'\}", lines[1])
