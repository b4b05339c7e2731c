"""Opening a SQLite store file without harming it, and SQLite's errors as one clear error.

Opening only reads. A file is checked before anything is written to it: a foreign SQLite
database (another program's tables) or a file that is not SQLite at all is refused exactly as
it was found, never switched to WAL mode or migrated first. A file that cannot be written (a
read-only file system, a folder without write permission, or ``read_only=True``) is opened
read-only, so reports and pages can be made from a store on a read-only mount. Switching to
WAL and applying migrations waits for the first write; see :class:`~modelscape.store.sqlite.
SQLiteStore`.

Every error SQLite raises later, and every stored record that cannot be read back, becomes a
:class:`~modelscape.errors.StoreError` naming the file, what was being done, and what to do:
a damaged file is one clear message, not a traceback from deep inside a report.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from modelscape.errors import StoreError
from modelscape.store.migrations import FIRST_TABLES, SCHEMA_VERSION

__all__ = ["BUSY_SECONDS", "State", "connect", "guard", "inspect", "writable"]

#: Seconds a write waits for another process's write before it fails.
BUSY_SECONDS = 60.0
# The tables every modelscape store has had since its first schema.
_OURS = frozenset(FIRST_TABLES)

#: What a file holds: nothing yet, a store of an older schema, or a current store.
State = Literal["empty", "older", "current"]


def writable(path: str) -> bool:
    """Whether ``path`` (or, when it does not exist, its folder) can be written.

    SQLite writes a journal or WAL file beside the database, so the folder must be writable
    too. On a read-only file system this is False even for root.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.exists(path):
        return os.access(path, os.W_OK) and os.access(folder, os.W_OK)
    return os.access(folder, os.W_OK)


def connect(path: str, *, read_only: bool) -> sqlite3.Connection:
    """A connection to ``path``: read-only (``mode=ro``) or read-write, creating the file."""
    options = {"isolation_level": None, "check_same_thread": False, "timeout": BUSY_SECONDS}
    try:
        if not read_only:
            return sqlite3.connect(path, **options)  # type: ignore[arg-type]
        if not os.path.exists(path):
            raise StoreError(f"{path}: no such store file")
        uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro"
        connection = sqlite3.connect(uri, uri=True, **options)  # type: ignore[arg-type]
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except UnicodeDecodeError:  # SQLite's message quoted a damaged name of the schema
            connection.close()
            raise StoreError(
                f"{path} is not a modelscape store (its schema is damaged: a name in it is "
                "not UTF-8 text); choose another file, or restore it from a copy"
            ) from None
        except sqlite3.OperationalError:
            # A WAL database needs its -shm file, which a read-only folder cannot hold; nobody
            # can be writing a file there, so reading it as immutable is safe.
            connection.close()
            connection = sqlite3.connect(f"{uri}&immutable=1", uri=True, **options)  # type: ignore[arg-type]
        except sqlite3.DatabaseError as error:
            connection.close()
            raise StoreError(
                f"{path} is not a modelscape store ({error}); choose another file"
            ) from None
        return connection
    except sqlite3.Error as error:
        raise StoreError(f"cannot open store {path}: {error}") from None


def inspect(connection: sqlite3.Connection, path: str) -> State:
    """What the file holds, read without writing; a file that is not a store is refused."""
    try:
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.DatabaseError as error:
        raise StoreError(
            f"{path} is not a modelscape store ({error}); choose another file"
        ) from None
    except UnicodeDecodeError:  # a table's name, or SQLite's message quoting it, is damaged
        raise StoreError(
            f"{path} is not a modelscape store (its schema is damaged: a name in it is not "
            "UTF-8 text); choose another file, or restore it from a copy"
        ) from None
    if not tables and version == 0:
        return "empty"
    if not tables >= _OURS:
        shown = ", ".join(sorted(tables)[:5]) or "none"
        raise StoreError(
            f"{path} is an SQLite file with other tables ({shown}), not a modelscape store; "
            "choose another file (it was left as it was)"
        )
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} has schema version {version}, written by a newer modelscape; this one "
            f"reads versions up to {SCHEMA_VERSION}: upgrade modelscape to open it"
        )
    return "current" if version == SCHEMA_VERSION else "older"


def _explain(path: str, doing: str, error: sqlite3.DatabaseError) -> str:
    text = str(error)
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return (
            f"{path} is damaged ({text}) while {doing}: restore it from a copy, or save what "
            f"is readable with `sqlite3 {path} .recover`"
        )
    if "readonly" in text or "read-only" in text:
        return f"{path} cannot be written ({text}) while {doing}: open a writable copy"
    if "locked" in text or "busy" in text:
        return (
            f"{path} was locked by another process for over {BUSY_SECONDS:g} s ({text}) "
            f"while {doing}; try again when it is done"
        )
    return f"{path}: {doing} failed: {text}"


@contextlib.contextmanager
def guard(path: str, doing: str, *, records: bool = False) -> Iterator[None]:
    """Turn SQLite's errors (and, with ``records``, unreadable records) into a StoreError."""
    try:
        yield
    except StoreError:
        raise
    except sqlite3.DatabaseError as error:
        raise StoreError(_explain(path, doing, error)) from None
    except UnicodeEncodeError:
        # Text handed in that cannot be bound (a lone surrogate): the caller's, never the
        # file's, since SQLite reports undecodable stored text as a DatabaseError.
        raise
    except UnicodeDecodeError:
        # SQLite's own message quoted damaged text (a name of the schema) that is not UTF-8.
        raise StoreError(
            f"{path} is damaged (it holds text that is not UTF-8) while {doing}: restore it "
            f"from a copy, or save what is readable with `sqlite3 {path} .recover`"
        ) from None
    except (ValueError, KeyError, TypeError) as error:
        if not records:
            raise
        raise StoreError(
            f"{path} holds a record that cannot be read while {doing} ({error}); the file was "
            "changed outside modelscape or is damaged: restore it from a copy"
        ) from None
