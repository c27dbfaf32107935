"""Which DLedger member of a store root is read, when the root holds several (``dledger-n0/``, ``dledger-n1/``).

A broker writes only ``<storePathRootDir>/dledger-<dLegerSelfId>/`` (5.3.1 ``DLedgerCommitLog``: storeBaseDir =
storePathRootDir, selfId = ``MessageStoreConfig.dLegerSelfId``; DLedger 0.3.1.2 ``DLedgerConfig.getDefaultPath``).
Several members under one root are a test cluster on one disk, or a copy of a whole group's disks: their logs
are replicas, not parts of one log, so one is read. The choice: ``--dledger-member`` (a flag), else the broker
config's ``dLegerSelfId``, else the first by name; whenever others are left unread, a warning says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import BadInput
from inspector.engine.model.records import Problem

PREFIX = "dledger-"  # census.DLEDGER_PREFIX (not imported: census and dledger both use this module)
SELF_ID_KEY = "dLegerSelfId"  # MessageStoreConfig.dLegerSelfId (MixAll.properties2Object: setdLegerSelfId)


@dataclass(frozen=True)
class MemberChoice:
    """The member read (``dledger-n1``), the members not read, and how the one read was chosen."""

    read: str
    others: tuple[str, ...]
    how: str

    def problem(self) -> Problem | None:
        """A warning naming the member read and the ones not read; None when the root holds one member."""
        if not self.others:
            return None
        return Problem(self.read, 0, f"{1 + len(self.others)} DLedger members under this root: {self.read} is read "
                       f"({self.how}); not read: {', '.join(self.others)} (replicas of the same log, or another "
                       f"group's; choose with --dledger-member ID or {SELF_ID_KEY} in the broker config)",
                       "dledger-members", "warning")


def wanted_member(member: str | None, config: BrokerConfig | None, opened: str | None = None) -> tuple[str, str] | None:
    """(folder name, how it was chosen) of the member asked for by the flag, else by the folder opened (``STORE``
    given as ``root/dledger-n1``), else by the broker config."""
    if member:
        return _folder(member), f"--dledger-member {member}"
    if opened:
        return opened, f"{opened}/ given as the store"
    self_id = config.properties.get(SELF_ID_KEY) if config is not None else None
    if self_id:
        return _folder(self_id), f"{SELF_ID_KEY}={self_id} in {config.file} line {config.lines.get(SELF_ID_KEY, 0)}"
    return None


def choose_member(names: list[str], member: str | None = None, config: BrokerConfig | None = None,
                  where: str = "", opened: str | None = None) -> MemberChoice | None:
    """The member to read among ``names`` (``dledger-<id>`` folders holding ``data/``, any order); None when there
    is none. A member asked for that is not there is ``BadInput`` (exit 2), naming the ones that are."""
    names = sorted(names)
    wanted = wanted_member(member, config, opened)
    if wanted is None:
        if not names:
            return None
        return MemberChoice(names[0], tuple(names[1:]), "the first by name")
    folder, how = wanted
    if folder not in names:
        present = ", ".join(names) if names else "none"
        raise BadInput(f"no DLedger member {folder} with a data/ folder here ({how}); members: {present}", where)
    return MemberChoice(folder, tuple(n for n in names if n != folder), how)


def _folder(member: str) -> str:
    """``n1`` or ``dledger-n1`` -> ``dledger-n1`` (a path separator is refused: a member is a folder of the root)."""
    member = member.strip()
    if not member or "/" in member or "\\" in member or member in (".", ".."):
        raise BadInput(f"DLedger member {member!r} is no self id (e.g. n0)")
    return member if member.startswith(PREFIX) else PREFIX + member
