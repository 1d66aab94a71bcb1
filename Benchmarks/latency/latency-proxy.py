#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that holds every byte from client to server for DELAY_MS before
passing it on (in order; server to client unchanged), so each command costs one round trip of
DELAY_MS, as on a network. Prints the port it listens on, then serves until its standard input
closes (so it never outlives the benchmark that started it, even one that crashed).

    latency-proxy.py DELAY_MS TARGET_PORT
"""
import asyncio
import os
import sys


async def forward(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.ensure_future(deliver())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            await queue.put((loop.time() + delay, data))
    except ConnectionError:
        pass
    await queue.put((0, None))
    await sender


async def main():
    delay = float(sys.argv[1]) / 1000
    target = int(sys.argv[2])

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            forward(client_reader, server_writer, delay),
            forward(server_reader, client_writer, 0),
            return_exceptions=True,
        )

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    # Read standard input on a thread: it ends when the benchmark closes it or exits.
    await loop.run_in_executor(None, sys.stdin.buffer.read)
    # Open connections end with the process, without tracebacks of cancelled tasks.
    os._exit(0)


asyncio.run(main())
