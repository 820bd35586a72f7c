#!/usr/bin/env python3
"""A TCP proxy on loopback that puts a WAN hop between a server and the Apple stand-in (Benchmarks/run --exchange).

    latency-proxy.py --listen 29091 --upstream 29090 [--delay-ms 50] [--request-delay-ms 0]
                     [--count-file FILE] [--exit-after SECONDS]

- Every connection accepted waits --delay-ms before the proxy connects upstream (what the client sends meanwhile is
  held, then passed on in order): a new connection costs one more delay before its first answer.
- Every chunk read from upstream reaches the client --delay-ms after it arrived, in order; upstream's end of stream
  (or close) follows the last chunk after the same delay. So a request on an open connection waits one delay more,
  a request on a new connection two. Requests go upstream at once unless --request-delay-ms is set.
- It counts the connections it accepted. SIGUSR1 writes "accepted N" to --count-file (atomically: write, then
  rename) and to standard error; SIGTERM or SIGINT does the same, then exits. --exit-after stops it by itself.

One thread, asyncio protocols (no streams), one timer per connection and direction at most: about 1,000 requests/s
on one core, with a new connection each, stays well under a core.
"""
import argparse
import asyncio
import collections
import os
import signal
import sys


class Delayed:
    """Writes chunks to a transport `delay` seconds after they were handed over, in order; None ends it (`end`)."""

    __slots__ = ("loop", "delay", "end", "transport", "queue", "timer", "closed")

    def __init__(self, loop, delay, end):
        self.loop = loop
        self.delay = delay
        self.end = end
        self.transport = None
        self.queue = collections.deque()
        self.timer = None
        self.closed = False

    def push(self, data):
        if self.closed:
            return
        if self.delay <= 0 and not self.queue and self.transport is not None:
            self._deliver(data)
            return
        deadline = self.loop.time() + self.delay
        self.queue.append((deadline, data))
        if self.timer is None and self.transport is not None:
            self.timer = self.loop.call_at(deadline, self.flush)

    def attach(self, transport):
        self.transport = transport
        if self.queue and self.timer is None:
            self.timer = self.loop.call_at(self.queue[0][0], self.flush)

    def flush(self):
        self.timer = None
        now = self.loop.time()
        queue = self.queue
        while queue and queue[0][0] <= now and not self.closed:
            self._deliver(queue.popleft()[1])
        if queue and not self.closed:
            self.timer = self.loop.call_at(queue[0][0], self.flush)

    def _deliver(self, data):
        if data is None:
            self.closed = True
            self.queue.clear()
            self.end(self.transport)
        else:
            self.transport.write(data)

    def cancel(self):
        self.closed = True
        self.queue.clear()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def half_close(transport):
    if transport.can_write_eof():
        transport.write_eof()
    else:
        transport.close()


class Upstream(asyncio.Protocol):
    """The proxy's connection to the stand-in: what it reads goes to the client, delayed."""

    __slots__ = ("client",)

    def __init__(self, client):
        self.client = client

    def data_received(self, data):
        self.client.answers.push(data)

    def eof_received(self):
        self.client.answers.push(None)
        return False

    def connection_lost(self, exc):
        self.client.answers.push(None)


class Client(asyncio.Protocol):
    """One accepted connection: connects upstream after the delay, relays both ways."""

    def __init__(self, proxy):
        self.proxy = proxy
        loop = proxy.loop
        self.answers = Delayed(loop, proxy.delay, lambda transport: transport.close())
        self.requests = Delayed(loop, proxy.request_delay, half_close)
        self.transport = None
        self.upstream = None
        self.gone = False

    def connection_made(self, transport):
        self.proxy.accepted += 1
        self.transport = transport
        self.answers.attach(transport)
        self.proxy.loop.call_later(self.proxy.delay, self._connect)

    def _connect(self):
        if not self.gone:
            self.proxy.loop.create_task(self._open())

    async def _open(self):
        try:
            transport, _ = await self.proxy.loop.create_connection(
                lambda: Upstream(self), self.proxy.upstream_host, self.proxy.upstream_port)
        except OSError as error:
            print(f"latency-proxy: upstream connect failed: {error}", file=sys.stderr)
            self.transport.abort()
            return
        if self.gone:
            transport.close()
            return
        self.upstream = transport
        self.requests.attach(transport)

    def data_received(self, data):
        self.requests.push(data)

    def eof_received(self):
        self.requests.push(None)
        return True  # keep the client's side open for the answers still due

    def connection_lost(self, exc):
        self.gone = True
        self.answers.cancel()
        self.requests.cancel()
        if self.upstream is not None:
            self.upstream.close()


class Proxy:
    def __init__(self, args):
        self.loop = asyncio.get_running_loop()
        self.delay = args.delay_ms / 1000
        self.request_delay = args.request_delay_ms / 1000
        self.upstream_host = args.upstream_host
        self.upstream_port = args.upstream
        self.count_file = args.count_file
        self.accepted = 0

    def report(self):
        line = f"accepted {self.accepted}\n"
        if self.count_file:
            temporary = self.count_file + ".tmp"
            with open(temporary, "w") as f:
                f.write(line)
            os.replace(temporary, self.count_file)
        sys.stderr.write("latency-proxy: " + line)
        sys.stderr.flush()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=int, required=True, help="port to listen on (127.0.0.1)")
    parser.add_argument("--upstream", type=int, required=True, help="port of the stand-in")
    parser.add_argument("--upstream-host", default="127.0.0.1")
    parser.add_argument("--delay-ms", type=float, default=50, help="added to every connect and every answer")
    parser.add_argument("--request-delay-ms", type=float, default=0, help="added to what clients send")
    parser.add_argument("--count-file", help="where SIGUSR1 and exit write 'accepted N'")
    parser.add_argument("--exit-after", type=float, default=0, help="exit after this many seconds (0: never)")
    args = parser.parse_args()
    proxy = Proxy(args)
    stop = asyncio.Event()
    proxy.loop.add_signal_handler(signal.SIGUSR1, proxy.report)
    for sig in (signal.SIGTERM, signal.SIGINT):
        proxy.loop.add_signal_handler(sig, stop.set)
    server = await proxy.loop.create_server(lambda: Client(proxy), "127.0.0.1", args.listen, backlog=4096,
                                            reuse_address=True)
    if args.exit_after > 0:
        proxy.loop.call_later(args.exit_after, stop.set)
    await stop.wait()
    server.close()
    proxy.report()


if __name__ == "__main__":
    asyncio.run(main())
