"""What every test server here shares: it listens on a port the OS picks, says which on its first
line of output (`listening <port>`), and exits when the test process that started it goes away
(even a killed one), so no server outlives its tests."""

import asyncio
import os
import signal
import sys

# A server started from a Swift test inherits the test thread's blocked signals (Foundation's
# Process keeps the mask), so SIGTERM would wait for ever and PythonServer.stop() with it.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})


def announce(port: int) -> None:
    print(f"listening {port}", flush=True)


async def exit_with_parent(interval: float = 0.5) -> None:
    parent = os.getppid()
    while True:
        await asyncio.sleep(interval)
        if os.getppid() != parent:
            sys.exit(0)
