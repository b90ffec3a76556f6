"""Type hints for ``usdsim._usdsim``, the compiled half of the package (crates/usdsim-py)."""

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

def bake(
    input: str,
    output: Optional[str] = None,
    frames: Optional[int] = None,
    *,
    substeps: Optional[int] = None,
    self_contact: Optional[bool] = None,
    chunk: Optional[int] = None,
    resume: bool = False,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    **overrides: Any,
) -> Dict[str, Any]: ...
def validate(paths: Sequence[str]) -> List[Dict[str, Any]]: ...
def rules() -> List[Dict[str, str]]: ...
def inspect(path: str) -> Dict[str, Any]: ...

class Simulation:
    """A stage stepped in process, one frame per step; see docs/python.md."""

    def __init__(
        self,
        input: Any,
        *,
        substeps: Optional[int] = None,
        self_contact: Optional[bool] = None,
        threads: Optional[int] = None,
        **overrides: Any,
    ) -> None: ...
    def step(self, n: int = 1) -> None: ...
    @property
    def frame(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def time_code(self) -> float: ...
    @property
    def bodies(self) -> List[str]: ...
    @property
    def warnings(self) -> List[Dict[str, Any]]: ...
    def points(self, path: str) -> npt.NDArray[np.float32]: ...
    def velocities(self, path: str) -> npt.NDArray[np.float32]: ...
    def set_kinematic_target(self, path: str, points: npt.ArrayLike) -> None: ...
    def save(self, output: Any) -> None: ...
