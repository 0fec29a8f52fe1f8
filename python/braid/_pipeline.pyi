# braid._pipeline: built with the whole Braid tree only; braid.run wraps it.
from typing import Optional

def _run(
    *,
    op: str,
    m: int,
    n: int,
    k: int,
    tp: int,
    dtype: str,
    model: Optional[str],
    seq: int,
    batch: int,
    phase: str,
    algorithm: str,
    chunks: int,
    streams: int,
    comm_sms: int,
    comm_engine: str,
    comm_priority: str,
    comm_dtype: str,
    topology: str,
    iters: int,
    warmup: int,
    db: Optional[bytes],
    sm_margin: bool = ...,
    wgrad_comm_sms: int = ...,
    ub_cfgs: Optional[bytes] = ...
) -> str: ...
