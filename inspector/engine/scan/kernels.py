"""Loading the compiled kernels: numba's cache directory, compiling (or loading) once, the pure-Python switch.

The kernels' source is :mod:`inspector.engine.scan.kernel_source`; the modules that use a kernel (walk,
batch, verify_kernels) ask :func:`compiled` for the compiled namespace and take their ``struct``/numpy path when
it is None: numba is not importable, ``RMQ_INSPECT_NO_NUMBA`` is set, or the caller is inside
:func:`python_only` (tests compare both paths). Kernels are compiled with ``numba.njit(cache=True,
nogil=True)``; they call the C CRC of :func:`inspector.engine.model.crc.crc_library` and libc ``memchr`` and ``memcpy``
directly, without the GIL, so several threads can check different segments at once.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import os
import sys
import threading
from pathlib import Path

from inspector.engine.model.crc import crc_library
from inspector.engine.scan import kernel_source


def _set_cache_dir() -> None:
    """numba caches next to the kernel source; when that is not writable (a system install), in the user cache."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    here = Path(__file__).resolve().parent
    pycache = here / "__pycache__"
    if os.access(pycache if pycache.is_dir() else here, os.W_OK):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    os.environ["NUMBA_CACHE_DIR"] = str(base / "rmq-inspect" / "numba")


_lock = threading.Lock()
_kernels = None  # the compiled kernels, once loaded; False when numba is unavailable
_force_python = False
_small_job = contextvars.ContextVar("rmq_inspect_small_job", default=False)  # see small_job()


def _load():
    """Compile (or load from numba's cache) the kernels; None when numba is not importable or is disabled."""
    global _kernels
    if _kernels is None:
        with _lock:
            if _kernels is None:
                _kernels = False
                if not os.environ.get("RMQ_INSPECT_NO_NUMBA"):
                    _set_cache_dir()
                    with _numba_objects_kept():
                        try:
                            import numba  # noqa: F401
                        except ImportError:
                            pass
                        else:
                            _kernels = _compile()
    return _kernels or None


@contextlib.contextmanager
def _numba_objects_kept():
    """No cycle collection while numba starts (its import makes ~70,000 objects the collector tracks, which live
    as long as the process), then those objects frozen (``gc.freeze``): no later full collection walks them, nor
    the one at the interpreter's exit (measured whole-process: ``import numba`` alone 0.84 -> 0.70 s of CPU with
    the freeze). Nothing is compiled in here (the kernels compile or load from the cache at their first call), so
    no compiler garbage is kept."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _import_arraymath_without_scipy() -> None:
    """numba's ``np.arraymath`` imports scipy.linalg (0.15-0.2 s, a fifth of a whole ``verify``) only to know
    whether its ``np.dot`` & co. have BLAS. The kernels use no linear algebra: when nobody has imported scipy
    yet, load arraymath with scipy.linalg hidden (numba then says "scipy is required" only to code using np.dot;
    numba's own start-up imports the top-level scipy package, which is cheap)."""
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # importing it now raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    except ImportError:
        pass  # numba imports it again, scipy visible, when it registers its implementations
    finally:
        if "scipy.linalg" in sys.modules and sys.modules["scipy.linalg"] is None:
            del sys.modules["scipy.linalg"]


def numba_enabled() -> bool:
    """True when the compiled kernels are in use (numba importable, not disabled, not inside a small job)."""
    return not _force_python and not _small_job.get() and _load() is not None


@contextlib.contextmanager
def python_only():
    """Use the pure-Python/numpy path inside the block (tests compare both paths)."""
    global _force_python
    before = _force_python
    _force_python = True
    try:
        yield
    finally:
        _force_python = before


def compiled():
    """The compiled kernels (a namespace), or None: take the Python path."""
    return None if _force_python or _small_job.get() else _load()


# Loading the kernels costs ~0.3-0.4 s with numba's cache warm (importing numba, LLVM start-up, reading the cache)
# and ~8 s with it empty (compiling them: the first command after an install); the Python path costs about 0.1 s
# of CPU per MiB of commitlog more than the kernels (verify of a generated store, whole process: 1 MiB 0.89 s
# Python / 1.16 s kernels, 4 MiB 1.37 / 1.26 s). So below 4 MiB a job does not load them; once loaded, everything
# uses them.
LAZY_BYTES = 4 << 20


def compiled_for(nbytes: int):
    """:func:`compiled` for a job reading ``nbytes``: None (the Python path) when it is small and the kernels are
    not loaded yet. Both paths give the same answers (tests hold them equal)."""
    if _force_python or _small_job.get() or (_kernels is None and nbytes < LAZY_BYTES):
        return None
    return _load()


@contextlib.contextmanager
def small_job(nbytes: int):
    """A whole job (``verify``) that reads about ``nbytes``: when that is below LAZY_BYTES and the kernels are not
    loaded yet, the block takes the Python path throughout (:func:`compiled` and :func:`numba_enabled` answer as
    without numba, in this thread), so numba is neither imported nor asked to compile. One decision for the job,
    as its parts must agree (tables from the walk only where the cross-checks take them)."""
    if _force_python or _kernels is not None or nbytes >= LAZY_BYTES:
        yield
        return
    token = _small_job.set(True)
    try:
        yield
    finally:
        _small_job.reset(token)



def need_compiled():
    k = compiled()
    if k is None:
        raise RuntimeError("this kernel needs numba (check kernels.numba_enabled() first)")
    return k


_HELPERS = ("_nb_find", "_nb_u32", "_nb_i32", "_nb_i16", "_nb_i8", "_nb_i64", "_nb_crc", "_nb_layout", "_nb_property",
            "_nb_clean", "_nb_entry", "_nb_record_at", "_nb_intern", "_nb_ascii_hash", "_nb_signed32", "_nb_index_hash", "_nb_properties",
            "_nb_crc_property_ok", "_nb_utf8_len", "_nb_jstr", "_nb_b64", "_nb_middle")
# The JSON writer's helpers take arrays: a call that is not inlined costs reference-count updates of each array
# argument, which cost more than the few bytes most of them write. numba inlines these at its own IR level.
_INLINED = ("_nb_put", "_nb_lit", "_nb_dec", "_nb_hex16", "_nb_same", "_nb_is")
_KERNELS = {"walk": "_kn_walk", "check_run": "_kn_check_run", "decode_run": "_kn_decode_run",
            "crc_many": "_kn_crc_many", "gather": "_kn_gather", "entry_units": "_kn_entry_units", "find_clean": "_kn_find_clean",
            "property_codes": "_kn_property_codes",
            "verify_run": "_kn_verify_run", "index_match": "_kn_index_match", "index_chains": "_kn_index_chains",
            "chain_items": "_kn_chain_items", "chain_slots": "_kn_chain_slots", "mark_queues": "_kn_mark_queues",
            "json_lines": "_kn_json_lines", "template_lines": "_kn_template_lines", "find_fold": "_kn_find_fold"}


def _libc_address(function: str) -> int | None:
    import ctypes  # here: ctypes.util imports subprocess; the kernels load on the first bulk job only
    import ctypes.util

    for name in (None, ctypes.util.find_library("c"), "msvcrt"):
        try:
            return ctypes.cast(getattr(ctypes.CDLL(name), function), ctypes.c_void_p).value
        except (OSError, AttributeError, TypeError):
            continue
    return None


def _compile():
    """Register the C CRC symbol and jit every kernel (in kernel_source); the namespace of kernels, or False on
    failure."""
    import types as pytypes

    import llvmlite.binding as llvm
    import numba
    from numba import types

    name, address = crc_library()
    memchr, memcpy = _libc_address("memchr"), _libc_address("memcpy")
    if address is None or memchr is None or memcpy is None:
        return False
    llvm.add_symbol("rmq_inspect_crc32", address)
    llvm.add_symbol("rmq_inspect_memchr", memchr)
    llvm.add_symbol("rmq_inspect_memcpy", memcpy)
    module = vars(kernel_source)
    module["_crc_c"] = types.ExternalFunction("rmq_inspect_crc32", types.uint32(types.uint32, types.intp,
                                                                                types.uint64))
    module["_memchr_c"] = types.ExternalFunction("rmq_inspect_memchr", types.intp(types.intp, types.int32,
                                                                                  types.uint64))
    module["_memcpy_c"] = types.ExternalFunction("rmq_inspect_memcpy", types.intp(types.intp, types.intp,
                                                                                  types.uint64))
    for helper in _HELPERS:
        module[helper] = numba.njit(cache=True, nogil=True)(module[helper])
    for helper in _INLINED:
        module[helper] = numba.njit(cache=True, nogil=True, inline="always")(module[helper])
    kernels = pytypes.SimpleNamespace(crc_backend=name)
    light = True
    for public, source in _KERNELS.items():
        module[source] = numba.njit(cache=True, nogil=True)(module[source])
        light = _light_cache_load(module[source]) and light
        setattr(kernels, public, module[source])
    if not light:  # numba refreshes its context on every load: arraymath is imported then
        _import_arraymath_without_scipy()
    return kernels


def _light_cache_load(dispatcher) -> bool:
    """Load ``dispatcher``'s cached machine code without numba's full target-context refresh.

    numba's ``Cache.load_overload`` first refreshes the target context: it imports and installs every typing
    and lowering registry numba has (cffi, pycparser, typed containers, ... about 0.1 s, a tenth of a whole
    ``verify``) that only *compiling* needs. Loading a cached kernel needs only the runtime (NRT) set up, so
    this kernel's cache does just that; on a cache miss numba's compiler refreshes the context itself before
    compiling (numba's arraymath, which it then imports, is first loaded without scipy.linalg). False, and left
    as numba has it, when numba's internals are not the ones this was written against."""
    cache = getattr(dispatcher, "_cache", None)
    load = getattr(cache, "_load_overload", None)
    guard = getattr(cache, "_guard_against_spurious_io_errors", None)
    if load is None or guard is None:
        return False
    try:
        from numba.core.runtime import rtsys
    except ImportError:
        return False

    def load_overload(sig, target_context):
        rtsys.initialize(target_context)
        found = None
        with guard():  # it swallows a spurious I/O error: a cache miss
            found = load(sig, target_context)
        if found is None:  # numba compiles next
            _import_arraymath_without_scipy()
        return found

    cache.load_overload = load_overload
    return True
