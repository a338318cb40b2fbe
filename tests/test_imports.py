"""Import boundaries: the pure packages load without Mesa; market and allocators stay apart."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import vosim

ROOT = Path(vosim.__file__).parent

#: Packages that must import (with every submodule) without importing Mesa.
MESA_FREE = ["vosim.core", "vosim.market", "vosim.allocators", "vosim.policies"]

#: package -> packages none of its modules may import (at run time or for type checking).
FORBIDDEN = {
    "vosim.core": ("vosim.market", "vosim.allocators", "vosim.policies", "vosim.agents"),
    "vosim.market": ("vosim.allocators",),
    "vosim.allocators": ("vosim.market",),
}


@pytest.mark.parametrize("package", MESA_FREE)
def test_package_imports_without_mesa(package):
    code = (
        "import importlib, pkgutil, sys\n"
        f"import {package} as pkg\n"
        f"for m in pkgutil.walk_packages(pkg.__path__, '{package}.'):\n"
        "    importlib.import_module(m.name)\n"
        "mesa = sorted(m for m in sys.modules if m == 'mesa' or m.startswith('mesa.'))\n"
        "assert not mesa, mesa\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_top_level_names_are_lazy_and_complete():
    code = (
        "import sys, vosim\n"
        "assert 'mesa' not in sys.modules\n"
        "assert 'vosim.model' not in sys.modules\n"
        "for name in vosim.__all__:\n"
        "    assert getattr(vosim, name) is not None, name\n"
        "assert 'mesa' in sys.modules\n"
        "assert vosim.VOModel.__module__ == 'vosim.model'\n"
        "assert set(vosim.__all__) <= set(dir(vosim))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_unknown_top_level_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        vosim.nope  # noqa: B018


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (``from x import y`` counts as ``x`` and ``x.y``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layering(package):
    folder = ROOT.joinpath(*package.split(".")[1:])
    bad = []
    for info in pkgutil.walk_packages([str(folder)], f"{package}."):
        path = folder.joinpath(*info.name.split(".")[2:])
        path = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
        for line, name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package]):
                bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {name}")
    assert not bad, "\n".join(bad)
