"""One error for every way a distributed job can fail without an answer."""

from __future__ import annotations

from typing import Any

__all__ = ["DistributedError", "gather"]


class DistributedError(RuntimeError):
    """A distributed job that has no complete answer: a worker died more often than the
    scheduler retries a task (``distributed.scheduler.allowed-failures``), a partition was lost
    with the only worker holding it, or the cluster went away. Nothing partial is returned."""


def gather(client: Any, futures: list[Any]) -> list[Any]:
    """The results of ``futures``, all of them, or a :class:`DistributedError` naming what was
    lost (the cause is chained). Errors of the computation itself (ValueError, OverflowError,
    ...) pass through unchanged."""
    from distributed import KilledWorker

    try:
        return list(client.gather(futures, errors="raise"))
    except KilledWorker as error:
        raise DistributedError(
            f"a task was retried on new workers and its worker died every time ({error}); "
            "no partial answer is returned"
        ) from error
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # asyncio.CancelledError is no Exception
        # A future whose data was lost with its worker, and with nothing to recompute it from
        # (scattered partitions), is cancelled: distributed raises CancelledError or
        # FutureCancelledError, depending on its version.
        if type(error).__name__ in ("CancelledError", "FutureCancelledError"):
            raise DistributedError(
                f"a partition or partial result was lost with its worker ({type(error).__name__}: {error}); "
                "keep replicas (replicas=2 / persist_replicas) to survive a worker loss, or "
                "rebuild the array from its source"
            ) from error
        raise
