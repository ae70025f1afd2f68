"""Independent resources made (and deleted) at once, as CloudFormation does: each resource starts
as soon as everything it waits for (what it depends on when made; what depends on it when deleted)
is done, on a few threads. After a failure a create starts nothing new; a delete goes on with what
does not wait for the failed one. What is running ends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

WORKERS = 4  # the machine is shared: a few at once is what makes a stack faster, more only contends


def run_in_order(names: list[str], deps: Mapping[str, Iterable[str]], make: Callable[[str], bool],
                 workers: int = WORKERS, keep_going: bool = False) -> list[str]:
    """Call make(name) (True when it succeeded) for each of `names` once its dependencies among
    `names` succeeded; independent ones run at once. The names that failed, in the order they did.
    keep_going: after a failure, go on with the names that do not wait for a failed one."""
    wanted = set(names)
    waiting = {n: {d for d in deps.get(n, ()) if d in wanted and d != n} for n in names}
    done: set[str] = set()
    failed: list[str] = []
    running: dict[Future[bool], str] = {}
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cfn-make") as pool:
        while True:
            if keep_going or not failed:
                for n in [n for n in names if n in waiting and waiting[n] <= done]:
                    del waiting[n]
                    running[pool.submit(make, n)] = n
            if not running:
                return failed
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                if future.result():
                    done.add(name)
                else:
                    failed.append(name)
