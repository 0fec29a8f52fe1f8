# Type stub of the C++ extension braid._braid (python/src/). Keep in step
# with the bindings: tests/python/test_stub.py checks every name and parameter.
import os
from typing import Any, Dict, List, Optional, Tuple, Union

__version__: str

class PresetError(Exception):
    """A preset, model or topology file is missing or malformed, or holds no
    preset for what was asked. str(e) is the loader's one-line message."""

class LookupResult:
    """The preset a runtime would use for one GEMM (PresetTable.lookup)."""

    @property
    def match(self) -> str:
        """"exact" or "nearest" (closest shape in ln(M, N, K))."""
    @property
    def distance(self) -> float:
        """Distance in (ln M, ln N, ln K) to the entry used; 0.0 when exact."""
    @property
    def config(self) -> Dict[str, Union[str, int, List[int]]]:
        """algorithm, chunks, splits, streams, comm_sms, comm_engine, comm_priority (comm_dtype, sm_margin and
        wgrad_comm_sms where set)."""
    @property
    def time_ns(self) -> float:
        """The entry's measured time (simulated when backend is "sim")."""
    @property
    def key(self) -> Dict[str, Union[str, int]]:
        """gpu, topology, op, m, n, k, dtype, tp and, when set, layer."""
    @property
    def backend(self) -> str:
        """"sim", "cpu" or "cuda"."""
    @property
    def speedup_vs_serial(self) -> float:
        """Speed-up over the collective and the GEMM one after the other."""

class PresetTable:
    """A loaded preset file. Immutable; lookups may run from many threads."""

    @staticmethod
    def load(path: Union[str, bytes, "os.PathLike[str]"]) -> PresetTable:
        """Loads a preset file; PresetError with the loader's message when it
        is missing or malformed."""
    @staticmethod
    def parse(text: str, origin: str = "<string>") -> PresetTable:
        """Parses preset-file text; `origin` names it in error messages."""
    def lookup(
        self,
        *,
        op: str,
        m: int,
        n: int,
        k: int,
        tp: int,
        dtype: str = "bf16",
        gpu: Optional[str] = None,
        topology: Optional[str] = None,
        pass_: str = "fprop",
    ) -> Optional[LookupResult]:
        """The exact entry or the nearest shape for one TP GEMM of one pass
        ("fprop", "dgrad", "wgrad"); None when nothing matches. gpu /
        topology left out: the table's only one. ValueError for an unknown
        op, dtype or pass or a size below 1."""
    def lookup_dp(
        self,
        *,
        model: str,
        tokens: int,
        tp: int,
        dp: int,
        zero: str = "none",
        dtype: str = "bf16",
        gpu: Optional[str] = None,
        topology: Optional[str] = None,
    ) -> Optional[Dict[str, Any]]:
        """The data-parallel preset (braid tune --dp) of exactly this key, as
        a dict (schedule, bucket_params, prefetch, comm_sms, step_ns,
        speedup_vs_megatron, backend; decomposed_layers, decomposition,
        decomposition_chunks when decomposed), or None. ValueError for a bad
        zero, dtype or size."""
    def __len__(self) -> int: ...

def _te_ub_cfgs(
    presets: Union[str, bytes, "os.PathLike[str]", PresetTable],
    *,
    model: str,
    seq: int,
    batch: int,
    topology: str,
    tp: Optional[int] = None,
    gpu: Optional[str] = None,
    dtype: str = "bf16",
    phase: str = "prefill",
    nearest: bool = False,
) -> Tuple[Dict[str, Dict[str, Union[int, str]]], List[str]]: ...
def _lookup_released_gil() -> bool: ...
