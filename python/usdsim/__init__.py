"""usdsim from Python: bake, validate, inspect and step OmniPhysics deformable-body stages.

The module wraps usdsim's Rust libraries in process (no subprocess, no parsing of
stdout); the work runs with the GIL released. Its interface to Pixar's ``pxr`` is a
file path, or a layer's text (``Sdf.Layer.ExportToString()``) through
:func:`layer_path`. ``docs/python.md`` documents it with examples.

>>> import usdsim
>>> report = usdsim.bake("cloth_on_sphere.usda", frames=48)      # doctest: +SKIP
>>> sim = usdsim.Simulation("cloth_on_sphere.usda")               # doctest: +SKIP
>>> sim.step(24); sim.points("/World/Cloth").shape                # doctest: +SKIP
(4225, 3)
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from . import _usdsim
from .errors import DivergedError, InputError, OutputError, UsageError, UsdsimError

__all__ = [
    "BakeReport",
    "DivergedError",
    "Finding",
    "InputError",
    "OutputError",
    "Simulation",
    "UsageError",
    "UsdsimError",
    "bake",
    "inspect",
    "layer_path",
    "rules",
    "validate",
]

#: A path as ``str`` or ``os.PathLike``.
PathLike = Union[str, "os.PathLike[str]"]

Simulation = _usdsim.Simulation


@dataclass(frozen=True)
class BakeReport:
    """What a finished bake reports: the fields of ``usdsim --json``, and all of it in ``json``."""

    #: The output layer written.
    output: str
    #: Every file written, clips first, the output layer last.
    files: List[str]
    #: Frames simulated.
    frames: int
    #: Mean wall-clock milliseconds per simulated frame.
    ms_per_frame: float
    #: Each warning as a dict with ``code``, ``prim``, ``attribute`` and ``message``.
    warnings: List[Dict[str, Any]]
    #: The whole report, as ``usdsim --json`` prints it (plus ``frame_ms`` percentiles).
    json: Dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Finding:
    """One finding of :func:`validate`, as ``usdsim validate --json`` gives it."""

    #: The rule's stable code, e.g. ``DB304``.
    code: str
    #: ``"error"`` or ``"warning"``.
    severity: str
    #: The layer the finding is about.
    file: str
    #: The prim path (``""`` for the stage as a whole).
    prim: str
    #: The attribute or relationship name, where one is at fault.
    attribute: Optional[str]
    #: What is wrong and, where there is one, how to fix it.
    message: str
    #: Whether this finding fails validation: an error, or any finding under ``strict``.
    fails: bool


def bake(
    input: PathLike,
    output: Optional[PathLike] = None,
    frames: Optional[int] = None,
    *,
    substeps: Optional[int] = None,
    self_contact: Optional[bool] = None,
    chunk: Optional[int] = None,
    resume: bool = False,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    **overrides: Any,
) -> BakeReport:
    """Simulates ``input`` and writes the bake, exactly as ``usdsim run`` does.

    The defaults are the command's: ``output`` is ``<stem>.sim.usda`` beside the input,
    ``frames`` the stage's range (else 240), substeps and iterations by body kind.
    ``self_contact`` ``True``/``False`` is ``--self-contact``/``--no-self-contact``;
    ``None`` lets the asset decide. Every other option of ``usdsim run`` is a keyword
    with its long name in snake case: ``iterations=3``, ``time_scheme="euler"``,
    ``tear_ratio=1.8``, ``set=["/World/Mat.omniphysics:youngsModulus=2e6"]``.

    ``progress(frame, frames)`` is called after each frame. Ctrl-C (or an exception
    from ``progress``) stops the bake after the current frame, writes what it finished
    as a playable output, and raises ``KeyboardInterrupt`` (or that exception).

    Raises :class:`InputError`, :class:`UsageError`, :class:`DivergedError` or
    :class:`OutputError`, each naming file, prim and attribute where known.
    """
    report = _usdsim.bake(
        os.fspath(input),
        None if output is None else os.fspath(output),
        frames,
        substeps=substeps,
        self_contact=self_contact,
        chunk=chunk,
        resume=resume,
        threads=threads,
        progress=progress,
        **overrides,
    )
    return BakeReport(
        output=report["output"],
        files=list(report["files"]),
        frames=report["frames"],
        ms_per_frame=report["ms_per_frame"],
        warnings=list(report["warnings"]),
        json=report,
    )


def validate(paths: Union[PathLike, Iterable[PathLike]], strict: bool = False) -> List[Finding]:
    """Checks each stage in ``paths`` against usdsim's rules, as ``usdsim validate`` does.

    Returns every finding, errors and warnings, in the order the CLI prints them. A
    finding ``fails`` when it is an error, or under ``strict`` when it is any finding.
    A file that cannot be read raises :class:`InputError` (``exit_code`` 2, as the CLI).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    found = _usdsim.validate([os.fspath(p) for p in paths])
    return [Finding(fails=strict or f["severity"] == "error", **f) for f in found]


def inspect(path: PathLike) -> Dict[str, Any]:
    """What the importer understood of ``path``: ``usdsim inspect --json`` as a dict."""
    return _usdsim.inspect(os.fspath(path))


def rules() -> List[Dict[str, str]]:
    """The rule catalogue: each rule's ``code``, ``severity`` and ``statement``."""
    return _usdsim.rules()


def layer_path(text: str, directory: Optional[PathLike] = None, suffix: str = ".usda") -> str:
    """Writes a layer's text (``Sdf.Layer.ExportToString()``) to a new file and returns its path.

    ``directory`` should be the original layer's folder when the text refers to other
    files by relative paths (sublayers, references, clips); by default a new temporary
    folder. The caller owns the file.
    """
    folder = os.fspath(directory) if directory is not None else tempfile.mkdtemp(prefix="usdsim-")
    handle, path = tempfile.mkstemp(suffix=suffix, prefix=".usdsim-layer-", dir=folder)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    return path


def _register_validators() -> None:
    """Registers usdsim's rules with Pixar's ``UsdValidation`` where ``pxr`` has it."""
    try:
        from pxr import UsdValidation  # noqa: F401
    except ImportError:
        return
    from . import validation

    try:
        validation._register()
    except Exception as err:  # a registry in a state we cannot add to: say so, do not fail the import
        import warnings

        warnings.warn(f"usdsim: its validators could not be registered with UsdValidation: {err}", stacklevel=2)


_register_validators()
