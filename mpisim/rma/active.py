"""Active-target synchronization (MPI 4.1 §12.5.1, §12.5.2): fence, and start/complete
with post/wait/test, on the network model.

**Fence.** Collective over the window's group. A process's fence waits until its own
operations of the closing epoch are locally complete (its bytes have left, its gets are
back), then enters a barrier over the window's internal communicator (the run's barrier
algorithm, messages on the network as any collective's), then waits until every operation
that targeted it in the closing epoch has been applied to its memory. So when any fence
returns, every operation of the epoch has completed at its target (§12.5.1). Two ranks
entering at ``t`` with nothing to complete leave at ``t + latency`` (one round of the
dissemination barrier).

**Post and start.** MPI_Win_post returns at once and sends each origin of its group a
notice (latency only); MPI_Win_start waits until the notice of every target of its group
has arrived (MPICH 5.0.2 and Open MPI 5.0.11 both block there: a start made 0.5 s before the
post returned 0.5 s later). **Complete** waits until its operations are complete at their
targets (acknowledged), then sends each target a notice; **wait** returns when the notices
of every origin of its post have arrived, **test** tells whether they have, and ends the
exposure epoch when they have.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from simpy.events import Event

from ..collectives.algorithms import ALGORITHMS, Args
from ..collectives.channel import Channel
from ..engine.clock import at, fire_at, pending
from ..engine.port import RankPort
from .constants import MODE_NOSUCCEED
from .operations import when_all
from .waits import Collective, Missing, Operations

__all__ = ["barrier", "complete", "fence", "post", "start", "synchronizing", "test", "wait"]


def barrier(rt: Any) -> Any:
    """The run's barrier algorithm (a fence's and a free's synchronization)."""
    return ALGORITHMS["barrier"][rt.colls.choice["barrier"]]


def synchronizing(rt: Any, port: RankPort, win: Any, call: str, tag: int) -> Channel:
    """The channel of one barrier of ``win``'s members (a fence's or the free's), entered
    now; the call waits on it (the deadlock analysis reads who has not entered)."""
    channel = Channel(rt.env, rt.tp, win.comm, call, tag, rt.colls.entered)
    port.enter(call, obj=Collective(channel, win))
    return channel


def fence(rt: Any, port: RankPort, win: Any, assertion: int, call: str) -> Event:
    """MPI_Win_fence (see the module)."""
    win.epochs.check_fence(call)
    tag = 2 * win.fences
    win.fences += 1
    channel = synchronizing(rt, port, win, call, tag)
    return rt.env.process(_fence(rt, win, channel, not assertion & MODE_NOSUCCEED,
                                 rt.env._now + rt.overhead))


def _fence(rt: Any, win: Any, channel: Channel, opens: bool,
           earliest: float) -> Generator[Any, Any, None]:
    env = rt.env
    mine = win.pending()
    yield when_all(env, [op.local for op in mine], earliest)
    yield from barrier(rt)(channel, Args())
    round_ = win.epochs.fence_round
    incoming = [op for op in win.watchers if op.round == round_]
    win.watchers = [op for op in win.watchers if op.round != round_]
    if incoming:
        yield when_all(env, [op.applied for op in incoming], env._now)
    for op in mine:
        op.access.open = False
    win.forget()
    win.epochs.fenced(opens)
    rt.record.closed(win.rows.pop("fence", -1), env._now)  # the epoch it closes
    if opens:
        win.rows["fence"] = rt.record.opened(win.name, win.me, "fence", -1, env._now)


def start(rt: Any, port: RankPort, win: Any, targets: list[int], call: str) -> Event:
    """MPI_Win_start: an access epoch to ``targets`` (world ranks), once each has posted."""
    win.epochs.check_start(call)
    env, me = rt.env, win.me
    matched: dict[int, int] = {t: -1 for t in targets}  # target -> its post number
    win.epochs.start = matched
    missing = [t for t in targets]
    port.enter(call, obj=Missing(call, "MPI_Win_post", win, lambda: list(missing)))
    earliest = env._now + rt.overhead
    ev = pending(env)
    latest = [earliest]
    row = rt.record.opened(win.name, me, "start", -1, env._now)
    win.rows["access"] = row

    def posted(target: int) -> Any:
        def take(arrival: float, number: int) -> None:
            matched[target] = number
            missing.remove(target)
            latest[0] = max(latest[0], arrival)
            if not missing:
                fire_at(ev, max(latest[0], env._now))
        return take

    if not targets:
        return at(env, earliest)
    for t in targets:
        win.info.posts.take((me, t), posted(t))
    return ev


def complete(rt: Any, port: RankPort, win: Any, call: str) -> Event:
    """MPI_Win_complete: once the epoch's operations are complete at their targets, each
    target of the start group is told."""
    group = list(win.epochs.check_complete(call))
    ops = [op for t in group for op in win.pending(t)]
    port.enter(call, obj=Operations(call, win, ops, dict))
    return rt.env.process(_complete(rt, win, group, ops))


def _complete(rt: Any, win: Any, group: list[int], ops: list[Any]) -> Generator[Any, Any, None]:
    env, net, me = rt.env, rt.net, win.me
    yield when_all(env, [op.remote for op in ops], env._now + rt.overhead)
    now = env._now
    for t in group:
        win.info.dones.send((me, t), now + net.control_delay(me, t))
        win.forget(t)
    for op in ops:
        op.access.open = False
    win.epochs.start = None
    rt.record.closed(win.rows.pop("access", -1), now)


def post(rt: Any, port: RankPort, win: Any, origins: list[int], call: str) -> Event:
    """MPI_Win_post: an exposure epoch to ``origins`` (world ranks); returns at once."""
    win.epochs.check_post(call)
    env, net, me = rt.env, rt.net, win.me
    epochs = win.epochs
    epochs.post = tuple(origins)
    epochs.posts += 1
    port.enter(call)
    sent = env._now + rt.overhead
    for o in origins:
        win.info.posts.send((o, me), sent + net.control_delay(me, o), epochs.posts)
    win.rows["exposure"] = rt.record.opened(win.name, me, "post", -1, env._now)
    return at(env, sent)


def wait(rt: Any, port: RankPort, win: Any, call: str) -> Event:
    """MPI_Win_wait: returns once every origin of the post group has completed."""
    origins = list(win.epochs.check_wait(call))
    env, me = rt.env, win.me
    missing = list(origins)
    port.enter(call, obj=Missing(call, "MPI_Win_complete", win, lambda: list(missing)))
    latest = [env._now + rt.overhead]
    ev = pending(env)

    def completed(origin: int) -> Any:
        def take(arrival: float, _: Any) -> None:
            missing.remove(origin)
            latest[0] = max(latest[0], arrival)
            if not missing:
                win.epochs.post = None
                fire_at(ev, max(latest[0], env._now))
                rt.record.closed(win.rows.pop("exposure", -1), max(latest[0], env._now))
        return take

    if not origins:
        win.epochs.post = None
        rt.record.closed(win.rows.pop("exposure", -1), latest[0])
        return at(env, latest[0])
    for o in origins:
        win.info.dones.take((o, me), completed(o))
    return ev


def test(rt: Any, port: RankPort, win: Any, call: str) -> bool:
    """MPI_Win_test: whether every origin of the post group has completed (then the
    exposure epoch ends, as with MPI_Win_wait); the caller times a failed test."""
    origins = list(win.epochs.check_wait(call))
    me, now = win.me, rt.env._now
    missing = [o for o in origins if not win.info.dones.ready((o, me), now)]
    port.enter(call, obj=Missing(call, "MPI_Win_complete", win, lambda: list(missing)))
    if missing:
        return False
    for o in origins:
        win.info.dones.take((o, me), _ignore)
    win.epochs.post = None
    rt.record.closed(win.rows.pop("exposure", -1), now)
    return True


def _ignore(arrival: float, what: Any) -> None:
    """A notice taken by a test that found it arrived."""
