"""Layering, checked: only a package named native touches ctypes (STYLE habit 7): kscope.native,
and a model's own bindings in kscope/models/<name>/native/."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kscope"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_native_package_imports_ctypes() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "ctypes" in imported_modules(path) and path.parent.name != "native"
    ]
    assert offenders == []
