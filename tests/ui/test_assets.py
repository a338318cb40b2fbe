"""Solara's CDN assets on disk (vosim.ui.assets), against a fake npm registry (no network)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile

import pytest

from vosim.ui import assets
from vosim.ui.assets import AssetError, install_assets, resolve_version, split_spec


def tarball(files: dict[str, str]) -> bytes:
    """A gzipped npm package tarball: every file under ``package/``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def sha512(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@pytest.fixture
def registry(monkeypatch):
    """A registry of ``vega`` (5.2.0, 5.30.0, 6.0.0-rc.1); the URLs asked are recorded."""
    data = tarball({"build/vega.js": "// vega 5.30.0", "package.json": "{}"})
    url = "https://fake/vega/-/vega-5.30.0.tgz"
    dist = {"tarball": url, "integrity": sha512(data)}
    meta = {
        "versions": {"5.2.0": {}, "5.30.0": {"dist": dist}, "6.0.0-rc.1": {}},
        "dist-tags": {"latest": "5.30.0"},
    }
    pages = {"https://fake/vega": json.dumps(meta).encode(), url: data}
    asked = []

    def get(address, accept=None):
        asked.append(address)
        if address not in pages:
            raise AssetError(f"GET {address} failed: HTTP 404 Not Found")
        return pages[address]

    monkeypatch.setattr(assets, "_get", get)
    return asked, pages, url


def test_specs_and_versions():
    assert split_spec("@scope/pkg@1.2.3") == ("@scope/pkg", "1.2.3")
    with pytest.raises(AssetError, match="'vega' must be name@version"):
        split_spec("vega")
    versions = ["4.9.0", "5.2.0", "5.10.1", "5.9.9", "5.10.0-rc.1", "6.0.0"]
    assert resolve_version("5", versions, {}) == "5.10.1"  # numeric, not text, order
    assert resolve_version("5.9", versions, {}) == "5.9.9"
    assert resolve_version("5.10.0-rc.1", versions, {}) == "5.10.0-rc.1"
    assert resolve_version("next", versions, {"next": "6.0.0"}) == "6.0.0"
    with pytest.raises(AssetError, match="no release matches '7'"):
        resolve_version("7", versions, {})
    with pytest.raises(AssetError, match="'beta' is not published"):
        resolve_version("beta", versions, {})


def test_install_resolves_verifies_unpacks_and_then_skips(registry, tmp_path):
    asked, _, url = registry
    lines = []
    [target] = install_assets(tmp_path, ["vega@5"], registry="https://fake", log=lines.append)
    assert target == tmp_path / "vega@5"
    assert (target / "build" / "vega.js").read_text() == "// vega 5.30.0"  # package/ stripped
    assert (target / ".vosim-asset").read_text() == "vega@5 5.30.0\n"
    assert asked == ["https://fake/vega", url]
    assert lines[0].startswith("installed vega@5 (5.30.0, ")
    assert install_assets(tmp_path, ["vega@5"], registry="https://fake", log=lines.append) == [
        target
    ]
    assert lines[1] == "present   vega@5" and len(asked) == 2  # nothing fetched again
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vega@5"]  # no staging left


def test_a_tarball_that_does_not_match_its_integrity_is_refused(registry, tmp_path):
    _, pages, url = registry
    pages[url] = tarball({"build/vega.js": "// tampered"})
    with pytest.raises(AssetError, match="vega@5: sha512 of the downloaded tarball"):
        install_assets(tmp_path, ["vega@5"], registry="https://fake", log=lambda line: None)
    assert not (tmp_path / "vega@5").exists()


def test_main_prints_one_error_line_and_returns_1(registry, tmp_path, capsys):
    assert assets.main(["--dest", str(tmp_path), "--registry", "https://fake/"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vosim.ui.assets: error: GET https://fake/") and err.count("\n") == 1


def test_cdn_dir_is_under_the_prefix(tmp_path):
    assert assets.cdn_dir(tmp_path) == tmp_path / "share" / "solara" / "cdn"
