"""What every test server here shares: it listens on a port the OS picks, says which on its first
line of output (`listening <port>`), and exits when the test process that started it goes away
(even a killed one), so no server outlives its tests."""

import asyncio
import os
import signal
import sys

# A Swift test process starts its children with most signals blocked (the mask is inherited
# across exec), so PythonServer.stop()'s SIGTERM would never arrive and its wait never end.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})


def announce(port: int) -> None:
    print(f"listening {port}", flush=True)


async def exit_with_parent(interval: float = 0.5) -> None:
    parent = os.getppid()
    while True:
        await asyncio.sleep(interval)
        if os.getppid() != parent:
            sys.exit(0)
