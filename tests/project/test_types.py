"""The whole package passes mypy under the configuration in pyproject.toml ([tool.mypy], strict).

mypy can't follow the editable install's import hook, and the folders don't carry their import
names (app/ is `tabletrail`, core/ is `tabletrail.core`: [tool.setuptools.package-dir]). So the
check lays the package out under its import names, as links to the source files, in a temporary
folder, and runs mypy there with the repository's configuration; an error is reported at its
source file (`core/board/geometry.py:12`), not at the link. mypy's cache stays in the temporary folder.

By hand: `.venv/bin/python -m pytest tests/project/test_types.py`, or `python tests/project/test_types.py`
to print mypy's own report.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def package_dirs() -> dict[str, Path]:
    """Each installed package name and the folder it comes from, read from pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {name: ROOT / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


def lay_out(into: Path) -> dict[Path, Path]:
    """Link every module file under its import path in `into`; the link -> its source file."""
    links: dict[Path, Path] = {}
    for name, folder in package_dirs().items():
        target = into.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for source in sorted(folder.glob("*.py*")):
            if source.suffix in (".py", ".pyi") or source.name == "py.typed":
                link = target / source.name
                link.symlink_to(source)
                links[link] = source
    return links


def run_mypy(work: Path) -> tuple[int, str]:
    """mypy over the laid-out package with the repository's configuration: exit status and report."""
    links = lay_out(work / "src")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(work / "cache"),
            "--no-error-summary",
            "-p",
            "tabletrail",
        ],
        cwd=work / "src",
        capture_output=True,
        text=True,
        check=False,
    )
    report = done.stdout + done.stderr
    for link, source in links.items():  # name the file a person edits, not the link
        report = report.replace(str(link.relative_to(work / "src")), str(source.relative_to(ROOT)))
    return done.returncode, report


def test_the_package_type_checks_clean() -> None:
    with tempfile.TemporaryDirectory(prefix="tabletrail-mypy-") as tmp:
        status, report = run_mypy(Path(tmp))
    assert status == 0 and not report.strip(), "mypy (pyproject.toml [tool.mypy]) reports:\n" + report


def test_the_layout_holds_every_module() -> None:
    """A module left out of the layout would go unchecked: every source file gets its link."""
    with tempfile.TemporaryDirectory(prefix="tabletrail-layout-") as tmp:
        links = lay_out(Path(tmp))
    sources = {s for folder in package_dirs().values() for s in folder.glob("*.py")}
    assert sources and sources <= set(links.values())


def test_every_source_file_is_laid_out() -> None:
    """A sub-package folder missing from [tool.setuptools.package-dir] would be neither installed nor
    checked: every .py file under the source folders is laid out, at any depth."""
    roots = {folder for folder in package_dirs().values() if folder.parent == ROOT}
    with tempfile.TemporaryDirectory(prefix="tabletrail-layout-") as tmp:
        linked = set(lay_out(Path(tmp)).values())
    missing = sorted(
        str(s.relative_to(ROOT))
        for root in roots
        for s in root.rglob("*.py")
        if "__pycache__" not in s.parts and s not in linked
    )
    assert not missing, "not in [tool.setuptools.package-dir], so never type-checked: " + ", ".join(missing)


def test_no_module_is_excused() -> None:
    """The whole package is checked: no [[tool.mypy.overrides]] turns a module's errors off."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    excused = [o["module"] for o in config["tool"]["mypy"].get("overrides", []) if o.get("ignore_errors")]
    assert not excused, f"modules excused from mypy (ignore_errors): {excused}"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="tabletrail-mypy-") as tmp:
        status, report = run_mypy(Path(tmp))
    print(report, end="")
    sys.exit(status)
