"""Layout rules that a refactoring could silently undo."""

from __future__ import annotations

import inspect

from vosim.agents import metascheduler


def test_the_metascheduler_has_one_cycle_path():
    """One cycle path in MetaschedulerAgent (its functions' length is ruff's C901 rule)."""
    methods = [n for n, _ in inspect.getmembers(metascheduler.MetaschedulerAgent)]
    assert "cycle" in methods
    assert not [n for n in methods if n.startswith("_cycle")], "a second cycle path"


def test_the_code_carries_no_history():
    """History lives in git and docs/decisions.md: no issue numbers or dates in the code.

    The code is ``vosim/``, ``tests/`` and ``benchmarks/`` (its ``.py`` files, but not the
    ignored scratch folder ``benchmarks/_work/``). A docstring describes the code as it is; an
    issue's number or a date says when it changed. The pattern also catches a number on the
    line after the word.
    """
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r"\bissues?\s+\d+|\b20\d\d-\d\d-\d\d\b", re.IGNORECASE)
    found = [
        f"{path.relative_to(root)}:{text[: m.start()].count(chr(10)) + 1}: {m.group()}"
        for folder in ("vosim", "tests", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if not path.is_relative_to(root / "benchmarks" / "_work")
        for text in [path.read_text(encoding="utf-8")]
        for m in pattern.finditer(text)
    ]
    assert not found, "history in the code:\n" + "\n".join(found)


def test_slot_and_slot_list_come_from_one_place():
    """``Slot`` and ``SlotList`` are imported from :mod:`vosim.core` only (no re-exports)."""
    import ast
    from pathlib import Path

    import vosim

    home = {"vosim.core", "vosim.core.slots"}
    root = Path(vosim.__file__).parent
    tests = Path(__file__).parent
    wrong = []
    for path in [*root.rglob("*.py"), *tests.rglob("*.py")]:
        text = path.read_text()
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.ImportFrom) and node.module not in home:
                names = {a.name for a in node.names}
                if names & {"Slot", "SlotList"}:
                    wrong.append(f"{path.name}:{node.lineno} from {node.module}")
        for line in text.splitlines():  # doctests
            if ">>> from vosim." in line and ("Slot" in line.split("import")[-1]):
                module = line.split("from ")[1].split(" import")[0]
                if module not in home:
                    wrong.append(f"{path.name}: {line.strip()}")
    assert wrong == []


def test_the_model_makes_its_users_and_owners_with_mesas_create_agents():
    from pathlib import Path

    import vosim

    text = (Path(vosim.__file__).parent / "model.py").read_text()
    assert "UserAgent.create_agents(" in text and "ResourceOwnerAgent.create_agents(" in text
    assert "UserAgent(\n" not in text and "ResourceOwnerAgent(self" not in text


def test_no_new_import_of_vosim_hides_in_a_function_body_in_the_core():
    """The core (allocators, policies, market, core, agents, model) imports vosim at the top."""
    import ast
    from pathlib import Path

    import vosim

    root = Path(vosim.__file__).parent
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] not in ("allocators", "policies", "market", "core", "agents") and (
            str(rel) != "model.py"
        ):
            continue
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vosim"):
                        found.setdefault(str(rel), set()).add(node.module)
                    elif isinstance(node, ast.Import) and node.names[0].name.startswith("vosim"):
                        found.setdefault(str(rel), set()).add(node.names[0].name)
    assert found == {}


def test_every_allocator_and_policy_result_is_the_one_result_type():
    """A class of the core, the allocators or the policies with a status and a message is a
    ``Result``."""
    import ast
    from pathlib import Path

    import vosim

    root = Path(vosim.__file__).parent
    results, others = set(), set()
    for path in sorted(
        path
        for part in ("core", "allocators", "policies")
        for path in root.joinpath(part).glob("*.py")
    ):
        for cls in ast.walk(ast.parse(path.read_text())):
            if not isinstance(cls, ast.ClassDef) or cls.name == "Result":
                continue
            names = set()
            for item in cls.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
                elif isinstance(item, ast.FunctionDef):
                    names.add(item.name)
            if {"status", "message"} <= names:
                bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
                (results if "Result" in bases else others).add(cls.name)
    assert others == set()
    assert {
        "Allocation",
        "Alternatives",
        "MCKPResult",
        "AvailabilityResult",
        "Decisions",
    } <= results


def test_every_module_has_its_test_file():
    """Each module has tests/<its dirs>/test_<name>.py (test_<dir>_<name>.py when two share it).

    Test file names are unique over tests/ (pytest imports them by name).
    """
    from collections import Counter
    from pathlib import Path

    import vosim

    root = Path(vosim.__file__).parent
    tests = root.parent / "tests"
    modules = [p.relative_to(root) for p in root.rglob("*.py") if p.name != "__init__.py"]
    shared = Counter(p.stem for p in modules)
    missing = []
    for module in modules:
        dirs, name = module.parts[:-1], module.stem
        mirrors = [tests.joinpath(*dirs, f"test_{name}.py")]
        if shared[name] > 1 and dirs:
            mirrors.append(tests.joinpath(*dirs, f"test_{dirs[-1]}_{name}.py"))
        if not any(m.exists() for m in mirrors):
            missing.append(str(module))
    assert missing == []
    names = Counter(p.name for p in tests.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
