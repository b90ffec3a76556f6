"""Shared fixtures: the repository's test scenes and the ``usdsim`` command to compare with.

``tests/python.rs`` runs these tests with ``USDSIM_BIN`` set to the command it built;
run by hand, the first ``usdsim`` on ``PATH`` is used.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata"


@pytest.fixture(scope="session")
def cli() -> str:
    """The path of the ``usdsim`` command."""
    found = os.environ.get("USDSIM_BIN") or shutil.which("usdsim")
    if not found:
        pytest.fail("no usdsim command: set USDSIM_BIN or put usdsim on PATH")
    return found


def run_cli(cli: str, *args: str) -> subprocess.CompletedProcess:
    """Runs the ``usdsim`` command, capturing its output."""
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, check=False)


