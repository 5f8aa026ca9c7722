"""Spark's file source options that choose a scan's files by name or by age.

`pathGlobFilter` keeps the files whose names match a Hadoop glob (`*.json`, `part-[0-4]*`,
`{a,b}.csv`); `modifiedBefore` and `modifiedAfter` keep the files last modified strictly
before or after a time (a `YYYY-MM-DDTHH:mm:ss` text in the session's time zone, as Spark
reads it). Neither changes what the other files' folders make of partitions.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass

from batchloader import locations
from batchloader.hive_partitions import instant_in_zone, iso_clock


@dataclass(frozen=True)
class FileFilter:
    """Which listed files a scan reads: by name (`name_glob`), by modification time."""

    name_glob: str | None = None
    modified_before: dt.datetime | None = None
    modified_after: dt.datetime | None = None

    @classmethod
    def of(
        cls,
        path_glob_filter: str | None = None,
        modified_before: str | dt.datetime | None = None,
        modified_after: str | dt.datetime | None = None,
        time_zone: str = "UTC",
    ) -> FileFilter:
        """The filter Spark's options give: times as texts in `time_zone` (or datetimes,
        UTC where they have no zone); ValueError for a time that is none."""
        if path_glob_filter is not None and not isinstance(path_glob_filter, str):
            raise TypeError(f"path_glob_filter is a glob text, not {path_glob_filter!r}")
        return cls(
            path_glob_filter or None,
            _instant("modified_before", modified_before, time_zone),
            _instant("modified_after", modified_after, time_zone),
        )

    def __bool__(self) -> bool:
        return any((self.name_glob, self.modified_before, self.modified_after))

    def keeps(self, path: str) -> bool:
        """Whether the scan reads file `path`."""
        if self.name_glob is not None and not name_matches(self.name_glob, os.path.basename(path)):
            return False
        if self.modified_before is None and self.modified_after is None:
            return True
        modified = locations.modified(path)
        if self.modified_before is not None and not modified < self.modified_before:
            return False
        return self.modified_after is None or modified > self.modified_after

    def apply(self, files: Sequence[str]) -> list[str]:
        """The files of `files` it keeps, in order."""
        return [f for f in files if self.keeps(f)] if self else list(files)


def name_matches(glob: str, name: str) -> bool:
    """Whether file name `name` matches Hadoop glob `glob` (`*`, `?`, `[a-c]`, `[^a]`,
    `{x,y}`; a backslash escapes the next character), case-sensitive as Hadoop's is."""
    # escaped braces and commas are no alternation: kept aside as private-use characters
    kept = {f"\\{c}": chr(0xE000 + i) for i, c in enumerate("{},")}
    for escaped, mark in kept.items():
        glob = glob.replace(escaped, mark)
    patterns = locations.brace_alternatives(glob)
    for escaped, mark in kept.items():
        patterns = [p.replace(mark, escaped) for p in patterns]
    return any(fnmatch.fnmatchcase(name, _as_fnmatch(p)) for p in patterns)


def _as_fnmatch(glob: str) -> str:
    """A Hadoop glob without braces as an `fnmatch` pattern: `[^` negates (fnmatch's `[!`),
    and an escaped character matches itself."""
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            out.append(f"[{glob[i + 1]}]" if glob[i + 1] != "]" else "]")
            i += 2
            continue
        if c == "[" and glob.startswith("[^", i):
            out.append("[!")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _instant(option: str, value: str | dt.datetime | None, time_zone: str) -> dt.datetime | None:
    """An option's time as an aware datetime."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        clock = iso_clock(text) or iso_clock(text + "T00:00")  # a date alone: its midnight
        if clock is None:
            raise ValueError(
                f"{option} is {value!r}: a time is written YYYY-MM-DDTHH:mm:ss "
                "(2020-06-01T13:00:00), in the session's time zone"
            )
        value = clock
        if value.tzinfo is None:
            return instant_in_zone(value, time_zone)
    if not isinstance(value, dt.datetime):
        raise TypeError(f"{option} is a time (a datetime or its text), not {value!r}")
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
