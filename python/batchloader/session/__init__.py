"""Session temporary tables on Spark (Apache Drill's CREATE TEMPORARY TABLE), see `Session`."""

from batchloader.session.session import Session, SessionOptions

__all__ = ["Session", "SessionOptions"]
