"""The Python example of the docs (docs/emulator.md), run as printed against the emulator (its port
put in place of 8080). It is looked for in README.md and every Markdown file under docs/, wherever it lives.

Keeps the example honest: if its calls stop working with twython and facebook-sdk, this fails.
"""
import contextlib
import io
import re

from conftest import REPO


def readme_python_block():
    """The one Python block of README.md and docs/**/*.md, and the file it is in."""
    documents = [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))
    blocks = [
        (block, document.relative_to(REPO))
        for document in documents
        for block in re.findall(r"```python\n(.*?)```", document.read_text(encoding="utf-8"), flags=re.S)
    ]
    assert len(blocks) == 1, f"the README and docs/ have one Python example, not {len(blocks)}"
    return blocks[0]


def test_readme_python_example_runs_as_printed(base_url):
    block, where = readme_python_block()
    code = block.replace("http://127.0.0.1:8080", base_url)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"{where} (python example)", "exec"), {})
    lines = printed.getvalue().splitlines()
    # What the README's comments say it prints.
    assert lines[0] == "Stevens Creek Coffee House, Cupertino None"
    assert re.fullmatch(r"\{'id': '2001_\d+'\}", lines[1])
