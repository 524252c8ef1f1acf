"""stdin's lines, read on a daemon thread, so that the server can stop reading whenever it must.

anyio's AsyncFile (how the SDK's transport reads stdin) reads each line on a worker thread it
cannot abandon: cancelling that read waits for the next line or EOF. So a server whose client closed
stdout but kept stdin open, or that was sent SIGTERM, stayed alive until the client wrote again; and
an abandoned worker thread would still be joined when the interpreter exits. A daemon thread is
neither: the read is left behind, blocked, and the process exits.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import IO

import anyio
import anyio.from_thread
import anyio.lowlevel

logger = logging.getLogger("workrail.mcp")


class StdinLines:
    """The lines of `text`, until EOF or `stop()` (after which no more lines are taken)."""

    def __init__(self, text: IO[str]) -> None:
        self._text = text
        self._stopped = False
        self._waiting: anyio.CancelScope | None = None

    def stop(self) -> None:
        """No further line is handed out; a line being waited for is abandoned. Event loop only."""
        self._stopped = True
        if self._waiting is not None:
            self._waiting.cancel()

    async def __aiter__(self) -> AsyncIterator[str]:
        send, receive = anyio.create_memory_object_stream[str](0)  # the thread reads one line ahead at most
        token = anyio.lowlevel.current_token()

        def pump() -> None:
            try:
                for line in iter(self._text.readline, ""):
                    anyio.from_thread.run(send.send, line, token=token)
            except anyio.BrokenResourceError:  # nobody reads any more: the server has stopped reading
                pass
            except Exception:  # stdin failed, or the event loop has ended
                logger.warning("reading stdin failed; taking it as closed", exc_info=True)
            finally:
                with suppress(Exception):  # the event loop may have ended
                    anyio.from_thread.run_sync(send.close, token=token)

        threading.Thread(target=pump, name="workrail-stdin", daemon=True).start()
        with receive:
            while not self._stopped:
                # The scope covers the wait only, never the yield (a cancel scope held across an async
                # generator's yield would cancel its consumer).
                with anyio.CancelScope() as self._waiting:
                    try:
                        line = await receive.receive()
                    except anyio.EndOfStream:
                        return
                self._waiting = None
                if self._stopped:
                    return
                yield line
