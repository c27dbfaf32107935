"""What every step of the guided tour shares: the system topics it looks for, how far each search may read, and
the look-ups on the store (:class:`Context`) that several steps use.

The tour itself is split by what the steps are about: the step model and its views (``tour_targets``), the steps
about the store, its records and segments (``tour_records``), about consume queues, delays and transactions
(``tour_queues``), about the index (``tour_index``), and the tour in order (``tour_steps``).
"""

from __future__ import annotations

from inspector.engine.model.budget import Budget
from inspector.engine.model.records import Message
from inspector.engine.model.systopics import SYSTEM_PREFIXES
from inspector.engine.read.store.answers import recover
from parsers import commitlog as cl

# Every search reads a bounded sample of the store (never time proportional to its size); the sample store fits
# inside every bound, so its tour is the complete one.
SEARCH_RECORDS = 5000  # records read while looking for a case near the start of the log
SEARCH_INDEX_FILES = 4  # index files searched for a chain to show
SEARCH_QUEUES = 256  # consume queues looked at for a queue with a second file
SEARCH_SEGMENTS = 8  # commitlog segments scanned for a BLANK
SEARCH_UNITS = 2000  # units of one system queue (delay, half, op) read
SEARCH_HALVES = 200  # half messages whose commit is looked up
HEX_CONTEXT = 32


class Missing(Exception):
    """The store lacks this step's case."""


# -- shared look-ups ---------------------------------------------------------------------------------------------


class Context:
    def __init__(self, store, budget: Budget):
        self.store = store
        self.budget = budget
        self.root = str(store.root)
        self._nice: Message | None | bool = False
        self._recovery = None

    def recovery(self):
        """``recover(store)``, once per tour (two steps show it; it walks up to three segments)."""
        if self._recovery is None:
            self._recovery = recover(self.store, budget=self.budget)
        return self._recovery

    def cmd(self, command: str, *args: str, store: bool = True) -> str:
        """An rmq-inspect command line on this store (``store=False``: the command takes no STORE argument)."""
        head = ["rmq-inspect", command] + ([_shell(self.root)] if store else [])
        return " ".join(head + [_shell(a) for a in args])

    def nice_message(self) -> Message:
        """An ordinary message to look at: user topic, tags, keys, unique key, IPv4 hosts, plain small body."""
        if self._nice is False:
            self._nice = None
            fallback = None
            for n, entry in enumerate(self.store.entries()):
                if n > SEARCH_RECORDS:
                    break
                if n % 256 == 255:
                    self.budget.check("reading records")
                if not isinstance(entry, Message):
                    continue
                fallback = fallback or entry
                if (not is_system(entry.topic) and entry.transaction == "NOT_TYPE" and not entry.compressed
                        and entry.tags and entry.keys and entry.unique_key and entry.magic_version == 1
                        and not entry.sys_flag & (cl.BORNHOST_V6_FLAG | cl.STOREHOSTADDRESS_V6_FLAG)
                        and len(entry.body) <= 400):
                    self._nice = entry
                    break
            if self._nice is None:
                self._nice = fallback
        if self._nice is None:
            raise Missing("The commitlog holds no message, so there is no record to look at.")
        return self._nice  # type: ignore[return-value]


def is_system(topic: str) -> bool:
    return topic.startswith(SYSTEM_PREFIXES)


def _shell(text: str) -> str:
    safe = all(c.isalnum() or c in "-_./:%#@=," for c in text)
    return text if safe and text else "'" + text.replace("'", "'\\''") + "'"
