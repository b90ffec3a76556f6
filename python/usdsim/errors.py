"""The exceptions usdsim raises, one per exit class of the ``usdsim`` command.

Each carries what the CLI's ``--json`` report gives for the failure: a stable ``code``
(``DB011``, ``unreadable``, ``diverged``, ``output_not_writable``...), the ``file``, the
``prim`` path and the ``attribute`` where they are known, the CLI's ``exit_code``, and the
``files`` the run wrote before it stopped.
"""

from __future__ import annotations

from typing import Optional, Sequence


class UsdsimError(Exception):
    """Base class of every usdsim failure."""

    #: The ``usdsim`` command's exit status for this class of failure.
    exit_code: int = 1

    def __init__(
        self,
        message: str,
        *,
        code: str = "error",
        file: Optional[str] = None,
        prim: Optional[str] = None,
        attribute: Optional[str] = None,
        exit_code: Optional[int] = None,
        files: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.file = file
        self.prim = prim
        self.attribute = attribute
        if exit_code is not None:
            self.exit_code = exit_code
        self.files = list(files)


class InputError(UsdsimError):
    """The input cannot be read or is not valid (exit status 1)."""

    exit_code = 1


class UsageError(UsdsimError):
    """A setting or argument is wrong: an unknown setting, a value out of range (exit status 2)."""

    exit_code = 2


class DivergedError(UsdsimError):
    """The simulation diverged; the frames before it were written (exit status 3)."""

    exit_code = 3


class OutputError(UsdsimError):
    """The output cannot be written (exit status 4)."""

    exit_code = 4
