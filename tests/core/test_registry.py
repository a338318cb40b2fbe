"""The one registry: every named part of vosim, by kind, in one place."""

import ast
from pathlib import Path

import pytest

import vosim
from vosim.core import registry


def test_register_refuses_a_taken_name_and_an_unknown_kind():
    import vosim.allocators  # noqa: F401 - registers the criteria

    registry.register("policy", "test-only", (object, ()))
    try:
        with pytest.raises(ValueError, match="policy 'test-only' is already registered"):
            registry.register("policy", "test-only", (object, ()))
        assert registry.entry("policy", "test-only") == (object, ())
        assert "test-only" in registry.names("policy")
    finally:
        registry._ENTRIES["policy"].pop("test-only")
    with pytest.raises(KeyError, match="no kind 'policies'"):
        registry.register("policies", "x", None)
    with pytest.raises(KeyError, match=r"no criterion named 'nope'; registered: .*amp"):
        registry.entry("criterion", "nope")


def test_every_listing_is_a_view_of_the_one_registry():
    import vosim.allocators  # noqa: F401 - registers the criteria, methods and chains
    from vosim.allocators import availability_problem, base, mckp
    from vosim.policies import base as policies
    from vosim.runs.experiments import base as experiments

    assert base.criteria() == registry.names("criterion") != []
    assert availability_problem.methods() == registry.names("availability method") != []
    assert list(mckp.METHODS) == ["auto", *registry.names("mckp method")]
    assert registry.names("fallback chain") == ["availability method", "criterion", "mckp method"]
    assert policies.policies() == registry.names("policy") != []
    assert list(experiments.experiments()) == registry.names("experiment") != []


#: Module-level dictionaries that start empty and are not registries, with why.
NOT_REGISTRIES = {"runs/batch.py": {"_DIGESTS"}}  # a cache of files' digests


def test_no_other_module_keeps_a_registry_of_its_own():
    """A registry is a module-level dict filled as modules import: only core/registry.py."""
    root = Path(vosim.__file__).parent
    found = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            target = value = None
            if isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            if isinstance(target, ast.Name) and isinstance(value, ast.Dict) and not value.keys:
                found.setdefault(str(path.relative_to(root)), set()).add(target.id)
    assert found == NOT_REGISTRIES
