"""Fair shares between orgs: one org's backlog never holds another's next piece of work.

`FairQueue` holds waiting work per org and hands it out round robin, never more than
`per_org` pieces of one org at once. It does not lock: its user holds its own lock around
every call. (Calls in flight per org are shared out by semaphores: service/calls.py.)
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from collections.abc import Hashable
from typing import Generic, TypeVar

Item = TypeVar("Item", bound=Hashable)


class FairQueue(Generic[Item]):
    """Waiting work per org, taken round robin among the orgs under their running cap."""

    def __init__(self, per_org: int):
        self.per_org = max(1, per_org)
        self.lines: OrderedDict[str, deque[Item]] = OrderedDict()  # orgs in turn order, each with its line
        self.running: Counter[str] = Counter()

    def __len__(self) -> int:
        return sum(len(line) for line in self.lines.values())

    def waiting(self, org: str) -> int:
        return len(self.lines.get(org, ()))

    def push(self, org: str, item: Item) -> None:
        self.lines.setdefault(org, deque()).append(item)

    def remove(self, item: Item) -> bool:
        for org, line in self.lines.items():
            if item in line:
                line.remove(item)
                if not line:
                    del self.lines[org]
                return True
        return False

    def pop(self) -> tuple[str, Item] | None:
        """The next piece of work: the first org in turn with work waiting and a free share,
        which then goes to the back of the turn. None when no org may start anything."""
        for org, line in self.lines.items():
            if self.running[org] < self.per_org:
                item = line.popleft()
                del self.lines[org]
                if line:
                    self.lines[org] = line  # back of the turn
                self.running[org] += 1
                return org, item
        return None

    def finished(self, org: str) -> None:
        self.running[org] -= 1
        if self.running[org] <= 0:
            del self.running[org]
