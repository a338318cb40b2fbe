"""Put solara's CDN assets on disk so ``vosim ui`` renders with no public CDN.

Solara's page loads its JavaScript and CSS (the Vuetify app, requirejs, Font Awesome, and
for charts vega, vega-lite and vega-embed) from ``/_solara/cdn/<package>@<version>/...``,
which the server answers from ``<sys.prefix>/share/solara/cdn/`` and otherwise fetches from
a public CDN. This module fills that directory from the npm registry, one unpacked tarball
per package, so the UI works on a machine that reaches only package registries.

Run ``python -m vosim.ui.assets`` once after ``pip install "vosim[ui]"``; it is idempotent.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

__all__ = ["ASSETS", "AssetError", "cdn_dir", "install_assets", "main", "resolve_version"]

#: Package specs as solara 1.64.1 names them in its asset URLs (``<name>@<spec>``): exact
#: versions, or a major version (``vega@5``) whose directory keeps that name.
ASSETS: tuple[str, ...] = (
    "@widgetti/solara-vuetify-app@10.1.1",
    "@widgetti/vue-grid-layout@2.3.13-alpha.2",
    "requirejs@2.3.6",
    "font-awesome@4.5.0",
    "vega@5",
    "vega-lite@5",
    "vega-embed@6",
    "katex@0.16.9",
    "mermaid@10.8.0",
)

REGISTRY = "https://registry.npmjs.org"
_TIMEOUT = 60.0
_MARKER = ".vosim-asset"  # written last: a directory without it is incomplete


class AssetError(RuntimeError):
    """An asset could not be resolved, downloaded, verified or unpacked."""


def cdn_dir(prefix: str | os.PathLike[str] | None = None) -> Path:
    """Directory solara serves its CDN assets from: ``<prefix>/share/solara/cdn``.

    Parameters
    ----------
    prefix : path, optional
        Environment prefix; default ``sys.prefix`` (the venv solara runs in), as solara's
        ``settings.assets.proxy_cache_dir``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> cdn_dir("/opt/env").as_posix()
    '/opt/env/share/solara/cdn'
    """
    return Path(prefix if prefix is not None else sys.prefix) / "share" / "solara" / "cdn"


def split_spec(spec: str) -> tuple[str, str]:
    """Split ``"name@range"`` (the name may be scoped, ``@scope/name``) into its two parts.

    Examples
    --------
    >>> split_spec("@widgetti/vue-grid-layout@2.3.13-alpha.2")
    ('@widgetti/vue-grid-layout', '2.3.13-alpha.2')
    >>> split_spec("vega@5")
    ('vega', '5')
    """
    at = spec.rfind("@")
    if at <= 0:
        raise AssetError(f"asset spec {spec!r} must be name@version")
    return spec[:at], spec[at + 1 :]


def _version_key(version: str) -> tuple[int, ...] | None:
    """Numeric key of a release ``X.Y.Z``; ``None`` for pre-releases or odd strings."""
    parts = version.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


def resolve_version(spec: str, versions: Sequence[str], dist_tags: dict[str, str]) -> str:
    """Resolve a version spec against a package's published versions.

    Parameters
    ----------
    spec : str
        An exact version (``"2.3.13-alpha.2"``), a dist-tag (``"latest"``), or a prefix of
        a release (``"5"`` or ``"5.2"``: the highest release ``5.*.*`` / ``5.2.*``, as npm
        resolves ``vega@5``).
    versions : sequence of str
        The package's published versions (registry metadata ``versions`` keys).
    dist_tags : dict
        Registry metadata ``dist-tags``.

    Returns
    -------
    str
        The exact version.

    Raises
    ------
    AssetError
        Nothing published matches.

    Examples
    --------
    >>> resolve_version("5", ["4.9.0", "5.2.0", "5.30.0", "6.0.0-rc.1"], {})
    '5.30.0'
    >>> resolve_version("latest", ["1.0.0"], {"latest": "1.0.0"})
    '1.0.0'
    """
    if spec in versions:
        return spec
    if spec in dist_tags:
        return dist_tags[spec]
    parts = spec.split(".")
    if not (len(parts) <= 3 and all(p.isdigit() for p in parts)):
        raise AssetError(f"version {spec!r} is not published (nor a dist-tag or a major range)")
    prefix = tuple(int(p) for p in parts)
    keyed = [(k, v) for v in versions if (k := _version_key(v)) and k[: len(prefix)] == prefix]
    if not keyed:
        raise AssetError(f"no release matches {spec!r}")
    return max(keyed)[1]


def _get(url: str, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise AssetError(f"GET {url} failed: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise AssetError(f"GET {url} failed: {getattr(exc, 'reason', exc)}") from None


def _manifest(name: str, spec: str, registry: str) -> dict:
    """The registry's manifest (``dist.tarball``, ``dist.integrity``) of ``name@spec``."""
    if _version_key(spec) is None and "-" not in spec:  # a range or a tag: resolve it first
        meta = json.loads(_get(f"{registry}/{name}", "application/vnd.npm.install-v1+json"))
        spec = resolve_version(spec, list(meta.get("versions", {})), meta.get("dist-tags", {}))
        return {"version": spec, **meta["versions"][spec]}
    return json.loads(_get(f"{registry}/{name}/{spec}"))


def _check_integrity(data: bytes, manifest: dict, label: str) -> None:
    dist = manifest.get("dist", {})
    integrity = dist.get("integrity", "")
    if integrity.startswith("sha512-"):
        digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
        if digest != integrity.removeprefix("sha512-"):
            raise AssetError(f"{label}: sha512 of the downloaded tarball does not match")
    elif "shasum" in dist and hashlib.sha1(data).hexdigest() != dist["shasum"]:
        raise AssetError(f"{label}: sha1 of the downloaded tarball does not match")


def _download(spec: str, registry: str) -> tuple[bytes, str]:
    """The tarball of ``spec`` and its exact version, from the registry over HTTPS."""
    name, version = split_spec(spec)
    manifest = _manifest(name, version, registry)
    url = manifest.get("dist", {}).get("tarball")
    if not url:
        raise AssetError(f"{spec}: the registry's manifest names no tarball")
    data = _get(url)
    _check_integrity(data, manifest, spec)
    return data, manifest["version"]


def _npm_pack(spec: str) -> tuple[bytes, str]:
    """The tarball of ``spec`` through ``npm pack`` (npm resolves ranges itself)."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            out = subprocess.run(
                ["npm", "pack", spec, "--json", "--pack-destination", tmp],
                capture_output=True,
                text=True,
                check=True,
                timeout=600,
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            detail = getattr(exc, "stderr", "") or exc
            raise AssetError(f"npm pack {spec} failed: {str(detail).strip()[-500:]}") from None
        info = json.loads(out.stdout)[0]
        return (Path(tmp) / info["filename"]).read_bytes(), info["version"]


def _unpack(data: bytes, target: Path, label: str) -> None:
    """Unpack a package tarball into ``target`` (its top directory stripped), atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            members = []
            for member in tar.getmembers():
                parts = member.name.split("/", 1)
                if len(parts) < 2 or not parts[1]:
                    continue
                member.name = parts[1]  # --strip-components=1 ("package/...")
                members.append(member)
            tar.extractall(staging, members=members, filter="data")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    except (tarfile.TarError, OSError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise AssetError(f"{label}: cannot unpack into {target}: {exc}") from None


def install_assets(
    dest: Path | None = None,
    specs: Sequence[str] = ASSETS,
    *,
    use_npm: bool | None = None,
    registry: str = REGISTRY,
    log=print,
) -> list[Path]:
    """Download and unpack each asset package unless it is already there.

    Parameters
    ----------
    dest : Path, optional
        The CDN directory; default :func:`cdn_dir` of this environment.
    specs : sequence of str
        Packages as ``name@version-or-range`` (default :data:`ASSETS`); each goes to
        ``dest/<name>@<spec>/`` with the tarball's top directory stripped.
    use_npm : bool, optional
        ``True``: use ``npm pack``; ``False``: HTTPS with urllib; ``None`` (default): urllib,
        the registry's sha512 integrity checked.
    registry : str
        npm registry base URL.
    log : callable
        Receives one progress line per package.

    Returns
    -------
    list of Path
        The package directories (present or installed).

    Raises
    ------
    AssetError
        A package could not be resolved, downloaded, verified or unpacked (the message names
        it and the URL or command).
    """
    dest = cdn_dir() if dest is None else Path(dest)
    out = []
    for spec in specs:
        target = dest / spec
        if (target / _MARKER).is_file():
            log(f"present   {spec}")
            out.append(target)
            continue
        data, version = _npm_pack(spec) if use_npm else _download(spec, registry)
        _unpack(data, target, spec)
        (target / _MARKER).write_text(f"{spec} {version}\n")
        log(f"installed {spec} ({version}, {len(data) / 1e6:.1f} MB)")
        out.append(target)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m vosim.ui.assets [--dest DIR] [--npm]``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m vosim.ui.assets",
        description=(
            "Put solara's CDN assets (Vuetify app, requirejs, vega, vega-lite, vega-embed, ...) "
            "on disk under <sys.prefix>/share/solara/cdn so `vosim ui` renders offline. "
            "Packages already present are skipped."
        ),
    )
    parser.add_argument(
        "--dest", type=Path, default=None, help=f"CDN directory (default {cdn_dir()})"
    )
    parser.add_argument(
        "--npm", action="store_true", help="download with `npm pack` instead of urllib"
    )
    parser.add_argument("--registry", default=REGISTRY, help=f"npm registry (default {REGISTRY})")
    args = parser.parse_args(argv)
    try:
        install_assets(args.dest, use_npm=args.npm, registry=args.registry.rstrip("/"))
    except AssetError as exc:
        print(f"vosim.ui.assets: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
