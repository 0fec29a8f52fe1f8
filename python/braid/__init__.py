"""Braid's overlap presets from Python.

Load a preset file written by ``braid tune`` and ask which overlap config to
use for a tensor-parallel GEMM, or turn a preset file into the ``ub_cfgs``
dict that TransformerEngine's ``initialize_ub`` takes::

    import braid
    table = braid.PresetTable.load("presets/tuned/h100-sxm.toml")
    r = table.lookup(op="gemm_rs", m=8192, n=8192, k=28672, tp=8)
    print(r.match, r.config)

    cfgs = braid.te_ub_cfgs("presets/tuned/te/h100-sxm.toml", model="llama3-70b",
                            seq=8192, batch=1, tp=8, topology="h100-sxm")
    te.initialize_ub(shape, tp_size, ub_cfgs=cfgs.ub_cfgs)

Errors from the files raise :class:`PresetError`; bad argument values raise
``ValueError`` and wrong types ``TypeError``.

Where the module was built with the whole Braid tree, :func:`run` runs one
config on the simulator through the same run pipeline as ``braid run``.
"""

import json
import os
from typing import Dict, List, NamedTuple, Optional, Union

from ._braid import LookupResult, PresetError, PresetTable, __version__
from ._braid import _te_ub_cfgs

__all__ = ["LookupResult", "PresetError", "PresetTable", "TeUbCfgs", "run", "te_ub_cfgs", "__version__"]


class TeUbCfgs(NamedTuple):
    """What :func:`te_ub_cfgs` returns.

    ``ub_cfgs``: ``{"qkv_fprop": {"method": "ring_exchange", "num_splits": 8,
    "num_sm": 1, "cga_size": 1, "set_sm_margin": 0, "atomic_gemm": 0,
    "use_ce": 1}, "proj_fprop": {...}, "fc1_fprop": {...}, "fc2_fprop": {...}}``,
    equal to ``yaml.safe_load`` of ``braid presets export-te``'s output. Phase
    ``"train"`` adds ``{qkv,proj,fc1,fc2}_{dgrad,wgrad}``, less a wgrad key TE
    refuses beside its dgrad (a notes line says why).

    ``notes``: one line per thing the dict cannot say, prefixed by its key: a
    nearest-shape match, a Braid knob TE cannot express, an approximation
    (``"fc2_fprop: not expressible: streams=2 (comm lanes; ...)"``), a key
    left out (``"qkv_wgrad: omitted: qkv_dgrad is ring_exchange, not bulk:
    ..."``).
    """

    ub_cfgs: Dict[str, Dict[str, Union[int, str]]]
    notes: List[str]


def te_ub_cfgs(
    presets: Union[str, "os.PathLike[str]", PresetTable],
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
) -> TeUbCfgs:
    """TransformerEngine ``ub_cfgs`` for one model's transformer block.

    The same settings as ``braid presets export-te FILE --model MODEL --seq
    SEQ --batch BATCH --topology TOPOLOGY [--tp TP] [--gpu GPU] [--dtype
    DTYPE] [--phase PHASE]``, computed by the same library code: every TP GEMM
    of the block (qkv, out_proj, fc1, fc2 with sequence parallelism) is looked
    up in the preset file (exact or nearest shape) and mapped to TE's options.

    presets: a preset file path or a loaded :class:`PresetTable`.
    model: a built-in model name (``"llama3-70b"``) or a model ``.toml`` file.
    topology: a built-in topology name (``"h100-sxm"``) or a ``.toml`` file.
    tp: the TP degree; left out, the file's only one for this gpu/topology.
    gpu: the GPU name of the presets; left out, the topology's GPU.
    phase: ``"prefill"`` (the four fprop keys) or ``"train"`` (also each
    layer's dgrad and wgrad, each looked up with its pass).

    nearest: each key runs exactly its preset's config, and a preset TE
    cannot express raises :class:`PresetError` naming it (tune with
    ``--runtime te``); with ``nearest=True`` TE's nearest setting is given
    instead and ``result.notes`` says what it lacks.

    Pass ``result.ub_cfgs`` to ``initialize_ub(..., ub_cfgs=...)`` and log
    ``result.notes``. Raises :class:`PresetError` for a missing or malformed
    file or a GEMM with no preset, ``ValueError`` for a bad size, dtype, phase
    or TP degree, ``TypeError`` for a wrong type.
    """
    ub_cfgs, notes = _te_ub_cfgs(
        presets, model=model, seq=seq, batch=batch, topology=topology, tp=tp, gpu=gpu, dtype=dtype, phase=phase,
        nearest=nearest,
    )
    return TeUbCfgs(ub_cfgs, notes)


def _path_bytes(path: Union[str, bytes, "os.PathLike[str]"]) -> bytes:
    """A path's bytes as the OS takes them (str, bytes or os.PathLike, as
    open() takes it); ValueError for an embedded NUL, which the C++ side
    would stop at, writing or reading another file ("x.db\\0junk" is x.db)."""
    raw = os.fsencode(path)
    if b"\0" in raw:
        raise ValueError("embedded null byte in the path")
    return raw


def run(
    *,
    op: str = "gemm_rs",
    m: int = 0,
    n: int = 0,
    k: int = 0,
    tp: int = 1,
    dtype: str = "bf16",
    model: Optional[str] = None,
    seq: int = 4096,
    batch: int = 1,
    phase: str = "prefill",
    algorithm: str = "serial",
    chunks: int = 1,
    streams: int = 1,
    comm_sms: int = 0,
    comm_engine: str = "sm",
    comm_priority: str = "high",
    comm_dtype: str = "auto",
    topology: str = "h100-sxm",
    iters: int = 5,
    warmup: int = 1,
    db: Optional[Union[str, bytes, "os.PathLike[str]"]] = None,
    sm_margin: bool = False,
    wgrad_comm_sms: int = 0,
    ub_cfgs: Optional[Union[str, bytes, "os.PathLike[str]"]] = None,
) -> Dict[str, object]:
    """Runs one overlap config on the sim backend and returns its record.

    The same library call as ``braid run --backend sim`` (the run pipeline:
    checks, plan, run, lower bound, record): the result is the dict of
    ``braid run --json`` (``"metrics"``, ``"lower_bound"``, ``"ranks"``,
    ...). An op workload (``op``, ``m``, ``n``, ``k``, ``tp``) or, with
    ``model``, one transformer block (``seq``, ``batch``, ``phase``, ``tp``).
    ``comm_dtype``: FP8 only, what communication moves (``"auto"``: all-gathers
    FP8, reduce-scatters bf16; ``"bf16"``; or the FP8 ``dtype``, ring only).
    ``db``: a SQLite store to record the run in (its ``"run"`` id is then
    set). ``sm_margin``: the GEMMs on the SMs their comm leaves (TE's
    set_sm_margin); ``wgrad_comm_sms``: a bulk pair's reduce-scatter budget.
    ``ub_cfgs``: a TransformerEngine ub_cfgs YAML (with ``model``): every
    GEMM of the block as TE runs the file, as ``braid run --ub-cfgs`` does
    (leave ``algorithm`` at its default); each GEMM's time and config are in
    ``result["workload"]["ops"]``. Bad input raises ``ValueError`` with the library's one-line message
    (field names, not flags); a failure while running ``RuntimeError``.
    """
    try:
        from ._pipeline import _run
    except ImportError as e:  # a `pip install .` build: the loader only
        raise RuntimeError(
            "braid.run needs the braid._pipeline extension, which is built with the whole Braid tree (CMake), "
            "not by pip install"
        ) from e
    text = _run(
        op=op, m=m, n=n, k=k, tp=tp, dtype=dtype, model=model, seq=seq, batch=batch, phase=phase,
        algorithm=algorithm, chunks=chunks, streams=streams, comm_sms=comm_sms, comm_engine=comm_engine,
        comm_priority=comm_priority, comm_dtype=comm_dtype, topology=topology, iters=iters, warmup=warmup,
        db=None if db is None else _path_bytes(db), sm_margin=sm_margin, wgrad_comm_sms=wgrad_comm_sms,
        ub_cfgs=None if ub_cfgs is None else _path_bytes(ub_cfgs),
    )
    return json.loads(text)
