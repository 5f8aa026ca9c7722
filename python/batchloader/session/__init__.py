"""Session temporary tables on Spark (Apache Drill's CREATE TEMPORARY TABLE), see `Session`.

`Session` needs sqlglot (and pyspark); the lease and cleanup helpers need neither, so the
package itself imports nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily at run time (see __getattr__)
    from batchloader.session.session import Session, SessionOptions

__all__ = ["Session", "SessionOptions"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from batchloader.session import session

        return getattr(session, name)
    raise AttributeError(f"module 'batchloader.session' has no attribute {name!r}")
